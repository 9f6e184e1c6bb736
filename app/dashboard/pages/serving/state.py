"""The Serving page's state (ServingArgs) from its link and from its controls, through the one
parameter table (params.py); the checks between fields; the page's canonical link.

A bad or unknown value is ignored with a notice that names it, never an error page.
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.dashboard.lib.i18n import box_sentence, shown_value
from app.dashboard.lib.params import Float, Int, Why, read_controls, read_link, write_link
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.params import Accelerators, pairs_of
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.params import (
    DISAGG,
    MAX_HARDWARE,
    OWN,
    PARAMS,
    PRECISIONS,
    AutoInt,
    KvLinkText,
    ServingArgs,
)
from app.dashboard.pages.serving.words import w, why
from engine.errors import EngineInputError
from engine.hardware import Accelerator, catalogue, get_accelerator
from engine.model_catalog import get_model, preset_id_or_none
from engine.serving import ServingScenario
from engine.serving.scenario import MAX_GPUS, DisaggScenario, KvLink, WorkerLayout
from engine.what_if import parse_what_if

MAX_NOTICES = 8
# A fit's results once travelled as link text (`fit=`, `fiterr=`, `fithw=`); a link could then
# state numbers the page never computed. Now the runs travel (`runs=`) and the page fits them.
RETIRED = ("fit", "fiterr", "fithw")


def accelerator_ids(a: ServingArgs) -> list[str]:
    """The accelerators' ids as results and trace uids name them (a what-if by its name)."""
    return [*a.hardware, *(x.split(":", 1)[0] for x in a.what_if)]


def accelerator_specs(a: ServingArgs) -> list[str]:
    """What the engine resolves: catalogue ids, then what-if short forms."""
    return [*a.hardware, *a.what_if]


def scenario_of(a: ServingArgs, concurrency: int | None = None) -> ServingScenario:
    """The engine's scenario; KV in fp8 whenever the weights are below 16 bits (the shipped
    data's mapping, published/serving/README.md); the routed experts split over the instance."""
    weight, compute_dtype = PRECISIONS[a.precision]
    gpus = a.tensor_parallel * a.attention_data_parallel
    ep = a.expert_parallel if gpus % a.expert_parallel == 0 else 1
    moe = get_model(a.model).is_moe
    return ServingScenario(
        concurrency=concurrency or a.concurrency,
        input_tokens=a.input_tokens,
        output_tokens=a.output_tokens,
        tensor_parallel=a.tensor_parallel,
        attention_data_parallel=a.attention_data_parallel,
        moe_tensor_parallel=gpus // ep if moe else 1,
        expert_parallel=ep if moe else 1,
        weight_dtype=weight,
        compute_dtype=compute_dtype,
        kv_dtype="bf16" if weight in ("bf16", "fp16") else "fp8",
        memory_utilization=a.memory_utilization,
        backend=None if a.backend == "any" else a.backend,
    )


SIDES = ("prefill", "decode")


def side_layout(a: ServingArgs, side: str, moe: bool) -> WorkerLayout:
    """One side's workers as the engine takes them: a MoE split left to the page (None) is the
    worker's GPUs over its expert parallelism; a dense model splits no experts."""
    tp, adp, ep = (getattr(a, f"{side}_{k}") for k in ("tp", "adp", "ep"))
    moe_tp = getattr(a, f"{side}_moe_tp") or tp * adp // ep
    return WorkerLayout(
        workers=getattr(a, f"{side}_workers"),
        tensor_parallel=tp,
        attention_data_parallel=adp,
        moe_tensor_parallel=moe_tp if moe else 1,
        expert_parallel=ep if moe else 1,
        batch=a.prefill_batch if side == "prefill" else 1,
    )


