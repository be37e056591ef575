"""The real-model pages (MiniLM's two, SmolLM2's): a takeaway under each chart in both modes, numbers and layer
counts from the models, the word-order curve drawn quick first and whole after."""

import numpy as np
import pytest

from posviz.experiments import decoder
from posviz.models import minilm, smollm2
from posviz.models.minilm import encoder
from tests.test_app import page

TAKE = "Take from it:"


def takeaways(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(TAKE)]


def charts_drawn(at) -> int:
    return len(at.get("vega_lite_chart")) + len(at.get("imgs"))


@pytest.mark.parametrize("presenter", ["false", "true"])
@pytest.mark.parametrize(
    ("name", "query", "count"),
    [
        ("sentences", {}, 2),  # the curve, the layer chart
        ("minilm", {}, 4),  # the table picture, its two curves, the two cosine pictures (one line for both)
        ("minilm", {"part": "sentences"}, 2),  # the weight maps (one line for the four), the distance curve
        ("llm", {"part": "heads"}, 1),
        ("llm", {"part": "distance"}, 1),
        ("llm", {"part": "sink"}, 1),  # one line for the two maps on one scale
        ("llm", {"part": "pairs"}, 1),
        ("llm", {"part": "ablations"}, 1),
        ("llm", {"part": "longer"}, 1),
    ],
)
def test_every_chart_keeps_its_takeaway_in_presenter_mode(name, query, count, presenter):
    at = page(name, presenter=presenter, **query)
    assert not at.exception
    assert len(takeaways(at)) == count, takeaways(at)


def test_the_llm_caption_counts_layers_from_the_model_file_not_from_text(monkeypatch):
    model = smollm2.load()
    at = page("llm")
    captions = "\n".join(c.value for c in at.caption)
    assert f"layers 0-{len(model.layers) - 1} of {model.config.model_layers}," in captions
    monkeypatch.setattr(decoder, "shipped_layers", lambda: (3, 12))
    at = page("llm", part="sink")
    captions = "\n".join(c.value for c in at.caption)
    assert "layers 0-2 of 12," in captions and "layers 0-4 of 30" not in captions
    assert "layers 0-2 on this text; right, all 12 layers" in "\n".join(takeaways(at))


def test_the_pairs_takeaway_names_the_strongest_pair_and_its_wavelength_from_rope():
    reading = decoder.read(decoder.DEFAULT_TEXT)
    top = decoder.strongest_pair(reading, 1)
    config = smollm2.load().config
    assert top.wavelength == pytest.approx(2 * np.pi * config.base ** (2 * top.i / config.d_k))
    shares, _ = reading.energy_shares(1)
    assert top.share == pytest.approx(shares.mean(axis=0).max()) and top.share > 1 / 32
    line = "\n".join(takeaways(page("llm", part="pairs", layer="1")))
    assert f"pair {top.i} holds" in line and f"{top.wavelength:,.0f} tokens" in line


def test_slow_top_pairs_counts_heads_whose_strongest_pair_turns_less_than_once_in_the_context():
    config = smollm2.load().config
    slow = [i for i in range(32) if 2 * np.pi * config.base ** (2 * i / config.d_k) > config.context]
    energy = np.eye(32)[[0, slow[0], 31, 1]]
    assert decoder.slow_top_pairs(energy) == (2, 4)


def test_minilm_table_marks_the_rows_that_stand_out_from_the_data():
    pos = minilm.position_table()
    rows = pos.long_rows(1.3)
    assert all(pos.norms[t] > 1.3 * pos.median_norm for t in rows) and 0 not in rows
    others = np.delete(np.arange(1, 512), np.array(rows) - 1)
    assert (pos.norms[others] <= 1.3 * pos.median_norm).all()
    line = "\n".join(takeaways(page("minilm")))
    assert ", ".join(str(t) for t in rows) in line
    assert pos.median_norm_of(1, 127) == pytest.approx(np.median(pos.norms[1:127]))
    with pytest.raises(ValueError, match="expected 0 <= start < stop"):
        pos.median_norm_of(5, 5)
    assert pos.rises(128) == int(np.sum(np.diff(pos.by_distance[:128]) > 0))
    assert pos.apart(128, sinusoid=True) == pytest.approx(pos.sinusoid_by_distance[127])


