"""The Planner page's URL parameters, each declared once (lib/params.py): its name in the link,
the PlanArgs field it sets, its limits (the engine's own where it has them) and the control
that shows it. The order of the rows is the order of the canonical link.

The accelerators travel as the page's chrome (`hw=`, read by the View on every tab); the
rest of the link is this table's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.dashboard.lib.params import Choice, Float, Int, Invalid, Param
from app.dashboard.pages.serving.params import Model
from engine.planner import MODES, TARGETS
from engine.planner.space import MAX_BUDGET, PRECISIONS
from engine.request import MAX_GPU_HOUR_PRICE
from engine.serving.scenario import BACKENDS, MAX_TOKENS

DEFAULT_HARDWARE = ("h200-sxm",)
# The targets' sliders and boxes, ms: a TPOT from 1 ms (a small model on a fast card) to 1 s,
# a TTFT from 10 ms to a minute (a long prompt on a crowded deployment).
TPOT_MS = (1.0, 1000.0)
TTFT_MS = (10.0, 60_000.0)
MAX_PRICE_CHARS = 24


@dataclass(frozen=True)
class PlanArgs:
    """A planning question as the page shows it: Llama-3.1-70B on 8 x H200, 1,024 tokens in
    and out, TPOT <= 50 ms and TTFT <= 2 s at the estimate, every backend, both modes and the
    engine's precisions (the model's release format, fp8, and fp4 where the card has it)."""

    model: str = "meta-llama/Llama-3.1-70B"
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    gpus: int = 8
    input_tokens: int = 1024
    output_tokens: int = 1024
    tpot_ms: float = 50.0
    ttft_ms: float = 2000.0
    target: str = "estimate"
    modes: tuple[str, ...] = MODES
    backends: tuple[str, ...] = BACKENDS
    precisions: tuple[str, ...] = ()  # none: the engine's own choice (space.precisions_for)
    prices: tuple[tuple[str, float], ...] = ()  # (accelerator id, USD per GPU-hour)


@dataclass(frozen=True)
class Choices:
    """`a,b`: some of `options`, each once, written in the options' order; `empty` allows none
    (the engine then chooses). A checklist shows them."""

    options: tuple[str, ...]
    empty: bool = False

    def _checked(self, values: list) -> tuple[str, ...]:
        if any(not isinstance(v, str) or v not in self.options for v in values) or not (values or self.empty):
            raise Invalid("one_or_more_of", allowed=", ".join(self.options))
        return tuple(o for o in self.options if o in values)

    def parse(self, text: str) -> tuple[str, ...]:
        return self._checked([v for v in text.split(",") if v])

    def write(self, value: tuple[str, ...]) -> str:
        return ",".join(value)

    def read(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise Invalid("one_or_more_of", allowed=", ".join(self.options))
        return self._checked(value)

    def show(self, value: tuple[str, ...]) -> list:
        return list(value)


class Prices:
    """`price=h200-sxm:3.5,b200:5`: USD per GPU-hour by accelerator id. The boxes, one per
    accelerator, are gathered into a store ({id: price}) that the controls send; a box left
    empty sets no price. Which ids may have one is the page's accelerators (state.consistent)."""

    kind = Float(0, MAX_GPU_HOUR_PRICE, open_low=True)

    def parse(self, text: str) -> tuple[tuple[str, float], ...]:
        out: dict[str, float] = {}
        for item in (i for i in text.split(",") if i):
            hw, _, price = item.partition(":")
            if not hw or len(item) > 64 + MAX_PRICE_CHARS:
                raise Invalid("prices", high=f"{MAX_GPU_HOUR_PRICE:,g}")
            try:
                out[hw] = self.kind.parse(price)
            except Invalid:
                raise Invalid("prices", high=f"{MAX_GPU_HOUR_PRICE:,g}") from None
        return tuple(out.items())

    def write(self, value: tuple[tuple[str, float], ...]) -> str:
        return ",".join(f"{hw}:{self.kind.write(price)}" for hw, price in value)

    def read(self, value: object) -> tuple[tuple[str, float], ...]:
        if not isinstance(value, dict):
            raise Invalid("missing")
        return tuple((hw, float(price)) for hw, price in value.items() if isinstance(hw, str) and self.valid(price))

    @staticmethod
    def valid(price: object) -> bool:
        """A price a box may hold: a finite number above 0 and at most MAX_GPU_HOUR_PRICE."""
        number = isinstance(price, (int, float)) and not isinstance(price, bool) and math.isfinite(price)
        return number and 0 < price <= MAX_GPU_HOUR_PRICE

    def show(self, value) -> None:
        return None

    shows = False  # the boxes are built by the layout, one per accelerator


def _default(value):
    return lambda v: v == value


PARAMS: tuple[Param, ...] = (
    Param("model", "model", Model(), control=("plan-model", "value")),
    Param("gpus", "gpus", Int(1, MAX_BUDGET), control=("plan-gpus", "value")),
    Param("isl", "input_tokens", Int(1, MAX_TOKENS), control=("plan-isl", "value")),
    Param("osl", "output_tokens", Int(1, MAX_TOKENS), control=("plan-osl", "value")),
    # the sliders move these in the browser: the link the server writes holds their slots
    Param("tpot_ms", "tpot_ms", Float(*TPOT_MS), control=("plan-tpot", "value"), moves=True),
    Param("ttft_ms", "ttft_ms", Float(*TTFT_MS), control=("plan-ttft", "value"), moves=True),
    Param("target", "target", Choice(TARGETS), control=("plan-target", "value"), omit=_default("estimate")),
    Param("modes", "modes", Choices(MODES), control=("plan-modes", "value"), omit=_default(MODES)),
    Param("backends", "backends", Choices(BACKENDS), control=("plan-backends", "value"), omit=_default(BACKENDS)),
    Param(
        "precs",
        "precisions",
        Choices(tuple(PRECISIONS), empty=True),
        control=("plan-precs", "value"),
        omit=_default(()),
    ),
    Param("price", "prices", Prices(), control=("plan-prices", "data"), omit=_default(())),
)
BY_NAME = {p.name: p for p in PARAMS}
OWN = frozenset(BY_NAME)
