"""The whole of all-MiniLM-L6-v2 in numpy: 6 BERT layers, then mean pooling and L2 normalisation.

The model's pipeline (its modules.json): Transformer -> Pooling (mean over tokens) -> Normalize.
With s the position scale (s = 1 is the model, s = 0 removes the position rows):
    h_0 = LayerNorm(word[ids] + s * position[0..T-1] + token_type[0])
    a   = concat_h softmax(q_h k_h^T / sqrt(d/H)) v_h,   then a W_o^T + b_o
    h'  = LayerNorm(h + a W_o^T + b_o)
    h   = LayerNorm(h' + GELU(h' W_1^T + b_1) W_2^T + b_2),   GELU(x) = x (1 + erf(x / sqrt 2)) / 2
    e   = mean_t h_L[t] / ||mean_t h_L[t]||
One sentence at a time, so every token attends to every token and no attention mask is needed.

Dimension letters: L = 6 layers, T tokens (with [CLS] and [SEP]), d = 384, H = 12 heads, F = 1536.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from posviz.maths import _checks
from posviz.maths.attention import softmax_rows
from posviz.models import minilm

DATA = minilm.DATA
# The shipped model (int8, a scale per 32 columns) against the float32 model's values recorded at extraction
# (provenance.json): measured 1.6e-3 (cosine; "dog bites man" / "man bites dog" 3.8e-4) and 3.0e-3 (largest
# entry of a unit-length embedding) for the recorded pairs. benchmarks/minilm_storage.py measures every option.
COSINE_TOLERANCE = 2e-3
# Token rows one pass of scale_curve may stack: 21 scales x 2 sentences x 64 tokens (2,688 rows) fit in one pass. Sized
# for scale_curve's default float32: a (rows, F) temporary is at most 4096 x 1536 x 4 B = 25 MB (float64 doubles it).
ROWS_PER_PASS = 4096
EMBEDDING_TOLERANCE = 4e-3
# A pass with two sentences or more runs in two halves at once, the caller's thread and one of this pool's: numpy's
# products and elementwise loops let go of the GIL, so the halves use both cores (each product on one BLAS thread, as
# the server sets it: no thread spins waiting for work). Four workers serve up to four sessions' passes at once; more
# wait in the pool's queue (the two cores are shared either way). PASS_THREADS = 1 runs every pass in the caller's
# thread.
PASS_THREADS = 2
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="posviz-encoder")
LAYER_KEYS = (
    "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o", "ln1_w", "ln1_b",
    "w_1", "b_1", "w_2", "b_2", "ln2_w", "ln2_b",
)  # fmt: skip


@dataclass(frozen=True)
class Layer:
    """One BERT layer's parameters, matrices as torch stores them (out x in), kept as shipped.

    `arrays` holds LAYER_KEYS; an int8 matrix comes with "<key>.scale" (per row or per group of columns) and is
    dequantized to float64 each time it is read (`layer.w_q`), so the six shipped layers hold 13.5 MB (int8, their
    scales, the biases) instead of 85 MB of float64 copies; float arrays are returned as they are stored.

    Shapes: w_q, w_k, w_v, w_o (d, d); w_1 (F, d); w_2 (d, F); biases and LayerNorms (d,) or (F,).
    """

    arrays: dict[str, np.ndarray]

    def __getattr__(self, name: str) -> np.ndarray:
        if name not in LAYER_KEYS:
            raise AttributeError(name)
        stored = self.arrays[name].dtype
        return self.decoded(name, np.float64 if stored == np.int8 else stored)

    def decoded(self, key: str, dtype: type) -> np.ndarray:
        """One array as `dtype`: an int8 matrix dequantized straight into it, a float array cast."""
        stored = self.arrays[key]
        if stored.dtype == np.int8:
            return dequantize(stored, self.arrays[key + ".scale"], dtype)
        return np.asarray(stored, dtype=dtype)

    def dense(self, dtype: type = np.float64) -> Layer:
        """This layer with every array as `dtype`, its matrices dequantized once (a float32 layer holds 7 MB)."""
        return Layer({key: self.decoded(key, dtype) for key in LAYER_KEYS})

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())


@dataclass(frozen=True)
class Encoder:
    """The embedding layer (posviz.models.minilm's arrays) and the encoder's layers."""

    embeddings: minilm.MiniLM
    layers: tuple[Layer, ...]
    precision: str  # how the shipped model is stored: word rows, layer matrices, the rest (provenance.json "stored")


def dequantize(q: np.ndarray, scale: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """int8 times its scale: one scale per row (scale (R,)) or per C / G columns of a row (scale (R, G)).

    Returns: (R, C) in `dtype`

    >>> dequantize(np.ones((2, 4), np.int8), np.array([[0.5, 1.0], [2.0, 4.0]])).shape
    (2, 4)
    """
    scale = np.asarray(scale, dtype=dtype)
    rows, cols = q.shape
    groups = scale.reshape(rows, -1)  # (R, G)
    if cols % groups.shape[1]:
        raise ValueError(f"expected a number of scales per row that divides {cols}, got {groups.shape[1]}")
    return (q.reshape(rows, groups.shape[1], -1).astype(dtype) * groups[..., None]).reshape(rows, cols)


def load_encoder(folder: Path = DATA) -> Encoder:
    """The shipped model: minilm's embeddings (layer0.npz) and every layer (encoder.npz); computes in float64."""
    folder = Path(folder)
    provenance = json.loads((folder / "provenance.json").read_text())
    with np.load(folder / "encoder.npz") as z:
        arrays = {name: z[name] for name in z.files}
    layers = []
    for i in range(int(arrays["layers"])):
        kept = {}
        for key in LAYER_KEYS:
            name = f"{i}.{key}"
            if name not in arrays:
                raise ValueError(f"encoder.npz should hold {name}, it has {sorted(arrays)[:6]}...")
            stored = arrays[name]
            if name + ".lo" in arrays:
                raise ValueError(
                    f"expected int8 or floats, got wider integers in {name}, see tools/extract_minilm.py widened()"
                )
            if stored.dtype == np.int8:
                kept[key], kept[key + ".scale"] = stored, np.asarray(arrays[name + ".scale"], dtype=np.float64)
            else:
                kept[key] = np.asarray(stored, dtype=np.float64)
        layers.append(Layer(kept))
    embeddings = minilm.default_model() if folder == DATA else minilm.load_minilm(folder)  # one copy per process
    return Encoder(embeddings, tuple(layers), provenance["stored"])


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis.

    >>> layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), 1e-12).shape
    (2, 3)
    """
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


# erf by Cephes' rational approximations (S. L. Moshier's ndtr.c, the ones SciPy's erf uses), accurate to
# about 1e-16 in float64: z T(z^2) / U(z^2) for |z| < 1; erfc(|z|) = exp(-z^2) P(|z|) / Q(|z|) up to 8, R / S beyond.
_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_U = (
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_Q = (
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
      9.60896809063285878198e0, 3.36907645100081516050e0)  # fmt: skip


def _horner(coefficients: tuple[float, ...], x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Horner's rule into `out` (same shape as x; a new array without it), highest power first."""
    out = np.empty_like(x) if out is None else out
    out.fill(coefficients[0])
    for c in coefficients[1:]:
        out *= x
        out += c
    return out