def test_the_curve_in_two_calls_is_the_whole_curve_and_they_share_no_scale():
    text = "dog bites man", "man bites dog"
    every, cosines = encoder.curve_texts(*text, 21)
    quick, quick_cos = encoder.curve_texts(*text, 21, every=4)
    rest, rest_cos = encoder.curve_texts(*text, 21, every=4, rest=True)
    assert len(quick) == 6 and len(rest) == 15 and not set(quick) & set(rest)
    merged = np.concatenate([quick, rest])
    order = np.argsort(merged)
    np.testing.assert_array_equal(merged[order], every)
    np.testing.assert_allclose(np.concatenate([quick_cos, rest_cos])[order], cosines, atol=1e-6)


def test_known_points_are_taken_as_given_and_the_rest_is_run():
    text = "dog bites man", "man bites dog"
    scales, cosines = encoder.curve_texts(*text, 21, every=10)
    given, taken = encoder.curve_texts(*text, 21, every=10, known=((0.0, -5.0), (1.0, 7.0), (0.35, 9.0)))
    np.testing.assert_array_equal(given, scales)
    assert taken[0] == -5.0 and taken[-1] == 7.0  # 0.35 is not one of the chosen scales: not used
    assert taken[1] == pytest.approx(cosines[1], abs=1e-6)  # 0.5: run (float32, in a pass of another size)


def curve_data(at) -> dict:
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    return {d.name: convert_arrow_bytes_to_pandas_df(d.data.data) for d in at.get("vega_lite_chart")[0].proto.datasets}


def curve(at) -> tuple[int, str]:
    """The curve chart's points (its first dataset; the second is the marked scale) and its title (a live value)."""
    data = curve_data(at)
    return len(data["posviz_0"]), str(data["posviz_live"]["title"][0])


def test_the_word_order_curve_is_quick_first_and_whole_once_drawn_whole():
    at = page("sentences")
    points, title = curve(at)
    assert points == 3 and "the rest follow" in title
    pair = encoder.compare_texts("dog bites man", "man bites dog")
    quick = curve_data(at)["posviz_0"].set_index("scale")["cosine"]
    assert quick[0.0] == pair.cosine_plain and quick[1.0] == pair.cosine  # taken from the numbers, not run again
    at.session_state["_whole-sentence-curve"] = ("dog bites man", "man bites dog")  # as the fragment's run leaves it
    at.run()
    points, title = curve(at)
    assert points == 21 and title == "sentence cosine against the scale"


@pytest.mark.parametrize(
    ("s1", "s2", "badge", "caption"),
    [
        ("dog bites man", "man bites dog", "the orders differ", "0 up to float64 rounding (size "),
        ("dog bites man", "cat bites dog", "the words differ too", "(not rounding: the word pieces differ)"),
    ],
)
def test_the_word_order_page_calls_1_minus_cosine_rounding_only_when_the_words_are_the_same(s1, s2, badge, caption):
    at = page("sentences", s1=s1, s2=s2)
    assert not at.exception
    shown = "\n".join([*(c.value for c in at.caption), *(m.value for m in at.markdown)])  # badges are markdown
    assert caption in shown and badge in shown
    wrong = "up to float64 rounding" if "not rounding" in caption else "(not rounding"
    assert wrong not in shown
    assert "= -" not in shown  # a rounding-sized gap is never shown as a signed tiny value


@pytest.mark.parametrize("presenter", ["false", "true"])
def test_the_word_order_pages_caveats_stay_on_a_projected_page(presenter):
    at = page("sentences", presenter=presenter)
    shown = "\n".join(m.value for m in at.markdown)
    for caveat in ("**bidirectional**", "**causal**", "not that the model understood who bit whom"):
        assert caveat in shown
