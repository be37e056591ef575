"""The registry of verified claims: expected value, reproduced value, verdict.

Claims 1-11 come from the three lessons. The lessons print only some of their numbers (4.44e-16,
0.0, 3.4998 and the allclose verdicts: `Check.printed`); the other expected values are what the
lessons' code gives with its seeds and draw order (measured with numpy 2.4). Every reproduced value
is computed here, live, by the experiments in `posviz.experiments.lessons`. Claims 12 on come
from the methods' papers and reference code (named in each claim's `source`), reproduced by
`posviz.maths.scaling` from the formulas. Claim 16 is the real model's (posviz.models.encoder), against the float32
model's values recorded at extraction. Claims 17-21 are SmolLM2-135M-Instruct's (posviz.models.smollm2): its shipped
layers 0-4 run live on one short sentence, against the lessons' identities, RoPE's relative property, the attention
sink and llama.cpp's token ids; their tolerances are data below (SMOLLM2_TOLERANCES), each with its reason. The
whole-model checks that need all 30 layers are not claims: `recorded_at_extraction` lists them, labelled so. Claims
22-25 are the matched family's (posviz.models.matched): every model run in numpy on held-out window 0, against the
per-byte losses JAX recorded there at training, the orderings inside and past the training window (each gap larger
than the seeds' spread), and a position probe of the no-position model; tolerances in MATCHED_TOLERANCES. The
training-time curves (every window, every step) are records shown as such, never claims.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from posviz.experiments.lessons import order_experiment, sentence_experiment, twin_experiment
from posviz.maths import verdicts
from posviz.maths.encodings import sinusoidal
from posviz.maths.rotary import frequencies
from posviz.maths.scaling import (
    PRESETS,
    decay_bound,
    dynamic_base,
    llama3_masks,
    yarn_correction_range,
)

DEFAULT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Check:
    """One number or truth value of a claim.

    kind "close": |reproduced - expected| <= tolerance; "at_most": reproduced <= tolerance
    (a machine-zero claim); "at_least": reproduced >= tolerance (a difference that must be large);
    "equal": reproduced == expected exactly. `why`: the reason for the tolerance, where it is not obvious.
    """

    label: str
    expected: float | bool
    reproduced: float | bool
    kind: Literal["close", "at_most", "at_least", "equal"] = "close"
    tolerance: float = DEFAULT_TOLERANCE
    printed: bool = False  # the lesson prints this value (else it is what the lesson's code gives)
    why: str = ""

    @property
    def passed(self) -> bool:
        if self.kind == "equal":
            return bool(self.reproduced == self.expected)
        if self.kind == "at_most":
            return bool(abs(self.reproduced) <= self.tolerance)
        if self.kind == "at_least":
            return bool(self.reproduced >= self.tolerance)
        return bool(abs(self.reproduced - self.expected) <= self.tolerance)

    @property
    def tolerance_text(self) -> str:
        texts = {"equal": "exact", "at_most": f"<= {self.tolerance:g}", "at_least": f">= {self.tolerance:g}"}
        return texts.get(self.kind, f"± {self.tolerance:g}")


@dataclass(frozen=True)
class Claim:
    """A numbered claim, its checks, and the app page that shows it.

    lesson: the lesson it comes from ("000", ...), or "" for a claim from a paper or reference code,
    which then names it in `source`.
    """

    number: int
    lesson: str
    statement: str
    checks: tuple[Check, ...]
    page: str  # the page (and its part, "order?part=twins") that shows the claim live
    source: str = ""
    expected_source: str = ""  # where the expected values come from, when neither a lesson nor a formula

    @property
    def origin(self) -> str:
        """Where the claim comes from: "lesson 000", or the paper / reference code."""
        return self.source or f"lesson {self.lesson}"

    def expected_from(self, check: Check) -> str:
        """Where one expected value comes from: printed in the lesson, the lesson's code, or a formula."""
        if self.expected_source:
            return self.expected_source
        if not self.lesson:
            return "reference formula or code"
        return f"printed in lesson {self.lesson}" if check.printed else f"lesson {self.lesson}'s code"

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def _lesson_000() -> list[Claim]:
    plain = order_experiment()
    ramp = order_experiment(position="ramp")
    forgot = order_experiment(forget_reorder=True)
    offset = order_experiment(position="constant")
    twins = twin_experiment()
    twins_ramp = twin_experiment(position="ramp")
    causal = order_experiment(causal=True)

    def one(n: int, statement: str, check: Check, page: str = "order") -> Claim:
        return Claim(n, "000", statement, (check,), page)

    return [
        one(
            1,
            "No position: max |attn(X[perm]) - attn(X)[perm]| is machine zero",
            Check("max diff", 4.440892098500626e-16, plain.max_diff, "at_most", 1e-15, printed=True),
        ),
        one(
            2,
            "Identical tokens at positions 0 and 4, no position: their output rows are equal",
            Check("max row diff", 0.0, twins.row_diff, "equal", printed=True),
            "order?part=twins",
        ),
        one(
            3,
            "Ramp 0.6*(t+1) added: shuffled vs reordered outputs differ",
            Check("max diff", 3.499757764020842, ramp.max_diff, printed=True),
        ),
        one(
            4,
            "Exercise 1: forgetting to reorder the right-hand side gives a large difference",
            Check("max diff", 2.375007464381647, forgot.max_diff),
        ),
        one(
            5,
            "Exercise 2: a constant offset 0.6 leaves attention order-blind",
            Check("max diff", 4.440892098500626e-16, offset.max_diff, "at_most", 1e-15),
        ),
        one(
            6,
            "Exercise 3: identical tokens plus the ramp now get different rows",
            Check("max row diff", 2.317846753813984, twins_ramp.row_diff),
            "order?part=twins",
        ),
        Claim(
            11,
            "000",
            "Lesson 003's caveat (a causal mask carries order) applied to lesson 000's setup, no position: "
            "the permutation claim fails",
            (Check("max diff", 1.650825107237093, causal.max_diff),),
            "causal",
            "lesson 000's code with a causal mask (lesson 003's caveat)",
        ),
    ]


