"""The op lab (tab=ops): the link -> state parser (hostile values included), the canonical
query, the figure and tables built from the engine's numbers (the teaching examples), and
what-if accelerators (`xhw=`, a self-test card with ridge 250) in the link and the controls."""

import math
import re

import pytest
from dash import no_update

from app.dashboard.lib.i18n import STRINGS, reason
from app.dashboard.lib.params import shown
from app.dashboard.pages.ops import callbacks as ops_callbacks
from app.dashboard.pages.ops import layout as ops_layout
from app.dashboard.pages.ops.callbacks import add_what_if, update
from app.dashboard.pages.ops.compute import compute
from app.dashboard.pages.ops.controls_state import control_values, from_controls
from app.dashboard.pages.ops.params import PARAMS, fields_of
from app.dashboard.pages.ops.state import OpsState, lab_query, parse_args, spec_of
from app.dashboard.pages.ops.tables import results_table, views_table
from app.dashboard.pages.roofline.state import View, view_from_search
from app.dashboard.shell import page as any_page
from engine.hardware import catalogue, get_accelerator
from engine.oplab import GemmSpec, lab
from engine.what_if import FORMAT, parse_what_if
from tests.dashboard.components import walk

UID_SAFE = re.compile(r"^[a-z0-9_-]+$")
SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def text_of(component) -> str:
    """Every string a Dash component tree shows, space-joined."""
    if component is None or isinstance(component, bool):
        return ""
    if isinstance(component, (str, int, float)):
        return str(component)
    if isinstance(component, (list, tuple)):
        return " ".join(text_of(c) for c in component)
    return text_of(getattr(component, "children", None))


def ids_of(component) -> set[str]:
    out = set()
    if isinstance(component, (list, tuple)):
        for c in component:
            out |= ids_of(c)
        return out
    if component is None or isinstance(component, (str, int, float, bool)):
        return out
    if isinstance(getattr(component, "id", None), str):
        out.add(component.id)
    return out | ids_of(getattr(component, "children", None))


def lab_page(query: str):
    return ops_layout.page(view_from_search(query))


def points(figure: dict) -> dict[str, dict]:
    return {tr["uid"]: tr for tr in figure["data"] if tr["uid"].startswith("op--")}


def state_of(query: str) -> tuple[OpsState, list]:
    return parse_args(view_from_search(query).lab_args)


# ---- the link -----------------------------------------------------------------------------


def test_the_issue_link_is_parsed_and_written_back():
    query = "tab=ops&op=gemm&m=4096&n=4096&k=4096&hw=h100-sxm5"
    view = view_from_search(query)
    state, notices = parse_args(view.lab_args)
    assert notices == []
    assert (state.op, state.m, state.n, state.k, state.dtype) == ("gemm", 4096, 4096, 4096, "bf16")
    assert view.hardware == ("h100-sxm5",)
    assert lab_query(view, state, view.hardware)["template"] == (
        "tab=ops&op=gemm&m=4096&n=4096&k=4096&dtype=bf16&model=llama-3.1-70b&hw=h100-sxm5&lang=en&theme=light"
    )


@pytest.mark.parametrize(
    "query",
    [
        "tab=ops&op=conv2d&batch=8&height=28&width=28&cin=64&cout=128&kernel=5&stride=2&padding=2&groups=1&dtype=fp16",
        "tab=ops&op=elementwise&shape=8,1024&ops=add,silu,rmsnorm&count=3&fused=1&dtype=fp32&overhead_us=2.5",
        "tab=ops&op=gemm&m=1&n=4096&k=4096&tile=128x256x64&bias=1&act=gelu&fused=1&dtype=fp8",
        "tab=ops&op=teaching&model=llama-3-8b",
    ],
)
def test_canonical_query_round_trips(query):
    view = view_from_search(query + "&hw=rtx-4090")
    state, notices = parse_args(view.lab_args)
    assert notices == []
    again = view_from_search(lab_query(view, state, view.hardware)["template"])
    assert parse_args(again.lab_args) == (state, [])
    assert again.hardware == ("rtx-4090",)


