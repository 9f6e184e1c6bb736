"""The Planner page's files: a CSV of the frontier, the top N and the measured runs (each row
naming its series and whether it is an estimate or a measurement), and an HTML snapshot of the
charts. Each carries the question, the targets, the calibration and the measured runs' source;
the PNG and SVG of the frontier chart (assets/13-plan.js) carry them as the image's title."""

from __future__ import annotations

import csv
import io

from app.dashboard.pages.plan.measured import SOURCE, MeasuredRun
from app.dashboard.pages.plan.words import shows_replicas
from app.dashboard.pages.serving.exports import export_title, serving_html

__all__ = ["export_title"]

COLUMNS = (
    "series", "kind", "rank", "accelerator", "mode", "layout", "gpus", "concurrency", "running_batch",
    "ttft_ms", "ttft_ms_low", "ttft_ms_high", "tpot_ms", "tpot_ms_low", "tpot_ms_high",
    "output_tokens_per_s_per_gpu", "output_tokens_per_s_per_gpu_low", "output_tokens_per_s_per_gpu_high",
    "tokens_per_s_per_user", "usd_per_million_tokens", "memory_headroom", "limited_by", "backend", "precision",
    "meets_target_estimate", "meets_target_pessimistic", "source",
)  # fmt: skip


def _layout(c: dict) -> str:
    """The page's deployment words (words.deployment) in plain ASCII for the CSV."""
    return f"{c['replicas']} x {c['layout_words']}" if shows_replicas(c) else c["layout_words"]


def candidate_row(series: str, rank: int | str, c: dict) -> dict:
    est = c["estimate"]
    return {
        "series": series,
        "kind": "estimate",
        "rank": rank,
        "accelerator": c["hardware"],
        "mode": c["mode"],
        "layout": _layout(c),
        "gpus": c["gpus"],
        "concurrency": c["concurrency"],
        "running_batch": c["running_batch"],
        "ttft_ms": est["ttft_s"] * 1e3,
        "ttft_ms_low": est["ttft_s_range"][0] * 1e3,
        "ttft_ms_high": est["ttft_s_range"][1] * 1e3,
        "tpot_ms": est["tpot_s"] * 1e3,
        "tpot_ms_low": est["tpot_s_range"][0] * 1e3,
        "tpot_ms_high": est["tpot_s_range"][1] * 1e3,
        "output_tokens_per_s_per_gpu": est["output_tokens_per_s_per_gpu"],
        "output_tokens_per_s_per_gpu_low": est["output_tokens_per_s_per_gpu_range"][0],
        "output_tokens_per_s_per_gpu_high": est["output_tokens_per_s_per_gpu_range"][1],
        "tokens_per_s_per_user": est["tokens_per_s_per_user"],
        "usd_per_million_tokens": c["usd_per_million_tokens"],
        "memory_headroom": c["memory_headroom"],
        "limited_by": c["limited_by"],
        "backend": c["backend"],
        "precision": c["precision"],
        "meets_target_estimate": c["meets_target"]["estimate"],
        "meets_target_pessimistic": c["meets_target"]["pessimistic"],
    }


def measured_row(hw: str, run: MeasuredRun) -> dict:
    sc = run.row.scenario
    return {
        "series": "measured",
        "kind": "measured",
        "accelerator": hw,
        "mode": run.mode,
        "layout": run.layout_words(),
        "gpus": run.gpus,
        "concurrency": sc.concurrency,
        "ttft_ms": run.row.ttft_s * 1e3,
        "tpot_ms": run.row.tpot_s * 1e3,
        "output_tokens_per_s_per_gpu": run.tokens_per_s_per_gpu,
        "tokens_per_s_per_user": run.tokens_per_s_per_user,
        "backend": run.row.backend,
        "precision": run.precision,
        "source": f"{SOURCE}; run {run.row.id}",
    }


def rows(answer: dict, runs: dict[str, tuple[MeasuredRun, ...]]) -> list[dict]:
    """The top N, every frontier point, then the measured runs: flat rows, numbers unformatted."""
    out = [candidate_row("top", i + 1, c) for i, c in enumerate(answer["top"])]
    for mode, points in answer["frontier"].items():
        out += [candidate_row(f"frontier_{mode}", "", c) for c in points]
    out += [measured_row(hw, r) for hw, shown in runs.items() for r in shown]
    return out


def plan_csv(answer: dict, runs: dict, provenance: dict, verdict: str) -> str:
    out = io.StringIO()
    for key, value in {**provenance, "verdict": verdict}.items():
        out.write(f"# {key}: {value}\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows(rows(answer, runs))
    return out.getvalue()


def plan_html(figures: list[dict], provenance: dict, verdict: str, link: str) -> str:
    """The charts in one offline file (the serving page's snapshot: the question as its title),
    the targets, the verdict, the calibration and the source under it."""
    detail = " · ".join([provenance["targets"], verdict, provenance["calibration"]])
    return serving_html(figures, {**provenance, "calibration": detail}, link)
