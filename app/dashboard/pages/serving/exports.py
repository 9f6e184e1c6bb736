"""The Serving page's files: CSV and JSON with every point of the three series (bound,
estimate with its range, measured; the fitted estimate when there is one), each row naming
its series; in disaggregated mode the deployment's series too, each row naming its mode, the
aggregated instances its point stands for and, for the deployment, TTFT's parts; an HTML
snapshot of both charts. Each file carries the scenario (and the deployment), the calibration
used and the measured data's source."""

from __future__ import annotations

import csv
import io
import json

import plotly.io as pio

from app.dashboard.lib.markup import wrap
from app.dashboard.pages.roofline.exports import snapshot_html
from app.dashboard.pages.serving.compute import AcceleratorServing
from app.dashboard.pages.serving.disagg_words import recipe_shape
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.words import layout_text

# The image exports' size (assets/08-serving.js) and how many characters of 13 px text a line
# of it holds (a CJK character counts two): the title is wrapped to it, never cut.
EXPORT_WIDTH_PX, EXPORT_HEIGHT_PX = 1400, 850
TITLE_LINE_UNITS = 170
TITLE_LINE_PX = 17


def export_title(lines: list[str]) -> dict:
    """The layout patch an image export applies: the provenance lines as the title, wrapped to
    the export's width, and a top margin that holds them."""
    wrapped = [part for line in lines for part in wrap(line, TITLE_LINE_UNITS)]
    title = {
        "text": "<br>".join(wrapped),
        "x": 0.01,
        "xanchor": "left",
        # the top of the first line 8 px below the image's edge (Plotly anchors a title of several
        # lines by its first line's baseline when yanchor is "top": the line's height is added)
        "y": 1 - (8 + TITLE_LINE_PX) / EXPORT_HEIGHT_PX,
        "yref": "container",
        "yanchor": "top",
        "font": {"size": 13},
    }
    return {"title": title, "margin": {"l": 80, "r": 40, "b": 40, "t": 40 + TITLE_LINE_PX * len(wrapped)}}


COLUMNS = (
    "series",
    "accelerator",
    "concurrency",
    "running_batch",
    "queued",
    "ttft_ms",
    "tpot_ms",
    "output_tokens_per_s_per_gpu",
    "tokens_per_s_per_user",
    "tpot_ms_low",
    "tpot_ms_high",
    "ttft_ms_low",
    "ttft_ms_high",
    "estimate_tpot_error",
    "backend",
    "run_id",
    "source",
    "mode",  # aggregated | disaggregated
    "instances",  # aggregated instances the row stands for (the deployment's GPUs hold), or the deployment's 1
    "ttft_prefill_ms",
    "ttft_queue_ms",
    "ttft_first_wave_ms",
    "ttft_kv_transfer_ms",
    "ttft_fixed_ms",
    "deployment",  # the disaggregated deployment's shape: 1P(TP4 · EP4)+1D(TP1 × DP32 · EP4)
    # a measured disaggregated run: whether its row records its worker counts, and where the counts
    # drawn come from: "recorded", "recipe" (the benchmark's published recipe) or "assumed" (one a side)
    "workers_recorded",
    "workers_from",
    # a run whose row leaves its counts empty: the published recipes it may have been ("1P3D MTP 2;
    # 1P3D"), which `llm-roofline validate serving` answers it for (and spans, where they differ)
    "candidate_recipes",
)


def _rates(series: str, acc_id: str, point: dict, rates: dict) -> dict:
    row = {
        "series": series,
        "accelerator": acc_id,
        "concurrency": point["concurrency"],
        "running_batch": point["running_batch"],
        "queued": point["queued"],
        "ttft_ms": rates["ttft_s"] * 1e3,
        "tpot_ms": rates["tpot_s"] * 1e3,
        "output_tokens_per_s_per_gpu": rates["output_tokens_per_s_per_gpu"],
        "tokens_per_s_per_user": rates["tokens_per_s_per_user"],
    }
    if "tpot_s_range" in rates:
        row |= {"tpot_ms_low": rates["tpot_s_range"][0] * 1e3, "tpot_ms_high": rates["tpot_s_range"][1] * 1e3}
        row |= {"ttft_ms_low": rates["ttft_s_range"][0] * 1e3, "ttft_ms_high": rates["ttft_s_range"][1] * 1e3}
    return row


