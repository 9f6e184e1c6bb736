"""The Serving page's words: its catalogue is locales/<lang>.json beside this file, merged with
every other page's by lib/i18n (one key lives in one file). `w` and `why` are the names the
page's modules use for `t` and `reason`."""

from __future__ import annotations

from pathlib import Path

from app.dashboard.lib.i18n import LANGS, load_file, reason, t

_DIR = Path(__file__).resolve().parent / "locales"
# The page's own keys only (the parity and coverage tests read them).
CATALOGUES: dict[str, dict[str, str]] = {lang: load_file(_DIR / f"{lang}.json") for lang in LANGS}

w = t
why = reason
