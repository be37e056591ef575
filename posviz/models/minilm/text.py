"""all-MiniLM-L6-v2's files and its tokenizer: where the shipped model lives, and a sentence as it reads it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from posviz.models.tokens import Tokens

DATA = Path(__file__).resolve().parents[2] / "data" / "minilm"
MAX_TOKENS = 64


def tokenize(text: str, folder: Path = DATA, max_tokens: int = MAX_TOKENS) -> Tokens:
    """Lower-casing WordPiece with [CLS] and [SEP], by the model's own tokenizer.json (`tokenizers`); a text of more
    than `max_tokens` keeps its first max_tokens - 1 pieces and [SEP].

    Returns: Tokens with ids (T,), T <= max_tokens

    >>> tokenize("dog bites man").ids.shape
    (5,)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    tokenizer = _tokenizer(str(folder))
    encoding = tokenizer.encode(text)
    ids, tokens = list(encoding.ids), list(encoding.tokens)
    cut = len(ids) > max_tokens
    if cut:
        ids, tokens = ids[: max_tokens - 1] + ids[-1:], tokens[: max_tokens - 1] + tokens[-1:]
    spans = [encoding.offsets[i] for i, t in enumerate(encoding.tokens) if t == "[UNK]"]
    unknown = tuple(dict.fromkeys(text[a:b] for a, b in spans))
    notes = ([f"no vocabulary piece for {', '.join(unknown)}: read as [UNK]"] if unknown else []) + (
        [f"cut to the first {max_tokens} tokens"] if cut else []
    )
    return Tokens(np.array(ids), tuple(tokens), cut, cut or bool(unknown), tuple(notes), unknown)


_TOKENIZERS: dict[str, object] = {}


def _tokenizer(folder: str):
    from tokenizers import Tokenizer

    if folder not in _TOKENIZERS:
        tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        tokenizer.no_padding()  # the shipped file pads to 128; posviz reads one sentence at a time
        tokenizer.no_truncation()  # truncation to MAX_TOKENS happens in tokenize(), and is reported
        _TOKENIZERS[folder] = tokenizer
    return _TOKENIZERS[folder]
