"""posviz: positional encoding in transformer self-attention, made visible and checkable.

The core is numpy only (plus pandas and Altair in `posviz.charts`); it never imports streamlit.
"""

from posviz.attention import attention_weights, causal_mask, self_attention, softmax
from posviz.claims import Check, Claim, claim_rows, claims
from posviz.encodings import (
    angles,
    constant,
    frequencies,
    gaussian,
    learned,
    offset_matrix,
    ramp,
    rope,
    sinusoidal,
)
from posviz.lessons import (
    POSITION_KINDS,
    order_experiment,
    position_signal,
    sentence_experiment,
    twin_experiment,
)

__all__ = [
    "POSITION_KINDS",
    "Check",
    "Claim",
    "angles",
    "attention_weights",
    "causal_mask",
    "claim_rows",
    "claims",
    "constant",
    "frequencies",
    "gaussian",
    "learned",
    "offset_matrix",
    "order_experiment",
    "position_signal",
    "ramp",
    "rope",
    "self_attention",
    "sentence_experiment",
    "sinusoidal",
    "softmax",
    "twin_experiment",
]
