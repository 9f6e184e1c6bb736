"""The disaggregated deployment in words (en and zh, from the catalogue's codes), formatted from
the engine's fields (engine.serving.disagg's answer: `disaggregated`, `breakdown.ttft`,
`breakdown.kv_transfer`, `breakdown.memory`): the deployment's shape, which side limits it,
each side's capacity, the balanced ratio, the KV cache's transfer, the memory on each side, the
nearest measured run, and why a deployment gives no answer."""

from __future__ import annotations

from dataclasses import asdict

from dash import html

from app.dashboard.lib.i18n import reason
from app.dashboard.pages.serving.compute import nearest
from app.dashboard.pages.serving.deployment import Compared, Deployment
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.state import disagg_of, is_moe, side_layout
from app.dashboard.pages.serving.words import layout_text, w
from app.units import plain

GB = 1e9


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def side_text(side: dict, lang: str) -> str:
    """One side as the page writes it: "2 × TP4 · EP4", a prefill batch past one named. `side`:
    the engine answer's `disaggregated.prefill` (or a WorkerLayout's fields)."""
    layout = layout_text(side["tensor_parallel"], side["attention_data_parallel"], side["expert_parallel"])
    text = w("srv_side_workers", lang, n=f"{side['workers']:,}", layout=layout)
    if side.get("batch", 1) > 1:
        text += w("srv_side_batch", lang, b=f"{side['batch']:,}")
    return text


def xpyd(prefill_workers: int, decode_workers: int) -> str:
    """The deployment's shape as serving people write it: 2P1D."""
    return f"{prefill_workers}P{decode_workers}D"


def recipe_shape(recipe) -> str:
    """A published recipe as serving people write it: 3P1D, with "MTP 2" where it drafts."""
    shape = xpyd(recipe.prefill_workers, recipe.decode_workers)
    if recipe.speculative != "mtp":
        return shape
    return f"{shape} MTP {recipe.draft_tokens}" if recipe.draft_tokens else f"{shape} MTP"


def link_text(a: ServingArgs, lang: str) -> str:
    """The KV link as the page's controls set it: auto, or the bandwidth (and latency) given."""
    if a.kv_link_gb_s is None:
        return w("srv_kvlink_auto", lang)
    text = w("srv_kvlink_given", lang, bw=plain(a.kv_link_gb_s))
    if a.kv_link_latency_us is not None:
        text += w("srv_kvlink_given_latency", lang, us=plain(a.kv_link_latency_us))
    return text


def deployment_text(a: ServingArgs, lang: str) -> str:
    """The deployment in one line (the provenance): its shape, each side, the link."""
    moe = is_moe(a.model)
    prefill, decode = (asdict(side_layout(a, side, moe)) for side in ("prefill", "decode"))
    return w(
        "srv_deployment",
        lang,
        xpyd=xpyd(a.prefill_workers, a.decode_workers),
        prefill=side_text(prefill, lang),
        decode=side_text(decode, lang),
        gpus=f"{disagg_of(a).gpus:,}",
        link=link_text(a, lang),
    )


def compared_text(beside: Compared, a: ServingArgs, lang: str) -> str:
    """What the aggregated curve beside the deployment is: as many instances of the page's
    layout as its GPUs hold, each at its share of the concurrency."""
    values = {
        "r": f"{beside.replicas:,}",
        "layout": layout_text(a.tensor_parallel, a.attention_data_parallel, a.expert_parallel),
        "gpus": f"{beside.aggregated_gpus:,}",
        "each": f"{beside.instance_concurrency:,}",
        "total": f"{beside.gpus:,}",
    }
    same = beside.aggregated_gpus == beside.gpus
    key = ("srv_compared" if same else "srv_compared_fewer") + ("_one" if beside.replicas == 1 else "")
    return w(key, lang, **values)


def deployment_unfit_sentence(dep: Deployment, lang: str) -> str:
    """Why a deployment gives no answer, by the accelerator's name; when a side's workers do
    not fit, which side."""
    error = dep.error
    params = getattr(error, "params", None)
    if getattr(error, "code", None) == "serving_no_fit" and dep.side and isinstance(params, dict):
        side = w(f"srv_side_{dep.side}", lang)
        return w("srv_disagg_no_fit", lang, hw=dep.name, side=side, weights=params["weights"], usable=params["usable"])
    return w("srv_disagg_error", lang, msg=f"{dep.name}: {reason(error, lang)}")


