"""The training lab's callbacks (tab=training), module-level with keyword inputs: the controls
-> every panel and the canonical link (assets/04-url.js writes it). Every number comes from
engine/training.py through the same calls as POST /api/v1/training; the link's parameters are
described in state.py and the words in figures.py.
"""

from __future__ import annotations

from dash import Input, Output, State, html

from app.dashboard.components.plot_style import message_figure
from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import control_inputs
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.training.figures import comm_panel, memory_figure, memory_text, utilisation_panel
from app.dashboard.pages.training.params import PARAMS, TEACHING, TrainArgs
from app.dashboard.pages.training.state import args_from_controls, compute, link_pairs
from engine.hardware import get_accelerator

CALLBACKS = Callbacks()
OUTPUTS = ("teaching_hidden", "error", "util", "memory_figure", "memory_text", "comm")


# ---- the page --------------------------------------------------------------------------------------
def outputs(
    a: TrainArgs, problems: list[str], lang: str, theme: str, present: bool, refused: tuple[str, ...] = ()
) -> tuple:
    """(teaching form hidden, error, utilisation, memory figure, memory text, all-reduce): the
    first render and every callback show the same thing for the same inputs. `problems` leave
    nothing to compute; `refused` (a box's value the page replaced by its default) is said
    above the panels it still fills."""
    hidden = a.model != TEACHING
    result, fix_bill, error = (None, None, None) if problems else compute(a, lang)
    if problems or error:
        message = [*refused, *(problems or [t("lab_train_error", lang, msg=error)])]
        return hidden, [html.P(m) for m in message], [], message_figure("—"), [], []
    hw = get_accelerator(a.hardware)
    return (
        hidden,
        [html.P(m) for m in refused],
        utilisation_panel(result, hw.vendor, hw.name, lang),
        memory_figure(result["memory"], fix_bill, lang, theme, present),
        memory_text(result, hw.name, lang),
        comm_panel(result, a.busbw_gbs is not None, lang),
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
    shown = outputs(args, problems, view.lang, view.theme, view.present, tuple(refused))
    return {**dict(zip(OUTPUTS, shown, strict=True)), "link": link_of(view, args)}


# the address bar follows the controls (history.replaceState): a link reproduces the view
CALLBACKS.client("url", "sync", Output("train-url", "data"), Input("train-link", "data"), State("train-url", "data"))


def register(app) -> None:
    CALLBACKS.register(app)
