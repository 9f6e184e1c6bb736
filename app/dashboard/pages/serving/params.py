"""The Serving page's URL parameters, each declared once (lib/params.py): its name in the
link, the ServingArgs field it sets, its limits (the engine's own) and the control that shows
it. The order of the rows is the order of the canonical link.

The page's chrome (`hw`, `lang`, `theme`, `embed`, `controls`, `present`) is read by the View
on every tab; the rest of the link is this table's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.dashboard.lib.params import Choice, Float, Int, Invalid, Param
from app.dashboard.pages.roofline.params import MAX_HARDWARE, PRECISIONS, WhatIfs
from engine.model_catalog import nearest_model_names, preset_id_or_none
from engine.serving.scenario import BACKENDS, DEFAULT_MEMORY_UTILIZATION, MAX_CONCURRENCY, MAX_GPUS, MAX_TOKENS
from engine.serving_userfit import LIMITS, UserFit

__all__ = ["MAX_HARDWARE", "PRECISIONS"]

BACKEND_CHOICES = ("any", *BACKENDS)
DEFAULT_HARDWARE = ("h200-sxm",)
MAX_PRICE = 1000.0  # USD per GPU-hour: far above any rental price


@dataclass(frozen=True)
class FitError:
    """What a fit to the user's runs did, carried beside its parameters so a shared link can
    say it: how many runs, the median TPOT and TTFT error before and after (fractions)."""

    runs: int
    tpot_before: float
    tpot_after: float
    ttft_before: float
    ttft_after: float


@dataclass(frozen=True)
class ServingArgs:
    """A serving scenario as the page shows it: Llama-3.1-70B in FP8 on one H200 x TP 4 under
    TensorRT-LLM, 1,024 tokens in and out, 64 requests in flight (a pairing the shipped
    measured runs cover)."""

    model: str = "meta-llama/Llama-3.1-70B"
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    what_if: tuple[str, ...] = ()
    backend: str = "trtllm"
    precision: str = "fp8"
    tensor_parallel: int = 4
    attention_data_parallel: int = 1
    expert_parallel: int = 1
    input_tokens: int = 1024
    output_tokens: int = 1024
    concurrency: int = 64
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION
    gpu_hour_price: float | None = None
    fit: UserFit | None = None
    fit_error: FitError | None = None
    fit_hardware: str | None = None  # the accelerator the fit belongs to; None: the first


class Model:
    """`model=`: a preset id or a Hugging Face repo id (kept as given; the engine resolves it)."""

    def parse(self, text: str) -> str:
        if len(text) > 120 or preset_id_or_none(text) is None:
            raise Invalid("unknown_model", nearest=", ".join(nearest_model_names(text[:120])))
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, str):
            raise Invalid("unknown_model", nearest=", ".join(nearest_model_names("")))
        return self.parse(value)

    def show(self, value: str) -> str:
        return value


def _numbers(text: str, count: int) -> list[float]:
    parts = text.split(",")
    if len(parts) != count or len(text) > 200:
        raise Invalid("fit_format")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise Invalid("fit_format") from None
    if not all(math.isfinite(v) for v in values):
        raise Invalid("fit_format")
    return values


class Fit:
    """`fit=tpot_scale,overhead_ms,ttft_scale,wait_steps`: a fitted calibration (a few numbers,
    engine.serving_userfit), each within its physical limits."""

    def parse(self, text: str) -> UserFit:
        scale, overhead_ms, ttft_scale, wait = _numbers(text, 4)
        values = {"tpot_scale": scale, "step_overhead_s": overhead_ms / 1e3, "ttft_scale": ttft_scale}
        values["wait_steps"] = wait
        for name, value in values.items():
            low, high = LIMITS[name]
            if not low <= value <= high:
                raise Invalid("fit_format")
        return UserFit(**values)

    def write(self, value: UserFit) -> str:
        return f"{value.tpot_scale:.4g},{value.step_overhead_s * 1e3:.4g},{value.ttft_scale:.4g},{value.wait_steps:.4g}"

    def read(self, value: object) -> UserFit:
        if not isinstance(value, dict) or not isinstance(value.get("fit"), str):
            raise Invalid("missing")
        return self.parse(value["fit"])

    def show(self, value) -> None:
        return None

    shows = False  # the fit's store is filled by the layout


class FitErrors:
    """`fiterr=runs,tpot_before%,tpot_after%,ttft_before%,ttft_after%`."""

    def parse(self, text: str) -> FitError:
        runs, *errors = _numbers(text, 5)
        if runs != int(runs) or not 1 <= runs <= 10_000 or not all(0 <= e <= 1e6 for e in errors):
            raise Invalid("fit_format")
        return FitError(int(runs), *(e / 100 for e in errors))

    def write(self, value: FitError) -> str:
        errors = (value.tpot_before, value.tpot_after, value.ttft_before, value.ttft_after)
        return ",".join([str(value.runs), *(f"{e * 100:.3g}" for e in errors)])

    def read(self, value: object) -> FitError:
        if not isinstance(value, dict) or not isinstance(value.get("fiterr"), str):
            raise Invalid("missing")
        return self.parse(value["fiterr"])

    def show(self, value) -> None:
        return None

    shows = False


class HardwareName:
    """`fithw=`: an accelerator of the page by id (a what-if by its name); checked against the
    page's accelerators once both are read (state.consistent)."""

    def parse(self, text: str) -> str:
        if not 1 <= len(text) <= 60:
            raise Invalid("unknown_accelerator")
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, dict) or not isinstance(value.get("fithw"), str):
            raise Invalid("missing")
        return self.parse(value["fithw"])

    def show(self, value) -> None:
        return None

    shows = False


def _default(value):
    return lambda v: v == value


PARAMS: tuple[Param, ...] = (
    Param("model", "model", Model(), control=("srv-model", "value")),
    Param("backend", "backend", Choice(BACKEND_CHOICES), control=("srv-backend", "value")),
    Param("prec", "precision", Choice(tuple(PRECISIONS)), control=("srv-prec", "value")),
    Param("tp", "tensor_parallel", Int(1, 72), control=("srv-tp", "value")),
    Param("adp", "attention_data_parallel", Int(1, 72), control=("srv-adp", "value"), omit=_default(1)),
    Param("ep", "expert_parallel", Int(1, MAX_GPUS), control=("srv-ep", "value"), omit=_default(1)),
    Param("isl", "input_tokens", Int(1, MAX_TOKENS), control=("srv-isl", "value")),
    Param("osl", "output_tokens", Int(1, MAX_TOKENS), control=("srv-osl", "value")),
    Param("conc", "concurrency", Int(1, MAX_CONCURRENCY), control=("srv-conc", "value")),
    Param(
        "memutil",
        "memory_utilization",
        Float(0.01, 1.0),
        control=("srv-memutil", "value"),
        omit=_default(DEFAULT_MEMORY_UTILIZATION),
    ),
    Param("price", "gpu_hour_price", Float(0, MAX_PRICE, open_low=True), control=("srv-price", "value")),
    Param("fit", "fit", Fit(), control=("srv-fit", "data")),
    Param("fiterr", "fit_error", FitErrors(), control=("srv-fit", "data")),
    Param("fithw", "fit_hardware", HardwareName(), control=("srv-fit", "data")),
    Param("xhw", "what_if", WhatIfs(), control=("srv-what-if", "value"), repeat=True),
)
BY_NAME = {p.name: p for p in PARAMS}
OWN = frozenset(BY_NAME)
