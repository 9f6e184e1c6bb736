"""The Serving page's numbers and how they are shown: the issue's scenario draws bound,
estimate, band and the shipped measured runs (the bound above every one of them in tokens/s
per user), each labelled bound, estimate or measured in traces, hovers, table and insight."""

import csv
import io
import json
import re
from dataclasses import replace

import pytest

from app.dashboard.lib.markup import LEGEND_LINE_UNITS, _display_width
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.callbacks import figures
from app.dashboard.pages.serving.compute import compute, cost_per_million, sweep
from app.dashboard.pages.serving.exports import (
    TITLE_LINE_PX,
    TITLE_LINE_UNITS,
    serving_csv,
    serving_html,
    serving_json,
)
from app.dashboard.pages.serving.figures import throughput_figure
from app.dashboard.pages.serving.insight import insight, regime
from app.dashboard.pages.serving.latency import latency_figure
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.provenance import provenance
from app.dashboard.pages.serving.state import export_name, link_of
from app.dashboard.pages.serving.table import table_rows

ISSUE = ServingArgs(model="meta-llama/Llama-3.1-70B", hardware=("h200-sxm",), backend="trtllm", precision="fp8")
CSS_SAFE = re.compile(r"^[a-z0-9_-]+$")


@pytest.fixture(scope="module")
def accs():
    return compute(ISSUE)


def test_the_issue_scenario_has_the_shipped_runs_and_the_bound_above_each(accs):
    (h200,) = accs
    assert h200.error is None and len(h200.measured) == 6
    for m in h200.measured:
        assert m.bound["tokens_per_s_per_user"] >= m.measured["tokens_per_s_per_user"]
        assert m.bound["tpot_s"] <= m.run.row.tpot_s
        assert m.run.row.scenario.tensor_parallel == 4 and m.run.row.backend == "trtllm"


def test_the_sweep_runs_from_one_past_the_memory_cap_with_the_chosen_concurrency():
    c = sweep(100, 48)
    assert c[0] == 1 and 100 in c and 48 in c and c[-1] >= 100 and c == sorted(set(c))


def test_the_throughput_chart_draws_the_three_with_css_safe_uids(accs):
    fig = throughput_figure(accs, ISSUE.concurrency, "en")
    uids = {t["uid"] for t in fig["data"]}
    for kind in ("bound", "estimate", "band", "measured", "chosen"):
        assert f"serving--h200-sxm--{kind}" in uids
    assert all(CSS_SAFE.match(u) for u in uids)
    measured = next(t for t in fig["data"] if t["uid"].endswith("--measured"))
    assert len(measured["x"]) == 6
    for wrapped, m in zip(measured["text"], accs[0].measured, strict=True):
        text = wrapped.replace("<br>", " ")  # its words, wrapped to a phone's chart
        assert SOURCE in text and "measured" in text and "TensorRT-LLM" in text and "1,024 tokens in" in text
        assert "estimate's error: TPOT +" in text or "estimate's error: TPOT -" in text
        # the run in words, never its raw id (issue 29 §5)
        assert m.run.row.id not in text and "measured 2025-" in text
    names = " ".join(t["name"] for t in fig["data"])
    assert "bound" in names and "estimate" in names and "measured" in names


def test_the_bound_line_is_above_the_estimate_everywhere(accs):
    (h200,) = accs
    for p in h200.points:
        assert p["bound"]["tokens_per_s_per_user"] >= p["estimate"]["tokens_per_s_per_user"]
        low, high = p["estimate"]["tpot_s_range"]
        assert p["bound"]["tpot_s"] <= low <= high


def test_a_what_if_name_is_slugged_into_a_css_safe_uid():
    a = ServingArgs(hardware=(), what_if=("h200-sxm-0.7xbw:2.352:989.4:141",))
    fig = throughput_figure(compute(a), a.concurrency, "en")
    assert all(CSS_SAFE.match(t["uid"]) for t in fig["data"])
    assert any(t["uid"] == "serving--h200-sxm-0-7xbw--bound" for t in fig["data"])


def test_the_latency_chart_marks_where_memory_caps_the_batch():
    a = ServingArgs(concurrency=4000)
    (h200,) = compute(a)
    fig = latency_figure((h200,), a.concurrency, "en")
    cap = next(t for t in fig["data"] if t["uid"] == "latency--h200-sxm--memory-cap")
    cap_batch = h200.chosen["breakdown"]["memory"]["max_running_batch"]  # TensorRT-LLM's rule: 1,890
    # its words, wrapped so that a phone's legend holds it (markup.LEGEND_LINE_UNITS)
    assert cap["name"].replace("<br>", " ") == f"H200 SXM 141GB · memory caps the batch at {cap_batch:,}"
    assert all(len(line) <= LEGEND_LINE_UNITS for line in cap["name"].split("<br>"))
    assert any(s["x0"] == h200.max_fits for s in fig["layout"]["shapes"])
    queued = next(t for t in fig["data"] if t["uid"] == "latency--h200-sxm--queued")
    assert max(queued["y"]) > 0 and queued["y"][0] == 0
    assert regime(h200.chosen) == "memory"


