"""`posviz inspect`'s report on a GGUF file: in words (a short table), and as one self-contained HTML page.

The page's charts are the Longer contexts page's (`figures.rope_wavelengths`, `figures.rope_divisors`), drawn by
a function the caller passes (the CLI passes the offline deck's `lecture.export.figure`: inline SVG), so the file
loads nothing from elsewhere. Numbers are `display.number`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING

import numpy as np

from posviz.drawing.display import number
from posviz.experiments.inspection import FREQ_FACTORS, Report, Scheme
from posviz.maths.scaling import YARN_BETA_FAST, YARN_BETA_SLOW

if TYPE_CHECKING:
    import pandas as pd

    from posviz.drawing.figures import Figure

SHORT_ROWS = 8  # pairs in the words' table, evenly spaced, plus the last that turns and the first that does not


def _tokens(x: float) -> str:
    """A length in tokens: whole and grouped from 100 up (438,458), else `number`'s 5 digits (6.2832)."""
    return f"{x:,.0f}" if x >= 100 else number(x)


def _count(n: int | None) -> str:
    return "not stated" if n is None else f"{n:,}"


def facts(report: Report) -> list[tuple[str, str]]:
    """The header's facts as (label, text) rows, every one the file states or 'not stated'."""
    s = report.scheme
    known = f"known: RoPE on {s.convention}" if s.known else "unknown to posviz: its pairs are not computed"
    rows = [
        ("architecture", f"{s.architecture} ({known})"),
        ("context", f"{_count(s.context)} tokens"),
        ("heads", f"{_count(s.heads)} query, {_count(s.kv_heads)} key/value; head width d = {_count(s.head_dim)}"),
        ("rotated width", f"r = {_count(s.rotary_dim)} of d = {_count(s.head_dim)} ({_count(s.pairs)} pairs)"),
        ("RoPE base", "not stated" if s.base is None else _tokens(s.base)),
        ("rope scaling", _scaling(report)),
    ]
    if s.freq_factors_shape is not None:
        rows.append(("frequency factors", _factors(s)))
    others = [name for name in s.factor_tensors if name != FREQ_FACTORS]
    if others:
        rows.append(("factor tensors", f"{', '.join(others)}: per-pair factors (LongRoPE), not read"))
    rows.append(("keys not read", ", ".join(s.unread) or "none"))
    return rows


def facts_frame(report: Report) -> pd.DataFrame:
    """`facts` as a table for a page: columns "the file states" and "value".

    Returns: one row a fact
    """
    import pandas as pd  # as report_figures: the words alone need no pandas

    rows = facts(report)
    return pd.DataFrame({"the file states": [r[0] for r in rows], "value": [r[1] for r in rows]})


def _factors(s: Scheme) -> str:
    """What the file's rope_freqs.weight holds: how many factors, their range, and what they do (or why not read)."""
    f = s.freq_factors
    if f is None or s.freq_factors_shape != (s.pairs,):
        return f"{FREQ_FACTORS}: shape {s.freq_factors_shape}, not used (see below)"
    return (
        f"{FREQ_FACTORS}: {len(f)} per-pair factors, {number(min(f))} to {number(max(f))}; each pair's frequency is "
        "divided by its own (Llama 3's scaling, as llama.cpp runs it)"
    )


def _scaling(report: Report) -> str:
    s = report.scheme
    if s.rope_type == "none":
        return "none"
    parts = [s.rope_type, f"factor {number(s.factor) if s.factor is not None else 'not stated'}"]
    parts.append(f"original context {_count(s.original)}")
    if s.rope_type == "yarn":
        parts += [_given("beta_fast", s.beta_fast, YARN_BETA_FAST), _given("beta_slow", s.beta_slow, YARN_BETA_SLOW)]
    if report.view is not None:
        stated = "stated" if s.attention_factor is not None else "computed"
        parts.append(f"attention factor {number(report.view.attention)} ({stated})")
    return ", ".join(parts)


def _given(name: str, value: float | None, default: float) -> str:
    return f"{name} {number(value)}" if value is not None else f"{name} {number(default)} (default: not stated)"


def summary(report: Report) -> list[str]:
    """What the pairs do in sentences: those that never turn, and what the scaling changes."""
    if report.view is None:
        return ["Pairs not computed: " + "; ".join(report.scheme.problems()) + "."]
    P, never = report.view.plain.size, report.never_turn
    lines = [f"{never.size} of {P} pairs never complete a turn within {report.window:,} tokens" + _which(never) + "."]
    if report.view.scales:
        slowed, s = report.view.changed, report.scheme
        what = "" if s.rope_type == "none" else f"{s.rope_type} scaling"
        if s.freq_factors is not None:
            what += (" and the " if what else "") + f"{FREQ_FACTORS} factors"
        lines.append(
            f"The {what} slow{'s' if s.freq_factors is None else ''} {slowed} of {P} pairs (by up to "
            f"{number(float(report.divisors.max()))}x); after it, {report.scaled_never_turn.size} pairs never turn "
            f"within the {report.scheme.context:,}-token context{_which(report.scaled_never_turn)}."
        )
    return lines


def _which(pairs: np.ndarray) -> str:
    if pairs.size == 0:
        return ""
    if pairs.size == 1:
        return f" (pair {pairs[0]})"
    contiguous = pairs[-1] - pairs[0] + 1 == pairs.size
    return f" (pairs {pairs[0]}-{pairs[-1]})" if contiguous else f" (pairs {', '.join(map(str, pairs))})"