def _lesson_002() -> list[Claim]:
    half = sentence_experiment(scale=0.5)
    tiny = sentence_experiment(scale=0.001)
    return [
        Claim(
            7,
            "002",
            '"man" in "dog bites man" vs "man bites dog", no position: identical',
            (
                Check("allclose", True, half.word_allclose("man", with_position=False), "equal", printed=True),
                Check("max diff", 1.1e-16, half.word_diff("man", with_position=False), "at_most", 1e-15),
            ),
            "attention",
        ),
        Claim(
            8,
            "002",
            'With randn(3, 6) * 0.5 positions: "man" and the sentence mean differ',
            (
                Check('"man" max diff', 12.53665770012299, half.word_diff("man", with_position=True)),
                Check("allclose", False, half.word_allclose("man", with_position=True), "equal", printed=True),
                Check("mean allclose", False, half.means_allclose(with_position=True), "equal", printed=True),
            ),
            "attention",
        ),
        Claim(
            9,
            "002",
            "Exercise 3: positions scaled 0.001 instead: close, but not allclose",
            (
                Check('"man" max diff', 0.08431805329627551, tiny.word_diff("man", with_position=True)),
                Check("allclose", False, tiny.word_allclose("man", with_position=True), "equal"),
            ),
            "magnitude",
        ),
    ]


def _lesson_003() -> list[Claim]:
    pe = sinusoidal(4, 8)
    robot = np.arange(8, dtype=float) / 8
    return [
        Claim(
            10,
            "003",
            "positions(4, 8): row 0 sines 0, cosines 1; squared norms D/2 = 4; robot + pe[0] != robot + pe[3]",
            (
                Check("row 0 max |sin|", 0.0, float(np.abs(pe[0, 0::2]).max()), "at_most", 1e-12),
                Check("row 0 max |cos - 1|", 0.0, float(np.abs(pe[0, 1::2] - 1).max()), "at_most", 1e-12),
                Check("max |norm² - 4|", 0.0, float(np.abs((pe**2).sum(-1) - 4).max()), "at_most", 1e-12),
                Check("robot rows allclose", False, bool(np.allclose(robot + pe[0], robot + pe[3])), "equal"),
            ),
            "sinusoids",
        ),
    ]


