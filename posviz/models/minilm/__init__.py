"""all-MiniLM-L6-v2 in numpy, read from posviz/data/minilm/ (its README says where the weights came from).

The package face is the embedding layer and layer 0 (`minilm.tokenize`, `minilm.compare_texts`, ...); the whole
model is `posviz.models.minilm.encoder`. Modules by job:

    text     the model's files (DATA) and its WordPiece tokenizer: a sentence as Tokens
    layer0   the embedding arrays (MiniLM), the embedding layer and layer 0's attention, the position table
    gelu     BERT's exact GELU, erf to the precision of the dtype
    encoder  the six layers, pooling, the sentence cosine and its curve against the position scale

Norms, int8 dequantization, head splitting and attention come from posviz.models.blocks (shared with SmolLM2).
"""

from posviz.models.blocks import layer_norm
from posviz.models.minilm import encoder
from posviz.models.minilm.layer0 import (
    NAME,
    PRECISION,
    MiniLM,
    PositionTable,
    RealPair,
    attention,
    compare,
    compare_texts,
    cosine_similarity,
    curve_texts,
    default_model,
    distance_curve,
    embed,
    load_minilm,
    position_table,
    token_outputs,
)
from posviz.models.minilm.text import DATA, MAX_TOKENS, tokenize
from posviz.models.tokens import Tokens

__all__ = [
    "DATA",
    "MAX_TOKENS",
    "NAME",
    "PRECISION",
    "MiniLM",
    "PositionTable",
    "RealPair",
    "Tokens",
    "attention",
    "compare",
    "compare_texts",
    "cosine_similarity",
    "curve_texts",
    "default_model",
    "distance_curve",
    "embed",
    "encoder",
    "layer_norm",
    "load_minilm",
    "position_table",
    "token_outputs",
    "tokenize",
]
