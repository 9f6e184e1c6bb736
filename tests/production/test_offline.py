"""No outbound network at run time: the app starts and serves in a network namespace that
has only a loopback interface (unshare -n). Where namespaces are not available, fall back
to checking that serving opens no socket to anything but loopback."""

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _can_unshare() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="no network namespaces here (see the socket test)")
def test_serves_with_networking_disabled():
    out = subprocess.run(
        ["unshare", "-n", "sh", "-c", f"ip link set lo up && {sys.executable} scripts/offline_smoke.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "offline ok" in out.stdout


def test_no_socket_leaves_loopback(monkeypatch):
    """Serve the page, a callback and the API in-process while every outbound connect is
    recorded: only loopback may appear."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import offline_smoke

    seen: list[tuple] = []
    real_connect = socket.socket.connect

    def recording_connect(self, address):
        seen.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", recording_connect)
    assert offline_smoke.main(port=_free_port()) == 0
    assert seen and all(addr[0] in ("127.0.0.1", "::1", "localhost") for addr in seen if isinstance(addr, tuple))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
