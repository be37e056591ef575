"""Start offsets: generate one token at a time with a cache, against a full recompute at every step."""

import streamlit as st

import ui
from posviz import charts, frames, generation, verdicts

ui.page_setup()
BUG_LABELS = {
    "none": "correct: token t at position t",
    "reset": "bug: every new token at position 0",
    "off_by_one": "bug: token t at position t + 1",
}
P = ui.params(
    ui.Param("scheme", "rotary", "choice", options=generation.SCHEMES, label="position scheme", widget="horizontal"),
    ui.Param(
        "bug", "none", "choice", options=generation.BUGS, label="new tokens get", widget="radio", names=BUG_LABELS
    ),
    ui.Param("T", 16, "int", 2, 64, label="tokens T"),
    ui.Param("prefill", 4, "int", 1, 64, label="prefill (prompt length)"),
    ui.Param("C", 8, "int", 2, 64, step=2, label="width C (even)"),
    ui.Param("seed", 0, "int", 0, 99_999, widget="number"),
)
run = st.cache_data(generation.demo_generation, max_entries=32)

st.title("Start offsets in incremental generation")
ui.intro(
    "A model that generates text reads the prompt once (prefill), then adds one token at a time and keeps "
    "the keys and values it has already computed. Each new token must get its true position as `start`: "
    "then every step equals recomputing the whole sequence from scratch. Give it the wrong position and "
    "the outputs drift, silently."
)
ui.url_state(P, page="offsets")
s = st.session_state
with st.sidebar:
    ui.controls(P[k] for k in ("scheme", "bug", "T"))
    if s.prefill > s.T:
        ui.note(f"The prefill cannot be longer than the {s.T} tokens; using {s.T}.")
        s.prefill = s.T
    ui.control(P["prefill"], hi=s.T)
    ui.controls(P[k] for k in ("C", "seed"))
ui.sync_url(P)

result = run(seed=s.seed, length=s.T, width=s.C, prefill=s.prefill, scheme=s.scheme, bug=s.bug)
errors = result.errors
left, right = st.columns([2, 3])
with left:
    ui.headline("max |cached − full recompute| over all steps", f"{errors.max():.3g}")
    ui.badge(verdicts.negligible(errors.max()), "cached generation = full recompute", "the cached run drifts")
    table = frames.generation_table(result.positions, errors)
    st.dataframe(
        table,
        hide_index=True,
        height=min(420, 35 * (s.T + 1) + 3),
        column_config={"error": st.column_config.NumberColumn(format="%.3g")},
    )
with right:
    frame = frames.step_errors(errors, s.prefill)
    ui.show_chart(
        charts.step_errors,
        frame,
        name="generation-errors",
        title="error of each token's output against a full recompute",
    )
