"""The page's chrome every tab shares: the tabs, the language switch, the theme's classes and
the notices of what the link could not use.

A tab is a link, not client state: each view is a page of its own, rendered server-side from the
URL, so a wiki link to a lab shows that lab."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.lib.i18n import reason, t
from app.dashboard.pages.roofline.state import TABS, View


def language_switch(lang: str) -> dcc.RadioItems:
    """EN / 中文: assets/app.js `changeLang` reloads the page's own link in the other language."""
    return dcc.RadioItems(
        id="lang",
        options=[{"label": "EN", "value": "en"}, {"label": "中文", "value": "zh"}],
        value=lang,
        className="toggle",
        inline=True,
    )


def tab_bar(view: View, hrefs: dict[str, str]) -> html.Nav:
    """The tabs, each a link that carries what every tab shares (pages/links.py); the page's
    link data keeps them current as the controls change (assets/04-url.js)."""
    return html.Nav(
        [
            html.A(
                t(f"tab_{tab}", view.lang),
                href=hrefs[tab],
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


def notice_items(view: View) -> list:
    """What the link asked for and could not have, one line each, in the page's language."""
    return [
        html.Li(t("notice_ignored", view.lang, name=n, value=v, why=reason(w, view.lang))) for n, v, w in view.notices
    ]


def lab_shell(view: View, body: list, lab_notices: list[str], tabs: dict[str, str]) -> html.Div:
    """A lab's page: the title, the tabs, what was ignored in the link, then the lab itself."""
    lang = view.lang
    notices = notice_items(view) + [html.Li(text) for text in lab_notices]
    return html.Div(
        [
            # the query it was rendered for: render_page re-renders only for another one
            dcc.Store(id="view-flags", data={"lang": lang, "embed": view.embed, "query": view.query}),
            html.Header(
                [
                    html.H1(t(f"tab_{view.tab}", lang)),
                    tab_bar(view, tabs),
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
