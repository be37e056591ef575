"""The word-order page's Altair builders: valid Vega-Lite compiled and plain, data only through fields."""

import json

import pytest
from altair.vegalite.v6.schema.core import Root

from posviz.drawing import engine, frames
from posviz.drawing import sentence_charts as sc


def cosine_chart(scale: float, cosine: float):
    curve = frames.scale_frame([0.0, 0.5, 1.0], [1.0, 0.97, 0.9])
    return (sc.cosine_against_scale, [curve, frames.here_frame(scale, cosine)], dict(title="cosine against the scale"))


def layer_chart():
    frame = frames.layer_distance_frame([0.0, 0.1, 0.2], [0.0, 0.0, 0.0], labels=("the model", "no position"))
    return (sc.layer_distances, [frame], dict(title="layer by layer", y_title="1 - cosine"))


@pytest.mark.parametrize("make", [lambda: cosine_chart(0.5, 0.97), layer_chart])
@pytest.mark.parametrize("presenter", [False, True])
def test_each_builder_compiles_to_valid_vega_lite_and_draws_in_a_notebook(make, presenter):
    builder, frames, shape = make()
    Root.validate(engine.inline(engine.chart_spec(builder, *frames, presenter=presenter, **shape)))
    Root.validate(engine.style(builder(*frames, **shape)).to_dict())


def test_moving_the_scale_changes_only_the_data_not_the_spec():
    builder, frames, shape = cosine_chart(0.5, 0.97)
    first = engine.chart_spec(builder, *frames, **shape)
    builder, frames, shape = cosine_chart(0.95, 0.91)
    second = engine.chart_spec(builder, *frames, **shape)
    assert {k: v for k, v in first.items() if k != "datasets"} == {k: v for k, v in second.items() if k != "datasets"}
    assert "0.97" not in json.dumps({k: v for k, v in first.items() if k != "datasets"})
    assert second["datasets"]["posviz_1"]["label"].tolist() == ["0.95 \u2192 0.91"]


def test_layer_distance_frame_is_long_form_with_both_runs():
    frame = frames.layer_distance_frame([0.0, 0.1, 0.2], [0.0, 0.0, 0.0], labels=("the model", "no position"))
    assert list(frame.columns) == ["layer", "distance", "run"]
    assert frame.groupby("run").size().to_dict() == {"no position": 3, "the model": 3}
