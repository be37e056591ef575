"""`posviz inspect`: each rotated pair of a GGUF file against its context, and what its rope scaling does to it.

The header is models.gguf_inspect's; the pairs are the Longer contexts page's (`longer.scaled` of the header as a
`scaling.Preset`), so every frequency comes from posviz.maths.scaling.inv_freq: theta_i = base ** (-2i / r), then
the file's scaling, then Llama 3's per-pair factors when the file has `rope_freqs.weight` (`Scheme.inv_freq`).
Wavelength = 2 pi / theta_i tokens per full turn; a pair whose wavelength exceeds the window never completes a turn
inside it.

Dimension letters: P rotated pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from posviz.experiments import longer
from posviz.maths import scaling
from posviz.models import gguf_inspect
from posviz.models.gguf_inspect import Scheme

# The factor tensor's name, for the drawing layer (which may not import posviz.models).
FREQ_FACTORS = gguf_inspect.FREQ_FACTORS


@dataclass(frozen=True)
class Report:
    """A file's scheme and, when posviz knows how it rotates, its pairs (`view`) at the file's context."""

    scheme: Scheme
    view: longer.Scaled | None  # None when `scheme.problems()` is not empty

    @property
    def window(self) -> int:
        """The window the unscaled pairs are measured against: the original context, else the context."""
        return self.view.preset.original

    @property
    def wavelengths(self) -> np.ndarray:
        """Tokens per full turn of each unscaled pair: 2 pi / theta_i. Returns: (P,)"""
        return scaling.wavelengths(self.view.plain)

    @property
    def scaled_wavelengths(self) -> np.ndarray:
        """Tokens per full turn of each pair under the file's scaling (the unscaled ones when it has none). (P,)"""
        return scaling.wavelengths(self.view.inv)

    @property
    def never_turn(self) -> np.ndarray:
        """Indices of the pairs that never complete a turn inside `window`, unscaled. Returns: (<= P,)"""
        return np.flatnonzero(self.wavelengths > self.window)

    @property
    def scaled_never_turn(self) -> np.ndarray:
        """Indices of the scaled pairs that never complete a turn inside the context. Returns: (<= P,)"""
        return np.flatnonzero(self.scaled_wavelengths > self.scheme.context)

    @property
    def divisors(self) -> np.ndarray:
        """How much the scaling slows each pair: theta_i / scaled theta_i (1 = untouched). Returns: (P,)"""
        return self.view.plain / self.view.inv


def report(scheme: Scheme) -> Report:
    """The scheme's pairs through the maths layer; a scheme with problems keeps `view` None (nothing guessed).

    >>> report(gguf_inspect.read(shipped_file())).wavelengths.shape
    (32,)
    """
    if scheme.problems():
        return Report(scheme, None)
    view = longer.scaled(scheme.preset())
    return Report(scheme, view if scheme.freq_factors is None else replace(view, inv=scheme.inv_freq()))


def inspect(path: str | Path) -> Report:
    """Read a GGUF file's header and compute its pairs: `report(gguf_inspect.read(path))`."""
    return report(gguf_inspect.read(path))


def shipped_file() -> Path:
    """The GGUF file posviz ships (SmolLM2's first layers, with every key of the published file's header)."""
    from posviz.models import smollm2

    return smollm2.DATA / smollm2.GGUF_FILE