# one_plus_erf works through its input this many elements at a time: its dozen arrays of a block (about 3 MB at
# 32,768 float64 each) stay in the processor's cache instead of streaming a (rows, F) array through memory ~50 times
# (measured on this machine: a 256 x 1536 float64 GELU took 29 ms whole, 14 ms in blocks)
ERF_BLOCK = 32_768


def one_plus_erf(z: np.ndarray) -> np.ndarray:
    """1 + erf(z) in float64, elementwise, without the cancellation of 1 + erf for negative z (erfc(-z) there).

    >>> one_plus_erf(np.zeros((2, 3))).shape
    (2, 3)
    """
    z = np.asarray(z, dtype=np.float64)
    flat, out = z.reshape(-1), np.empty(z.size)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # a branch not kept may overflow; huge |z|
        for start in range(0, flat.size, ERF_BLOCK):  # is settled at the end of a block
            part = slice(start, start + ERF_BLOCK)
            _one_plus_erf_block(flat[part], out[part])
    return out.reshape(z.shape)


def _one_plus_erf_block(z: np.ndarray, out: np.ndarray) -> None:
    """one_plus_erf of a 1-D block into `out`: both branches computed on the whole block, then the right one kept."""
    a = np.abs(z)
    w = np.square(z)
    num, den = _horner(_T, w), _horner(_U, w)
    near = num
    near /= den
    near *= z
    near += 1.0  # |z| < 1: 1 + z T(z^2) / U(z^2)
    tail = _horner(_P, a)
    tail /= _horner(_Q, a, den)
    far = a >= 8
    if far.any():
        tail[far] = _horner(_R, a[far]) / _horner(_S, a[far])
    np.negative(w, out=w)
    np.exp(w, out=w)
    tail *= w  # erfc(|z|)
    tail[a > 27] = 0.0  # erfc(27) ~ 5e-319, a subnormal: 0 (and not R/S's inf / inf = NaN at huge |z|)
    np.subtract(2.0, tail, out=out)
    np.copyto(out, tail, where=z < 0)
    np.copyto(out, near, where=a < 1)


