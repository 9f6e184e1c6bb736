"""The Serving page's words: its catalogue is locales/<lang>.json beside this file, merged with
every other page's by lib/i18n (one key lives in one file). `w` and `why` are the names the
page's modules use for `t` and `reason`."""

from __future__ import annotations

import re
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


def unfit_sentence(acc, lang: str) -> str:
    """Why an accelerator gives no answer, by its name; when the model does not fit, the
    smallest tensor-parallel degree that does (compute.AcceleratorServing.min_tp), as the
    roofline page says it."""
    error = acc.error
    params = getattr(error, "params", None)
    if getattr(error, "code", None) == "serving_no_fit" and isinstance(params, dict):
        values = {"hw": acc.name, "tp": acc.tensor_parallel, "weights": params.get("weights"), "n": acc.min_tp}
        values["usable"] = params.get("usable")
        return t("srv_no_fit_tp" if acc.min_tp else "srv_no_fit_any", lang, **values)
    return t("srv_acc_error", lang, msg=f"{acc.name}: {reason(error, lang)}")


def layout_text(tp: int, adp: int = 1, ep: int = 1) -> str:
    """An instance's layout as the page writes it: "TP4", "TP1 × DP32 · EP4"."""
    text = f"TP{tp}"
    if adp > 1:
        text += f" × DP{adp}"
    if ep > 1:
        text += f" · EP{ep}"
    return text


def backend_name(backend: str | None, lang: str) -> str:
    """A serving backend as people write it ("TensorRT-LLM", not "trtllm"); "any" for none."""
    key = f"srv_backend_{backend or 'any'}"
    return t(key, lang) if key in CATALOGUES["en"] else str(backend)


def run_description(run, lang: str) -> str:
    """A shipped run in words, instead of its raw id: backend and version, concurrency, and
    the day it was measured (its provenance column's `measured=`)."""
    day = re.search(r"measured=(\d{4}-\d{2}-\d{2})", run.data_source)
    version = f" {run.backend_version}" if run.backend_version else ""
    return t(
        "srv_run_described",
        lang,
        backend=backend_name(run.row.backend, lang) + version,
        c=f"{run.row.scenario.concurrency:,}",
        day=day.group(1) if day else "?",
    )
