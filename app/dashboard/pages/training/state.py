"""The training lab (tab=training): MFU/HFU under every counting choice, the memory bill of one
GPU against its card, the DDP gradient all-reduce.

Every number comes from engine/training.py through the same calls as POST /api/v1/training
(`training_model`, `TrainingSetup`, `training_lab`); this module parses the link and the
controls into those inputs, and figures.py puts the result into words.

The link carries the lab's own parameters beside the shared ones (tab, hw, lang, theme, embed):

    model=teaching|<preset id>  n (billions of parameters), layers, heads, hdim (teaching form)
    gpus  seq (tokens per sequence)  tokens (per optimizer step, whole job)
    step (measured step time, s) or tok_s (measured tokens/s, whole job)
    opt=adamw|sgd_momentum  zero=0..3  recompute=none|selective|full  dtype=bf16|fp16
    busbw (measured all-reduce bus bandwidth, GB/s; default the link)  mb (micro-batch)

A bad or unknown value is ignored with a notice; the default is a 7B model on
8 x H100 SXM5 (PaLM's appendix B counting).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from app.dashboard.lib.i18n import reason, t
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.units import grouped
from engine.errors import EngineInputError
from engine.hardware import catalogue, get_accelerator
from engine.model_catalog import model_ids
from engine.training import (
    MAX_GPUS,
    MAX_SEQUENCE,
    OPTIMIZERS,
    RECOMPUTE,
    TRAINING_DTYPES,
    TrainingSetup,
    memory_bill,
    training_lab,
    training_model,
)

TEACHING = "teaching"


MEASURES = ("step", "rate")


MAX_NOTICES = 8


@dataclass(frozen=True)
class TrainArgs:
    """What the lab was asked: a 7B model on 8 x H100 SXM5 with full recomputation (the
    run whose four utilisation figures span 19% to 51%)."""

    hardware: str = "h100-sxm5"
    model: str = TEACHING
    params_b: float = 7.0  # teaching form: N in billions
    layers: int = 32
    heads: int = 32
    head_dim: int = 128
    gpus: int = 8
    seq: int = 4096
    tokens: int = 262144
    measure: str = "step"  # "step": `measured` is the step time (s); "rate": tokens/s
    measured: float = 3.64
    optimizer: str = "adamw"
    zero: int = 0
    recompute: str = "full"
    dtype: str = "bf16"
    busbw_gbs: float | None = None  # measured busbw, GB/s; None: the link
    micro_batch: int | None = None  # None: every sequence of the GPU at once


# ---- parsing: one parser per value, shared by the link and the controls ---------------------------
def _int(low: int, high: int) -> tuple[Callable[[str], int | None], tuple]:
    def parse(text: str) -> int | None:
        if not (text.isascii() and text.isdigit()) or len(text) > 16:  # no sign, exponent, space, non-ASCII digit
            return None
        n = int(text)
        return n if low <= n <= high else None

    parse.high = high  # the number box's max: without one, Dash's + and − buttons give NaN
    return parse, ("lab_train_why_int", {"low": grouped(low), "high": grouped(high)})


def _num(high: float) -> tuple[Callable[[str], float | None], tuple]:
    def parse(text: str) -> float | None:
        if len(text) > 24 or not text.isascii():
            return None
        try:
            x = float(text)
        except ValueError:
            return None
        return x if math.isfinite(x) and 0 < x <= high else None

    parse.high = high  # the number box's max: without one, Dash's + and − buttons give NaN
    return parse, ("lab_train_why_num", {"high": grouped(high)})


def _choice(options: tuple) -> tuple[Callable[[str], object], tuple]:
    by_text = {str(o): o for o in options}
    return by_text.get, ("lab_train_why_choice", {"options": ", ".join(by_text)})


def _model(text: str) -> str | None:
    return text if text == TEACHING or text in model_ids() else None


# URL name -> (TrainArgs field, parser, why it was refused)
PARAMS: dict[str, tuple[str, Callable, tuple]] = {
    "model": ("model", _model, ("lab_train_why_model", {})),
    "n": ("params_b", *_num(1e7)),
    "layers": ("layers", *_int(1, 100_000)),
    "heads": ("heads", *_int(1, 1 << 16)),
    "hdim": ("head_dim", *_int(1, 1 << 16)),
    "gpus": ("gpus", *_int(1, MAX_GPUS)),
    "seq": ("seq", *_int(1, MAX_SEQUENCE)),
    "tokens": ("tokens", *_int(1, 1 << 50)),
    "step": ("measured", *_num(1e7)),
    "tok_s": ("measured", *_num(1e15)),
    "opt": ("optimizer", *_choice(OPTIMIZERS)),
    "zero": ("zero", *_choice((0, 1, 2, 3))),
    "recompute": ("recompute", *_choice(RECOMPUTE)),
    "dtype": ("dtype", *_choice(TRAINING_DTYPES)),
    "busbw": ("busbw_gbs", *_num(1e6)),
    "mb": ("micro_batch", *_int(1, 1 << 30)),
}


TEACHING_PARAMS = ("n", "layers", "heads", "hdim")
OWN = frozenset(PARAMS)  # what the lab reads itself; the rest of the roofline's travels through


def _text_of(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def link_pairs(a: TrainArgs) -> list[tuple[str, str]]:
    """The lab's own parameters in its canonical link, in the order PARAMS reads them."""
    values = {name: getattr(a, attr) for name, (attr, _, _) in PARAMS.items()}
    left_out = {"tok_s" if a.measure == "step" else "step"}
    if a.model != TEACHING:
        left_out |= set(TEACHING_PARAMS)
    return [(name, _text_of(v)) for name, v in values.items() if name not in left_out and v is not None]