def test_links_written_before_the_rename_still_open_the_teaching_chart():
    # `seed000` was the teaching chart's name in links written before it was renamed
    for query in ("tab=ops&op=seed000", "tab=ops&preset=seed000"):
        view = view_from_search(query + "&hw=h100-sxm5")
        state, notices = parse_args(view.lab_args, view.hardware)
        assert (state.op, notices) == ("teaching", [])
        assert lab_query(view, state, view.hardware)["template"].startswith("tab=ops&op=teaching&model=llama-3.1-70b&")


def test_preset_expands_then_fields_override():
    state, notices = state_of("tab=ops&preset=chain-10&count=4")
    assert notices == []
    assert (state.op, state.shape, state.ops, state.count, state.fused) == (
        "elementwise",
        (32, 2048, 4096),
        ("scale",),
        4,
        False,
    )
    assert state_of("tab=ops&preset=tiny-add")[0].overhead_us == 5
    assert state_of("tab=ops&preset=gemm-bias-silu")[0].fused  # the engine's default: fused epilogue
    assert state_of("tab=ops&preset=teaching")[0].op == "teaching"
    decode = state_of("tab=ops&model=llama-3-8b&preset=decode-k_proj")[0]
    assert (decode.m, decode.n, decode.k) == (1, 1024, 4096)  # 8 KV heads x 128


HOSTILE = [
    ("m", "-1"),
    ("m", "0"),
    ("m", "1e9"),
    ("m", "99999999999999999999999"),
    ("m", "٣"),  # a digit, not an ASCII one
    ("n", "nan"),
    ("k", ""),
    ("op", "<script>alert(1)</script>"),
    ("dtype", "fp99"),
    ("tile", "9x9x9x9"),
    ("tile", "99999x1"),
    ("tile", "x"),
    ("shape", "0,1"),
    ("shape", ",".join(["2"] * 9)),
    ("shape", "1099511627776,2"),
    ("ops", "evil,%00"),
    ("ops", ""),
    ("count", "100000"),
    ("overhead_us", "nan"),
    ("overhead_us", "inf"),
    ("overhead_us", "-1"),
    ("overhead_us", "1" * 30),
    ("bias", "yes"),
    ("fused", "2"),
    ("act", "relu"),
    ("model", "../../etc/passwd"),
    ("preset", "nope"),
    ("groups", "0"),
    ("x" * 500, "y" * 500),
]


@pytest.mark.parametrize(("name", "value"), HOSTILE)
def test_hostile_values_are_ignored_with_a_notice(name, value):
    state, notices = parse_args([("op", "gemm"), (name, value)] if name != "op" else [(name, value)])
    assert notices, (name, value)
    assert all(len(n) <= 40 and len(v) <= 40 for n, v, _ in notices)
    spec_of(state)  # still a valid op
    page = ops_layout.page(View(tab="ops", lab_args=((name, value),)))
    assert name[:40] in text_of(page)  # the notice names the parameter


def test_fields_that_disagree_fall_back_with_the_engine_reason():
    # 100 in-channels are not divisible by 3 groups: the engine says so, the view is the default conv
    state, notices = state_of("tab=ops&op=conv2d&cin=100&groups=3")
    assert state.op == "conv2d" and state.groups == OpsState.groups
    assert any("divisible" in reason(why, "en") for _, _, why in notices)
    assert any("整除" in reason(why, "zh") for _, _, why in notices)  # conv2d's errors, in Chinese too
    # 32 ops x 1000 repeats is more kernels than the engine accepts
    state, notices = state_of("tab=ops&op=elementwise&ops=" + ",".join(["add"] * 32) + "&count=1000")
    assert state.count == OpsState.count and notices
    # fp32 is a value dtype of elementwise chains only
    state, notices = state_of("tab=ops&op=gemm&dtype=fp32")
    assert state.dtype == "bf16" and notices


def controls_of(state: OpsState, hardware=("h100-sxm5",)) -> dict:
    """What the browser sends for a state: every control's value, keyed "id.prop"."""
    return shown(PARAMS, state) | {"lab-hardware.value": list(hardware)}


