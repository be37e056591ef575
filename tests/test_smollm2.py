"""SmolLM2's shipped layers: an independent scalar reference, the RoPE layout, ablations, tokenizer, data."""

import dataclasses
import hashlib
import json
import math
import operator
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest

from posviz.experiments import decoder
from posviz.maths import rotary
from posviz.models import blocks, smollm2

ROOT = Path(__file__).resolve().parents[1]
DATA = smollm2.DATA


@pytest.fixture(scope="module")
def model():
    return smollm2.load()


@pytest.fixture(scope="module")
def ids(model):
    return smollm2.tokenize("The quick brown fox jumps over the lazy dog, and then the dog bites the man.").ids


# --- an independent reference: one layer written from the formulas, in Python floats -------------------------


def dot(row: list[float], v: list[float]) -> float:
    return math.fsum(map(operator.mul, row, v))


def scalar_rms_norm(x: list[float], g: list[float], eps: float) -> list[float]:
    scale = 1.0 / math.sqrt(math.fsum(a * a for a in x) / len(x) + eps)
    return [a * scale * w for a, w in zip(x, g, strict=True)]


def scalar_rope(vec: list[float], t: int, theta: float) -> list[float]:
    """Interleaved pairs (2i, 2i+1) turned by t * theta^(-2i/d_k)."""
    out, d_k = list(vec), len(vec)
    for i in range(d_k // 2):
        angle = t * theta ** (-2 * i / d_k)
        a, b = vec[2 * i], vec[2 * i + 1]
        out[2 * i], out[2 * i + 1] = (
            a * math.cos(angle) - b * math.sin(angle),
            a * math.sin(angle) + b * math.cos(angle),
        )
    return out


def scalar_layer(layer: smollm2.Layer, x: list[list[float]], cfg: smollm2.Config, offset: int = 0):
    """Llama's decoder layer with loops over tokens, heads and dimensions (causal, positions offset..offset+T-1)."""
    w = {f.name: getattr(layer, f.name).astype(np.float64).tolist() for f in dataclasses.fields(layer)}
    T, H, G, dk = len(x), cfg.heads, cfg.kv_heads, cfg.d_k
    h = [scalar_rms_norm(row, w["attn_norm"], cfg.eps) for row in x]
    q = [
        [scalar_rope([dot(w["w_q"][j * dk + c], h[t]) for c in range(dk)], offset + t, cfg.base) for t in range(T)]
        for j in range(H)
    ]
    k = [
        [scalar_rope([dot(w["w_k"][g * dk + c], h[t]) for c in range(dk)], offset + t, cfg.base) for t in range(T)]
        for g in range(G)
    ]
    v = [[[dot(w["w_v"][g * dk + c], h[t]) for c in range(dk)] for t in range(T)] for g in range(G)]
    weights = [[[0.0] * T for _ in range(T)] for _ in range(H)]
    mixed = [[0.0] * (H * dk) for _ in range(T)]
    for j in range(H):
        g = j // (H // G)
        for t in range(T):
            scores = [dot(q[j][t], k[g][s]) / math.sqrt(dk) for s in range(t + 1)]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            for s in range(t + 1):
                weights[j][t][s] = e[s] / math.fsum(e)
                for c in range(dk):
                    mixed[t][j * dk + c] += weights[j][t][s] * v[g][s][c]
    x = [[a + dot(w["w_o"][r], mixed[t]) for r, a in enumerate(x[t])] for t in range(T)]
    out = []
    for row in x:
        hh = scalar_rms_norm(row, w["ffn_norm"], cfg.eps)
        gate = [dot(r, hh) for r in w["w_gate"]]
        up = [dot(r, hh) for r in w["w_up"]]
        act = [a / (1 + math.exp(-a)) * b for a, b in zip(gate, up, strict=True)]
        out.append([a + dot(r, act) for a, r in zip(row, w["w_down"], strict=True)])
    return np.array(out), np.array(q), np.array(k), np.array(weights)


def test_the_config_is_the_published_smollm2_135m(model):
    """The scalar reference reads theta, eps, d_k, H and G from model.config: they are pinned here to the model card."""
    published = smollm2.Config(
        d=576, heads=9, kv_heads=3, d_k=64, base=100_000.0, eps=1e-5, vocab=49_152, model_layers=30, context=8192
    )
    assert model.config.eps == pytest.approx(published.eps, rel=1e-7)  # the GGUF stores it as float32
    assert dataclasses.replace(model.config, eps=published.eps) == published
    assert len(model.layers) == 5 and model.layers[0].w_gate.shape == (1536, 576)


@pytest.mark.parametrize("offset", [0, 4000])
def test_one_layer_matches_a_scalar_loop_reference(model, ids, offset):
    eight = ids[:8]  # T = 8 and positions up to 4007: the slowest pair turns by 0.06 rad, well above the tolerances
    x = model.embed(eight)
    trace = smollm2.run(eight, layers=1, start=offset)
    out, q, k, weights = scalar_layer(model.layers[0], x.astype(np.float64).tolist(), model.config, offset)
    np.testing.assert_allclose(trace.weights[0], weights, atol=2e-6)
    np.testing.assert_allclose(trace.q[0], q, rtol=1e-4, atol=1e-4 * np.abs(q).max())
    np.testing.assert_allclose(trace.k[0], k, rtol=1e-4, atol=1e-4 * np.abs(k).max())
    np.testing.assert_allclose(trace.hidden[0], out, rtol=1e-4, atol=1e-4 * np.abs(out).max())


def test_token_rows_match_a_hand_decoded_q8_0_block(model):
    """Q8_0: blocks of 32 int8 values after one float16 scale; value = scale * int8."""
    row = np.asarray(model.token_blocks[504])
    blocks = row.reshape(-1, 34)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float64)
    by_hand = (scale * blocks[:, 2:].copy().view(np.int8)).reshape(-1)
    np.testing.assert_allclose(model.embed([504])[0], by_hand, rtol=1e-6)


