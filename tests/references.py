"""Independent, deliberately naive implementations of the formulas, for cross-checks.

Scalar loops with the math module: no shared code with posviz.
"""

from __future__ import annotations

import math

import numpy as np


def sinusoid_loops(length: int, width: int, start: int = 0, base: float = 10000.0) -> np.ndarray:
    pe = np.zeros((length, width))
    for t in range(length):
        for i in range(width // 2):
            angle = (start + t) / base ** (2 * i / width)
            pe[t, 2 * i] = math.sin(angle)
            pe[t, 2 * i + 1] = math.cos(angle)
    return pe


def rope_matrices(x: np.ndarray, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """RoFormer eq. 14-15: a block-diagonal rotation matrix R_t applied to each row."""
    length, width = x.shape
    out = np.zeros_like(x)
    for t in range(length):
        r = np.zeros((width, width))
        for i in range(width // 2):
            a = (start + t) * base ** (-2 * i / width)
            r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        out[t] = r @ x[t]
    return out


def attention_loops(x, w_q, w_k, w_v, causal=False):
    """One head over (T, C), scalar loops; returns (weights, output)."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    length, d_k = q.shape
    weights = np.zeros((length, length))
    for i in range(length):
        visible = range(i + 1) if causal else range(length)
        scores = {j: sum(q[i, c] * k[j, c] for c in range(d_k)) / math.sqrt(d_k) for j in visible}
        top = max(scores.values())
        total = sum(math.exp(s - top) for s in scores.values())
        for j, s in scores.items():
            weights[i, j] = math.exp(s - top) / total
    return weights, weights @ v