def disagg_of(a: ServingArgs, concurrency: int | None = None) -> DisaggScenario:
    """The engine's disaggregated deployment (the body POST /api/v1/serving takes as
    `disaggregated`): the page's scenario shared by both sides, each side's workers, the link."""
    moe = is_moe(a.model)
    link = KvLink(
        None if a.kv_link_gb_s is None else a.kv_link_gb_s * 1e9,
        None if a.kv_link_gb_s is None or a.kv_link_latency_us is None else a.kv_link_latency_us * 1e-6,
    )
    prefill, decode = (side_layout(a, side, moe) for side in SIDES)
    # the shared part's own layout is ignored by the engine: left at 1, as the API leaves it
    base = replace(scenario_of(a, concurrency), tensor_parallel=1, attention_data_parallel=1)
    base = replace(base, moe_tensor_parallel=1, expert_parallel=1)
    return DisaggScenario(base, prefill, decode, link)


def deployment_gpus(a: ServingArgs) -> int:
    """GPUs of the disaggregated deployment, both sides."""
    return sum(getattr(a, f"{s}_workers") * getattr(a, f"{s}_tp") * getattr(a, f"{s}_adp") for s in SIDES)


def replicas(a: ServingArgs) -> int:
    """Instances of the page's aggregated layout the deployment's GPUs hold (at least one): the
    aggregated curve it is compared with is theirs."""
    return max(1, deployment_gpus(a) // (a.tensor_parallel * a.attention_data_parallel))


def aggregated_args(a: ServingArgs) -> ServingArgs:
    """The aggregated scenario the page computes: in disaggregated mode, one of `replicas`
    instances sharing the deployment's concurrency (at least one request each), with the
    deployment's own fields at their defaults (so the aggregated curve is computed once for
    every deployment it is compared with)."""
    if a.mode != "disagg":
        return a
    unset = {f: getattr(DEFAULT_ARGS, f) for p in PARAMS if p.name in DISAGG or p.name == "mode" for f in p.fields}
    return replace(a, concurrency=max(1, round(a.concurrency / replicas(a))), **unset)


DEFAULT_ARGS = ServingArgs()


def fit_targets(a: ServingArgs) -> list[dict]:
    """The accelerators runs can be said to be measured on: by name, valued by id."""
    names = [accelerator_name(spec) for spec in accelerator_specs(a)]
    return [{"label": name, "value": x} for x, name in zip(accelerator_ids(a), names, strict=True)]


def accelerator_name(spec: str) -> str:
    """A catalogue card's name; a what-if card's own name."""
    known = catalogue().get(spec)
    return known.name if known is not None else spec.split(":", 1)[0]


def accelerator_of(spec: str) -> Accelerator:
    """A catalogue id or a what-if short form, resolved (EngineInputError if neither)."""
    return get_accelerator(spec) if ":" not in spec else parse_what_if(spec)


def is_moe(model: str) -> bool:
    try:
        return get_model(model).is_moe
    except EngineInputError:
        return False


def consistent(a: ServingArgs, bad=lambda *_: None) -> ServingArgs:
    """The checks between fields, for a link and the controls alike."""
    room = MAX_HARDWARE - len(a.hardware)
    if len(a.what_if) > room:
        bad("xhw", ",".join(a.what_if[room:]), Why("max_accelerators_what_if", {"n": MAX_HARDWARE}))
        a = replace(a, what_if=a.what_if[: max(room, 0)])
    gpus = a.tensor_parallel * a.attention_data_parallel
    if not is_moe(a.model):
        a = replace(a, expert_parallel=1)
    elif gpus % a.expert_parallel:
        bad("ep", str(a.expert_parallel), Why("ep_divides", {"gpus": gpus}))
        a = replace(a, expert_parallel=1)
    return consistent_sides(a, bad) if a.mode == "disagg" else a


def consistent_sides(a: ServingArgs, bad) -> ServingArgs:
    """A disaggregated deployment's checks, side by side: a dense model splits no experts; a
    MoE worker's expert parallelism divides its GPUs and a MoE split given covers them; both
    sides within the engine's MAX_GPUS."""
    for side in SIDES:
        s = side[0]
        tp, adp, ep, moe_tp = (getattr(a, f"{side}_{k}") for k in ("tp", "adp", "ep", "moe_tp"))
        gpus = tp * adp
        if not is_moe(a.model):
            a = replace(a, **{f"{side}_ep": 1, f"{side}_moe_tp": None})
        elif gpus % ep:
            bad(f"{s}ep", str(ep), Why("ep_divides", {"gpus": gpus}))
            a = replace(a, **{f"{side}_ep": 1, f"{side}_moe_tp": None})
        elif moe_tp is not None and moe_tp * ep != gpus:
            bad(f"{s}mtp", str(moe_tp), Why("moe_split", {"gpus": gpus, "ep": ep}))
            a = replace(a, **{f"{side}_moe_tp": None})
    total = deployment_gpus(a)
    if total > MAX_GPUS:
        # the side with more GPUs is named, and goes back to one worker (both, if that is not enough)
        side = max(SIDES, key=lambda s: getattr(a, f"{s}_workers") * getattr(a, f"{s}_tp") * getattr(a, f"{s}_adp"))
        workers = getattr(a, f"{side}_workers")
        bad(f"{side[0]}workers", str(workers), Why("deployment_gpus", {"n": f"{total:,}", "high": f"{MAX_GPUS:,}"}))
        a = replace(a, **{f"{side}_workers": 1})
        if deployment_gpus(a) > MAX_GPUS:
            a = replace(a, prefill_workers=1, decode_workers=1)
    return a


def parse_args(view: View) -> tuple[ServingArgs, list[str]]:
    """(ServingArgs, notices) from the link: each bad or unknown parameter ignored and named."""
    lang = view.lang
    notices: list[str] = []

    def bad(name: str, value: str, reason) -> None:
        notices.append(w("notice_ignored", lang, name=name[:40], value=value[:40], why=why(reason, lang)))

    args = dict(view.lab_args)
    for name, value in args.items():
        if name in RETIRED:  # a fit's numbers are no link's to state: it carries the runs
            bad(name, value, Why("fit_numbers_retired"))
        elif name not in {p.name for p in PARAMS} and name not in ROOFLINE_PARAMS:
            bad(name, value, Why("unknown_parameter"))
    changes = read_link(PARAMS, args, bad)
    if "hw" in pairs_of(view.query):  # the link's accelerators; without any, the page's default
        changes["hardware"] = view.hardware
    a = consistent(replace(ServingArgs(), **changes), bad)
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES:] = [w("srv_more_notices", lang, n=len(notices) - MAX_NOTICES)]
    return a, notices