def test_controls_pass_the_same_checks_and_never_raise():
    good = controls_of(OpsState(m=4096, n=4096, k=4096)) | {"lab-n.value": 4096.0}
    state, hardware, refusals = from_controls(good)
    assert (state.m, state.n, hardware, refusals) == (4096, 4096, ("h100-sxm5",), [])
    for bad in (None, True, float("nan"), float("inf"), -5, 2.5, {"a": 1}, [1, 2], "x" * 10_000, 10**30):
        for name in good:
            state, hardware, _ = from_controls(good | {name: bad})
            spec_of(state)
            assert 1 <= len(hardware) <= 8
    ids = list(catalogue())[:10]
    _, hardware, refusals = from_controls(good | {"lab-hardware.value": ids})
    assert hardware == tuple(ids[:8]) and refusals


@pytest.mark.parametrize(
    "query",
    [
        "tab=ops&op=conv2d&batch=8&height=28&width=28&cin=64&cout=128&kernel=5&stride=2&padding=2&dtype=fp16",
        "tab=ops&op=elementwise&shape=8,1024&ops=add,silu&count=3&fused=1&dtype=fp32&overhead_us=2.5",
        "tab=ops&op=gemm&m=1&n=4096&k=4096&tile=128x256x64&bias=1&act=gelu&fused=1&dtype=fp8&xhw=selftest:2:500",
        "tab=ops&op=teaching&model=llama-3-8b",
    ],
)
def test_the_controls_first_values_read_back_to_the_same_state(query):
    state, notices = state_of(query)
    assert notices == []
    assert from_controls(controls_of(state)) == (state, ("h100-sxm5",), [])


def test_every_field_of_the_state_is_one_row_of_the_table():
    names = [p.name for p in PARAMS]
    assert len(names) == len(set(names))
    assert sorted(p.field for p in PARAMS) == sorted(f for f in OpsState.__dataclass_fields__)
    # the engine's spec is built from the rows: the conv's own fields, in the link's names
    assert fields_of("conv2d") == ("batch", "height", "width", "cin", "cout", "kernel", "stride", "padding", "groups")
    spec = spec_of(state_of("tab=ops&preset=gemm-bias-silu&tile=64x64")[0])
    assert (spec.m, spec.activation, spec.bias, spec.fused_epilogue, spec.tile) == (
        8192,
        "silu",
        True,
        True,
        (64, 64, 64),
    )


def test_a_typed_value_is_refused_in_the_box_s_words_and_the_view_stays():
    before = OpsState(m=4096)
    link = {"template": lab_query(View(tab="ops"), before, ("h100-sxm5",))["template"]}
    out = update(controls_of(before) | {"lab-m.value": 0}, {"lang": "en"}, {}, link)
    assert text_of(out["status"]) == "M must be 1–16,777,216 (you typed 0); still showing 4,096."
    assert "&m=4096&" in out["link"]["template"] and out["status_hidden"] is False
    zh = update(controls_of(before) | {"lab-m.value": 0}, {"lang": "zh"}, {}, link)
    assert text_of(zh["status"]) == "M 须为 1–16,777,216（你输入了 0）；仍显示 4,096。"
    out = update(controls_of(before) | {"lab-overhead.value": -1, "lab-k.value": None}, {"lang": "en"}, {}, link)
    said = text_of(out["status"])
    assert "Launch overhead per kernel (µs) must be 0–10,000 (you typed -1); still showing 0." in said
    assert "K must be 1–16,777,216 (you typed —); still showing 4,096." not in said  # K was 8,192
    assert "K must be 1–16,777,216 (you typed —); still showing 8,192." in said
    assert "None" not in said and "URL" not in said
    out = update(controls_of(before) | {"lab-tile.value": "9x9x9x9"}, {"lang": "en"}, {}, link)
    assert text_of(out["status"]).startswith("Tile view (MxN or MxNxK): a tile MxN or MxNxK with sides 1–4,096")
    # fields that disagree: the engine's reason, and the previous conv stays
    conv = OpsState(op="conv2d", cin=64, cout=64, groups=64)
    link = {"template": lab_query(View(tab="ops"), conv, ("h100-sxm5",))["template"]}
    out = update(controls_of(conv) | {"lab-groups.value": 3}, {"lang": "en"}, {}, link)
    said = text_of(out["status"])
    assert said.startswith("These values do not go together: Groups: in_channels 64 and out_channels 64 must both")
    assert "op.groups" not in said and "&groups=64&" in out["link"]["template"]
    zh = text_of(update(controls_of(conv) | {"lab-groups.value": 3}, {"lang": "zh"}, {}, link)["status"])
    assert zh.startswith("这些取值不能同时成立：分组：") and "整除" in zh


