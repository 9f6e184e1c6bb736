"""`llm-roofline serve`: the dashboard and API under uvicorn."""

from __future__ import annotations

import argparse

from engine.hardware import catalogue


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    s = sub.add_parser("serve", help="run the dashboard and API (uvicorn)")
    s.add_argument("--host", default=None, help="address (default 127.0.0.1, env LLM_ROOFLINE_HOST)")
    s.add_argument("--port", type=int, default=None, help="port (default 8050, env LLM_ROOFLINE_PORT)")
    s.add_argument("--workers", type=int, default=None, help="worker processes (default 1)")
    s.add_argument("--root-path", default=None, help="sub-path behind a reverse proxy, e.g. /roofline")
    s.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    import os

    from ..config import get_settings
    from ..server import run

    # Workers are separate processes that build their own app from the environment, so the
    # command-line choices travel as the same LLM_ROOFLINE_* variables the settings read.
    overrides = {"HOST": args.host, "PORT": args.port, "WORKERS": args.workers, "ROOT_PATH": args.root_path}
    for key, value in overrides.items():
        if value is not None:
            os.environ[f"LLM_ROOFLINE_{key}"] = str(value)
    get_settings.cache_clear()
    settings = get_settings()
    if settings.hardware_dir:
        os.environ["LLM_ROOFLINE_HARDWARE_DIR"] = settings.hardware_dir
    catalogue()  # fail here, with the file and field, rather than in every worker
    run(settings)
    return 0
