"""The training lab's panels: the utilisation table, the memory bars and the all-reduce table.

Formatting only: every number shown is a field of engine/training.py's result (the same dict
POST /api/v1/training answers), put into words and units here (app/units.py, no scientific
notation). Nothing is computed again.
"""

from __future__ import annotations

from dash import html

from app.dashboard.components.plot_style import THEMES, base_layout, foot_legend
from app.dashboard.lib.i18n import t
from app.dashboard.lib.markup import hover_box
from app.units import duration, grouped, memory, plain, si
from engine.hardware import get_accelerator

GIB = 2**30

# The four counting choices (PaLM appendix B; Korthikanti et al. 2022 for HFU), lowest first.
UTIL_ROWS = ("mfu", "mfu_with_attention", "hfu", "mfu_sparse_peak")
# (key, field of the engine's memory bill, colour): the stacked parts of one GPU's memory.
MEMORY_PARTS = (
    ("weights", "weights_bytes", "#0072B2"),
    ("gradients", "gradients_bytes", "#56B4E9"),
    ("optimizer", "optimizer_bytes", "#CC79A7"),
    ("activations", "activation_bytes", "#009E73"),
)


def pct(fraction: float) -> str:
    """0.38214 -> '38.2%', 0.51 -> '51.0%' (one decimal, as utilisation is usually quoted); 0.00748 -> '0.748%'."""
    percent = fraction * 100
    return f"{percent:,.1f}%" if abs(percent) >= 1 else f"{plain(percent)}%"


def change_words(option: dict, setup: dict, lang: str) -> str:
    """The knobs a fix changes, in the page's language (the engine's `change`, translated)."""
    parts = []
    if option["zero_stage"] != setup["zero_stage"]:
        parts.append(t("lab_train_change_zero", lang, z=option["zero_stage"]))
    if option["recompute"] != setup["recompute"]:
        parts.append(t("lab_train_change_rc", lang, rc=t(f"lab_train_rc_{option['recompute']}", lang)))
    if option["micro_batch_size"] != setup["micro_batch_size"]:
        parts.append(t("lab_train_change_mb", lang, mb=option["micro_batch_size"], k=option["accumulation_steps"]))
    return t("lab_train_sep", lang).join(parts)


# ---- (1) utilisation ---------------------------------------------------------------------------
def _counted(key: str, r: dict, vendor: str, hw_name: str, lang: str) -> str:
    s = r["setup"]
    over = t("lab_train_over", lang, gpus=s["gpus"], peak=si(r["peak_flops_per_s"], "FLOP/s"), dtype=r["peak_dtype"])
    dense, attn = si(r["model_flops_per_token"], "FLOP"), si(r["attention_flops_per_token"], "FLOP")
    if key == "mfu":
        return t("lab_train_counted_mfu", lang, dense=dense) + " " + over
    if key == "mfu_with_attention":
        return t("lab_train_counted_attn", lang, dense=dense, attn=attn, seq=grouped(s["sequence_length"])) + " " + over
    if key == "hfu":
        text = t(f"lab_train_counted_hfu_{s['recompute']}", lang, re=si(r["recompute_flops_per_token"], "FLOP"))
        return text + " " + over
    if r["sparse_peak_flops_per_s"] is None:
        return t("lab_train_counted_nosparse", lang, vendor=vendor, hw=hw_name)
    return t("lab_train_counted_sparse", lang, gpus=s["gpus"], peak=si(r["sparse_peak_flops_per_s"], "FLOP/s"))


