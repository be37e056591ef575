"""Server time to turn numbers into a chart message: Altair objects (the baseline) vs posviz's dicts.

For three charts the pages draw on every slider move (grouped bars, a curve with a marker, an
annotated 8x8 token heatmap), both ways end where Streamlit's element starts: a Vega-Lite dict with
Arrow-serialised datasets. Altair: build the chart, then Streamlit's own conversion
(chart.to_dict() with validation, data to Arrow). posviz: build the dict, style it, `finish`, data
to Arrow. Prints milliseconds per chart (median of --repeats) and the ratio.

    python benchmarks/chart_build.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import altair as alt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from streamlit import dataframe_util  # noqa: E402
from streamlit.elements import vega_charts  # noqa: E402

from posviz import charts, lessons  # noqa: E402

rng = np.random.default_rng(0)
result = lessons.sentence_experiment("dog bites man", "man bites dog")
a, b = result.word_outputs("man", 0.5)
bars = charts.vectors_frame([a, b], ["man in sentence 1", "man in sentence 2"])
scales, distances = lessons.magnitude_curve("dog bites man", "man bites dog", "man")
curve = pd.DataFrame({"scale": scales, "distance": distances})
tokens = charts.labelled("the cat sat on the mat today ok".split())
weights = charts.matrix_frame(rng.dirichlet(np.ones(8), size=8), tokens, tokens)


def altair_charts() -> list[alt.TopLevelMixin]:
    """The same three charts written the usual Altair way (shorthand encodings, layering with +)."""
    grouped = (
        alt.Chart(bars, title="'man' in each sentence")
        .mark_bar()
        .encode(x=alt.X("component:O", axis=alt.Axis(labelAngle=0)), xOffset="vector:N", y="value:Q",
                color=alt.Color("vector:N", legend=alt.Legend(orient="bottom")),
                tooltip=["vector:N", "component:O", alt.Tooltip("value:Q", format=".6g")])
        .properties(width="container", height=260)
    )  # fmt: skip
    point = pd.DataFrame({"x": [0.5], "y": [0.3], "label": ["0.5 → 0.3"]})
    line = alt.Chart(curve, title="distance").mark_line(point=True).encode(x="scale:Q", y="distance:Q")
    marker = (
        alt.Chart(point).mark_rule(color="#D55E00").encode(x="x:Q")
        + alt.Chart(point).mark_point(color="#D55E00", filled=True).encode(x="x:Q", y="y:Q")
        + alt.Chart(point).mark_text(align="left", dx=8).encode(x="x:Q", y="y:Q", text="label:N")
    )
    with_marker = (line + marker).properties(width="container", height=380)
    base = alt.Chart(weights, title="weights").encode(
        x=alt.X("col:O", sort=tokens), y=alt.Y("row:O", sort=tokens), tooltip=["row:N", "col:N", "value:Q"]
    )
    rect = base.mark_rect().encode(color=alt.Color("value:Q", scale=alt.Scale(scheme="viridis", domain=[0, 1])))
    text = base.mark_text().encode(
        text=alt.Text("value:Q", format=".2f"),
        color=alt.condition(alt.datum.value < 0.5, alt.value("white"), alt.value("black")),
    )
    heat = (rect + text).properties(width="container", height=260)
    return [
        c.configure_axis(labelFontSize=12).configure_title(fontSize=15).configure_view(strokeWidth=0)
        for c in (grouped, with_marker, heat)
    ]


def posviz_charts() -> list[dict]:
    return [
        charts.grouped_bars(bars, x="component", y="value", group="vector", title="t", y_title="output"),
        charts.layer(
            charts.lines(curve, x="scale", y="distance", title="distance", x_title="s", y_title="d", height=380),
            charts.marker(0.5, 0.3, "0.5 → 0.3"),
        ),
        charts.token_heatmap(weights, title="weights"),
    ]


def altair_way() -> None:
    for chart in altair_charts():
        vega_charts._convert_altair_to_vega_lite_spec(chart)


def posviz_way() -> None:
    for chart in posviz_charts():
        spec = charts.finish(charts.style(chart))
        for frame in spec["datasets"].values():
            dataframe_util.convert_anything_to_arrow_bytes(frame)


def per_chart_ms(action, repeats: int) -> float:
    action()  # warm caches and imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) / 3 * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    baseline = per_chart_ms(altair_way, args.repeats)
    ours = per_chart_ms(posviz_way, args.repeats)
    print(f"altair {alt.__version__}; median of {args.repeats} runs, 3 charts each\n")
    print("| way | ms per chart | ratio to Altair |")
    print("|---|---|---|")
    print(f"| Altair objects + Streamlit's conversion (baseline) | {baseline:.1f} | 1.00 |")
    print(f"| posviz dicts + finish + Arrow | {ours:.1f} | {ours / baseline:.2f} |")


if __name__ == "__main__":
    main()
