"""The real model: shipped data, an independent BERT formulation, order-blindness, and the extractor."""

import json
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from posviz.drawing import frames
from posviz.models import minilm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import extract_minilm  # noqa: E402

from tests.references import bert_heads, int8_by_hand, stored_matrix  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return minilm.load_minilm()


def test_shipped_data_has_its_provenance_licence_and_shapes(model):
    folder = minilm.DATA
    provenance = json.loads((folder / "provenance.json").read_text())
    assert provenance["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert provenance["model_license"] == "Apache-2.0"
    assert "Apache License" in (folder / "LICENSE-Apache-2.0.txt").read_text()
    assert (folder / "layer0.npz").stat().st_size < 16 * 2**20
    assert model.word.shape == (30522, 384) and model.position.shape == (512, 384)
    assert model.heads == 12 and model.w_q.shape == (384, 384)
    import hashlib

    assert hashlib.sha256((folder / "layer0.npz").read_bytes()).hexdigest() == provenance["sha256"]["layer0.npz"]


def bert_layer0(model, ids, with_position=True):
    """BERT's equations written out again: explicit per-head loops, std-based LayerNorm, torch's x W^T."""
    words = int8_by_hand(model.word[ids], model.word_scale[ids])  # decoded from the stored arrays, not by word_rows
    x = words + model.token_type[0] + (model.position[: len(ids)] if with_position else 0.0)
    h = np.stack([(row - row.mean()) / np.sqrt(row.var() + model.eps) for row in x]) * model.ln_weight + model.ln_bias
    return bert_heads(h, model.w_q, model.b_q, model.w_k, model.b_k, model.w_v, model.b_v, model.heads)


@pytest.mark.parametrize("text", ["dog bites man", "The quick brown fox jumps over the lazy dog.", "a"])
def test_forward_pass_matches_an_independent_formulation(model, text):
    ids = minilm.tokenize(text).ids
    for scale, with_position in ((1.0, True), (0.0, False)):
        weights, out = minilm.attention(model, minilm.embed(model, ids, scale))
        ref_w, ref_out = bert_layer0(model, ids, with_position)
        np.testing.assert_allclose(weights, ref_w, atol=1e-10)
        np.testing.assert_allclose(out, ref_out, atol=1e-9)


def test_order_blind_without_position_rows_and_not_with_them(model):
    pair = minilm.compare(model, "dog bites man", "man bites dog")
    assert pair.token_diff("man", with_position=False) < 1e-12
    assert pair.token_diff("man", with_position=True) > 0.1
    ids = minilm.tokenize("the cat sat on the mat").ids
    perm = np.array([0, 3, 1, 5, 2, 4, 6, 7])[: len(ids)]
    _, out = minilm.attention(model, minilm.embed(model, ids, 0.0))
    _, shuffled = minilm.attention(model, minilm.embed(model, ids[perm], 0.0))
    np.testing.assert_allclose(shuffled, out[perm], atol=1e-12)


def test_the_learned_table_has_a_long_first_row_and_smooth_neighbours():
    table = minilm.position_table()
    assert table.norms[0] == pytest.approx(2.36, abs=0.01)
    assert table.norms[0] > 4 * np.median(table.norms[1:])
    assert table.neighbour_cosine > 0.8 and table.cosine.min() < -0.5
    assert table.most_opposite == table.cosine.min()
    assert table.apart(1) == pytest.approx(table.neighbour_cosine) and table.apart(128) == table.by_distance[127]


def test_head_weights_are_numbered_from_1_as_the_page_numbers_them():
    pair = minilm.compare_texts("dog bites man", "man bites dog")
    first, second = pair.head_weights(12, with_position=False)
    np.testing.assert_array_equal(first, pair.weights_plain[0][11])
    np.testing.assert_array_equal(second, pair.weights_plain[1][11])
    np.testing.assert_array_equal(pair.head_weights(1, with_position=True)[0], pair.weights[0][0])
    with pytest.raises(ValueError, match="head must be in 1..12, got 13"):
        pair.head_weights(13, with_position=True)


def test_distance_shrinks_with_the_scale_on_the_real_model():
    scales, distances = minilm.curve_texts("dog bites man", "man bites dog", "man", points=5)
    assert distances[0] < 1e-12
    assert np.all(np.diff(distances[1:]) > 0)


def test_the_batched_curve_equals_the_token_row_of_the_whole_attention(model):
    scales = np.array([0.0, 0.01, 0.5, 1.0])
    first, second = minilm.tokenize("dog bites man").ids, minilm.tokenize("man bites dog").ids
    expected = [
        np.abs(
            minilm.attention(model, minilm.embed(model, first, s))[1][3]
            - minilm.attention(model, minilm.embed(model, second, s))[1][1]
        ).max()
        for s in scales
    ]
    np.testing.assert_allclose(
        minilm.distance_curve(model, "dog bites man", "man bites dog", "man", scales), expected, atol=1e-12
    )


def test_tokenizer_reports_unknown_pieces_and_truncation():
    tokens = minilm.tokenize("Dog 🧭 bites")
    assert tokens.tokens == ("[CLS]", "dog", "[UNK]", "bites", "[SEP]") and tokens.unknown == ("🧭",)
    long = minilm.tokenize(" ".join(["word"] * 100))
    assert long.cut and len(long.ids) == minilm.MAX_TOKENS and long.tokens[-1] == "[SEP]"


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps({"__metadata__": {"format": "pt"}, **header}).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def test_extractor_on_a_tiny_synthetic_checkpoint(tmp_path):
    from posviz.models.minilm import encoder

    rng = np.random.default_rng(0)
    vocab, width, ffn = 30522, 64, 128  # the real vocabulary (the real tokenizer runs the reference); 2 groups a row
    layer = {
        **{f"attention.self.{p}.weight": (width, width) for p in ("query", "key", "value")},
        **{f"attention.self.{p}.bias": (width,) for p in ("query", "key", "value")},
        "attention.output.dense.weight": (width, width),
        "attention.output.dense.bias": (width,),
        "attention.output.LayerNorm.weight": (width,),
        "attention.output.LayerNorm.bias": (width,),
        "intermediate.dense.weight": (ffn, width),
        "intermediate.dense.bias": (ffn,),
        "output.dense.weight": (width, ffn),
        "output.dense.bias": (width,),
        "output.LayerNorm.weight": (width,),
        "output.LayerNorm.bias": (width,),
    }
    shapes = {
        "embeddings.word_embeddings.weight": (vocab, width),
        "embeddings.position_embeddings.weight": (16, width),
        "embeddings.token_type_embeddings.weight": (2, width),
        "embeddings.LayerNorm.weight": (width,),
        "embeddings.LayerNorm.bias": (width,),
        **{f"encoder.layer.{i}.{name}": shape for i in range(2) for name, shape in layer.items()},
        "pooler.dense.weight": (width, width),
    }
    tensors = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    write_safetensors(tmp_path / "model.safetensors", tensors)
    read = extract_minilm.read_safetensors(tmp_path / "model.safetensors")
    assert read.keys() == tensors.keys()
    for name in tensors:
        np.testing.assert_array_equal(read[name], tensors[name])
    config = {"num_attention_heads": 2, "layer_norm_eps": 1e-12, "num_hidden_layers": 2}
    out = tmp_path / "data"
    tokenizer = (minilm.DATA / "tokenizer.json").read_bytes()
    extract_minilm.build(read, tokenizer, config, {"model": "synthetic"}, out)
    small = minilm.load_minilm(out)
    assert small.heads == 2 and small.position.shape == (16, width)
    words = tensors["embeddings.word_embeddings.weight"]
    assert small.word_scale.shape == (vocab, width // 32)
    np.testing.assert_array_equal(small.word_rows(np.arange(vocab)), int8_by_hand(small.word, small.word_scale))
    step = np.repeat(np.abs(words).reshape(vocab, -1, 32).max(axis=2) / 127, 32, axis=1)  # each group's own step
    assert np.all(np.abs(small.word_rows(np.arange(vocab)) - words) <= step / 2 + 1e-7)
    np.testing.assert_array_equal(small.w_q, tensors["encoder.layer.0.attention.self.query.weight"])
    ids = minilm.tokenize("dog bites man", out).ids
    weights, out_rows = minilm.attention(small, minilm.embed(small, ids))
    ref_w, ref_out = bert_layer0(small, ids)
    np.testing.assert_allclose(weights, ref_w, atol=1e-10)
    np.testing.assert_allclose(out_rows, ref_out, atol=1e-9)
    whole = encoder.load_encoder(out)
    assert len(whole.layers) == 2 and whole.layers[1].w_1.shape == (ffn, width)
    w_2 = tensors["encoder.layer.1.output.dense.weight"]  # (width, ffn): 4 groups a row
    np.testing.assert_array_equal(whole.layers[1].w_2, stored_matrix(whole.layers[1].arrays, "w_2"))
    step = np.repeat(np.abs(w_2).reshape(width, -1, 32).max(axis=2) / 127, 32, axis=1)
    assert np.all(np.abs(whole.layers[1].w_2 - w_2) <= step / 2 + 1e-7)
    np.testing.assert_array_equal(whole.layers[1].b_2, tensors["encoder.layer.1.output.dense.bias"])
    reference = json.loads((out / "provenance.json").read_text())["float32_reference"]
    assert len(reference["pairs"]) == len(extract_minilm.REFERENCE_PAIRS)
    for text, values in reference["embeddings"].items():
        shipped = encoder.embed_sentence(whole, minilm.tokenize(text, out).ids)
        assert np.abs(shipped - np.array(values)).max() < 0.1  # int8 on a random 8-wide model: loose


@pytest.mark.parametrize("how", ["int8/row", "int8/g32", "int8/g4", "int10/row", "int12/row"])
def test_stored_matrices_are_within_half_a_step_of_every_entry(how):
    from posviz.models.minilm import encoder

    m = np.random.default_rng(1).standard_normal((6, 64)) * np.array([1.0, 30.0] * 32)  # a column outlier in each pair
    stored = extract_minilm.widened(extract_minilm.store("w", m, how))  # the loaders read int8, the benchmark widens
    layer = encoder.Layer({**{k.replace("w", "w_1", 1): v for k, v in stored.items()}})
    bits = int(how[3 : how.index("/")])
    group = 64 if how.endswith("/row") else int(how.split("/g")[1])
    step = np.abs(m).reshape(6, -1, group).max(axis=2) / (2 ** (bits - 1) - 1)  # (6, G)
    np.testing.assert_array_less(np.abs(layer.w_1 - m), np.repeat(step, group, axis=1) / 2 + 1e-6)


def test_extraction_writes_the_same_bytes_twice(tmp_path):
    arrays = {"b": np.arange(5, dtype=np.int8), "a": np.ones((2, 3), np.float32)}
    extract_minilm.write_npz(tmp_path / "one.npz", arrays)
    extract_minilm.write_npz(tmp_path / "two.npz", dict(reversed(arrays.items())))
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    with np.load(tmp_path / "one.npz") as z:
        np.testing.assert_array_equal(z["a"], arrays["a"])


def test_extractor_refuses_a_checkpoint_without_layer_0(tmp_path):
    with pytest.raises(ValueError, match="lacks"):
        extract_minilm.build({}, b"{}", {"num_attention_heads": 2, "layer_norm_eps": 1e-12}, {}, tmp_path)


def test_bad_input_is_refused(model):
    with pytest.raises(ValueError, match="token ids"):
        minilm.embed(model, np.arange(600))
    with pytest.raises(ValueError, match="both sentences"):
        minilm.compare(model, "dog", "cat").token_diff("dog", with_position=True)
    with pytest.raises(TypeError):
        minilm.tokenize(None)


def test_cosine_profile_holds_the_learned_and_the_sinusoidal_curve_for_every_distance():
    pos = minilm.position_table()
    profile = frames.cosine_profile(pos)
    assert profile.groupby("table").size().tolist() == [511, 511]
    learned = profile[profile.table == "MiniLM, learned"]
    assert learned["distance"].tolist() == list(range(1, 512))
    np.testing.assert_array_equal(learned["cosine"], pos.by_distance)
    assert pos.norms[0] > 3 * pos.median_norm
