"""The training lab (tab=training): MFU/HFU under every counting choice, the memory bill of one
GPU against its card, the DDP gradient all-reduce.

Every number comes from engine/training.py through the same calls as POST /api/v1/training
(`training_model`, `TrainingSetup`, `training_lab`); this module reads the link and the
controls into those inputs through the one parameter table (params.py), and figures.py puts
the result into words.

The link carries the lab's own parameters beside the shared ones (tab, hw, lang, theme, embed):

    model=teaching|<preset id>  n (billions of parameters), layers, heads, hdim (teaching form)
    gpus  seq (tokens per sequence)  tokens (per optimizer step, whole job)
    step (measured step time, s) or tok_s (measured tokens/s, whole job)
    opt=adamw|sgd_momentum  zero=0..3  recompute=none|selective|full  dtype=bf16|fp16
    busbw (measured all-reduce bus bandwidth, GB/s; default the link)  mb (micro-batch)

A bad or unknown value in the link is ignored with a notice; a value typed into a box that
cannot be used is told in the box's own words, and the page shows the default instead. The
default is a 7B model on 8 x H100 SXM5 (PaLM's appendix B counting).
"""

from __future__ import annotations

from dataclasses import replace

from app.dashboard.lib.i18n import box_sentence, reason, shown_value, t
from app.dashboard.lib.params import Param, Why, control_key, read_controls, read_link, write_link
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.training.params import (
    LINK,
    MEASURE,
    OWN,
    PARAMS,
    TEACHING,
    TEACHING_PARAMS,
    Measured,
    TrainArgs,
    current_names,
)
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.training import (
    MAX_STEP_TIME_S,
    MAX_TOKENS_PER_STEP,
    TrainingSetup,
    memory_bill,
    training_lab,
    training_model,
)

MAX_NOTICES = 8


# ---- the link ----------------------------------------------------------------------------------------
def in_link(p: Param, a: TrainArgs) -> bool:
    """The teaching form's sizes are the link's only with model=teaching (a preset has its own)."""
    return p.name not in TEACHING_PARAMS or a.model == TEACHING


def link_pairs(a: TrainArgs) -> list[tuple[str, str]]:
    """The lab's own parameters in its canonical link, in the table's order."""
    return write_link([p for p in LINK if in_link(p, a)], a)


def parse_args(lab_args: tuple[tuple[str, str], ...], hardware: tuple[str, ...], lang: str = "en"):
    """(TrainArgs, notices) from the link: each bad or unknown parameter is ignored and named.
    `hardware` is the View's (the page's chrome): the first one is trained on."""
    notices: list[str] = []

    def bad(name: str, value: str, why: object) -> None:
        notices.append(t("notice_ignored", lang, name=name[:40], value=value[:40], why=reason(why, lang)))

    args = dict(current_names(lab_args))
    for name, value in args.items():
        if name not in OWN and name not in ROOFLINE_PARAMS:  # the roofline's travel through (pages/links.py)
            bad(name, value, Why("unknown_parameter"))
    if "step_s" in args and "tok_s" in args:
        bad("tok_s", args.pop("tok_s"), Why("train_step_and_rate"))
    changes = read_link(LINK, args, bad)
    if hardware:
        changes["hardware"] = hardware[0]
    if changes.get("model", TEACHING) != TEACHING and "measured" not in changes:
        changes["measured"] = None  # the example's measured step is the teaching run's, not this model's
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES:] = [t("lab_train_more_notices", lang, n=len(notices) - MAX_NOTICES)]
    return replace(TrainArgs(), **changes), notices


# ---- the controls ------------------------------------------------------------------------------------
def _asked(p: Param, a: TrainArgs, controls: dict) -> bool:
    """Whether the page asks this row for a value: the teaching sizes only for the teaching
    form, the measured box only as the measure the radio names."""
    if isinstance(p.kind, Measured):
        return controls.get(control_key(p.controls[0])) == p.kind.measure
    return in_link(p, a)


def _limit(x: float) -> str:
    """A limit as a reader writes it: 100,000, 0.001, 0.000001 (never 1e-06)."""
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.12f}".rstrip("0") if abs(x) < 1 else f"{x:,g}"


