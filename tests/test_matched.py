"""The matched family in numpy (posviz.models.matched) and its experiments (posviz.experiments.matched)."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.experiments import matched as ex
from posviz.models import matched
from tests import matched_reference

MODELS = [(m["scheme"], m["seed"]) for m in matched.provenance()["models"].values()]


def window0(scheme: str) -> np.ndarray:
    """Held-out window 0 as training's evaluation cut it, as far as the scheme reads."""
    ev = matched.provenance()["evaluation"]
    w = matched.windows(ev["window_tokens"], ev["stride"])[0]
    return w[: ex.reach(scheme, len(w) - 1) + 1]


def test_every_scheme_and_at_least_two_seeds_are_shipped() -> None:
    for scheme in matched.SCHEMES:
        assert len([s for s, _ in MODELS if s == scheme]) >= 2, scheme


@pytest.mark.parametrize(("scheme", "seed"), MODELS)
def test_numpy_losses_match_the_losses_jax_recorded_at_training(scheme: str, seed: int) -> None:
    recorded = np.array(matched.provenance()["models"][f"{scheme}-seed{seed}"]["window0_losses"])
    mine = matched.token_losses(matched.load(scheme, seed), window0(scheme))
    np.testing.assert_allclose(mine, recorded, atol=5e-5)  # float32 in both, summed in other orders (2.6e-5 seen)


@pytest.mark.parametrize("scheme", matched.SCHEMES)
def test_numpy_decoder_matches_the_scalar_loop_reference(scheme: str) -> None:
    model = matched.load(scheme, 0)
    tokens = window0(scheme)[:40]
    recipe = matched.provenance()["recipe"]["model"]
    ref = matched_reference.token_losses(model.weights, [int(t) for t in tokens], scheme, recipe)
    np.testing.assert_allclose(matched.token_losses(model, tokens), ref, atol=5e-5)


def test_swapping_the_scheme_on_the_same_weights_changes_the_outputs() -> None:
    model = matched.load("rope", 0)
    ids = matched.encode("The quick brown fox jumps over the lazy dog.")
    own = matched.forward(model, ids).logits
    for other in ("none", "sinusoid", "alibi"):
        assert np.abs(matched.forward(model, ids, scheme=other).logits - own).max() > 1e-2, other


@pytest.mark.parametrize("scheme", ["learned", "sinusoid", "rope", "alibi"])
def test_position_scale_zero_is_the_model_without_position(scheme: str) -> None:
    model = matched.load(scheme, 0)
    ids = matched.encode("dog bites man, man bites dog")
    np.testing.assert_allclose(
        matched.forward(model, ids, position_scale=0.0).logits,
        matched.forward(model, ids, scheme="none").logits,
        atol=1e-5,
    )


