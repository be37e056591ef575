"""What a real model read: the one `Tokens` type both models' tokenizers return and the app shows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Tokens:
    """A text as a model reads it: the ids fed, each token as text, and what was changed on the way.

    ids: (T,)
    """

    ids: np.ndarray  # (T,)
    tokens: tuple[str, ...]  # one display string per id ("[CLS]", ..., "[SEP]" for MiniLM)
    cut: bool  # the text had more tokens (or characters) than the model reads; the rest was not fed
    changed: bool = False  # the fed ids do not spell the text exactly (a cut, [UNK], replaced characters)
    notes: tuple[str, ...] = ()  # what was changed, one short sentence each, for the page
    unknown: tuple[str, ...] = ()  # words the vocabulary has no piece for (fed as [UNK])
    im_start: bool = False  # a chat template's first token (SmolLM2's <|im_start|>) was put in front