# Parameters the controls may leave without a value: an empty price box unsets the price; the
# fit's store and the what-if list are filled in by the page itself; attention DP and expert
# parallelism default to 1.
MAY_BE_UNSENT = ("price", "runs", "xhw", "adp", "ep", "pmtp", "dmtp", "kvlink", "pbatch")


def args_from_controls(controls: dict, lang: str = "en") -> tuple[ServingArgs, list[str], list[str]]:
    """(ServingArgs, problems, refusals) from the controls ({"id.prop": value}), through the
    table's readers. A number box whose value cannot be used keeps the default and says so in
    its own words (a refusal: the page still computes); an empty price box unsets the price; a
    choice no control offers is a problem: nothing is computed."""
    refused_of: dict[str, tuple[str | None, Why]] = {}
    changes = read_controls(PARAMS, controls, lambda name, typed, reason: refused_of.setdefault(name, (typed, reason)))
    if controls.get("srv-price.value") in (None, ""):
        changes["gpu_hour_price"] = None
    changes["hardware"] = Accelerators().read(controls.get("srv-hw.value") or [])
    a = replace(ServingArgs(), **changes)
    problems: list[str] = []
    refused: list[str] = []
    for p in PARAMS:
        partly = isinstance(p.kind, KvLinkText) and p.name in refused_of  # a bandwidth read, its latency refused
        if set(p.fields) <= set(changes) and not partly:
            continue
        if p.name in refused_of and isinstance(p.kind, Int | Float | KvLinkText):
            typed, reason = refused_of[p.name]
            refused.append(refused_box(p, a, typed, reason, lang))
        elif p.name not in MAY_BE_UNSENT:
            problems.append(w("srv_invalid", lang, field=w(f"srv_field_{p.name}", lang)))
    if not accelerator_ids(a):
        problems.append(w("srv_no_accelerator", lang))
    return consistent(a, lambda name, value, reason: problems.append(why(reason, lang))), problems, refused


