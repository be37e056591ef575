"""Spot the bug

Each switch is a mistake found in real position-encoding code. The correct table is on the left, the buggy one beside
it, and their difference on the right. Turn on *hide the answer* for a quiz link.
"""

import streamlit as st

import ui
from posviz.drawing import figures
from posviz.drawing.display import zero_note
from posviz.experiments import mistakes
from posviz.maths import verdicts

ui.page_setup(__doc__)
P = ui.params(
    ui.Param("bug", "2i exponent", "choice", options=tuple(mistakes.MISTAKES), label="mistake", widget="radio"),
    ui.Param("T", 64, "int", 4, 512, label="positions", aliases=("length",)),
    ui.width_param(32, 4, 256, aliases=("width",)),
    ui.Param(
        "quiz",
        False,
        "bool",
        label="hide the answer (quiz link)",
        help="The page shows the pictures and checks but not which mistake it is; a button reveals it.",
    ),
)
spot_table = st.cache_data(mistakes.spot_table, max_entries=16)
spot_start = st.cache_data(mistakes.spot_start, max_entries=8)

s = ui.url_state(P, page="bugs")
with st.sidebar:  # a quiz link folds the answer (which mistake) away
    ui.control(P["quiz"])
    if s.quiz:
        with st.expander("mistake (the answer)"):
            ui.control(P["bug"])
    else:
        ui.control(P["bug"])
    ui.controls(P[k] for k in ("T", "d"))
ui.sync_url(P)

mistake = mistakes.MISTAKES[s.bug]
name = "a mistake" if s.quiz else s.bug
if s.quiz:
    st.subheader("Which mistake is this?")
    with st.expander("Show the answer"):
        st.markdown(f"**{s.bug}**: {mistake.answer}")
else:
    st.subheader(s.bug)
    ui.intro(mistake.answer)

if mistake.start_bug:
    runs = spot_start(mistake.start_bug)
    ui.readings(
        [
            ui.Reading(
                "correct: max |cached − full|",
                runs.correct.max_error,
                ui.Badge(verdicts.negligible(runs.correct.max_error), "cached = recomputed", "drifts"),
            ),
            ui.Reading(
                f"{name}: max |cached − full|",
                runs.broken.max_error,
                ui.Badge(verdicts.negligible(runs.broken.max_error), "cached = recomputed", "drifts after the prompt"),
            ),
        ]
    )
    title = f"error per token with {name}"
    drifts = not verdicts.negligible(runs.broken.max_error)
    ui.takeaway(
        f"Each bar is one generated token's distance from a full recompute: with {name} it "
        + ("leaves rounding level once generation passes the prompt." if drifts else "stays at rounding level.")
    )
    ui.figure(figures.generation_errors("bug-errors", runs.broken.errors, runs.broken.prefill, title))
else:
    spot = spot_table(s.T, s.d, mistake.table_bug)
    ui.readings(
        [
            ui.Reading(
                check.label,
                check.measured,
                help="how far the buggy table is from the check",
                badge=(
                    ui.Badge(check.correct_passes, "correct table: passes", "correct table: fails"),
                    ui.Badge(check.buggy_passes, "buggy table: passes", "buggy table: FAILS"),
                ),
            )
            for check in spot.checks
        ]
    )
    ui.takeaway(
        "Each number is how far the buggy table is from the check; M₁ is the one matrix that moves every "
        "row of a correct table to the next position."
    )
    ui.matrix_row(
        [
            ui.Panel("correct", spot.correct, "correct-table", domain=(-1.0, 1.0), value_title="pe"),
            ui.Panel(f"buggy: {name}", spot.broken, "buggy-table", domain=(-1.0, 1.0), value_title="pe"),
            ui.Panel(
                "correct − buggy",
                spot.difference,
                "bug-difference",
                note=zero_note(spot.difference),
                value_title="difference",
            ),
        ],
        row_title="position",
        col_title="dimension",
        height=ui.fit(320, 200),
    )
    ui.takeaway(
        "The difference panel is blank: this table equals the correct one."
        if zero_note(spot.difference)
        else "The right panel shows where the bug changes the table: the columns it touches are the ones to suspect."
    )
    if spot.narrower:
        st.caption(f"The buggy table has {spot.broken.shape[1]} columns; the difference covers those.")
