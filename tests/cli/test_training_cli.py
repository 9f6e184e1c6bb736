"""`llm-roofline training`, run as a real subprocess."""

import json
import subprocess
import sys

import pytest

SEED = [
    "training",
    "--num-params", "7e9", "--num-layers", "32", "--num-heads", "32", "--head-dim", "128",
    "--hardware", "h100-sxm5", "--gpus", "8", "--sequence-length", "4096",
    "--tokens-per-step", "262144", "--step-time-s", "3.64",
]  # fmt: skip


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=60)


def test_seed_example_table():
    out = cli(*SEED, "--recompute", "full")
    assert out.returncode == 0, out.stderr
    for line in ("38.2%", "44.1%", "51.0%", "19.1%", "54.4 ms", "model_states"):
        assert line in out.stdout
    assert "smallest change that fits: ZeRO-1" in out.stdout


def test_json_matches_the_engine():
    out = cli(*SEED, "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    assert body["mfu"] == pytest.approx(0.38214, rel=1e-4)
    assert body["memory"]["optimizer_bytes"] == 84e9


@pytest.mark.parametrize("extra, field", [(["--zero-stage", "4"], "zero_stage"), (["--gpus", "0"], "gpus")])
def test_bad_input_exits_2_naming_the_field(extra, field):
    out = cli(*SEED, *extra)
    assert out.returncode == 2 and field in out.stderr


def test_measurements_prints_triage_by_recoverable_time(tmp_path):
    from tests.engine.test_triage import PROFILE

    path = tmp_path / "profile.csv"
    path.write_text(PROFILE)
    out = cli("measurements", str(path), "--format", "csv", "--hardware", "h100-sxm5")
    assert out.returncode == 0, out.stderr
    triage = out.stdout.split("triage, by recoverable time")[1].splitlines()[2:]
    assert [line.split()[1] for line in triage] == ["gemm_8192", "big_add", "tiny_add"]
    body = json.loads(cli("measurements", str(path), "--format", "csv", "--hardware", "h100-sxm5", "--json").stdout)
    assert body["triage"][0]["regime"] == "compute"


def test_analyze_roofs_hierarchy():
    args = ("--model", "llama-3-8b", "--hardware", "h200-sxm", "--hardware", "b200", "--roofs", "hierarchy")
    out = cli("analyze", *args)
    assert out.returncode == 0, out.stderr
    assert "9.77 TB/s" in out.stdout and "no sourced cache roof for b200" in out.stdout
    body = json.loads(
        cli("analyze", "--model", "llama-3-8b", "--hardware", "h200-sxm", "--roofs", "hierarchy", "--json").stdout
    )
    assert [h["uid"] for h in body["results"][0]["hierarchy_roofs"]] == ["roof--h200-sxm--hbm", "roof--h200-sxm--l2"]
