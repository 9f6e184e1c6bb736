"""The roofline page's URL parameters, each declared once (lib/params.py): its name in the link,
the View field it sets, its limits (the engine's own), and the control that shows it. The
defaults are the View's. Adding a parameter: a View field, a row here, its control in
controls.py, a line in docs/dashboard.md's URL table.

The order of the rows is the order of the canonical link."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

from app.dashboard.components.what_if import MAX_HARDWARE
from app.dashboard.lib.params import Choice, Flag, Float, Int, Invalid, Key, Param, Why, model_choice
from app.dashboard.pages.roofline.config_link import decode_config
from engine.analysis import DEFAULT_MEMORY_UTILIZATION, MAX_BATCH, MAX_BLOCK, MAX_CONTEXT
from engine.errors import EngineInputError
from engine.hardware import catalogue
from engine.measurement import MAX_MEASURED_STEP_S
from engine.model_catalog import model_ids
from engine.request import MAX_GPU_HOUR_PRICE
from engine.serving.scenario import BACKENDS, MAX_CONCURRENCY
from engine.what_if import parse_what_if

MAX_KV_HEADS = 1 << 16
# Dashboard precision choices -> (weight dtype, compute dtype). "int4" is weight-only (W4A16).
PRECISIONS: dict[str, tuple[str, str]] = {
    "bf16": ("bf16", "bf16"),
    "fp16": ("fp16", "fp16"),
    "fp8": ("fp8", "fp8"),
    "int8": ("int8", "int8"),
    "int4": ("int4", "bf16"),
    "fp4": ("fp4", "fp4"),
}
KV_PRECISIONS = ("bf16", "fp8", "int8", "int4")
BACKEND_CHOICES = ("any", *BACKENDS)  # the serving estimate's calibrations, as the serving page offers them
TABS = ("roofline", "ops", "training", "serving", "plan")
LANGS = ("en", "zh")


class Accelerators:
    """`hw=a,b`: catalogue ids, each once, at most MAX_HARDWARE; an unknown one is refused alone."""

    def parse_all(self, text: str) -> tuple[tuple[str, ...] | None, list]:
        known = catalogue()
        ids = [h for h in text.split(",") if h]
        problems = [(h, Why("unknown_accelerator")) for h in ids if h not in known]
        good = tuple(dict.fromkeys(h for h in ids if h in known))
        if len(good) > MAX_HARDWARE:
            problems.append((",".join(good[MAX_HARDWARE:]), Why("max_accelerators", {"n": MAX_HARDWARE})))
            good = good[:MAX_HARDWARE]
        return good or None, problems

    def write(self, value: tuple[str, ...]) -> str:
        return ",".join(value)

    def read(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise Invalid("missing")
        known = catalogue()
        return tuple(dict.fromkeys(h for h in value if isinstance(h, str) and h in known))[:MAX_HARDWARE]

    def show(self, value: tuple[str, ...]) -> list:
        return list(value)


def valid_what_ifs(texts: list, bad) -> tuple[str, ...]:
    """Valid what-if accelerators (engine.what_if's short form), each name once; the rest is
    reported through `bad(name, value, why)`."""
    good: dict[str, str] = {}
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            continue
        text = text.strip()
        try:
            accelerator = parse_what_if(text)
        except EngineInputError as exc:
            bad("xhw", text, exc)  # its code and parameters: said in the page's language
            continue
        if accelerator.id in good:
            bad("xhw", text, Why("what_if_twice", {"name": accelerator.id}))
            continue
        good[accelerator.id] = text
    return tuple(good.values())


class WhatIfs:
    """`xhw=name:TB/s:TFLOP/s[:GB[:vector TFLOP/s]]`, repeated: invented accelerators."""

    def parse_all(self, text: str) -> tuple[tuple[str, ...] | None, list]:
        problems: list = []
        good = valid_what_ifs(text.split(","), lambda _name, value, why: problems.append((value, why)))
        return good, problems

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise Invalid("missing")
        return valid_what_ifs(value, lambda *_: None)

    def show(self, value: tuple[str, ...]) -> list:
        return list(value)


class ConfigToken:
    """`cfg=`: a custom config.json, deflated into the link (config_link.py)."""

    def parse(self, text: str) -> str:
        try:
            decode_config(text)
        except EngineInputError as exc:
            raise Invalid("engine", text=exc if exc.code else str(exc).removeprefix("cfg: ")) from None
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        token = value.get("token") if isinstance(value, dict) else None
        if not isinstance(token, str):
            raise Invalid("missing")
        return self.parse(token)

    shows = False  # the custom-model store holds the config too: the layout fills it

    def show(self, value) -> None:
        return None


class KvHeads:
    """`kv=8`: KV heads; the slider moves on the divisors of the query heads (its marks)."""

    def parse(self, text: str) -> int:
        return Int(1, MAX_KV_HEADS).parse(text)

    def write(self, value: int) -> str:
        return str(value)

    def read(self, index: object, marks: object, disabled: object) -> int | None:
        mark = marks.get(str(index)) if isinstance(marks, dict) and not disabled else None
        if not (isinstance(mark, str) and mark.isdigit()):
            raise Invalid("missing")
        return self.parse(mark)

    shows = False  # the slider's stops depend on the model: widgets.kv_controls

    def show(self, value) -> None:
        return None


class Roofs:
    """`roofs=measured,hierarchy`: the measured roofs and/or the cache roofs beside HBM's."""

    def parse(self, text: str) -> tuple[bool, bool]:
        parts = set(text.split(","))
        if not parts <= {"nominal", "measured", "hierarchy"} or {"nominal", "measured"} <= parts:
            raise Invalid("roofs")
        return "measured" in parts, "hierarchy" in parts

    def write(self, value: tuple[bool, bool]) -> str:
        return ",".join(r for r, on in zip(("measured", "hierarchy"), value, strict=True) if on)

    def read(self, measured: object, hierarchy: object) -> tuple[bool, bool]:
        return Flag().read(measured), Flag().read(hierarchy)

    def show(self, value: tuple[bool, bool]) -> tuple[list, list]:
        return Flag().show(value[0]), Flag().show(value[1])


class Pin:
    """`pin=`: scenario A, as the query of its scenario parameters (PIN_PARAMS)."""

    def parse_all(self, text: str) -> tuple[str | None, list]:
        from app.dashboard.pages.roofline.state import pin_query, pin_view  # the pin is a View

        problems: list = []
        pinned = pin_view(text, lambda name, value, why: problems.append((value, why)))
        return (pin_query(pinned) if pinned is not None else None), problems

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, str) or len(value) > 8192:
            raise Invalid("missing")
        pin, _ = self.parse_all(value)
        return pin or ""

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Switchable:
    """A number the page can go without (the whole request's output tokens, the serving
    estimate's concurrency), on by default: 0 in the link and an empty box mean "none"."""

    kind: Int

    @property
    def low(self) -> int:
        return self.kind.low

    @property
    def high(self) -> int:
        return self.kind.high

    def parse(self, text: str) -> int:
        return 0 if text == "0" else self.kind.parse(text)

    def write(self, value: int) -> str:
        return "0" if not value else self.kind.write(value)

    def read(self, value: object) -> int:
        return 0 if value in (None, "") else self.kind.read(value)

    def show(self, value: int) -> int | None:
        return value or None


