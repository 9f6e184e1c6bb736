"""Figures, insight and URL state without a browser: data in, figure dicts out."""

import math
import re
import unicodedata

import pytest

from app.dashboard.components.plot_style import PALETTES, THEMES
from app.dashboard.lib.i18n import reason
from app.dashboard.lib.markup import HOVER_LINE_UNITS, plotly_text
from app.dashboard.pages.roofline.figures import X_RANGE, Y_RANGE, roofline_figure
from app.dashboard.pages.roofline.insight import insight_sentences
from app.dashboard.pages.roofline.marks import grid_payload
from app.dashboard.pages.roofline.panel_figures import memory_figure, throughput_figure
from app.dashboard.pages.roofline.rows import comparison_rows, ops_rows
from app.dashboard.pages.roofline.state import DEFAULT_HARDWARE, View, parse_query
from app.dashboard.shell import page
from app.service import dashboard_data, dashboard_grid
from app.units import duration
from engine.analysis import Scenario, analyze_one
from engine.hardware import get_accelerator
from engine.model_catalog import get_model

HW = ["h100-sxm5", "rtx-4090", "tpu-v5e"]


@pytest.fixture(scope="module")
def data():
    return dashboard_data("llama-3-8b", HW, Scenario(batch_size=32, context_length=4096))


def markup_columns(line: str) -> int:
    """Columns a hover line shows: tags take none, an entity one, a CJK character two."""
    shown = re.sub(r"&#?\w+;", "x", re.sub(r"<[^>]*>", "", line))
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in shown)


def by_uid(fig: dict) -> dict:
    return {t["uid"]: t for t in fig["data"]}


def hover_text(trace: dict) -> str:
    """What Plotly shows on hover of the first point: the template with its values put in."""
    text = trace["hovertemplate"].replace("%{hovertext}", (trace.get("hovertext") or [""])[0])
    for i, value in enumerate((trace.get("customdata") or [[]])[0]):
        text = text.replace(f"%{{customdata[{i}]}}", value)
    return text


def test_roofs_at_the_right_heights(data):
    results = data["analysis"]["results"]
    traces = by_uid(roofline_figure(results, data["trajectories"]))
    for r in results:
        hw = r["hardware_id"]
        memory, tensor = traces[f"roof--{hw}--memory"], traces[f"roof--{hw}--tensor"]
        # the memory slope is bandwidth x intensity and meets the tensor roof at the ridge
        assert memory["y"][0] == pytest.approx(memory["x"][0] * r["memory_bandwidth_bytes_per_s"])
        assert memory["x"][1] == pytest.approx(r["ridge_point"]) and memory["y"][1] == r["tensor_flops_per_s"]
        assert tensor["y"] == [r["tensor_flops_per_s"]] * 2
    # the vector roof, dashed, where the vendor publishes one (TPUs do not)
    assert traces["roof--h100-sxm5--vector"]["y"][0] == pytest.approx(133.8e12)
    assert traces["roof--h100-sxm5--vector"]["line"]["dash"] == "dash"
    assert "roof--tpu-v5e--vector" not in traces


def test_points_at_the_engine_intensities(data):
    results = data["analysis"]["results"]
    traces = by_uid(roofline_figure(results, data["trajectories"]))
    for r in results:
        hw = r["hardware_id"]
        assert traces[f"point--{hw}--decode"]["x"] == [r["decode"]["intensity"]]
        assert traces[f"point--{hw}--decode"]["y"] == [r["decode"]["attainable_flops_per_s"]]
        assert traces[f"point--{hw}--prefill"]["x"] == [r["prefill"]["intensity"]]
        att = next(o for o in r["decode"]["ops"] if o["name"] == "attention")
        assert traces[f"point--{hw}--attention_decode"]["x"][0] == pytest.approx(att["intensity"])
        # the elementwise ops: one trace a card, each point named in its text
        group = traces[f"point--{hw}--elementwise"]
        for name in ("attn_norm", "residual_add", "activation", "logits_softmax", "rope"):
            op = next(o for o in r["decode"]["ops"] if o["name"] == name)
            i = group["text"].index(name)
            assert group["x"][i] == op["intensity"]
            # elementwise ops sit under the vector roof
            assert group["y"][i] <= r["vector_flops_per_s"] * (1 + 1e-12)
        assert not any(u.startswith(f"point--{hw}--") and u.endswith(("--rope", "--residual_add")) for u in traces)
        # the trace is always there (stable uids); it is drawn only where one sequence fits. TPU
        # v5e: 0.9 x 16 GiB = 14.4 GiB < the 15 GiB of weights
        assert bool(traces[f"trajectory--{hw}"]["x"]) == (r["memory"]["max_batch_size"] >= 1)


