"""Server time to turn numbers into a chart message: plain Altair (the baseline) against posviz's compiled templates.

For four charts the pages redraw on slider moves (grouped bars, a curve with a marker, an annotated
8x8 token heatmap, a block-mean grid heatmap), every way ends where Streamlit's element starts: a
Vega-Lite dict with Arrow-serialised datasets.

(a) plain Altair: build the chart the usual Altair way, then Streamlit's own conversion
    (chart.to_dict() with validation, data to Arrow). What a page would pay on every rerun.
(b) posviz, first build: compile the template from the same Altair builder (cache cleared), bind the
    data, data to Arrow. Paid once per process and shape.
(c) posviz, warm rerun: the template is cached; bind the data, data to Arrow. Paid on every rerun.

Prints milliseconds per chart (median of --repeats) and the ratios to (a).

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

from benchmarks.conditions import Load  # noqa: E402
from posviz.drawing import engine, frames, heatmaps, lines_bars
from posviz.experiments import lessons  # noqa: E402
from posviz.maths import grids

rng = np.random.default_rng(0)
result = lessons.sentence_experiment("dog bites man", "man bites dog")
a, b = result.word_outputs("man", 0.5)
bars = frames.vectors_frame([a, b], ["man in sentence 1", "man in sentence 2"])
scales, distances = lessons.magnitude_curve("dog bites man", "man bites dog", "man")
curve = pd.DataFrame({"scale": scales, "distance": distances})
point = frames.point_frame(0.5, 0.3, "0.5 → 0.3")
tokens = frames.labelled("the cat sat on the mat today ok".split())
weights = frames.matrix_frame(rng.dirichlet(np.ones(8), size=8), tokens, tokens)
reduced = grids.block_mean(rng.standard_normal((256, 256)), 40_000)
cells = frames.reduced_frame(reduced)
CHARTS = 4


def altair_charts() -> list[alt.TopLevelMixin]:
    """The same four charts written the usual Altair way (shorthand encodings, layering with +)."""
    grouped = (
        alt.Chart(bars, title="'man' in each sentence")
        .mark_bar()
        .encode(
            x=alt.X("component:O", axis=alt.Axis(labelAngle=0)),
            xOffset="vector:N",
            y="value:Q",
            color=alt.Color("vector:N", legend=alt.Legend(orient="bottom")),
            tooltip=["vector:N", "component:O", alt.Tooltip("value:Q", format=".6g")],
        )
        .properties(width="container", height=260)
    )
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
    grid = (
        alt.Chart(cells, title="table")
        .mark_rect()
        .encode(
            x="col:Q",
            x2="col_end:Q",
            y=alt.Y("row:Q", scale=alt.Scale(reverse=True)),
            y2="row_end:Q",
            color=alt.Color("value:Q", scale=alt.Scale(scheme="blueorange", domain=[-4, 4])),
        )
        .properties(width="container", height=320)
    )
    return [
        c.configure_axis(labelFontSize=12).configure_title(fontSize=15).configure_view(strokeWidth=0)
        for c in (grouped, with_marker, heat, grid)
    ]


def posviz_specs() -> list[dict]:
    """The same four charts from posviz's builders, compiled once per shape and bound to this run's frames."""
    line = dict(x="scale", y="distance", title="distance", x_title="s", y_title="d", points=True, height=380)
    grid = dict(title="table", subtitle=reduced.note, row_title="t", col_title="d", domain=(-4.0, 4.0))
    return [
        engine.chart_spec(
            lines_bars.grouped_bars, bars, x="component", y="value", group="vector", title="t", y_title="output"
        ),
        engine.chart_spec(lines_bars.lines_marked, curve, point, **line),
        engine.chart_spec(heatmaps.token_heatmap, weights, title="weights", style=heatmaps.WEIGHTS),
        engine.chart_spec(heatmaps.grid_heatmap, cells, **grid),
    ]


def altair_way() -> None:
    for chart in altair_charts():
        vega_charts._convert_altair_to_vega_lite_spec(chart)


def to_arrow(specs: list[dict]) -> None:
    for spec in specs:
        for frame in spec["datasets"].values():
            dataframe_util.convert_anything_to_arrow_bytes(frame)


def posviz_first() -> None:
    engine._compiled.cache_clear()
    to_arrow(posviz_specs())


def posviz_warm() -> None:
    to_arrow(posviz_specs())


def per_chart_ms(action, repeats: int) -> float:
    action()  # warm imports (and, for the warm way, the template cache)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) / CHARTS * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    load = Load.start()
    baseline = per_chart_ms(altair_way, args.repeats)
    first = per_chart_ms(posviz_first, args.repeats)
    warm = per_chart_ms(posviz_warm, args.repeats)
    print(f"altair {alt.__version__}; median of {args.repeats} runs, {CHARTS} charts each; {load.line()}\n")
    print("| way | ms per chart | ratio to (a) |")
    print("|---|---|---|")
    print(f"| (a) plain Altair + Streamlit's conversion (baseline, every rerun) | {baseline:.1f} | 1.00 |")
    print(f"| (b) posviz, first build of a template (once per shape) | {first:.1f} | {first / baseline:.2f} |")
    print(f"| (c) posviz, warm rerun (template cached, data bound) | {warm:.1f} | {warm / baseline:.3f} |")


if __name__ == "__main__":
    main()