def one_plus_erf_float32(z: np.ndarray) -> np.ndarray:
    """1 + erf(z) to float32's precision: Abramowitz and Stegun 7.1.26, |error of erf| <= 1.5e-7, no branches.

    erfc(|z|) ~ (a1 t + ... + a5 t^5) exp(-z^2) with t = 1 / (1 + p |z|); 1 + erf(z) is erfc(-z).

    >>> one_plus_erf_float32(np.zeros((2, 3), np.float32)).dtype
    dtype('float32')
    """
    z = np.asarray(z, dtype=np.float32)
    t = np.abs(z)
    t *= np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    tail = np.full_like(t, _AS[0])
    for c in _AS[1:]:
        tail *= t
        tail += c
    tail *= t
    e = np.square(z)
    np.negative(e, out=e)
    np.exp(e, out=e)
    tail *= e  # erfc(|z|), in place: the float32 curve's (rows, F) temporaries are its largest arrays
    np.subtract(2, tail, out=tail, where=z >= 0)
    return tail


_AS = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x) = x (1 + erf(x / sqrt 2)) / 2 (not the tanh approximation); erf to the
    precision of x's dtype (float32: one_plus_erf_float32, else one_plus_erf).

    >>> gelu(np.zeros((2, 3))).shape
    (2, 3)
    """
    x = np.asarray(x)
    z = x / np.asarray(math.sqrt(2.0), dtype=x.dtype)
    out = one_plus_erf_float32(z) if x.dtype == np.float32 else one_plus_erf(z)
    out *= x
    out /= 2
    return out


def self_attention(layer: Layer, h: np.ndarray, heads: int, lengths: tuple[int, ...] = ()) -> np.ndarray:
    """Multi-head self-attention of h, then the output projection. No mask: every token of a sentence
    sees every other. h may hold several sentences' rows one after another (`lengths`); each attends
    only within itself.

    Returns: (T, d)
    """
    t, d = h.shape
    hs = d // heads

    def split(w: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (h @ w.T + b).reshape(t, heads, hs).transpose(1, 0, 2)  # (H, T, hs)

    q, k, v = split(layer.w_q, layer.b_q), split(layer.w_k, layer.b_k), split(layer.w_v, layer.b_v)
    lengths = lengths or (t,)
    if len(set(lengths)) == 1:  # sentences of one length: one batched product for all of them
        m, n = len(lengths), lengths[0]
        qb, kb, vb = (x.reshape(heads, m, n, hs) for x in (q, k, v))  # (H, m, n, hs)
        weights = softmax_rows(qb @ kb.transpose(0, 1, 3, 2) / np.sqrt(np.asarray(hs, dtype=h.dtype)))  # (H, m, n, n)
        out = (weights @ vb).transpose(1, 2, 0, 3).reshape(t, d)
        return out @ layer.w_o.T + layer.b_o
    out = np.empty_like(h)
    start = 0
    for n in lengths:
        rows = slice(start, start + n)
        weights = softmax_rows(q[:, rows] @ k[:, rows].transpose(0, 2, 1) / np.sqrt(np.asarray(hs, dtype=h.dtype)))
        out[rows] = (weights @ v[:, rows]).transpose(1, 0, 2).reshape(n, d)  # weights (H, n, n)
        start += n
    return out @ layer.w_o.T + layer.b_o


def layer_forward(layer: Layer, h: np.ndarray, heads: int, eps: float, lengths: tuple[int, ...] = ()) -> np.ndarray:
    """One BERT layer: attention + residual + LayerNorm, then GELU feed-forward + residual + LayerNorm.

    Returns: (T, d)
    """
    h = layer_norm(h + self_attention(layer, h, heads, lengths), layer.ln1_w, layer.ln1_b, eps)
    ff = gelu(h @ layer.w_1.T + layer.b_1) @ layer.w_2.T + layer.b_2  # (T, F) -> (T, d)
    return layer_norm(h + ff, layer.ln2_w, layer.ln2_b, eps)


def _runs(model: Encoder, ids: list[np.ndarray], scales: list[float], dtype: type = np.float64):
    """Yield the stacked rows of every sentence after the embedding layer and after each layer: (sum T_i, d).

    Each layer is dequantized once, as `dtype`, and only while its rows go through it.
    """
    if not ids or len(ids) != len(scales):
        raise ValueError(
            f"expected at least one sentence's token ids and one scale each, got {len(ids)} and {len(scales)}"
        )
    h = np.concatenate([minilm.embed(model.embeddings, i, s) for i, s in zip(ids, scales, strict=True)]).astype(dtype)
    lengths = tuple(len(i) for i in ids)
    halves = _halves(lengths) if PASS_THREADS > 1 else [(0, len(lengths))]
    rows = np.concatenate([[0], np.cumsum(lengths)])
    heads, eps = model.embeddings.heads, model.embeddings.eps
    yield h
    for layer in model.layers:
        dense = layer.dense(dtype)
        later = [
            _POOL.submit(layer_forward, dense, h[rows[a] : rows[b]], heads, eps, lengths[a:b]) for a, b in halves[1:]
        ]
        a, b = halves[0]
        first = layer_forward(dense, h[rows[a] : rows[b]], heads, eps, lengths[a:b])
        h = np.concatenate([first, *(part.result() for part in later)]) if later else first
        yield h


def _halves(lengths: tuple[int, ...]) -> list[tuple[int, int]]:
    """Sentences [a, b) of a pass in two runs of about equal rows, in order; one run if there is one sentence.

    >>> _halves((64, 64, 64, 64)), _halves((5,)), _halves((10, 1, 1))
    ([(0, 2), (2, 4)], [(0, 1)], [(0, 1), (1, 3)])
    """
    if len(lengths) < 2:
        return [(0, len(lengths))]
    total, ends = sum(lengths), np.cumsum(lengths)[:-1]
    cut = int(np.argmin(np.abs(2 * ends - total))) + 1
    return [(0, cut), (cut, len(lengths))]


def states_many(model: Encoder, ids: list[np.ndarray], position_scale: float = 1.0) -> list[np.ndarray]:
    """states() of several sentences in one pass: their rows share every matrix product, not attention.

    Returns: [(L + 1, T_i, d) for each sentence]
    """
    every = np.stack(list(_runs(model, list(ids), [position_scale] * len(ids))))  # (L + 1, sum T_i, d)
    return np.split(every, np.cumsum([len(i) for i in ids])[:-1], axis=1)


def embed_many(model: Encoder, ids: list[np.ndarray], scales: list[float], dtype: type = np.float64) -> np.ndarray:
    """Sentence embeddings of several sentences, each with its own position scale, in one pass (computed in `dtype`).

    Returns: (N, d)
    """
    *_, last = _runs(model, list(ids), [float(s) for s in scales], dtype)
    parts = np.split(last, np.cumsum([len(i) for i in ids])[:-1])
    return np.stack([pool(part) for part in parts])


def states(model: Encoder, ids: np.ndarray, position_scale: float = 1.0) -> np.ndarray:
    """The token states after the embedding layer and after each layer, position rows times s.

    Returns: (L + 1, T, d)
    """
    return states_many(model, [ids], position_scale)[0]


def pool(h: np.ndarray) -> np.ndarray:
    """Mean over tokens, then unit length: the sentence embedding of states h.

    Returns: (..., d) for h of shape (..., T, d)

    >>> pool(np.ones((5, 4))).shape
    (4,)
    """
    mean = np.asarray(h).mean(axis=-2)
    return mean / np.linalg.norm(mean, axis=-1, keepdims=True)


def embed_sentence(model: Encoder, ids: np.ndarray, position_scale: float = 1.0) -> np.ndarray:
    """The sentence embedding, as sentence-transformers computes it for one sentence.

    Returns: (d,)
    """
    return pool(states(model, ids, position_scale)[-1])


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """a . b / (|a| |b|) for two vectors.

    >>> cosine(np.array([1.0, 0.0]), np.array([1.0, 1.0])) > 0.7
    True
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"expected two vectors of one length, got shapes {a.shape} and {b.shape}")
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def average_words(model: Encoder, tokens: minilm.Tokens) -> np.ndarray:
    """The mean of the sentence's word-piece embedding rows ([CLS] and [SEP] left out): a bag of words.

    Returns: (d,)
    """
    ids = [i for i, t in zip(tokens.ids, tokens.tokens, strict=True) if t not in ("[CLS]", "[SEP]")]
    if not ids:
        raise ValueError(f"expected at least one word piece, got only {tokens.tokens}")
    return model.embeddings.word_rows(np.array(ids)).mean(axis=0)