class Refusal(str):
    """A refused box's sentence, which also names its box (`box`, the control's id): the page
    marks that box invalid (08-serving.js; the boxes have no min or max for the browser to)."""

    box: str

    def __new__(cls, text: str, box: str) -> Refusal:
        refusal = super().__new__(cls, text)
        refusal.box = box
        return refusal


def refused_box(p, a: ServingArgs, typed: str | None, reason: Why, lang: str) -> Refusal:
    """A refused box's sentence in its own words; the KV link's two boxes each by its name: a
    refused bandwidth leaves the link auto, a refused latency none."""
    box = reason.params.get("box")
    control = {"bw": "srv-kvbw", "lat": "srv-kvlat"}.get(box, p.controls[0][0] if p.controls else "")
    return Refusal(_refused_sentence(p, a, typed, reason, lang), control)


def _refused_sentence(p, a: ServingArgs, typed: str | None, reason: Why, lang: str) -> str:
    box = reason.params.get("box")
    if reason.code == "kvlink_latency_needs_bandwidth":
        return w("srv_kvlink_latency_needs_bw", lang, typed=typed)
    label = w(f"srv_field_{p.name}" + (f"_{box}" if box else ""), lang)
    if box:
        shown = w(f"srv_kvlink_{box}_kept", lang)
    elif isinstance(p.kind, AutoInt) and p.value(a) is None:  # an empty MoE TP box: worked out
        shown = w("srv_auto", lang)
    else:
        shown = shown_value(p.value(a), lang)
    return box_sentence(label, reason.params, typed, shown, lang, getattr(p.kind, "open_low", False))


def export_name(a: ServingArgs) -> str:
    """Every file of the page, one stem: `serving-<model>-<hw1>+<hw2>-c<concurrency>` (the
    preset a Hugging Face id resolves to; characters outside [A-Za-z0-9._-] as `_`)."""
    model = preset_id_or_none(a.model) or a.model
    parts = [model, "+".join(accelerator_ids(a))]
    safe = [re.sub(r"[^A-Za-z0-9._+-]+", "_", p)[:80] for p in parts]
    if a.mode == "disagg":  # the deployment's shape too: serving-<model>-<hw>-disagg-2p1d-c<concurrency>
        return f"serving-{safe[0]}-{safe[1]}-disagg-{a.prefill_workers}p{a.decode_workers}d-c{a.concurrency}"
    return f"serving-{safe[0]}-{safe[1]}-c{a.concurrency}"


def link_of(view: View, a: ServingArgs) -> dict:
    """The page's link data (assets/04-url.js): its own parameters in the table's order, the
    chrome with its accelerators, and each tab's link."""
    own = write_link(PARAMS, a)
    shown = replace(view, hardware=a.hardware, what_if=a.what_if)
    link = lab_link(shown, own, view.carry, OWN)
    # the other tabs take preset ids: a Hugging Face id travels as the preset it resolves to
    preset = preset_id_or_none(a.model) or a.model
    tabs = lab_link(shown, [(k, preset if k == "model" else v) for k, v in own], view.carry)["tabs"]
    # the controls move the link: nothing to re-render (dcc.Location is not told); the image
    # exports take the files' stem from it (assets/04-url.js, 08-serving.js)
    return {**link, "tabs": {**tabs, "serving": link["tabs"]["serving"]}, "notify": False, "export": export_name(a)}