def _why(name: str, lang: str) -> str:
    key, values = PARAMS[name][2]
    return t(key, lang, **values)


def parse_args(lab_args: tuple[tuple[str, str], ...], hardware: tuple[str, ...], lang: str = "en"):
    """(TrainArgs, notices) from the link: each bad or unknown parameter is ignored and named."""
    notices: list[str] = []

    def bad(name: str, value: str, why: str) -> None:
        notices.append(t("notice_ignored", lang, name=name[:40], value=value[:40], why=why))

    changes: dict[str, object] = {"hardware": hardware[0]} if hardware else {}
    given: dict[str, str] = {}
    for name, value in lab_args:
        if name not in PARAMS:
            if name not in ROOFLINE_PARAMS:  # the roofline's are carried through the lab (pages/links.py)
                bad(name, value, t("lab_train_why_unknown", lang))
            continue
        attr, parse, _ = PARAMS[name]
        parsed = parse(value)
        if parsed is None:
            bad(name, value, _why(name, lang))
            continue
        if name == "tok_s" and "step" in given:
            bad(name, value, t("lab_train_why_both", lang))
            continue
        given[name] = value
        changes[attr] = parsed
        if name in ("step", "tok_s"):
            changes["measure"] = "step" if name == "step" else "rate"
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES:] = [t("lab_train_more_notices", lang, n=len(notices) - MAX_NOTICES)]
    return replace(TrainArgs(), **changes), notices


def _text(value: object) -> str | None:
    """A control's value as the link would carry it; None when empty."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (int, float, str)):
        return str(value)[:32]
    return "?"


# the controls in the order of CONTROL_IDS, with the URL parameter each one writes
CONTROLS = (
    ("train-hw", None),
    ("train-model", "model"),
    ("train-n", "n"),
    ("train-layers", "layers"),
    ("train-heads", "heads"),
    ("train-hdim", "hdim"),
    ("train-gpus", "gpus"),
    ("train-seq", "seq"),
    ("train-tokens", "tokens"),
    ("train-measure", None),
    ("train-measured", None),
    ("train-opt", "opt"),
    ("train-zero", "zero"),
    ("train-recompute", "recompute"),
    ("train-dtype", "dtype"),
    ("train-busbw", "busbw"),
    ("train-mb", "mb"),
)


OPTIONAL = ("busbw", "mb")


def args_from_controls(*values: object, lang: str = "en") -> tuple[TrainArgs, list[str]]:
    """(TrainArgs, problems) from the controls, through the link's parsers: a hand-made
    callback request gets the same checks as a link."""
    by_id = dict(zip((c for c, _ in CONTROLS), values, strict=True))
    problems: list[str] = []
    changes: dict[str, object] = {}
    hw = by_id["train-hw"]
    if isinstance(hw, str) and hw in catalogue():
        changes["hardware"] = hw
    else:
        problems.append(t("lab_train_invalid", lang, field=t("lab_train_accelerator", lang)))
    measure = by_id["train-measure"] if by_id["train-measure"] in MEASURES else "step"
    changes["measure"] = measure
    named = [(cid, name) for cid, name in CONTROLS if name] + [
        ("train-measured", "step" if measure == "step" else "tok_s")
    ]
    model_text = _text(by_id["train-model"])
    for cid, name in named:
        if name in TEACHING_PARAMS and model_text != TEACHING:
            continue
        text = _text(by_id[cid])
        if text is None:
            if name not in OPTIONAL:
                problems.append(t("lab_train_missing", lang, field=name))
            continue
        attr, parse, _ = PARAMS[name]
        parsed = parse(text)
        if parsed is None:
            problems.append(t("notice_ignored", lang, name=name, value=text, why=_why(name, lang)))
        else:
            changes[attr] = parsed
    return replace(TrainArgs(), **changes), problems


# ---- the engine ------------------------------------------------------------------------------------
def model_spec(a: TrainArgs) -> object:
    """What POST /api/v1/training takes as `model`."""
    if a.model != TEACHING:
        return a.model
    return {"num_params": a.params_b * 1e9, "num_layers": a.layers, "num_heads": a.heads, "head_dim": a.head_dim}


def setup_fields(a: TrainArgs) -> dict:
    """What POST /api/v1/training takes beside the model and hardware (SI units)."""
    return {
        "gpus": a.gpus,
        "sequence_length": a.seq,
        "tokens_per_step": a.tokens,
        "step_time_s": a.measured if a.measure == "step" else None,
        "tokens_per_s": a.measured if a.measure == "rate" else None,
        "optimizer": a.optimizer,
        "zero_stage": a.zero,
        "recompute": a.recompute,
        "dtype": a.dtype,
        "micro_batch_size": a.micro_batch,
        "bus_bandwidth_bytes_per_s": None if a.busbw_gbs is None else a.busbw_gbs * 1e9,
    }


def compute(a: TrainArgs, lang: str = "en") -> tuple[dict | None, dict | None, str | None]:
    """(the engine's result, the memory bill with its smallest fix or None, error message)."""
    try:
        model, hw = training_model(model_spec(a)), get_accelerator(a.hardware)
        setup = TrainingSetup(**setup_fields(a))
        result = training_lab(model, hw, setup)
    except EngineInputError as error:  # e.g. more than MAX_SEQUENCES_PER_GPU sequences per GPU
        return None, None, reason(error, lang)
    fix = result["smallest_fix"]
    fix_bill = None
    if fix is not None:
        fix_bill = memory_bill(
            model,
            hw,
            setup.gpus,
            setup.sequence_length,
            fix["micro_batch_size"],
            setup.optimizer,
            fix["zero_stage"],
            fix["recompute"],
        )
    return result, fix_bill, None