def test_callback_answers_a_hand_made_request():
    controls = {"lab-op.value": "elementwise", "lab-hardware.value": "h100-sxm5", "lab-ops.value": "add"}
    out = update(controls, "junk", None)
    assert set(out["panels"]) == {i for i, _ in ops_callbacks.PANEL_OUTPUTS}
    status, hidden, query, flags = out["status"], out["status_hidden"], out["link"]["template"], out["flags"]
    assert status and hidden is False  # what was ignored is said
    assert query.startswith("tab=ops&op=elementwise&") and flags == {"query": query}
    assert update(controls, "junk", None, {"template": "m=<b>"})["link"]["template"] == query


def test_callback_updates_the_page_flags_query():
    values = controls_of(OpsState(m=1, n=4096, k=4096), ("rtx-4090",))
    out = update(values, {"lang": "zh", "theme": "dark", "embed": False}, {"lang": "zh", "query": "old"})
    query, flags = out["link"]["template"], out["flags"]
    assert query == "tab=ops&op=gemm&m=1&n=4096&k=4096&dtype=bf16&model=llama-3.1-70b&hw=rtx-4090&lang=zh&theme=dark"
    assert flags == {"lang": "zh", "query": query}
    assert out["status"] == [] and out["status_hidden"] is True  # nothing ignored: no status line


# ---- the engine's numbers on screen ---------------------------------------------------------


def test_gemm_8192_on_h100_is_drawn_at_the_engine_intensity():
    state, _ = state_of("tab=ops&op=gemm&m=8192&n=8192&k=8192")
    computed = compute(state, ("h100-sxm5", "rtx-4090"))
    figure = ops_layout.panels(View(tab="ops", lang="en"), state, ("h100-sxm5", "rtx-4090"))["lab-graph"]
    engine = lab(GemmSpec(8192, 8192, 8192), [get_accelerator("h100-sxm5")])["results"][0]
    point = points(figure)["op--h100-sxm5--gemm"]
    assert point["x"] == [engine["intensity"]] and point["y"] == [engine["attainable_flops_per_s"]]
    assert engine["intensity"] == pytest.approx(8192 / 3)  # square GEMM: n/3 (NVIDIA matmul guide)
    assert engine["compute_time_s"] == pytest.approx(1.11e-3, rel=0.01)
    assert engine["memory_time_s"] == pytest.approx(0.12e-3, rel=0.01)
    assert set(points(figure)) == {"op--h100-sxm5--gemm", "op--rtx-4090--gemm"}
    uids = [tr["uid"] for tr in figure["data"]]
    assert len(uids) == len(set(uids)) and all(UID_SAFE.match(u) for u in uids)
    assert {"roof--h100-sxm5--memory", "roof--h100-sxm5--tensor", "roof--h100-sxm5--vector"} <= set(uids)
    # the point lies inside the axes (log ranges)
    xa, ya = figure["layout"]["xaxis"]["range"], figure["layout"]["yaxis"]["range"]
    for tr in points(figure).values():
        assert xa[0] < math.log10(tr["x"][0]) < xa[1] and ya[0] < math.log10(tr["y"][0]) < ya[1]
    text = text_of(results_table(computed, "en"))
    assert "2,731" in text and "1.11 ms" in text and "120 µs" in text and "compute" in text
    hover = point["hovertemplate"]
    assert "2,731" in hover and "1.1 TFLOP" in hover and "403 MB" in hover and "compute" in hover


