"""Tidy long-form frames of finished numbers, one function per figure a page draws.

No maths beyond laying numbers out in rows; the charts read these columns by name.
Letters: T tokens or positions, P sin/cos pairs (d/2), S scales.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

from posviz.drawing import colours
from posviz.drawing.display import number
from posviz.drawing.engine import Bounds
from posviz.experiments import longer
from posviz.maths import _checks, scaling, sinks
from posviz.maths.encodings import DEFAULT_BASE, frequencies
from posviz.maths.grids import Reduced
from posviz.maths.properties import wavelengths
from posviz.maths.variants import t2t_frequencies
from posviz.maths.verdicts import ROUNDING

if TYPE_CHECKING:
    from posviz.experiments import decoder


class PositionTable(Protocol):
    """What the learned-table frames and figures read of a trained position table (`posviz.models.minilm`'s), next
    to a sinusoidal table of its shape."""

    table: np.ndarray  # (T, d)
    norms: np.ndarray  # (T,)
    cosine: np.ndarray  # (T, T)
    sinusoid_cosine: np.ndarray  # (T, T)
    by_distance: np.ndarray  # (T - 1,) median cosine between rows k apart, k = 1..T-1
    sinusoid_by_distance: np.ndarray  # (T - 1,)


LOG_FLOOR = 1e-18  # below every distance a page shows, above 0: where a log axis draws an exact 0


def step_errors(errors: np.ndarray, prefill: int) -> pd.DataFrame:
    """Rows (token, error, phase, shown, floor) of a cached generation run; phase is "prefill" or "one at a time".

    `shown` is the error where a log axis can draw it (an exact 0 sits at `floor`, LOG_FLOOR), and each bar
    rises from `floor`.

    Returns: T rows

    >>> step_errors(np.zeros(5), 2).shape
    (5, 5)
    """
    tokens = np.arange(len(errors))
    errors = np.asarray(errors, dtype=float)
    return pd.DataFrame(
        {
            "token": tokens,
            "error": errors,
            "phase": np.where(tokens < prefill, "prefill", "one at a time"),
            "shown": np.maximum(errors, LOG_FLOOR),
            "floor": LOG_FLOOR,
        }
    )


def rounding_band(level: float = ROUNDING) -> pd.DataFrame:
    """One row (lo, hi, label): the band of errors that are rounding, from LOG_FLOOR up to `level`.

    >>> rounding_band().shape
    (1, 3)
    """
    return pd.DataFrame(
        {"lo": [LOG_FLOOR], "hi": [float(level)], "label": [f"rounding (below {level:.0e})".replace("e-0", "e-")]}
    )


def generation_table(positions: np.ndarray, errors: np.ndarray, *, written: bool = False) -> pd.DataFrame:
    """Rows (token, position given, true position, error): where each token was put and how far it drifted.

    `written`: each error as it reads on screen (display.number), for a table of text; a chart's CSV keeps floats.
    Returns: T rows

    >>> generation_table(np.arange(4), np.zeros(4)).shape, generation_table([0], [4.4e-16], written=True).error[0]
    ((4, 4), '4.4e-16')
    """
    tokens = np.arange(len(errors))
    shown = [number(e) for e in errors] if written else errors
    return pd.DataFrame({"token": tokens, "position given": positions, "true position": tokens, "error": shown})


def log_envelope(x: np.ndarray, ys: Sequence[np.ndarray], bins: int) -> np.ndarray:
    """The x a line chart on a log x axis needs: in each of `bins` log-spaced stretches of `x`, its first x and the
    x of every curve's lowest and highest value there, so a line through them reaches every low and high the full
    curves do (to a stretch's width) with a few points a stretch, however many x fall in it.

    `x`: (N,) positive, rising; `ys`: curves of N values each. Returns: (M,) the kept x in order, M <= 5 * bins + 1

    >>> log_envelope(np.arange(1, 9), [np.array([0, 5, 1, 1, 1, 1, 7, 0])], bins=1).tolist()
    [1, 7, 8]
    """
    given = np.asarray(x)
    x = given.astype(float)
    if x.ndim != 1 or x.size == 0 or not (x > 0).all() or not (np.diff(x) > 0).all():
        raise ValueError(f"x must be positive and rising, got {x.size} values from {x.min(initial=0):g}")
    bins = _checks.integer("bins", bins, minimum=1)
    which = np.clip(np.searchsorted(np.geomspace(x[0], x[-1], bins + 1), x, side="right") - 1, 0, bins - 1)
    curves = [np.asarray(y, dtype=float) for y in ys]
    for y in curves:
        if y.shape != x.shape:
            raise ValueError(f"each curve must have one value per x ({x.size}), got shape {y.shape}")
    keep = {0, x.size - 1}
    for b in np.unique(which):
        at = np.flatnonzero(which == b)
        keep.add(int(at[0]))
        for y in curves:
            if np.isfinite(y[at]).any():
                keep.update((int(at[np.nanargmin(y[at])]), int(at[np.nanargmax(y[at])])))
    return given[sorted(keep)]


def step_corners(frame: pd.DataFrame, *, y: str, group: str) -> pd.DataFrame:
    """The rows a step line (each value flat until the next x) needs to draw the same picture: each group's first
    and last row and every row whose `y` differs from the row before it. Rows stay in order (x rising within a
    group, as given); a NaN counts as a change.

    >>> f = series_frame(np.arange(5), {"a": np.array([1, 1, 2, 2, 2])}, x_name="x", y_name="y", group="g")
    >>> step_corners(f, y="y", group="g")["x"].tolist()
    [0, 2, 4]
    """
    for name in (y, group):
        if name not in frame:
            raise ValueError(f"frame has no column {name!r}; its columns are {list(frame.columns)}")
    values, groups = frame[y].to_numpy(dtype=float), frame[group].to_numpy()
    first = np.r_[True, groups[1:] != groups[:-1]]
    last = np.r_[groups[1:] != groups[:-1], True]
    changed = np.r_[True, ~(values[1:] == values[:-1])]  # NaN != NaN: kept
    return frame[first | last | changed].reset_index(drop=True)


def frequency_comparison(d: int, base: float = DEFAULT_BASE) -> pd.DataFrame:
    """Rows (pair, frequency, formula): the paper's frequencies and tensor2tensor's, pair by pair.

    Returns: d rows (d/2 per formula)

    >>> frequency_comparison(8).shape
    (8, 3)
    """
    series = {
        "paper: base^(-2i/d)": frequencies(d, base),
        "tensor2tensor: base^(-i/(d/2-1))": t2t_frequencies(d, base),
    }
    return series_frame(np.arange(d // 2), series, x_name="pair", y_name="frequency", group="formula")


def sinusoid_wavelength_frame(d: int, base: float = DEFAULT_BASE) -> pd.DataFrame:
    """Rows (pair, wavelength): positions per full turn of each sin/cos pair of the sinusoid table.

    Returns: d/2 rows

    >>> sinusoid_wavelength_frame(8).shape
    (4, 2)
    """
    return pd.DataFrame({"pair": np.arange(d // 2), "wavelength": wavelengths(d, base)})


def row_norms(norms: np.ndarray, *, start: int = 0, stride: int = 1, name: str = "norm") -> pd.DataFrame:
    """Rows (position, `name`) of every `stride`-th row norm, positions counted from `start`.

    Returns: ceil(T / stride) rows

    >>> row_norms(np.ones(10), stride=3).shape
    (4, 2)
    """
    return pd.DataFrame({"position": start + np.arange(0, len(norms), stride), name: norms[::stride]})


def distance_curve(scales: np.ndarray, distances: np.ndarray, *, log: bool) -> pd.DataFrame:
    """Rows (scale, distance) of a distance-against-scale curve; with `log`, only the points a log axis can hold.

    Returns: S rows, fewer with `log` (scale 0 and distance 0 dropped)

    >>> distance_curve(np.array([0.0, 0.1, 1.0]), np.array([0.0, 0.2, 2.0]), log=True).shape
    (2, 2)
    """
    frame = pd.DataFrame({"scale": scales, "distance": distances})
    return frame[(frame.scale > 0) & (frame.distance > 0)] if log else frame


def trajectory(points: np.ndarray) -> pd.DataFrame:
    """Rows (x, y, position, r, neg_r) of a 2-d point at each position, as a path; r is the largest |coordinate|,
    so a chart can give both axes the same domain [-r, r].

    points: (T, 2)
    Returns: T rows

    >>> trajectory(np.zeros((5, 2))).shape
    (5, 5)
    """
    r = float(np.abs(points).max(initial=0.0))
    return pd.DataFrame({"x": points[:, 0], "y": points[:, 1], "position": np.arange(len(points)), "r": r, "neg_r": -r})


def on_log_axis(value: float) -> float:
    """`value` where a log axis can place it: at least LOG_FLOOR (an exact 0 sits at the floor).

    >>> on_log_axis(0.0), on_log_axis(0.5)
    (1e-18, 0.5)
    """
    return max(float(value), LOG_FLOOR)


def cosine_profile(table: PositionTable, bins: int | None = None) -> pd.DataFrame:
    """Rows (distance, cosine, table): median cosine of rows k apart, learned and sinusoidal, at every
    k = 1..511, or with `bins` at the k a chart on a log axis needs (`log_envelope`: each curve's
    lowest and highest value in each of `bins` log-spaced stretches of k, where every k would crowd hundreds of
    points into the axis's last inch).

    >>> from types import SimpleNamespace
    >>> k = np.arange(1, 512)
    >>> pos = SimpleNamespace(norms=np.ones(512), by_distance=np.cos(k), sinusoid_by_distance=np.zeros(511))
    >>> len(cosine_profile(pos)), len(cosine_profile(pos, bins=64)) < 1022
    (1022, True)
    """
    k = np.arange(1, len(table.norms))
    if bins is not None:
        k = log_envelope(k, [table.by_distance, table.sinusoid_by_distance], bins)
    series = {
        "MiniLM, learned": table.by_distance[k - 1],
        "sinusoidal, same shape": table.sinusoid_by_distance[k - 1],
    }
    return series_frame(k, series, x_name="distance", y_name="cosine", group="table")


# ----- SmolLM2's page (experiments.decoder's readings) ------------------------------------------------------------
# These import experiments.decoder where they run: it imports the model's module (gguf, tokenizers: 0.2 s), which
# the pages that never draw SmolLM2 do not pay for.


def head_table(reading: decoder.Reading, layer: int) -> pd.DataFrame:
    """One row a head of `layer`: its weight on t−1, on token 0, its role and its fast-pair share (as text).

    Returns: H rows
    """
    from posviz.experiments import decoder

    return pd.DataFrame(
        {
            "head": [decoder.head(layer, h) for h in range(reading.sink.shape[1])],
            "weight on t−1": [number(v, digits=2) for v in reading.previous[layer]],
            "weight on token 0": [number(v, digits=2) for v in reading.sink[layer]],
            "role": reading.roles[layer].tolist(),
            decoder.FAST_COLUMN: [number(v, digits=2) for v in reading.fast_shares(layer)],
        }
    )


def by_distance_frame(reading: decoder.Reading, layer: int, reach: int = 24) -> pd.DataFrame:
    """Mean weight at each distance 0..min(T, reach)-1 for every head of `layer`: columns distance, weight, head,
    series (the head and its role for a positional head, "other heads" for the rest: one colour).

    Returns: H x min(T, reach) rows
    """
    from posviz.experiments import decoder

    profile = reading.by_distance(layer)[:, :reach]  # (H, N)
    roles = reading.roles[layer]
    rows = []
    for h, curve in enumerate(profile):
        name = decoder.head(layer, h)
        series = f"{name} {roles[h]}" if roles[h] != "other" else "other heads"
        rows.append(pd.DataFrame({"distance": np.arange(curve.size), "weight": curve, "head": name, "series": series}))
    return pd.concat(rows, ignore_index=True)


def ablation_frame(result: decoder.Ablation) -> pd.DataFrame:
    """Each layer's three gaps for a log axis (an exact 0 drawn at the floor), the hidden states' relative to the
    layer's largest value, the attention weights' as they are (weights are at most 1): columns layer, gap, ablation,
    shown.

    Returns: 3 L rows
    """
    series = {
        "no rotation, mask: reordered (h ÷ max |h|)": result.order,
        "no rotation, no mask: reordered (h ÷ max |h|)": result.blind,
        f"RoPE, positions + {result.k}: attention weights": result.shift,
    }
    frame = series_frame(np.arange(result.shift.size), series, x_name="layer", y_name="gap", group="ablation")
    frame["shown"] = frame["gap"].clip(lower=1e-9)
    return frame


def logit_frame(logits: decoder.ScaledLogits) -> pd.DataFrame:
    """A real pair's logit against the distance, unscaled and scaled: columns distance, score, curve.

    Returns: 2N rows
    """
    return series_frame(logits.distances, logits.curves, x_name="distance", y_name="score", group="curve")


def logit_window_point(scores: pd.DataFrame) -> pd.DataFrame:
    """The unscaled curve of `logit_frame` at the end of the trained window (x, y, label), for `lines_bars.marker`."""
    from posviz.experiments import decoder

    curve = scores[scores["curve"].str.startswith("unscaled")]
    at = int(np.searchsorted(curve["distance"].to_numpy(), decoder.ORIGINAL))
    row = curve.iloc[min(at, len(curve) - 1)]
    return point_frame(row["distance"], row["score"], f"trained window {decoder.ORIGINAL:,}")


# ----- the Longer contexts, Relative biases and attention-sinks pages (experiments.longer) ------------------------


def divisor_frame(preset: scaling.Preset) -> pd.DataFrame:
    """Each method's per-pair divisor default theta_i / scaled theta_i: columns pair, divisor, method.

    Returns: (len(METHODS) * P) rows

    >>> divisor_frame(scaling.PRESETS["linear-4k-8k"]).shape
    (256, 3)
    """
    series = scaling.divisors(preset)
    pairs = np.arange(len(next(iter(series.values()))))
    return series_frame(pairs, series, x_name="pair", y_name="divisor", group="method")


def scaled_wavelength_frame(view: longer.Scaled) -> pd.DataFrame:
    """Tokens per full turn of each pair of a rope_scaling preset, unscaled and scaled: columns pair, wavelength,
    rope. An unscaled preset (rope_type "default") has the one curve.

    Returns: (2P) rows

    >>> scaled_wavelength_frame(longer.scaled(scaling.PRESETS["linear-4k-8k"])).shape
    (128, 3)
    """
    pairs = np.arange(view.inv.size)
    return series_frame(pairs, longer.wavelengths(view), x_name="pair", y_name="wavelength", group="rope")


def window_levels(preset: scaling.Preset) -> pd.DataFrame:
    """The original and the extended window as labelled levels (y, label), for `lines_bars.hline`.

    Windows less than 4x apart sit too close on a log axis for two labels: the upper line then names both, short
    (a label starts mid-plot, so half a narrow chart is all it has).

    >>> window_levels(scaling.PRESETS["llama3.1-8b"])["y"].tolist()
    [8192.0, 131072.0]
    >>> window_levels(scaling.PRESETS["linear-4k-8k"])["label"].tolist()
    ['', 'window 4,096 → 8,192']
    """
    original = f"original {preset.original:,}"
    if preset.extended == preset.original:
        return level_frame(preset.original, original)
    extended = f"extended {preset.extended:,}"
    if preset.extended < 4 * preset.original:
        original, extended = "", f"window {preset.original:,} → {preset.extended:,}"
    levels = [level_frame(preset.original, original), level_frame(preset.extended, extended)]
    return pd.concat(levels, ignore_index=True)


def score_frame(view: longer.Scaled, seed: int, points: int = 1200) -> pd.DataFrame:
    """`longer.self_scores` (seeded content with itself, unscaled and scaled) as columns distance, score, curve.

    Returns: (2N) rows (N for an unscaled preset), N <= points

    >>> score_frame(longer.scaled(scaling.PRESETS["linear-4k-8k"]), 0, points=10).shape
    (20, 3)
    """
    distances, series = longer.self_scores(view, seed, points=points)
    return series_frame(distances, series, x_name="distance", y_name="score", group="curve")


def score_window_point(view: longer.Scaled, scores: pd.DataFrame) -> pd.DataFrame:
    """The scaled curve of `score_frame` at the end of the training window (x, y, label), for `lines_bars.marker`."""
    curve = scores[scores["curve"] != "unscaled"] if scores["curve"].nunique() > 1 else scores
    at = int(np.searchsorted(curve["distance"].to_numpy(), view.preset.original))
    row = curve.iloc[min(at, len(curve) - 1)]
    return point_frame(row["distance"], row["score"], f"training window {view.preset.original:,}")


def decay_frames(decay: longer.Decay) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The decay bound's and the measured score's curves, one per base: columns distance, value, curve.

    Returns: two frames of (B * N) rows

    >>> [f.shape for f in decay_frames(longer.decay(100, 8, 0, points=11))]
    [(22, 3), (22, 3)]
    """
    return tuple(
        series_frame(decay.distances, dict(zip(decay.names, curves, strict=True)), x_name="distance", y_name="value")
        for curves in (decay.bound, decay.measured)
    )


def bias_frame(reach: int, **shape: object) -> pd.DataFrame:
    """Each bias against the offset j - i from -reach to reach: columns offset, bias, kind (its display name).

    Returns: (len(KINDS) * (2 reach + 1)) rows

    >>> bias_frame(3).shape
    (35, 3)
    """
    line, lines = longer.bias_lines(reach, **shape)
    series = {longer.BIAS_NAMES[kind]: values for kind, values in lines.items()}
    return series_frame(line, series, x_name="offset", y_name="bias", group="kind")


def sink_errors_frame(results: Mapping[str, sinks.StreamingResult]) -> pd.DataFrame:
    """Error of each step for each way of giving positions: columns token, error, way (its legend name).

    Returns: (len(results) * T) rows
    """
    names = colours.sink_series(results)
    series = {names[w]: r.errors for w, r in results.items()}
    tokens = np.arange(len(next(iter(results.values())).errors))
    return series_frame(tokens, series, x_name="token", y_name="error", group="way")


# ----- matrices, vectors and curves (the builders' long forms) ------------------------------------------------------


def reduced_frame(reduced: Reduced) -> pd.DataFrame:
    """Long-form rows (row, row_end, col, col_end, value) of a block-reduced matrix."""
    r, k = reduced.values.shape
    rows = np.repeat(reduced.row_starts, k).astype(np.int32)  # 4 bytes a bound, not 8: a quarter less to send
    cols = np.tile(reduced.col_starts, r).astype(np.int32)
    return pd.DataFrame(
        {
            "row": rows,
            "row_end": rows + reduced.row_factor,
            "col": cols,
            "col_end": cols + reduced.col_factor,
            "value": reduced.values.ravel(),
        }
    )


def picture_frame(png: bytes) -> pd.DataFrame:
    """One row: a PNG as a data URL, for `picture_heatmap`."""
    return pd.DataFrame({"url": ["data:image/png;base64," + base64.b64encode(png).decode("ascii")]})


def extent_frame(reduced: Reduced, domain: Bounds) -> pd.DataFrame:
    """The outer edges of a reduced matrix's cells (two corners, half a cell outside the first and last index)
    and the colour domain's ends, for `picture_heatmap`'s axes and legend."""
    rows = (reduced.row_starts[0] - 0.5, reduced.row_starts[-1] + reduced.row_factor - 0.5)
    cols = (reduced.col_starts[0] - 0.5, reduced.col_starts[-1] + reduced.col_factor - 0.5)
    return pd.DataFrame({"x": cols, "y": rows, "value": [float(domain[0]), float(domain[1])]})


def columns_frame(m: np.ndarray, columns: Sequence[int], *, first: int = 0, rows: int | None = None) -> pd.DataFrame:
    """Long-form rows (position, dimension, value) of chosen columns of m, rows numbered from `first`."""
    block = m[:rows, list(columns)]
    return pd.DataFrame(
        {
            "position": np.tile(first + np.arange(block.shape[0]), len(columns)),
            "dimension": np.repeat([f"dim {c}" for c in columns], block.shape[0]),
            "value": block.T.ravel(),
        }
    )


def vectors_frame(vectors: Sequence[np.ndarray], names: Sequence[str]) -> pd.DataFrame:
    """Long-form rows (component, vector, value) of equally long vectors, one group per name."""
    width = len(vectors[0])
    return pd.DataFrame(
        {
            "component": np.tile(np.arange(width), len(vectors)),
            "vector": np.repeat(list(names), width),
            "value": np.concatenate([np.asarray(v, dtype=float) for v in vectors]),
        }
    )


def series_frame(
    x: np.ndarray, series: Mapping[str, np.ndarray], *, x_name: str = "x", y_name: str = "y", group: str = "curve"
) -> pd.DataFrame:
    """Long-form rows (x_name, y_name, group) of named series sharing the x values, one group per name.

    Returns: len(x) * len(series) rows

    >>> series_frame(np.arange(3), {"a": np.ones(3), "b": np.zeros(3)}, x_name="x", y_name="y", group="g").shape
    (6, 3)
    """
    x = np.asarray(x)
    ys = [np.asarray(y, dtype=float) for y in series.values()]
    if any(y.shape != x.shape for y in ys):
        raise ValueError(f"every series must have x's shape {x.shape}, got {[y.shape for y in ys]}")
    return pd.DataFrame(
        {
            x_name: np.tile(x, len(ys)),
            y_name: np.concatenate(ys) if ys else np.array([], dtype=float),
            group: np.repeat(list(series), x.size),
        }
    )


def point_frame(x: float, y: float, label: str) -> pd.DataFrame:
    """One labelled point (x, y, label), for `marker`."""
    return pd.DataFrame({"x": [float(x)], "y": [float(y)], "label": [label]})


def level_frame(y: float, label: str, short: str = "") -> pd.DataFrame:
    """One labelled level (y, label), for `hline`; with `short`, a `short` column: what a phone's narrow plot writes
    (`hline(below=True)`), where a long label ran under a marker's line."""
    return pd.DataFrame({"y": [float(y)], "label": [label], **({"short": [short]} if short else {})})


def labelled(labels: Sequence[str]) -> list[str]:
    """Unique axis labels "0 dog", "1 bites", ... so repeated words keep their own row; a token with no letter or
    digit is quoted ("10 ','": a bare "10 ," read as a typo).

    >>> labelled(["dog", ",", "<|im_start|>"])
    ['0 dog', "1 ','", '2 <|im_start|>']
    """
    return [f"{i} {w}" if any(c.isalnum() for c in w) else f"{i} '{w}'" for i, w in enumerate(labels)]


def masked_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`matrix_frame`'s cells with a `masked` column: the keys a causal mask hides (key after query)."""
    return frame.assign(masked=frame["col_index"] > frame["row_index"])


def matrix_frame(m: np.ndarray, rows: Sequence[str], cols: Sequence[str], **columns: str) -> pd.DataFrame:
    """Long-form rows (row, col, value, row_index, col_index) of a small labelled matrix, plus constant columns."""
    r, k = m.shape
    frame = pd.DataFrame(
        {
            "row": np.repeat(list(rows), k),
            "col": np.tile(list(cols), r),
            "value": np.asarray(m, dtype=float).ravel(),
            "row_index": np.repeat(np.arange(r), k),
            "col_index": np.tile(np.arange(k), r),
        }
    )
    for name, value in columns.items():
        frame[name] = value
    return frame


def picture_panels_frame(
    matrices: Sequence[np.ndarray], titles: Sequence[str], pngs: Sequence[bytes], domain: Bounds
) -> pd.DataFrame:
    """`picture_panels`' rows: a picture row and two corner rows a panel (see there)."""
    rows = []
    for i, (m, title, picture) in enumerate(zip(matrices, titles, pngs, strict=True)):
        r, k = np.shape(m)
        url = "data:image/png;base64," + base64.b64encode(picture).decode("ascii")
        rows.append({"panel": title, "panel_index": i, "kind": "picture", "url": url, "x": 0.0, "y": 0.0, "value": 0.0})
        for x, y, value in ((-0.5, -0.5, domain[0]), (k - 0.5, r - 0.5, domain[1])):
            rows.append(
                {"panel": title, "panel_index": i, "kind": "corner", "url": "", "x": x, "y": y, "value": float(value)}
            )
    return pd.DataFrame(rows)


# ----- the lecture's text table and learned table, the word-order page ---------------------------------------------

LINE_BREAK = "\n"


def cells_frame(rows: Sequence[str], columns: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Long form of a text table: one row a cell, columns row, column, text, row_index, col_index, and the text's
    first and second line (first, second; second "" for a one-line cell).

    `columns` maps each column's heading to its cells, one per row, in the order they are drawn.
    """
    rows = list(rows)
    bad = {name: len(cells) for name, cells in columns.items() if len(cells) != len(rows)}
    if bad:
        raise ValueError(f"every column needs {len(rows)} cells (one per row), got {bad}")
    frame = pd.DataFrame(
        [
            {"row": row, "column": name, "text": str(cells[i]), "row_index": i, "col_index": j}
            for j, (name, cells) in enumerate(columns.items())
            for i, row in enumerate(rows)
        ]
    )
    lines = [(*text.split(LINE_BREAK, 1), "")[:2] for text in frame.text]  # a cell's two lines, one above the other
    return frame.assign(first=[a for a, _ in lines], second=[b for _, b in lines])


def gap_frame(start: int, end: int, label: str) -> pd.DataFrame:
    """The positions start..end-1 a table has no row for, with the words written over them (start, end, mid, label).

    >>> gap_frame(512, 640, "no row").shape
    (1, 4)
    """
    if end < start:
        raise ValueError(f"expected end >= start, got start {start} and end {end}")
    return pd.DataFrame({"start": [start], "end": [end], "mid": [(start + end) / 2], "label": [label]})


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


def binned_frame(curves: Mapping[str, np.ndarray], width: int, *, y_name: str = "loss") -> pd.DataFrame:
    """Each named curve averaged over bins of `width` positions, at each bin's middle: long-form rows (position,
    y_name, curve). Curves may differ in length (the learned table stops at its last row); a last partial bin is
    averaged over what it holds.

    Returns: one row per bin per curve

    >>> binned_frame({"a": np.arange(8.0), "b": np.ones(4)}, 4).shape
    (3, 3)
    """
    if width < 1:
        raise ValueError(f"width must be a positive number of positions, got {width}")
    parts = []
    for name, curve in curves.items():
        curve = np.asarray(curve, dtype=float)
        starts = np.arange(0, curve.size, width)
        means = np.add.reduceat(curve, starts) / np.diff(np.r_[starts, curve.size])
        middle = starts + np.minimum(width, curve.size - starts) / 2
        parts.append(pd.DataFrame({"position": middle, y_name: means, "curve": name}))
    return pd.concat(parts, ignore_index=True)


def window_frame(x: float, label: str) -> pd.DataFrame:
    """One labelled x (a window's end), for `lines_bars.vline`."""
    return pd.DataFrame({"x": [float(x)], "label": [label]})


def bin_table_frame(rows: Sequence, spans: Sequence[tuple[int, int]], schemes: Sequence[str]) -> pd.DataFrame:
    """A table of each scheme's loss per position bin: "mean (lowest..highest)" over seeds, "no row" where the
    scheme cannot read so far (rows: objects with scheme, start, mean, low, high).

    Returns: one row per scheme, a column per bin
    """
    cells = {(r.scheme, r.start): r for r in rows}

    def cell(scheme: str, start: int) -> str:
        r = cells.get((scheme, start))
        if r is None or not np.isfinite(r.mean):
            return "no row"
        return f"{r.mean:.3f} ({r.low:.3f}..{r.high:.3f})"

    table = {"scheme": list(schemes)}
    table.update({f"positions {a}-{b - 1}": [cell(k, a) for k in schemes] for a, b in spans})
    return pd.DataFrame(table)


def line_ends(frame: pd.DataFrame, *, key: str, x: str, y: str, gap: float) -> pd.DataFrame:
    """Where a direct legend writes each `key`'s name: in one column at the lines' last `x`, a name at its lines' mean
    `y` there, moved apart (in `y`'s units) until neighbours are `gap` apart, kept centred as a group. A line that
    stops before the others is named in the column too, below them: a name at its own end would sit over the lines
    that go on (`stops`: where its lines end).

    >>> f = pd.DataFrame({"t": [0, 1, 0, 1], "loss": [1.0, 2.0, 1.0, 2.1], "scheme": ["a", "a", "b", "b"]})
    >>> line_ends(f, key="scheme", x="t", y="loss", gap=0.5)[["scheme", "label_y"]].round(2).values.tolist()
    [['a', 1.8], ['b', 2.3]]
    >>> line_ends(f.iloc[:3], key="scheme", x="t", y="loss", gap=0.5)[["scheme", "t", "label_y"]].values.tolist()
    [['a', 1, 2.0], ['b', 1, 1.5]]
    """
    last = frame[frame[x] == frame.groupby(key)[x].transform("max")]
    ends = last.groupby(key, sort=False).agg(**{x: (x, "first"), y: (y, "mean")}).reset_index()
    ends = ends.assign(stops=ends[x])
    end = ends[x].max()
    placed = _spread(ends[ends[x] == end], y, gap)
    early = ends[ends[x] < end]
    below = placed.label_y.min() - gap * np.arange(1, len(early) + 1)
    return pd.concat([placed, early.assign(**{x: end, "label_y": below})]).reset_index(drop=True)


def _spread(ends: pd.DataFrame, y: str, gap: float) -> pd.DataFrame:
    """`ends` with label_y: its `y` values pushed apart to `gap`, bottom up, then shifted back to the same mean."""
    ends = ends.sort_values(y)
    placed = list(ends[y])
    for i in range(1, len(placed)):
        placed[i] = max(placed[i], placed[i - 1] + gap)
    return ends.assign(label_y=np.array(placed) + (ends[y].mean() - np.mean(placed)))
