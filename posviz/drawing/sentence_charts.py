"""Altair chart builders for the real model's word-order page: data first, hashable shape after.

As the other builders: every number that depends on the data is a field of a DataFrame (`posviz.drawing.frames`),
never a literal in the spec, so the same shape compiles once and a new sentence or scale only swaps the data; a
title may be live (`engine.Live`). No styling and no width: the caller styles.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from posviz.drawing.colours import ACCENT
from posviz.drawing.engine import Text, title_params

SERIES = ("#0072B2", "#E69F00")  # colour-blind safe: with position, without


def layer_distances(frame: pd.DataFrame | alt.NamedData, *, title: Text, y_title: str, height: int = 260) -> alt.Chart:
    """1 - cosine of the two sentences' mean-pooled states after each count of attention layers, one line per run
    (0: the embeddings, before any layer; so a layer's own number, counted from 0 as in steps 20-21, never labels the
    axis)."""
    base = alt.Chart(frame, title=title_params(title), height=height)
    return base.mark_line(point=alt.OverlayMarkDef(size=70, filled=True), strokeWidth=3).encode(
        x=alt.X("layer:O", title="layers run (0 = none)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("distance:Q", title=y_title),
        # sort=None: the frame's order, so the run with position keeps SERIES[0] whatever its label says
        color=alt.Color(
            "run:N",
            title=None,
            sort=None,
            scale=alt.Scale(range=list(SERIES)),
            legend=alt.Legend(orient="top", labelLimit=320),
        ),
        tooltip=[alt.Tooltip("run:N"), alt.Tooltip("layer:O"), alt.Tooltip("distance:Q", format=".3g")],
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
        fontWeight="bold",  # its size is the text config's: 21 px in presenter mode
    ).encode(x=x, y=y, text="label:N")
    return alt.layer(line, rule, dot, text)
