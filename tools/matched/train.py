"""Adam with warm-up and cosine decay, the jitted step, and the training loop with its progress line."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import jax
import jax.numpy as jnp
import numpy as np

from tools.matched.model import Config, token_losses


@dataclass(frozen=True)
class Recipe:
    """The optimiser and schedule, shared by every scheme."""

    steps: int = 1200
    batch: int = 8
    lr: float = 3e-3
    warmup: int = 60
    min_lr_ratio: float = 0.1  # cosine decay from lr to lr * min_lr_ratio
    beta1: float = 0.9
    beta2: float = 0.95
    eps: float = 1e-8
    clip: float = 1.0  # global gradient norm
    log_every: int = 20  # training loss recorded as the mean over each 20 steps
    eval_every: int = 100  # held-out loss inside T_train

    def check(self) -> Recipe:
        for name in ("steps", "batch", "log_every", "eval_every"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not 0 <= self.warmup < self.steps:
            raise ValueError(f"warmup must be in [0, steps = {self.steps}), got {self.warmup}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        return self

    def asdict(self) -> dict:
        return asdict(self)


def learning_rate(step: jnp.ndarray, r: Recipe) -> jnp.ndarray:
    """lr * (step + 1) / warmup during warm-up, then cosine from lr down to lr * min_lr_ratio at the last step."""
    warm = r.lr * (step + 1) / max(r.warmup, 1)
    progress = (step - r.warmup) / max(r.steps - 1 - r.warmup, 1)
    cosine = r.lr * (r.min_lr_ratio + (1 - r.min_lr_ratio) * 0.5 * (1 + jnp.cos(math.pi * jnp.clip(progress, 0, 1))))
    return jnp.where(step < r.warmup, warm, cosine)


def make_step(cfg: Config, r: Recipe) -> Callable:
    """One jitted Adam step on a batch of windows (B, T_train + 1): returns new params, moments and the loss."""

    def loss_fn(params, windows):
        return token_losses(params, windows, cfg).mean()

    @jax.jit
    def step(params, m, v, t, windows):
        loss, grads = jax.value_and_grad(loss_fn)(params, windows)
        norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree_util.tree_leaves(grads)))
        grads = jax.tree_util.tree_map(lambda g: g * jnp.minimum(1.0, r.clip / (norm + 1e-12)), grads)
        m = jax.tree_util.tree_map(lambda m_, g: r.beta1 * m_ + (1 - r.beta1) * g, m, grads)
        v = jax.tree_util.tree_map(lambda v_, g: r.beta2 * v_ + (1 - r.beta2) * g**2, v, grads)
        lr = learning_rate(t, r)
        c1, c2 = 1 - r.beta1 ** (t + 1.0), 1 - r.beta2 ** (t + 1.0)
        params = jax.tree_util.tree_map(
            lambda p, m_, v_: p - lr * (m_ / c1) / (jnp.sqrt(v_ / c2) + r.eps), params, m, v
        )
        return params, m, v, loss

    return step


def make_eval(cfg: Config) -> Callable:
    """Jitted per-token held-out losses of a chunk of windows: (B, T + 1) -> (B, T)."""
    return jax.jit(lambda params, windows: token_losses(params, windows, cfg))


def per_position(evaluate: Callable, params: dict, windows: np.ndarray, chunk: int = 8) -> np.ndarray:
    """Mean loss at each position over all windows, in chunks (the last chunk padded by repeating a row).

    Returns: (T,) float64
    """
    total = np.zeros(windows.shape[1] - 1)
    for i in range(0, len(windows), chunk):
        part = windows[i : i + chunk]
        n = len(part)
        if n < chunk:
            part = np.concatenate([part, np.repeat(part[-1:], chunk - n, axis=0)])
        total += np.asarray(evaluate(params, jnp.asarray(part)), dtype=np.float64)[:n].sum(0)
    return total / len(windows)


def train(
    cfg: Config,
    r: Recipe,
    params: dict,
    text: np.ndarray,
    starts: np.ndarray,
    heldout: np.ndarray,
    say: Callable[[str], None] = print,
) -> tuple[dict, dict]:
    """Train for r.steps Adam steps on windows text[s : s + T_train + 1] for the rows of starts.

    heldout: (N, T_train + 1) windows for the held-out curve. Returns the trained params and the record
    (training loss every log_every steps, held-out loss every eval_every steps, wall time).
    """
    step = make_step(cfg, r)
    evaluate = make_eval(cfg)
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    offsets = np.arange(cfg.T_train + 1)
    record = {"train_loss": [], "heldout_loss": []}
    began = time.perf_counter()
    window_losses = []
    for t in range(r.steps):
        windows = jnp.asarray(text[starts[t][:, None] + offsets[None, :]].astype(np.int32))
        params, m, v, loss = step(params, m, v, jnp.asarray(t, dtype=jnp.float32), windows)
        window_losses.append(loss)
        if (t + 1) % r.log_every == 0 or t + 1 == r.steps:
            mean = float(np.mean([float(x) for x in window_losses]))
            window_losses = []
            record["train_loss"].append([t + 1, round(mean, 5)])
            elapsed = time.perf_counter() - began
            rate = (t + 1) * r.batch * cfg.T_train / elapsed
            left = elapsed / (t + 1) * (r.steps - t - 1)
            line = f"step {t + 1:5d}/{r.steps}  loss {mean:.4f}  {rate:6.0f} tokens/s  {left:5.0f} s left"
            say(f"  {cfg.scheme:8s} {line}")
        if (t + 1) % r.eval_every == 0 or t + 1 == r.steps:
            held = float(per_position(evaluate, params, heldout, chunk=64).mean())
            record["heldout_loss"].append([t + 1, round(held, 5)])
            say(f"  {cfg.scheme:8s} step {t + 1:5d}  held-out loss (inside T_train) {held:.4f}")
    record["train_seconds"] = round(time.perf_counter() - began, 2)
    return params, record
