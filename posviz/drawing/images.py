"""Matrices as colour images: the same piecewise-linear RGB palettes the Altair charts use, and their PNG bytes.

Shapes: R rows, K columns.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from posviz.maths import _checks

SIGNED_SCHEME = "blueorange"  # signed values, diverging around 0
WEIGHT_SCHEME = "viridis"  # attention weights over [0, 1]
# Vega's "blueorange" and "viridis" sampled at 11 evenly spaced points (tools/extract_palettes.py).
SIGNED_STOPS = (
    "#134b85", "#2f78b3", "#5da2cb", "#9dcae1", "#d2e5ef", "#f2f0eb",
    "#fce0ba", "#fbbf74", "#e8932f", "#c5690d", "#994a07",
)  # fmt: skip
WEIGHT_STOPS = (
    "#440154", "#482575", "#414487", "#35608d", "#2a788e", "#21918d",
    "#22a884", "#43bf71", "#7ad151", "#bcdf27", "#fde725",
)  # fmt: skip
MISSING = (200, 200, 200)


def stops(scheme: str) -> tuple[str, ...]:
    """The 11 RGB stops of a colour scheme, shared by the Altair charts and the pictures.

    >>> len(stops(SIGNED_SCHEME)), stops(WEIGHT_SCHEME)[0]
    (11, '#440154')
    """
    if scheme not in (SIGNED_SCHEME, WEIGHT_SCHEME):
        raise ValueError(f"scheme must be {SIGNED_SCHEME!r} or {WEIGHT_SCHEME!r}, got {scheme!r}")
    return SIGNED_STOPS if scheme == SIGNED_SCHEME else WEIGHT_STOPS


def _rgb(stops: tuple[str, ...]) -> np.ndarray:
    return np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in stops], dtype=np.float64)


def colorize(m: np.ndarray, stops: tuple[str, ...], domain: tuple[float, float]) -> np.ndarray:
    """Map values to colours: linear in RGB between evenly spaced stops over `domain`, clamped at its ends.

    NaN becomes light grey.
    Returns: (R, K, 3) uint8

    >>> colorize(np.zeros((2, 3)), SIGNED_STOPS, (-1.0, 1.0)).shape
    (2, 3, 3)
    """
    m = np.asarray(m, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"m must be a 2-D matrix, got shape {m.shape}")
    lo, hi = _checks.finite_real("domain[0]", domain[0]), _checks.finite_real("domain[1]", domain[1])
    if not lo < hi:
        raise ValueError(f"domain must rise, got ({lo}, {hi})")
    rgb = _rgb(stops)
    positions = np.linspace(lo, hi, len(stops))
    safe = np.where(np.isnan(m), lo, m)
    out = np.stack([np.interp(safe, positions, rgb[:, c]) for c in range(3)], axis=-1)
    out = np.rint(out).astype(np.uint8)
    out[np.isnan(m)] = MISSING
    return out


# WCAG 2's relative luminance at which black and white text have the same contrast ratio: (L + 0.05) / 0.05 =
# 1.05 / (L + 0.05) at L = sqrt(1.05 * 0.05) - 0.05. A cell lighter than this takes dark text, a darker one white.
EVEN_CONTRAST = float(np.sqrt(1.05 * 0.05) - 0.05)


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2's relative luminance of sRGB colours (0 black, 1 white): the channels linearised, then weighted.

    Returns: (...) for (..., 3) uint8 colours

    >>> float(luminance(np.array([255, 255, 255]))), float(luminance(np.array([0, 0, 0])))
    (1.0, 0.0)
    """
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def light_span(scheme: str, samples: int = 1001) -> tuple[float, float]:
    """The part of `scheme`'s domain, as fractions from its low end (0) to its high end (1), whose colours are
    lighter than EVEN_CONTRAST: a value written there is drawn dark, elsewhere white. Both schemes have one light
    stretch (viridis: its upper half; blueorange: all but its darkest blues and browns).

    >>> light_span(WEIGHT_SCHEME)[1], round(light_span(WEIGHT_SCHEME)[0], 2)
    (1.0, 0.43)
    """
    f = np.linspace(0.0, 1.0, samples)
    light = luminance(colorize(f[None, :], stops(scheme), (0.0, 1.0))[0]) > EVEN_CONTRAST
    where = f[light]
    return float(where.min()), float(where.max())


