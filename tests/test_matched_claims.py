"""The matched family's claims (22-25): each passes, each says where its expected value comes from, and a perturbed
weight or a gap within the seeds' spread makes one fail."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.experiments import claims as registry
from posviz.experiments import matched as ex
from posviz.models import matched


@pytest.fixture(scope="module")
def losses() -> dict[str, np.ndarray]:
    """Every model's numpy loss on held-out window 0 (ten forward passes, once for the module)."""
    return registry.matched_window0()


@pytest.fixture(scope="module")
def family(losses) -> dict[int, registry.Claim]:
    built = [registry._matched_losses(losses), *registry._matched_order(losses), registry._matched_probe()]
    return {c.number: c for c in built}


def perturbed(model: matched.Model, factor: float = 1.01) -> matched.Model:
    """The same model with its last layer's output projection scaled by factor."""
    weights = dict(model.weights)
    wo = weights["wo"].copy()
    wo[-1] *= np.float32(factor)
    weights["wo"] = wo
    return matched.Model(model.scheme, model.seed, model.config, weights)


def test_the_matched_claims_are_22_to_25_and_every_one_passes(family):
    assert sorted(family) == [22, 23, 24, 25]
    assert max(c.number for c in registry.claims(real_model=False)) == 15  # 16-25 run trained models
    assert [(n, k.label, k.reproduced) for n, c in family.items() for k in c.checks if not k.passed] == []


def test_claim_22_checks_every_scheme_inside_and_past_the_window_against_jaxs_record(family):
    labels = [k.label for k in family[22].checks]
    first, last = ex.bins(matched.config().T_train)[0], ex.bins(matched.config().T_train)[-1]
    for scheme in matched.SCHEMES:
        assert f"{scheme}, positions {first[0]}-{first[1] - 1}" in labels
        assert (f"{scheme}, positions {last[0]}-{last[1] - 1}" in labels) == (scheme != "learned")
    models = matched.provenance()["models"]
    rope = next(k for k in family[22].checks if k.label == "rope, positions 0-127")
    recorded = np.mean([np.mean(models[f"rope-seed{s}"]["window0_losses"][:128]) for s in matched.seeds()])
    assert rope.expected == pytest.approx(recorded, abs=1e-12)  # the expected value is JAX's, read from the record
    assert all(k.tolerance == registry.MATCHED_TOLERANCES["jax"].bound for k in family[22].checks)


def test_a_perturbed_weight_fails_claim_22(losses):
    name = "alibi-seed1"
    changed = dict(losses)
    changed[name] = matched.token_losses(perturbed(matched.load("alibi", 1)), ex.long_windows(1)[0])
    failing = [k.label for k in registry._matched_losses(changed).checks if not k.passed]
    assert failing == ["alibi, positions 0-127", "alibi, positions 512-1023"]


def test_a_gap_within_the_seeds_spread_fails_and_a_gap_beyond_it_passes():
    low, high = np.array([1.0, 1.25]), np.array([1.5, 1.75])  # seed means 1.125 and 1.625, spreads 0.25
    assert registry._above("gap", low, high).reproduced == pytest.approx(0.25)
    assert registry._above("gap", low, high).passed
    assert not registry._above("gap", low, high - 0.3).passed  # a gap of 0.2 is inside the spread


def test_the_orderings_quote_the_training_record_as_recorded_not_as_checks(family):
    models = matched.provenance()["models"]
    inside = np.mean([np.mean(models[f"rope-seed{s}"]["heldout_per_position"][:128]) for s in matched.seeds()])
    assert f"rope {inside:.3f}" in family[23].statement
    assert all(k.kind == "at_least" and k.tolerance == 0.0 for k in (*family[23].checks, *family[24].checks))
    assert "Press et al. 2022" in family[24].origin


def test_a_perturbed_weight_fails_the_probe_claim(monkeypatch: pytest.MonkeyPatch):
    original = matched.load
    monkeypatch.setattr(matched, "load", lambda scheme, seed: perturbed(original(scheme, seed), 1.5))
    claim = registry._matched_probe()
    failing = [k.label for k in claim.checks if not k.passed]
    assert "seed 0: R² after layer 3" in failing and "seed 1: R² after layer 3" in failing


def test_every_matched_tolerance_says_why(family):
    reasons = {t.why for t in registry.MATCHED_TOLERANCES.values()}
    assert all(k.why in reasons for c in family.values() for k in c.checks)
    assert all(c.expected_source and c.page in ("matched", "matched?part=probe") for c in family.values())
