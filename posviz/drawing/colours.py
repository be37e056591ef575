"""The charts' colours: the series' palette and accent, and one colour per RoPE scaling method, per bias, per way of
positioning a cache, per base.

Okabe-Ito hues (colour-blind safe), each keyed by the name a legend shows, so a series keeps its colour whichever
others it is drawn with. No maths, no streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from posviz.drawing import images
from posviz.experiments.longer import BIAS_NAMES, SINK_SHORT, sink_exact
from posviz.maths import biases, sinks

# The series' palette (Okabe-Ito), the accent of reference lines and markers, and the text and masked-cell greys.
SERIES_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
ACCENT = "#D55E00"
TEXT_COLOUR = "#31333f"  # Streamlit's light theme text, which its Vega theme gives chart titles
MASKED_GREY = "#d4d4d4"  # a key the causal mask hides: neither a weight colour nor the page's background
# One colour per way of scaling RoPE, in every chart that draws one (unscaled the neutral grey); Okabe-Ito hues,
# leaving out vermillion, which the charts' reference lines and markers use (ACCENT).
METHOD_COLOURS = {
    "unscaled": "#8c8c8c",
    "linear": "#E69F00",
    "dynamic": "#009E73",
    "yarn": "#CC79A7",
    "llama3": "#0072B2",
    "longrope": "#56B4E9",
}
# The decay part's two bases: hues no method uses, so a colour there does not read as a scaling method.
DECAY_COLOURS = ("#000000", "#D55E00")
# The biases' colours: ALiBi and T5 causal far apart in hue (not two blues) on a projector.
BIAS_COLOURS = {
    "t5": "#CC79A7",
    "t5_causal": "#E69F00",
    "shaw": "#009E73",
    "alibi": "#0072B2",
    "kerple": "#000000",
}
# The matched family's schemes: one hue each, away from vermillion (the training window's line, ACCENT).
SCHEME_COLOURS = {
    "none": "#000000",
    "learned": "#E69F00",
    "sinusoid": "#56B4E9",
    "rope": "#CC79A7",
    "alibi": "#009E73",
}
SINK_COLOURS = {"cache": "#0072B2", "original": "#E69F00", "rotated_at_insert": "#CC79A7"}
# named like the headlines' metric: each step's error against the recompute
SINK_SERIES = {way: f"error, {short}" for way, short in SINK_SHORT.items()}


def readable(colour: str, ratio: float = 4.5) -> str:
    """`colour` darkened toward black in small steps until text in it keeps `ratio` contrast on white (WCAG AA for
    normal text): a series' name written in its line's hue ("sinusoids" in #56B4E9 read at 2.3:1 from a hall).

    >>> readable("#56B4E9"), readable("#000000")
    ('#3b7ca1', '#000000')
    """
    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    for step in range(101):
        shade = np.round(rgb * (1 - step / 100)).astype(int)
        if 1.05 / (float(images.luminance(shade)) + 0.05) >= ratio:  # WCAG contrast against white
            return "#" + "".join(f"{c:02x}" for c in shade)
    return "#000000"


def method_colours(names: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each series name with its method's colour (METHOD_COLOURS), by the name's first word ("yarn (x a²)": yarn).

    >>> method_colours(["unscaled", "yarn (x a²)"])
    (('unscaled', '#8c8c8c'), ('yarn (x a²)', '#CC79A7'))
    """
    unknown = [n for n in names if n.split(" ")[0] not in METHOD_COLOURS]
    if unknown:
        raise ValueError(f"series must be named after one of {tuple(METHOD_COLOURS)}, got {unknown}")
    return tuple((n, METHOD_COLOURS[n.split(" ")[0]]) for n in names)


def bias_colours() -> tuple[tuple[str, str], ...]:
    """Each bias's display name with its colour (BIAS_COLOURS), in KINDS order."""
    return tuple((BIAS_NAMES[k], BIAS_COLOURS[k]) for k in biases.KINDS)


def sink_series(results: Mapping[str, sinks.StreamingResult]) -> dict[str, str]:
    """Each way's legend name (SINK_SERIES), marked where every step's error is rounding (`sink_exact`): its bars are
    at 0 on the chart's axis, not missing.

    >>> sink_series({"cache": sinks.demo_streaming(T=12)})["cache"]
    'error, re-indexed cache (rounding only: at 0)'
    """
    return {w: SINK_SERIES[w] + (" (rounding only: at 0)" if sink_exact(r) else "") for w, r in results.items()}


def sink_colours(results: Mapping[str, sinks.StreamingResult]) -> tuple[tuple[str, str], ...]:
    """Each way's legend name and its colour (SINK_COLOURS), for `lines_bars.grouped_bars_keyed`."""
    return tuple((name, SINK_COLOURS[w]) for w, name in sink_series(results).items())
