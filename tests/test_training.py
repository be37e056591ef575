"""tools/train_matched.py: a few steps of a tiny model per scheme lower the loss; bad configurations are refused.

And the shipped family (posviz/data/matched/) matches its provenance.json: names, shapes, hashes, size.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

# XLA's CPU compiler without its slower passes: a third of the compile time for these tiny models (the numbers
# checked here do not depend on it). It only takes effect when this module is the first to import JAX.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tools import train_matched  # noqa: E402
from tools.matched import data, export, model, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "posviz" / "data" / "matched"
TINY = {"layers": 1, "d": 16, "heads": 2, "mlp": 32, "T_train": 16}
REFERENCE_ATOL = 5e-5  # nats: about 8 times the largest difference measured (6.4e-6, float32 against float64)


@pytest.fixture(scope="module")
def tiny_split() -> data.Split:
    return data.split(TINY["T_train"])


@pytest.mark.parametrize("scheme", model.SCHEMES)
def test_a_few_steps_lower_the_loss(scheme: str, tiny_split: data.Split) -> None:
    cfg = model.Config(scheme=scheme, **TINY).check()
    r = train.Recipe(steps=12, batch=8, lr=1e-2, warmup=2, log_every=4, eval_every=12).check()
    text = np.frombuffer(tiny_split.train, dtype=np.uint8)
    starts = data.batch_starts(0, r.steps, r.batch, len(text), cfg.T_train)
    heldout, _ = data.eval_windows(tiny_split.heldout, cfg.T_train, 4 * cfg.T_train)
    _, record = train.train(cfg, r, model.init_params(cfg, 0), text, starts, heldout[:16], say=lambda _: None)
    first, last = record["train_loss"][0][1], record["train_loss"][-1][1]
    assert last < first - 0.3, record["train_loss"]
    assert np.isfinite(record["heldout_loss"][-1][1])


def test_every_scheme_starts_from_the_same_weights() -> None:
    base = model.init_params(model.Config(scheme="none", **TINY), 3)
    for scheme in model.SCHEMES:
        params = model.init_params(model.Config(scheme=scheme, **TINY), 3)
        extra = {"pos_emb"} if scheme == "learned" else set()
        assert set(params) == set(base) | extra
        for name in base:
            np.testing.assert_array_equal(np.asarray(params[name]), np.asarray(base[name]))


def test_the_seed_changes_the_weights_and_the_batches() -> None:
    cfg = model.Config(**TINY)
    a, b = model.init_params(cfg, 0), model.init_params(cfg, 1)
    assert not np.array_equal(np.asarray(a["wq"]), np.asarray(b["wq"]))
    assert not np.array_equal(data.batch_starts(0, 3, 4, 1000, 16), data.batch_starts(1, 3, 4, 1000, 16))


def test_rope_refuses_an_odd_head_width() -> None:
    with pytest.raises(ValueError, match="head width d / heads must be even, got 3"):
        model.Config(scheme="rope", d=24, heads=8).check()


def test_an_unknown_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="scheme must be one of none, learned, sinusoid, rope, alibi, got 't5'"):
        model.Config(scheme="t5").check()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--schemes", "rope", "--d", "24", "--heads", "8"], "head width d / heads must be even, got 3"),
        (["--schemes", "none,rotary"], "got 'rotary'"),
        (["--steps", "10", "--warmup", "10"], "warmup must be in [0, steps = 10), got 10"),
        (["--seeds", "0,one"], "--seeds must be comma-separated integers"),
    ],
)
def test_the_tool_refuses_a_bad_configuration_before_training(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert train_matched.main([*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_the_learned_table_refuses_positions_past_its_rows() -> None:
    cfg = model.Config(scheme="learned", **TINY)
    params = model.init_params(cfg, 0)
    with pytest.raises(ValueError, match="learned table has 16 rows, so T must be at most that, got 17"):
        model.forward(params, np.zeros((1, 17), dtype=np.int32), cfg)


def test_heldout_topics_are_whole_long_enough_and_never_trained_on(tiny_split: data.Split) -> None:
    split = data.split(128)
    assert split.heldout and set(split.heldout).isdisjoint(split.train_topics)
    assert all(len(text) >= 8 * 128 + 1 for text in split.heldout.values())
    assert all(text not in split.train for text in split.heldout.values())
    assert data.split(128).train_sha256 == split.train_sha256


def test_reproduction_is_refused_on_other_text(tiny_split: data.Split) -> None:
    shipped = {"data": dict(tiny_split.record(), train_sha256="0" * 64, python="3.0.0")}
    with pytest.raises(SystemExit, match="different pydoc_data text"):
        train_matched.refuse_other_data(shipped, tiny_split)


def test_the_schedule_warms_up_then_decays_to_its_floor() -> None:
    r = train.Recipe(steps=100, lr=1e-3, warmup=10, min_lr_ratio=0.1)
    lrs = [float(train.learning_rate(np.float32(t), r)) for t in range(100)]
    assert lrs[9] == pytest.approx(1e-3) and lrs[0] == pytest.approx(1e-4)
    assert lrs[-1] == pytest.approx(1e-4, rel=1e-4)
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:], strict=False))


def shipped_provenance() -> dict:
    path = SHIPPED / "provenance.json"
    if not path.exists():
        pytest.skip("posviz/data/matched/ has no provenance.json yet")
    return json.loads(path.read_text())


def test_shipped_files_match_their_provenance() -> None:
    prov = shipped_provenance()
    rec = prov["recipe"]["model"]
    L, d, m, T = rec["layers"], rec["d"], rec["mlp"], rec["T_train"]
    shapes = {"tok_emb": (256, d), "pos_emb": (T, d), "lnf_scale": (d,), "lnf_bias": (d,)}
    shapes |= {k: (L, d) for k in ("ln1_scale", "ln1_bias", "ln2_scale", "ln2_bias")}
    shapes |= {k: (L, d, d) for k in ("wq", "wk", "wv", "wo")} | {"w_up": (L, d, m), "w_down": (L, m, d)}
    for name, entry in prov["models"].items():
        path = SHIPPED / entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], name
        arrays = export.load(path)
        assert set(arrays) == set(model.PARAM_SHAPES) - ({"pos_emb"} if entry["scheme"] != "learned" else set())
        assert all(arrays[k].shape == shapes[k] for k in arrays), name
        reach = T if entry["scheme"] == "learned" else prov["evaluation"]["window_tokens"]
        assert len(entry["heldout_per_position"]) == reach == len(entry["window0_losses"])
    total = sum(p.stat().st_size for p in SHIPPED.iterdir())
    assert total <= 20 * 2**20, f"posviz/data/matched/ holds {total} bytes, the budget is 20 MiB"


def test_shipped_heldout_text_is_the_text_the_hashes_name() -> None:
    prov = shipped_provenance()
    topics = json.loads((SHIPPED / "heldout.json").read_text(encoding="utf-8"))["topics"]
    assert sorted(topics) == prov["data"]["heldout_topics"]
    joined = data.SEPARATOR.join(topics[k].encode("utf-8") for k in sorted(topics))
    assert hashlib.sha256(joined).hexdigest() == prov["data"]["heldout_sha256"]


def test_the_recipe_recorded_is_the_tools_default() -> None:
    prov = shipped_provenance()
    assert prov["recipe"]["optimiser"] == dataclasses.asdict(train.Recipe())
    model_record = dataclasses.asdict(model.Config())
    model_record.pop("scheme")
    assert prov["recipe"]["model"] == model_record


def window0_tokens(prov: dict) -> list[int]:
    """The bytes of held-out window 0 (its topic and start are in provenance.json), from the shipped heldout.json."""
    topic, start = prov["evaluation"]["first_windows"][0]
    text = json.loads((SHIPPED / "heldout.json").read_text(encoding="utf-8"))["topics"][topic].encode("utf-8")
    return list(text[start : start + prov["evaluation"]["window_tokens"] + 1])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("scheme", model.SCHEMES)
def test_the_scalar_reference_matches_the_losses_jax_recorded(scheme: str, seed: int) -> None:
    from tests import matched_reference

    prov = shipped_provenance()
    name = f"{scheme}-seed{seed}"
    if name not in prov["models"]:
        pytest.skip(f"{name} is not shipped")
    entry, T = prov["models"][name], prov["recipe"]["model"]["T_train"]
    # seed 0 a little past the training window (the table's last row for learned), seed 1 a short prefix: speed
    n = (T if scheme == "learned" else T + 4) if seed == 0 else 24
    weights = export.load(SHIPPED / entry["file"])
    losses = matched_reference.token_losses(weights, window0_tokens(prov)[: n + 1], scheme, prov["recipe"]["model"])
    np.testing.assert_allclose(losses, entry["window0_losses"][:n], rtol=0, atol=REFERENCE_ATOL)
