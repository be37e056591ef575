"""Longer contexts

Models trained on a window of L tokens are stretched past it by slowing some of RoPE's rotating pairs. Each
method decides which pairs to slow and by how much; the inverse frequencies below are computed with the
formulas of Hugging Face transformers' `modeling_rope_utils.py`, from the configuration each preset names.
The page's other parts show what a preset does to a score, and RoPE's long-term decay (RoFormer 3.4.3).
"""

import streamlit as st

import posviz
import ui
from posviz.drawing import figures
from posviz.drawing.display import number
from posviz.experiments import longer
from posviz.maths import scaling

ui.page_setup(__doc__)
# Three parts, so that a first visit draws two charts, not five (each costs first-paint time).
PARTS = {
    "scaling": "RoPE scaling: which pairs slow",
    "scores": "what it does to a score",
    "decay": "RoPE's long-term decay (RoFormer 3.4.3)",
}
P = ui.params(
    ui.part_param(PARTS),
    ui.preset_param(scaling.PRESETS, "llama3.1-8b", "model setup"),
    ui.seed_param(0, label="content seed"),
    ui.Param("d", 128, "choice", options=(32, 64, 128, 256), label="decay: head width d", widget="select_slider"),
    ui.Param("reach", 4096, "int", 64, 65_536, step=64, label="decay: distances up to"),
)
registry = st.cache_data(posviz.claims, max_entries=1)()

keys = {"scaling": ("preset",), "scores": ("preset", "seed"), "decay": ("seed", "d", "reach")}
s = ui.sidebar(P, page="longer", keys=keys)
if s.part == "scaling":
    preset = scaling.PRESETS[s.preset]
    view = longer.scaled(preset)
    pairs = view.inv.size
    top, side = st.columns([2, 3])
    with top:
        ui.headline(f"pairs slowed by {preset.label}", f"{view.changed} of {pairs}")
    with side:
        if not ui.presenter():
            st.caption(f"Source: {preset.source}")
        claimed = [c for c in registry if c.page == "longer"]  # the decay's claim is in the decay part
        failing = ", ".join(f"#{c.number}" for c in claimed if not c.passed)
        ui.badge(not failing, f"claims {', '.join(f'#{c.number}' for c in claimed)} reproduced", f"{failing} FAIL")
        ui.intro("; ".join(f"#{c.number}: {c.statement}" for c in claimed))
        slow, turning = view.slowed_never_turn, view.changed - view.slowed_never_turn
        relation = f"{view.never_turn} of {pairs} pairs never complete a turn inside the {preset.original:,}-token "
        relation += "training window."
        if view.changed:
            relation += f" {preset.label} slows {view.changed}: those {slow},"
            relation += f" and {turning} that do turn in it." if turning else "."
        if view.changed and view.never_turn > slow:
            relation += f" {view.never_turn - slow} of those that never turn are left as they are."
        ui.takeaway(relation)
    if not view.scales:
        ui.takeaway(
            f"{preset.label} ships no scaling: its window stays {preset.original:,} tokens ({preset.original:,} → "
            f"{preset.extended:,}), no pair is slowed and the attention factor is 1, so there is no slowdown to "
            f"draw: the wavelengths below are its {pairs} rotated pairs as trained."
        )
        ui.figure(figures.rope_wavelengths(view), height=ui.fit(None, 220))
    else:
        factor, ratio = longer.scaling_factor(preset), preset.extended / preset.original
        kept, divided = longer.llama3_bounds(preset)
        ui.takeaway(
            (
                f"Linear, YaRN and Llama 3 level off at {number(factor)}, not at {preset.extended:,} / "
                f"{preset.original:,} = {number(ratio)} (the config's factor); dynamic NTK raises the base, so its "
                "divisor keeps growing. "
                if ratio != factor
                else f"The slowest pairs level off at the factor {number(factor)} = {preset.extended:,} / "
                f"{preset.original:,}. "
            )
            + f"Llama 3 divides the pairs slower than one turn per {divided:,.0f} tokens by it, keeps those faster "
            f"than one turn per {kept:,.0f}, and blends between."
        )
        left, right = st.columns(2)
        with left:
            ui.figure(figures.rope_divisors(preset), legend="bottom", in_columns=2, height=ui.fit(240, 190))
        with right:
            ui.figure(figures.rope_wavelengths(view), in_columns=2, height=ui.fit(280, 230))
    ui.intro(
        "Linear interpolation slows every pair by the factor. Dynamic NTK raises the base, so fast pairs barely "
        "move and the slowest ones move most. YaRN and Llama 3 keep pairs that turn many times inside the "
        "training window, divide those that never complete a turn in it, and blend in between. LongRoPE "
        "(also in the core) reads a searched factor per pair from the config, so it has no curve of its own here."
    )
