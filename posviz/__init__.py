"""posviz: positional encoding in transformer self-attention, made visible and checkable.

The maths modules use numpy alone; `posviz.drawing.frames` lays finished numbers out as pandas frames and
`posviz.drawing.heatmaps` and `posviz.drawing.lines_bars` draw them with Altair. Nothing in the core imports
streamlit. Verdicts on measured numbers (machine zero, negligible, depends only on the offset) are
`posviz.maths.verdicts`.
"""

from posviz.experiments.claims import Check, Claim, claim_rows, claims
from posviz.experiments.lessons import (
    POSITION_KINDS,
    order_experiment,
    position_signal,
    sentence_experiment,
    twin_experiment,
)
from posviz.maths.attention import attention_weights, causal_mask, prefix_mean, self_attention, softmax
from posviz.maths.encodings import (
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
from posviz.maths.generation import incremental_generation
from posviz.maths.relative import alibi_bias, alibi_slopes, half_permutation, rope_rotate_half
from posviz.maths.variants import sinusoidal_concat, t2t_frequencies

__all__ = [
    "POSITION_KINDS",
    "alibi_bias",
    "alibi_slopes",
    "half_permutation",
    "incremental_generation",
    "prefix_mean",
    "rope_rotate_half",
    "sinusoidal_concat",
    "t2t_frequencies",
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
