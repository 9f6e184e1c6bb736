"""The links between pages: what a tab switch carries, both ways.

Every tab reads the page's chrome from the link (accelerators, language, theme, embedding);
a lab reads its own parameters (the op lab's model is the one its decode projections use;
what-if cards travel as `xhw=`), and keeps the roofline's parameters it does not use as it
was given them (`carry`), so roofline -> op lab -> training lab -> roofline ends on the view
it left. The roofline page's own links are written from its table (state.shared_query)."""

from __future__ import annotations

from app.dashboard.lib.params import query_string, write_link
from app.dashboard.pages import scenario
from app.dashboard.pages.roofline.params import BY_NAME, PRECISIONS, SHARED, TABS, pairs_of
from app.dashboard.pages.roofline.state import View

# Read by the View on every tab (the rest of a lab's link is the lab's to read).
CHROME = ("hw", "lang", "theme", "embed", "controls", "present")


def linked_hardware(view: View) -> tuple[str, ...]:
    """The accelerators the link names (none when it names none: the View's default is the
    roofline's, and a lab may keep its own, as the training lab keeps its measured run's)."""
    return view.hardware if "hw" in pairs_of(view.query) else ()


def lab_args_of(args: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A lab's share of its link: everything but the tab and the chrome."""
    return tuple((k, v) for k, v in args.items() if k not in CHROME and k != "tab")


def carried(lab_args: tuple[tuple[str, str], ...], own: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The roofline's parameters in a lab's link, kept as given, but for the shared ones the lab
    reads itself (its model, its what-ifs: it writes those). A name both pages read (the op
    lab's conv2d `batch`) is carried too: the lab's link writes its own value over it, the
    tabs' links keep the roofline's."""
    mine = own & set(SHARED)
    return tuple((k, v) for k, v in lab_args if k in BY_NAME and k not in mine and k not in CHROME and k != "tab")


def _chrome(view: View, tab: str) -> list[tuple[str, str]]:
    pairs = [] if tab == "roofline" else [("tab", tab)]
    pairs += [("hw", ",".join(view.hardware)), ("lang", view.lang), ("theme", view.theme)]
    return pairs + [("present", "1")] * view.present


def _without(pairs, names: set[str]) -> list:
    return [(k, v) for k, v in pairs if k not in names]


def lab_link(
    view: View, own: list[tuple[str, str]], carry: tuple[tuple[str, str], ...], owned: frozenset[str] = frozenset()
) -> dict:
    """A lab's link data for assets/04-url.js: its canonical link (its own parameters, the
    chrome, what it carries) and each tab's link (the shared parameters, what it carries).
    `owned`: every parameter the lab reads; one it leaves out at its default is not carried
    into its own link either, or a value the user cleared (the planner's price) would come back
    from the link it was opened with."""
    written = {k for k, _ in own} | owned
    template = query_string(
        [*_chrome(view, view.tab)[:1], *own, *_chrome(view, view.tab)[1:], *_without(carry, written)]
    )
    shared = [(k, v) for k, v in own if k in SHARED]
    moved = handed_over(view.tab, own)  # the lab's current values under the roofline's names
    shared_names = {k for k, _ in shared} | {k for k, _ in moved}
    tabs = {}
    for tab in TABS:
        chrome = _chrome(view, tab)
        if view.embed:
            chrome.append(("embed", "1"))
        tabs[tab] = "?" + query_string(
            [
                *chrome,
                *_without(shared, {"xhw"}),
                *moved,
                *_without(carry, shared_names),
                *[p for p in shared if p[0] == "xhw"],
            ]
        )
    return {"template": template, "tabs": tabs, "push": False, "notify": True}


def handed_over(lab: str, own: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What a lab's link hands the other tabs of the quantities it shares with the roofline
    (scenario.SAME_QUANTITY), under the roofline's names: the serving page's `isl=1024` is the
    roofline's `ctx=1024`. From the serving page also the KV cache it computed with (its rule
    for the weights), so the roofline draws the same scenario."""
    values = dict(own)
    pairs = [(name, values[theirs]) for name, theirs in scenario.SAME_QUANTITY.get(lab, ()) if theirs in values]
    if lab == "serving" and values.get("prec") in PRECISIONS:
        pairs.append(("kvprec", scenario.kv_dtype_for(PRECISIONS[values["prec"]][0])))
    return pairs


def lab_names(lab: str, view: View) -> list[tuple[str, str]]:
    """The roofline's values of the quantities a lab shares with it, under the lab's names where
    they differ (the serving page's `isl` for the roofline's `ctx`): what the roofline's tab link
    adds for that lab (state.shared_query)."""
    written = dict(write_link([BY_NAME[name] for name, _ in scenario.SAME_QUANTITY.get(lab, ())], view))
    return [
        (theirs, written[name])
        for name, theirs in scenario.SAME_QUANTITY.get(lab, ())
        if name != theirs and name in written
    ]