elif s.part == "scores":
    view = longer.scaled(scaling.PRESETS[s.preset])
    label = view.preset.label
    factor_words = "the attention factor a multiplies cos and sin, so rotated queries and keys grow by a, scores by a²"
    if view.attention != 1:
        ui.headline(f"attention factor a of {label}", f"a = {number(view.attention)}, a² = {number(view.attention**2)}")
    if view.scales:
        (plain, plain_mean), (scaled_name, scaled_mean) = longer.mean_past_window(view, s.seed).items()
        higher = "it does not stay higher"
        if scaled_mean > plain_mean:
            higher = "slowed pairs have turned less, so it stays higher"
        ui.takeaway(
            f"In plain words, {factor_words}"
            + (f" ({label} has a = 1). " if view.attention == 1 else ". ")
            + f"Past the training window (the mark) the {scaled_name} score averages {number(scaled_mean, 3)}, the "
            f"{plain} one {number(plain_mean, 3)}: {higher}."
        )
    else:
        ui.takeaway(
            f"{label} ships no scaling: no pair is slowed and the attention factor is 1 (in plain words, "
            f"{factor_words}). The one curve is its score as trained, out to its {view.preset.original:,}-token window."
        )
    ui.figure(figures.rope_scores(view, s.seed), height=ui.fit(None, 270 if view.attention == 1 else 230))
    ui.intro(
        "Logits of rotated dimensions scale by a²: the reference code multiplies both cos and sin by the attention "
        "factor, so query and key each carry it and their dot product carries its square. Dimensions past the "
        "rotary width (partial rotary, GPT-NeoX) are not rotated and not scaled. The content q is random (the seed "
        "picks it) and scored against itself, so the unscaled curve starts at |q|²."
    )
else:
    ui.intro(
        "RoFormer bounds the score of a query and a key m positions apart by max |hᵢ₊₁ − hᵢ| times the sum "
        "below, where Sⱼ adds the first j unit rotations. Averaged over the pairs the sum falls as m grows; at "
        "m = 0 every Sⱼ = j, so the average is (d/2 + 1)/2."
    )
    if not ui.presenter():
        st.latex(r"\sum_{j=0}^{d/2-1} |S_{j+1}|,\qquad S_j = \sum_{k=0}^{j-1} e^{\,i m \theta_k}")
    decay = longer.decay(s.reach, s.d, s.seed)
    for claim in (c for c in registry if c.page == "longer?part=decay"):
        ui.badge(claim.passed, f"claim #{claim.number} reproduced: {claim.statement}", f"claim #{claim.number} FAIL")
    ui.takeaway(
        f"Two different quantities: the bound's average holds no content (Sⱼ adds the first j pairs' unit rotations "
        f"e^(imθ), so it starts at (d/2 + 1)/2 = {number(decay.bound_at_zero)}); the measured score is that of random "
        f"q with itself, starting at its mean |q|² = {number(decay.measured_at_zero)}. Compare how each falls with "
        "distance, not their values."
    )
    for column, fig, label, value in zip(
        st.columns(2),
        figures.decay_curves(decay),
        (f"bound's average over pairs at m = 0, d = {s.d}", "measured mean score at m = 0 (mean |q|²)"),
        (decay.bound_at_zero, decay.measured_at_zero),
        strict=True,
    ):
        with column:
            ui.headline(label, number(value))
            ui.figure(fig, height=ui.fit(280, 190), in_columns=2)
