"""A real trained transformer beside the toy: all-MiniLM-L6-v2's embeddings and first attention layer.

Reads posviz/data/minilm/layer0.npz (see its README for where the weights came from). Follows BERT's
equations with numpy:
    h = LayerNorm(word[ids] + s * position[0..T-1] + token_type[0])          # s = 1 in the model
    q, k, v = h W_q^T + b_q, h W_k^T + b_k, h W_v^T + b_v, split into H heads of width d/H
    out_head = softmax(q k^T / sqrt(d/H)) v,   out = the heads side by side

Dimension letters: T tokens (with [CLS] and [SEP]), d = 384 width, H = 12 heads, V = 30,522 words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from posviz.maths import _checks
from posviz.maths.attention import softmax
from posviz.models.blocks import attention_weights, dequantize_int8, layer_norm, merge_heads, split_heads
from posviz.models.minilm.text import DATA, Tokens, tokenize

# The model's identity: one spelling for the lecture and the claims.
NAME = "all-MiniLM-L6-v2"
PRECISION = "int8 weights"


@dataclass(frozen=True)
class MiniLM:
    """The shipped parameters. Word rows are int8 times their scales (per row or per group of columns), or floats."""

    word: np.ndarray  # (V, d) int8, or floats
    word_scale: np.ndarray | None  # (V,) or (V, G) for int8 rows, None for float rows
    position: np.ndarray  # (512, d)
    token_type: np.ndarray  # (2, d)
    ln_weight: np.ndarray  # (d,)
    ln_bias: np.ndarray  # (d,)
    w_q: np.ndarray  # (d, d) as stored by torch: out x in
    b_q: np.ndarray
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray
    heads: int
    eps: float
    folder: Path

    def projections(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """(w, b) of the queries, keys and values, in that order."""
        return (self.w_q, self.b_q), (self.w_k, self.b_k), (self.w_v, self.b_v)

    @property
    def d(self) -> int:
        """The model width (384)."""
        return self.position.shape[1]

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """Word embeddings of `ids`: (T, d)"""
        ids = np.asarray(ids)
        if self.word_scale is None:
            return self.word[ids].astype(np.float64)
        return dequantize_int8(self.word[ids], self.word_scale[ids])


def load_minilm(folder: Path = DATA) -> MiniLM:
    """Load the shipped arrays and check their shapes against provenance.json."""
    folder = Path(folder)
    with np.load(folder / "layer0.npz") as z:
        arrays = {name: z[name] for name in z.files}
    expected = json.loads((folder / "provenance.json").read_text())["shapes"]
    for name, shape in expected.items():
        if list(arrays[name].shape) != shape:
            raise ValueError(f"{name} should have shape {shape}, the file has {list(arrays[name].shape)}")
    if "word_lo" in arrays:
        raise ValueError(
            "expected int8 or float word rows, got wider integers (word_lo): see tools/extract_minilm.py widened()"
        )
    raw = ("word", "heads", "layer_norm_eps")
    as_float = {k: v.astype(np.float64) for k, v in arrays.items() if k not in raw}
    as_float.setdefault("word_scale", None)
    return MiniLM(
        word=arrays["word"],
        heads=int(arrays["heads"]),
        eps=float(arrays["layer_norm_eps"]),
        folder=folder,
        **{
            k: as_float[k]
            for k in (
                "word_scale",
                "position",
                "token_type",
                "ln_weight",
                "ln_bias",
                "w_q",
                "b_q",
                "w_k",
                "b_k",
                "w_v",
                "b_v",
            )
        },
    )


def embed(model: MiniLM, ids: np.ndarray, position_scale: float = 1.0) -> np.ndarray:
    """The embedding layer's output with the position rows times `position_scale` (1 = the model).

    Returns: (T, d)
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or not 1 <= ids.size <= model.position.shape[0]:
        raise ValueError(f"ids must be 1 to {model.position.shape[0]} token ids, got shape {ids.shape}")
    scale = _checks.finite_real("position_scale", position_scale)
    x = model.word_rows(ids) + scale * model.position[: ids.size] + model.token_type[0]
    return layer_norm(x, model.ln_weight, model.ln_bias, model.eps)


