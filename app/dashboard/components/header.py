"""The page's chrome every tab shares: the header (title, tabs, Copy link, Dark, Presentation,
the language), the theme's classes and the notices of what the link could not use.

A tab is a link, not client state: each view is a page of its own, rendered server-side from the
URL, so a wiki link to a lab shows that lab."""

from __future__ import annotations

from urllib.parse import parse_qsl

from dash import Input, Output, State, dcc, html

from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.i18n import reason, t
from app.dashboard.lib.params import query_string
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


# The header's Dark and Presentation switches. The roofline redraws its own figures for them
# (its callbacks read `theme` and `present`); a lab draws its figures on the server from the
# link, so its switches reload the link (assets/app.js `labChrome`) and carry ids of their own:
# a lab page holding `theme` would fire the roofline's callbacks, whose other inputs it lacks.
SWITCH_IDS = {"roofline": ("theme", "present"), "lab": ("lab-theme", "lab-present")}
EMBEDDING = ("embed", "controls")  # the iframe's, never in a link to share
# What the browser says itself after Copy link (assets/app.js `copyLink`), on every page.
HEADER_MESSAGES = ("copied", "copy_blocked")


def header_messages(lang: str) -> dict[str, str]:
    return {key: t(key, lang) for key in HEADER_MESSAGES}


def switches(view: View) -> html.Div:
    """Dark, Presentation and the language: the same three on every page."""
    theme_id, present_id = SWITCH_IDS["roofline" if view.tab == "roofline" else "lab"]
    lang = view.lang
    return html.Div(
        [
            dcc.Checklist(
                id=theme_id,
                options=[{"label": t("theme_dark", lang), "value": "dark"}],
                value=["dark"] if view.theme == "dark" else [],
                className="toggle",
            ),
            dcc.Checklist(
                id=present_id,
                options=[{"label": t("present", lang), "value": "on"}],
                value=["on"] if view.present else [],
                className="toggle",
            ),
            language_switch(lang),
        ],
        className="switches",
    )


def full_view_link(view: View) -> str:
    """The page's link without the iframe's own parameters: what "Open full view" opens."""
    return "?" + query_string((k, v) for k, v in parse_qsl(view.query, keep_blank_values=True) if k not in EMBEDDING)


def page_header(
    view: View, title: str, tabs: dict[str, str], exports: list | tuple = (), full_link: str | None = None
) -> html.Header:
    """The chrome every page shares: its title, the tabs, Copy link (and, in a wiki's iframe,
    the same view full size in a new tab), the page's own exports, Dark, Presentation and the
    language. The link copied and opened is the page's own (assets/04-url.js keeps it current)."""
    lang = view.lang
    actions = [
        html.A(
            t("open_full", lang),
            id="open-full",
            className="button open-full",
            href=full_link or full_view_link(view),
            target="_blank",
            rel="noopener",
            hidden=not view.embed,
        ),
        html.Button(t("copy_link", lang), id="copy-link", n_clicks=0, className="button"),
        html.Span(id="copy-status", className="copy-status", **{"aria-live": "polite"}),
        # shown, selected, when the browser blocks the clipboard (a cross-origin iframe)
        dcc.Input(id="copy-field", readOnly=True, className="copy-field", value="", style={"display": "none"}),
        *exports,
    ]
    return html.Header(
        [html.H1(title), tab_bar(view, tabs), html.Div(actions, className="actions"), switches(view)],
        className="header",
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
            dcc.Store(
                id="view-flags",
                data={
                    "lang": lang,
                    "embed": view.embed,
                    "query": view.query,
                    "tab": view.tab,
                    "messages": header_messages(lang),
                },
            ),
            page_header(view, t(f"tab_{view.tab}", lang), tabs),
            html.Ul(notices, id="notices", className="notices", hidden=not notices, role="status"),
            *body,
        ],
        className=root_classes(view),
        id="app-root",
        lang="zh-CN" if lang == "zh" else "en",
    )


# the header's scripts (assets/02-chrome.js), on every page
CALLBACKS = Callbacks()
CALLBACKS.client(
    "chrome", "changeLang", Output("lang", "className"), Input("lang", "value"), State("view-flags", "data")
)
CALLBACKS.client(
    "chrome", "copyLink", Output("copy-status", "children"), Input("copy-link", "n_clicks"), State("view-flags", "data")
)
CALLBACKS.client(
    "chrome", "labSwitch", Output("lab-theme", "className"), Input("lab-theme", "value"), Input("lab-present", "value")
)
