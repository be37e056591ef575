"""SmolLM2's claims in the registry: each passes, each fails when its input is broken, each says its source."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from posviz.experiments import claims as registry
from posviz.experiments import decoder
from posviz.maths import rotary, verdicts
from posviz.models import blocks, smollm2


@pytest.fixture(scope="module")
def smol():
    """SmolLM2's claims, by number (built once for the module: the registry is rebuilt on every call)."""
    name = f"the real model {smollm2.NAME} ({smollm2.PRECISION})"
    return {c.number: c for c in registry.claims() if name in c.statement}


@pytest.fixture(scope="module")
def model():
    return smollm2.load()


@pytest.fixture(scope="module")
def ids(model):
    return smollm2.tokenize(registry.SMOLLM2_TEXT, model=model).ids


def test_smollm2_claims_follow_minilms_and_every_one_passes(smol):
    numbers = sorted(smol)
    first_after_minilm = max(c.number for c in registry.claims() if "MiniLM" in c.statement) + 1
    assert numbers == list(range(first_after_minilm, first_after_minilm + len(numbers))) and len(numbers) >= 4
    assert [(n, k.label, k.reproduced) for n, c in smol.items() for k in c.checks if not k.passed] == []


def test_each_smollm2_claim_names_its_model_precision_source_and_page(smol):
    provenance = json.loads((smollm2.DATA / "provenance.json").read_text())
    assert provenance["source_gguf_sha256"].startswith(smollm2.SOURCE.split("sha256 ")[1].rstrip("…)"))
    for claim in smol.values():
        assert "Q4_1 weights, Q8_0 token table, dequantized to float32" in claim.statement
        assert smollm2.SOURCE in claim.origin and claim.page == "llm" and claim.expected_source


def test_every_bound_of_a_smollm2_check_is_registry_data_with_its_reason(smol):
    bounds = {t.bound for t in registry.SMOLLM2_TOLERANCES.values()}
    for check in (k for c in smol.values() for k in c.checks if k.kind in ("at_most", "at_least")):
        assert check.why in {t.why for t in registry.SMOLLM2_TOLERANCES.values()}
        assert check.tolerance in bounds or check.label.startswith(f"layer {registry.SMOLLM2_SINK_LAYER}:")
    assert all(t.why and t.bound > 0 for t in registry.SMOLLM2_TOLERANCES.values())


def test_an_at_least_check_passes_only_at_or_above_its_bound():
    assert registry.Check("gap", 0.1, 0.1, "at_least", 0.1).passed
    assert not registry.Check("gap", 0.1, 0.099, "at_least", 0.1).passed
    assert registry.Check("gap", 0.1, 0.5, "at_least", 0.1).tolerance_text == ">= 0.1"


def bound(name: str) -> float:
    return registry.SMOLLM2_TOLERANCES[name].bound


def test_with_rotation_on_and_no_mask_the_equivariance_claim_would_fail(model, ids):
    perm = decoder.reversal(ids)
    hidden, weights = decoder.reordered_gaps(
        ids, perm, layers=len(model.layers), model=model, rotation="rope", causal=False
    )
    assert hidden.max() > 100 * bound("equivariant") and weights.max() > 100 * bound("equivariant")


def test_without_the_mask_the_order_claim_would_fail(model, ids):
    hidden, _ = decoder.reordered_gaps(ids, decoder.reversal(ids), layers=1, model=model, rotation="none", causal=False)
    assert hidden[0] < bound("order") / 1000


def test_without_rotation_a_shift_moves_nothing_so_the_shift_claim_would_fail(model, ids):
    plain = smollm2.run(ids, layers=1, rotation="none", model=model)
    shifted = smollm2.run(ids, layers=1, rotation="none", start=registry.SMOLLM2_SHIFT, model=model)
    assert decoder.layer_gaps(shifted.q, plain.q).max() < bound("moved") / 1000  # "the rotated queries move" fails