def utilisation_panel(r: dict, vendor: str, hw_name: str, lang: str) -> list:
    """The four utilisation figures side by side, what each counted, and their spread."""
    s = r["setup"]
    values = [r[key] for key in UTIL_ROWS if r[key] is not None]
    spread = t("lab_train_spread", lang, k=len(values), low=pct(min(values)), high=pct(max(values)))
    rows = []
    for key in UTIL_ROWS:
        name = [html.Span(t(f"lab_train_row_{key}", lang))]
        if key == "mfu_sparse_peak":
            name.append(html.Span(t("lab_train_misleading", lang), className="train-tag"))
        value = "—" if r[key] is None else pct(r[key])
        rows.append(
            html.Tr(
                [
                    html.Th(name, scope="row"),
                    html.Td(value, className="train-num"),
                    html.Td(_counted(key, r, vendor, hw_name, lang), className="train-counted"),
                ],
                id=f"train-util-{key.replace('_', '-')}",
                className="train-misleading" if key == "mfu_sparse_peak" else "",
            )
        )
    table = html.Table(
        [
            html.Thead(
                html.Tr(
                    [
                        html.Th(t("lab_train_col_counting", lang), scope="col"),
                        html.Th(t("lab_train_col_value", lang), scope="col"),
                        html.Th(t("lab_train_col_counted", lang), scope="col"),
                    ]
                )
            ),
            html.Tbody(rows),
        ],
        id="train-util-table",
        className="train-table",
    )
    n_seqs, k = s["sequences_per_gpu"], s["accumulation_steps"]
    scope = t(
        "lab_train_scope",
        lang,
        gpus=s["gpus"],
        hw=hw_name,
        tps=grouped(r["tokens_per_s"]),
        step=duration(r["step_time_s"]),
        # "1 sequence", "1 accumulation step": never a plural on one
        seqs=t("n_sequences_one" if n_seqs == 1 else "n_sequences", lang, n=grouped(n_seqs)),
        seq=grouped(s["sequence_length"]),
        mb=grouped(s["micro_batch_size"]),
        acc=t("n_accumulation_one" if k == 1 else "n_accumulation", lang, n=grouped(k)),
    )
    impossible = [html.P(t("lab_train_impossible", lang), className="error", role="alert")] if r["mfu"] > 1 else []
    return [
        *impossible,
        html.P(spread, id="train-spread", className="train-spread"),
        table,
        html.P(t("lab_train_hfu_attn_note", lang, v=pct(r["hfu_with_attention"])), className="help"),
        html.P(scope, id="train-scope", className="help"),
        html.P(dtype_words(r, hw_name, lang), id="train-dtype-note", className="help"),
    ]


def dtype_words(r: dict, hw_name: str, lang: str) -> str:
    """Why the bf16/fp16 toggle moves a number or not: both store 2 bytes, so only the dense
    peak can differ, and on most tensor-core chips it does not (engine.training.dtype_note)."""
    hw = get_accelerator(r["hardware_id"])
    dtype = r["setup"]["dtype"]
    other = "fp16" if dtype == "bf16" else "bf16"
    (used, peak), (_, other_peak) = hw.tensor_roof(dtype), hw.tensor_roof(other)
    if used != dtype:
        key = "lab_train_dtype_fallback"
    else:
        key = "lab_train_dtype_same" if peak == other_peak else "lab_train_dtype_differs"
    return t(key, lang, dtype=dtype, other=other, hw=hw_name, used=used, peak=si(peak, "FLOP/s"),
             other_peak=si(other_peak, "FLOP/s"))  # fmt: skip


