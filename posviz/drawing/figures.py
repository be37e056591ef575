"""The app's figures as data: a chart builder, its frames and its shape (titles, axes), drawn by one helper.

A page or the lecture asks for a `Figure` and hands it to its drawing helper (`ui.figure` in the app), so the
titles and axis labels live here, next to the frames they describe, and are tested without a browser.
No streamlit here.

Letters: T positions, P sin/cos pairs (d/2), S scales, K chosen dimensions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from posviz.drawing import colours, frames, heatmaps, images, lines_bars
from posviz.drawing.display import number
from posviz.experiments import longer
from posviz.maths import grids, scaling, sinks


@dataclass(frozen=True)
class Figure:
    """A chart: a `posviz.drawing` builder (heatmaps, lines_bars, ...), its frames and its shape; or an image of a
    reduced matrix."""

    name: str
    builder: Callable | None = None
    frames: tuple[pd.DataFrame, ...] = ()
    shape: dict = field(default_factory=dict)
    image: grids.Reduced | None = None  # drawn as a PNG when set (with shape: title, scheme, domain, ...)
    cells: grids.Reduced | None = None  # the matrix a heatmap figure draws: the app picks marks or one picture
    table: pd.DataFrame | None = None  # the CSV's rows when the chart draws a sample of them (default: frames[0])

    @property
    def title(self) -> str:
        """Its title in words (a toggle's label on a phone, ui.compared), else its name."""
        return str(self.shape.get("title") or self.name)


POSITION_AXES = dict(row_title="position", col_title="dimension")  # a table of position vectors, one row each
SCORE_AXES = dict(row_title="query position i", col_title="key position j")  # a score or bias matrix's axes


def table_axes(rows: str = "position") -> dict[str, object]:
    """The shape of a sinusoid table's heatmap: positions down, dimensions across, values in [-1, 1].

    >>> table_axes()["domain"]
    (-1.0, 1.0)
    """
    return {**POSITION_AXES, "row_title": rows, "value_title": "pe", "domain": (-1.0, 1.0)}


def _lines(name: str, frame: pd.DataFrame, *more: pd.DataFrame, **shape: object) -> Figure:
    builder = lines_bars.lines_with_reference if more else lines_bars.lines
    return Figure(name, builder, (frame, *more), shape)


def frequencies(d: int, base: float) -> Figure:
    """The paper's and tensor2tensor's frequency of each pair, on a log axis (frame: P rows per formula).

    >>> frequencies(8, 10_000.0).frames[0].shape
    (8, 3)
    """
    frame = frames.frequency_comparison(d, base)
    shape = dict(x="pair", y="frequency", color="formula", x_title="pair i", y_title="radians per position (log)")
    # the formulas' names under the plot: at the right Vega cut "tensor2tensor: base^(-i/(d/2-1))" at 160 px
    return _lines("frequencies", frame, title="frequency of each pair", log_y=True, legend="bottom", **shape)


def wavelengths(d: int, base: float) -> Figure:
    """Positions per turn of each sin/cos pair, on a log axis (frame: P rows).

    >>> wavelengths(8, 10_000.0).frames[0].shape
    (4, 2)
    """
    shape = dict(x="pair", y="wavelength", x_title="pair i (dimensions 2i, 2i+1)", y_title="positions per turn (log)")
    title = "wavelength of each sin/cos pair"
    return _lines("wavelengths", frames.sinusoid_wavelength_frame(d, base), title=title, log_y=True, **shape)


def row_norms(squared_norms: np.ndarray, d: int, *, start: int = 0, stride: int = 1, bars: bool = False) -> Figure:
    """Every `stride`-th row's squared norm against the level d/2 it should keep, as a line or as `bars` (frame:
    ceil(T / stride) rows).

    >>> row_norms(np.full(10, 4.0), 8, start=0, stride=1).frames[0].shape
    (10, 2)
    """
    frame = frames.row_norms(squared_norms, start=start, stride=stride, name="squared norm")
    level = frames.level_frame(d / 2, f"d/2 = {d // 2}")
    builder = lines_bars.bars_with_reference if bars else lines_bars.lines_with_reference
    shape = dict(x="position", y="squared norm", x_title="position", y_title="‖pe_t‖²")
    return Figure("row-norms", builder, (frame, level), dict(title="squared norm of every row", **shape))


def dimension_curves(table: np.ndarray, dims: Sequence[int], *, start: int, shown: int) -> Figure:
    """The chosen columns of a position table over its first `shown` rows (frame: shown x K rows).

    >>> dimension_curves(np.zeros((10, 4)), [0, 3], start=0, shown=5).frames[0].shape
    (10, 3)
    """
    frame = frames.columns_frame(table, dims, first=start, rows=shown)
    shape = dict(x="position", y="value", color="dimension", x_title="position", y_title="pe")
    return _lines("dimension-curves", frame, title=f"chosen dimensions over the first {shown} positions", **shape)


PAIR_MOVES = ("token + position", "tokens only", "positions only")  # lesson 003's moves, lecture and page


def pair_signal(position: str, scale: float) -> str:
    """The pair-move chart's words for E: the ramp as the lecture's steps 2-3 write it, a signal by name otherwise, with
    its scale unless 1 (the lecture's step and the order page share it).

    >>> pair_signal("ramp", 0.6), pair_signal("sinusoidal", 1.0), pair_signal("random", 0.5)
    ('0.6(t + 1), the ramp', 'sinusoidal', 'random × 0.5')
    """
    if position == "ramp":
        return f"{number(scale)}(t + 1), the ramp"
    return position if scale == 1 else f"{position} × {number(scale)}"


def pair_moves(together: float, tokens_only: float, positions_only: float, signal: str, *, height: int = 240) -> Figure:
    """Lesson 003's three moves as bars on a log axis, each labelled with its value (frame: 3 rows).

    `signal` names the position signal E they ran with ("sinusoidal × 1"); an exact 0 sits at the axis floor.

    >>> pair_moves(0.0, 1.5, 2.0, "ramp × 0.6").frames[0]["what moves"].tolist()
    ['token + position', 'tokens only', 'positions only']
    """
    moves = dict(zip(PAIR_MOVES, (together, tokens_only, positions_only), strict=True))
    shown = [number(v) for v in moves.values()]
    shape = dict(title=pair_moves_title(signal), y_title="largest |difference|", height=height)
    return log_bars("pairs", moves, shown, ("what moves", "max difference"), **shape)


def log_bars(
    name: str,
    bars: Mapping[str, float],
    shown: Sequence[str],
    columns: tuple[str, str],
    outside: Sequence[bool] = (),
    **shape: object,
) -> Figure:
    """One bar a label on a log axis, each with its `shown` text over it; an exact 0 sits at the axis floor.
    `shape`: the titles (the x axis untitled unless `x_title` is given). `columns` names the frame's label and value
    columns (frame: one row a bar); `outside`: the bars too short to hold their text upright on a phone.

    >>> log_bars("b", {"a": 0.0, "b": 2.0}, ["0", "2"], ("run", "gap"), title="t", y_title="y").frames[0].shape
    (2, 3)
    """
    x, y = columns
    frame = pd.DataFrame({x: list(bars), y: [frames.on_log_axis(v) for v in bars.values()], "shown": list(shown)})
    if outside:
        frame["outside"] = list(outside)
    return Figure(name, lines_bars.bars, (frame,), dict(x=x, y=y, log_y=True, text="shown", **{"x_title": "", **shape}))


def pair_moves_title(signal: str) -> str:
    """The pair-move chart's title, naming its position signal: the lecture's step and the order page share it."""
    return f"E = {signal}: how far the outputs move from each test's reference (log axis)"


def generation_errors(name: str, errors: np.ndarray, prefill: int, title: str) -> Figure:
    """Each generated token's error against a full recompute, over the rounding band (frame: one row a token)."""
    return Figure(
        name, lines_bars.step_errors, (frames.step_errors(errors, prefill), frames.rounding_band()), {"title": title}
    )


def sink_errors(ways: Mapping[str, sinks.StreamingResult]) -> Figure:
    """Each streamed step's error against the recompute over the kept tokens, one bar group a way of positioning, each
    way in its own colour (a way whose every error rounds to 0 says so in its legend entry)."""
    shape = dict(x="token", y="error", group="way", y_title="largest |difference|", colours=colours.sink_colours(ways))
    frame = frames.sink_errors_frame(ways)
    return Figure(
        "sink-errors",
        lines_bars.grouped_bars_keyed,
        (frame,),
        dict(title="error of each step against the recompute", **shape),
    )


def word_outputs(a: np.ndarray, b: np.ndarray, word: str) -> Figure:
    """A word's two output vectors (one in each sentence), component by component (frame: 2 d rows).

    >>> word_outputs(np.zeros(3), np.ones(3), "man").frames[0].shape
    (6, 3)
    """
    names = [f"{word} in sentence 1", f"{word} in sentence 2"]
    bars = frames.vectors_frame([a, b], names)
    # blue and reddish purple: orange would sit beside the marked scale's vermillion (colours.ACCENT) on the same page
    keyed = tuple(zip(names, (colours.SERIES_COLORS[0], colours.SERIES_COLORS[3]), strict=True))
    shape = dict(
        x="component", y="value", group="vector", title=f"'{word}' in each sentence", y_title="output", colours=keyed
    )
    return Figure("word-outputs", lines_bars.grouped_bars_keyed, (bars,), shape)


def distance_curve(scales: np.ndarray, distances: np.ndarray, scale: float, distance: float, *, log: bool) -> Figure:
    """The distance between a word's two outputs against the scale, the chosen scale marked (not at 0 on a log axis).

    >>> distance_curve(np.array([0.0, 1.0]), np.array([0.0, 2.0]), 0.0, 0.0, log=True).builder is lines_bars.lines
    True
    """
    curve = frames.distance_curve(scales, distances, log=log)
    point = frames.point_frame(
        scale, frames.on_log_axis(distance) if log else distance, f"{number(scale)} → {number(distance)}"
    )
    on_axis = scale > 0 or not log  # scale 0 has no place on a log axis
    logged = " (log)" if log else ""
    shape = dict(x="scale", y="distance", x_title="position scale" + logged, y_title="largest |difference|" + logged)
    title = "distance between the two outputs against the scale"
    builder, data = (lines_bars.lines_marked, (curve, point)) if on_axis else (lines_bars.lines, (curve,))
    return Figure("distance-curve", builder, data, dict(title=title, log_x=log, log_y=log, points=True, **shape))


def factor_ticks(top: float, factor: float) -> tuple[float, ...]:
    """Ticks for a log axis of divisors from 1 to `top`: the powers of 4 it spans, and the factor.

    >>> factor_ticks(130.0, 8.0)
    (1.0, 4.0, 8.0, 16.0, 64.0, 256.0)
    """
    powers = [4.0**k for k in range(int(np.ceil(np.log(max(top, 1.0)) / np.log(4))) + 1)]
    return tuple(sorted({*powers, float(factor)}))


def rope_divisors(preset: scaling.Preset) -> Figure:
    """How much each scaling method divides each pair's frequency, on a log axis (frame: P rows per method), with the
    factor every method is given as a tick (linear's line lies on it).

    >>> rope_divisors(scaling.PRESETS["linear-4k-8k"]).shape["y"]
    'divisor'
    """
    frame = frames.divisor_frame(preset)
    ticks = factor_ticks(float(frame["divisor"].max()), longer.scaling_factor(preset))
    keyed = colours.method_colours(scaling.METHODS)
    shape = dict(x="pair", y="divisor", color="method", colours=keyed, log_y=True, whole_x=True, y_ticks=ticks)
    words = dict(
        title=f"slowdown of each pair, {preset.original:,} -> {preset.extended:,} tokens",
        x_title="pair i (dimensions 2i, 2i+1)",
        y_title="frequency divided by",
    )  # lines only: 5 x 64 point marks with tooltips cost the page ~0.05 s of first paint (browser_bench)
    return Figure("rope-divisors", lines_bars.lines_keyed, (frame,), dict(height=240, **shape, **words))


def _method_lines(name: str, frame: pd.DataFrame, over: pd.DataFrame, *, color: str, **shape: object) -> Figure:
    """Lines under a second layer `over` (windows, a marker), each in the colour of the scaling method `frame[color]`
    names."""
    keyed = colours.method_colours(list(dict.fromkeys(frame[color])))
    return Figure(name, lines_bars.lines_keyed, (frame, over), dict(color=color, colours=keyed, **shape))


def rope_wavelengths(view: longer.Scaled) -> Figure:
    """Each pair's wavelength, default and scaled, against the original and extended windows (log axis)."""
    frame, levels = frames.scaled_wavelength_frame(view), frames.window_levels(view.preset)
    words = dict(title="wavelength of each pair", x_title="pair i", y_title="tokens per full turn")
    # the windows in black: vermillion (colours.ACCENT) sits too near linear's orange on a projector
    shape = dict(x="pair", y="wavelength", log_y=True, whole_x=True, overlay="reference", reference_colour="#000000")
    return _method_lines("wavelengths", frame, levels, color="rope", **shape, **words)


def rope_scores(view: longer.Scaled, seed: int) -> Figure:
    """The rotary score of fixed content with itself against the distance, unscaled and scaled, with the window."""
    scores = frames.score_frame(view, seed, points=600)  # 600 samples a curve: one or two a pixel of its chart
    point = frames.score_window_point(view, scores)
    words = dict(title="score of fixed content, q = k", x_title="distance m (tokens)", y_title="q · R(m) q")
    shape = dict(x="distance", y="score", overlay="marker")
    return _method_lines("scores-by-distance", scores, point, color="curve", **shape, **words)


def decay_curves(decay: longer.Decay) -> tuple[Figure, Figure]:
    """RoFormer's bound on the rotary score (its average over pairs) and the measured mean score, by distance."""
    bound_frame, measured_frame = frames.decay_frames(decay)
    keyed = tuple(zip(decay.names, colours.DECAY_COLOURS[: len(decay.names)], strict=True))  # two bases, two colours
    common = dict(x="distance", y="value", color="curve", x_title="relative distance m", colours=keyed)
    bound = Figure(
        "decay-bound",
        lines_bars.lines_keyed,
        (bound_frame,),
        dict(title="the bound's average over pairs", y_title="(1/(d/2)) Σ|S_j|", **common),
    )
    title = "measured: 256 random q with themselves"
    measured = Figure(
        "decay-measured",
        lines_bars.lines_keyed,
        (measured_frame,),
        dict(title=title, y_title="mean q · R(m) q", **common),
    )
    return bound, measured


def learned_table_curves(table: frames.PositionTable) -> tuple[Figure, Figure]:
    """A trained position table's row norms, and the median cosine of rows k apart next to a sinusoidal table's.

    >>> [f.name for f in learned_table_curves(_table())]
    ['minilm-norms', 'minilm-cosine-profile']
    """
    norms = _lines(
        "minilm-norms",
        frames.row_norms(table.norms),
        x="position",
        y="norm",
        title="norm of each position row",
        x_title="position",
        y_title="‖p_t‖",
    )
    # Each point drawn costs first-paint time (Vega encodes every point twice): the lows and highs of 64 log-spaced
    # stretches of k, not all 511 k; the CSV keeps every k.
    drawn = frames.cosine_profile(table, bins=64)
    shown = drawn["distance"].nunique()
    profile = replace(
        _lines(
            "minilm-cosine-profile",
            drawn,
            x="distance",
            y="cosine",
            color="table",
            log_x=True,
            title="median cosine of positions k apart",
            x_title=f"k (log; {shown} of {len(table.norms) - 1} k: each stretch's lows and highs)",
            y_title="cosine",
            legend="bottom",
        ),
        table=frames.cosine_profile(table),
    )
    return norms, profile


def learned_table_picture(table: frames.PositionTable, *, value_title: str | None = None) -> Figure:
    """A trained position table as a picture, its colours clipped at the 99th percentile of |value| (a few large
    values would leave the rest pale). `value_title` replaces the colour bar's title, which names the clip.

    >>> [learned_table_picture(_table()).shape[k] for k in ("title", "what")]
    ['position rows (8 positions × d = 4)', 'dimension 0-3 →, position 0-7 ↓']
    """
    clip = heatmaps.robust_domain(table.table)
    rows, cols = table.table.shape
    shape = dict(
        title=f"position rows ({rows} positions × d = {cols})",
        scheme=images.SIGNED_SCHEME,
        domain=clip,
        value_title=value_title or f"value (colours clipped at ±{number(clip[1])}, the 99th percentile)",
        what=f"dimension 0-{cols - 1} →, position 0-{rows - 1} ↓",  # the picture has no ticks: its ranges in words
    )
    return Figure("minilm-table", image=grids.reduced(table.table, 1, 1), shape=shape)


def position_cosine_pictures(table: frames.PositionTable) -> tuple[Figure, Figure]:
    """The cosine between every two positions' rows as pictures: the trained table's, then a sinusoidal table's.

    >>> [f.shape["title"] for f in position_cosine_pictures(_table())]
    ['cosine between positions: MiniLM (learned)', 'cosine between positions: sinusoidal']
    """
    return tuple(
        Figure(
            f"{name}-cosine",
            image=grids.reduced(cosine, 1, 1),
            shape=dict(
                title=f"cosine between positions: {which}",
                scheme=images.SIGNED_SCHEME,
                domain=(-1.0, 1.0),
                value_title="cosine",
                what="position →, position ↓",
                square=True,
            ),
        )
        for name, cosine, which in (
            ("minilm", table.cosine, "MiniLM (learned)"),
            ("sinusoid", table.sinusoid_cosine, "sinusoidal"),
        )
    )


def _table(T: int = 8, d: int = 4) -> frames.PositionTable:
    """A stand-in position table for the doctests (the real one is the model's: `posviz.models.minilm`)."""
    from types import SimpleNamespace

    rows = np.random.default_rng(0).standard_normal((T, d))
    eye, line = np.eye(T), np.linspace(1.0, 0.0, T - 1)
    norms = np.linalg.norm(rows, axis=1)
    return SimpleNamespace(
        table=rows, norms=norms, cosine=eye, sinusoid_cosine=eye, by_distance=line, sinusoid_by_distance=line
    )


def _by_scheme(frame: pd.DataFrame) -> pd.DataFrame:
    """A binned frame whose curves are named scheme-seedK, with the scheme and seed as columns of their own."""
    parts = frame["curve"].str.rsplit("-seed", n=1, expand=True)
    return frame.assign(scheme=parts[0], seed=parts[1])


def _fine(curves: Mapping[str, np.ndarray], width: int, points: int = 8) -> int:
    """A bin width no wider than `width` that leaves the longest curve at least `points` bins (a short text's lines).

    >>> _fine({"a": np.ones(6)}, 8), _fine({"a": np.ones(1000)}, 8)
    (1, 8)
    """
    return max(1, min(width, max(len(c) for c in curves.values()) // points))


def _means(width: int) -> str:
    """How a binned chart's points were made, for its title: "8-position means", or "each position" for width 1."""
    return "each position" if width == 1 else f"{width}-position means"


def _window(curves: Mapping[str, np.ndarray], T_train: int) -> pd.DataFrame:
    """The training window's end to mark, or no row when every curve ends before it (a short text's axis would
    otherwise stretch to T_train).

    >>> len(_window({"a": np.ones(6)}, 128)), len(_window({"a": np.ones(200)}, 128))
    (0, 1)
    """
    window = frames.window_frame(T_train, f"trained on {T_train} bytes")
    return window if max(len(c) for c in curves.values()) > T_train else window.iloc[:0]


def _keyed_lines(name: str, frame: pd.DataFrame, window: pd.DataFrame, keys: Sequence[str], **shape: object) -> Figure:
    present = [k for k in keys if k in set(frame["scheme"])]
    colours_ = tuple((k, colours.SCHEME_COLOURS.get(k, colours.METHOD_COLOURS.get(k, "#8c8c8c"))) for k in present)
    shape = dict(x="position", color="scheme", detail="curve", legend="bottom", colours=colours_, **shape)
    return Figure(name, lines_bars.lines_keyed, (frame, window), {"overlay": "window", **shape})


def _loss_lines(
    name: str,
    curves: Mapping[str, np.ndarray],
    width: int,
    window: pd.DataFrame,
    keys: Sequence[str],
    title: str,
    x_title: str = "position t",
    **front: object,
) -> Figure:
    """Loss per position of curves named key-seedK, averaged over bins of `width`, a colour a key, one line a seed."""
    frame = _by_scheme(frames.binned_frame(curves, width))
    shape = dict(y="loss", title=title, x_title=x_title, y_title="nats per byte", **front)
    return _keyed_lines(name, frame, window, keys, **shape)


def _scheme_points(
    name: str, frame: pd.DataFrame, x: str, x_title: str, y: str, y_title: str, title: str, **extra: object
) -> Figure:
    """Lines with their points, a colour a scheme (SCHEME_COLOURS) and one line a curve of a `_by_scheme` frame."""
    keys = [k for k in colours.SCHEME_COLOURS if k in set(frame["scheme"])]
    shape = dict(
        x=x,
        y=y,
        color="scheme",
        detail="curve",
        legend="bottom",
        points=True,
        **extra,
        colours=tuple((k, colours.SCHEME_COLOURS[k]) for k in keys),
        x_title=x_title,
        y_title=y_title,
        title=title,
    )
    return Figure(name, lines_bars.lines_keyed, (frame,), shape)


def heldout_by_position(curves: Mapping[str, np.ndarray], T_train: int, *, width: int = 32) -> Figure:
    """Held-out loss against position for every model of the matched family (one line per seed, one colour per
    scheme), averaged over bins of `width` positions, the training window's end marked.

    >>> heldout_by_position({"rope-seed0": np.ones(64), "learned-seed0": np.ones(16)}, 16).frames[0].shape
    (3, 5)
    """
    window = frames.window_frame(T_train, f"trained on {T_train} bytes")
    title = f"held-out loss by position ({width}-position means; one line a seed)"
    return _loss_lines(
        "heldout-by-position", curves, width, window, tuple(colours.SCHEME_COLOURS), title, front=("learned",)
    )


def text_by_position(curves: Mapping[str, np.ndarray], T_train: int, *, width: int = 16) -> Figure:
    """Loss at each position of a typed text for every model of the matched family (one line per seed, one colour
    per scheme), averaged over bins of `width` positions, the training window's end marked.

    >>> text_by_position({"rope-seed0": np.ones(40), "learned-seed0": np.ones(16)}, 16).frames[0].shape  # width 5
    (12, 5)
    """
    width = _fine(curves, width)
    title = f"loss on your text by position ({_means(width)}; one line a seed)"
    return _loss_lines(
        "text-by-position",
        curves,
        width,
        _window(curves, T_train),
        tuple(colours.SCHEME_COLOURS),
        title,
        "position t (byte of your text)",
        front=("learned",),
    )


def scaled_by_position(curves: Mapping[str, np.ndarray], T_train: int, *, width: int = 32) -> Figure:
    """The RoPE models' held-out loss by position with each scaling method applied at inference (curves named
    method-seedK; "unscaled" as trained).

    >>> scaled_by_position({"unscaled-seed0": np.ones(64), "linear-seed0": np.ones(64)}, 16).frames[0].shape
    (4, 5)
    """
    window = frames.window_frame(T_train, f"trained on {T_train} bytes")
    title = "the RoPE models with a scaling method at inference (no fine-tuning)"
    return _loss_lines("scaled-by-position", curves, width, window, tuple(colours.METHOD_COLOURS), title)


def probe_by_layer(r2: Mapping[str, np.ndarray]) -> Figure:
    """R² of the linear probe of position at each layer, one line a model (curves named scheme-seedK).

    >>> probe_by_layer({"none-seed0": np.zeros(5)}).frames[0].shape
    (5, 6)
    """
    frame = _by_scheme(frames.binned_frame(r2, 1, y_name="R²")).assign(layer=lambda f: f["position"] - 0.5)
    title = "how well a linear probe reads position t"
    return _scheme_points(
        "probe-by-layer", frame, "layer", "layer (0 = the input)", "R²", "R² on held-out windows", title, whole_x=True
    )


def attention_on_first(first: Mapping[str, np.ndarray], T_train: int, *, layer: int, width: int = 8) -> Figure:
    """The weight each query puts on the first token against its position, one line a model (curves named
    scheme-seedK), the training window's end marked.

    >>> attention_on_first({"rope-seed0": np.ones(32)}, 16, layer=0).frames[0].shape  # 8 bins of 4 at least
    (8, 5)
    """
    width = _fine(first, width)
    frame = _by_scheme(frames.binned_frame(first, width, y_name="weight"))
    window = _window(first, T_train)
    title = f"layer {layer}: weight on token 0 ({_means(width)})"
    keys = tuple(colours.SCHEME_COLOURS)
    shape = dict(y="weight", title=title, x_title="query position t", y_title="weight on token 0", front=("learned",))
    return _keyed_lines("attention-on-first", frame, window, keys, **shape)


def attention_on_recent(
    recent: Mapping[str, np.ndarray], T_train: int, *, layer: int, last: int, width: int = 8
) -> Figure:
    """The weight each query puts on the `last` most recent tokens (itself included) against its position, one line
    a model (curves named scheme-seedK), the training window's end marked.

    >>> attention_on_recent({"rope-seed0": np.ones(32)}, 16, layer=0, last=4).frames[0].shape
    (8, 5)
    """
    width = _fine(recent, width)
    frame = _by_scheme(frames.binned_frame(recent, width, y_name="weight"))
    window = _window(recent, T_train)
    title = f"layer {layer}: weight on the {last} latest tokens ({_means(width)})"
    y_title = f"weight on tokens t-{last - 1}..t"
    shape = dict(y="weight", title=title, x_title="query position t", y_title=y_title, front=("learned",))
    return _keyed_lines("attention-on-recent", frame, window, tuple(colours.SCHEME_COLOURS), **shape)


def attention_picture(weights: np.ndarray, T_train: int, *, title: str, max_cells: int = 16_384) -> Figure:
    """One head's attention weights (query rows, key columns) as a heatmap of block means, the colours clipped at
    the 99th percentile of the cells (block means of a long text are small beside the first column).

    >>> attention_picture(np.tril(np.ones((8, 8))) / np.arange(1, 9)[:, None], 4, title="t").cells.values.shape
    (8, 8)
    """
    reduced = grids.block_mean(weights, max_cells)
    top = max(float(np.quantile(reduced.values, 0.99)), 1e-6)
    shape = dict(
        title=title,
        row_title=f"query position (the window ends at {T_train - 1})",
        col_title="key position",
        domain=(0.0, top),
        scheme=images.WEIGHT_SCHEME,
        value_title=f"weight (clipped at {number(top)})",
    )
    return Figure("attention-weights", heatmaps.grid_heatmap, (frames.reduced_frame(reduced),), shape, cells=reduced)


def by_scale(values: Mapping[str, np.ndarray], scales: np.ndarray, *, name: str, title: str, y_title: str) -> Figure:
    """A value (held-out loss, a cosine) against the scale of the position signal, one line a model (curves named
    scheme-seedK).

    >>> by_scale({"rope-seed0": np.ones(3)}, np.linspace(0, 1, 3), name="x", title="t", y_title="y").frames[0].shape
    (3, 5)
    """
    rows = [
        pd.DataFrame({"scale": np.asarray(scales, dtype=float), "value": np.asarray(v, dtype=float), "curve": k})
        for k, v in values.items()
    ]
    frame = _by_scheme(pd.concat(rows, ignore_index=True))
    return _scheme_points(name, frame, "scale", "position signal × scale (0 = none)", "value", y_title, title)