# --- the RoPE layout ----------------------------------------------------------------------------------------------


def test_gguf_interleaved_rows_and_hf_rotate_half_rows_give_the_same_scores(model, ids):
    layer, cfg = model.layers[0], model.config
    h = blocks.rms_norm(model.embed(ids), layer.attn_norm, cfg.eps).astype(np.float64)
    angles = rotary.angles(ids.size, cfg.d_k, 0, cfg.base)

    def scores(w_q, w_k, interleaved):
        q = rotary.rotate(blocks.split_heads(h @ w_q.T, cfg.heads), angles, interleaved=interleaved)
        k = rotary.rotate(blocks.split_heads(h @ w_k.T, cfg.kv_heads), angles, interleaved=interleaved)
        return q @ np.repeat(k, cfg.heads // cfg.kv_heads, axis=0).transpose(0, 2, 1)

    w_q, w_k = layer.w_q.astype(np.float64), layer.w_k.astype(np.float64)
    gguf_form = scores(w_q, w_k, True)
    hf_form = scores(smollm2.gguf_to_hf_rows(w_q, cfg.heads), smollm2.gguf_to_hf_rows(w_k, cfg.kv_heads), False)
    np.testing.assert_allclose(hf_form, gguf_form, rtol=1e-10, atol=1e-10 * np.abs(gguf_form).max())
    wrong = scores(w_q, w_k, False)  # rotate-half applied to GGUF rows
    assert np.abs(wrong - gguf_form).max() > 0.1 * np.abs(gguf_form).max()


def test_the_two_row_permutations_undo_each_other(model):
    w_k = model.layers[0].w_k
    np.testing.assert_array_equal(smollm2.hf_to_gguf_rows(smollm2.gguf_to_hf_rows(w_k, 3), 3), w_k)
    assert not np.array_equal(smollm2.gguf_to_hf_rows(w_k, 3), w_k)


def test_hf_rows_with_rotate_half_give_the_same_layer_output(model, ids):
    layer, cfg = model.layers[1], model.config
    hf = dataclasses.replace(
        layer, w_q=smollm2.gguf_to_hf_rows(layer.w_q, cfg.heads), w_k=smollm2.gguf_to_hf_rows(layer.w_k, cfg.kv_heads)
    )
    x, angles = model.embed(ids), rotary.angles(ids.size, cfg.d_k, 0, cfg.base)
    a = smollm2.layer_forward(layer, x, angles, cfg)
    b = smollm2.layer_forward(hf, x, angles, cfg, interleaved=False)
    np.testing.assert_allclose(b[3], a[3], atol=1e-5)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-4, atol=1e-4 * np.abs(a[0]).max())