def _longer_contexts() -> list[Claim]:
    llama = PRESETS["llama3.1-8b"]
    inv, _ = llama.inv_freq()
    kept, smoothed, divided = (int(m.sum()) for m in llama3_masks(frequencies(128, 500_000.0), llama.params))
    low, high = yarn_correction_range(128, 10_000.0, 4096)
    _, yarn_attention = PRESETS["yarn-reference"].inv_freq()
    code = "transformers modeling_rope_utils.py"

    def one(n: int, statement: str, checks: tuple[Check, ...], source: str, page: str = "longer") -> Claim:
        return Claim(n, "", statement, checks, page, source)

    return [
        one(
            12,
            "Llama 3.1 8B (theta 500000, d 128, llama3: factor 8, low 1, high 4, original 8192): 29 pairs kept, "
            "6 smoothed, 29 divided by 8",
            (
                Check("pairs kept", 29, kept, "equal"),
                Check("pairs smoothed", 6, smoothed, "equal"),
                Check("pairs divided", 29, divided, "equal"),
                Check("sum of inv_freq", 5.3860582, float(inv.sum()), tolerance=5e-8),
            ),
            f"{code}, _compute_llama3_parameters",
        ),
        one(
            13,
            "YaRN, d 128, theta 10000, original 4096: correction range (20, 46); attention factor at factor 4",
            (
                Check("low pair", 20, low, "equal"),
                Check("high pair", 46, high, "equal"),
                Check("attention factor", 1.138629, yarn_attention, tolerance=5e-7),
            ),
            f"YaRN (Peng et al. 2023); {code}, _compute_yarn_parameters",
        ),
        one(
            14,
            "Dynamic NTK, d 128, theta 10000, factor 2, max 2048: at length 4096 the base is 30527.74",
            (Check("base", 30527.74, dynamic_base(10_000.0, 128, 2.0, 2048, 4096), tolerance=5e-3),),
            f"{code}, _compute_dynamic_ntk_parameters",
        ),
        one(
            15,
            "RoPE's long-term decay bound (1/(d/2)) sum_j |S_j| is (d/2 + 1)/2 at distance 0: 32.5 for d 128",
            (Check("bound at distance 0", 32.5, float(decay_bound([0], 128)[0]), tolerance=1e-12),),
            "RoFormer (Su et al. 2021), section 3.4.3",
            "longer?part=decay",
        ),
    ]


def _real_model() -> list[Claim]:
    # the shipped model (26.7 MB, 33 MB in memory), read when the registry is built
    from posviz.models import minilm
    from posviz.models.minilm import encoder

    record = encoder.provenance()
    first, second = "dog bites man", "man bites dog"
    pair = encoder.compare(encoder.default_encoder(), first, second)  # the shipped int8 copy, fetched float32 or not
    return [
        Claim(
            16,
            "",
            f'Real model {minilm.NAME} ({minilm.PRECISION}): "{first}" vs "{second}", sentence-embedding cosine '
            "below 1 with position, 1 with the position rows removed",
            (
                Check(
                    "cosine (expected: float32 model)",
                    encoder.reference_cosine(first, second),
                    pair.cosine,
                    "close",
                    encoder.COSINE_TOLERANCE,
                ),
                Check("cosine < 0.95", True, bool(pair.cosine < 0.95), "equal"),
                Check("cosine, no position rows", 1.0, pair.cosine_plain, "close", 1e-12),
            ),
            "sentences",
            f"real model {record['model']}, PyPI wheel sha256 {record['wheel_sha256'][:12]}…",
            expected_source="the float32 model at extraction",
        )
    ]


@dataclass(frozen=True)
class Tolerance:
    """A bound a check is held to and the reason for its size."""

    bound: float
    why: str


