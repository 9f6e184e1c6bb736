"""Hostile files in LLM_ROOFLINE_HARDWARE_DIR (issue 11, items 7 and 10): each is refused at load
with the file named, nothing hangs, nothing is expanded."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import EngineInputError
from engine.hardware import BUILTIN_DIR, _catalogue, catalogue

GOOD = (BUILTIN_DIR / "h100-sxm5.yaml").read_text().replace("id: h100-sxm5", "id: my-card")
ALIAS_BOMB = "".join(
    [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" if i else "l0: &l0 [x]\n" for i in range(10)]
)


def _make(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "my-card.yaml"
    if kind == "alias bomb":
        path.write_text(
            GOOD + "measured_details_bomb:\n" + "".join("  " + line + "\n" for line in ALIAS_BOMB.splitlines())
        )
    elif kind == "5000-digit int":
        path.write_text(GOOD.replace("memory_bytes:", "memory_bytes: " + "9" * 5000 + "\nx:"))
    elif kind == "non-UTF-8":
        path.write_bytes(GOOD.encode() + b"\nnotes: \xff\xfe\n")
    elif kind == "directory":
        path.mkdir()
    elif kind == "deep nesting":
        path.write_text(GOOD + "notes: " + "[" * 3000 + "]" * 3000 + "\n")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "too big":
        path.write_text(GOOD + "# " + "x" * 300_000 + "\n")
    elif kind == "duplicate key":
        path.write_text(GOOD + "memory_bytes: 1\n")
    return path


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_ROOFLINE_HARDWARE_DIR", str(tmp_path))
    _catalogue.cache_clear()
    yield tmp_path
    monkeypatch.delenv("LLM_ROOFLINE_HARDWARE_DIR")
    _catalogue.cache_clear()


@pytest.mark.parametrize(
    "kind, message",
    [
        ("alias bomb", "anchors and aliases"),
        ("5000-digit int", "5000 digits"),
        ("non-UTF-8", "not UTF-8"),
        ("directory", "not a regular file"),
        ("deep nesting", "nested deeper than"),
        ("fifo", "not a regular file"),
        ("/dev/zero", "not a regular file"),
        ("too big", "larger than 262144 bytes"),
        ("duplicate key", "duplicate key 'memory_bytes'"),
    ],
)
def test_hostile_hardware_file_is_refused_with_its_path(user_dir, kind, message):
    path = _make(user_dir, kind)
    with pytest.raises(EngineInputError) as err:
        catalogue()
    assert str(path) in str(err.value) and message in str(err.value), str(err.value)


def test_a_good_file_still_loads(user_dir):
    (user_dir / "my-card.yaml").write_text(GOOD)
    assert catalogue()["my-card"].memory_bandwidth_bytes_per_s > 0


@pytest.mark.parametrize("kind", ["fifo", "alias bomb"])
def test_serve_stops_at_once_with_the_path(tmp_path, kind):
    """The start fails fast (exit 2) naming the file; a FIFO used to hang it for ever."""
    _make(tmp_path, kind)
    env = {**os.environ, "LLM_ROOFLINE_HARDWARE_DIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", "1"], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert "my-card.yaml" in run.stderr and "Traceback" not in run.stderr


# ---- scale-up domains and tensor parallelism ------------------------------------------


def test_gb300_dense_figures():
    """GB300 per GPU (Verda's dense table; NVIDIA's Blackwell Ultra blog): 15 PF NVFP4, 5 PF FP8,
    2.5 PF BF16, 8 TB/s, 288 GiB; sparse figures would be twice these. Ridge BF16 = 2.5e15 / 8e12
    = 312.5 FLOP/byte."""
    gb300, b300 = catalogue()["gb300"], catalogue()["b300"]
    t = gb300.tensor_flops_per_s
    assert (t.fp4, t.fp8, t.bf16) == (15e15, 5e15, 2.5e15)
    assert gb300.memory_bytes == 288 * 2**30 and gb300.memory_bandwidth_bytes_per_s == 8e12
    assert gb300.ridge_points_by_dtype()["bf16"] == 312.5
    assert t.fp4 > b300.tensor_flops_per_s.fp4  # the NVL72 part is clocked above the HGX B300


@pytest.mark.parametrize(
    "hardware_id, domain",
    [("h100-sxm5", 8), ("h200-sxm", 8), ("b200", 8), ("b300", 8), ("gb200", 72), ("gb300", 72), ("l4", None)],
)
def test_scale_up_domain(hardware_id, domain):
    acc = catalogue()[hardware_id]
    assert acc.scale_up_domain_size == domain
    assert acc.max_tensor_parallel == max(8, domain or 0)
    if domain:  # every stated domain names its source
        assert any(f"scale_up_domain_size = {domain}" in s.supports for s in acc.sources)


def test_every_builtin_card_states_its_domain():
    for path in sorted(BUILTIN_DIR.glob("*.yaml")):
        assert "scale_up_domain_size:" in path.read_text(), path.name


def test_domain_size_is_validated(user_dir):
    (user_dir / "my-card.yaml").write_text(GOOD.replace("sources:", "scale_up_domain_size: 1\nsources:", 1))
    with pytest.raises(EngineInputError, match="scale_up_domain_size"):
        catalogue()


def test_tensor_parallel_up_to_the_domain():
    """TP 16-72 on an NVL72 part (DeepSeek-R1's 128 heads split 64 ways); refused past an
    8-GPU HGX board, naming the field; a TP that does not divide the heads is refused as before."""
    from engine.analysis import Scenario, analyze_one
    from engine.model_catalog import get_model

    r1 = get_model("deepseek-r1")
    one = analyze_one(r1, catalogue()["gb200"], Scenario(batch_size=64, tensor_parallel=64))
    assert one["tensor_parallel"] == 64 and one["decode"]["communication_time_s"] > 0
    with pytest.raises(EngineInputError) as err:
        analyze_one(r1, catalogue()["h100-sxm5"], Scenario(tensor_parallel=16))
    assert err.value.field == "tensor_parallel" and err.value.allowed == [1, 2, 4, 8]
    with pytest.raises(EngineInputError, match="72 does not divide the 64 attention heads"):
        analyze_one(get_model("qwen3-32b"), catalogue()["gb200"], Scenario(tensor_parallel=72))
    with pytest.raises(EngineInputError, match="tensor_parallel"):
        Scenario(tensor_parallel=12)
