"""Start the app and serve every kind of request with no network at all.

Run inside a fresh network namespace (tests/production/test_offline.py does
`unshare -n sh -c 'ip link set lo up && python scripts/offline_smoke.py'`): if the app tried
to reach anything outside the host at start-up or while serving, it would fail or hang here.
Exits 0 and prints 'offline ok' when the page, its bundles, a callback and the API all answer.
"""

import json
import re
import sys
import threading
import time

import httpx2 as httpx
import uvicorn

from app.main import app

# The roofline callback as the browser sends it after a structural change (the accelerators).
CALLBACK = {
    "output": "..roofline-graph.figure...grid.data...roofline-key.children...roofline-scenario.children..."
    "roofline-drawn.data..",
    "outputs": [
        {"id": "roofline-graph", "property": "figure"},
        {"id": "grid", "property": "data"},
        {"id": "roofline-key", "property": "children"},
        {"id": "roofline-scenario", "property": "children"},
        {"id": "roofline-drawn", "property": "data"},
    ],
    "inputs": [
        {"id": "hardware", "property": "value", "value": ["h100-sxm5"]},
        {"id": "model", "property": "value", "value": "llama-3-8b"},
        {"id": "custom-model", "property": "data", "value": {}},
        {"id": "settled", "property": "data", "value": {"batch": 32, "ctx": 4096}},
        {"id": "kv-heads", "property": "value", "value": 3},
        {"id": "kv-heads", "property": "marks", "value": {}},
        {"id": "kv-heads", "property": "disabled", "value": False},
        {"id": "precision", "property": "value", "value": "bf16"},
        {"id": "kv-precision", "property": "value", "value": "bf16"},
        {"id": "flash-attention", "property": "value", "value": ["on"]},
        {"id": "tensor-parallel", "property": "value", "value": 1},
        {"id": "kv-block", "property": "value", "value": None},
        {"id": "measured-roofs", "property": "value", "value": []},
        {"id": "hierarchy-roofs", "property": "value", "value": []},
        {"id": "bandwidth-efficiency", "property": "value", "value": 1},
        {"id": "compute-efficiency", "property": "value", "value": 1},
        {"id": "measured-step", "property": "value", "value": None},
        {"id": "output-tokens", "property": "value", "value": None},
        {"id": "concurrency", "property": "value", "value": None},
        {"id": "backend", "property": "value", "value": "trtllm"},
        {"id": "gpu-price", "property": "value", "value": None},
        {"id": "memory-utilization", "property": "value", "value": 1},
        {"id": "published", "property": "value", "value": []},
        {"id": "pin", "property": "data", "value": ""},
        {"id": "view-flags", "property": "data", "value": {"lang": "en", "embed": False}},
        {"id": "theme", "property": "value", "value": []},
        {"id": "present", "property": "value", "value": []},
        {"id": "what-if", "property": "value", "value": []},
        {"id": "measurements", "property": "data", "value": {}},
    ],
    "changedPropIds": ["hardware.value"],
    "state": [{"id": "roofline-drawn", "property": "data", "value": {}}],
}


def main(port: int = 8761) -> int:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=20) as client:
        page = client.get("/")
        assert page.status_code == 200, page.status_code
        for src in re.findall(r'src="([^"]+)"', page.text):
            assert client.get(src).status_code == 200, src
        assert client.get("/_dash-layout").status_code == 200
        assert client.get("/_dash-dependencies").status_code == 200
        update = client.post("/_dash-update-component", json=CALLBACK)
        assert update.status_code == 200 and "point--h100-sxm5--decode" in update.text, update.status_code
        analyze = client.post("/api/v1/analyze", json={"model": "llama-3-8b", "hardware": ["h100-sxm5"]})
        assert analyze.status_code == 200
        assert json.loads(analyze.text)["results"][0]["decode"]["bound"] == "memory"
    server.should_exit = True
    print("offline ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
