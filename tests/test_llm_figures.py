"""The real RoPE model page's numbers and figures: what experiments.decoder measures and what each builder's spec
draws."""

import json

import numpy as np
import pytest

from posviz.drawing import engine, frames, llm_figures
from posviz.experiments import decoder
from posviz.maths import verdicts
from posviz.models import smollm2


@pytest.fixture(scope="module")
def reading():
    return decoder.read(decoder.DEFAULT_TEXT)


def spec(figure) -> dict:
    return engine.inline(engine.chart_spec(figure.builder, *figure.frames, presenter=True, **figure.shape))


def test_the_default_text_finds_the_shipped_previous_token_heads(reading):
    assert decoder.positional_heads(reading, "previous-token") == ["1.2", "2.1"]
    previous = decoder.previous_weight(reading.trace.weights, first=decoder.FIRST_QUERY)
    assert reading.previous[1, 2] == pytest.approx(previous[1, 2])
    assert reading.tokens.im_start and reading.T == 19


def test_head_panels_are_one_facet_of_nine_pictures_on_the_weight_scale(reading):
    figure = llm_figures.head_panels(reading, 1, across=1120, columns=9, legend="right")
    s = spec(figure)
    assert "facet" in s and s["columns"] == 9
    frame = figure.frames[0]
    assert (frame["kind"] == "picture").sum() == 9 and frame["url"].str.startswith("data:image/png").sum() == 9
    assert frame.loc[frame["kind"] == "corner", "value"].tolist() == [0.0, 1.0] * 9
    assert "1.2 · t−1" in set(frame["panel"])
    assert len(figure.table) == 9 * 19 * 19  # the CSV keeps every weight
    assert '"image"' in json.dumps(s) and '"rect"' not in json.dumps(s)


def test_distance_profile_draws_a_line_a_head_coloured_by_role(reading):
    figure = llm_figures.by_distance(reading, 1)
    frame = figure.frames[0]
    assert frame["head"].nunique() == 9 and set(frame["series"]) == {"1.2 previous-token", "other heads"}
    s = json.dumps(spec(figure))
    assert '"detail"' in s and '"field": "series"' in s


def test_sink_figures_label_live_and_extraction(reading):
    live = llm_figures.sink_live(reading)
    model = llm_figures.sink_model(decoder.whole_model())
    assert live.frames[0].shape[0] == 5 * 9 and model.frames[0].shape[0] == 30 * 9
    assert "live" in live.shape["title"] and "extraction" in model.shape["title"]
    assert live.shape["style"].annotate and not model.shape["style"].annotate
    # side by side: one colour, one weight
    assert live.shape["style"].domain == model.shape["style"].domain == (0.0, 1.0)
    label = llm_figures.extraction_label(decoder.whole_model())
    assert "tools/extract_smollm2.py" in label and "8 texts" in label and "with <|im_start|>" in label


def test_whole_model_statistics_name_the_first_first_token_layer():
    assert decoder.whole_model().first_sink_layer == 12
    assert decoder.whole_model(False).im_start is False


def test_pair_shares_sum_to_one_per_head_with_fast_pairs_first(reading):
    shares, names = decoder.energy_shares(reading.trace.q[2], reading.trace.k[2])
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    assert names[0] == "q head 0" and names[-1] == "k head 2" and shares.shape == (12, 32)
    figure = llm_figures.pair_shares(reading, 2)
    assert figure.frames[0]["col"].iloc[0] == "0"
    assert decoder.leaning_heads(reading.q_energy)[:2] == ["1.2", "2.1"]


def test_ablations_show_order_through_the_mask_equivariance_and_shift_invariance(reading):
    result = decoder.ablation_gaps(reading.tokens.ids, k=1000, base=reading.trace)
    assert decoder.order_gap(result) > 0.1
    assert verdicts.float32_zero(decoder.equivariance_gap(result)) and verdicts.float32_zero(decoder.shift_gap(result))
    assert result.perm[0] == 0 and result.perm[1] == reading.T - 1
    frame = frames.ablation_frame(result)
    assert frame["ablation"].nunique() == 3 and (frame["shown"] > 0).all()
    assert '"scale": {"type": "log"}' in json.dumps(spec(llm_figures.ablation_gaps(result)))


@pytest.mark.parametrize("preset", sorted(decoder.SCALINGS))
def test_a_scaling_preset_on_a_real_pair_keeps_the_unscaled_curve_as_trained(reading, preset):
    pair = decoder.real_pair(reading, 1, 2)
    logits = decoder.scaled_logits(pair, decoder.SCALINGS[preset])
    frame = frames.logit_frame(logits)
    unscaled = frame[frame["curve"].str.startswith("unscaled")]
    assert unscaled["distance"].max() == 4 * 8192 and frame["curve"].nunique() == 2
    # the real pair's logit at distance 1 is the model's own score of the last token with the one before
    trace = reading.trace
    direct = float(trace.q[1, 2, -1] @ trace.k[1, 0, -2]) / 8.0
    assert unscaled["score"].iloc[0] == pytest.approx(direct, rel=1e-4, abs=1e-4)
    figure = llm_figures.scaled_scores(logits)
    assert figure.shape["log_x"] and "trained window 8,192" in figure.frames[1]["label"].iloc[0]