def indexed(
    m: np.ndarray, stops: tuple[str, ...], domain: tuple[float, float], levels: int = 255
) -> tuple[np.ndarray, np.ndarray]:
    """Values as indices into a palette of `levels` colours evenly spaced over `domain`, then grey for NaN.

    colorize() at the nearest of `levels` values: a PNG of one byte a pixel (about a third of RGB's
    size for noisy matrices), within about one level's colour step of colorize().
    Returns: ((R, K) uint8, (levels + 1, 3) uint8)

    >>> indexed(np.zeros((2, 3)), SIGNED_STOPS, (-1.0, 1.0))[0].shape
    (2, 3)
    """
    levels = _checks.integer("levels", levels, minimum=2)
    if levels > 255:
        raise ValueError(f"levels must leave a palette entry for NaN (at most 255), got {levels}")
    m = np.asarray(m, dtype=np.float64)
    palette = colorize(np.linspace(domain[0], domain[1], levels)[None, :], stops, domain)[0]
    lo, hi = float(domain[0]), float(domain[1])
    safe = np.clip(np.where(np.isnan(m), lo, m), lo, hi)
    index = np.rint((safe - lo) / (hi - lo) * (levels - 1)).astype(np.uint8)
    index[np.isnan(m)] = levels
    return index, np.vstack([palette, np.array([MISSING], dtype=np.uint8)])


def upscale(image: np.ndarray, min_pixels: int = 256, max_pixels: int = 2048) -> np.ndarray:
    """Repeat pixels so that the short side has at least `min_pixels` (nearest neighbour, exact colours), as far
    as the long side stays within `max_pixels` (a 4 x 256 strip grows 8 times, not 64).

    Returns: (R * f, K * f, ...) for an (R, K, ...) picture

    >>> upscale(np.zeros((4, 256), np.uint8)).shape
    (32, 2048)
    """
    short, long = max(1, min(image.shape[:2])), max(1, max(image.shape[:2]))
    factor = max(1, min(-(-min_pixels // short), max_pixels // long))
    return np.repeat(np.repeat(image, factor, axis=0), factor, axis=1) if factor > 1 else image


def stretch(image: np.ndarray, rows_px: float, cols_px: float) -> np.ndarray:
    """Repeat each row and each column a whole number of times (each axis on its own) to come near
    rows_px x cols_px: a picture that fills a chart's box as its heatmap would, exact colours kept.

    Returns: (R * fr, K * fc, ...) with fr = max(1, round(rows_px / R)), fc = max(1, round(cols_px / K))

    >>> stretch(np.zeros((4, 256), np.uint8), 260, 760).shape
    (260, 768)
    """
    fr = max(1, round(rows_px / max(1, image.shape[0])))
    fc = max(1, round(cols_px / max(1, image.shape[1])))
    return np.repeat(np.repeat(image, fr, axis=0), fc, axis=1)


# One byte a pixel, 128 colours over the domain: the MiniLM page's three noisy 512-row images went from 1,139 kB as
# RGB to 339 kB (255 colours: 409 kB); a level is 1/127 of the colour bar.
PNG_LEVELS = 128
BAR_ROWS = 18  # a colour bar's height in pixels


def png(index: np.ndarray, palette: np.ndarray) -> bytes:
    """PNG bytes of a paletted picture (`indexed`): one byte a pixel, an index into `palette`'s RGB rows.

    >>> png(*indexed(np.zeros((2, 3)), SIGNED_STOPS, (-1.0, 1.0)))[:4]
    b'\\x89PNG'
    """
    picture = Image.fromarray(np.asarray(index, dtype=np.uint8))
    picture.putpalette(np.asarray(palette, dtype=np.uint8).ravel().tolist())
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue()


def matrix_png(
    m: np.ndarray, scheme: str, domain: tuple[float, float], box: tuple[float, float] | None = None
) -> bytes:
    """A matrix as a PNG in `scheme`'s colours over `domain` (PNG_LEVELS of them), each value a block of pixels:
    `upscale`d, or `stretch`ed to about `box` (rows, columns of pixels) on each axis on its own.

    A 512 x 1024 matrix takes ~0.2 s to colour and compress (the app caches it).
    """
    index, palette = indexed(m, stops(scheme), domain, levels=PNG_LEVELS)
    return png(upscale(index) if box is None else stretch(index, *box), palette)


def colour_bar_png(domain: tuple[float, float], scheme: str) -> bytes:
    """The colour bar of `matrix_png`'s pictures: `domain` from left to right in 512 columns, BAR_ROWS high."""
    index, palette = indexed(np.linspace(domain[0], domain[1], 512)[None, :], stops(scheme), domain, PNG_LEVELS)
    return png(np.repeat(index, BAR_ROWS, axis=0), palette)
