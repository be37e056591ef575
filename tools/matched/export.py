"""Weights to and from the shipped .npz files, and the held-out loss table read from provenance.json."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from posviz.experiments import matched as matched_experiments
from tools.matched.model import PARAM_SHAPES


def rounded(params: dict, dtype: str) -> dict[str, np.ndarray]:
    """The arrays as shipped: cast to dtype (float16 or float32), in PARAM_SHAPES order."""
    return {k: np.asarray(params[k]).astype(dtype) for k in PARAM_SHAPES if k in params}


def save(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Write an uncompressed .npz (np.load reads it without pickle) and return its sha256."""
    np.savez(path, **arrays)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load(path: Path) -> dict[str, np.ndarray]:
    """The shipped arrays cast to float32, the precision every recorded loss was computed in."""
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k].astype(np.float32) for k in f.files}


def bins(T_train: int, factor: int) -> list[tuple[int, int]]:
    """Position bins [0, T), [T, 2T), [2T, 4T), ... up to factor x T_train: posviz's own (the page's table)."""
    return matched_experiments.bins(T_train, factor)


def table(provenance: dict) -> str:
    """Markdown table: each scheme's held-out loss per position bin, mean over seeds and (min..max) across seeds."""
    T, factor = provenance["recipe"]["model"]["T_train"], provenance["evaluation"]["factor"]
    spans = bins(T, factor)
    head = "| scheme | seeds | " + " | ".join(f"positions {a}-{b - 1}" for a, b in spans) + " |"
    lines = [head, "|" + " --- |" * (len(spans) + 2)]
    by_scheme: dict[str, list[np.ndarray]] = {}
    for entry in provenance["models"].values():
        by_scheme.setdefault(entry["scheme"], []).append(np.array(entry["heldout_per_position"]))
    for scheme, curves in by_scheme.items():
        cells = []
        for a, b in spans:
            values = [c[a:b].mean() for c in curves if len(c) >= b]
            if not values:
                cells.append("(table ends at T_train)")
                continue
            cells.append(f"{np.mean(values):.3f} ({min(values):.3f}..{max(values):.3f})")
        lines.append(f"| {scheme} | {len(curves)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
