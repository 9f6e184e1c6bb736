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