SMOLLM2_TEXT = "The quick brown fox jumps over the lazy dog."  # the extraction's "fox" text; 11 ids with <|im_start|>
SMOLLM2_SHIFT = 1000  # every position moved by this much (claim 19)
SMOLLM2_SINK_LAYER = 3  # the shipped layer with the largest whole-model sink weight (provenance.json: 0.174)
SMOLLM2_TOLERANCES = {
    "equivariant": Tolerance(
        verdicts.FLOAT32_ROUNDING,
        "float32 (eps 1.2e-7) sums of up to 1,536 products, reordered by the permutation, "
        "through 5 layers; measured 2e-7 to 1e-6",
    ),
    "order": Tolerance(
        1e4 * verdicts.FLOAT32_ROUNDING,
        "10,000 times claim 17's float32 tolerance; measured 0.12 after layer 0, 1.07 after 4",
    ),
    "shift": Tolerance(
        verdicts.FLOAT32_ROUNDING,
        "float32 cos and sin of angles up to 1,010 rad (eps 6e-8 each), then float32 sums of up "
        "to 1,536 products; measured 8e-8 to 1e-6",
    ),
    "moved": Tolerance(
        0.1, "the rotated queries do change (else the invariance would say nothing); measured 0.74 to 1.11"
    ),
    "sink": Tolerance(
        verdicts.SINK_FACTOR,
        "twice what uniform causal attention gives token 0 (a factor); measured 4.0 on this sentence",
    ),
}


def _bound(label: str, reproduced: float, kind: Literal["at_most", "at_least"], name: str) -> Check:
    tolerance = SMOLLM2_TOLERANCES[name]
    return Check(
        label, tolerance.bound if kind == "at_least" else 0.0, reproduced, kind, tolerance.bound, why=tolerance.why
    )


def _smollm2_name() -> str:
    from posviz.models import smollm2

    return f"{smollm2.NAME} ({smollm2.PRECISION})"


def _smollm2_source() -> str:
    from posviz.models import smollm2

    return smollm2.SOURCE


def _smollm2_where(ids: np.ndarray, layers: int) -> str:
    run = "layer 0" if layers == 1 else f"layers 0-{layers - 1}"
    return f'{run} on "{SMOLLM2_TEXT}" ({ids.size} ids, <|im_start|> first)'


def _smollm2_order(gaps, ids: np.ndarray) -> list[Claim]:
    """Claims 17-18: lesson 000's identity, and lesson 003's caveat (after the last layer, as the page), in a real
    model."""
    every = gaps.order.size
    hidden = "max |Δ hidden| / max |hidden|, layer by layer"
    last = "max |Δ hidden| / max |hidden|, the last layer"
    return [
        Claim(
            17,
            "",
            "Rotation removed (every angle 0) and the causal mask removed, permuting the input permutes "
            f"the outputs (lesson 000's identity), in the real model {_smollm2_name()}, "
            f"{_smollm2_where(ids, every)}",
            (
                _bound(hidden, float(gaps.blind.max()), "at_most", "equivariant"),
                _bound("max |Δ attention weight|", float(gaps.blind_weights.max()), "at_most", "equivariant"),
            ),
            "llm",
            _smollm2_source(),
            "lesson 000's identity: 0 up to float32",
        ),
        Claim(
            18,
            "",
            "Rotation removed, the causal mask kept: permuting the input does not permute the outputs, the "
            f"mask alone carries order (lesson 003's caveat), in the real model {_smollm2_name()}, "
            f"{_smollm2_where(ids, every)}",
            (_bound(last, float(gaps.order[-1]), "at_least", "order"),),
            "llm",
            _smollm2_source(),
            "lesson 003's caveat: large",
        ),
    ]


def _smollm2_shift(gaps, ids: np.ndarray) -> list[Claim]:
    """Claims 19-20 from the ablations' plain run and its shifted twin."""
    layers = gaps.shift.size
    shift = Claim(
        19,
        "",
        f"Every position shifted by {SMOLLM2_SHIFT} leaves the attention weights unchanged (RoPE's scores "
        "depend only on t - s), though the rotated queries move, in the real model "
        f"{_smollm2_name()}, {_smollm2_where(ids, layers)}",
        (
            _bound("max |Δ attention weight|", float(gaps.shift.max()), "at_most", "shift"),
            _bound("max |Δ hidden| / max |hidden|, layer by layer", float(gaps.shift_hidden.max()), "at_most", "shift"),
            _bound("max |Δ rotated q| / max |q|, layer by layer", float(gaps.shift_q.max()), "at_least", "moved"),
        ),
        "llm",
        _smollm2_source(),
        "RoPE's relative property",
    )
    return [shift, _smollm2_sink(gaps.base.weights, _smollm2_where(ids, layers))]


