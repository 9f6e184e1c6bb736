"""The fit's words on the page: what the link's fit is and where it applies (under the fit's
controls, `srv-fit-state`), and why a paste or a link's runs were not fitted. Every number is a
field of the fit computed from the runs (fit.py)."""

from __future__ import annotations

from dash import html

from app.dashboard.lib.params import Why
from app.dashboard.pages.serving.fit import CarriedFit, carried_fit, scenario_link, standing
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.provenance import scenario_text
from app.dashboard.pages.serving.runs import RunsError
from app.dashboard.pages.serving.words import fit_errors, runs_count, w, why
from app.units import plain
from engine.errors import EngineInputError
from engine.serving_userfit import MIN_RUNS, Breach, FitRefused

MAX_LISTED = 12


def runs_message(error: RunsError, lang: str) -> list:
    """Every bad row by line and field (the first MAX_LISTED), and that nothing was imported."""
    items = []
    for line, name, what in error.problems[:MAX_LISTED]:
        text = why(what, lang) if isinstance(what, Exception) else w(f"srv_runs_{what}", lang)
        where = w("srv_runs_where", lang, line=line, field=name or "—") if line else ""
        items.append(html.Li(f"{where}{text}"))
    more = len(error.problems) - MAX_LISTED
    if more > 0:
        items.append(html.Li(w("srv_runs_more", lang, n=more)))
    return [html.P(w("srv_runs_refused", lang)), html.Ul(items)]


def _breach(fit: CarriedFit, b: Breach, lang: str) -> str:
    run = fit.runs[b.index].run
    return w(
        "srv_fit_breach",
        lang,
        line=run.line,
        field=f"{b.field}_ms",
        c=f"{run.scenario.concurrency:,}",
        measured=plain(b.measured_s * 1e3),
        bound=plain(b.bound_s * 1e3),
        x=plain(b.faster),
    )


def breaches_list(fit: CarriedFit, breaches: tuple[Breach, ...], lang: str) -> list:
    if not breaches:
        return []
    items = [html.Li(_breach(fit, b, lang)) for b in breaches[:MAX_LISTED]]
    if len(breaches) > MAX_LISTED:
        items.append(html.Li(w("srv_runs_more", lang, n=len(breaches) - MAX_LISTED)))
    return [html.P(w("srv_fit_excluded", lang)), html.Ul(items, className="srv-fit-breaches")]


def problem_message(fit: CarriedFit, lang: str) -> list:
    """Why the runs were not fitted: a refusal (too few runs once those faster than the bound
    are left out), a run the engine cannot place, or a token this page did not write."""
    problem = fit.problem
    if isinstance(problem, FitRefused):
        text = w("srv_fit_too_few", lang, min=MIN_RUNS, have=runs_count(problem.kept, lang))
        return [html.P(text), *breaches_list(fit, problem.breaches, lang)]
    if isinstance(problem, RunsError):
        return runs_message(problem, lang)
    if isinstance(problem, EngineInputError):
        return [html.P(w("srv_acc_error", lang, msg=why(problem, lang)))]
    return [html.P(w("srv_fit_link_refused", lang, why=why(problem if isinstance(problem, Why) else "", lang)))]


def _differ(names: tuple[str, ...], lang: str) -> str:
    return ", ".join(w(f"srv_differ_{name}", lang) for name in names)


def fit_state(a: ServingArgs, lang: str, theme: str, at_bound: tuple[int, int] = (0, 0)) -> list:
    """What the link's fit is and where it applies; `at_bound`: (points held at the bound, points)."""
    if a.runs is None:
        return []
    fit = carried_fit(a.runs)
    if fit.report is None:
        return problem_message(fit, lang)
    where = standing(a, fit)
    values = {
        "runs": runs_count(fit.report.runs, lang),
        "name": fit.hw_name,
        "on": scenario_text(fit.carried.args, lang, concurrency=False),
        "differ": _differ(where.differ, lang),
        **fit_errors(fit.report),
    }
    out = [html.P(w(f"srv_fit_{where.kind}", lang, **values), className=f"srv-fit-{where.kind}")]
    if where.kind != "elsewhere":
        out.append(html.P(fit_parameters_sentence(fit.report.fit, lang)))
        if at_bound[0]:
            out.append(html.P(w("srv_fit_at_bound", lang, n=at_bound[0], m=at_bound[1])))
    out += breaches_list(fit, fit.report.excluded, lang)
    if where.kind != "here":
        link = html.A(w("srv_fit_open", lang), href=scenario_link(fit, a.runs, lang, theme), className="srv-fit-open")
        out.append(html.P(link))
    return out


def fit_parameters_sentence(fit, lang: str) -> str:
    """The fitted numbers themselves (engine/serving_userfit.py), as a person reads them."""
    return w(
        "srv_fit_parameters",
        lang,
        scale=plain(fit.tpot_scale),
        overhead=plain(fit.step_overhead_s * 1e3),
        ttft=plain(fit.ttft_scale),
        wait=plain(fit.wait_steps),
    )
