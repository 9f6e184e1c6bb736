"""Load mix for locust (headless): the HTTP API plus the Dash callbacks a settled slider sends.

    pip install -e '.[load]'
    llm-roofline serve --port 8050 &
    locust -f scripts/locustfile.py --headless -H http://127.0.0.1:8050 -u 32 -r 32 -t 60s --csv out/u32

Only ever aim it at a server of your own (the figures in docs/load.md are loopback only).

The dashboard part reads the callback graph from /_dash-dependencies and the initial values
from the page the server renders, so it follows the dashboard as it changes: a "slider move"
is every server-side callback that takes the settled sizes (`settled.data`) as an input, sent
with a new batch and context, as the browser sends them once a slider comes to rest (the
moves in between are clientside). If the graph has no such callback the user does API
requests only and says so at start.
"""

from __future__ import annotations

import json
import random

from locust import HttpUser, between, events, task

MODELS = ["llama-3-8b", "llama-3-70b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-20b"]
HARDWARE = ["h100-sxm5", "h200-sxm", "a100-80gb-sxm", "rtx-4090", "l4", "mi300x", "b200", "tpu-v5e"]
POWERS = [2**i for i in range(0, 9)]
CONTEXTS = [512, 1024, 2048, 4096, 8192, 16384, 32768]
SETTLED = ("settled", "data")


def _components(node: object, found: dict) -> None:
    """id -> props of every component in a layout tree (dicts of {type, namespace, props})."""
    if isinstance(node, list):
        for child in node:
            _components(child, found)
    elif isinstance(node, dict):
        props = node.get("props")
        if isinstance(props, dict):
            if isinstance(props.get("id"), str):
                found[props["id"]] = props
            _components(props.get("children"), found)


def _outputs(key: str) -> list[dict]:
    parts = key[2:-2].split("...") if key.startswith("..") else [key]
    return [dict(zip(("id", "property"), part.rsplit(".", 1), strict=False)) for part in parts]


class DashboardAndApi(HttpUser):
    wait_time = between(0, 0)  # closed loop: each user sends its next request as soon as one ends

    def on_start(self) -> None:
        self.slider_callbacks: list[dict] = []
        self.values: dict[tuple[str, str], object] = {}
        try:
            self._learn_dashboard()
        except Exception as exc:  # noqa: BLE001  (report and carry on with the API mix)
            print(f"dashboard callbacks not used: {type(exc).__name__}: {exc}")

    def _learn_dashboard(self) -> None:
        deps = self.client.get("/_dash-dependencies", name="dash: dependencies").json()
        layout = self.client.get("/_dash-layout", name="dash: layout").json()
        found: dict[str, dict] = {}
        _components(layout, found)
        if SETTLED[0] not in found:  # the page is not in the layout: ask the URL callback for it
            page = next(d for d in deps if d["output"] == "page.children")
            envelope = {
                "output": page["output"],
                "outputs": _outputs(page["output"])[0],
                "inputs": [dict(i, value="") for i in page["inputs"]],
                "state": [dict(i, value=found.get(i["id"], {}).get(i["property"])) for i in page["state"]],
                "changedPropIds": [f"{page['inputs'][0]['id']}.{page['inputs'][0]['property']}"],
            }
            rendered = self.client.post("/_dash-update-component", json=envelope, name="dash: page").json()
            _components(rendered["response"]["page"]["children"], found)
        self.values = {(cid, prop): value for cid, props in found.items() for prop, value in props.items()}
        self.slider_callbacks = [
            d
            for d in deps
            if not d.get("clientside_function") and any((i["id"], i["property"]) == SETTLED for i in d["inputs"])
        ]
        if not self.slider_callbacks or SETTLED not in self.values:
            raise LookupError("no server callback takes settled.data")

    @task(3)
    def dash_slider_settles(self) -> None:
        if not self.slider_callbacks:
            self.analyze()
            return
        settled = self.values[SETTLED]
        if isinstance(settled, dict):  # a new batch and context, keeping the store's own keys
            settled = {
                k: (
                    random.choice(POWERS)
                    if "batch" in k
                    else random.choice(CONTEXTS)
                    if "context" in k or "ctx" in k
                    else v
                )
                for k, v in settled.items()
            }
        changed = f"{SETTLED[0]}.{SETTLED[1]}"
        for dep in self.slider_callbacks:

            def value(i: dict) -> object:
                return settled if (i["id"], i["property"]) == SETTLED else self.values.get((i["id"], i["property"]))

            outputs = _outputs(dep["output"])
            body = {
                "output": dep["output"],
                "outputs": outputs if dep["output"].startswith("..") else outputs[0],
                "inputs": [dict(i, value=value(i)) for i in dep["inputs"]],
                "state": [dict(i, value=value(i)) for i in dep["state"]],
                "changedPropIds": [changed],
            }
            name = "dash: " + outputs[0]["id"]
            with self.client.post("/_dash-update-component", json=body, name=name, catch_response=True) as r:
                if r.status_code not in (200, 204):
                    r.failure(f"{r.status_code}: {r.text[:200]}")

    @task(2)
    def analyze(self) -> None:
        body = {
            "model": random.choice(MODELS),
            "hardware": random.sample(HARDWARE, random.randint(1, 4)),
            "batch_size": random.choice(POWERS),
            "context_length": random.choice(CONTEXTS),
        }
        self.client.post("/api/v1/analyze", json=body, name="api: analyze")

    @task(1)
    def sweep(self) -> None:
        body = {
            "model": random.choice(MODELS),
            "hardware": random.sample(HARDWARE, 2),
            "context_length": 4096,
            "batch_sizes": POWERS,
        }
        self.client.post("/api/v1/sweep", json=body, name="api: sweep")

    @task(1)
    def read_only(self) -> None:
        self.client.get(random.choice(["/healthz", "/api/v1/hardware", "/api/v1/models"]), name="api: GET")


@events.quitting.add_listener
def _summary(environment, **_kwargs) -> None:
    total = environment.stats.total
    print(
        json.dumps(
            {
                "requests": total.num_requests,
                "failures": total.num_failures,
                "rps": round(total.total_rps, 1),
                "p50_ms": total.get_response_time_percentile(0.5),
                "p95_ms": total.get_response_time_percentile(0.95),
                "p99_ms": total.get_response_time_percentile(0.99),
            }
        )
    )