def _smollm2_sink(weights: np.ndarray, where: str) -> Claim:
    """Claim 20: the weight on token 0 in the sink's layer against uniform causal attention's share."""
    from posviz.experiments import decoder

    first, T, layer, factor = decoder.FIRST_QUERY, weights.shape[-1], SMOLLM2_SINK_LAYER, SMOLLM2_TOLERANCES["sink"]
    sink = float(decoder.sink_weight(weights[layer], first=first).mean())  # over heads and queries t >= first
    uniform = verdicts.uniform_sink(T, first)  # what uniform causal attention gives token 0
    return Claim(
        20,
        "",
        f"An attention sink: in layer {layer} the queries t >= {first} put on token 0 more than "
        f"{factor.bound:g} times the {uniform:.3f} that uniform causal attention gives it, in the real model "
        f"{_smollm2_name()}, {where} (the whole model over the extraction's eight longer texts: "
        f"{_recorded_sink(layer):.3f} "
        f"in layer {layer}, recorded at extraction; tests/test_smollm2.py reruns that, too slow for this table)",
        (
            Check(
                f"layer {layer}: mean weight on token 0, queries t >= {first}",
                factor.bound * uniform,
                sink,
                "at_least",
                factor.bound * uniform,
                why=factor.why,
            ),
        ),
        "llm",
        f"StreamingLLM (Xiao et al. 2023), observed live; {_smollm2_source()}",
        "StreamingLLM's observation: well above uniform",
    )


def _recorded_sink(layer: int) -> float:
    from posviz.models import smollm2

    return float(np.mean(smollm2.stats()["with_im_start"]["layers"][layer]["sink"]))


def _smollm2_tokenizer(model) -> Claim:
    from posviz.models import smollm2

    recorded = smollm2.recorded("llama_cpp_ids")
    plain = [c for c in recorded["cases"] if not c["special"]]  # how tokenize() reads text: control tokens as text
    matching = sum(model.tokenizer.encode(c["text"]).ids == c["ids"] for c in plain)
    return Claim(
        21,
        "",
        f"The tokenizer (byte-level BPE from the GGUF's vocabulary and merges, run by tokenizers with llama.cpp's "
        f"smollm split) gives llama.cpp's token ids for all {len(plain)} recorded texts read as plain text, in the "
        f"real model {_smollm2_name()}",
        (Check("texts with llama.cpp's ids", len(plain), matching, "equal"),),
        "llm",
        f"llama.cpp's ids recorded with {recorded['recorded_with']}; {_smollm2_source()}",
        expected_source="llama.cpp at extraction (llama_cpp_ids.json)",
    )


def _smollm2() -> list[Claim]:
    from posviz.experiments import decoder
    from posviz.models import smollm2  # reads the shipped layers (43 MB file) only when the registry is built

    model = smollm2.load()
    ids = smollm2.tokenize(SMOLLM2_TEXT, model=model).ids
    gaps = decoder.ablation_gaps(ids, k=SMOLLM2_SHIFT, model=model)  # one plain run, its reordered and shifted twins
    return [*_smollm2_order(gaps, ids), *_smollm2_shift(gaps, ids), _smollm2_tokenizer(model)]


MATCHED_TOLERANCES = {
    "jax": Tolerance(
        5e-5,
        "float32 in JAX at training and in numpy here, summed in other orders: per-byte losses differ by up to "
        "2.6e-5 (tests/test_matched.py), a bin's mean by less",
    ),
    "spread": Tolerance(
        0.0,
        "a difference counts only when it is larger than the seeds' own spread: the check is the gap between the "
        "seed means minus the larger of the two spreads (highest - lowest seed), on the same window",
    ),
    "probe": Tolerance(
        1e-4,
        "the float64 forward of the same weights moves R² by 7e-8; 1e-4 leaves room for another BLAS's summation "
        "order and is far below the two seeds' difference",
    ),
    "input": Tolerance(
        0.01,
        "the input is the byte's embedding alone, so a probe there fits only chance; measured 4e-4 and 9e-4",
    ),
}
# R² of the no-position model's probe after its last layer (position_probe, 32 windows), measured with numpy 2.4 on
# the shipped weights (no record at training: the probe is posviz's own experiment)
MATCHED_PROBE_R2 = {0: 0.30307465196681604, 1: 0.06266157634315206}
MATCHED_PROBE_WINDOWS = 32  # the page's probe (experiments.matched.family_probe's default)