def test_tile_view_shows_both_conventions_and_names_them():
    page = lab_page("tab=ops&preset=tile-128&hw=h100-sxm5")
    text = text_of(page)
    assert "C read-modify-write (the hand count: ≈32)" in text and "read once, write once (≈42.7)" in text
    figure = ops_layout.panels(View(tab="ops"), state_of("tab=ops&preset=tile-128")[0], ("h100-sxm5",))["lab-graph"]
    lines = {tr["uid"]: tr["x"][0] for tr in figure["data"] if tr["uid"].startswith("tile--")}
    assert lines["tile--c-read-modify-write"] == pytest.approx(32)
    assert lines["tile--read-once-write-once"] == pytest.approx(128 / 3)


def test_depthwise_conv_lands_at_4_5_with_its_im2col_view():
    state, _ = state_of("tab=ops&preset=depthwise-3x3")
    computed = compute(state, ("h100-sxm5",))
    direct, im2col = computed["series"]
    assert (direct["id"], im2col["id"]) == ("direct", "im2col")
    assert direct["results"][0]["intensity"] == pytest.approx(4.5, rel=1e-3)
    assert im2col["results"][0]["kernels"] == 2  # the lowering kernel, then the GEMM
    page = text_of(lab_page("tab=ops&preset=depthwise-3x3&hw=h100-sxm5"))
    assert "18 FLOP" in page and "im2col" in page and "4.5" in page


def test_ten_unfused_elementwise_ops_move_ten_times_the_fused_bytes():
    state, _ = state_of("tab=ops&preset=chain-10")
    computed = compute(state, ("h100-sxm5", "h200-sxm"))
    unfused, fused = computed["series"]
    assert (unfused["id"], fused["id"]) == ("unfused", "fused")
    assert unfused["results"][0]["bytes"] == pytest.approx(10.7e9, rel=0.01)  # 10 ops, [32, 2048, 4096], bf16
    assert fused["results"][0]["bytes"] == pytest.approx(unfused["results"][0]["bytes"] / 10)
    # side by side: one column each on the first accelerator, adjacent rows per accelerator
    views = text_of(views_table(computed, "en"))
    assert views.index("unfused") < views.index("fused") and "10.7 GB" in views and "1.07 GB" in views
    figure = ops_layout.panels(View(tab="ops"), state, ("h100-sxm5", "h200-sxm"))["lab-graph"]
    assert set(points(figure)) == {f"op--{hw}--{v}" for hw in ("h100-sxm5", "h200-sxm") for v in ("unfused", "fused")}


def test_a_tiny_op_is_bound_by_launch_overhead():
    state, _ = state_of("tab=ops&op=elementwise&shape=32,128&ops=add&count=1&overhead_us=5")
    r = compute(state, ("h100-sxm5",))["series"][0]["results"][0]
    assert r["bound"] == "overhead" and r["time_s"] == pytest.approx(5e-6)
    figure = ops_layout.panels(View(tab="ops"), state, ("h100-sxm5",))["lab-graph"]
    point = points(figure)["op--h100-sxm5--elementwise"]
    assert point["y"] == [r["attainable_flops_per_s"]]
    assert "overhead" in point["hovertemplate"]
    assert "overhead" in text_of(lab_page("tab=ops&op=elementwise&shape=32,128&ops=add&count=1&overhead_us=5"))


def test_teaching_chart_has_three_points_per_accelerator():
    page = lab_page("tab=ops&op=teaching&hw=h100-sxm5,rtx-4090")
    state, _ = state_of("tab=ops&op=teaching")
    figure = ops_layout.panels(View(tab="ops"), state, ("h100-sxm5", "rtx-4090"))["lab-graph"]
    assert set(points(figure)) == {
        f"op--{hw}--{p}" for hw in ("h100-sxm5", "rtx-4090") for p in ("gemm-8192", "add", "decode")
    }
    text = text_of(page)
    assert "llama-3.1-70b decode step" in text and "2,731" in text and "0.167" in text