def test_trajectory_stops_at_the_largest_batch_that_fits(data):
    traj = data["trajectories"]["h100-sxm5"]
    r = data["analysis"]["results"][0]
    assert traj["batch_size"][0] == 1 and traj["batch_size"][-1] == r["memory"]["max_batch_size"]
    assert all(traj["fits"])
    # the KV wall: at the largest batch, intensity is still far left of the ridge (Williams et al. 2009)
    assert traj["intensity"][-1] < r["ridge_point"] / 5


def test_axes_hold_every_reachable_point_and_colours_stable(data):
    """The axes cover every point the sliders can reach (the grid's extent), so they stay put
    while a slider moves and no point ever falls off the chart."""
    results = data["analysis"]["results"]
    scenario = Scenario(batch_size=32, context_length=4096)
    grid = grid_payload(dashboard_grid("llama-3-8b", HW, scenario), HW, "en")
    fig = roofline_figure(results, data["trajectories"], extent=grid["extent"])
    x0, x1 = fig["layout"]["xaxis"]["range"]
    y0, y1 = fig["layout"]["yaxis"]["range"]
    assert x0 <= math.log10(X_RANGE[0]) and x1 >= math.log10(X_RANGE[1]) and y0 <= math.log10(Y_RANGE[0])
    for stop in grid["stops"]:
        for x, y, _, _ in stop:
            for px, py in zip(*((x, y) if isinstance(x, list) else ([x], [y])), strict=True):  # a group: lists
                assert x0 < math.log10(px) < x1 and y0 < math.log10(py) < y1
    assert fig["layout"]["xaxis"]["autorange"] is False and fig["layout"]["uirevision"]
    assert by_uid(fig)["roof--rtx-4090--memory"]["line"]["color"] == PALETTES["light"][1]
    other = dashboard_data("llama-3-8b", HW, Scenario(batch_size=512, context_length=1024))
    fig2 = roofline_figure(other["analysis"]["results"], other["trajectories"], extent=grid["extent"])
    assert fig2["layout"]["xaxis"] == fig["layout"]["xaxis"] and fig2["layout"]["yaxis"] == fig["layout"]["yaxis"]


def test_grid_stop_equals_the_figure_at_that_stop():
    """What the browser draws from the grid at a stop is what the server draws there."""
    grid = grid_payload(dashboard_grid("mixtral-8x7b", HW, Scenario()), HW, "en")
    for batch, context in ((1, 128), (64, 8192), (1024, 1 << 20)):
        at = dashboard_data("mixtral-8x7b", HW, Scenario(batch_size=batch, context_length=context))
        fig = by_uid(roofline_figure(at["analysis"]["results"], at["trajectories"], extent=grid["extent"]))
        stop = grid["stops"][grid["batches"].index(batch) * len(grid["contexts"]) + grid["contexts"].index(context)]
        for uid, (x, y, values, fits) in zip(grid["uids"], stop, strict=True):
            if not isinstance(x, list):  # one point; a group (the elementwise ops) holds lists
                x, y, values = [x], [y], [values]
            assert fig[uid]["x"] == pytest.approx(x, rel=1e-12) and fig[uid]["y"] == pytest.approx(y, rel=1e-12)
            assert fig[uid]["customdata"] == values
            assert (fig[uid]["marker"]["color"] != "rgba(0,0,0,0)") == fits  # hollow where it does not fit
        assert {"point--h100-sxm5--elementwise", "point--h100-sxm5--decode"} <= set(grid["uids"])
        for uid, per_context in grid["trajectories"].items():
            xy = per_context[grid["contexts"].index(context)]
            assert fig[uid]["x"] == pytest.approx(xy[0], rel=1e-12) if xy else fig[uid]["x"] == []


def test_hover_in_human_units_and_chinese(data):
    results = data["analysis"]["results"]
    hover = hover_text(by_uid(roofline_figure(results, data["trajectories"]))["point--h100-sxm5--decode"])
    assert "GFLOP" in hover or "TFLOP" in hover
    assert "ms" in hover and "tokens/s" in hover and "memory-bound" in hover and "TFLOP/s at 16.8 FLOP/byte" in hover
    zh = hover_text(by_uid(roofline_figure(results, data["trajectories"], lang="zh"))["point--h100-sxm5--decode"])
    assert "算术强度" in zh and "受带宽限制" in zh