def _matched_names() -> dict[str, list[str]]:
    """The shipped matched models by scheme: {scheme: [scheme-seedK, ...]}."""
    from posviz.models import matched

    models = matched.provenance()["models"]
    return {s: [n for n in matched.names() if models[n]["scheme"] == s] for s in matched.SCHEMES}


def matched_window0() -> dict[str, np.ndarray]:
    """Every shipped matched model's per-byte held-out loss on window 0 (the one window whose per-byte losses JAX
    recorded at training), computed now in numpy, keyed scheme-seedK.

    Returns: {name: (P,)}, P = 8 T_train, or T_train for the learned table
    """
    from posviz.experiments import matched as ex
    from posviz.models import matched

    w = ex.long_windows(1)[0]  # window 0: the first of the evenly spread held-out windows
    models = matched.provenance()["models"]
    out = {}
    for name in matched.names():
        scheme, seed = models[name]["scheme"], models[name]["seed"]
        out[name] = matched.token_losses(matched.load(scheme, seed), w[: ex.reach(scheme, len(w) - 1) + 1])
    return out


def _per_seed(losses: dict[str, np.ndarray], scheme: str, span: tuple[int, int]) -> np.ndarray:
    """One scheme's mean loss over positions span[0]..span[1] - 1, one value a seed. Returns: (seeds,)"""
    return np.array([float(np.mean(losses[name][span[0] : span[1]])) for name in _matched_names()[scheme]])


def _above(label: str, low: np.ndarray, high: np.ndarray) -> Check:
    """high's seed mean above low's by more than the larger of their seed spreads (values a seed, same window)."""
    margin = float(high.mean() - low.mean() - max(np.ptp(low), np.ptp(high)))
    tolerance = MATCHED_TOLERANCES["spread"]
    return Check(f"{label}, minus the larger seed spread", 0.0, margin, "at_least", tolerance.bound, why=tolerance.why)


def _matched_recorded(scheme: str, span: tuple[int, int]) -> float:
    """The seed mean over all held-out windows recorded at training (JAX) for positions span: shown, not claimed."""
    from posviz.models import matched

    models = matched.provenance()["models"]
    return float(
        np.mean([np.mean(models[n]["heldout_per_position"][span[0] : span[1]]) for n in _matched_names()[scheme]])
    )


def _matched_where() -> str:
    from posviz.models import matched

    cfg, ev = matched.config(), matched.provenance()["evaluation"]
    topic = ev["first_windows"][0][0]
    return (
        f"held-out window 0 ({ev['window_tokens']} bytes of the topic {topic!r}, never trained on; T_train = "
        f"{cfg.T_train}; mean of the {len(matched.seeds())} seeds), in {matched.NAME}"
    )


def _span_text(span: tuple[int, int]) -> str:
    return f"positions {span[0]}-{span[1] - 1}"


def _matched_losses(losses: dict[str, np.ndarray]) -> Claim:
    """Claim 22: each scheme's numpy loss on window 0, inside the window and in the last bin, against JAX's record."""
    from posviz.experiments import matched as ex
    from posviz.models import matched

    spans = ex.bins(matched.config().T_train)
    inside, far = spans[0], spans[-1]
    models, tolerance, checks = matched.provenance()["models"], MATCHED_TOLERANCES["jax"], []
    for scheme, names in _matched_names().items():
        for span in (inside, far) if ex.reach(scheme, far[1]) >= far[1] else (inside,):
            recorded = np.mean([np.mean(models[n]["window0_losses"][span[0] : span[1]]) for n in names])
            checks.append(
                Check(
                    f"{scheme}, {_span_text(span)}",
                    float(recorded),
                    float(_per_seed(losses, scheme, span).mean()),
                    tolerance=tolerance.bound,
                    why=tolerance.why,
                )
            )
    return Claim(
        22,
        "",
        f"Each scheme's held-out loss (nats per byte) inside the training window ({_span_text(inside)}, 1 x T_train) "
        f"and far past it ({_span_text(far)}, up to 8 x T_train; the learned table has no row there), run in numpy "
        f"on {_matched_where()}, equals the loss JAX recorded at training on the same window",
        tuple(checks),
        "matched",
        matched.SOURCE,
        "JAX at training (provenance.json window0_losses)",
    )