def test_two_gpus_say_their_memory_caps_in_the_legend_never_on_the_plot():
    """Issue 29 §4: with two GPUs the vertical labels printed over each other and the curves;
    the running batch and the queue had no legend entry."""
    a = ServingArgs(hardware=("h200-sxm", "b200"), concurrency=4000)
    fig = latency_figure(compute(a), a.concurrency, "en")
    assert fig["layout"]["annotations"] == []
    shown = {t["uid"] for t in fig["data"] if t.get("showlegend", True)}
    for hw in ("h200-sxm", "b200"):
        assert {f"latency--{hw}--running-batch", f"latency--{hw}--queued", f"latency--{hw}--memory-cap"} <= shown


@pytest.mark.parametrize("concurrency", [64, 4000])
def test_log_axes_label_whole_values_never_a_bare_minor_digit(concurrency):
    """Issue 29 §4: the axes read "5, 2, 1000, 5, 2, 100": each label is now the value at its
    tick (1, 2 and 5 of a decade over at most two decades, else the decades alone)."""
    a = ServingArgs(concurrency=concurrency)
    accs = compute(a)
    top, bottom = throughput_figure(accs, concurrency, "en"), latency_figure(accs, concurrency, "en")
    axes = [top["layout"]["xaxis"], top["layout"]["yaxis"], bottom["layout"]["xaxis"], bottom["layout"]["yaxis2"]]
    for axis in axes:
        assert axis["type"] == "log" and len(axis["tickvals"]) >= 2
        for value, text in zip(axis["tickvals"], axis["ticktext"], strict=True):
            assert float(text.replace(",", "")) == pytest.approx(value)
    assert bottom["layout"]["xaxis"]["tickvals"][:3] == [1.0, 10.0, 100.0]  # four decades: decades only
    # every point inside the plot with a margin, whatever size the figure is drawn at (the B200
    # bound ran off the exported image)
    for axis, key in ((top["layout"]["xaxis"], "x"), (top["layout"]["yaxis"], "y")):
        low, high = (10**v for v in axis["range"])
        values = [v for t in top["data"] for v in t[key]]
        assert axis["autorange"] is False and low < min(values) and max(values) < high


def test_the_table_labels_every_column_and_prices_a_million_tokens(accs):
    (h200,) = accs
    spec = table_rows(h200, 64, 2.0)
    assert [k for k, _ in spec["columns"]] == ["bound", "estimate", "measured"]
    metrics = [m for m, _ in spec["rows"]]
    assert metrics == ["ttft", "tpot", "gpu", "user", "cost"]
    assert "64" in str(spec["columns"][-1][1].run.row.scenario.concurrency)
    assert table_rows(h200, 64, None)["rows"][-1][0] == "user"


def test_cost_per_million_tokens():
    assert cost_per_million(3.6, 1000.0) == pytest.approx(1.0)
    assert cost_per_million(None, 1000.0) is None


def test_the_insight_names_the_regime_the_estimate_and_the_measured(accs):
    text = " ".join(str(p.children) for p in insight(accs, 64, "en"))
    assert "The estimate's TPOT" in text and "nearest measured run" in text
    zh = " ".join(str(p.children) for p in insight(accs, 64, "zh"))
    assert "上界" in zh and "估计" in zh and "实测" in zh


def test_the_insight_names_the_largest_part_of_the_step(accs):
    """Issue 29 §5: a step whose 6.36 ms fixed overhead is larger than its 4.91 ms decode was
    called "decode-bound"."""
    (h200,) = accs
    est = h200.chosen["breakdown"]["tpot"]["estimate"]
    assert est["overhead_s"] > est["decode_s"] and regime(h200.chosen) == "overhead"
    text = " ".join(str(p.children) for p in insight(accs, 64, "en"))
    assert "is bound by its fixed overhead per step" in text and "decode-bound" not in text
    overhead, decode = f"fixed overhead {est['overhead_s'] * 1e3:.3g} ms", f"decode {est['decode_s'] * 1e3:.3g} ms"
    assert text.index(overhead) < text.index(decode)  # largest first
    (r1,) = compute(replace(ISSUE, model="deepseek-ai/DeepSeek-R1", tensor_parallel=8))
    parts = r1.chosen["breakdown"]["tpot"]["estimate"]
    names = {"decode_s": "decode", "prefill_share_s": "prefill", "communication_s": "communication"}
    names["overhead_s"] = "overhead"
    assert regime(r1.chosen) == names[max(names, key=parts.get)]
    assert "受" in " ".join(str(p.children) for p in insight([r1], 64, "zh"))


def test_without_a_matching_run_the_nearest_shipped_ones_are_named_with_their_differences():
    """Issue 29 §5: no measured run matches at EP 8, and nothing said where runs exist."""
    a = replace(ISSUE, model="deepseek-ai/DeepSeek-R1", tensor_parallel=8, expert_parallel=8)
    (acc,) = compute(a)
    assert acc.measured == [] and acc.nearby
    text = " ".join(str(p.children) for p in insight([acc], 64, "en"))
    assert "The nearest shipped runs of this model differ in:" in text and "EP 1" in text
    assert "b200" not in text and "runs, concurrency" in text


