"""Issue 11 at the HTTP layer: Dash envelopes, unknown bundles, HEAD, security headers on early
answers, relative redirects, cache headers, JSON error log with request ids, the CSP, the work
cap and /healthz under load."""

import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.middleware import AccessLog

ROOT = Path(__file__).resolve().parents[2]
SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy")


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings()))


def _envelope(client) -> dict:
    """A well-formed request for the app's first single-output server callback, built from
    /_dash-dependencies (the dashboard's callbacks change; the envelope's shape does not)."""
    deps = client.get("/_dash-dependencies").json()
    dep = next(
        d
        for d in deps
        if not d["output"].startswith("..") and not d.get("clientside_function") and "@" not in d["output"]
    )
    out_id, out_prop = dep["output"].rsplit(".", 1)
    return {
        "output": dep["output"],
        "outputs": {"id": out_id, "property": out_prop},
        "inputs": [dict(i, value=None) for i in dep["inputs"]],
        "state": [dict(i, value=None) for i in dep["state"]],
        "changedPropIds": [f"{dep['inputs'][0]['id']}.{dep['inputs'][0]['property']}"],
    }


# ---- 8. Dash envelope and bundles ------------------------------------------------------


@pytest.mark.parametrize(
    "body, problem",
    [
        (b"{}", "`output` must be a string"),
        (b"[]", "must be a JSON object"),
        (b"null", "must be a JSON object"),
        (b"not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[" * 5000, "not JSON"),
        ({"output": "nope.children"}, "not a callback of this app"),
        ({"inputs": "x"}, "`inputs` must be a list"),
        ({"inputs": [{"id": 5, "property": "value"}]}, "`inputs` must be a list"),
        ({"state": {}}, "`state` must be a list"),
        ({"outputs": 5}, "`outputs` must be"),
        ({"changedPropIds": [1]}, "`changedPropIds` must be a list of strings"),
        ({"inputs": []}, "`inputs` must be this callback's: "),
        ({"inputs": [{"id": "nope", "property": "value", "value": 1}]}, "`inputs` must be this callback's: "),
    ],
)
def test_bad_callback_envelopes_are_400(client, body, problem):
    if isinstance(body, dict):
        body = json.dumps(_envelope(client) | body).encode()
    r = client.post("/_dash-update-component", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text[:200]
    assert problem in r.json()["detail"]
    assert all(h in r.headers for h in SECURITY)


def test_a_well_formed_envelope_reaches_dash(client):
    r = client.post("/_dash-update-component", json=_envelope(client))
    assert r.status_code in (200, 204), r.text[:300]


def test_unknown_bundle_is_404_without_a_traceback(client, caplog):
    with caplog.at_level(logging.ERROR):
        r = client.get("/_dash-component-suites/dash/nope.js")
    assert r.status_code == 404
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]


# ---- 12. errors: one JSON line with the request id ------------------------------------


def test_an_exception_is_one_json_log_line_with_the_request_id(caplog):
    async def broken(scope, receive, send):
        raise RuntimeError("boom")

    app = AccessLog(broken)
    with caplog.at_level(logging.INFO):
        r = TestClient(app).get("/x")
    assert r.status_code == 500
    rid = r.json()["request_id"]
    assert r.headers["x-request-id"] == rid
    errors = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "llm_roofline.error"]
    assert len(errors) == 1 and errors[0]["request_id"] == rid
    assert errors[0]["error"] == "RuntimeError: boom" and "Traceback" in errors[0]["traceback"]
    access = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "llm_roofline.access"]
    assert access[-1]["request_id"] == rid and access[-1]["status"] == 500


def test_every_answer_has_a_request_id(client):
    ids = {client.get("/healthz").headers["x-request-id"] for _ in range(3)}
    assert len(ids) == 3


# ---- 13. HEAD ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/healthz", "/api/v1/hardware", "/api/v1/models/llama-3-8b"])
def test_head_on_get_api_routes(client, path):
    get, head = client.get(path), client.head(path)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/json"
    assert head.headers["content-length"] == get.headers["content-length"]


# ---- 14. security headers on early answers --------------------------------------------