@dataclass(frozen=True)
class SentencePair:
    """Two sentences through the whole model, with the position rows times `scale` and removed."""

    first: minilm.Tokens
    second: minilm.Tokens
    scale: float
    cosine: float  # sentence embeddings, position rows times scale
    cosine_plain: float  # sentence embeddings, position rows removed
    cosine_average: float  # averaged input word embeddings
    layer_distance: np.ndarray  # (L + 1,) 1 - cosine of the mean-pooled states after each layer
    layer_distance_plain: np.ndarray  # (L + 1,) the same without position rows


def _layer_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pa, pb = pool(a), pool(b)  # (L + 1, d) each
    return 1.0 - (pa * pb).sum(axis=-1)


def compare(model: Encoder, sentence1: str, sentence2: str, scale: float = 1.0) -> SentencePair:
    """Both sentences through the whole model at position scale `scale` and at 0, and as word averages."""
    scale = _checks.finite_real("scale", scale)
    first, second = (minilm.tokenize(text, model.embeddings.folder) for text in (sentence1, sentence2))
    ids = [first.ids, second.ids] * 2
    every = np.stack(list(_runs(model, ids, [scale, scale, 0.0, 0.0])))  # (L + 1, sum T_i, d): one pass for all four
    real_a, real_b, plain_a, plain_b = np.split(every, np.cumsum([len(i) for i in ids])[:-1], axis=1)
    real, plain = (real_a, real_b), (plain_a, plain_b)
    return SentencePair(
        first, second, float(scale),
        cosine=cosine(pool(real[0][-1]), pool(real[1][-1])),
        cosine_plain=cosine(pool(plain[0][-1]), pool(plain[1][-1])),
        cosine_average=cosine(average_words(model, first), average_words(model, second)),
        layer_distance=_layer_distance(*real), layer_distance_plain=_layer_distance(*plain),
    )  # fmt: skip