def test_memory_and_throughput(data):
    results = data["analysis"]["results"]
    mem = memory_figure(results)
    kv = next(t for t in mem["data"] if t["uid"] == "memory--kv_cache")
    assert kv["x"][0] == pytest.approx(results[0]["memory"]["kv_cache_bytes"] / 2**30)  # GiB, as nvidia-smi
    assert kv["marker"]["color"][1] == "#c62828"  # RTX 4090 does not fit: red
    # the card's capacity and the usable share a serving engine fills (vLLM's default 0.9), in GiB
    ticks = {t["uid"]: t for t in mem["data"] if t["type"] == "scatter"}
    assert ticks["memory--capacity"]["x"][0] == 80 and ticks["memory--usable"]["x"][0] == pytest.approx(72)
    assert ticks["memory--usable"]["name"] == "usable at 0.9" and "GiB" in mem["layout"]["xaxis"]["title"]["text"]
    thr = throughput_figure(data["throughput"], results)
    fits = next(t for t in thr["data"] if t["uid"] == "throughput--h100-sxm5--fits")
    over = next(t for t in thr["data"] if t["uid"] == "throughput--h100-sxm5--over")
    assert max(fits["x"]) <= results[0]["memory"]["max_batch_size"] < min(over["x"])
    assert over["line"]["dash"] == "dot"


def test_tables(data):
    results = data["analysis"]["results"]
    rows = ops_rows(results[0])
    assert sum(r["share"] for r in rows) == pytest.approx(1.0, abs=1e-3)
    assert {r["op"] for r in rows} >= {"attention", "q_proj", "lm_head"}
    comp = comparison_rows(results, data["ttft_alone_s"])
    assert comp[0]["decode"].endswith("(1.00x)") and "(0.30x)" in comp[1]["decode"]
    # one request alone: the engine's prefill at batch 1, next to the whole batch's prefill
    first = results[0]["hardware_id"]
    alone = analyze_one(get_model("llama-3-8b"), get_accelerator(first), Scenario(batch_size=1))["prefill"]["time_s"]
    assert data["ttft_alone_s"][first] == alone
    assert comp[0]["ttft1"] == f"{duration(alone)} (1.00x)" and comp[0]["ttft"].endswith("(1.00x)")
    # higher is better everywhere: a slower card's TTFT reads below 1x
    assert float(comp[1]["ttft1"].split("(")[1].rstrip("x)")) < 1


def insight(model: str, hardware: list[str], lang: str = "en", **scenario) -> str:
    data = dashboard_data(model, hardware, Scenario(**scenario))
    return " ".join(insight_sentences(data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], lang))


def test_insight_from_the_engine(data):
    text = " ".join(insight_sentences(data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], "en"))
    assert "H100 SXM5 80GB is memory-bound" in text
    # batch ~113: 0.9 of the card, vLLM's default (the whole card holds 129)
    assert "3,291 tokens/s" in text and "batch ~113" in text and "still far left of the ridge (295)" in text
    assert "the usable 72 GiB" in text
    zh = " ".join(insight_sentences(data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], "zh"))
    assert "带宽" in zh and "3,291" in zh and "此时仍远在脊点（295）左侧" in zh


def test_insight_weights_are_the_engines_weights_not_decode_bytes_minus_kv():
    """The first wave wrote decode bytes minus KV as "weights": 841 GB for an 8B model at batch 65,536."""
    # memory in GiB: 16.06e9 B of bf16 weights = 15 GiB, 8.03e9 B of fp8 = 7.48 GiB
    for scenario, weights in (({"batch_size": 65536}, "15 GiB"), ({"batch_size": 1024, "context_length": 128,
                              "weight_dtype": "fp8", "compute_dtype": "fp8"}, "7.48 GiB")):  # fmt: skip
        text = insight("llama-3-8b", ["h100-sxm5"], **scenario)
        assert f"The weights occupy {weights}." in text
        assert "841 GB" not in text


