"""Typed values the page cannot use say so: "Memory utilization must be 0.01–1 (you typed 0);
still showing 0.9." A number box whose value the parameter table refuses falls back to the
default, and without a sentence the reader sees red digits and numbers that did not move."""

from __future__ import annotations

from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import Invalid, Param, control_key
from app.units import plain

# The number boxes' parameters and the words that label them on the page.
BOX_LABELS = {
    "memutil": "memory_utilization",
    "price": "gpu_price",
    "bweff": "bw_eff",
    "fleff": "fl_eff",
    "out": "output_tokens",
    "step": "measured_step",
    "block": "kv_block",
}
MAX_TYPED_CHARS = 24


def refused_controls(
    params: tuple[Param, ...], controls: dict, required: frozenset[str] = frozenset()
) -> tuple[tuple[str, str | None, dict], ...]:
    """(parameter name, what was typed, the refusal's {low, high}) for each number box whose value
    the table refuses. The browser sends an out-of-range number (below the box's min, above its
    max) as null: for a `required` parameter (one that has no "unset") that is a refusal whose
    typed text is unknown (None); for an optional one an empty box simply unsets it."""
    refused = []
    for p in params:
        if p.name not in BOX_LABELS or len(p.controls) != 1:
            continue
        key = control_key(p.controls[0])
        value = controls.get(key)
        if value is None:
            if p.name in required and key in controls:
                limits = {"low": f"{p.kind.low:g}", "high": f"{p.kind.high:,g}", "open": False}
                refused.append((p.name, None, limits))
            continue
        try:
            p.kind.read(value)
        except Invalid as exc:
            limits = dict(exc.why.params) | {"open": bool(getattr(p.kind, "open_low", False))}
            refused.append((p.name, str(value)[:MAX_TYPED_CHARS], limits))
    return tuple(refused)


def refused_sentences(refused, shown: dict[str, object], lang: str) -> list[str]:
    """One sentence per refused box, with the value the page still shows (`shown`: parameter
    name -> value in use; None: unset)."""
    out = []
    for name, typed, limits in refused:
        value = shown.get(name)
        still = t("box_unset", lang) if value is None else plain(value) if isinstance(value, float) else str(value)
        out.append(
            t(
                "box_refused" if typed is None else "box_invalid_open" if limits.get("open") else "box_invalid",
                lang,
                label=t(BOX_LABELS[name], lang),
                low=limits.get("low", ""),
                high=limits.get("high", ""),
                typed=typed,
                shown=still,
            )
        )
    return out


def view_refusals(view, lang: str) -> list[str]:
    """The sentences for a view read from the controls (View.refused), against what it shows."""
    from app.dashboard.pages.roofline.params import PARAMS  # the table imports nothing of ours

    return refused_sentences(view.refused, {p.name: p.value(view) for p in PARAMS}, lang) if view.refused else []