def refusal(p: Param, typed: str | None, a: TrainArgs, lang: str) -> str:
    """A number box's refused value in its own words: "L, layers must be 1–100,000 (you typed
    0); still showing 32" (the value the page uses instead). A measured rate has no default
    to show instead: the sentence asks for one."""
    words = {"label": t(f"lab_train_{p.name}", lang), "low": _limit(p.kind.low), "high": _limit(p.kind.high)}
    if isinstance(p.kind, Measured) and p.kind.measure != a.measure:
        return t("lab_train_no_rate", lang, **words, typed=typed or "—")
    open_low = getattr(getattr(p.kind, "number", p.kind), "open_low", False)
    shown = shown_value(a.measured if isinstance(p.kind, Measured) else p.value(a), lang)
    return box_sentence(words["label"], words, typed, shown, lang, open_low)


def args_from_controls(controls: dict, lang: str = "en") -> tuple[TrainArgs, list[str], list[str]]:
    """(TrainArgs, problems, refusals) from the controls ({"id.prop": value}), through the
    table's readers: a hand-made callback request gets the same checks as a link.

    A number box whose value cannot be used keeps the default and says so (a refusal); an
    optional one left empty is unset. A choice no control offers, or a measured rate that
    cannot be used (no default rate to fall back on), is a problem: nothing is computed."""
    typed_of: dict[str, str | None] = {}  # each refused row's typed text, as the table quotes it
    changes = read_controls(PARAMS, controls, lambda name, typed, _why: typed_of.setdefault(name, typed))
    a = replace(TrainArgs(), **changes)
    problems: list[str] = []
    refused: list[str] = []
    # a tuple, not a set: a hand-made request may send a list, which cannot be hashed
    measures = tuple(p.kind.measure for p in PARAMS if isinstance(p.kind, Measured))
    if controls.get(control_key(MEASURE[0])) not in measures:
        problems.append(t("lab_train_invalid", lang, field=t("lab_train_measure", lang)))
    for p in PARAMS:  # the rows asked for that got no value: refused, or not sent at all (None)
        if set(p.fields) <= set(changes) or not _asked(p, a, controls):
            continue
        typed = typed_of.get(p.name)
        if not hasattr(p.kind, "high"):  # a choice
            problems.append(t("lab_train_invalid", lang, field=t(f"lab_train_{p.name}", lang)))
        elif typed is None and p.value(TrainArgs()) is None:
            continue  # an optional box left empty: unset
        elif isinstance(p.kind, Measured) and p.kind.measure != a.measure:
            problems.append(refusal(p, typed, a, lang))
        elif isinstance(p.kind, Measured) and a.model != TEACHING:
            # the default measurement is the teaching run's: another model's utilisation waits for
            # its own, and what needs none (the memory bill, the all-reduce) is drawn meanwhile
            a = replace(a, measured=None)
            if typed is not None:
                refused.append(refusal(p, typed, a, lang))
        else:
            refused.append(refusal(p, typed, a, lang))
    return a, problems, refused


def needs_measurement(a: TrainArgs, lang: str) -> str:
    """What the lab says instead of a utilisation it cannot know: the model came without a
    measured step (MFU is FLOPs done over FLOPs possible in the measured time)."""
    return t("lab_train_needs_measurement", lang, model=a.model)


def unmeasured(a: TrainArgs) -> TrainArgs:
    """`a` with a stand-in step time, for the engine's parts that need none (the memory bill, the
    all-reduce's size and time): the page shows none of what a measured step would set."""
    return replace(a, measure="step", measured=MAX_STEP_TIME_S)


def nearest_valid_tokens(a: TrainArgs) -> int | None:
    """Tokens per step the engine takes nearest `a.tokens`: a whole number of sequences on each
    GPU (a multiple of gpus x seq, at least one); None when `a.tokens` is one already."""
    per_step = a.gpus * a.seq
    if a.tokens % per_step == 0:
        return None
    nearest = max(1, round(a.tokens / per_step)) * per_step
    while nearest > MAX_TOKENS_PER_STEP and nearest > per_step:
        nearest -= per_step
    return nearest if nearest <= MAX_TOKENS_PER_STEP else None


# ---- the engine ------------------------------------------------------------------------------------
def model_spec(a: TrainArgs) -> object:
    """What POST /api/v1/training takes as `model`."""
    if a.model != TEACHING:
        return a.model
    return {"num_params": a.params_b * 1e9, "num_layers": a.layers, "num_heads": a.heads, "head_dim": a.head_dim}


def setup_fields(a: TrainArgs) -> dict:
    """What POST /api/v1/training takes beside the model and hardware (SI units): the table's
    plain pass-throughs (`scenario=`), the measured rate and the busbw in bytes/s."""
    return {
        **{p.scenario: p.value(a) for p in PARAMS if p.scenario},
        "step_time_s": a.measured if a.measure == "step" else None,
        "tokens_per_s": a.measured if a.measure == "rate" else None,
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
