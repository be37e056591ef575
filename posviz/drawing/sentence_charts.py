"""Altair chart builders for the real model's word-order page: data first, hashable shape after.

As in posviz.drawing.charts: every number that depends on the data is a field of a DataFrame, never a literal
in the spec, so the same shape compiles once and a new sentence or scale only swaps the data; a title
may be live (`charts.Live`). No styling and no width: the caller styles.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from posviz.drawing.charts import ACCENT, Text, title_params
from posviz.drawing.display import number

SERIES = ("#0072B2", "#E69F00")  # colour-blind safe: with position, without


def layer_distance_frame(with_position, without_position, *, labels: tuple[str, str]) -> pd.DataFrame:
    """Long form of two (L + 1,) distance profiles: columns layer, distance, run.

    >>> layer_distance_frame([0.0, 0.1], [0.0, 0.0], labels=("a", "b")).shape
    (4, 3)
    """
    n = len(with_position)
    return pd.DataFrame(
        {
            "layer": list(range(n)) * 2,
            "distance": [float(v) for v in (*with_position, *without_position)],
            "run": [labels[0]] * n + [labels[1]] * n,
        }
    )


def layer_distances(frame: pd.DataFrame | alt.NamedData, *, title: Text, y_title: str, height: int = 260) -> alt.Chart:
    """1 - cosine of the two sentences' mean-pooled states after each layer, one line per run."""
    base = alt.Chart(frame, title=title_params(title), height=height)
    return base.mark_line(point=alt.OverlayMarkDef(size=70, filled=True), strokeWidth=3).encode(
        x=alt.X("layer:O", title="after layer (0 = the embedding layer)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("distance:Q", title=y_title),
        # sort=None: the frame's order, so the run with position keeps SERIES[0] whatever its label says
        color=alt.Color(
            "run:N", title=None, sort=None, scale=alt.Scale(range=list(SERIES)), legend=alt.Legend(orient="top")
        ),
        tooltip=[alt.Tooltip("run:N"), alt.Tooltip("layer:O"), alt.Tooltip("distance:Q", format=".3g")],
    )


def scale_frame(scales, cosines, more_scales=(), more_cosines=()) -> pd.DataFrame:
    """The cosine against the position scale, with a second set of points (the rest of a curve drawn coarse first)
    merged in: columns scale, cosine, sorted by scale.

    >>> scale_frame([0.0, 1.0], [1.0, 0.9], [0.5], [0.97]).shape
    (3, 2)
    """
    frame = pd.DataFrame(
        {
            "scale": [float(s) for s in (*scales, *more_scales)],
            "cosine": [float(c) for c in (*cosines, *more_cosines)],
        }
    )
    return frame.sort_values("scale", ignore_index=True)


def here_frame(scale: float, cosine: float) -> pd.DataFrame:
    """The current scale and its cosine, with the label the chart writes beside it.

    >>> here_frame(0.5, 0.95).shape
    (1, 3)
    """
    return pd.DataFrame(
        {"scale": [float(scale)], "cosine": [float(cosine)], "label": [f"{number(scale)} → {number(cosine)}"]}
    )


def cosine_against_scale(
    curve: pd.DataFrame | alt.NamedData, here: pd.DataFrame | alt.NamedData, *, title: Text, height: int = 280
) -> alt.LayerChart:
    """Sentence cosine against the position scale, the current scale marked with a rule, a dot and its value."""
    x = alt.X("scale:Q", title="scale of the position rows (1 = the trained model)")
    y = alt.Y("cosine:Q", title="sentence cosine", scale=alt.Scale(zero=False))
    line = alt.Chart(curve, title=title_params(title), height=height).mark_line(
        point=True, strokeWidth=3, color=SERIES[0]
    )
    line = line.encode(x=x, y=y, tooltip=[alt.Tooltip("scale:Q"), alt.Tooltip("cosine:Q", format=".6f")])
    marked = alt.Chart(here)
    rule = marked.mark_rule(color=ACCENT, size=2).encode(x=x)
    dot = marked.mark_point(color=ACCENT, size=180, filled=True).encode(x=x, y=y)
    side = "datum.scale > 0.5"  # the label stays inside the plot at either end
    text = marked.mark_text(
        align=alt.expr(f"{side} ? 'right' : 'left'"),
        dx=alt.expr(f"{side} ? -12 : 12"),
        dy=-18,
        color=ACCENT,
        fontWeight="bold",
        fontSize=16,
    ).encode(x=x, y=y, text="label:N")
    return alt.layer(line, rule, dot, text)
