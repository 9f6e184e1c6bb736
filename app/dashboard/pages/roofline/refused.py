"""Typed values the page cannot use say so: "Memory utilization must be 0.01–1 (you typed 0);
still showing 0.9." A number box whose value the parameter table refuses falls back to the
default, and without a sentence the reader sees red digits and numbers that did not move."""

from __future__ import annotations

from app.dashboard.lib.i18n import box_sentence, t
from app.dashboard.lib.params import Why
from app.dashboard.pages.roofline.params import BY_NAME, PARAMS
from app.units import plain

# The number boxes' parameters and the words that label them on the page.
BOX_LABELS = {
    "memutil": "memory_utilization",
    "price": "gpu_price",
    "bweff": "bw_eff",
    "fleff": "fl_eff",
    "out": "output_tokens",
    "conc": "concurrency_box",
    "step": "measured_step",
    "block": "kv_block",
}


def refused_boxes(
    refusals: list[tuple[str, str | None, Why]], required: frozenset[str] = frozenset()
) -> tuple[tuple[str, str | None, dict], ...]:
    """(parameter name, what was typed, the refusal's {low, high, open}) for each number box
    among the controls' refusals ((name, typed, why), as read_controls tells them). The
    browser sends an out-of-range number (below the box's min, above its max) as null: for a
    `required` parameter (one that has no "unset") that is a refusal whose typed text is
    unknown (None); for an optional one an empty box simply unsets it."""
    return tuple(
        (name, typed, dict(why.params) | {"open": bool(getattr(BY_NAME[name].kind, "open_low", False))})
        for name, typed, why in refusals
        if name in BOX_LABELS and (typed is not None or name in required)
    )


def refused_sentences(refused, shown: dict[str, object], lang: str) -> list[str]:
    """One sentence per refused box, with the value the page still shows (`shown`: parameter
    name -> value in use; None: unset)."""
    out = []
    for name, typed, limits in refused:
        value = shown.get(name)
        # the roofline writes an integer as the box shows it (4096, not 4,096)
        still = t("box_unset", lang) if value is None else plain(value) if isinstance(value, float) else str(value)
        out.append(box_sentence(t(BOX_LABELS[name], lang), limits, typed, still, lang, bool(limits.get("open"))))
    return out


def view_refusals(view, lang: str) -> list[str]:
    """The sentences for a view read from the controls (View.refused), against what it shows."""
    return refused_sentences(view.refused, {p.name: p.value(view) for p in PARAMS}, lang) if view.refused else []
