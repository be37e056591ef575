"""Controls declared once: `Param` (URL key, type, bounds, widget) and the declarations several pages share."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

MAX_TEXT = 300
MAX_WORDS = 64
KINDS = ("int", "float", "choice", "bool", "text")


# Set before a rerun that the browser may answer with its controls at their widgets' defaults: Streamlit 1.67's
# frontend can drop its widget values when a fragment run ends in `st.rerun()` (ui.quick_then_whole), and then shows
# each control at its widget's own default (a select slider at its first option, a text box empty) while the
# session keeps the real value. The next run of `url_state` sends every control's value to the browser again.
# Upstream: no Streamlit issue found for this case (searched 2026-12). The nearest is streamlit/streamlit#11266,
# "Rerun() inside an st.fragment resets widget values to defaults." (closed), where the widgets sit inside the
# fragment and their session state resets too; here they are the page's, outside it, and only the browser resets.
# What was measured instead (commit d3551c3): about 3 in 4 warm views of the word-order page showed its slider at 0
# and its sentence boxes empty; tests/test_browser.py's test_the_real_model_page_moves_its_scale_and_keeps_it_in_the_url
# checks three views (it failed without this). Drop this, and its uses in ui.url and ui.chart, when that test passes
# without it on a newer Streamlit.
RESEND_CONTROLS = "_posviz_resend_controls"


@dataclass(frozen=True)
class Param:
    """A view-defining control, declared once: its URL key, type, bounds and step, and how its widget looks.

    kind: "int" and "float" within [lo, hi], "choice" among `options`, "bool", "text" (at most
    `max_len` characters). A URL value that does not parse is reported and replaced by `default`.
    widget: how `control` draws it; "" picks by kind (slider, selectbox, toggle, text box).
    `names` gives options' display names (format_func).

    A declaration checks itself: a kind without its bounds or options, or a default of the wrong type or outside
    them, raises ValueError when it is declared (an "int" or "float" has ints or floats for lo, hi and default, as
    Streamlit's widgets need one numeric type).

        >>> Param("T", 6, "int", 2, 64).parse("8")
        8
    """

    key: str
    default: object
    kind: str
    lo: float | None = None
    hi: float | None = None
    options: Sequence[object] = field(default_factory=tuple)
    max_len: int = MAX_TEXT
    step: float = 1
    label: str = ""
    help: str | None = None
    widget: str = ""
    names: Mapping[object, str] | None = None
    number_format: str | None = None  # printf-style, for a number box ("%.0f")
    nudge: float | None = None  # a number box's +/- step where it is not a constraint (an int's `step` is)
    aliases: tuple[str, ...] = ()  # older URL keys for the same control: read when `key` is absent, then replaced

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            self._wrong(f"kind one of {', '.join(KINDS)}", repr(self.kind))
        if self.kind in ("int", "float"):
            self._check_number()
        elif self.kind == "choice":
            if not self.options:
                self._wrong("options for kind 'choice'", "none")
            if self.default not in self.options:
                self._wrong(f"a default among the options {_listed(self.options)}", repr(self.default))
        elif self.kind == "bool" and not isinstance(self.default, bool):
            self._wrong("a default of True or False", _typed(self.default))
        elif self.kind == "text" and not (isinstance(self.default, str) and len(self.default) <= self.max_len):
            self._wrong(f"a default text of at most {self.max_len} characters", _typed(self.default))

    def _check_number(self) -> None:
        """lo <= default <= hi, all ints for an "int" (the default on the grid of `step` from lo), floats for a
        "float" (and the step its widget moves by)."""
        if self.lo is None or self.hi is None:
            self._wrong(f"lo and hi for kind {self.kind!r}", f"lo={self.lo!r}, hi={self.hi!r}")
        number = _is_int if self.kind == "int" else _is_float
        steps = (("step", self.step), ("nudge", self.nudge)) if self.kind == "int" else (("step", self._moved_by()),)
        for name, value in (("lo", self.lo), ("hi", self.hi), ("default", self.default), *steps):
            if not number(value) and not (name == "nudge" and value is None):
                self._wrong(f"{'an int' if self.kind == 'int' else 'a float'} for {name}", _typed(value))
        if not self.lo <= self.default <= self.hi:
            self._wrong(f"a default from {self.lo:g} to {self.hi:g}", repr(self.default))
        if self.step <= 0:
            self._wrong("a step above 0", f"step={self.step!r}")
        if self.kind == "int" and (self.default - self.lo) % self.step:
            self._wrong(f"a default in steps of {self.step} from lo={self.lo}", repr(self.default))

    def _moved_by(self) -> object:
        """The step a float's widget moves by: a number box's `nudge` when it has one, else `step`."""
        return self.nudge if self.widget == "number" and self.nudge is not None else self.step

    def _wrong(self, expected: str, got: str) -> None:
        raise ValueError(f"Param {self.key!r} (kind {self.kind!r}): expected {expected}, got {got}")

    def narrowed(self, value: object, **changed: object) -> Param:
        """This declaration with `changed` fields for one draw (a bound that depends on another control), checked
        around the control's current `value` (None: its default) instead of its default.

        >>> Param("prefill", 4, "int", 1, 64).narrowed(3, hi=3).hi
        3
        """
        return replace(self, **{"default": self.default if value is None else value, **changed})

    def parse(self, raw: str) -> object:
        """The value a URL string stands for, or ValueError saying what was expected."""
        if self.kind == "bool":
            if raw.lower() in ("true", "1", "yes", "on"):
                return True
            if raw.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError("expected true or false")
        if self.kind == "text":
            if len(raw) > self.max_len:
                raise ValueError(f"expected at most {self.max_len} characters, got {len(raw)}")
            return raw
        if self.kind == "choice":
            for option in self.options:
                if str(option) == raw or (isinstance(option, float) and _same_number(raw, option)):
                    return option
            raise ValueError(f"expected one of {_listed(self.options, str)}")
        return self._number(raw)

    def _number(self, raw: str) -> int | float:
        want = "a whole number" if self.kind == "int" else "a number"
        expected = f"expected {want} from {self.lo:g} to {self.hi:g}"
        try:
            value = int(raw) if self.kind == "int" else float(raw)
        except (ValueError, OverflowError):
            raise ValueError(expected) from None
        if not math.isfinite(value) or not self.lo <= value <= self.hi:
            raise ValueError(expected)
        if self.kind == "int" and (value - self.lo) % self.step:
            raise ValueError(f"{expected} in steps of {self.step}")
        return value

    def format(self, value: object) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        return str(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_float(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _typed(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def _listed(options: Sequence[object], show: Callable[[object], str] = repr) -> str:
    return ", ".join(map(show, options[:12])) + (", …" if len(options) > 12 else "")


def params(*declared: Param) -> dict[str, Param]:
    """A page's controls by key, in the order they are declared (and drawn)."""
    return {p.key: p for p in declared}


def _same_number(raw: str, option: float) -> bool:
    try:
        return math.isclose(float(raw), option, rel_tol=1e-9, abs_tol=1e-15)
    except (ValueError, OverflowError):
        return False


# The controls several pages share, declared once; a page passes what differs (its default, bounds, label).
SHARED: dict[str, tuple[str, ...]] = {}  # each shared declaration's name and the URL keys it declares


def shared(*keys: str) -> Callable[[Callable[..., Param | tuple[Param, ...]]], Callable[..., object]]:
    """Register a declaration several pages share in SHARED with the URL `keys` it declares (the hostile-input
    tests read every page's keys from it); a call that declares other keys raises ValueError."""

    def register(factory: Callable[..., Param | tuple[Param, ...]]) -> Callable[..., object]:
        @functools.wraps(factory)
        def declare(*args: object, **kwargs: object) -> Param | tuple[Param, ...]:
            made = factory(*args, **kwargs)
            declared = tuple(p.key for p in (made if isinstance(made, tuple) else (made,)))
            if declared != keys:
                raise ValueError(f"{factory.__name__} is registered with keys {keys}, got {declared}")
            return made

        SHARED[factory.__name__] = keys
        return declare

    return register


@shared("seed")
def seed_param(default: int, **declared: object) -> Param:
    """The random seed, typed in a number box (0 to 99,999)."""
    return Param("seed", default, "int", 0, 99_999, **{"widget": "number", **declared})


@shared("T")
def tokens_param(default: int, hi: int, **declared: object) -> Param:
    """T, the number of tokens, from 2 to `hi`."""
    return Param("T", default, "int", 2, hi, **{"label": "tokens T", **declared})


@shared("d")
def width_param(default: int, lo: int, hi: int, *, even: bool = True, **declared: object) -> Param:
    """d, the width, from `lo` to `hi`; in steps of 2 when `even` (sinusoids and rotary need pairs)."""
    label = "width d (even)" if even else "width d"
    return Param("d", default, "int", lo, hi, step=2 if even else 1, **{"label": label, **declared})


@shared("wscale")
def weight_scale_param() -> Param:
    """The scale of the random attention weights, 0 to 3."""
    return Param("wscale", 0.5, "float", 0.0, 3.0, step=0.05, label="weight scale")


@shared("part")
def part_param(parts: Mapping[str, str]) -> Param:
    """The switch of a page in parts: `parts` maps each part's URL value to its name, the first drawn on arrival."""
    count = {2: "two", 3: "three"}.get(len(parts), str(len(parts)))
    return Param(
        "part",
        next(iter(parts)),
        "choice",
        options=tuple(parts),
        names=dict(parts),
        label=f"this page has {count} parts",
        widget="segmented",
    )


@shared("preset")
def preset_param(presets: Mapping[str, object], default: str, label: str) -> Param:
    """A choice of named setups (`scaling.PRESETS`, `decoder.SCALINGS`) by key, each shown by its `label`."""
    names = {key: preset.label for key, preset in presets.items()}
    return Param("preset", default, "choice", options=tuple(presets), label=label, names=names)


@shared("s1", "s2")
def sentence_params(limit: str = f"{MAX_WORDS} words") -> tuple[Param, Param]:
    """The two sentences compared ("dog bites man", "man bites dog"), each up to `limit`."""
    return tuple(
        Param(f"s{i}", default, "text", label=f"sentence {i} (up to {limit})")
        for i, default in ((1, "dog bites man"), (2, "man bites dog"))
    )