def _matched_order(losses: dict[str, np.ndarray]) -> list[Claim]:
    """Claims 23-24: the orderings measured inside and past the window, each larger than the seeds' spread."""
    from posviz.experiments import matched as ex
    from posviz.models import matched

    spans = ex.bins(matched.config().T_train)
    inside, far = spans[0], spans[-1]

    def at(scheme: str, span: tuple[int, int]) -> np.ndarray:
        return _per_seed(losses, scheme, span)

    def rise(scheme: str) -> np.ndarray:
        return at(scheme, far) - at(scheme, inside)

    def recorded(schemes: tuple[str, ...], span: tuple[int, int]) -> str:
        return " < ".join(f"{s} {_matched_recorded(s, span):.3f}" for s in schemes)

    first = ("rope", "alibi", "sinusoid", "learned")
    past = ("alibi", "none", "sinusoid", "rope")
    pairs = list(zip(first[:-1], first[1:], strict=True))
    inside_claim = Claim(
        23,
        "",
        f"Inside the training window ({_span_text(inside)}) RoPE < ALiBi < sinusoid < learned table, on "
        f"{_matched_where()} (over all {matched.provenance()['evaluation']['windows']} held-out windows at training: "
        f"{recorded(first, inside)}, no position {_matched_recorded('none', inside):.3f})",
        tuple(_above(f"{b} - {a}, {_span_text(inside)}", at(a, inside), at(b, inside)) for a, b in pairs),
        "matched",
        matched.SOURCE,
        "the seeds' spread on the same window",
    )
    zero = np.zeros(len(matched.seeds()))
    past_checks = [
        _above(f"{b} - {a}, {_span_text(far)}", at(a, far), at(b, far))
        for a, b in zip(past[:-1], past[1:], strict=True)
    ]
    past_checks += [
        _above(f"rope's rise from {_span_text(inside)} to {_span_text(far)}", zero, rise("rope")),
        _above("no position's rise - alibi's rise", rise("alibi"), rise("none")),
    ]
    past_claim = Claim(
        24,
        "",
        f"Past the training window ({_span_text(far)}) ALiBi < no position < sinusoid < RoPE; RoPE's loss rises from "
        f"inside the window, and ALiBi's rises less than no position's, on {_matched_where()} (over all held-out "
        f"windows at training: {recorded(past, far)}; inside: alibi {_matched_recorded('alibi', inside):.3f}, "
        f"rope {_matched_recorded('rope', inside):.3f}; Press et al. 2022, Fig. 1: ALiBi flat past the window, "
        "sinusoidal and rotary rising)",
        tuple(past_checks),
        "matched",
        f"ALiBi (Press et al. 2022), measured on {matched.NAME}; {matched.SOURCE}",
        "the seeds' spread on the same window",
    )
    return [inside_claim, past_claim]


def _matched_probe() -> Claim:
    """Claim 25: what a linear probe reads of position from the no-position model's residual stream."""
    from posviz.experiments import matched as ex
    from posviz.models import matched

    checks, probe, start = [], MATCHED_TOLERANCES["probe"], MATCHED_TOLERANCES["input"]
    for seed in matched.seeds():
        r2 = ex.position_probe("none", seed, MATCHED_PROBE_WINDOWS)
        checks.append(
            Check(f"seed {seed}: R² before layer 0", 0.0, float(r2[0]), "at_most", start.bound, why=start.why)
        )
        checks.append(
            Check(
                f"seed {seed}: R² after layer {len(r2) - 2}",
                MATCHED_PROBE_R2.get(seed, float("nan")),
                float(r2[-1]),
                tolerance=probe.bound,
                why=probe.why,
            )
        )
    T = matched.config().T_train
    return Claim(
        25,
        "",
        f"The model with no position signal (the causal mask only) still carries position: a linear probe of each "
        f"byte's position t from its residual stream, fitted on {MATCHED_PROBE_WINDOWS // 2} held-out windows of "
        f"{T} bytes and scored on {MATCHED_PROBE_WINDOWS - MATCHED_PROBE_WINDOWS // 2} others, reads nothing before "
        f"layer 0 and some R² after the last, in {matched.NAME} (Haviv et al. 2022)",
        tuple(checks),
        "matched?part=probe",
        f"Haviv et al. 2022, measured on {matched.NAME}; {matched.SOURCE}",
        "numpy on the shipped weights (measured; no record at training)",
    )


