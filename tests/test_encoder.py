"""The whole real model: an independent BERT formulation, order-blindness without position, the float32 record."""

import hashlib
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.models import minilm
from posviz.models.minilm import encoder
from posviz.models.minilm.gelu import ERF_BLOCK, one_plus_erf
from tests.references import bert_heads, int8_by_hand, stored_matrix


@pytest.fixture(scope="module")
def model():
    return encoder.default_encoder()


def layer_norm_by_std(row, weight, bias, eps):
    return (row - row.mean()) / math.sqrt(row.std() ** 2 + eps) * weight + bias


def gelu_by_erfc(x):
    """x * Phi(x) with Phi(x) = erfc(-x / sqrt 2) / 2, one element at a time."""
    return np.vectorize(lambda v: v * math.erfc(-v / math.sqrt(2.0)) / 2.0)(x)


def bert_states(model, ids, scale):
    """BERT written out again: per-head and per-row loops, std-based LayerNorm, erfc-based GELU, x W^T."""
    emb = model.embeddings
    x = int8_by_hand(emb.word[ids], emb.word_scale[ids])  # decoded from the stored arrays, not by word_rows
    x = x + emb.token_type[0] + scale * emb.position[: len(ids)]
    h = np.stack([layer_norm_by_std(r, emb.ln_weight, emb.ln_bias, emb.eps) for r in x])
    out = [h]
    for stored in model.layers:
        layer = SimpleNamespace(**{key: stored_matrix(stored.arrays, key) for key in encoder.LAYER_KEYS})
        _, heads = bert_heads(h, layer.w_q, layer.b_q, layer.w_k, layer.b_k, layer.w_v, layer.b_v, emb.heads)
        attended = heads @ layer.w_o.T + layer.b_o
        h = np.stack([layer_norm_by_std(r, layer.ln1_w, layer.ln1_b, emb.eps) for r in h + attended])
        ff = gelu_by_erfc(h @ layer.w_1.T + layer.b_1) @ layer.w_2.T + layer.b_2
        h = np.stack([layer_norm_by_std(r, layer.ln2_w, layer.ln2_b, emb.eps) for r in h + ff])
        out.append(h)
    return np.stack(out)


@pytest.mark.parametrize("text", ["dog bites man", "A man is eating a piece of bread.", "a"])
@pytest.mark.parametrize("scale", [1.0, 0.3, 0.0])
def test_forward_pass_equals_an_independent_formulation(model, text, scale):
    ids = minilm.tokenize(text).ids
    np.testing.assert_allclose(encoder.states(model, ids, scale), bert_states(model, ids, scale), atol=1e-10)


def test_two_sentences_in_one_pass_equal_each_alone(model):
    a, b = minilm.tokenize("dog bites man").ids, minilm.tokenize("the quick brown fox jumps").ids
    both = encoder.states_many(model, [a, b])
    np.testing.assert_allclose(both[0], encoder.states(model, a), atol=1e-12)
    np.testing.assert_allclose(both[1], encoder.states(model, b), atol=1e-12)


def test_many_sentences_each_at_its_own_scale_equal_each_alone(model):
    ids = [minilm.tokenize(t).ids for t in ("dog bites man", "man bites dog", "a")]
    scales = [1.0, 0.25, 0.0]
    together = encoder.embed_many(model, ids, scales)
    for row, i, s in zip(together, ids, scales, strict=True):
        np.testing.assert_allclose(row, encoder.embed_sentence(model, i, s), atol=1e-12)


@given(st.lists(st.floats(-12, 12), min_size=1, max_size=20))
def test_gelu_is_the_exact_erf_form(values):
    x = np.array(values)
    np.testing.assert_allclose(encoder.gelu(x), gelu_by_erfc(x), rtol=1e-13, atol=1e-15)  # 1 + erf cancels below -4


def vocabulary_words() -> list[str]:
    vocab = json.loads((minilm.DATA / "tokenizer.json").read_text())["model"]["vocab"]
    return sorted(w for w in vocab if w.isascii() and w.isalpha() and len(w) > 1)[::40]


WORDS = vocabulary_words()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=10), st.randoms(use_true_random=False))
def test_without_position_rows_any_reordering_has_cosine_one(words, rnd):
    shuffled = words[:]
    rnd.shuffle(shuffled)
    pair = encoder.compare_texts(" ".join(words), " ".join(shuffled), 1.0)
    assert abs(pair.cosine_plain - 1.0) <= 1e-12
    assert abs(pair.cosine_average - 1.0) <= 1e-12
    assert np.abs(pair.layer_distance_plain).max() <= 1e-12


def test_the_lessons_sentences_differ_with_position_and_not_without(model):
    pair = encoder.compare(model, "dog bites man", "man bites dog")
    assert pair.cosine < 0.95
    assert pair.cosine_plain == pytest.approx(1.0, abs=1e-12)
    assert pair.cosine_average == pytest.approx(1.0, abs=1e-12)
    assert np.all(pair.layer_distance[1:] > 1e-3)
    assert pair.layer_distance.shape == (len(model.layers) + 1,)


def test_shipped_model_is_within_tolerance_of_the_float32_record(model):
    reference = encoder.provenance()["float32_reference"]
    assert "float32" in reference["computed"]
    for pair in reference["pairs"]:
        shipped = encoder.compare(model, pair["sentence1"], pair["sentence2"])
        assert shipped.cosine == pytest.approx(pair["cosine"], abs=encoder.COSINE_TOLERANCE)
        assert shipped.cosine_plain == pytest.approx(pair["cosine_without_position"], abs=encoder.COSINE_TOLERANCE)
    for text, values in reference["embeddings"].items():
        shipped = encoder.embed_sentence(model, minilm.tokenize(text).ids)
        assert np.abs(shipped - np.array(values)).max() <= encoder.EMBEDDING_TOLERANCE
    assert encoder.reference_cosine("dog bites man", "man bites dog") < 0.95


