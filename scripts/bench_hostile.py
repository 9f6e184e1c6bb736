"""The worst legal requests, measured (a benchmark, not a test).

    .venv/bin/python scripts/bench_hostile.py [--rss N] [--load SECONDS] [--custom-models N]
        [--validate-rows N ...] [--only api|dash|custom-models|validate]

Starts `llm-roofline serve` on a free loopback port (one worker) and reports:

1. per endpoint and per Dash callback, the worst legal request this script knows: each is sent
   three times with distinct values (so no cache answers it), the slowest and the median wall
   time in ms, and the median CPU time the server spent on it (the figure that does not grow
   when other processes share the machine's cores);
2. /healthz p50, p95 and max, sampled every 50 ms, while 8 clients loop on the worst request
   (`healthz_under_load` takes any (method, path, body(i)) request: a new flood is one call);
3. the server's RSS before and after N (default 1,000) distinct worst-case requests;
4. the server's RSS over N (default 5,000) POST /api/v1/serving with distinct custom models,
   each a 4-layer Llama whose `_name_or_path` is 250 KB (issue "Hardening, fourth round", 1);
5. `llm-roofline validate serving` on files of the shipped runs repeated to 1M rows (refused by
   its stated size limit) and to its row limit (streamed): wall time, peak RSS and exit status
   (`--validate-rows 0` skips it; `--only validate` runs it alone, without a server).

Targets (issues "Hardening, third round" and "fourth round"): every request < 1 s, /healthz
< 100 ms, RSS growth < 100 MB. Figures depend on the machine: the README quotes them with the
machine's core count.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx2 as httpx
from live_server import live_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engine.measurement import MAX_RECORDS  # noqa: E402
from engine.model_catalog import preset_records  # noqa: E402
from engine.serving.mapping import MAX_ROWS, TRAINING_CSV  # noqa: E402

EIGHT = ["h100-sxm5", "h200-sxm", "b200", "mi300x", "rtx-4090", "l4", "a100-80gb-sxm", "tpu-v5e"]
SIXTEEN = EIGHT * 2


def deep_config(i: int) -> dict:
    """A 1,024-layer Llama (the deepest config accepted), alternating sliding and full
    attention so no two neighbouring layers are the same; a distinct name per i."""
    layers = 1024
    return dict(preset_records()["llama-3-8b"]["config"]) | {
        "_name_or_path": f"deep-{i}",
        "num_hidden_layers": layers,
        "sliding_window": 4096,
        "layer_types": ["sliding_attention" if k % 2 else "full_attention" for k in range(layers)],
    }


def long_named_config(i: int) -> dict:
    """A 4-layer Llama (hidden 1,024) whose `_name_or_path` is 250 KB, distinct per i."""
    return dict(preset_records()["llama-3-8b"]["config"]) | {
        "_name_or_path": f"{i:08d}" + "n" * 250_000,
        "hidden_size": 1024,
        "num_hidden_layers": 4,
    }


def csv_rows(rows: int, i: int = 0) -> str:
    """`rows` measured rows in under the 256 KiB body limit; the first row's name makes it distinct."""
    return f"name,flops,bytes,time_s\nv{i},1e9,1e6,1e-3\n" + "".join(f"{k},{k + 1},1e6,1e-3\n" for k in range(rows - 1))


def torch_table(i: int) -> str:
    name = ("vectorized_elementwise" * 11636)[: 200_000 - 100] + str(i)
    return "----  ----\nName  Self CUDA\n----  ----\n" + name + "  1.0ms\n"


