"""The Planner page's state (PlanArgs) from its link and from its controls, through the one
parameter table (params.py); the checks between fields; the engine's request; the page's
canonical link, its files' name and the serving page's link for a candidate.

A bad or unknown value is ignored with a notice that names it, never an error page.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from app.dashboard.lib.i18n import box_sentence, shown_value
from app.dashboard.lib.params import Float, Int, Why, read_controls, read_link, write_link
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.plan.params import MAX_GPU_HOUR_PRICE, OWN, PARAMS, TPOT_MS, TTFT_MS, PlanArgs, Prices
from app.dashboard.pages.plan.words import w, why
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.params import Accelerators, pairs_of
from app.dashboard.pages.roofline.state import View
from app.units import plain
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import preset_id_or_none
from engine.planner import PlanRequest

MAX_NOTICES = 8
# The targets' slider stops, ms: ten a decade, the values people write (1, 1.2, 1.5, 2, 2.5, 3,
# 4, 5, 6, 8): a drag lands on 20 ms or 50 ms, not on 19.95. A typed value between two stops
# puts the thumb between them (slider_position).
MANTISSAS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)


def stops(span: tuple[float, float]) -> tuple[float, ...]:
    low, high = span
    out, decade = [], 1e-3
    while decade <= high:
        out += [round(m * decade, 6) for m in MANTISSAS if low <= round(m * decade, 6) <= high]
        decade *= 10
    return tuple(out)


TPOT_STOPS, TTFT_STOPS = stops(TPOT_MS), stops(TTFT_MS)


def slider_position(ms: float, grid: tuple[float, ...]) -> float:
    """The slider's value for a time: its stop's index, or between two stops (log scale)."""
    if ms <= grid[0]:
        return 0
    for i in range(1, len(grid)):
        if ms <= grid[i]:
            low, high = math.log(grid[i - 1]), math.log(grid[i])
            return round(i - 1 + (math.log(ms) - low) / (high - low), 4)
    return len(grid) - 1


def consistent(a: PlanArgs, bad=lambda *_: None) -> PlanArgs:
    """The checks between fields: a price only for an accelerator the page searches."""
    kept = tuple((hw, p) for hw, p in a.prices if hw in a.hardware)
    for hw, price in a.prices:
        if hw not in a.hardware:
            bad("price", f"{hw}:{price:g}", Why("price_not_searched", {"allowed": ", ".join(a.hardware)}))
    return replace(a, prices=kept)


def parse_args(view: View) -> tuple[PlanArgs, list[str]]:
    """(PlanArgs, notices) from the link: each bad or unknown parameter ignored and named; the
    roofline's own parameters travel through (pages/links.py) unread."""
    lang = view.lang
    notices: list[str] = []

    def bad(name: str, value: str, reason) -> None:
        notices.append(w("notice_ignored", lang, name=name[:40], value=value[:40], why=why(reason, lang)))

    args = dict(view.lab_args)
    for name, value in args.items():
        if name not in {p.name for p in PARAMS} and name not in ROOFLINE_PARAMS:
            bad(name, value, Why("unknown_parameter"))
    changes = read_link(PARAMS, args, bad)
    if "hw" in pairs_of(view.query):  # the link's accelerators; without any, the page's default
        changes["hardware"] = view.hardware
    a = consistent(replace(PlanArgs(), **changes), bad)
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES:] = [w("plan_more_notices", lang, n=len(notices) - MAX_NOTICES)]
    return a, notices


def args_from_controls(
    controls: dict, lang: str = "en", kept: dict[str, float] | None = None
) -> tuple[PlanArgs, list[str], list[str]]:
    """(PlanArgs, problems, refusals) from the controls ({"id.prop": value}). A number box whose
    value cannot be used keeps the value `kept` holds for its field (the targets as they were
    before the typing), else the default, and says so in its own words (the page still
    answers); a list with nothing ticked that needs something, or no accelerator, is a
    problem: nothing is searched."""
    refused_of: dict[str, tuple[str | None, Why]] = {}
    changes = read_controls(PARAMS, controls, lambda name, typed, reason: refused_of.setdefault(name, (typed, reason)))
    changes["hardware"] = Accelerators().read(controls.get("plan-hw.value") or [])
    changes |= {field: value for field, value in (kept or {}).items() if field not in changes}
    a = replace(PlanArgs(), **changes)
    problems: list[str] = []
    refused: list[str] = []
    for p in PARAMS:
        if (set(p.fields) <= set(changes) and p.name not in refused_of) or p.name == "price":
            continue
        if p.name in refused_of and isinstance(p.kind, Int | Float):
            typed, reason = refused_of[p.name]
            label, shown = w(f"plan_field_{p.name}", lang), shown_value(p.value(a), lang)
            refused.append(box_sentence(label, reason.params, typed, shown, lang))
        else:
            problems.append(w("plan_invalid", lang, field=w(f"plan_field_{p.name}", lang)))
    if not a.hardware:
        problems.append(w("plan_no_accelerator", lang))
    return consistent(a), problems, refused + refused_prices(controls.get("plan-prices.data"), lang)


