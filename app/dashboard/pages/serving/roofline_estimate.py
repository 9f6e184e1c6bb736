"""The serving estimate as the roofline page shows it (`out=` and `conc=` set): for each
accelerator, the serving scenario of the roofline's model, precision, TP and context (the
prompt) with `out` output tokens and `conc` requests in flight, its bound and estimate TPOT,
and the shipped measured run of that scenario where there is one.

The roofline's decode point sits at its intensity and the bound's attained FLOP/s; the
estimate point goes beneath it at the same intensity, at the attained FLOP/s the estimate
allows: the bound's FLOP/s x bound TPOT / estimate TPOT (the same FLOPs in the longer step).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.dashboard.components.plot_style import card_colors
from app.dashboard.lib.markup import hover_text, plotly_names
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.measured import Run, matching_runs
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.state import accelerator_of, scenario_of
from app.dashboard.pages.serving.words import run_description, w
from app.units import plain, si
from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.serving import serving_estimate


@dataclass(frozen=True)
class DecodeEstimate:
    bound_tpot_s: float
    estimate_tpot_s: float
    estimate_tpot_range_s: tuple[float, float]
    measured_tpot_s: float | None  # the shipped run of this scenario at this concurrency, if any
    measured_run: Run | None  # described in words on screen (words.run_description), never by its id
    bound_ttft_s: float = 0.0
    estimate_ttft_s: float = 0.0
    estimate_ttft_range_s: tuple[float, float] = (0.0, 0.0)

    @property
    def fraction_of_bound(self) -> float:
        """Estimate's attained FLOP/s over the bound's (<= 1: the estimate is never faster)."""
        return self.bound_tpot_s / self.estimate_tpot_s


def serving_args(view) -> ServingArgs | None:
    """The serving page's arguments for the roofline View's scenario (`out=` and `conc=` set; a
    custom config has no preset and no shipped runs: None): the prompt is the View's context,
    the backend its `backend`. The estimate is then the serving page's own, from the same
    scenario (compute.scenario_of, KV as the serving page keeps it) and the same function."""
    if not (getattr(view, "output_tokens", None) and getattr(view, "concurrency", None)) or view.model == "custom":
        return None
    return ServingArgs(
        model=view.model,
        hardware=view.hardware,
        what_if=view.what_if,
        backend=view.backend,
        precision=view.precision,
        tensor_parallel=view.tensor_parallel,
        input_tokens=view.context,
        output_tokens=view.output_tokens,
        concurrency=view.concurrency,
        memory_utilization=view.memory_utilization,
        gpu_hour_price=view.gpu_hour_price,
    )


@lru_cache(maxsize=256)
def decode_estimate(args: ServingArgs, hw_spec: str) -> DecodeEstimate | None:
    """`hw_spec`: a catalogue id or a what-if short form. The serving page's estimate at its
    chosen concurrency (compute.one_accelerator: serving_estimate of compute.scenario_of); None
    when the engine cannot answer (the model does not fit, say): no point is drawn."""
    try:
        hw = accelerator_of(hw_spec)
        model = get_model(args.model)
        sc = scenario_of(args)
        hw.check_tensor_parallel(args.tensor_parallel)
        result = serving_estimate(model, hw, sc)
    except EngineInputError:
        return None
    runs = [
        r
        for r in matching_runs(args.model, hw.id, sc, not model.is_moe)
        if r.row.scenario.concurrency == args.concurrency
    ]
    run = runs[0] if runs else None
    est, bound = result["estimate"], result["bound"]
    return DecodeEstimate(
        bound["tpot_s"],
        est["tpot_s"],
        (est["tpot_s_range"][0], est["tpot_s_range"][1]),
        run.row.tpot_s if run else None,
        run,
        bound["ttft_s"],
        est["ttft_s"],
        (est["ttft_s_range"][0], est["ttft_s_range"][1]),
    )


def estimates_for(results: list[dict], specs: dict[str, str], args: ServingArgs) -> dict[str, DecodeEstimate]:
    """{hardware id: DecodeEstimate} for the roofline's results; `specs`: id -> catalogue id or
    what-if short form."""
    out = {}
    for r in results:
        spec = specs.get(r["hardware_id"])
        est = decode_estimate(args, spec) if spec else None
        if est is not None:
            out[r["hardware_id"]] = est
    return out


def estimate_traces(results: list[dict], estimates: dict[str, DecodeEstimate], lang: str, theme: str) -> list[dict]:
    """Beneath each accelerator's decode point (`point--<hw>--decode`), at its intensity, the
    estimate's attained FLOP/s: `estimate--<hw>--decode`, hollow, in the accelerator's colour."""
    traces = []
    hues = card_colors([r["hardware_id"] for r in results], theme)
    for i, r in enumerate(plotly_names(results)):  # accelerator names as text, never markup
        est = estimates.get(r["hardware_id"])
        if est is None:
            continue
        decode = r["decode"]
        bound_flops = decode["flops"] / decode["time_s"]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "uid": uid("estimate", r["hardware_id"], "decode"),
                "name": f"{r['hardware_name']} · {w('srv_estimate', lang)}",
                "legendgroup": r["hardware_id"],
                "showlegend": False,
                "x": [decode["intensity"]],
                "y": [bound_flops * est.fraction_of_bound],
                "hovertemplate": estimate_hover(r["hardware_name"], est, bound_flops, lang) + "<extra></extra>",
                "marker": {
                    "symbol": "circle-open-dot",  # a dot in it: not a point that does not fit (hollow)
                    "size": 13,
                    "color": hues[i],
                    "line": {"width": 2.5, "color": hues[i]},
                },
            }
        )
    return traces


def estimate_hover(name: str, est: DecodeEstimate, bound_flops: float, lang: str) -> str:
    lines = [
        f"<b>{name}</b> · {w('srv_estimate', lang)} · decode",
        w(
            "srv_roof_hover",
            lang,
            flops=si(bound_flops * est.fraction_of_bound, "FLOP/s"),
            bound=si(bound_flops, "FLOP/s"),
            pct=f"{est.fraction_of_bound:.0%}",
        ),
        estimate_sentence(name, est, lang),
    ]
    return hover_text(lines)


def estimate_sentence(name: str, est: DecodeEstimate, lang: str) -> str:
    """Bound, estimate (range) and, where the shipped data has the run, measured TPOT."""
    text = w(
        "srv_roof_sentence",
        lang,
        name=name,
        bound=plain(est.bound_tpot_s * 1e3),
        est=plain(est.estimate_tpot_s * 1e3),
        lo=plain(est.estimate_tpot_range_s[0] * 1e3),
        hi=plain(est.estimate_tpot_range_s[1] * 1e3),
    )
    if est.measured_tpot_s is not None:
        text += " " + w(
            "srv_roof_measured",
            lang,
            measured=plain(est.measured_tpot_s * 1e3),
            source=run_description(est.measured_run, lang),
        )
    return text


def view_estimates(view, results: list[dict]) -> dict[str, DecodeEstimate]:
    """The roofline View's serving estimates, one per accelerator (serving_args)."""
    from app.dashboard.pages.roofline.state import hardware_ids, hardware_specs

    args = serving_args(view)
    if args is None:
        return {}
    return estimates_for(results, dict(zip(hardware_ids(view), hardware_specs(view), strict=True)), args)


def view_traces(view, results: list[dict]) -> list[dict]:
    """The roofline figure's estimate points for the View (the page's hook), each drawn for the
    View's stop alone, named in its `meta.stop` ([batch, context]): the slider grid does not
    carry them, so the browser hides them at any other stop (assets/03-live-path.js) until the
    server draws them there at rest (roofline/views.py `rest_traces`)."""
    traces = estimate_traces(results, view_estimates(view, results), view.lang, view.theme)
    return [{**trace, "meta": {"stop": [view.batch, view.context]}} for trace in traces]


def view_sentences(view, results: list[dict]) -> list[str]:
    """The roofline insight's sentences for the View, one per accelerator with an estimate."""
    estimates = view_estimates(view, results)
    return [
        estimate_sentence(r["hardware_name"], estimates[r["hardware_id"]], view.lang)
        for r in results
        if r["hardware_id"] in estimates
    ]