def test_insight_comparison_follows_the_regime():
    compute = insight("llama-3-8b", ["h100-sxm5", "b200"], batch_size=1024, context_length=128)
    assert "compute-bound" in compute and "follows memory bandwidth" not in compute
    assert "both are compute-bound here, so decode follows tensor FLOP/s" in compute
    memory = insight("llama-3-8b", ["h100-sxm5", "h200-sxm"], batch_size=32, context_length=4096)
    assert "both are memory-bound here, so decode follows memory bandwidth (4.8 TB/s against 3.35 TB/s)" in memory
    slower = insight("llama-3-8b", ["h200-sxm", "rtx-4090"], batch_size=1)
    assert "H200 SXM 141GB decodes fastest of those selected" in slower and "0.3" not in slower


def test_insight_names_what_overflows_and_the_way_out():
    text = insight("llama-3-8b", ["h100-sxm5"], batch_size=1024, context_length=1 << 20)
    assert "Out of memory on H100 SXM5 80GB: the KV cache of 1,024 sequences of 1,048,576 tokens" in text
    assert "The weights alone" not in text
    assert "At this batch the longest context that fits is" in text
    big = insight("llama-3-70b", ["rtx-4090"], batch_size=1, context_length=4096)
    # 141.1e9 B = 131 GiB of weights against 0.9 x 24 GiB
    assert "the weights alone (131 GiB) exceed the usable 21.6 GiB" in big and "tensor-parallel degree" in big.lower()
    zh = insight("llama-3-8b", ["h100-sxm5"], "zh", batch_size=1024, context_length=1 << 20)
    assert "显存不足" in zh and "放不下" not in zh


def test_url_state_valid_and_hostile():
    view = parse_query(
        {
            "hw": "rtx-4090,h100-sxm5",
            "model": "qwen2.5-7b-instruct",
            "batch": "64",
            "ctx": "8192",
            "kv": "4",
            "prec": "int4",
            "kvprec": "fp8",
            "fa": "0",
            "tp": "2",
            "lang": "zh",
            "theme": "dark",
            "embed": "1",
            "present": "1",
        }
    )
    assert view == View(
        hardware=("rtx-4090", "h100-sxm5"),
        model="qwen2.5-7b-instruct",
        batch=64,
        context=8192,
        kv_heads=4,
        precision="int4",
        kv_precision="fp8",
        flash_attention=False,
        tensor_parallel=2,
        lang="zh",
        theme="dark",
        embed=True,
        present=True,
    )
    assert not view.notices
    hostile = parse_query(
        {"batch": "<script>", "hw": "x,../../etc", "kv": "3", "tp": "3", "theme": "red", "zzz": "1", "ctx": "9" * 40}
    )
    assert hostile.hardware == DEFAULT_HARDWARE and hostile.batch == View().batch and hostile.kv_heads is None
    assert {n for n, _, _ in hostile.notices} == {"batch", "hw", "kv", "tp", "theme", "zzz", "ctx"}
    assert all(len(v) <= 40 for _, v, _ in hostile.notices)
    many = parse_query({"hw": "h100-sxm5,h200-sxm,b200,b300,gb200,l4,l40s,rtx-3090,rtx-4090,rtx-5090"})
    assert len(many.hardware) == 8 and many.notices[0][0] == "hw" and "at most 8" in reason(many.notices[0][2], "en")


def test_layout_has_stable_ids():
    tree = str(page(View(embed=True, lang="zh")))
    for element_id in (
        "hardware",
        "model",
        "batch-size",
        "batch-size-input",
        "context-length",
        "kv-heads",
        "precision",
        "kv-precision",
        "flash-attention",
        "tensor-parallel",
        "roofline-graph",
        "insight",
        "memory-graph",
        "throughput-graph",
        "ops-table",
        "comparison-table",
        "copy-link",
    ):
        assert f"id='{element_id}'" in tree
    assert "加速器" in tree and "embed" in tree