def _accelerator_name(hardware_id: str) -> str:
    try:
        return get_accelerator(hardware_id).name
    except EngineInputError:
        return hardware_id[:40]


def refused_prices(typed: object, lang: str) -> list[str]:
    """Each price box whose number is out of range (0 or less, or past the most a GPU-hour may
    cost), in the box's words: the accelerator keeps no price (Prices.read leaves it out)."""
    if not isinstance(typed, dict):
        return []
    limits = {"low": "0", "high": f"{MAX_GPU_HOUR_PRICE:,g}"}
    return [
        box_sentence(
            w("plan_price_refused_label", lang, name=_accelerator_name(hw)), limits, plain(price),
            w("plan_price_none", lang), lang, open_low=True,
        )
        for hw, price in typed.items()
        if isinstance(price, int | float) and not isinstance(price, bool) and not Prices.valid(price)
    ]  # fmt: skip


def plan_request(a: PlanArgs, top: int = 10) -> PlanRequest:
    """The engine's request: the page's targets in seconds."""
    return PlanRequest(
        gpus=a.gpus,
        input_tokens=a.input_tokens,
        output_tokens=a.output_tokens,
        ttft_s=a.ttft_ms / 1e3,
        tpot_s=a.tpot_ms / 1e3,
        backends=a.backends,
        modes=a.modes,
        precisions=a.precisions or None,
        gpu_hour_price=dict(a.prices),
        target=a.target,
        top=top,
    )


def export_name(a: PlanArgs, template: bool = False) -> str:
    """Every file of the page, one stem: `plan-<model>-<hw1>+<hw2>-g<gpus>-tpot<ms>-ttft<ms>`
    (the preset a Hugging Face id resolves to; characters outside [A-Za-z0-9._+-] as `_`). With
    `template`, the targets are `{tpot_ms}` slots the browser fills as the sliders move."""
    model = preset_id_or_none(a.model) or a.model
    parts = [model, "+".join(a.hardware)]
    safe = [re.sub(r"[^A-Za-z0-9._+-]+", "_", p)[:80] for p in parts]
    tpot, ttft = ("{tpot_ms}", "{ttft_ms}") if template else (Float(0, 1).write(v) for v in (a.tpot_ms, a.ttft_ms))
    return f"plan-{safe[0]}-{safe[1]}-g{a.gpus}-tpot{tpot}-ttft{ttft}"


def targets_of(a: PlanArgs) -> dict:
    """The targets, ms: the values of the link's `{tpot_ms}` and `{ttft_ms}` slots (the browser
    writes a number as Float.write does: 50, 12.5), and whether they were typed in a box (the
    server then moves the slider: after a drag it must not, the slider may have moved on)."""
    return {"tpot_ms": a.tpot_ms, "ttft_ms": a.ttft_ms, "typed": False}


def link_of(view: View, a: PlanArgs) -> dict:
    """The page's link data (assets/04-url.js): its own parameters in the table's order, the
    targets as slots the browser fills as the sliders move (`targets_of`), the chrome with its
    accelerators, each tab's link (a Hugging Face id as the preset it resolves to), and the
    files' stem."""
    own = write_link(PARAMS, a, template=True)
    shown = replace(view, hardware=a.hardware, what_if=())
    link = lab_link(shown, own, view.carry, OWN)
    preset = preset_id_or_none(a.model) or a.model
    tabs = lab_link(shown, [(k, preset if k == "model" else v) for k, v in own], view.carry)["tabs"]
    export = export_name(a, template=True)
    return {**link, "tabs": {**tabs, "plan": link["tabs"]["plan"]}, "notify": False, "export": export}


def link_query(view: View, a: PlanArgs) -> str:
    """The page's canonical link with its targets written in (an exported file's link)."""
    query = link_of(view, a)["template"]
    for slot in ("tpot_ms", "ttft_ms"):
        query = query.replace("{" + slot + "}", Float(0, 1).write(getattr(a, slot)))
    return "?" + query