# --- ablations ----------------------------------------------------------------------------------------------------


def permuted(ids: np.ndarray) -> np.ndarray:
    return np.random.default_rng(0).permutation(ids.size)


def test_without_rotation_and_mask_the_layers_are_permutation_equivariant(ids):
    perm = permuted(ids)
    plain = smollm2.run(ids, rotation="none", causal=False)
    shuffled = smollm2.run(ids[perm], rotation="none", causal=False)
    scale = np.abs(plain.hidden).max()
    np.testing.assert_allclose(shuffled.hidden, plain.hidden[:, perm], rtol=1e-5, atol=1e-6 * scale)
    np.testing.assert_allclose(shuffled.weights, plain.weights[:, :, perm][:, :, :, perm], atol=1e-5)


@pytest.mark.parametrize(("rotation", "causal"), [("none", True), ("rope", False), ("rope", True)])
def test_with_rotation_or_the_causal_mask_order_still_matters(ids, rotation, causal):
    perm = permuted(ids)
    plain = smollm2.run(ids, rotation=rotation, causal=causal)
    shuffled = smollm2.run(ids[perm], rotation=rotation, causal=causal)
    gap = np.abs(shuffled.hidden[-1] - plain.hidden[-1][perm]).max()
    assert gap > 1e-2 * np.abs(plain.hidden[-1]).max()


@pytest.mark.parametrize("offset", [1, 7, 100, 1000])
def test_shifting_every_position_leaves_the_attention_weights_unchanged(ids, offset):
    base, shifted = smollm2.run(ids), smollm2.run(ids, start=offset)
    np.testing.assert_array_equal(shifted.positions, base.positions + offset)
    np.testing.assert_allclose(shifted.weights, base.weights, atol=2e-5)
    scale = np.abs(base.hidden).max()
    np.testing.assert_allclose(shifted.hidden, base.hidden, rtol=1e-3, atol=1e-5 * scale)
    assert not np.allclose(shifted.q, base.q, atol=1e-3)  # the rotated queries themselves do move


def test_rotation_none_is_every_angle_zero(model, ids):
    zero = smollm2.run(ids, rotation="none")
    x, cfg = model.embed(ids), model.config
    direct = smollm2.layer_forward(model.layers[0], x, np.zeros((ids.size, 32)), cfg)
    np.testing.assert_array_equal(zero.weights[0], direct[3])


# --- the tokenizer against llama.cpp --------------------------------------------------------------------------------

RECORDED = json.loads((DATA / "llama_cpp_ids.json").read_text(encoding="utf-8"))


def test_the_recorded_ids_are_for_the_shipped_vocabulary():
    provenance = json.loads((DATA / "provenance.json").read_text())
    assert RECORDED["gguf_sha256"] == provenance["source_gguf_sha256"]
    assert len(RECORDED["cases"]) >= 25


