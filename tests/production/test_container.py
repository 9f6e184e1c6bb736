"""The container recipe, exercised without a Docker engine: lint the Dockerfile with
hadolint, check the lock file against pyproject.toml, then run the Dockerfile's own install
and start commands in a fresh venv and stop the server the way a container runtime does."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def test_hadolint_clean():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    out = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_image_shape():
    assert len(re.findall(r"^FROM python:3\.11-slim", DOCKERFILE, re.M)) == 2  # multi-stage, slim base
    assert re.search(r"^USER \d+", DOCKERFILE, re.M)  # non-root
    assert "HEALTHCHECK" in DOCKERFILE and "/healthz" in DOCKERFILE and "EXPOSE 8050" in DOCKERFILE
    final = DOCKERFILE.split("\nFROM ")[-1]
    assert "gcc" not in final and "build-essential" not in final  # no compilers in the image


def test_lock_pins_every_dependency():
    deps = [Requirement(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    for dep in deps:
        version = pins.get(dep.name.lower().replace("_", "-"))
        assert version, f"{dep.name} is not pinned in requirements.lock"
        assert dep.specifier.contains(version), f"{dep.name}=={version} outside {dep.specifier}"


def _run_lines() -> list[str]:
    return [" ".join(m.split()) for m in re.findall(r"^RUN (pip install .+)$", DOCKERFILE, re.M)]


def _cmd() -> list[str]:
    return json.loads(re.search(r"^CMD (\[.+\])$", DOCKERFILE, re.M).group(1))


def _healthcheck() -> list[str]:
    return json.loads(re.search(r"CMD (\[\"python\", \"-c\".+\])$", DOCKERFILE, re.M).group(1))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_install_and_start_commands_in_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    assert _run_lines() == [
        "pip install --no-cache-dir --no-deps -r requirements.lock",
        "pip install --no-cache-dir --no-deps -e .",
    ]
    for line in _run_lines():
        out = subprocess.run(line.split(), cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-2000:]
    port = _free_port()
    env.update(LLM_ROOFLINE_HOST="127.0.0.1", LLM_ROOFLINE_PORT=str(port), DASH_DISABLE_VERSION_CHECK="true")
    server = subprocess.Popen(_cmd(), cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    assert json.loads(r.read())["status"] == "ok"
                break
            except OSError:
                assert server.poll() is None and time.time() < deadline, "server did not start"
                time.sleep(0.3)
        health = subprocess.run(_healthcheck(), env=env, capture_output=True, timeout=30)
        assert health.returncode == 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert r.status == 200 and b"_dash-config" in r.read()
    finally:
        server.send_signal(signal.SIGTERM)  # what `docker stop` sends
        code = server.wait(timeout=20)
        _, err = server.communicate()
    # uvicorn finishes in-flight work, runs the shutdown hooks, then re-raises SIGTERM so the
    # exit status tells the runtime which signal ended it
    assert code in (0, -signal.SIGTERM), err[-2000:]
    assert "Application shutdown complete" in err and "Finished server process" in err
