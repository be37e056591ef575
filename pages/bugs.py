"""Spot the bug: real mistakes in writing position code, each breaking a picture and a check."""

import streamlit as st

import ui
from posviz import charts, frames, generation, variants, verdicts

ui.page_setup()
START_BUGS = {"start reset to 0": "reset", "off-by-one start": "off_by_one"}
CHOICES = tuple(variants.BUGS) + tuple(START_BUGS)
HINTS = {
    "none": "The reference: every check passes.",
    "2i exponent": "Recognise it: sine and cosine of a pair run at different speeds, so rows stop having norm d/2.",
    "multiply": "Recognise it: the right half of the heatmap is noise instead of slow, smooth columns; "
    "norms still pass, the wavelengths are wrong.",
    "odd width": "Recognise it: one column has no partner; the squared norms wobble around (d-1)/2.",
    "concat read as interleaved": "Recognise it: position 0 is not (0, 1, 0, 1, …) and no single rotation "
    "moves a row to the next.",
    "start reset to 0": "Recognise it: generation with a cache stops matching a full recompute right after the prompt.",
    "off-by-one start": "Recognise it: the same drift, smaller; every new token sits one position too late.",
}
P = ui.params(
    ui.Param("bug", "2i exponent", "choice", options=CHOICES, label="mistake", widget="radio"),
    ui.Param("length", 64, "int", 4, 512, label="positions"),
    ui.Param("width", 32, "int", 4, 256, step=2, label="width d (even)"),
)
tables = st.cache_data(variants.table_with_checks, max_entries=16)
generate = st.cache_data(generation.demo_generation, max_entries=8)

st.title("Spot the bug")
ui.intro("Each switch is a mistake found in real position-encoding code. The correct table is on the left.")
ui.url_state(P, page="bugs")
s = st.session_state
with st.sidebar:
    ui.controls(P.values())
ui.sync_url(P)

st.subheader(s.bug)
what = variants.BUGS.get(s.bug, "incremental generation with rotary embeddings")
st.markdown(what[:1].upper() + what[1:] + ". " + HINTS[s.bug])

if s.bug in START_BUGS:
    good = generate(length=24, prefill=6)
    bad = generate(length=24, prefill=6, bug=START_BUGS[s.bug])
    a, b = st.columns(2)
    with a:
        ui.headline("correct: max |cached − full|", f"{good.errors.max():.2g}")
        ui.badge(verdicts.negligible(good.errors.max()), "cached = recomputed", "drifts")
    with b:
        ui.headline(f"{s.bug}: max |cached − full|", f"{bad.errors.max():.3g}")
        ui.badge(verdicts.negligible(bad.errors.max()), "cached = recomputed", "drifts after the prompt")
    frame = frames.step_errors(bad.errors, bad.prefill)
    ui.show_chart(charts.step_errors, frame, name="bug-errors", title="error per token with the bug")
else:
    (correct, good), (broken, bad) = tables(s.length, s.width, "none"), tables(s.length, s.width, s.bug)
    cols = st.columns(3)
    rows = [
        (
            "‖pe_t‖² = d/2",
            verdicts.negligible(good.norm_deviation),
            verdicts.negligible(bad.norm_deviation),
            f"{bad.norm_deviation:.2g}",
        ),
        (
            "position 0 = (0, 1, 0, 1, …)",
            verdicts.machine_zero(max(good.first_row)),
            verdicts.machine_zero(max(bad.first_row)),
            f"{max(bad.first_row):.2g}",
        ),
        (
            "pe[t+1] = M₁ pe[t]",
            verdicts.negligible(good.offset_residual or 0.0),
            bad.offset_residual is not None and verdicts.negligible(bad.offset_residual),
            "no pairs" if bad.offset_residual is None else f"{bad.offset_residual:.2g}",
        ),
    ]
    for col, (label, fine, still, measured) in zip(cols, rows, strict=True):
        with col:
            ui.headline(f"{label}: deviation with the bug", measured)
            ui.badge(fine, "correct table: passes", "correct table: fails")
            ui.badge(still, "buggy table: passes", "buggy table: FAILS")
    left, right = st.columns(2)
    for column, table, title, name in (
        (left, correct, "correct", "correct-table"),
        (right, broken, f"with the bug: {s.bug}", "buggy-table"),
    ):
        with column:
            ui.matrix_chart(table, title=title, row_title="position", col_title="dimension", domain=(-1.0, 1.0),
                            value_title="pe", name=name, height=320)  # fmt: skip
