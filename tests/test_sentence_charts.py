"""The real-model page's Altair builders: valid Vega-Lite, data only through fields."""

import json

import altair as alt

from posviz import sentence_charts as sc


def test_cosine_chart_is_valid_and_marks_the_current_scale_from_its_data():
    curve = sc.scale_frame([0.0, 0.5, 1.0], [1.0, 0.97, 0.9])
    spec = sc.cosine_against_scale(curve, sc.here_frame(0.5, 0.97), title="t").to_dict()  # validates
    assert len(spec["layer"]) == 4
    rows = [row for values in spec["datasets"].values() for row in values]
    assert {"scale": 0.5, "cosine": 0.97, "label": "0.5 \u2192 0.9700"} in rows  # the label travels as data
    assert "0.97" not in json.dumps({k: v for k, v in spec.items() if k != "datasets"})


def test_builders_depend_on_data_only_by_name():
    one = sc.cosine_against_scale(alt.NamedData("curve"), alt.NamedData("here"), title="t").to_dict()
    two = sc.cosine_against_scale(alt.NamedData("curve"), alt.NamedData("here"), title="t").to_dict()
    assert one == two and "datasets" not in one
    layers = sc.layer_distances(alt.NamedData("layers"), title="t", y_title="1 - cosine").to_dict()
    assert layers["encoding"]["x"]["field"] == "layer" and layers["encoding"]["x"]["type"] == "ordinal"


def test_layer_distance_frame_is_long_form_with_both_runs():
    frame = sc.layer_distance_frame([0.0, 0.1, 0.2], [0.0, 0.0, 0.0], labels=("the model", "no position"))
    assert list(frame.columns) == ["layer", "distance", "run"]
    assert frame.groupby("run").size().to_dict() == {"no position": 3, "the model": 3}
    sc.layer_distances(frame, title="t", y_title="y").to_dict()
