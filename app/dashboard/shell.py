"""The three views of the dashboard (`tab=`): the inference roofline, the op lab and the
training lab. A tab is a link, not client state: each view is a page of its own, rendered
server-side from the URL, so a wiki link to a lab shows that lab."""

from __future__ import annotations

from urllib.parse import urlencode

from dash import dcc, html

from .i18n import reason, t
from .pickers import language_switch
from .url_state import TABS, View


def tab_href(view: View, tab: str) -> str:
    """The link to another tab, keeping what every tab shares: accelerators (what-ifs too),
    language and theme."""
    q = {"tab": tab} if tab != "roofline" else {}
    q.update(hw=",".join(view.hardware), lang=view.lang, theme=view.theme)
    if view.embed:
        q["embed"] = "1"
    # on a lab tab its what-ifs are still the lab's own parameters, `xhw=` as the link gave them
    what_ifs = view.what_if or tuple(w for k, v in view.lab_args if k == "xhw" for w in v.split(",") if w)
    return "?" + urlencode([*q.items(), *(("xhw", w) for w in what_ifs)], safe=",:")


def tab_bar(view: View) -> html.Nav:
    return html.Nav(
        [
            html.A(
                t(f"tab_{tab}", view.lang),
                href=tab_href(view, tab),
                id=f"tab-{tab}",
                className="tab current" if tab == view.tab else "tab",
                **({"aria-current": "page"} if tab == view.tab else {}),
            )
            for tab in TABS
        ],
        className="tabs",
        **{"aria-label": t("tabs", view.lang)},
    )


def root_classes(view: View) -> str:
    parts = (
        "app",
        f"theme-{view.theme}",
        "embed" if view.embed else "",
        "no-controls" if view.embed and not view.controls else "",
        "present" if view.present else "",
    )
    return " ".join(p for p in parts if p)


def lab_shell(view: View, body: list, lab_notices: list[str]) -> html.Div:
    """A lab's page: the title, the tabs, what was ignored in the link, then the lab itself."""
    lang = view.lang
    notices = [html.Li(t("notice_ignored", lang, name=n, value=v, why=reason(w, lang))) for n, v, w in view.notices]
    notices += [html.Li(text) for text in lab_notices]
    return html.Div(
        [
            # the query it was rendered for: callbacks.render_page re-renders only for another one
            dcc.Store(id="view-flags", data={"lang": lang, "embed": view.embed, "query": view.query}),
            html.Header(
                [
                    html.H1(t(f"tab_{view.tab}", lang)),
                    tab_bar(view),
                    language_switch(lang),
                ],
                className="header",
            ),
            html.Ul(notices, id="notices", className="notices", hidden=not notices, role="status"),
            *body,
        ],
        className=root_classes(view),
        id="app-root",
        lang="zh-CN" if lang == "zh" else "en",
    )
