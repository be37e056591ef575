"""The "your model" page's experiments: a GGUF file from the operator's folder, its report, and a typed text read
by its first layers with the SmolLM2 page's statistics (decoder.Reading: roles by decoder.ROLE_RULE, sink, pair
energy) and ablations (decoder.ablation_gaps).

A file is opened once per process and per version (`stamp`: its size and modification time), one at a time: its
float32 layers can take MEMORY_BUDGET_MB. Every function is keyed by scalars, so the page can cache it.

Dimension letters: L layers run, H query heads, T tokens.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from posviz.experiments import decoder, inspection
from posviz.maths import verdicts
from posviz.models import llama_gguf

DEFAULT_TEXT = decoder.DEFAULT_TEXT
_OPENING = threading.Lock()  # two sessions asking for one file dequantize it once


@dataclass(frozen=True, eq=False)
class Opened:
    """A file's `posviz inspect` report and, for a llama-family file posviz runs, its model; else why not."""

    report: inspection.Report
    model: llama_gguf.Model | None
    problem: str | None  # why no layer runs (read only, a layer it cannot run, a type gguf cannot dequantize)

    @property
    def bos_name(self) -> str:
        """The BOS token as the fed line names it: "<s> (id 1)"."""
        model = self.model
        if model is None or model.bos is None or model.tokenizer is None:
            return "BOS"
        return f"{model.tokenizer.id_to_token(model.bos)} (id {model.bos})"


def stamp(path: str | Path) -> tuple[int, int]:
    """The file's version for the caches: (size, modification time in ns).

    >>> stamp(inspection.shipped_file())[0] > 0
    True
    """
    info = Path(path).stat()
    return info.st_size, info.st_mtime_ns


def opened(path: str, version: tuple[int, int]) -> Opened:
    """The report, and the model when posviz runs this file (`version` = stamp(path), a cache key).

    ValueError when the file is not a GGUF file posviz can read at all (corrupt or cut header).
    """
    with _OPENING:
        return _opened(str(path), version)


@lru_cache(maxsize=1)
def _opened(path: str, version: tuple[int, int]) -> Opened:
    report = inspection.inspect(path)
    try:
        return Opened(report, llama_gguf.open_model(path), None)
    except ValueError as error:
        return Opened(report, None, str(error))


def read(path: str, version: tuple[int, int], text: str, bos: bool) -> decoder.Reading:
    """The model's first layers on `text` (at most llama_gguf.MAX_TOKENS ids, BOS first when `bos`); ValueError when
    the file runs no layer, its tokenizer is not one posviz builds, or the text gives fewer than decoder.MIN_IDS ids.

    Returns: Reading with weights (L, H, T, T)
    """
    model = _model(path, version)
    tokens = llama_gguf.tokenize(model, text, bos=bos)
    if tokens.ids.size < decoder.MIN_IDS:
        raise ValueError(f"the text gives {tokens.ids.size} token ids; the page needs at least {decoder.MIN_IDS}")
    return decoder.Reading(text, tokens, model.run(tokens.ids))


def ablations(path: str, version: tuple[int, int], text: str, bos: bool, k: int) -> decoder.Ablation:
    """decoder.ablation_gaps on the text's ids in this model, reusing `read`'s run as the plain one.

    Returns: Ablation with (L,) gaps
    """
    reading = read(path, version, text, bos)
    return decoder.ablation_gaps(reading.tokens.ids, k=k, model=_model(path, version), base=reading.trace)


def _model(path: str, version: tuple[int, int]) -> llama_gguf.Model:
    found = opened(path, version)
    if found.model is None:
        raise ValueError(found.problem)
    return found.model


def sink_layer(reading: decoder.Reading) -> int:
    """The run layer whose heads put the most mean weight on token 0 (queries t >= reading.first).

    >>> sink_layer(decoder.read("dog bites man")) in range(5)
    True
    """
    return int(reading.sink.mean(axis=1).argmax())


def has_sink(reading: decoder.Reading, layer: int) -> bool:
    """`layer` draws more than twice uniform causal attention's share to token 0 (verdicts.attention_sink)."""
    return verdicts.attention_sink(float(reading.sink[layer].mean()), reading.T, first=reading.first)


def head_list(names: list[str], limit: int = 12) -> str:
    """Head names for a headline: the first `limit`, an ellipsis for more, "none" for none.

    >>> head_list(["0.1", "2.3"]), head_list([]), head_list(["a", "b", "c"], 2)
    ('0.1, 2.3', 'none', 'a, b …')
    """
    return (", ".join(names[:limit]) + (" …" if len(names) > limit else "")) or "none"


def head_columns(heads: int, presenter: bool) -> int:
    """Panels across for `heads` attention maps: all in a row when presenting up to 16, else rows of 8 or fewer.

    >>> head_columns(9, True), head_columns(32, True), head_columns(32, False)
    (9, 16, 8)
    """
    return min(heads, 16 if presenter else 8)


def fast_pairs_note(model: llama_gguf.Model) -> str:
    """decoder.FAST_NOTE for this model's P pairs (the fast pairs stay i < decoder.FAST_PAIRS)."""
    P = model.config.d_k // 2
    fast = decoder.FAST_PAIRS
    even = number_share(fast / P)
    return (
        f"{decoder.FAST_COLUMN}: the share of a query head's energy |q_pair|² (mean over tokens; rotation leaves it "
        f"unchanged) in its {fast} fastest-turning pairs i < {fast} of {P}; an even spread gives {even}"
    )


def number_share(x: float) -> str:
    """A share as a short fraction or decimal: 1/4, 1/8, 0.125 when not 1/n."""
    n = 1 / x
    return f"1/{n:.0f}" if np.isclose(n, round(n)) else f"{x:.3g}"
