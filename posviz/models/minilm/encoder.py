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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from posviz.maths import _checks
from posviz.models.blocks import attention_weights, dequantize_int8, layer_norm, merge_heads, split_heads
from posviz.models.minilm import layer0
from posviz.models.minilm.gelu import gelu
from posviz.models.minilm.text import DATA, Tokens, tokenize

# The shipped model (int8, a scale per 32 columns) against the float32 model's values recorded at extraction
# (provenance.json): measured 1.6e-3 (cosine; "dog bites man" / "man bites dog" 3.8e-4) and 3.0e-3 (largest
# entry of a unit-length embedding) for the recorded pairs. benchmarks/minilm_storage.py measures every option.
COSINE_TOLERANCE = 2e-3
# Token rows one pass of scale_curve may stack: 21 scales x 2 sentences x 64 tokens (2,688 rows) fit in one pass. Sized
# for scale_curve's default float32: a (rows, F) temporary is at most 4096 x 1536 x 4 B = 25 MB (float64 doubles it).
ROWS_PER_PASS = 4096
EMBEDDING_TOLERANCE = 4e-3
# A pass with two sentences or more runs in two halves at once, the caller's thread and one of `halves_pool()`'s:
# numpy's products and elementwise loops let go of the GIL, so the halves use both cores (each product on one BLAS
# thread, as the server sets it: no thread spins waiting for work). Four workers serve up to four sessions' passes at
# once; more wait in the pool's queue (the two cores are shared either way). PASS_THREADS = 1 runs every pass in the
# caller's thread.
PASS_THREADS = 2
HALVES_WORKERS = 4
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
            return dequantize_int8(stored, self.arrays[key + ".scale"], dtype)
        return np.asarray(stored, dtype=dtype)

    def dense(self, dtype: type = np.float64) -> Layer:
        """This layer with every array as `dtype`, its matrices dequantized once (a float32 layer holds 7 MB)."""
        return Layer({key: self.decoded(key, dtype) for key in LAYER_KEYS})

    def projections(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """(w, b) of the queries, keys and values, in that order, dequantized."""
        return (self.w_q, self.b_q), (self.w_k, self.b_k), (self.w_v, self.b_v)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())


@dataclass(frozen=True)
class Encoder:
    """The embedding layer (layer0.MiniLM) and the encoder's layers."""

    embeddings: layer0.MiniLM
    layers: tuple[Layer, ...]
    precision: str  # how the shipped model is stored: word rows, layer matrices, the rest (provenance.json "stored")


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
    embeddings = layer0.default_model() if folder == DATA else layer0.load_minilm(folder)  # one copy per process
    return Encoder(embeddings, tuple(layers), provenance["stored"])


def self_attention(layer: Layer, h: np.ndarray, heads: int, lengths: tuple[int, ...] = ()) -> np.ndarray:
    """Multi-head self-attention of h, then the output projection. No mask: every token of a sentence
    sees every other. h may hold several sentences' rows one after another (`lengths`); each attends
    only within itself.

    Returns: (T, d)
    """
    t, d = h.shape
    q, k, v = (split_heads(h @ w.T + b, heads) for w, b in layer.projections())  # (H, T, hs) each
    lengths = lengths or (t,)
    if len(set(lengths)) == 1:  # sentences of one length: one batched product for all of them
        m, n = len(lengths), lengths[0]
        qb, kb, vb = (x.reshape(heads, m, n, -1) for x in (q, k, v))  # (H, m, n, hs): m stands where heads stand
        weights = attention_weights(qb, kb, causal=False)  # (H, m, n, n)
        out = (weights @ vb).transpose(1, 2, 0, 3).reshape(t, d)
        return out @ layer.w_o.T + layer.b_o
    out = np.empty_like(h)
    start = 0
    for n in lengths:
        rows = slice(start, start + n)
        weights = attention_weights(q[:, rows], k[:, rows], causal=False)  # (H, n, n)
        out[rows] = merge_heads(weights @ v[:, rows])
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
    h = np.concatenate([layer0.embed(model.embeddings, i, s) for i, s in zip(ids, scales, strict=True)]).astype(dtype)
    lengths = tuple(len(i) for i in ids)
    halves = _halves(lengths) if PASS_THREADS > 1 else [(0, len(lengths))]
    rows = np.concatenate([[0], np.cumsum(lengths)])
    heads, eps = model.embeddings.heads, model.embeddings.eps
    yield h
    for layer in model.layers:
        dense = layer.dense(dtype)
        pool = halves_pool() if len(halves) > 1 else None
        later = [
            pool.submit(layer_forward, dense, h[rows[a] : rows[b]], heads, eps, lengths[a:b]) for a, b in halves[1:]
        ]
        a, b = halves[0]
        first = layer_forward(dense, h[rows[a] : rows[b]], heads, eps, lengths[a:b])
        h = np.concatenate([first, *(part.result() for part in later)]) if later else first
        yield h


@lru_cache(maxsize=1)
def halves_pool() -> ThreadPoolExecutor:
    """The threads that run the second half of a pass (PASS_THREADS), made at the first pass with two sentences or
    more, not at import: importing the model starts no thread (the lecture's export and the tests run no pass)."""
    return ThreadPoolExecutor(max_workers=HALVES_WORKERS, thread_name_prefix="posviz-encoder")


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


def average_words(model: Encoder, tokens: Tokens) -> np.ndarray:
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

    first: Tokens
    second: Tokens
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
    first, second = (tokenize(text, model.embeddings.folder) for text in (sentence1, sentence2))
    ids = [first.ids, second.ids] * 2
    every = np.stack(list(_runs(model, ids, [scale, scale, 0.0, 0.0])))  # (L + 1, sum T_i, d): one pass for all four
    real_a, real_b, plain_a, plain_b = np.split(every, np.cumsum([len(i) for i in ids])[:-1], axis=1)
    real, plain = (real_a, real_b), (plain_a, plain_b)
    return SentencePair(
        first,
        second,
        float(scale),
        cosine=cosine(pool(real[0][-1]), pool(real[1][-1])),
        cosine_plain=cosine(pool(plain[0][-1]), pool(plain[1][-1])),
        cosine_average=cosine(average_words(model, first), average_words(model, second)),
        layer_distance=_layer_distance(*real),
        layer_distance_plain=_layer_distance(*plain),
    )


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
    """
    first, second = (tokenize(text, model.embeddings.folder) for text in (sentence1, sentence2))
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
        tokens = tokenize(text, folder)
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


FETCHED_NOTE = "float32 weights as published (fetched): the recorded float32 cosines to 1e-6 (tested)"


def active_encoder() -> Encoder:
    """The float32 model as published when `posviz models fetch minilm` put its files in the cache (read once per
    process), else the shipped int8 copy (default_encoder)."""
    from posviz.models.minilm import fetched  # it builds an Encoder: imported here, not at the top

    return fetched.fetched_encoder() or default_encoder()


def float32_fetched() -> bool:
    """Whether compare_texts and curve_texts run the fetched float32 model (active_encoder)."""
    return active_encoder() is not default_encoder()


def compare_texts(sentence1: str, sentence2: str, scale: float = 1.0) -> SentencePair:
    """compare() on active_encoder(): the fetched float32 model, else the shipped one."""
    return compare(active_encoder(), sentence1, sentence2, scale)


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
        cosines[missing] = scale_curve(active_encoder(), sentence1, sentence2, scales[missing])
    return scales, cosines
