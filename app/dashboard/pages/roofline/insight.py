"""The insight panel: plain sentences written from the engine's results.

Every number is an engine field, formatted (README "Prose numbers come from the engine"): the
weights are `memory.weights_bytes`, never decode bytes minus KV (which counted activations as
weights, 2-50x off); the way out of an overflow is the engine's own max batch, max context and
min TP. The comparison says what decode follows in the regime it is in.
"""

from __future__ import annotations

from app.dashboard.lib.i18n import t
from app.units import duration, grouped, memory, plain, si


def _gb(value: float) -> str:
    """Traffic (bytes moved per step, against TB/s): decimal GB."""
    return si(value, "B", digits=2)


def _gib(value: float) -> str:
    """A memory footprint (weights, KV resident, capacity): GiB, as nvidia-smi reads it."""
    return memory(value, digits=3)


def insight_sentences(
    analysis: dict,
    trajectory_end: dict[str, float],
    kv_wall_intensity: float,
    lang: str,
    what_if_ids: frozenset[str] = frozenset(),
) -> list[str]:
    """`analysis`: the engine's analysis (results and scenario); `trajectory_end`: decode
    intensity at the largest batch that fits, per accelerator; `kv_wall_intensity`: the
    intensity decode approaches as B grows (the KV wall); `what_if_ids`: the invented cards,
    each said against the first real one."""
    results, scenario = analysis["results"], analysis["scenario"]
    r = results[0]
    d, p, mem = r["decode"], r["prefill"], r["memory"]
    name = r["hardware_name"]
    sentences = [
        t("insight_decode", lang, hw=name, bound=t(f"bound_{d['bound']}", lang), bytes=_gb(d["bytes"]),
          kv=_gb(mem["kv_cache_bytes"]), weights=_gib(mem["weights_bytes"]), time=duration(d["time_s"]),
          tps=grouped(d["tokens_per_s"]))
    ]  # fmt: skip
    if not mem["fits"]:
        if mem["total_bytes"] <= mem["capacity_bytes"]:  # the card holds it; the usable share does not
            sentences.append(_usable(name, mem, lang))
        sentences.append(_overflow(r, scenario, lang))
    if mem["max_batch_size"] >= 1:
        end = trajectory_end.get(r["hardware_id"], d["intensity"])
        ridge = r["ridge_point"]
        where = "right" if end >= ridge else ("far" if end < ridge / 3 else "left")
        sentences.append(t(f"insight_wall_{where}", lang, limit=plain(kv_wall_intensity),
                           cap=_gib(mem["usable_bytes"]), maxb=grouped(mem["max_batch_size"]),
                           ridge=plain(ridge)))  # fmt: skip
    prompt_tokens = scenario["batch_size"] * scenario["context_length"]
    sentences.append(
        t("insight_prefill", lang, tokens=grouped(prompt_tokens), bound=t(f"bound_{p['bound']}", lang),
          intensity=plain(p["intensity"]), time=duration(p["time_s"]))
    )  # fmt: skip
    if r["tensor_parallel"] > 1 and r["link"]:
        sentences.append(
            t("insight_tp", lang, n=r["tensor_parallel"], comm=duration(d["communication_time_s"]),
              link=r["link"]["name"], share=f"{d['communication_time_s'] / d['time_s']:.0%}")
        )  # fmt: skip
    md = r.get("measured_decode")
    if md:
        sentences.append(
            t("insight_measured", lang, time=duration(md["step_time_s"]), tps=grouped(md["tokens_per_s"]),
              gap=f"{md['gap']:.2f}", mbu=f"{md['mbu']:.1%}", mfu=f"{md['mfu']:.2%}")
        )  # fmt: skip
    real = [x for x in results if x["hardware_id"] not in what_if_ids]
    if len(real) > 1:
        sentences.append(_comparison(real, lang))
    if real:
        sentences += [_what_if(x, real[0], lang) for x in results if x["hardware_id"] in what_if_ids]
    return sentences


def _speed(ratio: float, lang: str) -> str:
    if abs(ratio - 1) < 0.005:
        return t("moves_not", lang)
    return t("moves_faster" if ratio > 1 else "moves_slower", lang, x=f"{ratio:.2f}")


def _regimes(before: str, after: str, lang: str) -> str:
    """One regime, or how it changed ("compute-bound → memory-bound")."""
    now = t(f"bound_{after}", lang)
    return now if before == after else f"{t(f'bound_{before}', lang)} → {now}"


def _what_if(x: dict, ref: dict, lang: str) -> str:
    """What an invented card's change moves, and what it does not (doubling
    FLOP/s leaves a memory-bound decode where it was)."""
    return t(
        "insight_what_if",
        lang,
        wi=x["hardware_name"],
        ref=ref["hardware_name"],
        bw=f"{x['memory_bandwidth_bytes_per_s'] / ref['memory_bandwidth_bytes_per_s']:.2f}",
        fl=f"{x['tensor_flops_per_s'] / ref['tensor_flops_per_s']:.2f}",
        decode=_speed(ref["decode"]["time_s"] / x["decode"]["time_s"], lang),
        dbound=_regimes(ref["decode"]["bound"], x["decode"]["bound"], lang),
        prefill=_speed(ref["prefill"]["time_s"] / x["prefill"]["time_s"], lang),
        pbound=_regimes(ref["prefill"]["bound"], x["prefill"]["bound"], lang),
    )