def scale_curve(
    model: Encoder,
    sentence1: str,
    sentence2: str,
    scales: np.ndarray,
    dtype: type = np.float32,
    rows: int = ROWS_PER_PASS,
) -> np.ndarray:
    """Cosine of the two sentence embeddings with the position rows times each scale, computed in `dtype`
    (float32 by default, the dtype ROWS_PER_PASS is sized for), at most `rows` token rows a pass.

    Returns: (S,)
    """  # fmt: skip
    first, second = (minilm.tokenize(text, model.embeddings.folder) for text in (sentence1, sentence2))
    scales = np.asarray(scales, dtype=float)
    per_pass = max(1, rows // (len(first.ids) + len(second.ids)))  # bounds the memory of one pass
    out = []
    for group in np.array_split(scales, -(-scales.size // per_pass)):
        vectors = embed_many(model, [first.ids, second.ids] * group.size, list(np.repeat(group, 2)), dtype)  # (2S, d)
        out.append((vectors[0::2] * vectors[1::2]).sum(axis=1, dtype=np.float64))
    return np.concatenate(out)


def readable(sentence1: str, sentence2: str, folder: Path = DATA) -> tuple[str, str]:
    """The two sentences unchanged if the model reads at least one word piece in each, else ValueError."""
    for name, text in (("sentence 1", sentence1), ("sentence 2", sentence2)):
        tokens = minilm.tokenize(text, folder)
        if len(tokens.ids) <= 2:
            raise ValueError(f"{name} should hold at least one word piece, got only {tokens.tokens}")
    return sentence1, sentence2


def provenance(folder: Path = DATA) -> dict:
    """provenance.json: where the weights came from, how they are stored, the float32 reference values."""
    return json.loads((Path(folder) / "provenance.json").read_text())


def reference_cosine(sentence1: str, sentence2: str, folder: Path = DATA) -> float:
    """The float32 model's cosine of two sentences as recorded at extraction (only the recorded pairs)."""
    for pair in provenance(folder)["float32_reference"]["pairs"]:
        if (pair["sentence1"], pair["sentence2"]) == (sentence1, sentence2):
            return float(pair["cosine"])
    raise ValueError(f"expected a pair recorded at extraction, got {sentence1!r} / {sentence2!r}")


@lru_cache(maxsize=1)
def default_encoder() -> Encoder:
    """The shipped model, loaded once per process: 33 MB in memory (the six int8 layers with their scales 13.5 MB,
    minilm's embeddings 19.8 MB); a pass adds one dense layer at a time (7 MB in float32, 14 MB in float64)."""
    return load_encoder()


def compare_texts(sentence1: str, sentence2: str, scale: float = 1.0) -> SentencePair:
    """compare() on the shipped model."""
    return compare(default_encoder(), sentence1, sentence2, scale)


def curve_texts(
    sentence1: str,
    sentence2: str,
    points: int = 21,
    every: int = 1,
    rest: bool = False,
    known: tuple[tuple[float, float], ...] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """(scales, cosines) on the shipped model at every `every`-th of `points` evenly spaced scales from 0 to 1 (with
    `rest`, at the others instead), in one float32 pass (within about 2e-7 of float64: the curve is drawn, not printed).
    A page can draw a coarse curve first and the rest after: the two calls share no scale. `known` holds (scale,
    cosine) pairs the caller has already computed (its printed numbers, in float64): a chosen scale found there is taken
    from it instead of run again.

    >>> curve_texts("dog bites man", "man bites dog", 21, every=4)[0].shape
    (6,)

    Returns: ((S,), (S,))
    """
    scales = np.linspace(0.0, 1.0, _checks.integer("points", points, minimum=2))
    chosen = np.arange(points) % _checks.integer("every", every, minimum=1) == 0
    scales = scales[~chosen] if rest else scales[chosen]
    given = {round(float(scale), 12): float(value) for scale, value in known}
    keys = [round(float(scale), 12) for scale in scales]
    cosines = np.array([given.get(k, np.nan) for k in keys])
    missing = np.array([k not in given for k in keys], dtype=bool)
    if missing.any():
        cosines[missing] = scale_curve(default_encoder(), sentence1, sentence2, scales[missing])
    return scales, cosines


# The curves started ahead (curve_later): two at a time, in threads of their own, so that they never wait for a pass
# they are themselves part of; the last AHEAD_KEPT kept, as computed or still running.
_AHEAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="posviz-curve")
_AHEAD_FUTURES: OrderedDict[tuple, Future] = OrderedDict()
_AHEAD_LOCK = threading.Lock()
AHEAD_KEPT = 32


def curve_later(sentence1: str, sentence2: str, points: int = 21, every: int = 1, rest: bool = False) -> Future:
    """curve_texts(...) started in the background at the first call, the same Future returned to every later call with
    the same arguments: a page starts the slow rest of a curve as soon as it has drawn its first view and takes the
    result (`.result()`) in a later run. A curve that failed is started again at the next call; one pushed out of the
    last AHEAD_KEPT before it has started is cancelled."""
    key = (str(sentence1), str(sentence2), int(points), int(every), bool(rest))
    with _AHEAD_LOCK:
        future = _AHEAD_FUTURES.get(key)
        if future is None or future.cancelled() or (future.done() and future.exception() is not None):
            future = _AHEAD.submit(curve_texts, *key)
            _AHEAD_FUTURES[key] = future
        _AHEAD_FUTURES.move_to_end(key)
        while len(_AHEAD_FUTURES) > AHEAD_KEPT:
            _AHEAD_FUTURES.popitem(last=False)[1].cancel()  # a no-op once it runs
    return future
