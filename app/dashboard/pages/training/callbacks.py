"""The training lab's callbacks (tab=training), module-level with keyword inputs: the controls
-> every panel and the canonical link (assets/04-url.js writes it). Every number comes from
engine/training.py through the same calls as POST /api/v1/training; the link's parameters are
described in state.py and the words in figures.py.
"""

from __future__ import annotations

from dataclasses import replace

from dash import Input, Output, State, dcc, html, no_update

from app.dashboard.components.plot_style import message_figure
from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import control_inputs
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.training.figures import comm_panel, memory_figure, memory_text, utilisation_panel
from app.dashboard.pages.training.params import PARAMS, TEACHING, TrainArgs
from app.dashboard.pages.training.state import (
    args_from_controls,
    compute,
    link_pairs,
    nearest_valid_tokens,
    needs_measurement,
    unmeasured,
)
from engine.hardware import get_accelerator

CALLBACKS = Callbacks()
OUTPUTS = ("teaching_hidden", "error", "util", "memory_figure", "memory_text", "comm")


# ---- the page --------------------------------------------------------------------------------------
def tokens_fix(a: TrainArgs, href_of, lang: str) -> list:
    """Tokens per step that no whole number of sequences per GPU makes: the nearest that does,
    said and offered as a link to the same view with it."""
    nearest = nearest_valid_tokens(a)
    if nearest is None:
        return []
    sequences = nearest // a.seq
    words = t("lab_train_tokens_nearest", lang, n=f"{nearest:,}", seqs=f"{sequences:,}", per_gpu=sequences // a.gpus)
    link = dcc.Link(
        t("lab_train_tokens_use", lang, n=f"{nearest:,}"),
        href=href_of(replace(a, tokens=nearest)),
        id="train-tokens-fix",
        className="button",
    )
    return [html.P([words, " ", link])]


def outputs(
    a: TrainArgs,
    problems: list[str],
    lang: str,
    theme: str,
    present: bool,
    refused: tuple[str, ...] = (),
    href_of=None,
) -> tuple:
    """(teaching form hidden, error, utilisation, memory figure, memory text, all-reduce): the
    first render and every callback show the same thing for the same inputs. `problems` leave
    nothing to compute; `refused` (a box's value the page replaced by its default) is said
    above the panels it still fills. `href_of(args)`: the page's link for other arguments (a
    fix the page offers)."""
    hidden = a.model != TEACHING
    # no measurement of this run (a model from a link): what does not need one (the memory bill,
    # the all-reduce's size and time) is computed; what does (MFU, HFU, shares of the step) waits
    measured = a.measured is not None
    if not measured:
        refused = (*refused, needs_measurement(a, lang))
    result, fix_bill, error = (None, None, None) if problems else compute(a if measured else unmeasured(a), lang)
    if problems or error:
        message = [html.P(m) for m in [*refused, *(problems or [t("lab_train_error", lang, msg=error)])]]
        if error and href_of is not None:
            message += tokens_fix(a, href_of, lang)
        return hidden, message, [], message_figure("—"), [], []
    hw = get_accelerator(a.hardware)
    return (
        hidden,
        [html.P(m) for m in refused],
        utilisation_panel(result, hw.vendor, hw.name, lang) if measured else [],
        memory_figure(result["memory"], fix_bill, lang, theme, present),
        memory_text(result, hw.name, lang),
        comm_panel(result, a.busbw_gbs is not None, lang, shares=measured),
    )


def page_view(flags: object) -> View:
    """The page's chrome and what it carries (the `train-flags` store), checked."""
    flags = flags if isinstance(flags, dict) else {}
    hardware = flags.get("hw") if isinstance(flags.get("hw"), list) else []
    carry = flags.get("carry") if isinstance(flags.get("carry"), list) else []
    return View(
        tab="training",
        hardware=tuple(h for h in hardware if isinstance(h, str)),
        lang=flags.get("lang") if flags.get("lang") in ("en", "zh") else "en",
        theme=flags.get("theme") if flags.get("theme") in ("light", "dark") else "light",
        embed=flags.get("embed") is True,
        present=flags.get("present") is True,
        carry=tuple((str(c[0]), str(c[1])) for c in carry if isinstance(c, list) and len(c) == 2),
    )


def href_of(view: View):
    """The page's link for other arguments: what a fix the page offers opens."""
    return lambda a: "?" + link_of(view, a)["template"]


def link_of(view: View, a: TrainArgs) -> dict:
    """The lab's link data: the chosen accelerator first, the others the link brought after it
    (they travel to the other tabs), the lab's own parameters, what it carries. The controls
    move the link: nothing to re-render (dcc.Location is not told, or the page would be drawn
    again from the link and a refused box's sentence would vanish with the box's value)."""
    hardware = (a.hardware, *(h for h in view.hardware if h != a.hardware))
    return {**lab_link(View(**{**view.__dict__, "hardware": hardware}), link_pairs(a), view.carry), "notify": False}


@CALLBACKS.server(
    output={
        **{
            name: Output(cid, prop)
            for name, (cid, prop) in zip(
                OUTPUTS,
                (
                    ("train-teaching", "hidden"),
                    ("train-error", "children"),
                    ("train-util", "children"),
                    ("train-memory-graph", "figure"),
                    ("train-memory-text", "children"),
                    ("train-comm", "children"),
                ),
                strict=True,
            )
        },
        "link": Output("train-link", "data"),
    },
    inputs={"controls": control_inputs(PARAMS, Input)},
    state={"flags": State("train-flags", "data")},
)
def update_training(controls: dict, flags: object) -> dict:
    """The controls ({"id.prop": value}, one per control the table names) -> every panel and
    the canonical link."""
    view = page_view(flags)
    args, problems, refused = args_from_controls(controls, lang=view.lang)
    shown = outputs(args, problems, view.lang, view.theme, view.present, tuple(refused), href_of(view))
    return {**dict(zip(OUTPUTS, shown, strict=True)), "link": link_of(view, args)}


@CALLBACKS.server(
    output={"measure": Output("train-measure", "value"), "measured": Output("train-measured", "value")},
    inputs={"model": Input("train-model", "value")},
)
def measurement_for_model(model: object) -> dict:
    """A model picked here was never measured: the teaching run's step (3.64 s) is not its
    own, so the box empties and the lab says MFU waits for one (kept, it made Llama-3.1-70B's
    MFU 385%); back on the teaching run, its own step returns. Not on a page's first draw: a
    link's measured step is its own."""
    if model == TEACHING:
        return {"measure": TrainArgs().measure, "measured": TrainArgs().measured}
    return {"measure": no_update, "measured": None}


# the address bar follows the controls (history.replaceState): a link reproduces the view
CALLBACKS.client("url", "sync", Output("train-url", "data"), Input("train-link", "data"), State("train-url", "data"))


def register(app) -> None:
    CALLBACKS.register(app)
