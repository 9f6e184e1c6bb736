"""POST /api/v1/analyze latency over loopback (a benchmark, not a test).

Starts `llm-roofline serve` on a free port, sends N sequential requests (one model, four
accelerators, varied batch sizes) and prints p50/p95/p99.
"""

import statistics
import sys
import time

import httpx2 as httpx
from live_server import live_server


def main(n: int = 2000) -> None:
    with live_server() as (_, base), httpx.Client(base_url=base, timeout=10) as client:
        hw = ["h100-sxm5", "h200-sxm", "rtx-4090", "mi300x"]
        times = []
        for i in range(n):
            body = {"model": "llama-3-8b", "hardware": hw, "batch_size": 1 + i % 256, "context_length": 4096}
            start = time.perf_counter()
            r = client.post("/api/v1/analyze", json=body)
            times.append((time.perf_counter() - start) * 1e3)
            assert r.status_code == 200
        q = statistics.quantiles(times, n=100)
        print(f"POST /api/v1/analyze, 1 model x 4 accelerators, {n} sequential requests over loopback:")
        print(f"  p50 {q[49]:.2f} ms   p95 {q[94]:.2f} ms   p99 {q[98]:.2f} ms   (response {len(r.content)} bytes)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
