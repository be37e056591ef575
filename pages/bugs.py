"""Spot the bug

Each switch is a mistake found in real position-encoding code. The correct table is on the left, the buggy one beside
it, and their difference on the right. Turn on *hide the answer* for a quiz link.
"""

import streamlit as st

import ui
from posviz.drawing import charts, figures
from posviz.drawing.display import number, zero_note
from posviz.maths import generation, variants, verdicts

ui.page_setup(__doc__)
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
    ui.width_param(32, 4, 256, aliases=("width",)),
    ui.Param("quiz", False, "bool", label="hide the answer (quiz link)",
             help="The page shows the pictures and checks but not which mistake it is; a button reveals it."),
)  # fmt: skip
tables = st.cache_data(variants.table_with_checks, max_entries=16)
generate = st.cache_data(generation.demo_generation, max_entries=8)

s = ui.url_state(P, page="bugs")
with st.sidebar:
    ui.control(P["quiz"])
    if s.quiz:
        with st.expander("mistake (the answer)"):
            ui.control(P["bug"])
    else:
        ui.control(P["bug"])
    ui.controls(P[k] for k in ("length", "d"))
ui.sync_url(P)

what = variants.BUGS.get(s.bug, "incremental generation with rotary embeddings")
answer = what[:1].upper() + what[1:] + ". " + HINTS[s.bug]
name = "a mistake" if s.quiz else s.bug
if s.quiz:
    st.subheader("Which mistake is this?")
    with st.expander("Show the answer"):
        st.markdown(f"**{s.bug}**: {answer}")
else:
    st.subheader(s.bug)
    ui.intro(answer)

if s.bug in START_BUGS:
    good = generate(length=24, prefill=6)
    bad = generate(length=24, prefill=6, bug=START_BUGS[s.bug])
    a, b = st.columns(2)
    with a:
        ui.headline("correct: max |cached − full|", number(good.errors.max()))
        ui.badge(verdicts.negligible(good.errors.max()), "cached = recomputed", "drifts")
    with b:
        ui.headline(f"{name}: max |cached − full|", number(bad.errors.max()))
        ui.badge(verdicts.negligible(bad.errors.max()), "cached = recomputed", "drifts after the prompt")
    ui.figure(figures.generation_errors("bug-errors", bad.errors, bad.prefill, f"error per token with {name}"))
else:
    (correct, good), (broken, bad) = tables(s.length, s.d, "none"), tables(s.length, s.d, s.bug)
    cols = st.columns(3)
    rows = [
        (
            "buggy table: max |‖pe_t‖² − d/2|",
            verdicts.negligible(good.norm_deviation),
            verdicts.negligible(bad.norm_deviation),
            number(bad.norm_deviation),
        ),
        (
            "buggy table: max |pe_0 − (0, 1, 0, 1, …)|",
            verdicts.machine_zero(max(good.first_row)),
            verdicts.machine_zero(max(bad.first_row)),
            number(max(bad.first_row)),
        ),
        (
            "buggy table: max |pe[t+1] − M₁ pe[t]|",
            verdicts.negligible(good.offset_residual or 0.0),
            bad.offset_residual is not None and verdicts.negligible(bad.offset_residual),
            "no pairs" if bad.offset_residual is None else number(bad.offset_residual),
        ),
    ]
    ui.intro("M₁ is the one matrix that moves every row of a correct table to the next position.")
    ui.intro("Each number is how far the buggy table is from the check.")
    for col, (label, fine, still, measured) in zip(cols, rows, strict=True):
        with col:
            ui.headline(label, measured, help_text="how far the buggy table is from the check")
            with st.container(horizontal=True, gap="small"):
                ui.badge(fine, "correct table: passes", "correct table: fails")
                ui.badge(still, "buggy table: passes", "buggy table: FAILS")
    difference = variants.table_difference(correct, broken)
    panels = (
        (correct, "correct", "correct-table", "pe", (-1.0, 1.0), None),
        (broken, f"with {name}", "buggy-table", "pe", (-1.0, 1.0), None),
        (difference, "correct − buggy", "bug-difference", "difference", charts.signed_domain(difference),
         zero_note(difference)),
    )  # fmt: skip
    for column, (table, title, key, value_title, domain, note) in zip(st.columns(3), panels, strict=True):
        with column:
            ui.matrix_chart(table, title=title, row_title="position", col_title="dimension", domain=domain,
                            value_title=value_title, name=key, height=ui.fit(320, 250), note=note,
                            in_columns=3)  # fmt: skip
    if broken.shape[1] < correct.shape[1]:
        st.caption(f"The buggy table has {broken.shape[1]} columns; the difference covers those.")
