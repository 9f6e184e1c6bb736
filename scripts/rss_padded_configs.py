"""RSS of a server process before and after distinct ~190 KB padded configs (issue 11, item 5).

    python scripts/rss_padded_configs.py [count]

Starts `llm-roofline serve` on a free loopback port, POSTs `count` (default 200) distinct
custom configs, each a Llama config plus 190 junk keys of 1,000 characters, to
/api/v1/analyze, and prints the server's resident memory before and after."""

import sys
from pathlib import Path

import httpx2 as httpx
from live_server import live_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.model_catalog import preset_records  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main(count: int = 200) -> int:
    base_config = preset_records()["llama-3-8b"]["config"]
    with live_server() as (proc, base), httpx.Client(base_url=base, timeout=60) as client:
        client.post("/api/v1/analyze", json={"model": "llama-3-8b", "hardware": ["h100-sxm5"]})  # warm
        before = rss_mb(proc.pid)
        for i in range(count):
            config = base_config | {f"junk_{i}_{k}": "x" * 1000 for k in range(190)}
            r = client.post("/api/v1/analyze", json={"model": config, "hardware": ["h100-sxm5"]})
            r.raise_for_status()
            if (i + 1) % 50 == 0:
                print(f"{i + 1} configs: RSS {rss_mb(proc.pid):.0f} MB")
        after = rss_mb(proc.pid)
    grown = after - before
    print(f"RSS before {before:.0f} MB, after {count} distinct padded configs {after:.0f} MB (+{grown:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
