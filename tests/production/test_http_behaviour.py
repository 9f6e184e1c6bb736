"""Security headers, limits, gzip, CORS and access logs of the whole ASGI app."""

import json
import logging
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from offline_smoke import CALLBACK  # noqa: E402  (the same callback payload the browser sends)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings()))


@pytest.mark.parametrize(
    "path", ["/", "/healthz", "/api/v1/hardware", "/assets/app.js", "/_dash-layout", "/api/nowhere"]
)
def test_security_headers_everywhere(client, path):
    r = client.get(path)
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in csp and "default-src 'self'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "server" not in r.headers


def test_frame_ancestors_from_settings():
    app = create_app(Settings(frame_ancestors="'self' https://wiki.example.com"))
    r = TestClient(app).get("/")
    assert "frame-ancestors 'self' https://wiki.example.com" in r.headers["content-security-policy"]


def test_dash_callback_body_limit(client):
    ok = client.post("/_dash-update-component", json=CALLBACK)
    assert ok.status_code == 200 and "point--h100-sxm5--decode" in ok.text
    big = dict(CALLBACK, padding="x" * (300 * 1024))
    assert client.post("/_dash-update-component", json=big).status_code == 413


def test_chunked_upload_without_length_is_limited(client):
    def chunks():
        for _ in range(40):
            yield b"x" * 8192

    r = client.post("/api/v1/analyze", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_gzip_over_1kb_only(client):
    big = client.get("/api/v1/hardware", headers={"accept-encoding": "gzip"})
    assert big.headers.get("content-encoding") == "gzip"
    small = client.get("/healthz", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in small.headers


def test_fingerprinted_bundles_cached_long(client):
    page = client.get("/").text
    bundle = page.split('src="')[1].split('"')[0]
    assert client.get(bundle).headers["cache-control"].startswith(("max-age=31536000", "public, max-age=31536000"))
    asset = client.get("/assets/app.js?m=123")
    assert "max-age=31536000" in asset.headers["cache-control"]


def test_cors_off_by_default_and_configurable(client):
    pre = {"origin": "https://notebook.example.com", "access-control-request-method": "POST"}
    assert "access-control-allow-origin" not in client.options("/api/v1/analyze", headers=pre).headers
    app = create_app(Settings(cors_origins="https://notebook.example.com"))
    r = TestClient(app).options("/api/v1/analyze", headers=pre)
    assert r.headers["access-control-allow-origin"] == "https://notebook.example.com"


def test_structured_access_log(client, caplog):
    with caplog.at_level(logging.INFO, logger="llm_roofline.access"):
        client.get("/healthz")
    line = json.loads(caplog.records[-1].getMessage())
    assert line["path"] == "/healthz" and line["status"] == 200 and line["duration_ms"] >= 0


def test_healthz_is_cheap(client):
    r = client.get("/healthz")
    assert r.json() == {"status": "ok", "version": r.json()["version"]} and len(r.content) < 100


@pytest.mark.parametrize("prefix", ["/roofline", ""])  # proxy keeps the prefix / proxy strips it
def test_sub_path_with_and_without_prefix_stripping(prefix):
    client = TestClient(create_app(Settings(root_path="/roofline")))
    assert client.get(prefix + "/healthz").json()["status"] == "ok"
    assert client.get(prefix + "/api/v1/models").status_code == 200
    assert client.get(prefix + "/api/nope").headers["content-type"].startswith("application/json")
    page = client.get(prefix + "/").text
    assert '"requests_pathname_prefix":"\\u002froofline\\u002f"' in page
    assert 'src="/roofline/_dash-component-suites/' in page
    assert 'data-openapi-url="/roofline/openapi.json"' in client.get(prefix + "/docs").text
    assert client.post(prefix + "/_dash-update-component", json=CALLBACK).status_code == 200


@pytest.mark.parametrize(
    "input_id, value",
    [
        ("hardware", 5),
        ("hardware", "h100-sxm5"),
        ("hardware", [{"x": 1}]),
        ("model", ["llama"]),
        ("model", {"model_type": "gpt2"}),
        ("custom-model", "not a dict"),
        ("custom-model", {"config": {"model_type": "gpt2"}, "token": 5}),
        ("settled", {"batch": 1e308, "ctx": "many"}),
        ("settled", [32, 4096]),
        ("kv-heads", -1),
        ("precision", 99),
        ("kv-precision", ["bf16"]),
        ("flash-attention", {"a": 1}),
        ("tensor-parallel", 3),
        ("bandwidth-efficiency", "x"),
        ("compute-efficiency", -5),
        ("measured-step", "0"),
        ("measurements", {"format": "csv", "content": 5}),
        ("measurements", {"format": "xlsx", "content": "a"}),
        ("output-tokens", 1e300),
        ("gpu-price", 1e300),
        ("memory-utilization", 7),
        ("published", "yes"),
    ],
)
def test_hostile_callback_values_never_500(client, input_id, value):
    """Hand-made callback requests get an answer (a message in the figure), never a 500."""
    body = {**CALLBACK, "inputs": [dict(i) for i in CALLBACK["inputs"]]}
    next(i for i in body["inputs"] if i["id"] == input_id)["value"] = value
    r = client.post("/_dash-update-component", json=body)
    assert r.status_code in (200, 204), r.text[:300]


def test_bad_user_hardware_stops_the_start(tmp_path):
    """A broken accelerator file is reported with its path and field before serving starts."""
    import os
    import subprocess

    (tmp_path / "my-card.yaml").write_text("id: my-card\nname: x\nvendor: y\nmemory_bytes: -1\n")
    env = {**os.environ, "LLM_ROOFLINE_HARDWARE_DIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", "1"], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert "my-card.yaml" in run.stderr and "memory_bytes" in run.stderr and "Traceback" not in run.stderr
