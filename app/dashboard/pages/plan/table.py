"""The top N under the target: each candidate's mode, accelerator, layout, GPUs, concurrency,
TTFT and TPOT (estimate and p10-p90 range), tokens/s per GPU and per user, $/Mtok and memory
headroom, all the engine's; its launch commands, copyable in one click (assets/13-plan.js), and
a link that opens it on the serving page (serving_link.py)."""

from __future__ import annotations

from dash import html

from app.dashboard.pages.plan.serving_link import serving_link
from app.dashboard.pages.plan.words import backend_name, deployment, mode_name, ms, rate, usd, w

COLUMNS = ("rank", "layout", "gpus", "conc", "ttft", "tpot", "gpu", "user", "cost", "headroom", "launch")


def commands_text(candidate: dict, lang: str) -> str:
    """The launch commands as one text to paste: each role's count and command."""
    lines = []
    for item in candidate["launch"]:
        role = w(f"plan_role_{item['role']}", lang, n=item["count"], gpus=item["gpus_each"])
        lines += [f"# {role}", item["command"]]
    return "\n".join(lines)


def _range(value: str, low: str, high: str) -> list:
    """The estimate over its p10-p90 range, on a line of its own (the columns stay narrow)."""
    return [value, html.Br(), html.Span(f"{low}–{high}", className="plan-range")]


def row_cells(i: int, c: dict, names: dict[str, str], prices: dict, lang: str, theme: str) -> list:
    """One candidate's cells, as the table shows them (text, ranges, the commands and the link)."""
    est = c["estimate"]
    lo, hi = est["output_tokens_per_s_per_gpu_range"]
    text = commands_text(c, lang)
    launch = html.Div(
        [
            html.Button(w("plan_copy", lang), className="button plan-copy", type="button", **{"data-copy": text}),
            html.A(
                w("plan_open_serving", lang),
                href=serving_link(c, prices.get(c["hardware"]), lang, theme),
                className="plan-open",
                id=f"plan-open-{i}",
            ),
            html.Details([html.Summary(w("plan_show_commands", lang)), html.Pre(text, className="plan-commands")]),
        ],
        className="plan-launch",
    )
    where = f"{names.get(c['hardware'], c['hardware'])} · {mode_name(c['mode'], lang)}"
    stack = f"{backend_name(c['backend'], lang)} · {c['precision']}"
    return [
        str(i + 1),
        [html.B(where), html.Br(), deployment(c, lang), html.Br(), html.Span(stack, className="plan-range")],
        str(c["gpus"]),
        f"{c['concurrency']:,}",
        _range(ms(est["ttft_s"]), ms(est["ttft_s_range"][0]), ms(est["ttft_s_range"][1])),
        _range(ms(est["tpot_s"]), ms(est["tpot_s_range"][0]), ms(est["tpot_s_range"][1])),
        _range(rate(est["output_tokens_per_s_per_gpu"]), rate(lo), rate(hi)),
        rate(est["tokens_per_s_per_user"]),
        usd(c["usd_per_million_tokens"]),
        f"{c['memory_headroom']:.0%}",
        launch,
    ]


def top_table(answer: dict, names: dict[str, str], prices: dict, lang: str, theme: str) -> list:
    """The table, or the sentence that nothing meets the target."""
    if not answer["top"]:
        return [html.P(w("plan_top_none", lang), className="help")]
    labels = [w(f"plan_col_{k}", lang) for k in COLUMNS]
    head = html.Thead(html.Tr([html.Th(label, scope="col") for label in labels]))
    rows = []
    for i, c in enumerate(answer["top"]):
        cells = row_cells(i, c, names, prices, lang, theme)
        tds = [
            html.Td(html.Div(cell), className=f"col-{k}", **{"data-label": label})
            for k, label, cell in zip(COLUMNS, labels, cells, strict=True)
        ]
        rows.append(html.Tr(tds, className="plan-best-row" if i == 0 else "", id=f"plan-row-{i}"))
    caption = html.Caption(w("plan_table_caption", lang))
    return [
        html.Div(html.Table([caption, head, html.Tbody(rows)], className="plan-table"), className="plan-table-wrap")
    ]
