"""An independent reference for posviz's matched family: one token, one head, one key at a time, in float64.

Written from the recipe in posviz/data/matched/README.md, not from tools/matched/model.py: nothing is imported from
the training tool or from posviz. Loops run over positions, heads and keys; the only numpy calls are np.dot of one
row with one vector or matrix, exp, log, sqrt, sin and cos, so each line can be checked against the formula by eye.
Slow on purpose (seconds for a couple of hundred tokens); tests use it on short prefixes of the shipped windows.

Legend: T tokens, d width, H heads, hd = d / H, L layers, V = 256 byte values.
"""

from __future__ import annotations

import math

import numpy as np


def layer_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * scale + bias for one token's row (d,)."""
    d = len(x)
    mean = sum(float(v) for v in x) / d
    var = sum((float(v) - mean) ** 2 for v in x) / d
    return np.array([(float(x[i]) - mean) / math.sqrt(var + eps) * scale[i] + bias[i] for i in range(d)])


def gelu(v: float) -> float:
    """0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))."""
    return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)))


def sinusoid_row(t: int, d: int, base: float) -> np.ndarray:
    """pe[t, 2i] = sin(t base^(-2i/d)), pe[t, 2i+1] = cos(same)."""
    row = np.zeros(d)
    for i in range(d // 2):
        angle = t * base ** (-2.0 * i / d)
        row[2 * i], row[2 * i + 1] = math.sin(angle), math.cos(angle)
    return row


def rotate_half(x: np.ndarray, t: int, base: float) -> np.ndarray:
    """RoPE, rotate-half layout: dimension i pairs with i + hd/2, angle t base^(-2i/hd)."""
    hd = len(x)
    out = np.zeros(hd)
    for i in range(hd // 2):
        angle = t * base ** (-2.0 * i / hd)
        c, s = math.cos(angle), math.sin(angle)
        out[i] = x[i] * c - x[i + hd // 2] * s
        out[i + hd // 2] = x[i + hd // 2] * c + x[i] * s
    return out


def token_losses(weights: dict[str, np.ndarray], tokens: list[int], scheme: str, recipe: dict) -> list[float]:
    """-ln p(tokens[t+1] | tokens[0..t]) for t = 0 .. len(tokens) - 2, computed token by token.

    weights: the arrays of one shipped .npz; recipe: provenance.json's recipe["model"].
    Returns: len(tokens) - 1 floats in nats
    """
    L, d, H = recipe["layers"], recipe["d"], recipe["heads"]
    hd, eps, base = d // H, recipe["ln_eps"], recipe["base"]
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    T = len(tokens) - 1
    xs = []
    for t in range(T):
        x = w["tok_emb"][tokens[t]] * math.sqrt(d)
        if scheme == "learned":
            x = x + w["pos_emb"][t]
        if scheme == "sinusoid":
            x = x + sinusoid_row(t, d, base)
        xs.append(x)
    slopes = [2.0 ** (-8.0 * h / H) for h in range(1, H + 1)]
    for layer in range(L):
        hs = [layer_norm(x, w["ln1_scale"][layer], w["ln1_bias"][layer], eps) for x in xs]
        q = [np.dot(h, w["wq"][layer]) for h in hs]
        k = [np.dot(h, w["wk"][layer]) for h in hs]
        v = [np.dot(h, w["wv"][layer]) for h in hs]
        if scheme == "rope":  # each head's slice of q and k turned by its own position
            for t in range(T):
                for head in range(H):
                    cols = slice(head * hd, (head + 1) * hd)
                    q[t][cols], k[t][cols] = rotate_half(q[t][cols], t, base), rotate_half(k[t][cols], t, base)
        new = []
        for i in range(T):
            mixed = np.zeros(d)
            for head in range(H):
                cols = slice(head * hd, (head + 1) * hd)
                scores = []
                for j in range(i + 1):  # causal: keys at or before the query
                    score = float(np.dot(q[i][cols], k[j][cols])) / math.sqrt(hd)
                    if scheme == "alibi":
                        score -= slopes[head] * (i - j)
                    scores.append(score)
                top = max(scores)
                exps = [math.exp(s - top) for s in scores]
                total = sum(exps)
                for j in range(i + 1):
                    mixed[cols] += exps[j] / total * v[j][cols]
            x = xs[i] + np.dot(mixed, w["wo"][layer])
            h = layer_norm(x, w["ln2_scale"][layer], w["ln2_bias"][layer], eps)
            up = np.dot(h, w["w_up"][layer])
            x = x + np.dot(np.array([gelu(float(u)) for u in up]), w["w_down"][layer])
            new.append(x)
        xs = new
    losses = []
    for t in range(T):
        h = layer_norm(xs[t], w["lnf_scale"], w["lnf_bias"], eps)
        logits = [float(np.dot(h, w["tok_emb"][b])) for b in range(256)]
        top = max(logits)
        log_total = top + math.log(sum(math.exp(z - top) for z in logits))
        losses.append(log_total - logits[tokens[t + 1]])
    return losses