# name -> (method, path, body for variant i)
API: dict[str, tuple[str, str, Callable[[int], dict | None]]] = {
    "POST /api/v1/analyze": (
        "POST",
        "/api/v1/analyze",
        lambda i: {"model": deep_config(i), "hardware": SIXTEEN, "batch_size": 1 + i, "context_length": 1 << 20,
                   "num_kv_heads": 1, "output_tokens": 4096, "gpu_hour_price": 2.0},
    ),
    "POST /api/v1/sweep": (
        "POST",
        "/api/v1/sweep",
        lambda i: {"model": deep_config(i), "hardware": SIXTEEN, "num_kv_heads": 1,
                   "batch_sizes": list(range(1 + i, 1 + i + 1024))},
    ),
    f"POST /api/v1/measurements ({MAX_RECORDS:,} rows)": (
        "POST",
        "/api/v1/measurements",
        lambda i: {"format": "csv", "hardware": "h100-sxm5", "model": "llama-3-8b",
                   "content": csv_rows(MAX_RECORDS, i)},
    ),
    "POST /api/v1/measurements (torch_table name)": (
        "POST",
        "/api/v1/measurements",
        lambda i: {"format": "torch_table", "hardware": "h100-sxm5", "content": torch_table(i)},
    ),
    "POST /api/v1/ops": (
        "POST",
        "/api/v1/ops",
        lambda i: {"hardware": SIXTEEN, "op": {"kind": "conv2d", "batch": 256 + i, "height": 224, "width": 224,
                   "in_channels": 512, "out_channels": 512, "kernel": 7, "stride": 1, "padding": 3, "groups": 1}},
    ),
    "POST /api/v1/ops/chart": (
        "POST",
        "/api/v1/ops/chart",
        lambda i: {"hardware": SIXTEEN, "model": "deepseek-v3", "context_length": (1 << 20) - i},
    ),
    "POST /api/v1/training": (
        "POST",
        "/api/v1/training",
        # 720,720 sequences per GPU: 240 divisors for the smallest-fix search
        lambda i: {"model": {"num_params": 1e12 + i, "num_layers": 128, "num_heads": 128, "head_dim": 128},
                   "hardware": "h100-sxm5", "gpus": 8, "sequence_length": 1, "tokens_per_step": 8 * 720720,
                   "step_time_s": 1e-6, "bus_bandwidth_bytes_per_s": 1e6},
    ),
    "POST /api/v1/serving/curve (256 points)": (
        "POST",
        "/api/v1/serving/curve",
        lambda i: {"model": deep_config(i), "hardware": "b200", "tensor_parallel": 8, "input_tokens": 8192,
                   "output_tokens": 1024, "concurrencies": list(range(1, 257))},
    ),
    "GET /api/v1/published-measurements": ("GET", "/api/v1/published-measurements", lambda i: None),
    "GET /api/v1/ops/presets": ("GET", "/api/v1/ops/presets?model=deepseek-v3&batch=65536", lambda i: None),
    "GET /api/v1/hardware": ("GET", "/api/v1/hardware", lambda i: None),
    "GET /api/v1/models": ("GET", "/api/v1/models", lambda i: None),
}  # fmt: skip


def send(client: httpx.Client, method: str, path: str, body: dict | None) -> tuple[int, float]:
    start = time.perf_counter()
    if method == "GET_LAYOUT":  # the Dash layout of the view named in the Referer header
        r = client.get(path, headers=body)
    elif method == "GET":
        r = client.get(path)
    else:
        r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    return r.status_code, (time.perf_counter() - start) * 1e3