def test_a_shift_of_the_keys_alone_breaks_the_invariance(model, ids):
    cfg, layer = model.config, model.layers[0]
    h = blocks.rms_norm(model.embed(ids), layer.attn_norm, cfg.eps)
    angles = rotary.angles(ids.size, cfg.d_k, 0, cfg.base)
    q = rotary.rotate(blocks.split_heads(h @ layer.w_q.T, cfg.heads), angles)
    k = blocks.split_heads(h @ layer.w_k.T, cfg.kv_heads)
    same = blocks.attention_weights(q, rotary.rotate(k, angles), causal=True)
    shifted = rotary.angles(ids.size, cfg.d_k, registry.SMOLLM2_SHIFT, cfg.base)
    moved = blocks.attention_weights(q, rotary.rotate(k, shifted), causal=True)
    assert np.abs(moved - same).max() > 1000 * bound("shift")


def test_the_sink_claim_would_fail_in_a_layer_without_a_sink(smol, model, ids):
    weights = smollm2.run(ids, layers=2, model=model).weights
    uniform = np.mean(1 / (np.arange(decoder.FIRST_QUERY, ids.size) + 1))
    layer_1 = decoder.sink_weight(weights[1], first=decoder.FIRST_QUERY).mean()
    assert layer_1 < uniform < bound("sink") * uniform  # layer 1's weight on token 0 is below uniform's share
    sink = next(k for c in smol.values() for k in c.checks if "token 0" in k.label)
    assert sink.tolerance == pytest.approx(bound("sink") * uniform)


def test_a_tokenizer_without_the_digit_split_fails_the_tokenizer_claim(smol, model):
    check = next(k for c in smol.values() for k in c.checks if "llama.cpp" in k.label)
    broken = smollm2.Tokenizer.from_str(model.tokenizer.to_str())
    broken.pre_tokenizer = smollm2.pre_tokenizers.ByteLevel(add_prefix_space=False)
    cases = json.loads((smollm2.DATA / "llama_cpp_ids.json").read_text())["cases"]
    matching = sum(broken.encode(c["text"]).ids == c["ids"] for c in cases if not c["special"])
    assert check.expected == check.reproduced and matching < check.expected


def test_the_whole_model_checks_are_shown_as_recorded_and_are_not_claims(smol):
    recorded = registry.recorded_at_extraction()
    checks = json.loads((smollm2.DATA / "provenance.json").read_text())["whole_model_checks"]
    assert [r.value for r in recorded][:2] == [f"' Paris' (p {c['top5'][0]['p']})" for c in checks["next_tokens"]]
    losses = checks["loss"]["loss_nats"]
    assert recorded[-1].value.startswith(str(losses["interleaved (2i, 2i+1)"]))
    order = ("interleaved (2i, 2i+1)", "rotate-half (i, i+32)", "none (every angle 0)")
    assert sorted(losses.values()) == [losses[k] for k in order]  # the ordering the row states
    assert not any("Paris" in c.statement or "loss" in c.statement for c in smol.values())


def test_verify_prints_the_recorded_numbers_labelled_and_ends_on_the_claim_count(tmp_path):
    empty = {**os.environ, "POSVIZ_CACHE": str(tmp_path)}  # no fetched whole model: the rows as recorded
    run = subprocess.run(
        [sys.executable, "-m", "posviz", "verify"], capture_output=True, text=True, check=False, env=empty
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    total = len(registry.claims())
    assert lines[-1] == f"{total} of {total} claims pass"
    recorded = next(i for i, line in enumerate(lines) if line.startswith("Recorded at extraction, not reproduced"))
    assert recorded > max(i for i, line in enumerate(lines) if line.rstrip().endswith("PASS"))
    assert any("' Paris'" in line for line in lines[recorded:])
    assert registry.SMOLLM2_TOLERANCES["equivariant"].why in run.stdout  # the reason printed under its claim


def test_the_claims_and_the_page_share_one_float32_bound_and_one_sink_rule():
    assert bound("equivariant") == bound("shift") == verdicts.FLOAT32_ROUNDING
    assert bound("sink") == verdicts.SINK_FACTOR
    assert verdicts.float32_zero(bound("shift")) and not verdicts.float32_zero(2 * bound("shift"))
