"""A page's URL parameters, each declared once: its name in the link, the state field it sets,
how its text is read and written, and the control that shows it (Vizro's `show_in_url`,
done in Python).

Everything that moves a parameter between the link, the state and the controls comes from
that one declaration: parsing a link (`parse`), the canonical link (`write`), the controls'
first values (`show`) and reading the controls back (`read`). A value that cannot be used is
reported as a `Why`: a message code and its parameters (field, value, allowed range), which
each language renders from its catalogue.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import quote

from app.units import plain  # a limit as the page writes a number: 3,600,000, not 3.6e+06

# How much of a refused control's value a page quotes back: a typed number, a list of choices.
MAX_TYPED_CHARS = 24
MAX_LISTED_CHARS = 40
# The longest number a link may hold: what Float.write makes of any float (17 significant
# digits, a sign, a point and a 3-digit exponent: 24 characters) and no more.
MAX_NUMBER_CHARS = 24


@dataclass(frozen=True)
class Why:
    """Why a value was refused: a catalogue code (`why_<code>`) and what to fill in."""

    code: str
    params: dict = field(default_factory=dict, hash=False)


class Invalid(ValueError):
    """Raised by a kind's reader: the value is refused for `why`."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.why = Why(code, params)


def _plain(value: object) -> bool:
    """A number a control can hold: no bool, no NaN, no infinity."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Int:
    """A whole number in [low, high]: typed in the link as digits, in a control as a number."""

    low: int
    high: int

    def parse(self, text: str) -> int:
        # at most 9 digits, or the high limit's own count (a training step's 2**50 tokens)
        digits = max(9, len(str(self.high)))
        if not (text.isascii() and text.isdigit()) or len(text) > digits or not self.low <= int(text) <= self.high:
            raise Invalid("int_range", low=f"{self.low:,}", high=f"{self.high:,}")
        return int(text)

    def write(self, value: int) -> str:
        return str(value)

    def read(self, value: object) -> int:
        if isinstance(value, str) and value.strip().isdigit():
            return self.parse(value.strip())
        if not _plain(value) or value != int(value) or not self.low <= value <= self.high:
            raise Invalid("int_range", low=f"{self.low:,}", high=f"{self.high:,}")
        return int(value)

    def show(self, value: int) -> object:
        return value


@dataclass(frozen=True)
class Float:
    """A number in [low, high] (`low` excluded when `open_low`)."""

    low: float
    high: float
    open_low: bool = False

    def _check(self, x: float) -> float:
        above = x > self.low if self.open_low else x >= self.low
        if not (above and x <= self.high):  # NaN fails both
            raise Invalid("number_range", low=plain(self.low), high=plain(self.high))
        return float(x)

    def parse(self, text: str) -> float:
        try:
            x = float(text) if len(text) <= MAX_NUMBER_CHARS else math.nan
        except ValueError:
            x = math.nan
        return self._check(x)

    def write(self, value: float) -> str:
        # the shortest text that reads back as the same float (repr), "5" rather than "5.0":
        # ":g" kept 6 digits, so a 1,000,001 ms step came back from its own link as 1e+06
        text = repr(float(value))
        return text[:-2] if text.endswith(".0") else text

    def read(self, value: object) -> float:
        if isinstance(value, str):  # a text box's (the browser holds back a number box's off-step value)
            return self.parse(value.strip())
        if not _plain(value):
            raise Invalid("number_range", low=plain(self.low), high=plain(self.high))
        return self._check(float(value))

    def show(self, value: float) -> object:
        return value


@dataclass(frozen=True)
class Choice:
    """One of a fixed list; a one-box checklist when `box` names the ticked value."""

    options: tuple
    box: str | None = None  # checklist: ticked -> options[0], unticked -> options[1]
    code: str = "one_of"  # "unknown_model": a list too long to print
    # the known names most like a refused one (engine.model_catalog.nearest_model_names), said
    # instead of a list too long to print
    nearest: Callable[[str], list[str]] | None = None

    def _refuse(self, given: object = "") -> Invalid:
        if self.nearest is not None:
            return Invalid(self.code, nearest=", ".join(self.nearest(str(given)[:120])))
        return Invalid(self.code, allowed=", ".join(str(o) for o in self.options))

    def parse(self, text: str):
        for option in self.options:
            if text == str(option):
                return option
        raise self._refuse(text)

    def write(self, value) -> str:
        return str(value)

    def read(self, value: object):
        if self.box is not None:
            return self.options[0] if isinstance(value, list) and value else self.options[1]
        for option in self.options:  # the option itself: a control's 1.0 is the link's 1
            if not isinstance(value, bool) and type(value) in (int, float, str) and value == option:
                return option
        raise self._refuse(value)

    def show(self, value) -> object:
        if self.box is not None:
            return [self.box] if value == self.options[0] else []
        return value


@dataclass(frozen=True)
class ModelChoice(Choice):
    """A model among `options` named as the API takes it: a preset id, or a Hugging Face repo
    id or quantised release the catalogue resolves to one (engine.model_catalog's
    resolve_model_id: meta-llama/Llama-3.1-8B -> llama-3.1-8b), read as that preset, which the
    canonical link then writes; a refused name is answered with the known names nearest to it."""

    def parse(self, text: str):
        from engine.model_catalog import preset_id_or_none

        try:
            return super().parse(text)
        except Invalid:
            preset = preset_id_or_none(text)
            if preset in self.options:
                return preset
            raise


def model_choice(options: tuple) -> Choice:
    """A model among `options` (catalogue ids and a page's own entries), by any of its names; a
    refused name is answered with the known names nearest to it, as the API's 422 does."""
    from engine.model_catalog import nearest_model_names

    return ModelChoice(options, code="unknown_model", nearest=nearest_model_names)


@dataclass(frozen=True)
class Flag:
    """On or off: `1`/`0` in the link, a one-box checklist on the page."""

    box: str = "on"

    def parse(self, text: str) -> bool:
        flag = {"1": True, "0": False, "true": True, "false": False}.get(text.lower())
        if flag is None:
            raise Invalid("flag")
        return flag

    def write(self, value: bool) -> str:
        return "1" if value else "0"

    def read(self, value: object) -> bool:
        return isinstance(value, list) and len(value) > 0

    def show(self, value: bool) -> list:
        return [self.box] if value else []


@dataclass(frozen=True)
class Key:
    """A kind read from one key of a store's dict (the sliders' resting sizes, say)."""

    kind: object
    key: str

    def parse(self, text: str):
        return self.kind.parse(text)

    def write(self, value) -> str:
        return self.kind.write(value)

    def read(self, value: object):
        if not isinstance(value, dict):
            raise Invalid("missing")
        return self.kind.read(value.get(self.key))

    shows = False  # the store is filled by the layout, not by one parameter

    def show(self, value) -> None:
        return None


@dataclass(frozen=True)
class Param:
    """One URL parameter of a page.

    name: in the link. field: the state's field it sets (a tuple when one parameter sets two).
    kind: reads and writes its text and its controls' values. control: (component id,
    property) that shows it, a tuple of them, or None when only the link sets it. omit: the
    link leaves it out when this is true of the value (a default, an unset option). moves:
    the browser moves it without the server (a slider), so the canonical link the server hands
    over holds a `{name}` slot for it. repeat: one `name=` per item (a list). scenario: the
    field of the engine's input (the roofline's Scenario, the training lab's TrainingSetup) it
    feeds unchanged, if any."""

    name: str
    field: str | tuple[str, ...]
    kind: object
    control: tuple | None = None
    omit: Callable[[object], bool] | None = None
    moves: bool = False
    repeat: bool = False
    scenario: str | None = None  # the engine input's field it feeds as is (views.scenario_of, training setup_fields)

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.field,) if isinstance(self.field, str) else self.field

    @property
    def controls(self) -> tuple[tuple[str, str], ...]:
        if not self.control:
            return ()
        return (self.control,) if isinstance(self.control[0], str) else self.control

    def value(self, state: object):
        values = tuple(getattr(state, f) for f in self.fields)
        return values[0] if len(values) == 1 else values

    def texts(self, state: object, template: bool = False) -> list[str]:
        """Its text(s) in the state's link: none when left out, one per item when it repeats."""
        value = self.value(state)
        if template and self.moves:
            return ["{" + self.name + "}"]
        if value is None or (self.omit is not None and self.omit(value)):
            return []
        return [self.kind.write(v) for v in value] if self.repeat else [self.kind.write(value)]

    def parse(self, text: str) -> tuple[dict, list[tuple[str, Why]]]:
        """({field: value}, [(refused text, why)]): a kind may keep part of a list."""
        if hasattr(self.kind, "parse_all"):
            value, problems = self.kind.parse_all(text)
        else:
            try:
                value, problems = self.kind.parse(text), []
            except Invalid as exc:
                value, problems = None, [(text, exc.why)]
        if value is None:
            return {}, problems
        values = value if len(self.fields) > 1 else (value,)
        return dict(zip(self.fields, values, strict=True)), problems

    def read(self, controls: dict) -> tuple[dict, list[tuple[str | None, Why]]]:
        """({field: value}, [(what was typed, why)]) from the controls' values, as `parse` from a
        link: a refused value sets nothing (the default stays) and is quoted (`typed_text`); a
        kind that keeps part of a list names each refused item. A control the callback did not
        send is neither."""
        keys = [control_key(c) for c in self.controls]
        if not keys or any(k not in controls for k in keys):
            return {}, []
        sent = [controls[k] for k in keys]
        if hasattr(self.kind, "read_all"):
            value, problems = self.kind.read_all(*sent)
            if value is None:
                return {}, problems
        else:
            try:
                value, problems = self.kind.read(*sent), []
            except Invalid as exc:
                # the last control is the one typed into (a measured box after the radio naming its measure)
                return {}, [(typed_text(sent[-1]), exc.why)]
        values = value if len(self.fields) > 1 else (value,)
        return dict(zip(self.fields, values, strict=True)), problems

    def show(self, state: object) -> dict[str, object]:
        """{"id.prop": value} for its controls (nothing when the layout builds them itself)."""
        if not self.controls or not getattr(self.kind, "shows", True):
            return {}
        value = self.value(state)
        shown = None if value is None else self.kind.show(value)
        values = shown if len(self.controls) > 1 else (shown,)
        return {control_key(c): v for c, v in zip(self.controls, values, strict=True)}