def _matched() -> list[Claim]:
    """Claims 22-25 from the matched family's shipped weights: ten window-0 forward passes and two probes."""
    losses = matched_window0()
    return [_matched_losses(losses), *_matched_order(losses), _matched_probe()]


@dataclass(frozen=True)
class Recorded:
    """A whole-model number measured at extraction that the shipped layers cannot redo: shown, never a claim."""

    label: str
    value: str
    over: str


def recorded_at_extraction() -> list[Recorded]:
    """SmolLM2's whole-model checks as tools/extract_smollm2.py recorded them (all 30 layers, float64): read from
    provenance.json, not reproduced, so they stay out of the registry, whose values are all reproduced live."""
    from posviz.models import smollm2

    checks = smollm2.recorded("provenance")["whole_model_checks"]
    rows = []
    for case in checks["next_tokens"]:
        top = case["top5"][0]
        fed = "with <|im_start|>" if case["im_start"] else "without <|im_start|>"
        rows.append(
            Recorded(
                f'top next token after "{case["prompt"]}", {fed}',
                f"{top['token']!r} (p {top['p']})",
                f"{len(case['ids'])} ids",
            )
        )
    loss = checks["loss"]
    rows.append(
        Recorded(
            "loss (nats a token): interleaved pairs < rotate-half < no rotation",
            " < ".join(f"{v} ({k.split(' ')[0]})" for k, v in sorted(loss["loss_nats"].items(), key=lambda kv: kv[1])),
            f"{loss['predicted']} predicted tokens of {loss['text']}",
        )
    )
    return rows


def claims(*, real_model: bool = True) -> list[Claim]:
    """Every verified claim: the three lessons', numbered as in the project's issue, then the papers' and
    reference code's (12-15), MiniLM's (16), SmolLM2's (17-21) and the matched family's (22-25), reproduced now.
    real_model=False leaves out the claims that run a trained model (real_model_claims()), so that a page can show
    the rest before they load."""
    registry = _lesson_000() + _lesson_002() + _lesson_003() + _longer_contexts()
    return sorted(registry + (real_model_claims() if real_model else []), key=lambda c: c.number)


def real_model_claims() -> list[Claim]:
    """The claims that run a trained model (MiniLM's 16, SmolLM2's 17-21, the matched family's 22-25), reproduced
    now."""
    return _real_model() + _smollm2() + _matched()


def _fmt(value: float | bool) -> str:
    return str(value) if isinstance(value, bool | int) else repr(float(value))


def claim_rows(
    registry: list[Claim] | None = None, *, fmt: Callable[[float], str] | None = None
) -> list[dict[str, object]]:
    """The registry as table rows: one row a check, with its claim's number, lesson and page.

    Values are written at full precision (`verify`), or with `fmt` for floats (the app: `display.number`).
    """

    def shown(value: float | bool) -> str:
        return _fmt(value) if fmt is None or isinstance(value, bool | int) else fmt(value)

    rows = []
    for claim in claims() if registry is None else registry:
        for check in claim.checks:
            rows.append(
                {
                    "claim": claim.number,
                    "lesson": claim.lesson,
                    "source": claim.origin,
                    "statement": claim.statement,
                    "check": check.label,
                    "expected": shown(check.expected),
                    "expected from": claim.expected_from(check),
                    "reproduced": shown(check.reproduced),
                    "tolerance": check.tolerance_text,
                    "why this tolerance": check.why,
                    "pass": check.passed,
                    "page": claim.page,
                }
            )
    return rows
