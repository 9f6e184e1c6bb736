"""The Serving page's numbers and how they are shown: the issue's scenario draws bound,
estimate, band and the shipped measured runs (the bound above every one of them in tokens/s
per user), each labelled bound, estimate or measured in traces, hovers, table and insight."""

import csv
import io
import json
import re
from dataclasses import replace

import pytest

from app.dashboard.pages.serving.compute import compute, cost_per_million, sweep
from app.dashboard.pages.serving.exports import serving_csv, serving_html, serving_json
from app.dashboard.pages.serving.figures import throughput_figure
from app.dashboard.pages.serving.insight import insight, regime
from app.dashboard.pages.serving.latency import latency_figure
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.provenance import provenance
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
    for text in measured["text"]:
        assert SOURCE in text and "measured" in text and "trtllm" in text and "1,024 tokens in" in text
        assert "estimate's error: TPOT +" in text or "estimate's error: TPOT -" in text
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
    assert any("memory caps the batch at" in n["text"] for n in fig["layout"]["annotations"])
    queued = next(t for t in fig["data"] if t["uid"] == "latency--h200-sxm--queued")
    assert max(queued["y"]) > 0 and queued["y"][0] == 0
    assert regime(h200.chosen) == "memory"


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
    assert "decode-bound" in text and "The estimate's TPOT" in text and "nearest measured run" in text
    zh = " ".join(str(p.children) for p in insight(accs, 64, "zh"))
    assert "上界" in zh and "估计" in zh and "实测" in zh


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
    assert "# calibration: calibration serving-v1-" in text and SOURCE in text
    rows = list(csv.DictReader(io.StringIO("\n".join(x for x in text.splitlines() if not x.startswith("#")))))
    series = {s: [r for r in rows if r["series"] == s] for s in ("bound", "estimate", "measured")}
    assert len(series["bound"]) == len(series["estimate"]) == len(accs[0].points)
    assert len(series["measured"]) == 6 and all(SOURCE in r["source"] for r in series["measured"])
    data = json.loads(serving_json(accs, prov))
    assert data["provenance"]["scenario"].startswith("meta-llama/Llama-3.1-70B") and len(data["points"]) == len(rows)
    page = serving_html([throughput_figure(accs, 64, "en")], prov, "?tab=serving")
    assert prov["calibration"] in page and SOURCE in page
