"""The text: the standard library's pydoc_data.topics (PSF licence), split by whole topics into train and held-out.

Bytes are the tokens (UTF-8, vocabulary 256). Held-out topics are chosen by a fixed rule from the sorted topic names:
of the topics with at least EVAL_FACTOR * T_train + 1 bytes, every STRIDE-th starting at OFFSET. The training text
is every other topic, in sorted name order, joined with a blank line.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

import numpy as np

EVAL_FACTOR = 8  # held-out windows reach 8 x T_train
STRIDE = 8
OFFSET = 4
SEPARATOR = b"\n\n"


@dataclass(frozen=True)
class Split:
    """Training bytes, held-out topics (name -> bytes), and their hashes."""

    train: bytes
    train_topics: tuple[str, ...]
    heldout: dict[str, bytes]

    @property
    def train_sha256(self) -> str:
        return hashlib.sha256(self.train).hexdigest()

    @property
    def heldout_sha256(self) -> str:
        """sha256 of the held-out topics' bytes joined with the separator, in sorted name order."""
        return hashlib.sha256(SEPARATOR.join(self.heldout[k] for k in sorted(self.heldout))).hexdigest()

    def record(self) -> dict:
        return {
            "source": "pydoc_data.topics from the Python standard library",
            "python": sys.version.split()[0],
            "licence": "PSF-2.0 (Python Software Foundation License Version 2)",
            "tokens": "UTF-8 bytes, vocabulary 256, no special tokens",
            "rule": f"held-out: of the topics (sorted by name) with at least {EVAL_FACTOR} x T_train + 1 bytes, "
            f"every {STRIDE}th starting at index {OFFSET}; train: every other topic, sorted, joined with a blank line",
            "train_topics": list(self.train_topics),
            "train_bytes": len(self.train),
            "train_sha256": self.train_sha256,
            "heldout_topics": sorted(self.heldout),
            "heldout_bytes": sum(len(v) for v in self.heldout.values()),
            "heldout_sha256": self.heldout_sha256,
        }


def topics() -> dict[str, bytes]:
    """Every pydoc topic as UTF-8 bytes."""
    from pydoc_data.topics import topics as raw

    return {name: text.encode("utf-8") for name, text in raw.items()}


def split(T_train: int, source: dict[str, bytes] | None = None) -> Split:
    """Held-out topics by the fixed rule, the rest as the training text."""
    source = topics() if source is None else source
    names = sorted(source)
    long_enough = [k for k in names if len(source[k]) >= EVAL_FACTOR * T_train + 1]
    held = long_enough[OFFSET::STRIDE]
    if not held:
        raise ValueError(
            f"no topic has the {EVAL_FACTOR * T_train + 1} bytes a held-out window needs (T_train = {T_train})"
        )
    train_topics = tuple(k for k in names if k not in held)
    return Split(SEPARATOR.join(source[k] for k in train_topics), train_topics, {k: source[k] for k in held})


def eval_windows(heldout: dict[str, bytes], length: int, stride: int) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """Held-out windows of `length` + 1 bytes starting at 0, stride, 2 stride, ... inside each topic (sorted by name).

    Returns: (N, length + 1) int32 and the (topic, start) of each row
    """
    rows, where = [], []
    for name in sorted(heldout):
        text = np.frombuffer(heldout[name], dtype=np.uint8)
        for start in range(0, len(text) - length, stride):
            rows.append(text[start : start + length + 1])
            where.append((name, start))
    return np.stack(rows).astype(np.int32), where


def batch_starts(seed: int, steps: int, batch: int, n_bytes: int, T_train: int) -> np.ndarray:
    """Uniform random window starts in the training text, the same for every scheme with this seed.

    Returns: (steps, batch) int64
    """
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_bytes - T_train, size=(steps, batch))