@pytest.mark.parametrize("case", RECORDED["cases"], ids=[c["name"] for c in RECORDED["cases"]])
def test_the_tokenizer_matches_llama_cpp(model, case):
    tokenizer = model.tokenizer
    if case["special"]:  # llama.cpp's special=True: control tokens in the text are read as tokens
        tokenizer = smollm2.Tokenizer.from_str(tokenizer.to_str())
        tokenizer.encode_special_tokens = False
    assert tokenizer.encode(case["text"]).ids == case["ids"]


def test_tokenize_puts_im_start_first_and_reads_special_text_as_text():
    tokens = smollm2.tokenize("<|im_end|> Paris")
    assert tokens.ids[0] == smollm2.IM_START and smollm2.IM_START not in tokens.ids[1:] and 2 not in tokens.ids
    assert tokens.tokens[0] == "<|im_start|>" and not tokens.changed and not tokens.cut
    plain = smollm2.tokenize("The capital of France is", im_start=False)
    assert plain.ids.tolist() == [504, 3575, 282, 4649, 314] and plain.tokens[-1] == " is"


def test_digits_are_single_tokens():
    tokens = smollm2.tokenize("in 1984 and 2026", im_start=False)
    assert [t for t in tokens.tokens if t.strip().isdigit()] == list("19842026")


HOSTILE = [
    "🙂", "👩‍💻 👍🏽", "مرحبا بالعالم", "שלום עולם", "你好，世界", "\x00\x07\x1b\x7f", "tab\tnul\x00", "x", "a" * 5000,
    "the dog " * 700, "\ud800 lone surrogate", "<|im_start|><|im_end|>", "\u200b", "e\u0301", "1" * 200,
    "", " ", "\n\t\r ", "\u3000\u2003",
]  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_gives_clean_tokens_or_a_value_error(text):
    try:
        tokens = smollm2.tokenize(text)
    except ValueError as error:
        assert not text.strip() and "whitespace" in str(error)
        return
    assert 2 <= tokens.ids.size <= smollm2.MAX_TOKENS and len(tokens.tokens) == tokens.ids.size
    assert all(isinstance(t, str) and t for t in tokens.tokens)
    assert tokens.cut == (tokens.ids.size == smollm2.MAX_TOKENS and "cut to the first 64 tokens" in tokens.notes)
    trace = smollm2.run(tokens.ids)
    assert np.isfinite(trace.hidden).all() and np.isfinite(trace.weights).all()
    np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, rtol=1e-5)


def test_control_characters_and_cuts_are_reported():
    notes = smollm2.tokenize("bell\x07 and nul\x00").notes
    assert any("U+0000" in n and "U+0007" in n for n in notes)
    long = smollm2.tokenize("the dog " * 700)
    assert long.cut and long.ids.size == 64 and "cut to the first 64 tokens" in long.notes and long.changed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rotation": "alibi"}, "rotation must be 'rope' or 'none'"),
        ({"layers": 99}, "layers must be 1.."),
        ({"start": -1}, "start must be >= 0"),
    ],
)
def test_bad_run_arguments_say_what_was_expected(ids, kwargs, message):
    with pytest.raises(ValueError, match=message):
        smollm2.run(ids, **kwargs)


@pytest.mark.parametrize("bad", [[], [49152], [-1], [[1, 2]], [0.5]])
def test_bad_ids_are_a_value_error(bad):
    with pytest.raises(ValueError, match="ids must"):
        smollm2.run(bad)


# --- helpers the page uses -----------------------------------------------------------------------------------------


