"""The Planner page's words: its catalogue is locales/<lang>.json beside this file, merged with
every other page's by lib/i18n (one key lives in one file). `w` and `why` are the names the
page's modules use for `t` and `reason`; the verdict and the reason are written here from the
engine's answer, field by field, in the page's language (no number is typed in)."""

from __future__ import annotations

from pathlib import Path

from app.dashboard.lib.i18n import LANGS, load_file, reason, t
from app.dashboard.pages.serving.words import backend_name
from app.units import plain

_DIR = Path(__file__).resolve().parent / "locales"
# The page's own keys only (the parity and coverage tests read them).
CATALOGUES: dict[str, dict[str, str]] = {lang: load_file(_DIR / f"{lang}.json") for lang in LANGS}

w = t
why = reason

__all__ = ["backend_name", "w", "why"]


def ms(seconds: float) -> str:
    """A time in ms as the page writes it: 3 significant digits, grouped (2,000; 28.5; 3.1)."""
    return plain(seconds * 1e3)


def rate(value: float) -> str:
    return plain(value)


def usd(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}" if value >= 0.1 else plain(value)


def mode_name(mode: str, lang: str) -> str:
    return w(f"plan_mode_{mode}", lang)


def target_name(target: str, lang: str) -> str:
    return w(f"plan_target_{target}", lang)


def shows_replicas(candidate: dict) -> bool:
    """An aggregated candidate always says its replicas; a disaggregated unit when replicated."""
    return candidate["mode"] == "aggregated" or candidate["replicas"] > 1


def deployment(candidate: dict, lang: str) -> str:
    """How the candidate spends its GPUs: `2 × (TP 4)` replicas, or `1P (TP 4) + 1D (TP 8)` and
    `4 × (1P (TP 4) + 1D (TP 8))` when the disaggregated unit is replicated (as the CLI writes
    them: one layout's `TP 1 x DP 2, EP 2` is not read as replicas of TP 1 alone)."""
    if shows_replicas(candidate):
        return w("plan_replicas", lang, n=f"{candidate['replicas']:,}", layout=candidate["layout_words"])
    return candidate["layout_words"]


def targets_text(answer: dict, lang: str) -> str:
    targets = answer["targets"]
    return w(
        "plan_targets",
        lang,
        tpot=ms(targets["tpot_s"]),
        ttft=ms(targets["ttft_s"]),
        target=target_name(answer["target"], lang),
    )


def verdict(answer: dict, names: dict[str, str], modes: tuple[str, ...], lang: str) -> str:
    """The answer in one or two sentences: the best and how far the other mode's best reaches
    (the engine's `ratio_other_mode`), or, with no best, what would meet the target (the
    engine's `reason`)."""
    best = answer["best"]
    if best is None:
        return reason_text(answer, names, lang)
    est = best["estimate"]
    low, high = est["output_tokens_per_s_per_gpu_range"]
    cost = best["usd_per_million_tokens"]
    text = w(
        "plan_verdict_best",
        lang,
        gpus=answer["gpus"],
        hw=names.get(best["hardware"], best["hardware"]),
        targets=targets_text(answer, lang),
        mode=mode_name(best["mode"], lang),
        layout=deployment(best, lang),
        c=f"{best['concurrency']:,}",
        rate=rate(est["output_tokens_per_s_per_gpu"]),
        low=rate(low),
        high=rate(high),
        cost="" if cost is None else w("plan_verdict_cost", lang, usd=usd(cost)),
    )
    other = "disaggregated" if best["mode"] == "aggregated" else "aggregated"
    ratio = answer["verdict"]["ratio_other_mode"]
    if ratio is not None:  # on what the answer is ranked by: tokens/s per GPU, or $/Mtok
        by_cost = answer["verdict"]["ranked_by"] == "usd_per_million_tokens"
        key = "plan_verdict_other_cost" if by_cost else "plan_verdict_other"
        key += "_tie" if answer["verdict"]["other_mode_within_range"] else ""
        text += " " + w(key, lang, other=mode_name(other, lang), ratio=f"{ratio:.2f}")
    elif other in modes and other in answer["modes_searched"]:
        text += " " + w("plan_verdict_no_other", lang, other=mode_name(other, lang))
    if answer["targets"]["tpot_s"] is not None and not answer["tpot_target_applied"]:
        text += " " + w("plan_verdict_tpot_not_applied", lang)
    return text


def nothing_fits_key(fit: dict[str, bool]) -> str:
    """The words for what would make a deployment fit (the engine's `would_fit`)."""
    if fit["more_gpus"] and fit["lower_precision"]:
        return "plan_reason_nothing_fits_either"
    if fit["more_gpus"]:
        return "plan_reason_nothing_fits"
    if fit["lower_precision"]:
        return "plan_reason_nothing_fits_lower"
    return "plan_reason_nothing_fits_both" if fit["both"] else "plan_reason_nothing_fits_none"


def reason_text(answer: dict, names: dict[str, str], lang: str) -> str:
    """No candidate meets the target: what would (the engine's nearest targets met)."""
    hws = ", ".join(names.get(h, h) for h in answer["hardware"])
    why_none = answer["reason"]
    if why_none["code"] == "plan_nothing_fits":
        return w(nothing_fits_key(why_none["would_fit"]), lang, gpus=answer["gpus"], hws=hws)
    near = why_none["nearest"]
    ways = []
    if near["tpot_s_at_asked_ttft"] is not None:
        ways.append(w("plan_reason_tpot", lang, ms=ms(near["tpot_s_at_asked_ttft"])))
    if near["ttft_s_at_asked_tpot"] is not None:
        ways.append(w("plan_reason_ttft", lang, ms=ms(near["ttft_s_at_asked_tpot"])))
    if not ways:
        ways.append(
            w(
                "plan_reason_neither",
                lang,
                tpot=ms(near["tpot_s_best"]),
                ttft=ms(near["ttft_s_best"]),
                gpus=answer["gpus"],
            )
        )
    return w(
        "plan_reason",
        lang,
        gpus=answer["gpus"],
        hws=hws,
        targets=targets_text(answer, lang),
        ways=w("plan_or", lang).join(ways),
    )


def counts_text(answer: dict, lang: str) -> str:
    c = answer["candidates"]
    return w(
        "plan_counts",
        lang,
        evaluated=f"{c['evaluated']:,}",
        dropped=f"{c['dropped_memory']:,}",
        meeting=f"{c['meeting_target']:,}",
    )


def warnings_text(answer: dict) -> str:
    """What every candidate assumes (the engine's words, as the serving page shows them): a
    prompt past the model's window, lengths outside the fitted runs, a roof a card lacks."""
    return "".join(f" ⚠ {said}." for said in answer["warnings"])


def missing_text(cols: dict, a, names: dict[str, str], lang: str) -> str:
    """Each (accelerator, mode) searched with no candidate in the search's columns: none fits."""
    said = ""
    for hw in a.hardware:
        for mode in a.modes:
            if "mode" not in cols or not ((cols["hardware"] == hw) & (cols["mode"] == mode)).any():
                said += " " + w("plan_missing", lang, mode=mode_name(mode, lang), gpus=a.gpus, hw=names[hw])
    return said