def test_the_learned_table_refuses_positions_past_its_last_row() -> None:
    model = matched.load("learned", 0)
    T = model.config.T_train
    with pytest.raises(ValueError, match=rf"has {T} rows .* no row for position {T}"):
        matched.forward(model, np.zeros(T + 1, dtype=int))
    assert matched.forward(model, np.zeros(T, dtype=int)).logits.shape == (T, 256)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: matched.forward(m, np.array([], dtype=int)), "T >= 1"),
        (lambda m: matched.forward(m, np.array([0, 300])), "0..255"),
        (lambda m: matched.forward(m, np.array([0.5, 1.0])), "integers"),
        (lambda m: matched.forward(m, np.array([1, 2]), position_scale=float("nan")), "finite"),
        (lambda m: matched.forward(m, np.array([1, 2]), scheme="t5"), "scheme must be one of"),
        (lambda m: matched.forward(m, np.array([1, 2]), inv_freq=np.ones(3)), "inv_freq must have shape"),
        (lambda m: matched.token_losses(m, np.array([1])), "at least 2 bytes"),
        (lambda m: matched.load("rope", 99), "shipped models"),
        (lambda m: matched.encode(b"bytes"), "str"),
    ],
)
def test_bad_input_is_refused_with_what_was_expected(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(matched.load("rope", 0))


def test_hostile_text_is_read_as_bytes() -> None:
    for text in ("\x00\u202e<script>", "é" * 200, "🙂" * 40):
        ids = matched.encode(text)
        assert ids.max() <= 255 and len(ids) == len(text.encode("utf-8"))
        assert np.isfinite(matched.forward(matched.load("alibi", 0), ids).logits).all()


def test_linear_scaling_by_one_leaves_the_rope_curve_unchanged() -> None:
    plain = ex.heldout_curve("rope", 0, count=2)
    np.testing.assert_allclose(ex.scaled_rope_curve(0, "linear", factor=1.0, count=2), plain, atol=1e-6)


def test_the_learned_curve_stops_at_its_table_and_the_others_reach_8x() -> None:
    T = matched.config().T_train
    assert len(ex.heldout_curve("learned", 0, count=1)) == T
    assert len(ex.heldout_curve("alibi", 0, count=1)) == ex.FACTOR * T


def test_the_bin_table_gives_mean_and_seed_spread_and_nan_past_the_table() -> None:
    T = matched.config().T_train
    curves = {("none", 0): np.full(8 * T, 2.0), ("none", 1): np.full(8 * T, 3.0), ("learned", 0): np.ones(T)}
    rows = {(r.scheme, r.start): r for r in ex.bin_table(curves)}
    assert (rows["none", 0].mean, rows["none", 0].low, rows["none", 0].high) == (2.5, 2.0, 3.0)
    assert np.isnan(rows["learned", T].mean) and rows["learned", 0].mean == 1.0


def test_a_probe_reads_position_from_the_sinusoid_models_input() -> None:
    r2 = ex.position_probe("sinusoid", 0, count=8)
    assert r2.shape == (matched.config().layers + 1,)
    assert r2[0] > 0.5  # the input holds the sinusoid rows: their slow pairs are nearly linear in t
    assert ex.position_probe("none", 0, count=8)[0] < 0.1  # the input of a model without position holds none


def test_the_attention_reading_sums_to_one_per_query() -> None:
    r = ex.attention_reading("alibi", 0, matched.encode("dog bites man " * 12), layer=1, head=2)
    np.testing.assert_allclose(r.weights.sum(-1), 1.0, atol=1e-5)
    assert r.first[0] == pytest.approx(1.0) and (r.recent <= 1 + 1e-6).all()
    ids = matched.encode("dog bites man " * 12)
    a = matched.forward(matched.load("alibi", 0), ids.astype(np.int64), keep=True).weights[1].astype(np.float64)
    t, j = np.indices(a.shape[-2:])
    band = (j <= t) & (j > t - ex.RECENT)  # query t's own key and the RECENT - 1 before it
    np.testing.assert_allclose(r.recent, (a * band).sum(-1).mean(0), atol=1e-12)
    np.testing.assert_allclose(r.first, a[:, :, 0].mean(0), atol=1e-12)
    cached = ex._layer_weights("alibi", 0, ids.tobytes(), 1)
    assert cached.base is None and not cached.flags.writeable  # holds one layer's maps, not a view of all layers'


def test_a_typed_text_is_read_by_every_model_and_the_learned_curve_stops_at_its_table() -> None:
    T = matched.config().T_train
    text = "é" * 100 + "x" * 60  # 260 bytes, past the window
    curves = ex.text_curves(text)
    assert set(curves) == set(matched.names())
    assert len(curves["learned-seed0"]) == T and len(curves["alibi-seed1"]) == 259
    assert all(np.isfinite(c).all() and (c > 0).all() for c in curves.values())
    with pytest.raises(ValueError, match="at least 2 bytes"):
        ex.text_curves("x")


def test_a_typed_text_is_cut_at_max_bytes_without_splitting_a_character() -> None:
    cut = ex.typed("🙂" * 300)  # 1200 bytes
    assert len(cut.encode("utf-8")) <= ex.MAX_BYTES and cut == "🙂" * (ex.MAX_BYTES // 4)
    assert ex.typed("") == "" and ex.typed("\x00<b>") == "\x00<b>"


def test_seed_means_average_each_scheme_over_its_seeds() -> None:
    curves = {
        "rope-seed0": np.array([5.0, 1.0, 3.0]),
        "rope-seed1": np.array([5.0, 3.0, 5.0]),
        "none-seed0": np.ones(3),
    }
    assert ex.mean_past(curves, 1) == {"rope": 3.0, "none": 1.0}
    np.testing.assert_allclose(ex.seed_mean(curves)["rope"], [5.0, 2.0, 4.0])


def test_the_scaling_setups_are_the_core_presets_applied_to_the_rope_models() -> None:
    setups = ex.scaling_setups()
    assert set(setups) == set(ex.SCALING)
    np.testing.assert_allclose(setups["linear"].divisors, ex.FACTOR)  # position interpolation: every pair / factor
    assert setups["yarn"].attention > 1 and setups["linear"].attention == 1.0
    dynamic = setups["dynamic"]
    assert dynamic.base > matched.config().base and dynamic.divisors[0] == pytest.approx(1.0)
    assert np.all(np.diff(dynamic.divisors) > 0)  # NTK: the slower the pair, the more it is slowed
    assert 0 < setups["llama3"].kept < len(setups["llama3"].divisors)


def test_the_family_attention_sums_are_weights_and_leave_the_learned_table_out_past_it() -> None:
    T = matched.config().T_train
    long = ex.family_attention("dog bites man " * 12, 1)  # 168 bytes
    assert set(long) == {f"{s}-seed0" for s in matched.SCHEMES}
    for name, (first, recent) in long.items():
        assert first.shape == recent.shape == ((T,) if name.startswith("learned") else (168,))
        assert ((0 <= first) & (first <= 1 + 1e-6)).all() and ((0 <= recent) & (recent <= 1 + 1e-6)).all()
        assert first[0] == pytest.approx(1.0) and recent[0] == pytest.approx(1.0)  # query 0 sees only itself
    w = ex.head_weights("learned", 0, "dog bites man " * 12, 0, 1)
    assert w.shape == (T, T)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)


def test_the_magnitude_curves_cover_every_model_with_position_and_end_at_the_trained_loss() -> None:
    losses = ex.family_magnitude(count=1)
    models = matched.provenance()["models"]
    assert set(losses) == {k for k, m in models.items() if m["scheme"] != "none"}
    T = matched.config().T_train
    for name, curve in losses.items():
        assert curve.shape == (len(ex.SCALES),)
        w = ex.long_windows(1)[:, : T + 1]
        plain = matched.token_losses(matched.load(models[name]["scheme"], models[name]["seed"]), w).mean()
        assert curve[-1] == pytest.approx(plain, abs=1e-9)  # scale 1 is the model as trained


def test_the_page_draws_every_part_without_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(ex, "WINDOWS", 1)  # one held-out window a model: the page's code, not its statistics
    for part in ("long", "scaling", "probe", "attention", "magnitude"):
        at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app_pages" / "matched.py"))
        at.query_params["part"] = part
        at.run(timeout=300)
        assert not at.exception, (part, [e.value for e in at.exception])
        assert at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart"), part


def test_the_page_falls_back_to_the_default_text_for_one_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app_pages" / "matched.py"))
    at.query_params["part"] = "attention"
    at.query_params["text"] = "x"
    at.run(timeout=120)
    assert not at.exception
    assert any("at least 2 bytes" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("part", "text"),
    [
        ("long", ""),
        ("long", "é" * 700),
        ("attention", "\x00\u202e<script>alert(1)</script>"),
        ("attention", "a" * 1000),
    ],
    ids=["long-empty", "long-1400-bytes", "attention-controls", "attention-1000-bytes"],
)
def test_the_page_reads_hostile_typed_text(monkeypatch: pytest.MonkeyPatch, part: str, text: str) -> None:
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(ex, "WINDOWS", 1)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app_pages" / "matched.py"))
    at.query_params["part"] = part
    at.query_params["text"] = text
    at.run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    charts = at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart")
    assert len(charts) >= 2
    if not text:
        assert any("at least 2 bytes" in i.value for i in at.info)
    else:
        n = min(len(text.encode("utf-8")), ex.MAX_BYTES)
        assert any(f"{n} bytes" in m.value for m in at.markdown), n


def test_the_learned_line_is_drawn_again_on_top_dashed() -> None:
    from posviz.drawing import figures

    T = matched.config().T_train
    fig = figures.heldout_by_position({"learned-seed0": np.ones(T), "rope-seed0": np.ones(8 * T)}, T)
    layers = fig.builder(*fig.frames, **fig.shape).to_dict()["layer"]
    dashed = [layer for layer in layers if isinstance(layer.get("mark"), dict) and layer["mark"].get("strokeDash")]
    assert len(dashed) == 1 and dashed[0]["transform"] == [{"filter": {"field": "scheme", "oneOf": ["learned"]}}]
    assert layers.index(dashed[0]) > 0  # after the lines it would hide under


def test_a_short_text_still_gets_a_line_of_several_points() -> None:
    from posviz.drawing import figures

    fig = figures.attention_on_first({"rope-seed0": np.ones(6)}, 128, layer=0)
    assert len(fig.frames[0]) == 6  # one point a position, not one 8-position mean


def test_the_head_picture_keeps_every_weight_of_a_short_text_and_clips_a_long_one() -> None:
    from posviz.drawing import figures

    w = ex.head_weights("rope", 0, "dog bites man", 0, 1)
    fig = figures.attention_picture(w, 128, title="t")
    np.testing.assert_allclose(fig.cells.values, w)
    long = figures.attention_picture(ex.head_weights("alibi", 0, "dog bites man " * 40, 2, 3), 128, title="t")
    assert long.cells.values.size <= 16_384 and long.shape["domain"][1] < 1.0


def test_a_forward_cut_after_a_layer_gives_that_layers_attention_unchanged():
    model = matched.load("alibi", 0)
    ids = matched.encode("The first layers of a decoder do not read the later ones.")
    whole = matched.forward(model, ids, keep=True)
    cut = matched.forward(model, ids, keep=True, layers=2)
    assert cut.weights.shape[0] == 2 and cut.hidden.shape[0] == 3
    np.testing.assert_array_equal(cut.weights[1], whole.weights[1])
    assert not np.allclose(cut.logits, whole.logits)  # the cut pass did not run layers 2 and 3
    for bad in (0, matched.config().layers + 1):
        with pytest.raises(ValueError, match=f"expected layers in 1..{matched.config().layers}, got {bad}"):
            matched.forward(model, ids, layers=bad)