# ---- (2) memory --------------------------------------------------------------------------------
def memory_figure(bill: dict, fix_bill: dict | None, lang: str, theme: str = "light", present: bool = False) -> dict:
    """Stacked bars of one GPU's memory (model states by part, then activations) for this run
    and, when it does not fit, for the smallest change that does; the card's capacity as a
    dashed line."""
    colors = THEMES.get(theme, THEMES["light"])
    rows = [(t("lab_train_mem_this_run", lang), bill)]
    if fix_bill is not None:
        rows.append((t("lab_train_mem_fix_row", lang), fix_bill))
    names = [
        label
        if b["fits"]
        else f"{label}<br><span style='color:{colors['danger']}'>{t('lab_train_does_not_fit', lang)}</span>"
        for label, b in rows
    ]
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "uid": f"train-memory-{key}",
            "name": t(f"lab_train_mem_{key}", lang),
            "y": names,
            "x": [b[field] / GIB for _, b in rows],  # GiB, as nvidia-smi and an "80GB" card mean them
            "marker": {"color": color},
            "hovertemplate": hover_box(f"{t(f'lab_train_mem_{key}', lang)} %{{x:.3~g}} GiB"),
        }
        for key, field, color in MEMORY_PARTS
    ]
    capacity = bill["capacity_bytes"] / GIB
    colors = THEMES.get(theme, THEMES["light"])
    layout = base_layout(lang, theme, present)
    layout.update(
        {
            "barmode": "stack",
            "margin": {"l": 110, "r": 20, "t": 30, "b": 95},
            "legend": foot_legend(present, traceorder="normal"),
            "xaxis": {
                "title": {"text": t("lab_train_bytes_axis", lang)},
                "gridcolor": colors["grid"],
                "tickformat": "~g",
                "range": [0, max([capacity] + [b["total_bytes"] / GIB for _, b in rows]) * 1.05],
                "fixedrange": True,
            },
            "yaxis": {"autorange": "reversed", "automargin": True, "fixedrange": True},
            "shapes": [
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": capacity,
                    "x1": capacity,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": colors["danger"], "width": 3, "dash": "dash"},
                }
            ],
            "annotations": [
                {
                    "x": capacity,
                    "xref": "x",
                    "y": 1,
                    "yref": "paper",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "text": t("lab_train_capacity", lang, cap=memory(bill["capacity_bytes"])),
                    "font": {"color": colors["danger"]},
                }
            ],
            "height": 190 + (80 if present else 50) * len(rows),
        }
    )
    return {"data": data, "layout": layout}


def memory_text(r: dict, hw_name: str, lang: str) -> list:
    """The verdict (fits, or which part overflows), the smallest change that fits and the
    other changes, and how activations were counted."""
    bill, s = r["memory"], r["setup"]
    cap, states, act = (
        memory(bill["capacity_bytes"]),
        memory(bill["model_state_bytes"]),
        memory(bill["activation_bytes"]),
    )
    total = memory(bill["total_bytes"])
    out = []
    if bill["fits"]:
        out.append(html.P(t("lab_train_fits", lang, total=total, cap=cap, states=states, act=act), id="train-verdict"))
    else:
        if bill["overflow"].startswith("model_states"):
            biggest = bill["overflow"].split("(", 1)[1].split(" ", 1)[0]  # "model_states (optimizer largest)"
            words = t(
                "lab_train_over_states",
                lang,
                states=states,
                cap=cap,
                hw=hw_name,
                biggest=t(f"lab_train_mem_{biggest}", lang),
            )
        else:
            words = t("lab_train_over_acts", lang, states=states, act=act, total=total, cap=cap)
        out.append(html.P(words, id="train-verdict", className="train-overflow", role="alert"))
        if r["smallest_fix"] is not None:
            fix = r["smallest_fix"]
            out.append(
                html.P(
                    t(
                        "lab_train_fix",
                        lang,
                        change=change_words(fix, s, lang),
                        extra=_extra(fix["estimated_extra_time_s"], lang),
                        total=memory(fix["total_bytes"]),
                    ),
                    id="train-fix",
                    className="train-fix",
                )
            )
            out.append(_fixes_table(r["fixes"], s, lang))
        else:
            out.append(html.P(t("lab_train_fix_note", lang), id="train-fix", className="train-fix"))
    workspace = bill["recompute_workspace_bytes"]
    out.append(
        html.P(
            t(
                "lab_train_act_note",
                lang,
                per_layer=memory(bill["activation_bytes_per_layer"]),
                layers=r["model"]["num_layers"],
                mb=s["micro_batch_size"],
                rc=t(f"lab_train_rc_{s['recompute']}", lang),
            )
            + (t("lab_train_workspace", lang, ws=memory(workspace)) if workspace else ""),
            className="help",
        )
    )
    return out


