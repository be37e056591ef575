"""One RoPE in posviz: maths.rotary's angles and rotation, used by the pages' formulas, scaling and SmolLM2."""

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from posviz.maths import rotary
from posviz.maths.relative import half_permutation
from posviz.models import blocks, smollm2

ROOT = Path(__file__).resolve().parents[1]
# a rotation of pairs written out: "a * cos - b * sin", or its complex form "x + 1j * y"
ROTATION = re.compile(r"\*\s*cos\w*\s*-\s*[^\n]*\*\s*sin|\+\s*1j\s*\*")


# The training tool's forward pass is written in JAX (traced and differentiated), so it cannot call numpy's
# rotary.rotate; tests/test_matched.py ties the two: posviz's numpy decoder, through rotary.rotate, reproduces the
# per-token losses JAX recorded for every shipped model.
JAX_TRAINER = "tools/matched/model.py"


def test_exactly_one_module_rotates_pairs():
    writers = [
        str(path.relative_to(ROOT))
        for folder in ("posviz", "ui", "app_pages", "tools", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if ROTATION.search(path.read_text(encoding="utf-8"))
    ]
    assert writers == ["posviz/maths/rotary.py", JAX_TRAINER]


def test_the_rotation_pattern_would_catch_a_second_rotation():
    assert ROTATION.search("out[..., 0::2] = even * cos - odd * sin")
    assert ROTATION.search("np.concatenate([first * cos - second * sin, first * sin + second * cos])")
    assert ROTATION.search("h = (q[0:r:2] + 1j * q[1:r:2])")


@pytest.fixture(scope="module")
def model():
    return smollm2.load()


def hf_rows(layer: smollm2.Layer, cfg: smollm2.Config) -> smollm2.Layer:
    return dataclasses.replace(
        layer, w_q=smollm2.gguf_to_hf_rows(layer.w_q, cfg.heads), w_k=smollm2.gguf_to_hf_rows(layer.w_k, cfg.kv_heads)
    )


@pytest.mark.parametrize("interleaved", [True, False])
def test_smollm2_rotates_q_and_k_exactly_as_the_maths_layers_rope(model, interleaved):
    """GGUF rows turned in interleaved pairs, Hugging Face rows in rotate-half: layer_forward's q and k equal
    rotary.rope (the pages' RoPE) of the unrotated projections; both conventions agree dimension for dimension."""
    cfg, ids = model.config, smollm2.tokenize("dog bites man and the man bites back").ids
    layer = model.layers[0] if interleaved else hf_rows(model.layers[0], cfg)
    x = model.embed(ids).astype(np.float64)
    h = blocks.rms_norm(x, layer.attn_norm, cfg.eps)
    _, q, k, _ = smollm2.layer_forward(
        layer, x, rotary.angles(ids.size, cfg.d_k, 7, cfg.base), cfg, interleaved=interleaved, causal=True
    )
    for rotated, w, heads in ((q, layer.w_q, cfg.heads), (k, layer.w_k, cfg.kv_heads)):
        expected = rotary.rope(blocks.split_heads(h @ w.T, heads), 7, cfg.base, interleaved=interleaved)
        np.testing.assert_array_equal(rotated, expected)
    if not interleaved:  # the same q as from the GGUF rows, its dimensions in rotate-half order
        _, q_gguf, _, _ = smollm2.layer_forward(model.layers[0], x, rotary.angles(ids.size, cfg.d_k, 7, cfg.base), cfg)
        np.testing.assert_allclose(q, q_gguf[..., half_permutation(cfg.d_k)], rtol=1e-12, atol=1e-12)


def test_smollm2_forward_calls_the_maths_rotation(model, monkeypatch):
    calls = []
    rotate = rotary.rotate

    def spy(x, theta, **kwargs):
        calls.append((x.shape, kwargs))
        return rotate(x, theta, **kwargs)

    monkeypatch.setattr(rotary, "rotate", spy)
    smollm2.run([1, 504, 3575], layers=2, model=model)
    cfg = model.config
    assert [shape for shape, _ in calls] == [(cfg.heads, 3, cfg.d_k), (cfg.kv_heads, 3, cfg.d_k)] * 2
    assert all(kwargs == {"interleaved": True} for _, kwargs in calls)
