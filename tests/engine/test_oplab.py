"""The op lab against hand computations (the NVIDIA matmul guide's n/3, the common hand counts of a tile,
a depthwise conv and an elementwise chain, Williams et al. 2009) and the transformer's own ops."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.dashboard.lib.i18n import CATALOGUES, reason
from engine.analysis import Scenario, analyze_one
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.oplab import (
    Conv2dSpec,
    ElementwiseSpec,
    GemmSpec,
    decode_projections,
    lab,
    op_presets,
    parse_tile,
    spec_kernels,
    teaching_chart,
)
from engine.ops import ELEMENTWISE_KINDS
from engine.transformer import Widths, decode_ops
from engine.what_if import derive_what_if, parse_what_if, what_if_text

H100 = get_accelerator("h100-sxm5")
PEAK = 989.4e12  # H100 SXM5 dense bf16 (NVIDIA H100 whitepaper V1.04, table 1)
VECTOR = 133.8e12  # non-tensor bf16 (same table: ridge 133.8/3.352 ~ 40)
BW = 3.352e12


def one(spec, overhead=0.0, hw=H100):
    return lab(spec, [hw], overhead)["results"][0]


def test_gemm_8192():
    r = one(GemmSpec(8192, 8192, 8192))
    assert r["flops"] == 2 * 8192**3 and r["bytes"] == 3 * 8192**2 * 2
    assert r["intensity"] == pytest.approx(8192 / 3)  # n/3 = 2730.7 (NVIDIA matmul guide)
    assert r["compute_time_s"] == pytest.approx(2 * 8192**3 / PEAK) == pytest.approx(1.11e-3, rel=5e-3)
    assert r["memory_time_s"] == pytest.approx(3 * 8192**2 * 2 / BW) == pytest.approx(0.12e-3, rel=5e-3)
    assert r["time_s"] == r["compute_time_s"] and r["bound"] == "compute" and r["unit"] == "tensor"
    assert r["attainable_flops_per_s"] == pytest.approx(PEAK)


def test_gemm_4096_and_gemv():
    r = one(GemmSpec(4096, 4096, 4096))
    assert r["intensity"] == pytest.approx(4096 / 3) == pytest.approx(1365, rel=1e-3)
    assert r["time_s"] == pytest.approx(2 * 4096**3 / PEAK)  # 0.139 ms
    gemv = one(GemmSpec(1, 4096, 4096))
    # 2 x 4096^2 FLOP over (4096 + 4096^2 + 4096) x 2 bytes: ~1 FLOP/byte, the weights dominate
    assert gemv["intensity"] == pytest.approx(4096**2 / (4096**2 + 2 * 4096)) == pytest.approx(1, rel=1e-3)
    assert gemv["bound"] == "memory" and gemv["time_s"] == pytest.approx((4096**2 + 2 * 4096) * 2 / BW)  # 10.0 µs


def test_tile_view_both_conventions():
    view = lab(GemmSpec(4096, 4096, 4096, tile=parse_tile("128x128")), [H100])["tile"]
    assert (view["tile_m"], view["tile_n"], view["tile_k"]) == (128, 128, 128)
    # C read and written every K step (the common hand count): 2*128^3 / ((128^2 + 128^2 + 2*128^2) * 2) = 32
    assert view["c_read_modify_write"]["intensity"] == pytest.approx(32.0)
    # C written once: 128/3
    assert view["read_once_write_once"]["intensity"] == pytest.approx(128 / 3) == pytest.approx(42.7, rel=1e-3)
    # every tile fetching its panels from HBM: A 32x, B 32x -> 8192 / 130 ~ 63
    assert view["no_l2_reuse"]["intensity"] == pytest.approx(8192 / 130)
    assert view["tiles"] == 32 * 32
    assert parse_tile("128x256x64") == (128, 256, 64) and parse_tile("64x128") == (64, 128, 64)
    # clamped to the problem: GEMV M = 1 sees a 1 x 128 tile
    assert lab(GemmSpec(1, 4096, 4096, tile=(128, 128, 128)), [H100])["tile"]["tile_m"] == 1
    for bad in ("128", "128x", "0x128", "128x128x128x1", "axb", "99999x1"):
        with pytest.raises(EngineInputError, match="op.tile"):
            parse_tile(bad)


def test_mixed_dtypes_count_each_matrix_in_its_format():
    r = one(GemmSpec(16, 4096, 4096, dtype="fp8", a_dtype="bf16", b_dtype="fp8", c_dtype="fp32"))
    assert r["bytes"] == 16 * 4096 * 2 + 4096 * 4096 * 1 + 16 * 4096 * 4
    assert r["peak_flops_per_s"] == H100.tensor_flops_per_s.fp8


def test_fused_gemm_epilogue_is_one_kernel():
    m, n, k = 8192, 4096, 4096
    fused = one(GemmSpec(m, n, k, bias=True, activation="silu"))
    gemm_bytes = (m * k + k * n + m * n) * 2
    assert fused["kernels"] == 1 and fused["ops"][0]["name"] == "gemm+bias+silu"
    assert fused["bytes"] == gemm_bytes + n * 2  # + the bias vector
    assert fused["flops"] == 2 * m * n * k + (1 + 4) * m * n  # bias add + SiLU (~4 FLOP) per output
    unfused = fused["alternatives"]["unfused"]
    # bias add reads C and the bias, writes C; SiLU reads C, writes C
    assert unfused["kernels"] == 3 and unfused["bytes"] == gemm_bytes + (2 * m * n + n) * 2 + 2 * m * n * 2
    assert [o["name"] for o in unfused["ops"]] == ["gemm", "bias_add", "silu"]
    assert unfused["time_s"] > fused["time_s"] * 1.2  # two memory round trips of C
    back = one(GemmSpec(m, n, k, bias=True, activation="silu", fused_epilogue=False))
    assert back["time_s"] == unfused["time_s"] and back["alternatives"]["fused"]["time_s"] == fused["time_s"]


def test_depthwise_3x3_is_4_5_not_9():
    spec = Conv2dSpec(32, 56, 56, 256, 256, kernel=3, stride=1, padding=1, groups=256)
    r = one(spec)
    outputs = 32 * 56 * 56 * 256
    assert r["flops"] == 18 * outputs  # 3x3 multiply-adds per output, 2 FLOP each
    assert r["bytes"] == (outputs + 256 * 9 + outputs) * 2  # input once, weights, output once
    assert r["intensity"] == pytest.approx(4.5, rel=1e-3)  # the common hand count says ~9: wrong by 2x
    assert r["unit"] == "vector" and r["bound"] == "memory"
    big = one(Conv2dSpec(1, 1024, 1024, 64, 64, 3, 1, 1, 64))
    assert 4.45 < big["intensity"] < 4.5
    im2col = lab(spec, [H100])
    shape = im2col["im2col"]
    assert (shape["m"], shape["n"], shape["k"], shape["groups"]) == (32 * 56 * 56, 1, 9, 256)
    assert shape["expansion"] == pytest.approx(9)
    explicit = im2col["results"][0]["alternatives"]["im2col"]
    # lowering: read the input, write 9x it; GEMM: read the 9x matrix, the weights, write the output
    assert explicit["bytes"] == ((outputs + 9 * outputs) + (9 * outputs + 9 * 256 + outputs)) * 2
    assert explicit["flops"] == r["flops"] and explicit["intensity"] == pytest.approx(0.45, rel=1e-3)


def test_regular_conv_im2col_gemm_view():
    spec = Conv2dSpec(8, 56, 56, 64, 128, kernel=3, stride=2, padding=1)
    assert (spec.out_height, spec.out_width) == (28, 28)  # floor((56 + 2 - 3) / 2) + 1
    result = lab(spec, [H100])
    shape, r = result["im2col"], result["results"][0]
    assert (shape["m"], shape["n"], shape["k"]) == (8 * 28 * 28, 128, 64 * 9)
    assert r["flops"] == 2 * 8 * 28 * 28 * 128 * 64 * 9 and r["unit"] == "tensor"
    assert r["bytes"] == (8 * 56 * 56 * 64 + 128 * 64 * 9 + 8 * 28 * 28 * 128) * 2
    assert r["alternatives"]["im2col"]["flops"] == r["flops"]
    with pytest.raises(EngineInputError, match="op.groups"):
        Conv2dSpec(1, 8, 8, 6, 4, groups=4)
    with pytest.raises(EngineInputError, match="op.kernel"):
        Conv2dSpec(1, 2, 2, 4, 4, kernel=5)


def test_ten_ops_unfused_vs_fused():
    tensor = 32 * 2048 * 4096 * 2  # 512 MiB in bf16
    unfused = one(ElementwiseSpec((32, 2048, 4096), ("scale",), count=10))
    assert (
        unfused["bytes"] == 10 * 2 * tensor == pytest.approx(10.7e9, rel=5e-3)
    )  # ~10 GB: 10 reads + 10 writes of 0.54 GB
    assert unfused["kernels"] == 10 and unfused["ops"][0]["count"] == 10
    fused = unfused["alternatives"]["fused"]
    assert fused["bytes"] == 2 * tensor and unfused["bytes"] / fused["bytes"] == 10
    assert unfused["time_s"] == pytest.approx(10 * 2 * tensor / BW)  # 3.2 ms
    assert fused["time_s"] == pytest.approx(2 * tensor / BW)  # 0.32 ms
    assert one(ElementwiseSpec((32, 2048, 4096), ("scale",), count=10, fused=True))["bytes"] == fused["bytes"]
    # adds each read a second full operand, fused or not: 30 tensors vs 12, only 2.5x
    adds = one(ElementwiseSpec((32, 2048, 4096), ("add",), count=10))
    assert adds["bytes"] == 30 * tensor and adds["alternatives"]["fused"]["bytes"] == 12 * tensor


def test_chain_of_mixed_ops_counts_each_op():
    n, h = 4 * 4096, 4096
    chain = one(ElementwiseSpec((4, 4096), ("add", "rmsnorm", "silu", "softmax", "rope", "gelu", "layernorm", "mul")))
    # reads+writes: add 3, rmsnorm 2 (+gamma), silu 2, softmax 2, rope 2, gelu 2, layernorm 2 (+gamma, beta), mul 3
    assert chain["bytes"] == (3 + 2 + 2 + 2 + 2 + 2 + 2 + 3) * n * 2 + 3 * h * 2
    assert chain["flops"] == (1 + 4 + 4 + 5 + 3 + 8 + 7 + 1) * n
    fused = chain["alternatives"]["fused"]
    assert fused["bytes"] == (2 + 2) * n * 2 + 3 * h * 2 and fused["flops"] == chain["flops"]


def test_launch_overhead_is_the_third_regime():
    tiny = one(ElementwiseSpec((32, 128), ("add",)), overhead=5e-6)
    assert tiny["bytes"] == 3 * 32 * 128 * 2 and tiny["memory_time_s"] == pytest.approx(24576 / BW)  # 7.3 ns
    assert tiny["bound"] == "overhead" and tiny["time_s"] == 5e-6 and tiny["overhead_time_s"] == 5e-6
    assert tiny["attainable_flops_per_s"] == pytest.approx(4096 / 5e-6)
    assert one(ElementwiseSpec((32, 128), ("add",)))["bound"] == "memory"  # default 0: never overhead
    ten = one(ElementwiseSpec((32, 128), ("scale",), count=10), overhead=5e-6)
    assert ten["time_s"] == pytest.approx(50e-6) and ten["alternatives"]["fused"]["time_s"] == 5e-6
    big = one(GemmSpec(8192, 8192, 8192), overhead=5e-6)
    assert big["bound"] == "compute" and big["time_s"] == pytest.approx(2 * 8192**3 / PEAK)
    with pytest.raises(EngineInputError, match="launch_overhead_s"):
        lab(GemmSpec(1, 1, 1), [H100], -1e-6)
    with pytest.raises(EngineInputError, match="launch_overhead_s"):
        lab(GemmSpec(1, 1, 1), [H100], 1.0)


def test_lab_projection_equals_the_transformer_op():
    model = get_model("llama-3-8b")
    ops = {o.name: o for o in decode_ops(model, 4, 1024, Widths(2.0, 2.0, 2.0))}
    projections = {p["name"]: p["op"] for p in decode_projections(model, 4)}
    assert set(projections) == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "lm_head"}
    for name, op in projections.items():
        r = one(GemmSpec(op["m"], op["n"], op["k"]))
        layers = 1 if name == "lm_head" else model.num_layers
        assert r["flops"] == ops[name].flops / layers and r["bytes"] == ops[name].bytes / layers, name
    moe = {p["name"]: p["op"] for p in decode_projections(get_model("deepseek-v3"), 1)}
    assert moe["expert_up_proj"] == {"kind": "gemm", "m": 1, "n": 2048, "k": 7168} and "kv_a_proj" in moe


def test_presets_run_and_name_the_example_shapes():
    presets = {p["id"]: p for p in op_presets(get_model("llama-3-8b"))}
    assert {"gemm-8192", "gemm-4096", "gemv", "depthwise-3x3", "chain-10", "tiny-add", "decode-q_proj"} <= set(presets)
    assert presets["decode-lm_head"]["op"] == {"kind": "gemm", "m": 1, "n": 128256, "k": 4096}


def test_teaching_chart_three_points():
    chart = teaching_chart([H100, get_accelerator("a100-80gb-sxm")], get_model("llama-2-7b"))
    gemm, add, decode = chart["points"]
    assert [p["id"] for p in chart["points"]] == ["gemm-8192", "add", "decode"]
    assert gemm["results"][0]["intensity"] == pytest.approx(2731, rel=1e-3)
    assert gemm["results"][0]["time_s"] == pytest.approx(1.11e-3, rel=5e-3)
    assert add["results"][0]["intensity"] == pytest.approx(1 / 6)
    assert add["results"][0]["attainable_flops_per_s"] == pytest.approx(BW / 6)  # 0.56 TFLOP/s
    d = decode["results"][0]
    assert d["intensity"] == pytest.approx(1, rel=0.02) and d["bound"] == "memory"
    # 6.74B params x 2 bytes / 3.352 TB/s = 4.0 ms (a 7B rounded to 1.4e10 bytes gives 4.18 ms)
    assert d["time_s"] == pytest.approx(2 * 6.74e9 / BW, rel=0.02)
    assert [r["hardware_id"] for r in decode["results"]] == ["h100-sxm5", "a100-80gb-sxm"]


def test_spec_validation_names_the_field():
    cases = [
        (lambda: GemmSpec(0, 1, 1), "op.m"),
        (lambda: GemmSpec(1, 1, 1, dtype="fp64"), "op.dtype"),
        (lambda: GemmSpec(1, 1, 1, c_dtype="int3"), "op.c_dtype"),
        (lambda: GemmSpec(1, 1, 1, activation="relu6"), "op.activation"),
        (lambda: ElementwiseSpec((0, 4)), "op.shape"),
        (lambda: ElementwiseSpec((1 << 30, 1 << 30)), "op.shape"),
        (lambda: ElementwiseSpec((4,), ("exp",)), "op.ops"),
        (lambda: ElementwiseSpec((4,), count=0), "op.count"),
        (lambda: ElementwiseSpec((4,), ("add",) * 32, count=1000), "op.count"),
        (lambda: Conv2dSpec(1, 8, 8, 4, 4, stride=0), "op.stride"),
    ]
    cases += [
        (lambda: GemmSpec(1, 1, 1, bias="yes"), "op.bias"),
        (lambda: GemmSpec(1, 1, 1, tile=(1, 2)), "op.tile"),
        (lambda: Conv2dSpec(1, 8, 8, 6, 4, groups=4), "op.groups"),
        (lambda: Conv2dSpec(1, 2, 2, 4, 4, kernel=5), "op.kernel"),
        (lambda: ElementwiseSpec((4,), fused=1), "op.fused"),
        (lambda: parse_tile("9x"), "op.tile"),
        (lambda: spec_kernels("gemm"), "op.kind"),
    ]
    for build, field in cases:
        with pytest.raises(EngineInputError) as info:
            build()
        assert info.value.field == field
        # a code and its parameters: the page says it in each language (engine_<code> in both catalogues)
        assert info.value.code and f"engine_{info.value.code}" in CATALOGUES["zh"], field
        assert reason(info.value, "zh") != reason(info.value, "en")


def test_what_if_parses_and_explains_errors():
    card = parse_what_if("h100-like:3.352:989.4:80")
    assert card.memory_bandwidth_bytes_per_s == 3.352e12 and card.tensor_flops_per_s.bf16 == 989.4e12
    assert card.memory_bytes == H100.memory_bytes  # 80 GB of HBM = 80 GiB, as the catalogue counts
    assert card.vendor == "what-if" and card.name == "h100-like (what-if)"
    assert what_if_text(card) == "h100-like:3.352:989.4:80"
    no_memory = parse_what_if("x2:3.35:1979")
    assert no_memory.memory_bytes == 1e15 and "1 PB" in no_memory.notes
    bad = {
        "fast": "1 part",
        "a:b:c:d:e:f": "6 part",
        "x:3.35:989:80:-2": "vector TFLOP/s '-2'",
        "Fast:1:1": "name 'Fast'",
        "a--b:1:1": "name 'a--b'",
        "h100-sxm5:1:1": "catalogue id",
        "x:3350:989": "bandwidth (TB/s) '3350'",
        "x:3.35:-1": "bf16 TFLOP/s '-1'",
        "x:3.35:nan": "bf16 TFLOP/s 'nan'",
        "x:3.35:989:0": "memory (GB) '0'",
        "x:3.35:989:1e400": "memory (GB)",
    }
    # a fifth part: the vector units (elementwise ops), memory may be left empty before it
    vector = parse_what_if("v:3.352:989.4::133.8")
    assert vector.vector_roof("bf16") == ("bf16", pytest.approx(133.8e12)) and vector.memory_bytes == 1e15
    assert what_if_text(vector) == "v:3.352:989.4::133.8"
    assert no_memory.vector_roof("bf16") == ("tensor-bf16", 1979e12)  # none given: the tensor roof
    # a scaled real card keeps its own vector units, scaled with its compute
    scaled = parse_what_if(derive_what_if(H100, flops_scale=2))
    assert scaled.id == "h100-sxm5-2xflops" and scaled.memory_bytes == H100.memory_bytes
    assert scaled.tensor_flops_per_s.bf16 == pytest.approx(2 * 989.4e12)
    assert scaled.vector_roof("bf16")[1] == pytest.approx(2 * H100.vector_roof("bf16")[1])
    for text, words in bad.items():
        with pytest.raises(EngineInputError) as info:
            parse_what_if(text)
        assert info.value.field == "xhw" and words in str(info.value), (text, str(info.value))
        assert "<bandwidth TB/s>" in str(info.value)


def test_what_if_answers_a_self_test_card_and_doubled_flops():
    # a self-test card: 2 TB/s, 500 TFLOP/s -> ridge 250; 70B bf16 decode at batch 1 ~ 140 GB / 2 TB/s = 70 ms
    card = parse_what_if("self-test:2:500:192")
    assert card.ridge_points_by_dtype()["bf16"] == pytest.approx(250)
    r = analyze_one(get_model("llama-2-70b"), card, Scenario(batch_size=1, context_length=128))
    assert r["decode"]["time_s"] == pytest.approx(70e-3, rel=0.03)
    # double the FLOP/s, keep the bandwidth: decode does not move, prefill nearly halves
    base = parse_what_if("base:3.352:989.4:80")
    double = parse_what_if("double:3.352:1978.8:80")
    model, scenario = get_model("llama-3-8b"), Scenario(batch_size=1, context_length=4096)
    a, b = analyze_one(model, base, scenario), analyze_one(model, double, scenario)
    assert b["decode"]["time_s"] == pytest.approx(a["decode"]["time_s"], rel=1e-3)
    assert b["prefill"]["time_s"] / a["prefill"]["time_s"] < 0.6
    gemv = [one(GemmSpec(1, 4096, 4096), hw=hw)["time_s"] for hw in (base, double)]
    assert gemv[0] == gemv[1]


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(1, 1 << 12), min_size=1, max_size=3),  # <= 2^36 elements (limit 2^40)
    names=st.lists(st.sampled_from(sorted(ELEMENTWISE_KINDS)), min_size=1, max_size=6),
    count=st.integers(1, 20),
    overhead=st.sampled_from([0.0, 1e-6, 5e-6]),
)
def test_fusing_never_moves_more_bytes_or_takes_longer(shape, names, count, overhead):
    r = one(ElementwiseSpec(tuple(shape), tuple(names), count), overhead)
    fused = r["alternatives"].get("fused", r)
    assert fused["bytes"] <= r["bytes"] and fused["time_s"] <= r["time_s"] * (1 + 1e-12)
    assert fused["flops"] == pytest.approx(r["flops"])
    for placed in (r, fused):
        assert placed["time_s"] >= max(placed["memory_time_s"], placed["overhead_time_s"]) * (1 - 1e-12)
        assert sum(row["count"] for row in placed["ops"]) == placed["kernels"]


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 1 << 16), n=st.integers(1, 1 << 16), k=st.integers(1, 1 << 16), t=st.integers(1, 512))
def test_tile_conventions_order(m, n, k, t):
    view = lab(GemmSpec(m, n, k, tile=(t, t, t)), [H100])["tile"]
    # writing C back every K step can only lower a tile's intensity; a tile never beats the whole GEMM
    assert view["c_read_modify_write"]["intensity"] < view["read_once_write_once"]["intensity"]
    whole = one(GemmSpec(m, n, k))
    assert view["no_l2_reuse"]["intensity"] <= whole["intensity"] * (1 + 1e-12)