def pair_rows(report: Report, pairs: np.ndarray | None = None) -> list[tuple[str, ...]]:
    """The table of pairs: pair, wavelength, turns within the window, and (when scaled) the scaled ones.

    Returns: a header row, then one row per pair in `pairs` (default: all)
    """
    view = report.view
    pairs = np.arange(view.plain.size) if pairs is None else pairs
    factors = report.scheme.freq_factors
    head = ("pair", "wavelength (tokens)", f"turns in {report.window:,}")
    if view.scales:
        head += ("scaled wavelength", f"turns in {report.scheme.context:,}", "divided by")
    if factors is not None:
        head += (f"{FREQ_FACTORS.removesuffix('.weight')} factor",)
    rows = [head]
    for i in pairs:
        row = (str(i), _tokens(report.wavelengths[i]), number(report.window / report.wavelengths[i]))
        if view.scales:
            scaled = report.scaled_wavelengths[i]
            turns = number(report.scheme.context / scaled)
            row += (_tokens(scaled), turns, number(report.divisors[i]))
        if factors is not None:
            row += (number(factors[i]),)
        rows.append(row)
    return rows


def short_pairs(report: Report) -> np.ndarray:
    """The pairs the words' table shows: SHORT_ROWS evenly spaced, and either side of where turning stops.

    Returns: (<= SHORT_ROWS + 2,)
    """
    P, never = report.view.plain.size, report.never_turn
    chosen = set(np.linspace(0, P - 1, min(SHORT_ROWS, P)).round().astype(int).tolist())
    if 0 < never.size < P:
        chosen |= {int(never[0]) - 1, int(never[0])}
    return np.array(sorted(chosen))


def text(report: Report) -> str:
    """The report in words: facts, the sentences, and the short table of pairs."""
    s = report.scheme
    read = "no tensor read" if s.freq_factors is None else f"and the {len(s.freq_factors)} numbers of {FREQ_FACTORS}"
    lines = [f"{s.path} ({s.size:,} bytes, {s.tensors:,} tensors; read from its header, {read})"]
    width = max(len(label) for label, _ in facts(report))
    lines += [f"  {label.ljust(width)}  {value}" for label, value in facts(report)]
    lines += ["", *summary(report)]
    if report.view is not None:
        rows = pair_rows(report, short_pairs(report))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines += ["", *("  ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) for r in rows)]
        lines.append(f"({len(rows) - 1} of {report.view.plain.size} pairs; --html writes every pair and the charts)")
    return "\n".join(lines)


def report_figures(report: Report) -> list[Figure]:
    """The Longer contexts page's charts for this file: wavelengths against the windows, and (when scaled) each
    method's slowdown at the file's factor."""
    from posviz.drawing import figures  # Altair and pandas load here: the words alone start in a third of the time

    if report.view is None:
        return []
    out = [figures.rope_wavelengths(report.view)]
    # each method at the file's factor (none for rope_freqs alone); the Longer contexts page names llama's dimensions
    # (2i, 2i+1), the layout may differ
    if report.view.scales and report.scheme.rope_type != "none":
        divisors = figures.rope_divisors(report.view.preset)
        out.append(dataclasses.replace(divisors, shape={**divisors.shape, "x_title": "pair i"}))
    return out


def captions(report: Report) -> list[str]:
    """One line under each of `report_figures`."""
    if report.view is None:
        return []
    window = f"the dashed lines: the original context and the context the file is for ({report.scheme.context:,})"
    out = [f"Tokens per full turn of each pair, unscaled and with the file's scaling; {window}."]
    if report.view.scales and report.scheme.rope_type != "none":
        out.append(
            f"What each scaling method posviz computes would do at the file's factor, with each method's default "
            f"parameters (the file's own {report.scheme.rope_type} is the wavelength chart above)."
        )
    return out


def page(report: Report, draw: Callable[[Figure, int, str], str], width: int = 900) -> str:
    """The report as one HTML document: facts, sentences, every pair, and the charts drawn by `draw`
    (figure, width px, unique name) -> inline markup."""
    s = report.scheme
    body = [f"<h1>{escape(s.path.name)}</h1>", f"<p class='what'>{escape(text(report).splitlines()[0])}</p>"]
    body.append(_table([("", ""), *facts(report)], header=False, cls="facts"))
    body += [f"<p>{escape(line)}</p>" for line in summary(report)]
    for i, (fig, caption) in enumerate(zip(report_figures(report), captions(report), strict=True)):
        body.append(f"<div class='figure'>{draw(fig, width, f'inspect-{i}')}</div>")
        body.append(f"<p class='what'>{escape(caption)}</p>")
    if report.view is not None:
        body.append(_table(pair_rows(report)))
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>posviz inspect: {escape(s.path.name)}"
        f"</title><meta name='viewport' content='width=device-width, initial-scale=1'><style>{STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>"
    )


def _table(rows: list[tuple[str, ...]], *, header: bool = True, cls: str = "pairs") -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in rows[0]) if header else ""
    cells = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table class='{cls}'>{f'<thead><tr>{head}</tr></thead>' if header else ''}<tbody>{cells}</tbody></table>"


STYLE = """
body { max-width: 960px; margin: 24px auto; padding: 0 16px; color: #1f2430;
  font-family: "Source Sans Pro", "Segoe UI", Helvetica, Arial, sans-serif; font-size: 16px; }
h1 { font-size: 26px; margin: 0 0 4px; } .what { opacity: 0.75; margin-top: 0; }
table { border-collapse: collapse; margin: 12px 0; font-variant-numeric: tabular-nums; }
td, th { padding: 2px 10px; text-align: right; border-bottom: 1px solid #e4e6eb; }
td:first-child, th:first-child, .facts td { text-align: left; }
.figure svg { max-width: 100%; height: auto; }
"""
