"""Independent, deliberately naive implementations of the formulas, for cross-checks.

Scalar loops with the math module: no shared code with posviz.
"""

from __future__ import annotations

import math

import numpy as np


def sinusoid_loops(T: int, d: int, start: int = 0, base: float = 10000.0) -> np.ndarray:
    pe = np.zeros((T, d))
    for t in range(T):
        for i in range(d // 2):
            angle = (start + t) / base ** (2 * i / d)
            pe[t, 2 * i] = math.sin(angle)
            pe[t, 2 * i + 1] = math.cos(angle)
    return pe


def rope_matrices(x: np.ndarray, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """RoFormer eq. 14-15: a block-diagonal rotation matrix R_t applied to each row."""
    T, d = x.shape
    out = np.zeros_like(x)
    for t in range(T):
        r = np.zeros((d, d))
        for i in range(d // 2):
            a = (start + t) * base ** (-2 * i / d)
            r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        out[t] = r @ x[t]
    return out


def attention_loops(x, w_q, w_k, w_v, causal=False):
    """One head over (T, d), scalar loops; returns (weights, output)."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    T, d_k = q.shape
    weights = np.zeros((T, T))
    for i in range(T):
        visible = range(i + 1) if causal else range(T)
        scores = {j: sum(q[i, c] * k[j, c] for c in range(d_k)) / math.sqrt(d_k) for j in visible}
        top = max(scores.values())
        total = sum(math.exp(s - top) for s in scores.values())
        for j, s in scores.items():
            weights[i, j] = math.exp(s - top) / total
    return weights, weights @ v


def rope_inv_freq_loops(rope_type, dim, base, **cfg):
    """transformers' modeling_rope_utils formulas, one pair at a time with the math module.

    cfg holds the rope_scaling keys (factor, original_max_position_embeddings, ...), plus
    max_position_embeddings and seq_len where a type reads them. Returns (list of inv_freq, attention factor).
    """
    attention = 1.0
    if rope_type == "dynamic":
        top = cfg["max_position_embeddings"]
        seq = max(cfg.get("seq_len") or top, top)
        base = base * ((cfg["factor"] * seq / top) - (cfg["factor"] - 1)) ** (dim / (dim - 2))
    plain = [1.0 / base ** (i / dim) for i in range(0, dim, 2)]
    if rope_type in ("default", "dynamic"):
        return plain, attention
    if rope_type == "linear":
        return [f / cfg["factor"] for f in plain], attention
    if rope_type == "llama3":
        factor, old = cfg["factor"], cfg["original_max_position_embeddings"]
        low, high = cfg["low_freq_factor"], cfg["high_freq_factor"]
        out = []
        for f in plain:
            wavelen = 2 * math.pi / f
            if wavelen < old / high:
                out.append(f)
            elif wavelen > old / low:
                out.append(f / factor)
            else:
                smooth = (old / wavelen - low) / (high - low)
                out.append((1 - smooth) * f / factor + smooth * f)
        return out, attention
    if rope_type == "yarn":
        factor, old = cfg["factor"], cfg["original_max_position_embeddings"]
        mscale, mscale_all = cfg.get("mscale"), cfg.get("mscale_all_dim")

        def get_mscale(scale, m=1.0):
            return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

        attention = (
            get_mscale(factor, mscale) / get_mscale(factor, mscale_all) if mscale and mscale_all else get_mscale(factor)
        )

        def corr(rot):
            return dim * math.log(old / (rot * 2 * math.pi)) / (2 * math.log(base))

        lo = max(math.floor(corr(cfg.get("beta_fast") or 32)), 0)
        hi = min(math.ceil(corr(cfg.get("beta_slow") or 1)), dim - 1)
        if lo == hi:
            hi += 0.001
        out = []
        for i, f in enumerate(plain):
            ramp = min(max((i - lo) / (hi - lo), 0.0), 1.0)  # 0: keep, 1: interpolate
            out.append(f / factor * ramp + f * (1 - ramp))
        return out, attention
    if rope_type == "longrope":
        old, factor = cfg["original_max_position_embeddings"], cfg["factor"]
        attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(old))
        seq = cfg.get("seq_len")
        ext = cfg["long_factor"] if seq and seq > old else cfg["short_factor"]
        return [f / e for f, e in zip(plain, ext, strict=True)], attention
    raise ValueError(rope_type)


def t5_bucket_loop(rel, bidirectional=True, num_buckets=32, max_distance=128):
    """T5's _relative_position_bucket for one integer offset (key minus query), with the math module."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if rel > 0 else 0
        n = abs(rel)
    else:
        n = -min(rel, 0)
    exact = num_buckets // 2
    if n < exact:
        return bucket + n
    large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (num_buckets - exact))
    return bucket + min(large, num_buckets - 1)


def roformer_bound_loop(distance, dim, base=10000.0):
    """RoFormer 3.4.3: (1/(d/2)) sum_{j=1}^{d/2} |S_j| with S_j = sum_{k=0}^{j-1} e^{i m theta_k}."""
    total, re, im = 0.0, 0.0, 0.0
    for k in range(dim // 2):
        angle = distance * base ** (-2 * k / dim)
        re, im = re + math.cos(angle), im + math.sin(angle)
        total += math.hypot(re, im)
    return total / (dim // 2)


def int8_by_hand(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Stored int8 entries times their float32 scales, each scale repeated over its block of columns.

    scale (R,) is one scale a row; scale (R, G) one per C / G consecutive columns of a row (the shipped 32).
    """
    q = np.asarray(q)
    scale = np.asarray(scale, dtype=np.float64).reshape(q.shape[0], -1)  # (R, G)
    return q.astype(np.float64) * np.repeat(scale, q.shape[1] // scale.shape[1], axis=1)


def stored_matrix(arrays: dict[str, np.ndarray], key: str) -> np.ndarray:
    """A layer matrix decoded from its stored arrays: int8 with "<key>.scale", or floats as stored."""
    stored = arrays[key]
    return int8_by_hand(stored, arrays[key + ".scale"]) if stored.dtype == np.int8 else np.asarray(stored, float)


def bert_heads(h, w_q, b_q, w_k, b_k, w_v, b_v, heads):
    """BERT's self-attention written out head by head, torch's x W^T + b; returns (weights (H, T, T), output (T, d))."""
    hs = h.shape[1] // heads
    weights, outputs = [], []
    for head in range(heads):
        cols = slice(head * hs, (head + 1) * hs)
        q = h @ w_q[cols].T + b_q[cols]
        k = h @ w_k[cols].T + b_k[cols]
        v = h @ w_v[cols].T + b_v[cols]
        scores = q @ k.T / math.sqrt(hs)
        w = np.exp(scores - scores.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        weights.append(w)
        outputs.append(w @ v)
    return np.stack(weights), np.concatenate(outputs, axis=1)
