"""The Dash side of scripts/bench_hostile.py: the layout and every server callback, each at the
worst legal view this script knows (8 accelerators, a 1,024-layer custom config with one KV
head, the cache roofs, an import of MAX_RECORDS rows, the limit, where the callback takes one).

The callbacks are found in `/_dash-dependencies`; their input and state values are read from
the server-rendered layout of that view (`/_dash-layout` with the view's link as Referer), so
each request is the one the page itself would send. Pattern-matching callbacks are left out."""

from __future__ import annotations

import json
import zlib
from base64 import urlsafe_b64encode
from collections.abc import Iterator

import httpx2 as httpx
from bench_hostile import EIGHT, MAX_RECORDS, csv_rows, deep_config

HEAVIEST = f"Dash roofline-graph.figure, grid.data ({MAX_RECORDS:,}-row import)"


def config_token(config: dict) -> str:
    """The `cfg=` token (app/dashboard/pages/roofline/config_link.py: raw deflate, base64url)."""
    try:
        from app.dashboard.pages.roofline.config_link import encode_config

        return encode_config(config)
    except ImportError:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        raw = packer.compress(json.dumps(config, separators=(",", ":")).encode()) + packer.flush()
        return urlsafe_b64encode(raw).decode().rstrip("=")


def worst_search(i: int) -> str:
    return (
        f"hw={','.join(EIGHT)}&model=custom&cfg={config_token(deep_config(i))}&kv=1&roofs=hierarchy"
        f"&batch={1 + i % 1024}&ctx=4096"
    )


def components(node: object) -> Iterator[dict]:
    if isinstance(node, list):
        for item in node:
            yield from components(item)
    elif isinstance(node, dict) and "props" in node and "type" in node:
        yield node
        for value in node["props"].values():
            yield from components(value)


def layout_values(client: httpx.Client, search: str) -> dict[tuple[str, str], object]:
    r = client.get("/_dash-layout", headers={"referer": f"{client.base_url}/?{search}"})
    r.raise_for_status()
    values = {}
    for node in components(r.json()):
        props = node["props"]
        if isinstance(props.get("id"), str):
            for prop, value in props.items():
                values[(props["id"], prop)] = value
    return values


def outputs_of(output: str) -> list[dict]:
    parts = output.strip(".").split("...") if output.startswith("..") else [output]
    return [dict(zip(("id", "property"), part.rsplit(".", 1), strict=True)) for part in parts]


def envelope(dep: dict, values: dict, import_rows: str | None) -> dict:
    def filled(items: list[dict]) -> list[dict]:
        out = []
        for d in items:
            value = values.get((d["id"], d["property"]))
            if d["id"] == "measurements" and import_rows is not None:
                value = {"format": "csv", "content": import_rows, "steps": 1}
            out.append({"id": d["id"], "property": d["property"], "value": value})
        return out

    inputs = filled(dep["inputs"])
    return {
        "output": dep["output"],
        # a multi-output callback takes a list of outputs, a single-output one the output itself
        "outputs": outputs_of(dep["output"]) if dep["output"].startswith("..") else outputs_of(dep["output"])[0],
        "inputs": inputs,
        "state": filled(dep.get("state", [])),
        "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"] if inputs else [],
    }


def requests(client: httpx.Client) -> dict:
    deps = client.get("/_dash-dependencies").json()
    layouts: dict[int, dict] = {}

    def values(i: int) -> dict:
        if i not in layouts:
            layouts.clear()  # one view at a time: the layout is what the page would hold
            layouts[i] = layout_values(client, worst_search(i))
        return layouts[i]

    out = {
        "GET /_dash-layout (deep cfg, kv=1, 8 GPUs)": (
            "GET_LAYOUT",
            "/_dash-layout",
            lambda i: {"referer": f"{client.base_url}/?{worst_search(i)}"},
        )
    }
    for dep in deps:
        if dep.get("clientside_function") or "{" in dep["output"]:
            continue
        ids = {d["id"] for d in dep["inputs"] + dep.get("state", [])}
        if any(isinstance(d["id"], dict) or str(d["id"]).startswith("{") for d in dep["inputs"]):
            continue
        name = "Dash " + callback_name(dep)
        takes_import = "measurements" in ids
        out[name + (f" ({MAX_RECORDS:,}-row import)" if takes_import else "")] = (
            "POST",
            "/_dash-update-component",
            lambda i, dep=dep, takes_import=takes_import: envelope(
                dep, values(i), csv_rows(MAX_RECORDS, i) if takes_import else None
            ),
        )
    return out


def callback_name(dep: dict) -> str:
    outs = outputs_of(dep["output"])
    return ", ".join(f"{o['id']}.{o['property']}" for o in outs[:2]) + (" ..." if len(outs) > 2 else "")