def test_every_llm_figure_compiles_to_a_valid_spec(reading):
    from altair.vegalite.v6.schema.core import Root

    whole = decoder.whole_model()
    figures = [
        llm_figures.head_panels(reading, 0, across=820, columns=3, legend="bottom"),
        llm_figures.by_distance(reading, 2),
        llm_figures.sink_live(reading),
        llm_figures.sink_model(whole),
        llm_figures.pair_shares(reading, 1),
        llm_figures.model_fast_share(whole),
        llm_figures.ablation_gaps(decoder.ablation_gaps(reading.tokens.ids, k=7, base=reading.trace)),
        llm_figures.scaled_scores(decoder.scaled_logits(decoder.real_pair(reading, 2, 1), decoder.SCALINGS["llama3"])),
        llm_figures.head_profile_rope_off(reading, decoder.rope_off(reading), 1, 2),
    ]
    for figure in figures:
        Root.validate(spec(figure))


@pytest.mark.parametrize("text", ["", " ", "x", "\n\t"])
def test_text_too_short_to_measure_is_a_value_error(text):
    with pytest.raises(ValueError, match="whitespace|at least 3"):
        decoder.read(text)


def test_the_fed_line_shows_control_characters_and_says_which_ids():
    tokens = smollm2.tokenize("bell\x07 ok", im_start=False)
    line = decoder.fed_line(tokens)
    assert "no <|im_start|>" in line and "\\x07" in line and "\x07" not in line
    assert decoder.fed_line(smollm2.tokenize("the dog " * 40), limit=50).endswith("…")


def test_live_head_statistics_read_the_queries_the_extraction_reads(reading):
    assert reading.T > decoder.FIRST_QUERY and reading.first == decoder.FIRST_QUERY
    np.testing.assert_allclose(reading.sink, decoder.sink_weight(reading.trace.weights, first=decoder.FIRST_QUERY))
    assert f"t ≥ {decoder.FIRST_QUERY}" in decoder.ROLE_RULE


def test_a_text_of_at_most_four_tokens_falls_back_to_queries_from_1_with_a_note():
    short = decoder.read("dog bites man")  # 4 ids with <|im_start|>
    assert short.first == 1
    np.testing.assert_allclose(short.previous, decoder.previous_weight(short.trace.weights, first=1))
    assert any("t ≥ 1" in note for note in short.notes)


def test_the_sink_caption_says_why_the_maps_differ_with_both_means_computed(reading):
    whole = decoder.whole_model()
    line = llm_figures.sink_difference(reading, whole)
    live, extracted = reading.sink.mean(), whole.sink[: reading.sink.shape[0]].mean()
    assert "more keys" in line and f"{reading.T} tokens" in line and f"{whole.text_count} longer texts" in line
    assert f"{live:.2f}" in line and f"{extracted:.2g}" in line


def test_the_ablation_chart_ticks_whole_layers_with_its_legend_underneath(reading):
    s = spec(llm_figures.ablation_gaps(decoder.ablation_gaps(reading.tokens.ids, k=7, base=reading.trace)))
    text = json.dumps(s)
    assert '"tickMinStep": 1' in text and '"format": "d"' in text
    assert '"orient": "bottom"' in text and '"labelLimit": 360' in text


def test_the_distance_profile_at_distance_1_is_the_headline_previous_weight(reading):
    profile = decoder.by_distance(reading.trace.weights, first=reading.first)  # (L, H, T)
    np.testing.assert_allclose(profile[..., 1], reading.previous, rtol=1e-6)


def test_the_rope_off_profile_sets_each_distance_beside_the_same_head_run_without_rotation(reading):
    """Step 20's bars: the head as run (its t − 1 bar the headline) beside the same tokens with every angle 0 and the
    mask kept, recomputed here from smollm2.run, not from decoder.rope_off."""
    fig = llm_figures.head_profile_rope_off(reading, decoder.rope_off(reading), 1, 2)
    bars = fig.frames[0].pivot(index=llm_figures.DISTANCE, columns="run", values="mean weight")
    off = smollm2.run(reading.tokens.ids, layers=reading.trace.weights.shape[0], rotation="none").weights[1, 2]
    first = reading.first
    expected = [np.mean([off[t, t - n] for t in range(max(first, n), reading.T)]) for n in range(16)]
    assert np.allclose(bars["RoPE off"].to_numpy(), expected, atol=1e-7)
    assert np.allclose(bars["RoPE on"].to_numpy(), reading.by_distance(1)[2, :16])
    assert bars["RoPE on"][1] > decoder.ROLE_THRESHOLD > bars["RoPE off"][1]  # the claim, read off the bars
    assert [run for run, _ in fig.shape["colours"]] == ["RoPE on", "RoPE off"]
