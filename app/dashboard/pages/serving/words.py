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


def runs_count(n: int, lang: str) -> str:
    """ "1 run", "5 runs" (zh: "1 次实测")."""
    return t("srv_n_runs_one" if n == 1 else "srv_n_runs", lang, n=f"{n:,}")


def fit_errors(report) -> dict[str, str]:
    """A fit's median errors on its runs, before and after (engine.serving_userfit.FitReport)."""
    errors = (report.tpot_error_before, report.tpot_error_after, report.ttft_error_before, report.ttft_error_after)
    return {key: f"{e * 100:.1f}%" for key, e in zip(("t0", "t1", "f0", "f1"), errors, strict=True)}
