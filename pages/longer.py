"""Longer contexts: RoPE scaling as real models ship it, checked against the reference formulas; RoPE's decay."""

import numpy as np
import pandas as pd
import streamlit as st

import posviz
import ui
from posviz import longcharts, scaling

ui.page_setup()
DIMS = (32, 64, 128, 256)
PARAMS = [
    ui.Param("preset", "llama3.1-8b", "choice", options=tuple(scaling.PRESETS)),
    ui.Param("seed", 0, "int", 0, 99_999),
    ui.Param("d", 128, "choice", options=DIMS),
    ui.Param("reach", 4096, "int", 64, 65_536),
]
registry = st.cache_data(posviz.claims, max_entries=1)()

st.title("Longer contexts: RoPE scaling")
ui.intro(
    "Models trained on a window of L tokens are stretched past it by slowing some of RoPE's rotating pairs. "
    "Each method decides which pairs to slow and by how much; the inverse frequencies below are computed "
    "with the formulas of Hugging Face transformers' `modeling_rope_utils.py`, from the configuration each "
    "preset names."
)
ui.url_state(PARAMS)
s = st.session_state
with st.sidebar:
    st.selectbox("model setup", tuple(scaling.PRESETS), key="preset", format_func=lambda k: scaling.PRESETS[k].label)
    st.number_input("content seed", 0, 99_999, key="seed")
    st.select_slider("decay: head width d", DIMS, key="d")
    st.slider("decay: distances up to", 64, 65_536, step=64, key="reach")
ui.sync_url(PARAMS)
preset = scaling.PRESETS[s.preset]

inv, attention = preset.inv_freq(preset.extended)
plain = scaling.default_inv_freq(2 * inv.size, preset.rope_theta)
changed = int((np.abs(inv / plain - 1) > 1e-12).sum())
top, side = st.columns([2, 3])
with top:
    ui.headline(f"pairs {preset.label} slows", f"{changed} of {inv.size}")
with side:
    st.caption(f"Source: {preset.source}")
    longer = [c for c in registry if c.page == "longer"]
    for column, claim in zip(st.columns(len(longer)), longer, strict=True):
        with column:
            ui.badge(claim.passed, f"#{claim.number} reproduced", f"#{claim.number} FAILS")
    ui.intro("; ".join(f"#{c.number}: {c.statement}" for c in longer))

divisors = longcharts.divisor_frame(scaling.divisors(preset))
ui.show_chart(
    longcharts.divisor_chart(
        divisors,
        title=f"how much each method slows each pair ({preset.original:,} -> {preset.extended:,} tokens)",
        height=240,
    ).to_dict(),
    divisors,
    "rope-divisors",
)
ui.intro(
    "Linear interpolation slows every pair by the factor. Dynamic NTK raises the base, so fast pairs barely "
    "move and the slowest ones move most. YaRN and Llama 3 keep pairs that turn many times inside the "
    "training window, divide those that never complete a turn in it, and blend in between. LongRoPE "
    "(also in the core) reads a searched factor per pair from the config, so it has no curve of its own here."
)

left, right = st.columns(2)
with left:
    pairs = pd.DataFrame(
        {
            "pair": np.tile(np.arange(inv.size), 2),
            "wavelength": np.concatenate([scaling.wavelengths(plain), scaling.wavelengths(inv)]),
            "rope": ["unscaled"] * inv.size + [preset.params.rope_type] * inv.size,
        }
    )
    windows = pd.DataFrame(
        {"window": [f"original {preset.original:,}", f"extended {preset.extended:,}"],
         "tokens": [preset.original, preset.extended]}
    )  # fmt: skip
    never = int((scaling.wavelengths(plain) > preset.original).sum())
    st.markdown(f"**{never} of {inv.size} pairs never complete a turn inside the training window.**")
    ui.show_chart(
        longcharts.wavelength_chart(pairs, windows, title="wavelength of each pair").to_dict(), pairs, "wavelengths"
    )
with right:
    q = np.random.default_rng(s.seed).standard_normal(preset.head_dim)
    distances = np.unique(np.linspace(0, preset.extended, 1200).astype(int))
    curves = pd.DataFrame(
        {
            "x": np.tile(distances, 2),
            "y": np.concatenate(
                [
                    scaling.rotary_scores(q, q, distances, plain),
                    scaling.rotary_scores(q, q, distances, inv, attention),
                ]
            ),
            "curve": ["unscaled"] * distances.size + [f"{preset.params.rope_type} (x a²)"] * distances.size,
        }
    )
    marks = pd.DataFrame({"x": [preset.original], "label": ["training window"]})
    st.markdown(
        f"**attention factor a = {attention:.6g}: logits of rotated dimensions scale by a² = {attention**2:.6g}**"
    )
    ui.show_chart(
        longcharts.curve_chart(
            curves, marks, x_title="distance m (tokens)", y_title="q · R(m) q", title="score of fixed content, q = k"
        ).to_dict(),
        curves,
        "scores-by-distance",
    )
ui.intro(
    "The reference code multiplies both cos and sin by the attention factor, so query and key each carry it "
    "and their dot product (the logit) carries its square. Dimensions past the rotary width "
    "(partial rotary, GPT-NeoX) are not rotated and not scaled."
)

st.subheader("RoPE's long-term decay (RoFormer 3.4.3)")
ui.intro(
    "RoFormer bounds the rotary score by max |h_{i+1} - h_i| times sum_j |S_j|, where S_j sums the first j "
    "unit rotations e^{i m theta_k}. The bound's average over pairs falls as the distance m grows: at m = 0 "
    "every S_j = j, so it is (d/2 + 1)/2. Next to it: the measured mean score of random content with itself."
)
m = np.unique(np.linspace(0, s.reach, 600).astype(int))
bases = (10_000.0, 500_000.0)
bound = pd.DataFrame(
    {
        "x": np.tile(m, 2),
        "y": np.concatenate([scaling.decay_bound(m, s.d, b) for b in bases]),
        "curve": [f"base {b:,.0f}" for b in bases for _ in m],
    }
)
measured = pd.DataFrame(
    {
        "x": np.tile(m, 2),
        "y": np.concatenate([scaling.self_scores(m, s.d, b, seed=s.seed) for b in bases]),
        "curve": [f"base {b:,.0f}" for b in bases for _ in m],
    }
)
none = pd.DataFrame({"x": pd.Series(dtype=float), "label": pd.Series(dtype=str)})
a, b = st.columns(2)
with a:
    ui.headline(f"bound at distance 0, d = {s.d}", f"{scaling.decay_bound([0], s.d)[0]:g}")
    ui.show_chart(
        longcharts.curve_chart(
            bound, none, x_title="relative distance m", y_title="(1/(d/2)) Σ|S_j|", title="the bound's average"
        ).to_dict(),
        bound,
        "decay-bound",
    )
with b:
    ui.headline("measured at distance 0 (mean |q|²)", f"{measured['y'].iloc[0]:.4g}")
    ui.show_chart(
        longcharts.curve_chart(
            measured, none, x_title="relative distance m", y_title="mean q · R(m) q",
            title="measured: 256 random q with themselves",
        ).to_dict(),
        measured,
        "decay-measured",
    )  # fmt: skip
ui.sync_url(PARAMS)
