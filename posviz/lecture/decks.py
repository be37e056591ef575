"""A deck: some of the lecture's steps in an order a lecturer picks, each with its controls preset, as one link.

The whole deck lives in the link's `steps` value, so nothing is stored on a server. The encoding:

    steps = item,item,...          items in the order shown; each step at most once
    item  = key[:name=value]...    a step's key (`Step.key`), then presets of its controls (`Control.name`)

A value is one of the control's `options`, written as Python prints it ("0.3", "16", "ramp"); a preset equal to
the control's default is left out, so one deck has one spelling (`encode(parse(text).deck)` is canonical).
Example: `steps=shuffle,ramp:scale=0.3,norms:d=16`.

    >>> deck = read("shuffle,ramp:scale=0.3,norms")
    >>> len(deck), encode(deck), deck.indices
    (3, 'shuffle,ramp:scale=0.3,norms', (0, 2, 10))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from posviz.lecture.steps import STEPS, Control, Step

MAX_TEXT = 2000  # characters of a `steps` value: every step with a preset is under 400
BY_KEY = {step.key: i for i, step in enumerate(STEPS)}


@dataclass(frozen=True)
class Entry:
    """One step of a deck: the step's key and its presets, (control name, value) pairs that differ from the
    defaults, in the step's control order. A wrong key, control or value raises ValueError."""

    key: str
    presets: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if self.key not in BY_KEY:
            raise ValueError(_unknown(self.key))
        controls = {c.name: c for c in self.step.controls}
        for name, value in self.presets:
            if name not in controls:
                raise ValueError(f"step {self.key!r} has {_controls(self.step)}, got {_short(name)!r}")
            if value not in controls[name].options:
                raise ValueError(f"{self.key}:{name} must be one of {_options(controls[name])}, got {value!r}")
        names = [name for name, _ in self.presets]
        if names != [c.name for c in self.step.controls if c.name in names]:
            raise ValueError(f"step {self.key!r}: expected each control once, in order {_controls(self.step)}")

    @property
    def index(self) -> int:
        """The step's place in the whole lecture (`STEPS`), from 0."""
        return BY_KEY[self.key]

    @property
    def step(self) -> Step:
        return STEPS[self.index]

    def values(self) -> dict[str, object]:
        """Every control's value in this deck: the presets over the step's defaults."""
        return {**self.step.defaults(), **dict(self.presets)}

    def text(self) -> str:
        return ":".join([self.key, *(f"{name}={value}" for name, value in self.presets)])


@dataclass(frozen=True)
class Deck:
    entries: tuple[Entry, ...]

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def indices(self) -> tuple[int, ...]:
        """Each step's place in the whole lecture, in the deck's order."""
        return tuple(e.index for e in self.entries)

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(e.step for e in self.entries)

    def values(self, key: str) -> dict[str, object]:
        """The control values the deck gives the step with this key (its defaults when the deck has no presets)."""
        found = [e for e in self.entries if e.key == key]
        return found[0].values() if found else STEPS[BY_KEY[key]].defaults()


WHOLE = Deck(tuple(Entry(step.key) for step in STEPS))


@dataclass(frozen=True)
class Parsed:
    """What a `steps` value gave: the deck (the whole lecture when no item was valid) and what was wrong."""

    deck: Deck
    problems: tuple[str, ...]
    whole: bool  # True when nothing valid remained and the deck fell back to the whole lecture


def entry(item: str) -> Entry:
    """One item of a `steps` value ("ramp:scale=0.3") as an Entry; ValueError saying what was expected."""
    key, *assignments = item.strip().split(":")
    if key not in BY_KEY:
        raise ValueError(_unknown(key))
    step = STEPS[BY_KEY[key]]
    controls = {name: c for c in step.controls for name in (c.name, *c.aliases)}  # an older name still reads
    given: dict[str, object] = {}
    for assignment in assignments:
        name, equals, raw = assignment.partition("=")
        if name not in controls or not equals:
            raise ValueError(f"step {key!r} has {_controls(step)}, got {_short(assignment)!r}")
        control = controls[name]
        if control.name in given:
            raise ValueError(f"{key}:{control.name} is set twice")
        given[control.name] = option(control, raw)
    presets = tuple((c.name, given[c.name]) for c in step.controls if c.name in given and given[c.name] != c.default)
    return Entry(key, presets)


def option(control: Control, raw: str) -> object:
    """The option of `control` that `raw` writes ("0.3" for 0.3, "16" for 16), or ValueError."""
    for value in control.options:
        if str(value) == raw or (isinstance(value, float) and _same_number(raw, value)):
            return value
    raise ValueError(f"{control.name} must be one of {_options(control)}, got {_short(raw)!r}")


def parse(text: str) -> Parsed:
    """A `steps` value as a deck, leniently: a bad or repeated item is dropped and named in `problems`; with no
    valid item left (or an empty or overlong value) the deck is the whole lecture.

    >>> parsed = parse("ramp,nope,ramp")
    >>> encode(parsed.deck), len(parsed.problems), parsed.whole
    ('ramp', 2, False)
    """
    if len(text) > MAX_TEXT:
        return Parsed(WHOLE, (f"expected at most {MAX_TEXT} characters, got {len(text)}",), True)
    problems, entries, seen = [], [], set()
    for place, item in enumerate(text.split(","), start=1):
        try:
            e = entry(item)
        except ValueError as error:
            problems.append(f"item {place}: {error}")
            continue
        if e.key in seen:
            problems.append(f"item {place}: step {e.key!r} is already in the deck")
            continue
        seen.add(e.key)
        entries.append(e)
    if not entries:
        return Parsed(WHOLE, _summary(problems) or ("expected at least one step key",), True)
    return Parsed(Deck(tuple(entries)), _summary(problems), False)


def read(text: str) -> Deck:
    """A `steps` value as a deck, strictly: the first problem raises ValueError (for the command line)."""
    parsed = parse(text)
    if parsed.problems:
        keys = ", ".join(BY_KEY)
        raise ValueError(f"steps={_short(text)!r}: {parsed.problems[0]} (step keys: {keys})")
    return parsed.deck


def encode(deck: Deck) -> str:
    """The deck's `steps` value: its items joined by commas (canonical: parse(encode(deck)).deck == deck)."""
    return ",".join(e.text() for e in deck.entries)


def _unknown(key: str) -> str:
    if not key.strip():
        return "expected a step key, got an empty item"
    return f"expected a step key such as {STEPS[0].key!r} (the composer lists all {len(STEPS)}), got {_short(key)!r}"


def _summary(problems: list[str], shown: int = 3) -> tuple[str, ...]:
    """At most `shown` problems, then how many more (10,000 empty items make one short note, not a wall)."""
    more = len(problems) - shown
    return tuple(problems[:shown]) + ((f"and {more} more items not understood",) if more > 0 else ())


def _controls(step: Step) -> str:
    return f"controls {', '.join(c.name for c in step.controls)}" if step.controls else "no controls"


def _options(control: Control) -> str:
    return ", ".join(str(v) for v in control.options)


def _same_number(raw: str, value: float) -> bool:
    try:
        number = float(raw)
    except ValueError:
        return False
    return math.isfinite(number) and number == value


def _short(raw: str, limit: int = 30) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"