def test_413_carries_the_security_headers(client):
    r = client.post("/api/v1/analyze", content=b"x" * (300 * 1024), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert all(h in r.headers for h in SECURITY)


# ---- 15. work cap ------------------------------------------------------------------------


def test_sweep_work_is_capped_with_a_422(client):
    hardware = [h["id"] for h in client.get("/api/v1/hardware").json()["items"]][:16]
    r = client.post(
        "/api/v1/sweep", json={"model": "llama-3-8b", "hardware": hardware, "context_lengths": list(range(1, 4097))}
    )
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "context_lengths"
    assert "points x accelerators <= 16384" in r.json()["detail"]
    ok = client.post(
        "/api/v1/sweep", json={"model": "llama-3-8b", "hardware": hardware[:4], "context_lengths": list(range(1, 4097))}
    )
    assert ok.status_code == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_healthz_stays_responsive_under_heavy_requests():
    """16 maximal sweeps at once (a separate server process): /healthz answers in well under the
    Dockerfile's 3 s health-check timeout (it took 2-4 s before engine requests were gated)."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "LLM_ROOFLINE_LOG_LEVEL": "warning"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).read()
                break
            except OSError:
                assert time.time() < deadline, "server did not start"
                time.sleep(0.2)
        hardware = ["h100-sxm5", "h200-sxm", "rtx-4090", "l4"]
        body = json.dumps(
            {"model": "llama-3-8b", "hardware": hardware, "context_lengths": list(range(1, 4097))}
        ).encode()

        def heavy():
            for _ in range(2):
                request = urllib.request.Request(
                    base + "/api/v1/sweep", data=body, headers={"content-type": "application/json"}
                )
                urllib.request.urlopen(request, timeout=120).read()

        threads = [threading.Thread(target=heavy) for _ in range(16)]
        for t in threads:
            t.start()
        latencies = []
        while any(t.is_alive() for t in threads):
            start = time.perf_counter()
            urllib.request.urlopen(base + "/healthz", timeout=10).read()
            latencies.append(time.perf_counter() - start)
            time.sleep(0.05)
        latencies.sort()
        assert len(latencies) >= 5
        assert latencies[len(latencies) // 2] < 0.5 and latencies[-1] < 2.0, latencies
    finally:
        server.terminate()
        server.wait(timeout=20)


# ---- 16. sub-path redirects and cache headers ------------------------------------------


def test_root_path_redirect_is_relative_and_ignores_host():
    c = TestClient(create_app(Settings(root_path="/roofline")))
    r = c.get("/roofline?hw=l4", headers={"host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/roofline/?hw=l4"
    assert all(h in r.headers for h in SECURITY)


def test_app_redirects_never_reflect_the_host():
    """A redirect the app builds from the Host header (Starlette's slash redirect) keeps only
    its path and query."""
    from app.middleware import RootPath

    async def redirecting(scope, receive, send):
        await send(
            {
                "type": "http.response.start",
                "status": 307,
                "headers": [(b"location", b"http://evil.example/roofline/x/?q=1")],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    r = TestClient(RootPath(redirecting, "/roofline")).get("/roofline/x", follow_redirects=False)
    assert r.headers["location"] == "/roofline/x/?q=1"


def test_html_under_assets_is_not_cached_for_a_year(client):
    r = client.get("/x/assets/y?m=1")
    assert "immutable" not in r.headers.get("cache-control", "")
    r = client.get("/assets/nothing-here.css?m=1")
    assert "immutable" not in r.headers.get("cache-control", "")


# ---- 17. CSP ---------------------------------------------------------------------------


def test_csp_has_no_unsafe_eval_and_no_inline_scripts_but_dash_renderer(client):
    page = client.get("/")
    csp = page.headers["content-security-policy"]
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
    assert "'unsafe-eval'" not in script_src and "'unsafe-inline'" not in script_src
    assert "'sha256-" in script_src  # Dash's `var renderer = new DashRenderer();`, by hash
    assert "'unsafe-eval'" not in csp


# ---- 9. /docs and /redoc offline ---------------------------------------------------------


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_use_only_local_scripts(client, page):
    html = client.get(page).text
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="/' in attrs and not body.strip() for attrs, body in scripts), scripts
    for src in re.findall(r'(?:src|href)="(/[^"]+)"', html):
        assert client.get(src).status_code == 200, src
    assert "cdn." not in html and "https://" not in html


def test_redoc_bundle_asks_no_cdn(client):
    assert b"cdn.redoc.ly" not in client.get("/docs-static/redoc.standalone.js").content


def test_a_flask_exception_reaches_the_json_error_log(caplog):
    """The Dash side: Flask propagates (as create_app configures Dash's server), a2wsgi re-raises
    in the event loop, AccessLog logs one JSON line with the request id from the WSGI thread."""
    import flask
    from a2wsgi import WSGIMiddleware

    from app.middleware import request_id

    flask_app = flask.Flask("crash")
    flask_app.config["PROPAGATE_EXCEPTIONS"] = True
    seen = {}

    @flask_app.post("/cb")
    def crash():
        seen["rid"] = request_id.get()  # the id is visible in a2wsgi's thread
        raise KeyError("output")

    with caplog.at_level(logging.INFO):
        r = TestClient(AccessLog(WSGIMiddleware(flask_app))).post("/cb")
    assert r.status_code == 500 and r.json()["request_id"] == seen["rid"] != ""
    errors = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "llm_roofline.error"]
    assert [e["request_id"] for e in errors] == [seen["rid"]] and "KeyError" in errors[0]["error"]
