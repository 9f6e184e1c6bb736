"""Load and soak test against `llm-roofline serve` on loopback (bounded in count and time).

    python scripts/load_test.py                 # 1 and 2 workers x 8, 32, 128 clients, 10 s each
    python scripts/load_test.py --soak 180      # 32 clients for 180 s, server memory sampled

Each client loops over a mix of POST /api/v1/analyze (varied model, batch, context, GPUs)
and POST /_dash-update-component (the roofline callback the dashboard sends on a slider
move). Prints throughput, p50/p95/p99 latency and errors. Only 127.0.0.1 is ever contacted.
"""

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import live_server  # noqa: E402
from offline_smoke import CALLBACK  # noqa: E402

MODELS = ["llama-3-8b", "llama-3-70b", "qwen2.5-7b-instruct", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"]
GPUS = ["h100-sxm5", "h200-sxm", "rtx-4090", "mi300x", "b200", "l40s"]
MAX_REQUESTS_PER_RUN = 200_000


def request_for(rng: random.Random) -> tuple[str, dict]:
    if rng.random() < 0.5:
        return "/api/v1/analyze", {
            "model": rng.choice(MODELS),
            "hardware": rng.sample(GPUS, rng.randint(1, 4)),
            "batch_size": rng.choice([1, 8, 32, 64, 256]),
            "context_length": rng.choice([512, 4096, 32768]),
        }
    body = {**CALLBACK, "inputs": [dict(i) for i in CALLBACK["inputs"]]}
    body["inputs"][3]["value"] = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
    return "/_dash-update-component", body


async def client_loop(client: httpx.AsyncClient, deadline: float, stats: dict, rng: random.Random) -> None:
    while time.perf_counter() < deadline and stats["count"] < MAX_REQUESTS_PER_RUN:
        path, body = request_for(rng)
        start = time.perf_counter()
        try:
            r = await client.post(path, json=body)
            ok = r.status_code == 200
        except httpx.HTTPError:
            ok = False
        stats["latency"].append(time.perf_counter() - start)
        stats["count"] += 1
        stats["errors"] += 0 if ok else 1


async def run_load(base: str, clients: int, seconds: float) -> dict:
    stats = {"latency": [], "count": 0, "errors": 0}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        deadline = time.perf_counter() + seconds
        start = time.perf_counter()
        await asyncio.gather(*(client_loop(client, deadline, stats, random.Random(i)) for i in range(clients)))
        stats["elapsed"] = time.perf_counter() - start
    return stats


def summary(stats: dict) -> str:
    lat = sorted(stats["latency"])
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0]] * 99
    return (
        f"{stats['count'] / stats['elapsed']:8.0f} req/s  p50 {q[49] * 1e3:7.1f} ms  p95 {q[94] * 1e3:7.1f} ms  "
        f"p99 {q[98] * 1e3:7.1f} ms  errors {stats['errors']}"
    )


def warm(base: str) -> None:
    """Fill every worker's caches before measuring."""
    asyncio.run(run_load(base, 4, 2.0))


def rss_bytes(pid: int) -> int:
    """Resident memory of a process and its children (the uvicorn workers)."""
    total = 0
    pids = [pid] + [
        int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    ]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--soak", type=float, default=0.0, help="soak for this many seconds instead")
    args = parser.parse_args()
    if args.soak:
        with live_server(1) as (proc, base):
            warm(base)
            samples = [rss_bytes(proc.pid)]
            total = {"latency": [], "count": 0, "errors": 0, "elapsed": 0.0}
            end = time.time() + args.soak
            while time.time() < end:
                stats = asyncio.run(run_load(base, 32, min(15.0, end - time.time())))
                for key in ("latency",):
                    total[key] += stats[key]
                total["count"] += stats["count"]
                total["errors"] += stats["errors"]
                total["elapsed"] += stats["elapsed"]
                samples.append(rss_bytes(proc.pid))
            print(f"soak {args.soak:.0f} s, 32 clients, 1 worker: {summary(total)}")
            print("server RSS (MB) every ~15 s: " + ", ".join(f"{s / 1e6:.0f}" for s in samples))
        return
    print(f"{'workers':>7} {'clients':>7}  result ({args.seconds:.0f} s each, loopback, mixed API + callback)")
    for workers in args.workers:
        with live_server(workers) as (_, base):
            warm(base)
            for clients in args.clients:
                stats = asyncio.run(run_load(base, clients, args.seconds))
                print(f"{workers:>7} {clients:>7}  {summary(stats)}")


if __name__ == "__main__":
    main()
