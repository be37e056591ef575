"""Start offsets in incremental generation

A model that generates text reads the prompt once (prefill), then adds one token at a time and keeps the keys and values
it has already computed. Each new token must get its true position as `start`: then every step equals recomputing the
whole sequence from scratch. Give it the wrong position and the outputs drift, silently.
"""

import streamlit as st

import ui
from posviz.drawing import figures, frames
from posviz.drawing.display import number
from posviz.experiments import longer
from posviz.maths import generation, verdicts

ui.page_setup(__doc__)
BUG_LABELS = {
    "none": "correct: token t at position t",
    "reset": "bug: every new token at position 0",
    "off_by_one": "bug: token t at position t + 1",
}
# Two parts: a first visit draws the generation check, not the attention-sinks chart too.
PARTS = {"generation": "cached generation", "sinks": "attention sinks (StreamingLLM)"}
P = ui.params(
    ui.part_param(PARTS),
    ui.Param("scheme", "rotary", "choice", options=generation.SCHEMES, label="position scheme", widget="horizontal"),
    ui.Param(
        "bug", "none", "choice", options=generation.BUGS, label="new tokens get", widget="radio", names=BUG_LABELS
    ),
    ui.tokens_param(16, 64),
    ui.Param("prefill", 4, "int", 1, 64, label="prefill (prompt length)"),
    ui.width_param(8, 2, 64, aliases=("C",)),
    ui.seed_param(0),
    # The attention-sinks part (StreamingLLM 3.2), its controls beside its chart: keys prefixed sink_ to stay apart.
    ui.Param("sink_T", 24, "int", 2, 64, label="tokens"),
    ui.Param("sinks", 4, "int", 0, 16, label="sink tokens kept"),
    ui.Param("window", 4, "int", 1, 32, label="recent window (with the new token)"),
    ui.Param(
        "sink_bug",
        "original",
        "choice",
        options=("original", "rotated_at_insert"),
        label="compare with",
        widget="radio",
        names=longer.SINK_NAMES,
    ),
)
SINKS = ("sink_T", "sinks", "window", "sink_bug")
generate = st.cache_data(generation.demo_generation, max_entries=32)
stream = st.cache_data(longer.sink_comparison, max_entries=32)

s = ui.url_state(P, page="offsets")
part = ui.part(P["part"])
with st.sidebar:  # the sinks part has its own controls beside its chart; both parts share d and the seed
    if part == "generation":
        ui.controls(P[k] for k in ("scheme", "bug", "T"))
        if s.prefill > s.T:
            ui.note(f"The prefill cannot be longer than the {s.T} tokens; using {s.T}.")
            s.prefill = s.T
        ui.control(P["prefill"], hi=s.T)
    ui.controls(P[k] for k in ("d", "seed"))
ui.sync_url(P)

if part == "generation":
    result = generate(seed=s.seed, T=s.T, d=s.d, prefill=s.prefill, scheme=s.scheme, bug=s.bug)
    left, right = st.columns([2, 3])
    with left:
        ui.headline("max |cached − full recompute| over all steps", number(result.max_error))
        ui.badge(verdicts.negligible(result.max_error), "cached generation = full recompute", "the cached run drifts")
        ui.intro("Equal here means below 1e-9: rounding (about 1e-16 a value), not an effect.")
        ui.html_table(frames.generation_table(result.positions, result.errors, written=True), height=ui.fit(420, 330))
    with right:
        title = "error of each token against a full recompute"
        ui.figure(figures.generation_errors("generation-errors", result.errors, s.prefill, title), in_columns=2)
else:
    ui.intro(
        "StreamingLLM keeps the first few tokens (the attention sinks: tokens that attention keeps landing on) and a "
        "window of recent ones, and re-assigns positions within the cache: cache [0, 1, 2, 3, 6, 7, 8] plus new token "
        "9 gets positions 0..7, so no distance ever exceeds the cache's size, inside what the model was trained on. "
        "Keys are cached before rotation and rotated again at each step. Keeping each token's position from the text "
        "is a different computation, whose distances grow with the text; rotating a key once, on arrival, leaves it "
        "at an index the cache no longer gives it after an eviction."
    )
    left, right = st.columns([1, 2])
    with left:
        ui.controls(P[k] for k in SINKS)
    streamed = stream(seed=s.seed, T=s.sink_T, d=s.d, sinks=s.sinks, window=s.window, bug=s.sink_bug)
    cache_error, bug_error = streamed.errors
    first = streamed.cache.first_eviction
    with left:
        ui.headline("max error, re-indexed cache", number(cache_error))
        ui.headline(f"max error, {streamed.bug_name}", number(bug_error))
        ui.badge(streamed.exact, "re-indexed cache = recompute over the kept tokens", "cache drifts")
    with right:
        before = streamed.before_eviction
        ui.takeaway(
            "The cache keeps the first tokens (the sinks) and a recent window. The reference is StreamingLLM's (Xiao "
            "et al. 2023): attention over the kept tokens at positions 0..n−1, re-assigned within the cache. "
            "The re-indexed cache matches it by construction; "
            + (
                "text positions differ from it by definition. "
                if s.sink_bug == "original"
                else "keys rotated once keep a stale index after an eviction: a bug. "
            )
            + (
                f"Before token {first} nothing is evicted, so cache places are text places and the error is "
                f"rounding (at most {number(before)})."
                if before is not None
                else f"Nothing is evicted in these {s.sink_T} tokens, so every way agrees."
            )
        )
        ui.figure(figures.sink_errors(streamed.ways), in_columns=2, height=ui.fit(260, 220))