def test_decode_projections_of_the_model_are_preset_links():
    page = lab_page("tab=ops&model=llama-3-8b&hw=h100-sxm5")
    links = {c.id: c.href for c in walk(page) if getattr(c, "id", "").startswith("lab-preset-")}
    assert links["lab-preset-decode-q_proj"] == (
        "?tab=ops&op=gemm&m=1&n=4096&k=4096&dtype=bf16&model=llama-3-8b&hw=h100-sxm5&lang=en&theme=light"
    )
    assert "lab-preset-teaching" in links and "lab-preset-gemm-8192" in links


def test_no_scientific_notation_anywhere_on_the_page():
    for query in (
        "tab=ops&op=gemm&m=16777216&n=16777216&k=16777216&hw=h100-sxm5,b200",
        "tab=ops&op=elementwise&shape=1&ops=add&count=1&overhead_us=10000",
        "tab=ops&op=teaching",
        "tab=ops&preset=depthwise-3x3",
    ):
        page = lab_page(query)
        assert not SCIENTIFIC.search(text_of(page)), query
        state, _ = state_of(query)
        figure = ops_layout.panels(View(tab="ops"), state, view_from_search(query).hardware)["lab-graph"]
        shown = " ".join(tr.get("hovertemplate", "") for tr in figure["data"])
        shown += " ".join(figure["layout"]["xaxis"]["ticktext"] + figure["layout"]["yaxis"]["ticktext"])
        assert not SCIENTIFIC.search(shown), query


def test_every_model_preset_renders():
    from engine.model_catalog import model_ids

    for model in model_ids():
        lab_page(f"tab=ops&op=teaching&model={model}&hw=h100-sxm5")


def test_chinese_page_and_strings():
    text = text_of(lab_page("tab=ops&lang=zh&preset=chain-10"))
    assert "并排对比" in text and "未融合" in text and "启动开销" in text
    keys = [k for k in STRINGS if k.startswith("lab_ops_")]
    assert len(keys) > 50 and all(STRINGS[k].get("en") and STRINGS[k].get("zh") for k in keys)


def test_every_callback_id_is_in_the_page_and_prefixed():
    page = ops_layout.page(View(tab="ops"))
    ids = ids_of(page)
    for key in control_values():
        assert key.split(".")[0] in ids
    for component_id, _ in ops_callbacks.PANEL_OUTPUTS:
        assert component_id in ids
    assert {"lab-status", "lab-link", "lab-url-sync", "lab-context", "view-flags"} <= ids
    chrome = {"view-flags", "notices", "app-root", "lang", "copy-link", "copy-status", "copy-field", "open-full"}
    own = ids - chrome - {i for i in ids if i.startswith("tab-")}  # the shared header's (components/header.py)
    assert all(i.startswith("lab-") or i == "ops-lab" for i in own), sorted(own)
    # the dashboard's page() dispatches the tab to this module
    assert "lab-graph" in ids_of(any_page(view_from_search("tab=ops")))


# ---- what-if accelerators (xhw=) -------------------------------------------------------------

SELFTEST = "tab=ops&op=gemm&m=8192&n=8192&k=8192&hw=h100-sxm5&xhw=selftest:2:500"


