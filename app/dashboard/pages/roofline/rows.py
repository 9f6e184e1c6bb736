"""Figures as plain functions: engine results in, Plotly figure dicts out.

Dicts rather than go.Figure objects: the same JSON reaches the browser, without plotly's
per-property validation on the slider's hot path (~10x faster to build).
"""

from __future__ import annotations

from dash import html

from app.dashboard.lib.i18n import t
from app.units import duration, grouped, memory, plain
from engine.hardware import get_accelerator


def ops_rows(result: dict, lang: str = "en", phase: str = "decode") -> list[dict]:
    """Rows of the ops table for one accelerator's decode step or prefill (unit, bound and scope
    in words of the page's language; the numbers stay numbers, so the table sorts them)."""
    return [
        {
            "op": o["name"],
            "unit": t(f"unit_{o['unit']}", lang),
            "flops": o["flops"],
            "bytes": o["bytes"],
            "intensity": round(o["intensity"], 4),
            "bound": t(f"bound_{o['bound']}", lang),
            "time_us": round(o["time_s"] * 1e6, 3),
            "share": round(o["share_of_step"], 4),
            "scope": t("scope_n_layers", lang, n=o["layers"]) if o["layers"] else t("scope_once_short", lang),
        }
        for o in result[phase]["ops"]
    ]


def comparison_rows(results: list[dict], ttft_alone_s: dict[str, float]) -> list[dict]:
    """Decode tokens/s, the TTFT of one request alone and of the whole batch's prefill, and max
    batch; in brackets each against the first accelerator on one convention, higher is better
    (for a time: how many times faster)."""
    base = results[0]

    def faster(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b else "—"

    rows = []
    for r in results:
        hw, base_hw = r["hardware_id"], base["hardware_id"]
        tps, batch_ttft, maxb = r["decode"]["tokens_per_s"], r["prefill"]["time_s"], r["memory"]["max_batch_size"]
        alone = ttft_alone_s[hw]
        rows.append(
            {
                "gpu": r["hardware_name"],
                "decode": f"{grouped(tps)} ({faster(tps, base['decode']['tokens_per_s'])})",
                "ttft1": f"{duration(alone)} ({faster(ttft_alone_s[base_hw], alone)})",
                "ttft": f"{duration(batch_ttft)} ({faster(base['prefill']['time_s'], batch_ttft)})",
                "maxb": f"{grouped(maxb)} ({faster(maxb, base['memory']['max_batch_size'])})",
            }
        )
    return rows


# Pin and compare: what A and B are compared on, each an engine field.
DELTA_METRICS = (
    ("delta_tps", lambda r: r["decode"]["tokens_per_s"], grouped),
    ("delta_step", lambda r: r["decode"]["time_s"], duration),
    ("delta_ttft", lambda r: r["prefill"]["time_s"], duration),
    ("delta_kv", lambda r: r["memory"]["kv_bytes_per_token"], memory),  # footprints in GiB/KiB
    ("delta_maxb", lambda r: r["memory"]["max_batch_size"], grouped),
    ("delta_memory", lambda r: r["memory"]["total_bytes"], memory),
)


def delta_rows(a: dict, b: dict, lang: str) -> list[dict]:
    """Scenario A against B on one accelerator: each metric as A, B and B/A."""
    rows = []
    for key, field, fmt in DELTA_METRICS:
        va, vb = field(a), field(b)
        rows.append({"metric": t(key, lang), "a": fmt(va), "b": fmt(vb), "ratio": f"{vb / va:.2f}x" if va else "—"})
    return rows


def request_rows(results: list[dict]) -> list[dict]:
    """One request end to end per accelerator (engine/request.py), formatted."""
    rows = []
    for r in results:
        q = r.get("request")
        if not q:
            continue
        cost = q["cost_per_million_output_tokens"]
        rows.append(
            {
                "gpu": r["hardware_name"],
                "ttft": duration(q["ttft_s"]),
                "tpot": duration(q["tpot_s"]),
                "e2e": duration(q["e2e_s"]),
                "user": grouped(q["output_tokens_per_s_per_sequence"]),
                "group": grouped(q["output_tokens_per_s"]),
                "cost": "—" if cost is None else f"${plain(cost)}",
                "fits": q["fits_at_end"],
            }
        )
    return rows


def reality_rows(published: list[dict], lang: str = "en") -> list[dict]:
    """The "reality check" table: each published figure against its bound, with the names a
    reader knows (the accelerator's, the metric in words), MBU and MFU, and its source linked."""
    return [
        {
            "gpu": get_accelerator(p["accelerator"]).name,
            "model": p["model"],
            "scenario": f"{p['weight_dtype']} · TP {p['tensor_parallel']} · B {p['batch_size']} · "
            f"{grouped(p['input_tokens'])}/{grouped(p['output_tokens'])}",
            "metric": t(f"metric_{p['metric']}", lang),
            "measured": plain(p["value"]),
            "bound": plain(p["bound"]),
            "fraction": f"{p['fraction_of_bound']:.0%}",
            "mbu": f"{p['mbu']:.0%}",
            "mfu": f"{p['mfu']:.0%}",
            # who published it (NVIDIA TensorRT-LLM documentation), the table and date, linked
            "source": html.A(
                f"{p['source']['document'].split(',')[0]}: {p['source']['table']} ({p['source']['date']})",
                href=p["source"]["url"],
                target="_blank",
                rel="noopener noreferrer",
            ),
            "url": p["source"]["url"],
        }
        for p in published
    ]
