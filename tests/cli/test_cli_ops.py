"""`llm-roofline ops ...` as a real subprocess: the tables a person reads and the errors."""

import json
import subprocess
import sys


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", "ops", *args], capture_output=True, text=True, timeout=60)


def test_gemm_table_with_tile_and_what_if():
    out = cli("gemm", "--m", "8192", "--n", "8192", "--k", "8192", "--hardware", "h100-sxm5",
              "--hardware", "fast:3.352:1978.8", "--tile", "128x128")  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "gemm 8192x8192x8192 bf16"
    h100 = next(line for line in lines if line.startswith("h100-sxm5"))
    assert "1.11 ms" in h100 and "compute" in h100 and "2,731" in h100 and "120 µs" in h100
    fast = next(line for line in lines if line.startswith("fast (what-if)"))
    assert "556 µs" in fast
    assert "32 FLOP/byte with C read-modify-write" in out.stdout and "42.7 read once/write once" in out.stdout


def test_conv2d_and_chain_tables():
    conv = "--batch 32 --height 56 --width 56 --in-channels 256 --out-channels 256 --kernel 3 --padding 1 --groups 256"
    out = cli("conv2d", *conv.split(), "--hardware", "h100-sxm5")
    assert out.returncode == 0, out.stderr
    assert (
        "depthwise" in out.stdout and " 4.5 " in out.stdout and "im2col GEMM: 256 x (M 100352, N 1, K 9)" in out.stdout
    )
    out = cli("elementwise", "--shape", "32,2048,4096", "--count", "10", "--hardware", "h100-sxm5")
    assert out.returncode == 0, out.stderr
    assert "10.7 GB" in out.stdout and "1.07 GB" in out.stdout and "3.2 ms" in out.stdout
    out = cli("elementwise", "--shape", "32,128", "--op", "add", "--launch-overhead-us", "5", "--hardware", "h100-sxm5")
    assert "overhead" in out.stdout.splitlines()[2] and "5 µs" in out.stdout


def test_chart_and_presets():
    out = cli("chart", "--hardware", "h100-sxm5", "--json")
    assert out.returncode == 0, out.stderr
    points = json.loads(out.stdout)["points"]
    assert [p["id"] for p in points] == ["gemm-8192", "add", "decode"]
    assert points[2]["results"][0]["bound"] == "memory"
    out = cli("presets", "--model", "llama-3-8b", "--json")
    ids = [p["id"] for p in json.loads(out.stdout)["items"]]
    assert "gemm-8192" in ids and "decode-down_proj" in ids


def test_errors_name_the_field():
    cases = [
        (("elementwise", "--shape", "32,x", "--hardware", "h100-sxm5"), "op.shape"),
        (("gemm", "--m", "0", "--n", "1", "--k", "1", "--hardware", "h100-sxm5"), "op.m"),
        (("gemm", "--m", "1", "--n", "1", "--k", "1", "--tile", "12", "--hardware", "h100-sxm5"), "op.tile"),
        (("gemm", "--m", "1", "--n", "1", "--k", "1", "--hardware", "x:1"), "--hardware[0]"),
        (
            ("gemm", "--m", "1", "--n", "1", "--k", "1", "--hardware", "h100-sxm5", "--launch-overhead-us", "-1"),
            "launch_overhead_s",
        ),  # fmt: skip
        (
            (
                "conv2d",
                "--batch",
                "1",
                "--height",
                "8",
                "--width",
                "8",
                "--in-channels",
                "6",
                "--out-channels",
                "4",
                "--groups",
                "4",
                "--hardware",
                "h100-sxm5",
            ),
            "op.groups",
        ),  # fmt: skip
    ]
    for args, field in cases:
        out = cli(*args)
        assert out.returncode == 2 and f"error: {field}" in out.stderr, (args, out.stderr)