def test_a_what_if_link_draws_the_gemm_on_both_cards():
    view = view_from_search(SELFTEST)
    state, notices = parse_args(view.lab_args, view.hardware)
    assert notices == [] and state.what_if == ("selftest:2:500",)
    link = lab_query(view, state, view.hardware)["template"]
    assert link.endswith("&model=llama-3.1-70b&xhw=selftest:2:500&hw=h100-sxm5&lang=en&theme=light")
    figure = ops_layout.panels(view, state, view.hardware)["lab-graph"]
    card = parse_what_if("selftest:2:500")
    engine = lab(GemmSpec(8192, 8192, 8192), [card])["results"][0]
    point = points(figure)["op--selftest--gemm"]
    assert point["x"] == [engine["intensity"]] and point["y"] == [engine["attainable_flops_per_s"]]
    assert engine["bound"] == "compute" and engine["time_s"] == pytest.approx(2 * 8192**3 / 500e12)
    assert set(points(figure)) == {"op--h100-sxm5--gemm", "op--selftest--gemm"}
    traces = {tr["uid"]: tr for tr in figure["data"]}
    assert traces["ridge--selftest"]["x"] == [pytest.approx(250)]  # 500 TFLOP/s over 2 TB/s: ridge 250
    assert "selftest (what-if)" in traces["roof--selftest--memory"]["name"]  # the legend says what-if
    assert "roof--selftest--vector" not in traces  # a card with only a tensor rate
    computed = compute(state, view.hardware)
    rows = results_table(computed, "en").children[1].children
    assert [r.to_plotly_json()["props"]["data-hw"] for r in rows] == ["h100-sxm5", "selftest"]
    assert "what-if" in rows[1].className and "selftest (what-if)" in text_of(rows[1])
    page = lab_page(SELFTEST)
    assert "selftest (what-if)" in text_of(page)
    dropdown = next(c for c in walk(page) if getattr(c, "id", None) == "lab-what-if")
    assert dropdown.value == ["selftest:2:500"]


@pytest.mark.parametrize("query", ["tab=ops&op=conv2d", "tab=ops&preset=chain-10", "tab=ops&op=teaching"])
def test_every_op_kind_takes_what_ifs(query):
    view = view_from_search(query + "&hw=h100-sxm5&xhw=selftest:2:500,fast:3.35:1979:80")
    state, notices = parse_args(view.lab_args, view.hardware)
    assert notices == [] and len(state.what_if) == 2
    figure = ops_layout.panels(view, state, view.hardware)["lab-graph"]
    hws = {u.split("--")[1] for u in points(figure)}
    assert hws == {"h100-sxm5", "selftest", "fast"}
    uids = [tr["uid"] for tr in figure["data"]]
    assert len(uids) == len(set(uids)) and all(UID_SAFE.match(u) for u in uids)


def test_what_ifs_repeat_and_survive_presets_and_the_fallback():
    args = [("op", "gemm"), ("xhw", "a:1:100"), ("xhw", "b:2:200:80,c:3:300")]
    state, notices = parse_args(args)
    assert notices == [] and state.what_if == ("a:1:100", "b:2:200:80", "c:3:300")
    view = View(tab="ops", hardware=("h100-sxm5",))
    again = view_from_search(lab_query(view, state, view.hardware)["template"])
    assert parse_args(again.lab_args, again.hardware) == (state, [])
    assert parse_args([*args, ("preset", "chain-10")])[0].what_if == state.what_if
    assert parse_args([*args, ("op", "conv2d"), ("groups", "3"), ("cin", "100")])[0].what_if == state.what_if
    links = ops_layout.preset_links(view, state, view.hardware)[0]
    assert all("&xhw=a:1:100&xhw=b:2:200:80&xhw=c:3:300&hw=" in link.href for link in links)


HOSTILE_WHAT_IFS = [
    "selftest:abc:500",  # not a number
    "selftest:2",  # too few parts
    "selftest:2:500:80:1:1",  # too many parts
    "h100-sxm5:2:500",  # a catalogue id as its name
    "Self Test:2:500",  # not a CSS-safe name
    "a--b:2:500",  # the uid separator
    "x:nan:500",
    "x:inf:500",
    "x:-1:500",
    "x:3350:500",  # GB/s typed as TB/s
    "x:2:1e9",
    "x:2:500:0",  # no memory
    "<script>:1:1",
    "x:" + "9" * 300,
]


@pytest.mark.parametrize("text", HOSTILE_WHAT_IFS)
def test_hostile_what_ifs_are_ignored_with_the_engine_reason(text):
    state, notices = parse_args([("op", "gemm"), ("xhw", text)])
    assert state.what_if == ()
    assert [n for n, _, _ in notices] == ["xhw"] and all(len(v) <= 40 for _, v, _ in notices)
    assert FORMAT in reason(notices[0][2], "en")  # the engine's message names the format
    page = text_of(ops_layout.page(View(tab="ops", lab_args=(("xhw", text),))))
    assert "xhw" in page and FORMAT in page