def series_rows(accs: tuple[AcceleratorServing, ...], beside=None) -> list[dict]:
    """Every point of every series, as flat rows (JSON numbers, no formatting); `beside` (a
    deployment.Compared): the deployments' too, after the aggregated instances'."""
    rows = []
    for acc in accs:
        if acc.error:
            continue
        first = len(rows)
        for kind in ("bound", "estimate", "fitted"):
            rows += [_rates(kind, acc.id, p, p[kind]) for p in acc.points if kind in p]
        for m in acc.measured:
            sc = m.run.row.scenario
            point = {"concurrency": sc.concurrency, "running_batch": "", "queued": ""}  # not recorded in the run
            row = _rates("measured", acc.id, point, m.measured)
            row |= {"estimate_tpot_error": m.tpot_error, "backend": m.run.row.backend, "run_id": m.run.row.id}
            row["source"] = f"{SOURCE}; {m.run.data_source}"
            rows.append(row)
        if beside is not None:
            for row in rows[first:]:
                row |= {"mode": "aggregated", "instances": beside.replicas}
    if beside is not None:
        rows += [row for dep in beside.deployments if not dep.error for row in deployment_rows(dep)]
    return rows


def deployment_shape(dep) -> str:
    """1P(TP4 · EP4)+1D(TP1 × DP32 · EP4): the deployment's sides, from the engine's answer."""
    d = dep.chosen["disaggregated"]
    sides = []
    for side, letter in (("prefill", "P"), ("decode", "D")):
        s = d[side]
        layout = layout_text(s["tensor_parallel"], s["attention_data_parallel"], s["expert_parallel"])
        batch = f", batch {s['batch']}" if s["batch"] > 1 else ""
        sides.append(f"{s['workers']}{letter}({layout}{batch})")
    return "+".join(sides)


def deployment_rows(dep) -> list[dict]:
    """A deployment's bound and estimate at every point, TTFT's parts with them, and its
    measured runs."""
    shape = deployment_shape(dep)
    common = {"mode": "disaggregated", "instances": 1, "deployment": shape}
    rows = []
    for kind in ("bound", "estimate"):
        for p in dep.points:
            parts = p["ttft_parts"][kind]
            row = _rates(kind, dep.id, p, p[kind]) | common
            row |= {
                "ttft_prefill_ms": parts["prefill_s"] * 1e3,
                "ttft_queue_ms": parts["prefill_queue_s"] * 1e3,
                "ttft_first_wave_ms": parts["first_wave_s"] * 1e3,
                "ttft_kv_transfer_ms": parts["kv_transfer_s"] * 1e3,
                "ttft_fixed_ms": parts["fixed_s"] * 1e3,
            }
            rows.append(row)
    for m in dep.measured:
        point = {"concurrency": m.run.row.scenario.concurrency, "running_batch": "", "queued": ""}
        row = _rates("measured", dep.id, point, m.measured) | common
        row |= {"estimate_tpot_error": m.tpot_error, "backend": m.run.row.backend, "run_id": m.run.row.id}
        row |= {"source": f"{SOURCE}; {m.run.data_source}", "workers_recorded": m.run.row.workers_recorded}
        row |= {"workers_from": m.run.row.workers_from}
        row |= {"candidate_recipes": "; ".join(map(recipe_shape, m.run.row.candidates))}
        rows.append(row)
    return rows


def serving_csv(accs, provenance: dict, beside=None) -> str:
    out = io.StringIO()
    for key, value in provenance.items():
        out.write(f"# {key}: {value}\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows(series_rows(accs, beside))
    return out.getvalue()


def serving_json(accs, provenance: dict, beside=None) -> str:
    return json.dumps({"provenance": provenance, "points": series_rows(accs, beside)}, ensure_ascii=False, indent=1)


def serving_html(figures: list[dict], provenance: dict, link: str) -> str:
    """Both charts in one offline file, the scenario as its title."""
    title = provenance["scenario"]
    detail = f"{provenance['calibration']} · {provenance['measured_source']}"
    pages = [snapshot_html(fig, title, link, detail) for fig in figures[:1]]
    if len(figures) > 1:  # the second chart joins the first's page (one bundle, one file)
        extra = pio.to_html(figures[1], include_plotlyjs=False, full_html=False, config={"displaylogo": False})
        pages[0] = pages[0].replace("</body>", extra + "</body>")
    return pages[0]
