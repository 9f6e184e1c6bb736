"""POST /api/v1/ops as the op lab: GEMM (tile, epilogue), conv2d, elementwise chains, launch
overhead and what-if accelerators, through HTTP; the engine's numbers, unchanged."""

import json
import subprocess
import sys

import pytest

from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.oplab import Conv2dSpec, ElementwiseSpec, GemmSpec, lab, teaching_chart
from engine.what_if import parse_what_if

H100 = get_accelerator("h100-sxm5")
BW = 3.352e12


def ops(client, op, hardware=("h100-sxm5",), **extra):
    return client.post("/api/v1/ops", json={"hardware": list(hardware), "op": op} | extra)


def engine_json(spec, hardware, overhead=0.0):
    return json.loads(json.dumps(lab(spec, hardware, overhead)))


def test_gemm_with_tile_equals_engine(client):
    r = ops(client, {"kind": "gemm", "m": 4096, "n": 4096, "k": 4096, "tile": "128x128"}, ["h100-sxm5", "l4"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == engine_json(GemmSpec(4096, 4096, 4096, tile=(128, 128, 128)), [H100, get_accelerator("l4")])
    assert body["results"][0]["intensity"] == pytest.approx(1365.33, rel=1e-4)
    assert body["tile"]["c_read_modify_write"]["intensity"] == 32.0
    assert body["tile"]["read_once_write_once"]["intensity"] == pytest.approx(42.667, rel=1e-4)
    assert body["op"]["tile"] == [128, 128, 128] and body["name"] == "gemm 4096x4096x4096 bf16"


def test_gemm_epilogue_fused_vs_unfused(client):
    op = {"kind": "gemm", "m": 8192, "n": 4096, "k": 4096, "bias": True, "activation": "gelu"}
    fused = ops(client, op).json()["results"][0]
    unfused = ops(client, op | {"fused_epilogue": False}).json()["results"][0]
    assert fused["kernels"] == 1 and unfused["kernels"] == 3
    assert unfused["bytes"] - fused["bytes"] == (2 * 8192 * 4096 + 2 * 8192 * 4096) * 2  # two round trips of C
    assert fused["alternatives"]["unfused"] == {
        k: v for k, v in unfused.items() if k in fused["alternatives"]["unfused"]
    }


def test_conv2d_depthwise(client):
    op = {"kind": "conv2d", "batch": 32, "height": 56, "width": 56, "in_channels": 256, "out_channels": 256,
          "kernel": 3, "padding": 1, "groups": 256}  # fmt: skip
    body = ops(client, op).json()
    assert body == engine_json(Conv2dSpec(32, 56, 56, 256, 256, 3, 1, 1, 256), [H100])
    r = body["results"][0]
    assert r["intensity"] == pytest.approx(4.5, rel=1e-3) and r["bound"] == "memory" and r["unit"] == "vector"
    assert r["alternatives"]["im2col"]["intensity"] == pytest.approx(0.45, rel=1e-3)
    assert body["im2col"]["expansion"] == 9.0


def test_elementwise_chain_of_ten(client):
    body = ops(client, {"kind": "elementwise", "shape": [32, 2048, 4096], "ops": ["scale"], "count": 10}).json()
    r = body["results"][0]
    assert r["bytes"] == 10 * 2 * 32 * 2048 * 4096 * 2 and r["kernels"] == 10  # ~10.7 GB
    assert r["bytes"] / r["alternatives"]["fused"]["bytes"] == 10
    assert r["time_s"] == pytest.approx(r["bytes"] / BW)
    default = ops(client, {"kind": "elementwise", "shape": [32, 2048, 4096], "count": 10}).json()
    assert default == body  # 'scale' is the default op
    fused = ops(client, {"kind": "elementwise", "shape": [32, 2048, 4096], "count": 10, "fused": True}).json()
    assert fused == engine_json(ElementwiseSpec((32, 2048, 4096), ("scale",), 10, True), [H100])


def test_launch_overhead_bound(client):
    body = ops(client, {"kind": "elementwise", "shape": [32, 128], "ops": ["add"]}, launch_overhead_s=5e-6).json()
    r = body["results"][0]
    assert r["bound"] == "overhead" and r["time_s"] == 5e-6 and body["launch_overhead_s"] == 5e-6
    assert r["ops"][0]["bound"] == "overhead"
    r = ops(client, {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192}, launch_overhead_s=5e-6).json()["results"][0]
    assert r["bound"] == "compute"
    for bad in (-1e-6, 0.5, "5us"):
        resp = ops(client, {"kind": "gemm", "m": 1, "n": 1, "k": 1}, launch_overhead_s=bad)
        assert resp.status_code == 422 and resp.json()["errors"][0]["field"] == "launch_overhead_s"


def test_old_bodies_still_answer_the_same(client):
    r = ops(client, {"kind": "elementwise", "name": "rmsnorm", "elements": 1000})
    res = r.json()["results"][0]
    assert res["flops"] == 4000 and res["bytes"] == 4000 and res["intensity"] == 1.0  # no weight row for a flat count
    assert set(res) >= {
        "hardware_id",
        "unit",
        "flops",
        "bytes",
        "intensity",
        "attainable_flops_per_s",
        "time_s",
        "bound",
    }


def test_what_if_short_form_and_inline_object(client):
    r = ops(client, {"kind": "gemm", "m": 1, "n": 4096, "k": 4096}, ["h100-sxm5", "fast:3.352:1978.8:80"])
    assert r.status_code == 200, r.text
    h100, fast = r.json()["results"]
    assert fast["what_if"] is True and h100["what_if"] is False and fast["hardware_name"] == "fast (what-if)"
    assert fast["time_s"] == h100["time_s"]  # a GEMV does not move when only FLOP/s double (memory-bound)
    big = ops(client, {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192}, ["h100-sxm5", "fast:3.352:1978.8"]).json()
    assert big["results"][1]["time_s"] == pytest.approx(big["results"][0]["time_s"] / 2)
    inline = parse_what_if("fast:3.352:1978.8:80").model_dump()
    same = ops(client, {"kind": "gemm", "m": 1, "n": 4096, "k": 4096}, ["h100-sxm5", inline]).json()
    assert same["results"][1] == fast


@pytest.mark.parametrize(
    ("hardware", "field", "words"),
    [
        ("fast:3350:989", "hardware[1]", "bandwidth (TB/s) '3350'"),
        ("fast:3.35", "hardware[1]", "2 part(s)"),
        ("h100-sxm5:3.35:989", "hardware[1]", "catalogue id"),
    ],
)
def test_bad_what_if_is_422_naming_it(client, hardware, field, words):
    r = ops(client, {"kind": "gemm", "m": 1, "n": 1, "k": 1}, ["h100-sxm5", hardware])
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == field and words in r.json()["detail"]
    assert "<bandwidth TB/s>" in r.json()["detail"]


def test_bad_inline_accelerator_is_422(client):
    card = parse_what_if("fast:3.35:989:80").model_dump() | {"memory_bandwidth_bytes_per_s": -1}
    r = ops(client, {"kind": "gemm", "m": 1, "n": 1, "k": 1}, [card])
    assert r.status_code == 422 and "memory_bandwidth_bytes_per_s" in r.text


@pytest.mark.parametrize(
    ("op", "field"),
    [
        ({"kind": "gemm", "m": 1, "n": 1, "k": 1, "tile": "128"}, "op.tile"),
        ({"kind": "gemm", "m": 1, "n": 1, "k": 1, "c_dtype": "fp64"}, "op.gemm.c_dtype"),
        (
            {"kind": "conv2d", "batch": 1, "height": 8, "width": 8, "in_channels": 6, "out_channels": 4, "groups": 4},
            "op.groups",
        ),  # fmt: skip
        (
            {"kind": "conv2d", "batch": 1, "height": 2, "width": 2, "in_channels": 4, "out_channels": 4, "kernel": 5},
            "op.kernel",
        ),  # fmt: skip
        ({"kind": "elementwise", "shape": [4], "elements": 4}, "op.shape"),
        ({"kind": "elementwise"}, "op.shape"),
        ({"kind": "elementwise", "shape": [4], "name": "add", "ops": ["add"]}, "op.ops"),
        ({"kind": "elementwise", "shape": [1 << 30, 1 << 30]}, "op.shape"),
        ({"kind": "elementwise", "shape": [4], "ops": ["add"] * 32, "count": 1000}, "op.count"),
        ({"kind": "elementwise", "shape": [4], "ops": ["exp"]}, "op.elementwise.ops.0"),
    ],
)
def test_bad_ops_are_422_naming_the_field(client, op, field):
    r = ops(client, op)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field, r.json()


def cli_json(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "ops", *args, "--json"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    ("cli", "body", "spec", "overhead"),
    [
        (
            ["gemm", "--m", "8192", "--n", "8192", "--k", "8192", "--dtype", "bf16", "--tile", "128x128"],
            {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "tile": "128x128"},
            GemmSpec(8192, 8192, 8192, tile=(128, 128, 128)),
            0.0,
        ),
        (
            ["gemm", "--m", "1", "--n", "4096", "--k", "4096", "--bias", "--activation", "silu", "--unfused-epilogue"],
            {"kind": "gemm", "m": 1, "n": 4096, "k": 4096, "bias": True, "activation": "silu", "fused_epilogue": False},
            GemmSpec(1, 4096, 4096, bias=True, activation="silu", fused_epilogue=False),
            0.0,
        ),
        (
            [
                "conv2d",
                "--batch",
                "32",
                "--height",
                "56",
                "--width",
                "56",
                "--in-channels",
                "256",
                "--out-channels",
                "256",
                "--kernel",
                "3",
                "--stride",
                "1",
                "--padding",
                "1",
                "--groups",
                "256",
            ],
            {
                "kind": "conv2d",
                "batch": 32,
                "height": 56,
                "width": 56,
                "in_channels": 256,
                "out_channels": 256,
                "kernel": 3,
                "stride": 1,
                "padding": 1,
                "groups": 256,
            },
            Conv2dSpec(32, 56, 56, 256, 256, 3, 1, 1, 256),
            0.0,
        ),  # fmt: skip
        (
            ["elementwise", "--shape", "32,2048,4096", "--count", "10", "--fused"],
            {"kind": "elementwise", "shape": [32, 2048, 4096], "count": 10, "fused": True},
            ElementwiseSpec((32, 2048, 4096), ("scale",), 10, True),
            0.0,
        ),
        (
            ["elementwise", "--shape", "32,128", "--op", "add", "--op", "silu", "--launch-overhead-us", "5"],
            {"kind": "elementwise", "shape": [32, 128], "ops": ["add", "silu"]},
            ElementwiseSpec((32, 128), ("add", "silu")),
            5e-6,
        ),
    ],
)
def test_cli_api_and_engine_agree(client, cli, body, spec, overhead):
    hardware = ["h100-sxm5", "mi300x", "fast:3.35:1979:80"]
    api = client.post("/api/v1/ops", json={"hardware": hardware, "op": body, "launch_overhead_s": overhead})
    assert api.status_code == 200, api.text
    engine = engine_json(spec, [H100, get_accelerator("mi300x"), parse_what_if("fast:3.35:1979:80")], overhead)
    assert api.json() == engine
    args = [a for hw in hardware for a in ("--hardware", hw)]
    assert cli_json(*cli, *args) == engine


def test_presets_are_valid_ops_bodies(client):
    r = client.get("/api/v1/ops/presets", params={"model": "llama-3-8b", "batch": 4})
    assert r.status_code == 200
    items = {p["id"]: p for p in r.json()["items"]}
    assert items["decode-q_proj"]["op"] == {"kind": "gemm", "m": 4, "n": 4096, "k": 4096}
    assert items["tiny-add"]["launch_overhead_s"] == 5e-6 and items["gemm-8192"]["launch_overhead_s"] == 0.0
    for p in items.values():  # every preset answers through /ops
        body = {"hardware": ["h100-sxm5"], "op": p["op"], "launch_overhead_s": p["launch_overhead_s"]}
        placed = client.post("/api/v1/ops", json=body)
        assert placed.status_code == 200, (p["id"], placed.text)
    by_id = {p["id"]: p for p in items.values()}
    gemv = client.post("/api/v1/ops", json={"hardware": ["h100-sxm5"], "op": by_id["gemv"]["op"]}).json()
    assert gemv["results"][0]["intensity"] == pytest.approx(1, rel=1e-3)
    tiny = by_id["tiny-add"]
    tiny_r = client.post(
        "/api/v1/ops", json={"hardware": ["h100-sxm5"], "op": tiny["op"], "launch_overhead_s": 5e-6}
    ).json()
    assert tiny_r["results"][0]["bound"] == "overhead"
    assert client.get("/api/v1/ops/presets").json()["items"][0]["id"] == "gemm-8192"
    assert client.get("/api/v1/ops/presets", params={"model": "gpt-9"}).status_code == 422
    assert client.get("/api/v1/ops/presets", params={"batch": 0}).status_code == 422
    assert cli_json("presets", "--model", "llama-3-8b", "--batch", "4") == r.json()


def test_teaching_chart_over_http_equals_engine_and_cli(client):
    hardware = ["h100-sxm5", "fast:3.352:1978.8:80"]
    r = client.post("/api/v1/ops/chart", json={"hardware": hardware})
    assert r.status_code == 200, r.text
    body = r.json()
    expected = teaching_chart([H100, parse_what_if("fast:3.352:1978.8:80")], get_model("llama-2-7b"), 128)
    assert body == json.loads(json.dumps(expected))
    gemm, add, decode = body["points"]
    assert gemm["results"][0]["time_s"] == pytest.approx(1.11e-3, rel=5e-3)
    assert gemm["results"][1]["time_s"] == pytest.approx(gemm["results"][0]["time_s"] / 2)  # twice the FLOP/s
    assert decode["results"][1]["time_s"] == decode["results"][0]["time_s"]  # decode does not move: memory-bound
    assert add["results"][0]["intensity"] == pytest.approx(1 / 6)
    assert cli_json("chart", *[a for hw in hardware for a in ("--hardware", hw)]) == body
    bad = client.post("/api/v1/ops/chart", json={"hardware": ["h100-sxm5"], "context_length": 0})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "context_length"
    assert client.post("/api/v1/ops/chart", json={"hardware": ["h100-sxm5"], "model": "nope"}).status_code == 422
