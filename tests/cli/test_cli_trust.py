"""The CLI in the units engineers read: memory footprints in GiB (an "80GB" H100 reads 80 GiB),
traffic in GB, the usable share beside max batch, published runs of the chosen scenario only."""

import subprocess
import sys

from app.units import memory, plural


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=60)


def test_memory_formatter_is_binary_and_traffic_stays_decimal():
    from app.units import si

    assert memory(80 * 2**30) == "80 GiB" and memory(141 * 2**30) == "141 GiB" and memory(192 * 2**30) == "192 GiB"
    assert memory(80.4e9) == "74.9 GiB"  # the training bill the page called "80.4 GB"
    assert memory(50 * 2**20) == "50 MiB" and memory(512) == "512 B"
    assert si(32.6e9, "B") == "32.6 GB"  # bytes moved per step: decimal, against TB/s


def test_plural():
    assert plural(1, "sequence") == "1 sequence" and plural(2, "sequence") == "2 sequences"
    assert plural(4096, "token") == "4,096 tokens"


def test_hardware_table_reads_gib():
    out = cli("hardware").stdout
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "80 GiB" in rows["h100-sxm5"] and "141 GiB" in rows["h200-sxm"] and "192 GiB" in rows["mi300x"]
    assert "85.9 GB" not in out and "151 GB" not in out and "206 GB" not in out


def test_analyze_shows_usable_gib_and_why_it_does_not_fit():
    """Llama-3-70B bf16 (132 GiB at 1K) on one H200 (141 GiB): fits the card, not the 127 GiB
    a serving engine fills at 0.9; with --memory-utilization 1 it fits."""
    out = cli("analyze", "--model", "llama-3-70b", "--hardware", "h200-sxm", "--context", "1024")
    assert out.returncode == 0, out.stderr
    assert "usable" in out.stdout.splitlines()[1]
    row = out.stdout.splitlines()[2]
    assert "132 GiB" in row and "127 GiB" in row and " NO " in row
    assert "fits the card's 141 GiB, not the 127 GiB a serving engine uses at 0.9" in out.stdout
    assert "0.9 is vLLM's gpu_memory_utilization default" in out.stdout
    whole = cli(
        "analyze", "--model", "llama-3-70b", "--hardware", "h200-sxm", "--context", "1024", "--memory-utilization", "1"
    )
    assert "141 GiB" in whole.stdout.splitlines()[2] and " yes " in whole.stdout.splitlines()[2]
    assert "a serving engine uses" not in whole.stdout and "the whole card" in whole.stdout


def test_one_output_token_is_singular():
    out = cli("analyze", "--model", "llama-3-8b", "--hardware", "h100-sxm5", "--output-tokens", "1")
    assert "request of 1 token:" in out.stdout


def test_training_bill_in_gib_and_all_reduce_in_gb():
    """ZeRO-1, selective recompute, micro-batch 2 on 8 H100s: the bill is in GiB against the
    card's 80 GiB; the gradient all-reduce (traffic) stays in GB."""
    out = cli(
        "training", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--gpus", "8",
        "--sequence-length", "4096", "--tokens-per-step", "262144", "--step-time-s", "10",
        "--zero-stage", "1", "--recompute", "selective", "--micro-batch-size", "2",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines() if line.startswith("  ")}
    assert lines["capacity"].split()[1:3] == ["80", "GiB"]
    for key in ("weights", "gradients", "optimizer", "activation", "total"):
        assert lines[key].endswith("GiB"), lines[key]
    assert "gradient all-reduce: 13.5 GB" in out.stdout


def test_published_filtered_by_model_and_precision():
    out = cli("published", "--model", "llama-3-8b", "--weight-dtype", "bf16")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("0 published runs match; 19 left out: 19 of another model.")
    assert "h100-sxm5" not in out.stdout
    out = cli("published", "--model", "llama-2-7b", "--weight-dtype", "fp8", "--hardware", "h100-sxm5")
    rows = [line for line in out.stdout.splitlines() if line.startswith("h100-sxm5")]
    assert len(rows) == 4 and all("llama-2-7b" in r and " fp8 " in r for r in rows)
    assert "in another precision" in out.stdout and "on another accelerator" in out.stdout
    bad = cli("published", "--model", "llama-9")
    assert bad.returncode == 2 and "unknown model id" in bad.stderr
