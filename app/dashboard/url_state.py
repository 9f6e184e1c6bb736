"""The view <-> query string. Every control is mirrored in the URL so a link reproduces the
view; a bad or hostile value is dropped with a notice, never an error page."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.hardware import catalogue
from engine.model_catalog import get_model, model_ids

DEFAULT_HARDWARE = ("h100-sxm5", "h200-sxm", "rtx-4090")
DEFAULT_MODEL = "llama-3-8b"
# Dashboard precision choices -> (weight dtype, compute dtype). "int4" is weight-only (W4A16).
PRECISIONS: dict[str, tuple[str, str]] = {
    "bf16": ("bf16", "bf16"), "fp16": ("fp16", "fp16"), "fp8": ("fp8", "fp8"),
    "int8": ("int8", "int8"), "int4": ("int4", "bf16"), "fp4": ("fp4", "fp4"),
}
KV_PRECISIONS = ("bf16", "fp8", "int8", "int4")
BATCH_RANGE = (1, 65536)        # the slider spans 1..1024; the numeric input goes further
CONTEXT_RANGE = (1, 1 << 20)    # the slider spans 128..1,048,576
MAX_HARDWARE = 8


@dataclass(frozen=True)
class View:
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    model: str = DEFAULT_MODEL
    batch: int = 32
    context: int = 4096
    kv_heads: int | None = None      # None: the model's own
    precision: str = "bf16"
    kv_precision: str = "bf16"
    flash_attention: bool = True
    tensor_parallel: int = 1
    measured_roofs: bool = False
    bandwidth_efficiency: float = 1.0
    compute_efficiency: float = 1.0
    measured_step_ms: float | None = None
    lang: str = "en"
    theme: str = "light"
    embed: bool = False
    present: bool = False
    notices: tuple[tuple[str, str, str], ...] = field(default=(), compare=False)  # (name, value, why)


def _int_in(value: str, low: int, high: int) -> int | None:
    if not value.isdigit() or len(value) > 9:
        return None
    n = int(value)
    return n if low <= n <= high else None


def _float_in(value: str, low: float, high: float) -> float | None:
    if len(value) > 20:
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if low <= x <= high else None  # NaN fails both comparisons


def _flag(value: str) -> bool | None:
    return {"1": True, "0": False, "true": True, "false": False}.get(value.lower())


def parse_query(args: dict[str, str]) -> View:
    """Build a View from query parameters; anything invalid is ignored and reported."""
    view = View()
    notices: list[tuple[str, str, str]] = []
    known_hw = catalogue()

    def bad(name: str, value: str, why: str) -> None:
        notices.append((name, value[:40], why))

    changes: dict[str, object] = {}
    for name, value in args.items():
        value = str(value)
        if name == "hw":
            ids = [h for h in value.split(",") if h]
            good = tuple(dict.fromkeys(h for h in ids if h in known_hw))
            for h in ids:
                if h not in known_hw:
                    bad(name, h, "unknown accelerator")
            if len(good) > MAX_HARDWARE:
                bad(name, ",".join(good[MAX_HARDWARE:]), f"at most {MAX_HARDWARE} accelerators at once")
                good = good[:MAX_HARDWARE]
            if good:
                changes["hardware"] = good
        elif name == "model":
            if value in model_ids():
                changes["model"] = value
            else:
                bad(name, value, "unknown model")
        elif name == "batch":
            n = _int_in(value, *BATCH_RANGE)
            changes["batch"] = n if n else view.batch
            if not n:
                bad(name, value, f"not an integer in {BATCH_RANGE[0]}..{BATCH_RANGE[1]}")
        elif name == "ctx":
            n = _int_in(value, *CONTEXT_RANGE)
            changes["context"] = n if n else view.context
            if not n:
                bad(name, value, f"not an integer in {CONTEXT_RANGE[0]}..{CONTEXT_RANGE[1]}")
        elif name == "kv":
            n = _int_in(value, 1, 1 << 16)
            if n:
                changes["kv_heads"] = n
            else:
                bad(name, value, "not a positive integer")
        elif name in ("prec", "kvprec"):
            allowed = PRECISIONS if name == "prec" else KV_PRECISIONS
            if value in allowed:
                changes["precision" if name == "prec" else "kv_precision"] = value
            else:
                bad(name, value, "one of " + ", ".join(allowed))
        elif name in ("fa", "embed", "present"):
            flag = _flag(value)
            if flag is None:
                bad(name, value, "0 or 1")
            else:
                changes["flash_attention" if name == "fa" else name] = flag
        elif name == "tp":
            if value in ("1", "2", "4", "8"):
                changes["tensor_parallel"] = int(value)
            else:
                bad(name, value, "1, 2, 4 or 8")
        elif name == "roofs":
            if value in ("nominal", "measured"):
                changes["measured_roofs"] = value == "measured"
            else:
                bad(name, value, "nominal or measured")
        elif name in ("bweff", "fleff"):
            x = _float_in(value, 0.01, 1.0)
            if x is None:
                bad(name, value, "a fraction in 0.01..1")
            else:
                changes["bandwidth_efficiency" if name == "bweff" else "compute_efficiency"] = x
        elif name == "step":
            x = _float_in(value, 1e-3, 3.6e6)
            if x is None:
                bad(name, value, "a measured decode step in ms")
            else:
                changes["measured_step_ms"] = x
        elif name == "lang":
            if value in ("en", "zh"):
                changes["lang"] = value
            else:
                bad(name, value, "en or zh")
        elif name == "theme":
            if value in ("light", "dark"):
                changes["theme"] = value
            else:
                bad(name, value, "light or dark")
        else:
            bad(name[:40], value, "unknown parameter")
    view = replace(view, **changes)
    # KV heads must divide the chosen model's query heads.
    if view.kv_heads is not None and view.kv_heads not in get_model(view.model).allowed_kv_heads():
        bad("kv", str(view.kv_heads), f"must divide the {get_model(view.model).num_heads} query heads")
        view = replace(view, kv_heads=None)
    return replace(view, notices=tuple(notices))