def test_scale_curve_starts_at_one_and_ends_at_the_model(model):
    scales, cosines = encoder.curve_texts("dog bites man", "man bites dog", points=5)
    assert scales[0] == 0.0 and scales[-1] == 1.0
    assert cosines[0] == pytest.approx(1.0, abs=1e-6)  # the curve runs in float32; compare() in float64
    assert cosines[-1] == pytest.approx(encoder.compare(model, "dog bites man", "man bites dog").cosine, abs=1e-6)


def test_the_float32_curve_in_one_pass_is_within_1e_6_of_float64_in_small_passes(model):
    scales = np.linspace(0.0, 1.0, 6)
    text = "the quick brown fox jumps over the lazy dog", "the lazy dog jumps over the quick brown fox"
    wide = encoder.scale_curve(model, *text, scales, np.float64, rows=40)
    np.testing.assert_allclose(encoder.scale_curve(model, *text, scales, np.float32), wide, atol=1e-6)


def test_a_float32_layer_is_dequantized_straight_to_float32_with_the_float64_values_rounded(model):
    layer = model.layers[0]
    single = layer.dense(np.float32)
    for key in encoder.LAYER_KEYS:
        assert getattr(single, key).dtype == np.float32
        np.testing.assert_array_equal(getattr(single, key), getattr(layer, key).astype(np.float32))


def test_float32_gelu_is_within_float32_precision_of_the_exact_one():
    x = np.linspace(-20, 20, 4001)
    np.testing.assert_allclose(encoder.gelu(x.astype(np.float32)), gelu_by_erfc(x), atol=1e-6)


def test_shipped_model_data_fits_its_budget_and_matches_its_provenance():
    record = encoder.provenance()
    names = ("layer0.npz", "encoder.npz", "tokenizer.json")
    total = sum((minilm.DATA / n).stat().st_size for n in names)
    assert total <= 30e6 and total == record["model_bytes"]
    for name in names:
        assert hashlib.sha256((minilm.DATA / name).read_bytes()).hexdigest() == record["sha256"][name]
    assert "int8" in record["encoder"]["stored"] and record["encoder"]["layers"] == 6
    assert encoder.default_encoder().precision == record["stored"] and record["stored"].startswith("word")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: encoder.compare(m, "", "dog"), "word piece"),
        (lambda m: encoder.compare(m, "dog", "man", float("nan")), "scale"),
        (lambda m: encoder.states_many(m, []), "at least one"),
        (lambda m: encoder.states(m, np.arange(600)), "token ids"),
        (lambda m: encoder.cosine(np.ones(3), np.ones(4)), "shapes"),
        (lambda m: encoder.reference_cosine("a", "b"), "recorded"),
    ],
)
def test_bad_input_is_refused_with_what_was_expected(model, call, message):
    with pytest.raises(ValueError, match=message):
        call(model)


def test_hostile_and_long_text_is_tokenized_not_run(model):
    pair = encoder.compare(model, "<script>alert(1)</script> 🧭", " ".join(["word"] * 100))
    assert pair.first.unknown == ("🧭",) and pair.second.cut
    assert len(pair.second.ids) == minilm.MAX_TOKENS and -1 <= pair.cosine <= 1


def test_a_pass_in_two_halves_at_once_equals_one_in_one_thread(model, monkeypatch):
    ids = [minilm.tokenize(t).ids for t in ("dog bites man", "man bites dog", "a", "the quick brown fox jumps")]
    scales = [1.0, 1.0, 0.0, 0.5]
    monkeypatch.setattr(encoder, "PASS_THREADS", 1)
    alone = [np.asarray(h) for h in encoder._runs(model, ids, scales)]
    monkeypatch.setattr(encoder, "PASS_THREADS", 2)
    halves = [np.asarray(h) for h in encoder._runs(model, ids, scales)]
    assert len(alone) == len(halves) == len(model.layers) + 1
    for one, two in zip(alone, halves, strict=True):
        np.testing.assert_allclose(two, one, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    "lengths, expected",
    [
        ((64,) * 4, [(0, 2), (2, 4)]),
        ((7,), [(0, 1)]),
        ((30, 1, 1, 1), [(0, 1), (1, 4)]),
        ((1, 1, 30), [(0, 2), (2, 3)]),
    ],
)
def test_a_pass_is_cut_between_sentences_into_halves_of_about_equal_rows(lengths, expected):
    assert encoder._halves(lengths) == expected


def test_one_plus_erf_is_erfc_of_minus_z_across_blocks_and_at_the_extremes():
    edges = [-np.inf, -1e300, -27.5, -27.0, -8.0, -1.0, 1.0, 8.0, 27.0, 30.0, 1e300, np.inf]  # where branches meet
    z = np.concatenate([np.linspace(-12, 12, ERF_BLOCK + 1001), edges])
    expected = np.array([math.erfc(-v) for v in z])
    got = one_plus_erf(z.reshape(1, -1))[0]  # a 2-D input, cut into blocks of ERF_BLOCK elements
    np.testing.assert_allclose(got, expected, rtol=2e-14, atol=1e-300)
    assert np.isnan(one_plus_erf(np.array([np.nan])))[0]