def cpu_ms(pid: int) -> float:
    """CPU time the server process has used (user + system), ms: unlike wall time, it does not
    grow when other processes share the cores."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e3 / os.sysconf("SC_CLK_TCK")


def worst_requests(client: httpx.Client, pid: int, requests: dict, offset: int = 0) -> None:
    print(f"{'request':72} {'status':>6} {'slowest ms':>10} {'median ms':>9} {'server CPU ms':>13}")
    for name, (method, path, body) in requests.items():
        runs, cpu = [], []
        for k in range(3):
            payload = body(offset + k)  # built first: a Dash envelope reads the view's layout from the server
            before = cpu_ms(pid)
            runs.append(send(client, method, path, payload))
            cpu.append(cpu_ms(pid) - before)
        times = [ms for _, ms in runs]
        print(
            f"{name:72} {runs[0][0]:>6} {max(times):>10.0f} {statistics.median(times):>9.0f} "
            f"{statistics.median(cpu):>13.0f}"
        )


def healthz_under_load(base: str, name: str, request: tuple, seconds: float) -> None:
    method, path, body = request
    stop = time.monotonic() + seconds
    counter = iter(range(10_000, 10**9))
    lock = threading.Lock()

    def client_loop() -> None:
        with httpx.Client(base_url=base, timeout=120) as c:
            while time.monotonic() < stop:
                with lock:
                    i = next(counter)
                send(c, method, path, body(i))

    threads = [threading.Thread(target=client_loop) for _ in range(8)]
    for t in threads:
        t.start()
    samples = []
    with httpx.Client(base_url=base, timeout=30) as c:
        while any(t.is_alive() for t in threads):
            samples.append(send(c, "GET", "/healthz", None)[1])
            time.sleep(0.05)
    for t in threads:
        t.join()
    samples.sort()
    print(
        f"/healthz while 8 clients loop on {name}: p50 {samples[len(samples) // 2]:.1f} ms, "
        f"p95 {samples[int(len(samples) * 0.95)]:.1f} ms, max {samples[-1]:.1f} ms ({len(samples)} samples)"
    )


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def rss_growth(client: httpx.Client, pid: int, requests: dict, count: int) -> None:
    before = rss_mb(pid)
    names = list(requests)
    for k in range(count):
        method, path, body = requests[names[k % len(names)]]
        send(client, method, path, body(100_000 + k))
    after = rss_mb(pid)
    print(
        f"RSS before {before:.0f} MB, after {count} distinct worst-case requests {after:.0f} MB "
        f"(+{after - before:.0f} MB)"
    )


def custom_model_rss(client: httpx.Client, pid: int, count: int) -> None:
    """RSS over `count` POST /api/v1/serving with distinct long-named custom models."""
    send(client, "POST", "/api/v1/serving", {"model": "llama-3-8b", "hardware": "h100-sxm5"})  # warm
    before = rss_mb(pid)
    status: dict[int, int] = {}
    for k in range(count):
        body = {"model": long_named_config(k), "hardware": "h100-sxm5", "concurrency": 8}
        code = send(client, "POST", "/api/v1/serving", body)[0]
        status[code] = status.get(code, 0) + 1
        if (k + 1) % 1000 == 0:
            print(f"  {k + 1} custom models: RSS {rss_mb(pid):.0f} MB")
    after = rss_mb(pid)
    print(
        f"RSS before {before:.0f} MB, after {count} distinct custom models with 250 KB names {after:.0f} MB "
        f"(+{after - before:.0f} MB; statuses {status})"
    )


def repeated_runs(path: str, rows: int) -> int:
    """The shipped runs repeated to `rows` rows (ids made distinct); returns the file's bytes."""
    with open(TRAINING_CSV, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        columns, shipped = reader.fieldnames, list(reader)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for k in range(rows):
            row = shipped[k % len(shipped)]
            writer.writerow(row | {"id": f"{row['id']}-{k}"})
    return os.path.getsize(path)


def validate_at_scale(counts: list[int]) -> None:
    """`llm-roofline validate serving --json` on each file: wall time, the process's peak RSS
    (wait4's ru_maxrss) and its exit status with the last line it wrote to stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        for rows in counts:
            path = os.path.join(tmp, f"runs-{rows}.csv")
            size = repeated_runs(path, rows)
            start = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "validate", "serving", "--data", path, "--json"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            last = ""
            for line in proc.stderr:
                last = line.strip()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            print(
                f"validate serving, {rows:,} rows ({size / 1e6:.0f} MB): {time.perf_counter() - start:.1f} s, "
                f"peak RSS {usage.ru_maxrss / 1024:.0f} MB, exit {proc.returncode}" + (f" ({last})" if last else "")
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rss", type=int, default=1000, help="distinct worst-case requests for the RSS figure")
    parser.add_argument("--load", type=float, default=20.0, help="seconds of 8-client load for /healthz")
    parser.add_argument("--custom-models", type=int, default=5000, help="distinct custom models for their RSS")
    parser.add_argument(
        "--validate-rows",
        type=int,
        nargs="*",
        default=[1_000_000, MAX_ROWS],
        help="row counts of the validate serving files (none: skip)",
    )
    parser.add_argument("--only", choices=("api", "dash", "custom-models", "validate"), default=None)
    args = parser.parse_args()
    if args.only in (None, "validate") and args.validate_rows:
        validate_at_scale(args.validate_rows)
    if args.only == "validate":
        return 0
    with live_server() as (proc, base), httpx.Client(base_url=base, timeout=120) as client:
        send(client, "POST", "/api/v1/analyze", {"model": "llama-3-8b", "hardware": ["h100-sxm5"]})  # warm
        if args.only in (None, "custom-models") and args.custom_models > 0:
            custom_model_rss(client, proc.pid, args.custom_models)
        if args.only == "custom-models":
            return 0
        requests, heaviest = {}, []
        if args.only != "dash":
            requests |= API
            heaviest += ["POST /api/v1/sweep", "POST /api/v1/serving/curve (256 points)"]
        if args.only != "api":
            import bench_hostile_dash as dash  # the Dash layout's and callbacks' worst requests

            requests |= dash.requests(client)
            heaviest.append(dash.HEAVIEST)
        worst_requests(client, proc.pid, requests)
        for name in heaviest if args.load > 0 else []:
            healthz_under_load(base, name, requests[name], args.load)
        rss_growth(client, proc.pid, requests, args.rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
