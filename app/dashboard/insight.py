"""The insight panel: two to four plain sentences written from the engine's results."""

from __future__ import annotations

from ..units import duration, grouped, si
from .i18n import t


def _gb(value: float) -> str:
    return si(value, "B", digits=2)


def insight_sentences(
    results: list[dict], trajectory_end: dict[str, float], kv_wall_intensity: float, lang: str
) -> list[str]:
    """`trajectory_end`: decode intensity at the largest batch that fits, per accelerator;
    `kv_wall_intensity`: the intensity decode approaches as B grows (the KV wall)."""
    r = results[0]
    d, p, mem = r["decode"], r["prefill"], r["memory"]
    name = r["hardware_name"]
    sentences = [
        t(
            "insight_decode",
            lang,
            hw=name,
            bound=t(f"bound_{d['bound']}", lang),
            bytes=_gb(d["bytes"]),
            weights=_gb(d["bytes"] - mem["kv_cache_bytes"]),
            kv=_gb(mem["kv_cache_bytes"]),
            time=duration(d["time_s"]),
            tps=grouped(d["tokens_per_s"]),
        )
    ]
    cap = _gb(mem["capacity_bytes"])
    if mem["max_batch_size"] < 1:
        sentences.append(t("insight_nofit", lang, weights=_gb(mem["weights_bytes"]), cap=cap))
    else:
        end = trajectory_end.get(r["hardware_id"], d["intensity"])
        ridge = r["ridge_point"]
        where = "right_of" if end >= ridge else ("far_left" if end < ridge / 3 else "left_of")
        sentences.append(
            t(
                "insight_wall",
                lang,
                limit=f"{kv_wall_intensity:.0f}",
                cap=cap,
                maxb=grouped(mem["max_batch_size"]),
                where=t(where, lang),
                ridge=f"{ridge:.0f}",
            )
        )
    sentences.append(
        t(
            "insight_prefill",
            lang,
            tokens=grouped(p["tokens_per_s"] * p["time_s"]),
            bound=t(f"bound_{p['bound']}", lang),
            intensity=f"{p['intensity']:.0f}",
            time=duration(p["time_s"]),
        )
    )
    if r["tensor_parallel"] > 1 and r["link"]:
        sentences.append(
            t(
                "insight_tp",
                lang,
                n=r["tensor_parallel"],
                comm=duration(d["communication_time_s"]),
                link=r["link"]["name"],
                share=f"{d['communication_time_s'] / d['time_s']:.0%}",
            )
        )
    md = r.get("measured_decode")
    if md:
        sentences.append(
            t(
                "insight_measured",
                lang,
                time=duration(md["step_time_s"]),
                tps=grouped(md["tokens_per_s"]),
                gap=f"{md['gap']:.2f}",
                mbu=f"{md['mbu']:.1%}",
                mfu=f"{md['mfu']:.2%}",
            )
        )
    if len(results) > 1:
        fastest = max(results[1:], key=lambda x: x["decode"]["tokens_per_s"])
        ratio = fastest["decode"]["tokens_per_s"] / d["tokens_per_s"]
        sentences.append(t("insight_compare", lang, hw1=name, hw2=fastest["hardware_name"], ratio=f"{ratio:.2f}"))
    return sentences
