"""Speaker notes: what the lecturer says at each step, kept apart from what the room sees.

A note belongs to a step by the step's key (`STEPS[i].key`), so a deck that reorders or cuts steps keeps each
step's note. The projected lecture never draws these; the speaker view and the offline copy (notes on) do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    say: str  # two or three sentences to say while the step is on screen
    ask: str  # one question for the room
    answer: str  # its answer
    misconception: str  # the usual wrong idea this step corrects


NOTES: dict[str, Note] = {}  # step key -> note; filled per step (tests require one for every step)


def note(key: str) -> Note | None:
    """The note for the step with this key, or None when it has none."""
    return NOTES.get(key)