def attention(model: MiniLM, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Layer 0's self-attention on h: per-head weights and the heads' outputs side by side.

    Returns: ((H, T, T), (T, d))
    """
    h = _checks.array("h", h, min_ndim=2)
    q, k, v = (split_heads(h @ w.T + b, model.heads) for w, b in model.projections())  # (H, T, d/H) each
    weights = attention_weights(q, k, causal=False)  # (H, T, T)
    return weights, merge_heads(weights @ v)


@dataclass(frozen=True)
class RealPair:
    """Two sentences through the real layer 0, with the position rows scaled by s and removed (s = 0)."""

    first: Tokens
    second: Tokens
    scale: float
    weights: tuple[np.ndarray, np.ndarray]  # with position: (H, T1, T1), (H, T2, T2)
    weights_plain: tuple[np.ndarray, np.ndarray]  # without position
    outputs: tuple[np.ndarray, np.ndarray]  # with position: (T1, d), (T2, d)
    outputs_plain: tuple[np.ndarray, np.ndarray]

    def shared_tokens(self) -> list[str]:
        """Tokens (not [CLS]/[SEP]) that appear in both sentences, in sentence-1 order."""
        special = {"[CLS]", "[SEP]"}
        return [t for t in dict.fromkeys(self.first.tokens) if t in self.second.tokens and t not in special]

    def rows(self, token: str) -> tuple[int, int]:
        if token not in self.first.tokens or token not in self.second.tokens:
            raise ValueError(f"{token!r} must be a token of both sentences")
        return self.first.tokens.index(token), self.second.tokens.index(token)

    def head_weights(self, head: int, *, with_position: bool) -> tuple[np.ndarray, np.ndarray]:
        """Head `head`'s attention weights (1 to H, as pages number them) in each sentence: (T1, T1), (T2, T2)."""
        h = _checks.integer("head", head, minimum=1)
        first, second = self.weights if with_position else self.weights_plain
        if h > first.shape[0]:
            raise ValueError(f"head must be in 1..{first.shape[0]}, got {h}")
        return first[h - 1], second[h - 1]

    def token_diff(self, token: str, *, with_position: bool) -> float:
        """max abs difference of the token's layer-0 output between the sentences."""
        i, j = self.rows(token)
        a, b = self.outputs if with_position else self.outputs_plain
        return float(np.abs(a[i] - b[j]).max())


def compare(model: MiniLM, sentence1: str, sentence2: str, scale: float = 1.0) -> RealPair:
    """Run both sentences through the embeddings and layer-0 attention, with and without position rows."""
    first, second = tokenize(sentence1, model.folder), tokenize(sentence2, model.folder)
    with_pos = [attention(model, embed(model, t.ids, scale)) for t in (first, second)]
    plain = [attention(model, embed(model, t.ids, 0.0)) for t in (first, second)]
    return RealPair(
        first,
        second,
        float(scale),
        weights=(with_pos[0][0], with_pos[1][0]),
        weights_plain=(plain[0][0], plain[1][0]),
        outputs=(with_pos[0][1], with_pos[1][1]),
        outputs_plain=(plain[0][1], plain[1][1]),
    )


def distance_curve(model: MiniLM, sentence1: str, sentence2: str, token: str, scales: np.ndarray) -> np.ndarray:
    """max abs difference of `token`'s layer-0 output between the sentences at each position scale.

    All scales in one batch, and only the token's own query row: its output is softmax(q_i K^T / sqrt(d/H)) V.

    Returns: (S,)
    """
    first, second = tokenize(sentence1, model.folder), tokenize(sentence2, model.folder)
    if token not in first.tokens or token not in second.tokens:
        raise ValueError(f"{token!r} must be a token of both sentences")
    scales = np.asarray(scales, dtype=float)
    a = token_outputs(model, np.stack([embed(model, first.ids, s) for s in scales]), first.tokens.index(token))
    b = token_outputs(model, np.stack([embed(model, second.ids, s) for s in scales]), second.tokens.index(token))
    return np.abs(a - b).max(axis=1)


def token_outputs(model: MiniLM, h: np.ndarray, i: int) -> np.ndarray:
    """Layer 0's attention output of token i in each of S versions of a sentence (the heads side by side).

    Returns: (S, d) for h of shape (S, T, d)
    """
    s, t, d = h.shape
    hs = d // model.heads
    k = (h @ model.w_k.T + model.b_k).reshape(s, t, model.heads, hs)  # (S, T, H, hs)
    v = (h @ model.w_v.T + model.b_v).reshape(s, t, model.heads, hs)
    q = (h[:, i] @ model.w_q.T + model.b_q).reshape(s, model.heads, hs)  # (S, H, hs)
    weights = softmax(np.einsum("shc,sthc->sht", q, k) / np.sqrt(hs))  # (S, H, T)
    return np.einsum("sht,sthc->shc", weights, v).reshape(s, d)


def cosine_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity between all rows of a table: (T, T)"""
    table = _checks.array("table", table, min_ndim=2)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit.T


@lru_cache(maxsize=1)
def default_model() -> MiniLM:
    """The shipped model, loaded once per process (about 20 MB in memory)."""
    return load_minilm()


def compare_texts(sentence1: str, sentence2: str, scale: float = 1.0) -> RealPair:
    """compare() on the shipped model."""
    return compare(default_model(), sentence1, sentence2, scale)


def curve_texts(sentence1: str, sentence2: str, token: str, points: int = 41) -> tuple[np.ndarray, np.ndarray]:
    """(scales, distances) on the shipped model: 0, then `points` log-spaced scales from 1e-4 to 1.

    Returns: ((points + 1,), (points + 1,))
    """
    scales = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, _checks.integer("points", points, minimum=2))])
    return scales, distance_curve(default_model(), sentence1, sentence2, token, scales)


@dataclass(frozen=True)
class PositionTable:
    """What the trained position table looks like, next to a sinusoidal table of the same shape."""

    table: np.ndarray  # (512, d)
    norms: np.ndarray  # (512,)
    cosine: np.ndarray  # (512, 512)
    sinusoid_cosine: np.ndarray  # (512, 512)
    neighbour_cosine: float  # median cosine between positions t and t + 1
    by_distance: np.ndarray  # (511,) median cosine between positions k apart, k = 1..511
    sinusoid_by_distance: np.ndarray  # (511,) the same for the sinusoidal table

    @property
    def median_norm(self) -> float:
        """Median norm of the rows after position 0."""
        return float(np.median(self.norms[1:]))

    @property
    def most_opposite(self) -> float:
        """The lowest cosine between two rows: how far apart two positions' rows can point."""
        return float(self.cosine.min())

    def apart(self, k: int, sinusoid: bool = False) -> float:
        """Median cosine between rows k positions apart (1 <= k < 512), of the sinusoidal table with `sinusoid`."""
        by_distance = self.sinusoid_by_distance if sinusoid else self.by_distance
        return float(by_distance[_checks.integer("k", k, minimum=1) - 1])

    def long_rows(self, factor: float = 1.3) -> list[int]:
        """The positions after 0 whose row norm passes `factor` x the median norm (rows that stand out)."""
        return [int(t) for t in np.flatnonzero(self.norms > factor * self.median_norm) if t > 0]

    def median_norm_of(self, start: int, stop: int) -> float:
        """Median norm of rows start..stop - 1."""
        if not 0 <= start < stop <= len(self.norms):
            raise ValueError(f"expected 0 <= start < stop <= {len(self.norms)}, got {start} and {stop}")
        return float(np.median(self.norms[start:stop]))

    def rises(self, up_to: int) -> int:
        """How many times the median cosine of rows k apart goes up from one k to the next, for k = 1..up_to."""
        return int(np.sum(np.diff(self.by_distance[: _checks.integer("up_to", up_to, minimum=1)]) > 0))


def position_table() -> PositionTable:
    """The shipped model's learned position rows and their geometry."""
    from posviz.maths.encodings import sinusoidal

    table = default_model().position
    cosine = cosine_similarity(table)
    sinusoid = cosine_similarity(sinusoidal(*table.shape))

    def profile(m: np.ndarray) -> np.ndarray:
        return np.array([np.median(np.diagonal(m, k)) for k in range(1, len(m))])

    return PositionTable(
        table=table,
        norms=np.linalg.norm(table, axis=1),
        cosine=cosine,
        sinusoid_cosine=sinusoid,
        neighbour_cosine=float(np.median(np.diagonal(cosine, 1))),
        by_distance=profile(cosine),
        sinusoid_by_distance=profile(sinusoid),
    )
