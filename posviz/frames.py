"""Tidy long-form frames of finished numbers, one function per figure a page draws.

No maths beyond laying numbers out in rows; the charts read these columns by name.
Letters: T tokens or positions, P sin/cos pairs (d/2), S scales.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from posviz.encodings import DEFAULT_BASE, frequencies
from posviz.properties import wavelengths
from posviz.variants import t2t_frequencies


def step_errors(errors: np.ndarray, prefill: int) -> pd.DataFrame:
    """Rows (token, error, phase) of a cached generation run; phase is "prefill" or "one at a time".

    Returns: T rows

    >>> step_errors(np.zeros(5), 2).shape
    (5, 3)
    """
    tokens = np.arange(len(errors))
    return pd.DataFrame(
        {"token": tokens, "error": errors, "phase": np.where(tokens < prefill, "prefill", "one at a time")}
    )


def generation_table(positions: np.ndarray, errors: np.ndarray) -> pd.DataFrame:
    """Rows (token, position given, true position, error): where each token was put and how far it drifted.

    Returns: T rows

    >>> generation_table(np.arange(4), np.zeros(4)).shape
    (4, 4)
    """
    tokens = np.arange(len(errors))
    return pd.DataFrame({"token": tokens, "position given": positions, "true position": tokens, "error": errors})


def curves(x: np.ndarray, series: Mapping[str, np.ndarray], *, x_name: str, y_name: str, group: str) -> pd.DataFrame:
    """Rows (x_name, y_name, group) of several curves over the same x, one group per name of `series`.

    Returns: len(x) * len(series) rows

    >>> curves(np.arange(3), {"a": np.ones(3), "b": np.zeros(3)}, x_name="x", y_name="y", group="g").shape
    (6, 3)
    """
    return pd.DataFrame(
        {
            x_name: np.tile(x, len(series)),
            y_name: np.concatenate([np.asarray(v, dtype=float) for v in series.values()]),
            group: np.repeat(list(series), len(x)),
        }
    )


def frequency_comparison(width: int, base: float = DEFAULT_BASE) -> pd.DataFrame:
    """Rows (pair, frequency, formula): the paper's frequencies and tensor2tensor's, pair by pair.

    Returns: d rows (d/2 per formula)

    >>> frequency_comparison(8).shape
    (8, 3)
    """
    series = {
        "paper: base^(-2i/d)": frequencies(width, base),
        "tensor2tensor: base^(-i/(d/2-1))": t2t_frequencies(width, base),
    }
    return curves(np.arange(width // 2), series, x_name="pair", y_name="frequency", group="formula")


def wavelength_frame(width: int, base: float = DEFAULT_BASE) -> pd.DataFrame:
    """Rows (pair, wavelength): positions per full turn of each sin/cos pair.

    Returns: d/2 rows

    >>> wavelength_frame(8).shape
    (4, 2)
    """
    return pd.DataFrame({"pair": np.arange(width // 2), "wavelength": wavelengths(width, base)})


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
    """Rows (x, y, position) of a 2-d point at each position, as a path.

    points: (T, 2)
    Returns: T rows

    >>> trajectory(np.zeros((5, 2))).shape
    (5, 3)
    """
    return pd.DataFrame({"x": points[:, 0], "y": points[:, 1], "position": np.arange(len(points))})


LOG_FLOOR = 1e-18  # below every distance a page shows, above 0: where a log axis draws an exact 0


def on_log_axis(value: float) -> float:
    """`value` where a log axis can place it: at least LOG_FLOOR (an exact 0 sits at the floor).

    >>> on_log_axis(0.0), on_log_axis(0.5)
    (1e-18, 0.5)
    """
    return max(float(value), LOG_FLOOR)