def test_previous_token_weights_read_as_distance_one():
    T = 6
    weights = np.eye(T, k=-1)[None]  # every query t > 0 reads t - 1 only
    weights[0, 0, 0] = 1.0
    np.testing.assert_allclose(decoder.previous_weight(weights), [1.0])
    np.testing.assert_allclose(decoder.by_distance(weights)[0, :3], [0.0, 1.0, 0.0])  # query 0 (reads itself) left out
    np.testing.assert_allclose(decoder.by_distance(weights, first=3)[0, :3], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(decoder.sink_weight(weights, first=2), [0.0])
    assert decoder.head_roles(np.array([0.9, 0.1]), np.array([0.2, 0.8])).tolist() == ["first-token", "previous-token"]


def test_pair_energy_does_not_change_under_rotation(ids):
    trace, plain = smollm2.run(ids, layers=1), smollm2.run(ids, layers=1, rotation="none")  # layer 0: same h
    np.testing.assert_allclose(decoder.pair_energy(trace.q), decoder.pair_energy(plain.q), rtol=1e-5)
    np.testing.assert_allclose(decoder.pair_energy(trace.k), decoder.pair_energy(plain.k), rtol=1e-5)
    assert not np.allclose(trace.q, plain.q, rtol=1e-3)
    assert decoder.pair_energy(smollm2.run(ids).k).shape == (len(smollm2.load().layers), 3, 32)


def test_stats_cover_every_layer_and_follow_their_rule():
    stats = smollm2.stats()
    layers = stats["with_im_start"]["layers"]
    assert len(layers) == 30 and stats["with_im_start"]["im_start"] is True
    for row in layers:
        assert len(row["sink"]) == 9 and len(row["q_energy"]) == 9 and len(row["k_energy"]) == 3
        assert all(len(e) == 32 for e in row["q_energy"] + row["k_energy"])
        assert row["verdict"] == decoder.head_roles(np.array(row["sink"]), np.array(row["previous"])).tolist()


def test_stats_of_the_shipped_layers_agree_with_run():
    sys.path.insert(0, str(ROOT / "tools"))
    import extract_smollm2

    stats = smollm2.stats()
    texts = [make() for _, make in extract_smollm2.STATS_TEXTS]
    if [hashlib.sha256(t.encode()).hexdigest() for t in texts] != [t["sha256"] for t in stats["texts"]]:
        pytest.skip("this Python's pydoc topics differ from the ones measured at extraction")
    sink, prev, n = 0.0, 0.0, 0
    for text in texts:
        ids = [smollm2.IM_START, *smollm2.load().tokenizer.encode(text).ids]
        w = smollm2.run(ids).weights.astype(np.float64)
        first, count = decoder.FIRST_QUERY, len(ids) - decoder.FIRST_QUERY
        sink, prev = (
            sink + decoder.sink_weight(w, first=first) * count,
            prev + decoder.previous_weight(w, first=first) * count,
        )
        n += count
    shipped = stats["with_im_start"]["layers"][: len(w)]
    np.testing.assert_allclose(sink / n, [r["sink"] for r in shipped], rtol=2e-3, atol=1e-5)
    np.testing.assert_allclose(prev / n, [r["previous"] for r in shipped], rtol=2e-3, atol=1e-5)


# --- the shipped data -----------------------------------------------------------------------------------------------


def test_the_shipped_data_is_within_45_mb():
    total = DATA.stat().st_size + sum(p.stat().st_size for p in DATA.rglob("*"))  # as `du -b` counts
    assert total <= 45_000_000


def test_provenance_sha256_matches_the_shipped_files():
    provenance = json.loads((DATA / "provenance.json").read_text())
    assert provenance["sha256"], "provenance.json lists no files"
    for name, digest in provenance["sha256"].items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    assert provenance["model_license"] == "apache-2.0"
    assert "Apache License" in (DATA / "LICENSE-Apache-2.0.txt").read_text()


def test_the_shipped_file_holds_published_blocks_of_the_first_layers_only(model):
    reader = gguf.GGUFReader(DATA / smollm2.GGUF_FILE)
    provenance = json.loads((DATA / "provenance.json").read_text())
    names = {t.name: t.tensor_type.name for t in reader.tensors}
    L = len(model.layers)
    assert L == provenance["layers_shipped"] and names["token_embd.weight"] == "Q8_0"
    assert {n.split(".")[1] for n in names if n.startswith("blk.")} == {str(i) for i in range(L)}
    assert "output_norm.weight" not in names and "output.weight" not in names
    assert all(t in ("Q4_1", "F32") for n, t in names.items() if n.startswith("blk."))
    assert [{"name": n, "type": t} for n, t in names.items()] == [
        {"name": r["name"], "type": r["type"]} for r in provenance["tensors"]
    ]


def test_load_reads_the_same_tensors_and_vocabulary_as_ggufs_own_reader(model):
    reader = gguf.GGUFReader(DATA / smollm2.GGUF_FILE)  # np.memmap slices, as gguf opens it
    tensors = {t.name: t for t in reader.tensors}
    np.testing.assert_array_equal(model.token_blocks, tensors["token_embd.weight"].data)
    last = tensors[f"blk.{len(model.layers) - 1}.ffn_down.weight"]
    np.testing.assert_array_equal(model.layers[-1].w_down, smollm2.dequantize(last))
    assert model.tokenizer.to_str() == smollm2.tokenizer_from_gguf(reader).to_str()


def test_a_model_asked_for_by_two_threads_at_once_is_read_once():
    from concurrent.futures import ThreadPoolExecutor

    smollm2._load.cache_clear()
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: smollm2.load(), range(2))
    assert first is second and smollm2._load.cache_info().misses == 1