def _extra(seconds: float, lang: str) -> str:
    return duration(seconds) if seconds > 0 else t("lab_train_no_extra", lang)


def _fixes_table(fixes: list[dict], setup: dict, lang: str) -> html.Table:
    head = html.Tr(
        [
            html.Th(t("lab_train_col_change", lang), scope="col"),
            html.Th(t("lab_train_col_per_gpu", lang), scope="col"),
            html.Th(t("lab_train_col_extra", lang), scope="col"),
        ]
    )
    body = [
        html.Tr(
            [
                html.Td(change_words(f, setup, lang)),
                html.Td(memory(f["total_bytes"]), className="train-num"),
                html.Td(_extra(f["estimated_extra_time_s"], lang), className="train-num"),
            ]
        )
        for f in fixes
    ]
    return html.Table(
        [html.Caption(t("lab_train_fixes_title", lang)), html.Thead(head), html.Tbody(body)],
        id="train-fixes",
        className="train-table",
    )


# ---- (3) the gradient all-reduce -------------------------------------------------------------------
def _share_bar(fraction: float) -> html.Div:
    width = f"{min(max(fraction, 0.0), 1.0) * 100:.2f}%"
    return html.Div(html.Div(className="train-share-fill", style={"width": width}), className="train-share-bar")


def comm_panel(r: dict, busbw_given: bool, lang: str, shares: bool = True) -> list:
    """The ring all-reduce of the gradients: size, busbw and its source, time per optimizer
    step, its share of the step (the no-overlap upper bound), without no_sync, the ZeRO
    stage's traffic. Without a measured step (`shares` False) the shares are not known: "—"."""
    s = r["setup"]
    if r["bus_bandwidth_bytes_per_s"] is None:
        return [html.P(t("lab_train_one_gpu", lang), id="train-comm-none")]
    if busbw_given:
        source = t("lab_train_busbw_given", lang)
    else:
        source = t("lab_train_busbw_link", lang, source=r["bus_bandwidth_source"])
    rows = [
        (t("lab_train_comm_grads", lang), si(r["gradient_bytes"], "B"), None),
        (t("lab_train_comm_busbw", lang, source=source), si(r["bus_bandwidth_bytes_per_s"], "B/s"), None),
        (t("lab_train_comm_time", lang, gpus=s["gpus"]), duration(r["allreduce_time_s"]), None),
        (t("lab_train_comm_share", lang), pct(r["allreduce_share_of_step"]), r["allreduce_share_of_step"]),
    ]
    if not shares:
        rows[-1] = (rows[-1][0], "—", None)
    if r["accumulation_steps"] > 1:
        rows.append(
            (
                t("lab_train_comm_nosync", lang, k=r["accumulation_steps"]),
                duration(r["allreduce_time_without_no_sync_s"]),
                None,
            )
        )
    if s["zero_stage"] > 0:
        rows.append(
            (
                t("lab_train_comm_zero", lang, z=s["zero_stage"]),
                f"{duration(r['zero_communication_time_s'])} · {pct(r['zero_communication_share_of_step'])}"
                if shares
                else duration(r["zero_communication_time_s"]),
                r["zero_communication_share_of_step"] if shares else None,
            )
        )
    rows.append((t("lab_train_comm_compute", lang), duration(r["compute_time_lower_bound_s"]), None))
    table = html.Table(
        html.Tbody(
            [
                html.Tr(
                    [
                        html.Th(label, scope="row"),
                        html.Td([value] + ([_share_bar(share)] if share is not None else []), className="train-num"),
                    ]
                )
                for label, value, share in rows
            ]
        ),
        id="train-comm-table",
        className="train-table",
    )
    return [table, html.P(t("lab_train_comm_scope", lang), className="help")]