def query_string(pairs: Iterable[tuple[str, str]]) -> str:
    """`a=1&b=x,y`: commas, colons and template slots travel as they are."""
    return "&".join(f"{quote(str(k), safe='')}={quote(str(v), safe=',:{}')}" for k, v in pairs)


def write_link(params: Iterable[Param], state: object, template: bool = False) -> list[tuple[str, str]]:
    """The (name, text) pairs of the state's canonical link, in the table's order."""
    return [(p.name, text) for p in params for text in p.texts(state, template)]


def read_link(params: Iterable[Param], args: dict[str, str], bad: Callable[[str, str, Why | str], None]) -> dict:
    """The link's values of the table's parameters -> {field: value}; a refused one is told to
    `bad(name, text, why)`. Names the table does not hold are left to the caller."""
    changes: dict[str, object] = {}
    for p in params:
        if p.name in args:
            values, problems = p.parse(str(args[p.name]))
            changes.update(values)
            for text, why in problems:
                bad(p.name, text, why)
    return changes


def read_controls(
    params: Iterable[Param], controls: dict, bad: Callable[[str, str | None, Why], None] | None = None
) -> dict:
    """The controls' values ({"id.prop": value}, as the browser sends them or as a test writes
    them) -> {field: value}; a refused one is dropped (the default stays) and told to
    `bad(name, typed, why)`, as `read_link` tells a link's. Whether and how a refusal is said is
    the page's: an optional box sent empty (typed None) may simply be unset."""
    changes: dict[str, object] = {}
    for p in params:
        values, problems = p.read(controls)
        changes.update(values)
        for typed, why in problems:
            if bad is not None:
                bad(p.name, typed, why)
    return changes


def typed_text(value: object) -> str | None:
    """What a control sent, quoted as the reader typed it (5, not 5.0); None when there is
    nothing to quote: an empty box, or a number outside the box's min and max, which the
    browser sends as null."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    # a list (the op lab's chain of ops) is quoted further than a typed number
    return str(value)[: MAX_LISTED_CHARS if isinstance(value, (list, dict, bool)) else MAX_TYPED_CHARS]


def control_key(control: tuple[str, str]) -> str:
    return f"{control[0]}.{control[1]}"


def shown(params: Iterable[Param], state: object) -> dict[str, object]:
    """{"id.prop": value}: what each control shows for the state (the layout's first values)."""
    out: dict[str, object] = {}
    for p in params:
        out.update(p.show(state))
    return out


def control_inputs(params: Iterable[Param], dependency) -> dict:
    """{"id.prop": Input(id, prop)} (or State) for every control the table names, once each:
    a callback's keyword `controls` argument."""
    return {control_key(c): dependency(*c) for p in params for c in p.controls}