def test_measured_roofs_and_points_on_the_figure(tmp_path):
    from app.calibrate import calibrate_cpu, to_accelerator

    calibrated = to_accelerator(calibrate_cpu("small"), "h200-sxm-calibrated", base="h200-sxm")
    csv = "name,flops,bytes,time_s\nmy_gemv,1.2e11,3.8e9,1.6e-3\n"
    data = dashboard_data(
        "llama-3-8b",
        [calibrated, "h100-sxm5"],
        Scenario(batch_size=32),
        measured_step_time_s=0.0125,
        measurements={"format": "csv", "content": csv},
    )
    results = data["analysis"]["results"]
    traces = by_uid(roofline_figure(results, data["trajectories"], measured_points=data["measured_points"]))
    m = results[0]["measured_roofs"]
    assert traces["roof--h200-sxm-calibrated--memory-measured"]["line"]["dash"] == "dot"
    assert traces["roof--h200-sxm-calibrated--tensor-measured"]["y"][0] == m["tensor_flops_per_s"]
    assert traces["roof--h200-sxm-calibrated--tensor"]["y"][0] == 989.4e12  # the datasheet roof stays
    star = traces["measured--h200-sxm-calibrated--decode"]
    assert star["x"] == [results[0]["decode"]["intensity"]]
    assert star["y"][0] == pytest.approx(results[0]["decode"]["flops"] / 0.0125)
    assert "MBU" in hover_text(star)
    # rows with their own counts: one trace, drawn once (user-supplied names never go into a uid)
    point = traces["measured--h200-sxm-calibrated--imported"]
    assert point["x"][0] == pytest.approx(1.2e11 / 3.8e9) and "of the roof" in hover_text(point)
    assert "my_gemv" in hover_text(point)
    # the measured step belongs to the first accelerator only (imported rows too, unless "measured on" names another)
    assert "measured--h100-sxm5--decode" not in traces and "roof--h100-sxm5--memory-measured" not in traces
    text = " ".join(insight_sentences(data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], "en"))
    assert "MBU" in text and "MFU" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_imported_kernels_long_name_wraps_in_its_hover(lang):
    # a profiler's templated kernel name, at the 120 characters an import keeps, without a space
    name = ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_nn_align8>" * 2)[:120]
    csv = f'name,flops,bytes,time_s\n"{name}",1.2e11,3.8e9,1.6e-3\n'
    data = dashboard_data(
        "llama-3-8b", ["h100-sxm5"], Scenario(batch_size=32), measurements={"format": "csv", "content": csv}
    )
    results = data["analysis"]["results"]
    fig = roofline_figure(results, data["trajectories"], lang, measured_points=data["measured_points"])
    point = by_uid(fig)["measured--h100-sxm5--imported"]
    text = hover_text(point)
    lines = text.removesuffix("<extra></extra>").split("<br>")
    assert len(lines) >= 6 and all(markup_columns(line) <= HOVER_LINE_UNITS for line in lines), lines
    # the whole name is there, inert, across its lines (a tag-like "<" is drawn, never parsed)
    assert "".join(lines).replace("<b>", "").replace("</b>", "").startswith(plotly_text(name)[:100])


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two #rrggbb colours."""

    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_chart_colour_meets_wcag_on_its_theme():
    """Accelerator colours are graphics (>= 3:1); the danger red labels a bar in text (>= 4.5:1)."""
    for theme, palette in PALETTES.items():
        paper = THEMES[theme]["paper"]
        assert all(contrast(c, paper) >= 3 for c in palette), [(c, round(contrast(c, paper), 2)) for c in palette]
        assert contrast(THEMES[theme]["danger"], paper) >= 4.5
        assert contrast(THEMES[theme]["muted"], paper) >= 4.5


def test_a_card_keeps_its_colour_when_another_is_removed():
    """Coloured by place in the selection, removing H100 turned H200 blue and B200 orange
    mid-demo; each card now keeps its own (plot_style.card_slots)."""
    scenario = Scenario(batch_size=32, context_length=4096)

    def colours(hardware: list[str]) -> dict[str, str]:
        d = dashboard_data("llama-3-8b", hardware, scenario)
        fig = by_uid(roofline_figure(d["analysis"]["results"], d["trajectories"]))
        return {hw: fig[f"roof--{hw}--memory"]["line"]["color"] for hw in hardware}

    three = colours(["h100-sxm5", "h200-sxm", "b200"])
    assert len(set(three.values())) == 3
    assert colours(["h200-sxm", "b200"]) == {hw: three[hw] for hw in ("h200-sxm", "b200")}
    assert colours(["b200", "h100-sxm5"]) == {hw: three[hw] for hw in ("b200", "h100-sxm5")}


def test_the_memory_chart_writes_max_batch_with_separators():
    """It read "max batch 2814" while the rest of the page wrote "2,814"."""
    d = dashboard_data("llama-3-8b", ["h200-sxm"], Scenario(batch_size=1, context_length=128, weight_dtype="fp8",
                                                           kv_dtype="fp8", compute_dtype="fp8"))  # fmt: skip
    text = str(memory_figure(d["analysis"]["results"]))
    assert re.search(r"max batch \d{1,3}(,\d{3})+", text) and not re.search(r"max batch \d{4}", text)