def _at_default(default):
    return lambda value: value == default


PARAMS: tuple[Param, ...] = (
    Param("tab", "tab", Choice(TABS), omit=_at_default("roofline")),
    Param("hw", "hardware", Accelerators(), control=("hardware", "value")),
    Param("model", "model", model_choice((*model_ids(), "custom")), control=("model", "value")),
    Param("cfg", "custom_token", ConfigToken(), control=("custom-model", "data")),
    Param("batch", "batch", Key(Int(1, MAX_BATCH), "batch"), control=("settled", "data"), moves=True),
    Param("ctx", "context", Key(Int(1, MAX_CONTEXT), "ctx"), control=("settled", "data"), moves=True),
    Param(
        "kv", "kv_heads", KvHeads(), control=(("kv-heads", "value"), ("kv-heads", "marks"), ("kv-heads", "disabled"))
    ),
    Param("prec", "precision", Choice(tuple(PRECISIONS)), control=("precision", "value")),
    Param("kvprec", "kv_precision", Choice(KV_PRECISIONS), control=("kv-precision", "value")),
    Param("fa", "flash_attention", Flag(), control=("flash-attention", "value")),
    Param("tp", "tensor_parallel", Choice((1, 2, 4, 8)), control=("tensor-parallel", "value")),
    Param(
        "block",
        "kv_block",
        Int(1, MAX_BLOCK),
        control=("kv-block", "value"),
        omit=_at_default(16),
        scenario="kv_block_size",
    ),
    Param(
        "roofs",
        ("measured_roofs", "hierarchy"),
        Roofs(),
        control=(("measured-roofs", "value"), ("hierarchy-roofs", "value")),
        omit=_at_default((False, False)),
    ),
    Param(
        "bweff",
        "bandwidth_efficiency",
        Float(0.01, 1.0),
        control=("bandwidth-efficiency", "value"),
        omit=_at_default(1.0),
    ),
    Param(
        "fleff", "compute_efficiency", Float(0.01, 1.0), control=("compute-efficiency", "value"), omit=_at_default(1.0)
    ),
    Param(
        "step",
        "measured_step_ms",
        Float(0, MAX_MEASURED_STEP_S * 1e3, open_low=True),
        control=("measured-step", "value"),
    ),
    Param("out", "output_tokens", Switchable(Int(1, MAX_CONTEXT)), control=("output-tokens", "value")),
    Param("conc", "concurrency", Switchable(Int(1, MAX_CONCURRENCY)), control=("concurrency", "value")),
    Param("backend", "backend", Choice(BACKEND_CHOICES), control=("backend", "value")),
    Param("price", "gpu_hour_price", Float(0, MAX_GPU_HOUR_PRICE, open_low=True), control=("gpu-price", "value")),
    Param(
        "memutil",
        "memory_utilization",
        Float(0.01, 1.0),
        control=("memory-utilization", "value"),
        omit=_at_default(DEFAULT_MEMORY_UTILIZATION),
    ),
    Param("published", "published", Flag(), control=("published", "value"), omit=_at_default(False)),
    Param("pin", "pin", Pin(), control=("pin", "data"), omit=_at_default("")),
    Param("lang", "lang", Key(Choice(LANGS), "lang"), control=("view-flags", "data")),
    Param("theme", "theme", Choice(("dark", "light"), box="dark"), control=("theme", "value")),
    Param("embed", "embed", Flag(), omit=lambda _: True),  # the iframe's, never in the link to share
    Param("controls", "controls", Flag(), omit=lambda _: True),
    Param("present", "present", Flag(), control=("present", "value"), omit=_at_default(False)),
    Param("xhw", "what_if", WhatIfs(), control=("what-if", "value"), repeat=True),
)
BY_NAME = {p.name: p for p in PARAMS}
# What every tab carries through a tab switch, both ways (docs/dashboard.md).
SHARED = ("hw", "xhw", "model", "prec", "lang", "theme", "embed", "controls", "present")
# What the View reads on every tab: the page's chrome (a lab reads the rest of its link itself).
CHROME = ("hw", "lang", "theme", "embed", "controls", "present")
# A pinned scenario A holds what defines a scenario; the accelerators, language and theme are the page's.
PIN_PARAMS = ("model", "cfg", "batch", "ctx", "kv", "prec", "kvprec", "fa", "tp")


def pairs_of(query: str) -> dict[str, str]:
    """'a=1&xhw=p&xhw=q' -> {"a": "1", "xhw": "p,q"}: the last value wins, what-ifs repeat."""
    pairs = parse_qsl(query, keep_blank_values=True)
    args = dict(pairs)
    what_ifs = [v for k, v in pairs if k == "xhw"]
    if what_ifs:
        args["xhw"] = ",".join(what_ifs)
    return args
