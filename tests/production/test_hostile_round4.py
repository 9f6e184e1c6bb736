"""Hostile requests, fourth round (issue 34): the repros of what it found in the API and the
command line (the dashboard's fit to the user's runs has its own tests). Each was a 500, a
traceback, a hang, unbounded memory or a quiet wrong answer."""

import csv
import json
import subprocess
import sys

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from engine.model_catalog import preset_records
from engine.serving.mapping import TRAINING_CSV

LLAMA = preset_records()["llama-3-8b"]["config"]
SERVING = {"model": "llama-3-8b", "hardware": "h100-sxm5"}
with open(TRAINING_CSV, newline="", encoding="utf-8") as _f:
    _reader = csv.DictReader(_f)
    COLUMNS, SHIPPED = _reader.fieldnames, list(_reader)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings(), with_dashboard=False), raise_server_exceptions=False)


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def strict_json(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def strings(node: object):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def write_runs(path, changes: list[dict]) -> str:
    """The shipped file's columns, one row per change (each a shipped row with those fields)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        for i, change in enumerate(changes):
            writer.writerow(SHIPPED[i] | change)
    return str(path)


# ---- 5. curve order, layouts beyond the board, bidi characters, lax ids --------------------------


BIDI = "llama\u202e-3-8b\u2066"


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", "/api/v1/serving", SERVING | {"model": BIDI}),
        ("post", "/api/v1/serving/curve", SERVING | {"model": BIDI}),
        ("post", "/api/v1/analyze", {"model": BIDI, "hardware": ["h100-sxm5"]}),
        ("post", "/api/v1/serving", SERVING | {"hardware": "h100\u202e"}),
        ("post", "/api/v1/analyze", {"model": "llama-3-8b", "hardware": ["x\u202e:1:1"]}),
        ("get", f"/api/v1/no-such-{BIDI}", None),
    ],
)
def test_no_echoed_string_carries_a_bidi_control(client, method, path, body):
    """The unknown-model error echoed U+202E raw: it reverses what follows it on screen."""
    r = client.post(path, json=body) if method == "post" else client.get(path)
    assert 400 <= r.status_code < 500
    echoed = list(strings(r.json()))
    assert not any(c in s for s in echoed for c in "\u202e\u2066"), echoed
    assert any("\\u202e" in s for s in echoed)


def test_the_cli_escapes_bidi_controls_too():
    done = cli("serving", "--model", BIDI, "--hardware", "h100-sxm5")
    assert done.returncode == 2 and "\u202e" not in done.stderr and "\\u202e" in done.stderr


@pytest.mark.parametrize("name", ["llama-3-8b\n", " llama-3-8b", "meta-llama/Llama-3.1-70B-FP8-FP8-FP8-FP8"])
def test_a_lookalike_model_id_does_not_resolve(client, name):
    r = client.post("/api/v1/serving", json=SERVING | {"model": name})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "unknown_model"
    assert r.json()["nearest"], r.text
