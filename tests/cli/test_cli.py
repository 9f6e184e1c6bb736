"""The `llm-roofline` command, run as a real subprocess."""

import json
import subprocess
import sys

import pytest

from app.service import run_analysis
from engine.analysis import Scenario


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=60)


def test_analyze_json_equals_service():
    out = cli(
        "analyze",
        "--model",
        "llama-3-8b",
        "--hardware",
        "h100-sxm5",
        "--hardware",
        "rtx-4090",
        "--batch",
        "32",
        "--context",
        "4096",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [r["hardware_id"] for r in data["results"]] == ["h100-sxm5", "rtx-4090"]
    assert data == json.loads(
        json.dumps(run_analysis("llama-3-8b", ["h100-sxm5", "rtx-4090"], Scenario(batch_size=32, context_length=4096)))
    )
    for key in ("flops", "bytes", "intensity", "time_s", "bound", "attainable_flops_per_s", "tokens_per_s", "ops"):
        assert key in data["results"][0]["decode"] and key in data["results"][0]["prefill"]
    assert set(data["results"][0]["memory"]) >= {
        "weights_bytes",
        "kv_bytes_per_token",
        "kv_cache_bytes",
        "activation_bytes",
        "total_bytes",
        "capacity_bytes",
        "fits",
        "max_batch_size",
    }


def test_analyze_table():
    out = cli("analyze", "--model", "llama-3-8b", "--hardware", "h100-sxm5", "--batch", "32")
    assert out.returncode == 0
    assert "h100-sxm5" in out.stdout and "memory" in out.stdout and "3,291" in out.stdout


def test_config_path(tmp_path):
    from engine.model_catalog import preset_records

    path = tmp_path / "config.json"
    path.write_text(json.dumps(preset_records()["qwen2.5-7b-instruct"]["config"]))
    out = cli("analyze", "--model", str(path), "--hardware", "l4", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["model"]["num_params"] == 7615616512


@pytest.mark.parametrize(
    "args, message",
    [
        (("--model", "llama-9"), "unknown model id 'llama-9'"),
        (("--model", "llama-3-8b", "--kv-heads", "3"), "num_kv_heads: 3 must divide"),
        (("--model", "llama-3-8b", "--batch", "0"), "batch_size: 0 is not an integer"),
        (("--model", "/nonexistent/config.json"), "cannot read /nonexistent/config.json"),
    ],
)
def test_bad_input_exits_nonzero_without_traceback(args, message):
    out = cli("analyze", "--hardware", "h100-sxm5", *args)
    assert out.returncode != 0
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_unknown_hardware():
    out = cli("analyze", "--model", "llama-3-8b", "--hardware", "h100")
    assert out.returncode == 2 and "unknown hardware id 'h100'" in out.stderr


def test_lists():
    hw = cli("hardware")
    assert hw.returncode == 0 and "tpu-v6e" in hw.stdout
    models = json.loads(cli("models", "--json").stdout)
    assert {m["id"] for m in models["items"]} >= {"llama-3-8b", "llama-3.1-405b"}


def test_measurements_command():
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "measurements"
    out = cli("measurements", str(fixtures / "own.csv"), "--format", "csv", "--hardware", "h100-sxm5")
    assert out.returncode == 0, out.stderr
    assert "3 measured points on h100-sxm5" in out.stdout and "residual_add" in out.stdout
    bad = cli("measurements", str(fixtures / "own_bad_line3.csv"), "--format", "csv", "--hardware", "h100-sxm5")
    assert bad.returncode == 2 and "line 3: bytes" in bad.stderr and "Traceback" not in bad.stderr


SERVING_70B = ("serving", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--concurrency", "64")


@pytest.mark.parametrize(
    "flags,named",
    [
        (("--prefill-workers", "0"), "--prefill-workers: 0 is not an integer in [1, 1024]"),
        (("--decode-tp", "0"), "--decode-tp: 0 is not an integer in [1, 1024]"),
        (("--prefill-batch", "0"), "--prefill-batch: 0 is not an integer in [1, 1024]"),
        (("--kv-link", "-5"), "--kv-link: '-5' is out of range (allowed: bandwidth 0.001-100,000 GB/s"),
        (("--kv-link", "50:-1"), "--kv-link: '50:-1' is out of range"),
        # an empty latency, an underscore and another script's digits are no ASCII decimal (as in the API)
        (("--kv-link", "50:"), "--kv-link: '50:' is not auto or GB/s[:us]"),
        (("--kv-link", "1_000"), "--kv-link: '1_000' is not auto or GB/s[:us]"),
        (("--kv-link", "\u0661\u0660"), "is not auto or GB/s[:us]"),
        (("--draft-model", "llama-3.1-8b"), "--draft-model: describes speculative decoding, which --speculative"),
    ],
)
def test_a_disaggregated_or_draft_flag_out_of_range_is_refused_in_the_flag_s_words(flags, named):
    """0 was read as "left out" and answered as 1; a draft flag without --speculative answered as
    if no draft had been asked; a link out of range was named in bytes/s and seconds."""
    r = cli(*SERVING_70B, *flags)
    assert r.returncode == 2 and named in r.stderr, r.stderr


def test_a_deployment_decoding_on_another_card_names_both_in_its_first_line():
    r = cli("serving", "--model", "llama-3.1-70b", "--hardware", "h200-sxm", "--prefill-tp", "4", "--decode-tp", "4",
            "--decode-hardware", "l40s", "--decode-dp", "8")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("llama-3.1-70b on 4 x h200-sxm (prefill) + 32 x l40s (decode):")


def test_plan_takes_the_memory_rule_and_names_it_when_nothing_fits():
    r = cli("plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--gpus", "2", "--memory-utilization", "1e-9")
    assert r.returncode == 0, r.stderr
    # no budget or precision holds a model in a billionth of the card: the memory rule alone would
    first = r.stdout.splitlines()[0]
    assert first == "No candidate fits in memory on 2 GPUs: it would take a memory_utilization above 1e-09"