# --- rounding the shipped weights again (step 19's caption) ---------------------------------------------------


def test_a_rerounded_copy_moves_each_weight_matrix_by_at_most_half_its_blocks_step_and_keeps_the_norms(model):
    """Each 32-value block's step, (max - min) / 15 (Q4_1's 16 levels), written out here by loops over a row."""
    copy = decoder.rerounded(model, np.random.default_rng(1))
    for mine, theirs in zip(model.layers[:1], copy.layers[:1], strict=True):
        for f in dataclasses.fields(mine):
            w, moved = getattr(mine, f.name), getattr(theirs, f.name)
            if w.ndim == 1:
                assert moved is w  # the norms' vectors kept
                continue
            row, new = w[3], moved[3]
            for start in range(0, row.size, 32):
                block = row[start : start + 32].astype(np.float64)
                step = (block.max() - block.min()) / 15
                change = np.abs(new[start : start + 32] - block)
                assert change.max() <= step / 2 + 1e-6, (f.name, start)
            assert not np.array_equal(moved, w), f.name  # moved, not copied
    with pytest.raises(ValueError, match="divisible by 32, got 33"):
        decoder.rounding_step(np.zeros((2, 33)))


def test_step_19s_claim_counts_the_rerounded_draws_where_rope_puts_the_sentences_further_apart():
    from posviz import lecture
    from posviz.experiments import whole

    if whole.whole_path() is not None:
        pytest.skip("with the whole SmolLM2 fetched, step 19 runs all 30 layers: the draws are of the first 5")
    drawn = decoder.rerounding()
    assert {len(v) for v in drawn.values()} == {decoder.ROUNDING_DRAWS}
    assert np.all(drawn["both off"] < 1e-5)  # RoPE and mask off: order-blind in every copy, up to float32 rounding
    further = int(np.sum(drawn["RoPE + mask"] > drawn["RoPE off"]))
    shown = lecture.slide([s.key for s in lecture.STEPS].index("decoder"))
    assert shown.claim.endswith(
        f"RoPE (family 2) a little further (in {further} of {decoder.ROUNDING_DRAWS} re-roundings)."
    )
    assert shown.caption.endswith(
        f"A re-rounding: its parameters rounded again as coarsely as stored ({decoder.ROUNDING_DRAWS} in all: a dot "
        "each in 'RoPE + mask minus mask only'; the ring: as stored, as the headlines)."
    )
    assert 0 < further < decoder.ROUNDING_DRAWS  # the shipped copy's order is not every copy's (16 of 20 measured)