def balance_sentence(dep: Deployment, lang: str) -> str:
    """Which side limits the deployment, each side's capacity, how idle the other is, and the
    ratio that would balance them (the engine's `disaggregated` block)."""
    d = dep.chosen["disaggregated"]
    ratio = d["balanced_ratio"]  # prefill workers per decode worker
    balanced = xpyd(max(1, round(ratio)), 1) if ratio >= 1 else xpyd(1, max(1, round(1 / ratio)))
    return w(
        f"srv_balance_{d['limited_by']}",
        lang,
        name=dep.name,
        xpyd=xpyd(d["prefill"]["workers"], d["decode"]["workers"]),
        gpus=f"{dep.gpus:,}",
        rps=plain(d["requests_per_s"]),
        p=plain(d["prefill_capacity_rps"]),
        d=plain(d["decode_capacity_at_memory_cap_rps"]),
        link=plain(d["kv_link_capacity_rps"]),
        pidle=f"{d['prefill_idle'] * 100:.0f}%",
        didle=f"{d['decode_idle'] * 100:.0f}%",
        ratio=plain(ratio),
        balanced=balanced,
    )


def link_words(words: str, lang: str) -> str:
    """The engine's link (`breakdown.kv_transfer.link`: "given", "<NVLink>: both sides in one
    N-GPU scale-up domain" or "scale-out network (each GPU's NIC)") in the page's language."""
    if words == "given":
        return w("srv_link_given", lang)
    if words.startswith("scale-out"):
        return w("srv_link_nic", lang)
    return w("srv_link_scale_up", lang, name=words.split(":", 1)[0])


def transfer_sentence(dep: Deployment, lang: str) -> str:
    """The KV cache's transfer: its bytes, the link and the time at its peak and estimated."""
    c = dep.chosen
    kv = c["breakdown"]["kv_transfer"]
    return w(
        "srv_transfer",
        lang,
        gb=plain(kv["bytes_per_request"] / GB),
        per=plain(kv["bytes_per_link"] / GB),
        link=link_words(kv["link"], lang),
        bw=plain(kv["link_bytes_per_s"] / GB),
        bound=_ms(c["breakdown"]["ttft"]["bound"]["kv_transfer_s"]),
        est=_ms(c["breakdown"]["ttft"]["estimate"]["kv_transfer_s"]),
    )


def memory_sentence(dep: Deployment, backend: str | None, lang: str) -> str:
    """Each side's memory under the backend's rule (engine `breakdown.memory`), in GiB."""
    mem = dep.chosen["breakdown"]["memory"]
    gib = 2**30
    return w(
        "srv_disagg_memory",
        lang,
        rule=w(f"srv_rule_{backend or 'any'}", lang),
        pw=plain(mem["prefill"]["weights_bytes_per_gpu"] / gib),
        pu=plain(mem["prefill"]["usable_bytes_per_gpu"] / gib),
        dw=plain(mem["decode"]["weights_bytes_per_gpu"] / gib),
        du=plain(mem["decode"]["usable_bytes_per_gpu"] / gib),
        cap=f"{mem['decode']['max_running_batch']:,}",
        n=plain(dep.chosen["disaggregated"]["decode_running_per_worker"]),
    )


def measured_sentence(dep: Deployment, concurrency: int, lang: str) -> str:
    """The nearest shipped run of this deployment, or where the shipped ones are; the runs
    faster than the bound named (none can be)."""
    from app.dashboard.pages.serving.insight import nearby_sentence, nearest_sentence  # insight imports this module

    near = nearest(dep.measured, lambda m: m.run.row.scenario.concurrency, concurrency)
    if near is None:
        return " ".join([w("srv_no_measured_disagg", lang, name=dep.name), nearby_sentence(dep, lang, "disagg")])
    text = nearest_sentence(near, len(dep.measured), lang)
    faster = sum(1 for m in dep.measured if m.faster_than_bound)
    if faster:
        text += " " + w("srv_disagg_breach", lang, k=f"{faster:,}", n=f"{len(dep.measured):,}")
    return text


def deployment_insight(beside: Compared, a: ServingArgs, lang: str) -> list:
    """A paragraph per deployment (balance, transfer, memory, measured), then what the
    aggregated paragraphs after it compare."""
    out = []
    for dep in beside.deployments:
        if dep.error:
            out.append(html.P(deployment_unfit_sentence(dep, lang), className="error"))
            continue
        sentences = [
            balance_sentence(dep, lang),
            transfer_sentence(dep, lang),
            memory_sentence(dep, None if a.backend == "any" else a.backend, lang),
            measured_sentence(dep, a.concurrency, lang),
        ]
        out.append(html.P(" ".join(sentences), className="srv-insight-item srv-disagg-insight"))
    out.append(html.P(compared_text(beside, a, lang), className="help srv-compared"))
    return out