def _usable(name: str, mem: dict, lang: str) -> str:
    """'fits the card's 80 GiB, not the 72 GiB a serving engine uses at 0.9'."""
    u = mem["usable_bytes"] / mem["capacity_bytes"]
    return t("insight_usable", lang, hw=name, total=_gib(mem["total_bytes"]), cap=_gib(mem["capacity_bytes"]),
             usable=_gib(mem["usable_bytes"]), u=f"{u:.2g}")  # fmt: skip


def _overflow(r: dict, scenario: dict, lang: str) -> str:
    """Which part of memory overflows, and the engine's way out."""
    mem, name = r["memory"], r["hardware_name"]
    usable, weights, kv, act = mem["usable_bytes"], mem["weights_bytes"], mem["kv_cache_bytes"], mem["activation_bytes"]
    if weights > usable:
        n = mem["min_tensor_parallel"]
        way = t("way_tp", lang, n=n) if n else t("way_no_tp", lang)
        return t("insight_over_weights", lang, hw=name, weights=_gib(weights), cap=_gib(usable), way=way)
    ways = []
    if mem["max_batch_size"] >= 1:
        ways.append(t("way_batch", lang, maxb=grouped(mem["max_batch_size"])))
    if mem["max_context_length"] >= 1:
        ways.append(t("way_context", lang, maxctx=grouped(mem["max_context_length"])))
    way = " ".join(ways)
    if weights + kv > usable:
        b = scenario["batch_size"]  # "1 sequence", never "1 sequences"
        seqs = t("n_sequences_one" if b == 1 else "n_sequences", lang, n=grouped(b))
        return t("insight_over_kv", lang, hw=name, seqs=seqs,
                 ctx=grouped(scenario["context_length"]),
                 kv=_gib(kv), weights=_gib(weights), total=_gib(mem["total_bytes"]), cap=_gib(usable),
                 way=way)  # fmt: skip
    return t("insight_over_activations", lang, hw=name, weights=_gib(weights), kv=_gib(kv), act=_gib(act),
             total=_gib(mem["total_bytes"]), cap=_gib(usable), way=way)  # fmt: skip


def _comparison(results: list[dict], lang: str) -> str:
    """The first accelerator against the fastest other one, higher-is-better: what decode
    follows depends on the regime each is in."""
    first = results[0]
    other = max(results[1:], key=lambda x: x["decode"]["tokens_per_s"])
    ratio = other["decode"]["tokens_per_s"] / first["decode"]["tokens_per_s"]
    if abs(ratio - 1) < 0.005:
        return t("insight_tie", lang, hw1=first["hardware_name"], hw2=other["hardware_name"],
                 tps=grouped(first["decode"]["tokens_per_s"]))  # fmt: skip
    if ratio < 1:
        return t("insight_fastest", lang, hw1=first["hardware_name"], hw2=other["hardware_name"],
                 ratio=f"{1 / ratio:.2f}")  # fmt: skip
    b1, b2 = first["decode"]["bound"], other["decode"]["bound"]
    names = {"hw1": first["hardware_name"], "hw2": other["hardware_name"], "ratio": f"{ratio:.2f}"}
    if b1 == b2 == "memory":
        return t("insight_compare_memory", lang, **names, bw1=si(first["memory_bandwidth_bytes_per_s"], "B/s"),
                 bw2=si(other["memory_bandwidth_bytes_per_s"], "B/s"))  # fmt: skip
    if b1 == b2 == "compute":
        return t("insight_compare_compute", lang, **names, fl1=si(first["tensor_flops_per_s"], "FLOP/s"),
                 fl2=si(other["tensor_flops_per_s"], "FLOP/s"))  # fmt: skip
    return t("insight_compare_mixed", lang, **names, bound1=t(f"bound_{b1}", lang), bound2=t(f"bound_{b2}", lang))


def pin_sentence(changes: list[str], a: dict, b: dict, lang: str) -> str:
    """Pin and compare: what changed between A and B, what decode did (its tokens/s, as the
    table beside it: a step's time ratio said "1.99x as fast" where a halved batch left tokens/s
    at 1.00x), and the share of each decode step's bytes that is KV cache
    (`memory.kv_cache_bytes` of `decode.bytes`)."""
    if not changes:
        return t("pin_same", lang)
    da, db = a["decode"], b["decode"]
    return t(
        "insight_pin",
        lang,
        changes="; ".join(changes),
        decode=_speed(db["tokens_per_s"] / da["tokens_per_s"], lang),
        bound=_regimes(da["bound"], db["bound"], lang),
        kv=f"{b['memory']['kv_cache_bytes'] / db['bytes']:.0%}",
        kv_a=f"{a['memory']['kv_cache_bytes'] / da['bytes']:.0%}",
    )


def cache_sentence(r: dict, roofs: list[dict], lang: str) -> str:
    """With cache roofs drawn: whether a decode step's bytes could come from the largest cache
    (the bandwidth cliff of Jia et al. 2018, Dissecting the NVIDIA Volta GPU); for an LLM they almost never fit."""
    if not roofs:
        return ""
    largest = max(roofs, key=lambda x: x["capacity_bytes"])
    moved = r["decode"]["bytes"]
    if moved <= largest["capacity_bytes"]:
        return ""
    level = t(f"level_{largest['level']}", lang)
    return t("insight_cache", lang, bytes=_gb(moved), times=grouped(moved / largest["capacity_bytes"]),
             hw=r["hardware_name"], level=level, cap=_gib(largest["capacity_bytes"]))  # fmt: skip
