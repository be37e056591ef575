"""Altair chart builders for the longer-context, relative-bias and attention-sink views. No maths, no streamlit.

Written to the chart API of issue 12: data first (DataFrames), then keyword-only hashable shape
arguments; explicit field types; every number that depends on the data is a field, so the same shape
gives the same spec. No `.configure_*` and no width: the caller styles. Frames come from
`posviz.scaling`, `posviz.biases` and `posviz.sinks` via the `*_frame` helpers here.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000")


def _series(field: str, title: str | None = None) -> alt.Color:
    return alt.Color(f"{field}:N", title=title, scale=alt.Scale(range=list(COLORS)), legend=alt.Legend(orient="bottom"))


def divisor_frame(divisors: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form of {method: (P,) divisor}: columns pair, divisor, method."""
    return pd.DataFrame(
        [{"pair": i, "divisor": float(v), "method": m} for m, d in divisors.items() for i, v in enumerate(d)]
    )


def divisor_chart(frame: pd.DataFrame, *, title: str, height: int = 300) -> alt.Chart:
    """Per-pair frequency divisor (default theta_i / scaled theta_i) of each method, log y."""
    return (
        alt.Chart(frame, title=title, height=height)
        .mark_line(point=True, strokeWidth=2.5)
        .encode(
            x=alt.X("pair:Q", title="pair i (dimensions 2i, 2i+1)"),
            y=alt.Y("divisor:Q", title="frequency divided by", scale=alt.Scale(type="log")),
            color=_series("method"),
            tooltip=["method:N", "pair:Q", alt.Tooltip("divisor:Q", format=".6g")],
        )
    )


def wavelength_chart(pairs: pd.DataFrame, windows: pd.DataFrame, *, title: str, height: int = 300) -> alt.LayerChart:
    """Wavelength 2 pi / theta_i of each pair (columns pair, wavelength, rope), log y, with window rules.

    windows: columns window (label), tokens.
    """
    lines = (
        alt.Chart(pairs)
        .mark_line(point=True)
        .encode(
            x=alt.X("pair:Q", title="pair i"),
            y=alt.Y("wavelength:Q", title="tokens per full turn", scale=alt.Scale(type="log")),
            color=_series("rope"),
            tooltip=["rope:N", "pair:Q", alt.Tooltip("wavelength:Q", format=".6g")],
        )
    )
    rules = alt.Chart(windows).mark_rule(strokeDash=[6, 4], color="#D55E00", size=2).encode(y="tokens:Q")
    labels = (
        alt.Chart(windows)
        .mark_text(align="left", dx=4, dy=-8, color="#D55E00")
        .encode(y="tokens:Q", text="window:N", x=alt.value(0))
    )
    return alt.layer(lines, rules, labels, title=title, height=height)


def curve_chart(
    frame: pd.DataFrame, marks: pd.DataFrame, *, x_title: str, y_title: str, title: str, height: int = 280
) -> alt.LayerChart:
    """Lines of y against x (columns x, y, curve), with vertical rules at marks (columns x, label)."""
    lines = (
        alt.Chart(frame)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("x:Q", title=x_title),
            y=alt.Y("y:Q", title=y_title),
            color=_series("curve"),
            tooltip=["curve:N", alt.Tooltip("x:Q", format=".6g"), alt.Tooltip("y:Q", format=".6g")],
        )
    )
    rules = alt.Chart(marks).mark_rule(strokeDash=[6, 4], color="#D55E00", size=2).encode(x="x:Q")
    labels = (
        alt.Chart(marks)
        .mark_text(align="left", dx=4, color="#D55E00", baseline="top")
        .encode(x="x:Q", text="label:N", y=alt.value(4))
    )
    return alt.layer(lines, rules, labels, title=title, height=height)


def bias_frame(offsets: np.ndarray, biases: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form: columns offset (j - i), bias, kind."""
    return pd.DataFrame(
        [
            {"offset": int(o), "bias": float(b), "kind": k}
            for k, v in biases.items()
            for o, b in zip(offsets, v, strict=True)
        ]
    )


def bias_chart(frame: pd.DataFrame, *, title: str, height: int = 300) -> alt.Chart:
    """Each bias against the offset j - i, drawn as steps (learned tables are piecewise constant)."""
    return (
        alt.Chart(frame, title=title, height=height)
        .mark_line(interpolate="step-after", strokeWidth=2)
        .encode(
            x=alt.X("offset:Q", title="key position - query position (j - i)"),
            y=alt.Y("bias:Q", title="bias added to the logit"),
            color=_series("kind"),
            tooltip=["kind:N", "offset:Q", alt.Tooltip("bias:Q", format=".4g")],
        )
    )


def errors_frame(errors: dict[str, np.ndarray]) -> pd.DataFrame:
    """Long form of {way: (T,) step errors}: columns token, error, way."""
    return pd.DataFrame([{"token": t, "error": float(e), "way": w} for w, v in errors.items() for t, e in enumerate(v)])


def grouped_errors(frame: pd.DataFrame, *, title: str, height: int = 300) -> alt.Chart:
    """Error of each step (columns token, error, way), one bar per way side by side."""
    return (
        alt.Chart(frame, title=title, height=height)
        .mark_bar()
        .encode(
            x=alt.X("token:O", title="new token t", axis=alt.Axis(labelAngle=0)),
            xOffset="way:N",
            y=alt.Y("error:Q", title="max abs difference"),
            color=_series("way"),
            tooltip=["way:N", "token:O", alt.Tooltip("error:Q", format=".3g")],
        )
    )
