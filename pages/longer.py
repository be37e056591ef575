"""Longer contexts: RoPE scaling as real models ship it, checked against the reference formulas; RoPE's decay."""

import streamlit as st

import posviz
import ui
from posviz import charts, longviews, scaling
from posviz.display import number

ui.page_setup()
# Two views of the page, so that a first visit draws three charts, not five (each costs first-paint time).
PARTS = {"scaling": "RoPE scaling", "decay": "RoPE's long-term decay (RoFormer 3.4.3)"}
P = ui.params(
    ui.Param("preset", "llama3.1-8b", "choice", options=tuple(scaling.PRESETS), label="model setup",
             names={key: preset.label for key, preset in scaling.PRESETS.items()}),
    ui.seed_param(0, label="content seed"),
    ui.Param("d", 128, "choice", options=(32, 64, 128, 256), label="decay: head width d", widget="select_slider"),
    ui.Param("reach", 4096, "int", 64, 65_536, step=64, label="decay: distances up to"),
    ui.Param("part", "scaling", "choice", options=tuple(PARTS), names=PARTS, label="part", widget="segmented"),
)  # fmt: skip
registry = st.cache_data(posviz.claims, max_entries=1)()

st.title("Longer contexts")
ui.url_state(P, page="longer")
s = st.session_state
part = ui.control(P["part"]) or "scaling"
with st.sidebar:
    ui.controls(P[k] for k in (("preset", "seed") if part == "scaling" else ("seed", "d", "reach")))
ui.sync_url(P)
if part == "scaling":
    ui.intro(
        "Models trained on a window of L tokens are stretched past it by slowing some of RoPE's rotating pairs. "
        "Each method decides which pairs to slow and by how much; the inverse frequencies below are computed "
        "with the formulas of Hugging Face transformers' `modeling_rope_utils.py`, from the configuration each "
        "preset names."
    )
    preset = scaling.PRESETS[s.preset]
    view = longviews.scaled(preset)

    top, side = st.columns([2, 3])
    with top:
        ui.headline(f"pairs {preset.label} slows", f"{view.changed} of {view.inv.size}")
    with side:
        st.caption(f"Source: {preset.source}")
        longer = [c for c in registry if c.page == "longer"]
        failing = ", ".join(f"#{c.number}" for c in longer if not c.passed)
        ui.badge(not failing, f"claims {', '.join(f'#{c.number}' for c in longer)} reproduced", f"{failing} FAIL")
        ui.intro("; ".join(f"#{c.number}: {c.statement}" for c in longer))

    ui.show_chart(
        charts.lines,
        longviews.divisor_frame(preset),
        name="rope-divisors",
        x="pair",
        y="divisor",
        color="method",
        title=f"how much each method slows each pair ({preset.original:,} -> {preset.extended:,} tokens)",
        x_title="pair i (dimensions 2i, 2i+1)",
        y_title="frequency divided by",
        log_y=True,
        points=True,
        height=240,
    )
    ui.intro(
        "Linear interpolation slows every pair by the factor. Dynamic NTK raises the base, so fast pairs barely "
        "move and the slowest ones move most. YaRN and Llama 3 keep pairs that turn many times inside the "
        "training window, divide those that never complete a turn in it, and blend in between. LongRoPE "
        "(also in the core) reads a searched factor per pair from the config, so it has no curve of its own here."
    )

    left, right = st.columns(2)
    with left:
        st.markdown(f"**{view.never_turn} of {view.inv.size} pairs never complete a turn inside the training window.**")
        ui.show_chart(
            charts.lines_with_reference,
            longviews.wavelength_frame(view),
            longviews.window_levels(preset),
            name="wavelengths",
            x="pair",
            y="wavelength",
            color="rope",
            title="wavelength of each pair",
            x_title="pair i",
            y_title="tokens per full turn",
            log_y=True,
            points=True,
        )
    with right:
        st.markdown(
            f"**attention factor a = {number(view.attention)}: logits of rotated dimensions scale by "
            f"a² = {number(view.attention**2)}**"
        )
        scores = longviews.score_frame(view, s.seed)
        ui.show_chart(
            charts.lines_marked,
            scores,
            longviews.window_point(view, scores),
            name="scores-by-distance",
            x="distance",
            y="score",
            color="curve",
            title="score of fixed content, q = k",
            x_title="distance m (tokens)",
            y_title="q · R(m) q",
        )
    ui.intro(
        "The reference code multiplies both cos and sin by the attention factor, so query and key each carry it "
        "and their dot product (the logit) carries its square. Dimensions past the rotary width "
        "(partial rotary, GPT-NeoX) are not rotated and not scaled."
    )
else:
    ui.intro(
        "RoFormer bounds the rotary score by max |h_{i+1} - h_i| times sum_j |S_j|, where S_j sums the first j "
        "unit rotations e^{i m theta_k}. The bound's average over pairs falls as the distance m grows: at m = 0 "
        "every S_j = j, so it is (d/2 + 1)/2. Next to it: the measured mean score of random content with itself."
    )
    decay = longviews.decay(s.reach, s.d, s.seed)
    common = dict(x="distance", y="value", color="curve", x_title="relative distance m")
    a, b = st.columns(2)
    with a:
        ui.headline(f"bound at distance 0, d = {s.d}", number(decay.bound_at_zero))
        ui.show_chart(charts.lines, decay.bound, name="decay-bound", title="the bound's average",
                      y_title="(1/(d/2)) Σ|S_j|", **common)  # fmt: skip
    with b:
        ui.headline("measured at distance 0 (mean |q|²)", number(decay.measured_at_zero))
        ui.show_chart(charts.lines, decay.measured, name="decay-measured",
                      title="measured: 256 random q with themselves", y_title="mean q · R(m) q", **common)  # fmt: skip
