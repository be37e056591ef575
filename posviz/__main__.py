"""Command line: `posviz verify` (or `python -m posviz verify`) reproduces every claim; exit 1 if one fails."""

from __future__ import annotations

import argparse
import sys

from posviz.experiments.claims import claim_rows, recorded_at_extraction


def print_recorded() -> None:
    """The whole-model numbers the shipped layers cannot redo: printed, labelled, and not counted as claims."""
    print("\nRecorded at extraction, not reproduced here (SmolLM2-135M-Instruct, all 30 layers, float64, by")
    print("tools/extract_smollm2.py; posviz ships 5 layers, so these are read from provenance.json):")
    for row in recorded_at_extraction():
        print(f"  {row.label}: {row.value}  [{row.over}]")


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
    print_recorded()
    claims_failed = sorted({r["claim"] for r in rows if not r["pass"]})
    total = len({r["claim"] for r in rows})
    print(
        f"\n{total - len(claims_failed)} of {total} claims pass"
        + (f"; failing: {claims_failed}" if claims_failed else "")
    )
    return 1 if claims_failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="posviz", description=__doc__)
    parser.add_argument("command", choices=["verify"], help="verify: reproduce every claim")
    parser.parse_args(argv)
    return verify()


if __name__ == "__main__":
    sys.exit(main())