def test_nine_cards_are_cut_to_eight_with_a_notice():
    nine = ",".join(f"w{i}:1:100" for i in range(9))
    state, notices = parse_args([("xhw", nine)])
    assert len(state.what_if) == 8 and notices == [("xhw", "w8:1:100", notices[0][2])]
    assert "at most 8" in reason(notices[0][2], "en")
    view = view_from_search(f"tab=ops&hw=h100-sxm5,h200-sxm,rtx-4090&xhw={nine}")
    state, notices = parse_args(view.lab_args, view.hardware)
    assert state.what_if == tuple(f"w{i}:1:100" for i in range(5)) and len(notices) == 1
    figure = ops_layout.panels(view, state, view.hardware)["lab-graph"]
    assert len({u.split("--")[1] for u in points(figure)}) == 8
    # the same name twice: the first one stays
    state, notices = parse_args([("xhw", "a:1:100"), ("xhw", "a:2:200")])
    assert state.what_if == ("a:1:100",) and "second what-if" in reason(notices[0][2], "en")


def test_controls_carry_what_ifs_through_the_same_parser():
    values = controls_of(OpsState(m=64), ("h100-sxm5", "rtx-4090"))
    state, hardware, refusals = from_controls(values | {"lab-what-if.value": ["selftest:2:500"]})
    assert state.what_if == ("selftest:2:500",) and hardware == ("h100-sxm5", "rtx-4090")
    state, _, refusals = from_controls(values | {"lab-what-if.value": [f"w{i}:1:100" for i in range(20)]})
    assert len(state.what_if) == 6 and any("at most 8" in reason(why, "en") for _, _, why in refusals)
    for bad in ("selftest:2:500", [1], {"a": 1}, True, ["h100-sxm5:1:1"]):
        state, _, refusals = from_controls(values | {"lab-what-if.value": bad})
        assert state.what_if == () and refusals
    out = update(values | {"lab-what-if.value": ["selftest:2:500"]}, {"lang": "en"}, {})
    assert "&xhw=selftest:2:500&" in out["link"]["template"]
    assert "op--selftest--gemm" in points(out["panels"]["lab-graph"])


def test_the_add_control_names_the_format_and_keeps_the_limit():
    out = add_what_if(" selftest:2:500 ", [], ["h100-sxm5"], {"lang": "en"})
    options, value, text, error = out["options"], out["value"], out["text"], out["error"]
    assert value == ["selftest:2:500"] and options == [{"label": "selftest:2:500", "value": "selftest:2:500"}]
    assert (text, error) == ("", "")
    value = add_what_if("selftest:4:500", ["fast:3:900", "selftest:2:500"], ["h100-sxm5"], None)["value"]
    assert value == ["fast:3:900", "selftest:4:500"]  # the same name again: the new numbers
    for bad in ("", None, 5, "selftest:2", "h100-sxm5:2:500", "x:abc:1"):
        out = add_what_if(bad, [], ["h100-sxm5"], {"lang": "en"})
        assert FORMAT in out["error"] and all(out[k] is no_update for k in ("options", "value", "text"))
    error = add_what_if("h100-sxm5:2:500", [], [], {"lang": "zh"})["error"]
    assert "是目录中的加速器 id" in error and "（格式：<名称>:" in error  # from the engine's code, in Chinese
    zh = text_of(ops_layout.page(View(tab="ops", lang="zh", lab_args=(("xhw", "x:abc:1"), ("m", "0")))))
    assert "的带宽（TB/s） 'abc' 不是 [0.001, 1000] 之间的数" in zh and "不是 1..16,777,216 之间的整数" in zh
    full = [f"w{i}:1:100" for i in range(5)]
    out = add_what_if("x:1:1", full, ["h100-sxm5", "h200-sxm", "rtx-4090"], {"lang": "zh"})
    assert out["error"] == STRINGS["what_if_limit"]["zh"].format(n=8)