def test_a_model_that_does_not_fit_says_why_where_the_chart_was_and_the_smallest_tp():
    """Issue 29 §5: DeepSeek-R1 at TP 4 left a blank grid with colliding ticks."""
    a = replace(ISSUE, model="deepseek-ai/DeepSeek-R1", tensor_parallel=4)
    accs = compute(a)
    for fig in (throughput_figure(accs, 64, "en"), latency_figure(accs, 64, "en")):
        assert fig["data"] == [] and fig["layout"]["xaxis"] == {"visible": False}
        assert fig["layout"]["paper_bgcolor"]  # the theme's, not a white sheet in the dark
        (note,) = fig["layout"]["annotations"]
        text = note["text"].replace("<br>", " ")
        assert "H200 SXM 141GB: at TP 4" in text and "the smallest TP that fits is TP 8" in text
        assert "h200-sxm" not in note["text"]
    both = compute(replace(a, hardware=("h200-sxm", "b200")))
    fig = throughput_figure(both, 64, "en")
    assert fig["data"] and "smallest TP that fits is TP 8" in fig["layout"]["annotations"][0]["text"]


def test_a_moe_models_insight_names_the_experts_own_compute_fraction(accs):
    """The estimate runs routed experts' grouped GEMMs at their own calibrated fraction: the
    sentence says it, formatted from the calibration the engine applied, and only for MoE."""
    (moe,) = compute(replace(ISSUE, model="Qwen/Qwen3-235B-A22B", hardware=("h100-sxm5",)))
    fraction = moe.chosen["calibration"]["parameters"]["expert_compute_efficiency"]
    text = " ".join(str(p.children) for p in insight([moe], 64, "en"))
    assert f"{fraction * 100:.0f}% in the routed experts' grouped GEMMs" in text
    zh = " ".join(str(p.children) for p in insight([moe], 64, "zh"))
    assert f"路由专家分组 GEMM 算力 {fraction * 100:.0f}%" in zh
    dense = " ".join(str(p.children) for p in insight(accs, 64, "en"))
    assert "routed experts" not in dense and "of compute)" in dense


def test_exports_carry_every_point_of_the_three_series_and_their_provenance(accs):
    prov = provenance(ISSUE, "en")
    text = serving_csv(accs, prov)
    assert "# calibration: calibration serving-v" in text and SOURCE in text
    rows = list(csv.DictReader(io.StringIO("\n".join(x for x in text.splitlines() if not x.startswith("#")))))
    series = {s: [r for r in rows if r["series"] == s] for s in ("bound", "estimate", "measured")}
    assert len(series["bound"]) == len(series["estimate"]) == len(accs[0].points)
    assert len(series["measured"]) == 6 and all(SOURCE in r["source"] for r in series["measured"])
    data = json.loads(serving_json(accs, prov))
    assert data["provenance"]["scenario"].startswith("meta-llama/Llama-3.1-70B") and len(data["points"]) == len(rows)
    page = serving_html([throughput_figure(accs, 64, "en")], prov, "?tab=serving")
    assert prov["calibration"] in page and SOURCE in page


def test_every_export_of_the_page_has_one_stem():
    """Issue 29 §4: `serving-llama-3.1-70b-h200-sxm,b200-c.png` beside `...-b200-c64.csv`."""
    a = replace(ISSUE, hardware=("h200-sxm", "b200"), what_if=("my card:1:2:3",))
    assert export_name(a) == "serving-llama-3.1-70b-h200-sxm+b200+my_card-c64"
    assert link_of(View(tab="serving"), a)["export"] == export_name(a)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_exported_image_keeps_its_title_whole(lang):
    """The image export's title: every provenance line wrapped to the export's width, and a top
    margin that holds them all (the title was clipped)."""
    a = replace(ISSUE, hardware=("h200-sxm", "b200"))
    top = figures(a, lang, "light", False)[0]
    patch = top["layout"]["meta"]["export"]
    lines = patch["title"]["text"].split("<br>")
    assert len(lines) >= 3 and all(_display_width(line) <= TITLE_LINE_UNITS for line in lines)
    assert patch["margin"]["t"] >= 24 + TITLE_LINE_PX * len(lines)
    assert "title" not in top["layout"]  # on the page the caption above the chart says it, and wraps


def test_the_provenance_states_the_shipped_calibrations_in_sample_error():
    """The v2 calibration nests its statistics by kind of run: the page said "TPOT median error nan%"."""
    from engine.serving import load_calibration

    stats = load_calibration().data["fit_statistics"]["in_sample"]["aggregated"]["tpot"]
    text = provenance(ISSUE, "en")["calibration"]
    assert "nan" not in text and f"median TPOT error {stats['median_abs_error'] * 100:.0f}% on the aggregated" in text
