"""The view state, from the query string and from the controls. Every control is mirrored
in the URL so a link reproduces the view; a bad or hostile value is dropped with a notice,
never an error page. Callback arguments pass the same checks (`view_from_controls`): a
hand-made request to a callback gets the defaults, never a 500."""

from __future__ import annotations

import base64
import binascii
import json
import math
import zlib
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, urlencode

from engine.errors import EngineInputError
from engine.hardware import catalogue
from engine.model_catalog import MAX_CONFIG_BYTES, get_model, load_model, model_ids, native_precision
from engine.what_if import parse_what_if

DEFAULT_HARDWARE = ("h100-sxm5", "h200-sxm", "rtx-4090")
DEFAULT_MODEL = "llama-3-8b"
# Dashboard precision choices -> (weight dtype, compute dtype). "int4" is weight-only (W4A16).
PRECISIONS: dict[str, tuple[str, str]] = {
    "bf16": ("bf16", "bf16"),
    "fp16": ("fp16", "fp16"),
    "fp8": ("fp8", "fp8"),
    "int8": ("int8", "int8"),
    "int4": ("int4", "bf16"),
    "fp4": ("fp4", "fp4"),
}
KV_PRECISIONS = ("bf16", "fp8", "int8", "int4")
BATCH_RANGE = (1, 65536)  # the slider spans 1..1024; the numeric input goes further
CONTEXT_RANGE = (1, 1 << 20)  # the slider spans 128..1,048,576
MAX_HARDWARE = 8
# A custom config.json travels in the link as `cfg=` (raw deflate, base64url): the app keeps
# no state, so a link, a reload or a language switch brings the model back. 6,000 characters
# hold a typical config.json (~1 KB; ~600 characters encoded) with room to spare while the
# whole URL stays far below what browsers, proxies and wiki pages accept.
MAX_CONFIG_TOKEN_CHARS = 6000
MAX_STEP_MS = 3.6e6
MAX_PRICE = 10_000.0  # USD per GPU-hour, as the API allows


@dataclass(frozen=True)
class View:
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    model: str = DEFAULT_MODEL
    batch: int = 32
    context: int = 4096
    kv_heads: int | None = None  # None: the model's own
    precision: str = "bf16"
    kv_precision: str = "bf16"
    flash_attention: bool = True
    tensor_parallel: int = 1
    measured_roofs: bool = False
    hierarchy: bool = False  # the sourced cache roofs (L2, Infinity Cache) beside HBM's
    bandwidth_efficiency: float = 1.0
    compute_efficiency: float = 1.0
    measured_step_ms: float | None = None
    custom_config: dict | None = field(default=None, hash=False)  # with model == "custom"
    custom_token: str | None = None  # its `cfg=` form
    measurements: dict | None = field(default=None, hash=False)  # {"format", "content", "steps"}
    output_tokens: int | None = None  # a whole request: prefill + this many decode steps
    gpu_hour_price: float | None = None  # USD per GPU-hour: cost per million output tokens
    memory_utilization: float = 1.0  # the fraction of each card's memory a server may use
    published: bool = False  # published measurements beside the bounds
    lang: str = "en"
    theme: str = "light"
    embed: bool = False
    controls: bool = True  # embed only: controls=0 leaves the figure alone
    present: bool = False
    what_if: tuple[str, ...] = ()  # what-if accelerators, each in engine.what_if's short form
    pin: str = ""  # the pinned scenario A, as the query of its scenario parameters (pin_query)
    tab: str = "roofline"  # one of TABS: the roofline, the op lab, the training lab
    lab_args: tuple[tuple[str, str], ...] = ()  # a lab's own parameters, parsed by that lab
    notices: tuple[tuple[str, str, str], ...] = field(default=(), compare=False)  # (name, value, why)
    query: str = field(default="", compare=False)  # the query string the view was read from


def _int_in(value: str, low: int, high: int) -> int | None:
    if not value.isdigit() or len(value) > 9:
        return None
    n = int(value)
    return n if low <= n <= high else None


def parse_float(value: str, low: float, high: float) -> float | None:
    if len(value) > 20:
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if low <= x <= high else None  # NaN fails both comparisons


def parse_flag(value: str) -> bool | None:
    return {"1": True, "0": False, "true": True, "false": False}.get(value.lower())


MAX_QUERY_CHARS = 8192
TABS = ("roofline", "ops", "training")
# Parameters every tab shares; anything else on a lab tab belongs to that lab's own parser.
SHARED_PARAMS = frozenset({"tab", "hw", "lang", "theme", "embed", "controls", "present"})


def view_from_search(search: str) -> View:
    """A View from `location.search` ('?a=1&b=2' or 'a=1&b=2')."""
    query = (search or "").lstrip("?")[:MAX_QUERY_CHARS]
    pairs = parse_qsl(query, keep_blank_values=True)
    args = dict(pairs)
    what_ifs = [v for k, v in pairs if k == "xhw"]  # repeatable
    if what_ifs:
        args["xhw"] = ",".join(what_ifs)
    return replace(parse_query(args), query=query)


def parse_query(args: dict[str, str]) -> View:
    """Build a View from query parameters; anything invalid is ignored and reported."""
    view = View()
    notices: list[tuple[str, str, str]] = []
    known_hw = catalogue()

    def bad(name: str, value: str, why: str) -> None:
        notices.append((name, value[:40], why))

    changes: dict[str, object] = {}
    tab = str(args.get("tab", "roofline"))
    if tab not in TABS:
        bad("tab", tab, "one of " + ", ".join(TABS))
        tab = "roofline"
    if tab != "roofline":
        changes["lab_args"] = tuple((str(k), str(v)) for k, v in args.items() if k not in SHARED_PARAMS)
        args = {k: v for k, v in args.items() if k in SHARED_PARAMS}
    changes["tab"] = tab
    for name, value in args.items():
        value = str(value)
        if name == "tab":
            continue
        if name == "xhw":
            changes["what_if"] = valid_what_ifs(value.split(","), bad)
        elif name == "pin":
            pinned = _pin_view(value, bad)
            if pinned is not None:
                changes["pin"] = pin_query(pinned)
        elif name == "hw":
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
            if value in model_ids() or value == "custom":
                changes["model"] = value
            else:
                bad(name, value, "unknown model")
        elif name == "cfg":
            try:
                changes["custom_config"] = decode_config(value)
                changes["custom_token"] = value
            except EngineInputError as exc:
                bad(name, value, str(exc))
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
        elif name in ("fa", "embed", "present", "controls"):
            flag = parse_flag(value)
            if flag is None:
                bad(name, value, "0 or 1")
            else:
                changes["flash_attention" if name == "fa" else name] = flag
        elif name == "tp":
            if value in ("1", "2", "4", "8"):
                changes["tensor_parallel"] = int(value)
            else:
                bad(name, value, "1, 2, 4 or 8")
        elif name == "roofs":  # nominal | measured, and/or hierarchy: "measured,hierarchy"
            parts = set(value.split(","))
            if parts <= {"nominal", "measured", "hierarchy"} and not {"nominal", "measured"} <= parts:
                changes["measured_roofs"] = "measured" in parts
                changes["hierarchy"] = "hierarchy" in parts
            else:
                bad(name, value, "nominal or measured, optionally with hierarchy (measured,hierarchy)")
        elif name in ("bweff", "fleff"):
            x = parse_float(value, 0.01, 1.0)
            if x is None:
                bad(name, value, "a fraction in 0.01..1")
            else:
                changes["bandwidth_efficiency" if name == "bweff" else "compute_efficiency"] = x
        elif name == "step":
            x = parse_float(value, 1e-3, MAX_STEP_MS)
            if x is None:
                bad(name, value, "a measured decode step in ms")
            else:
                changes["measured_step_ms"] = x
        elif name == "out":
            n = _int_in(value, 1, CONTEXT_RANGE[1])
            if n:
                changes["output_tokens"] = n
            else:
                bad(name, value, f"output tokens, an integer in 1..{CONTEXT_RANGE[1]}")
        elif name == "price":
            x = parse_float(value, 1e-6, MAX_PRICE)
            if x is None:
                bad(name, value, f"USD per GPU-hour, above 0 and at most {MAX_PRICE:,.0f}")
            else:
                changes["gpu_hour_price"] = x
        elif name == "memutil":
            x = parse_float(value, 0.01, 1.0)
            if x is None:
                bad(name, value, "a fraction in 0.01..1")
            else:
                changes["memory_utilization"] = x
        elif name == "published":
            flag = parse_flag(value)
            if flag is None:
                bad(name, value, "0 or 1")
            else:
                changes["published"] = flag
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
    room = MAX_HARDWARE - len(view.hardware)
    if len(view.what_if) > room:
        bad("xhw", ",".join(view.what_if[room:]), f"at most {MAX_HARDWARE} accelerators at once, what-ifs included")
        view = replace(view, what_if=view.what_if[:room])
    native = native_precision(view.model)
    if native and "prec" not in args:  # a preset released in fp8 or 4-bit opens in it
        view = replace(view, precision=native)
    if view.model == "custom" and view.custom_config is None:
        bad("model", "custom", "a custom model needs its config in cfg=")
        view = replace(view, model=DEFAULT_MODEL)
    if view.model != "custom" and view.custom_config is not None:
        view = replace(view, custom_config=None, custom_token=None)
    # KV heads must divide the chosen model's query heads (MLA models have no KV heads to set).
    model = view_model(view)
    if view.kv_heads is not None and (model.is_mla or view.kv_heads not in model.allowed_kv_heads()):
        why = (
            "an MLA model caches a latent, not KV heads"
            if model.is_mla
            else f"must divide the {model.num_heads} query heads"
        )
        bad("kv", str(view.kv_heads), why)
        view = replace(view, kv_heads=None)
    if model.num_heads % view.tensor_parallel:
        bad("tp", str(view.tensor_parallel), f"must divide the {model.num_heads} attention heads")
        view = replace(view, tensor_parallel=1)
    return replace(view, notices=tuple(notices))


def valid_what_ifs(texts: list, bad) -> tuple[str, ...]:
    """Valid what-if accelerators (engine.what_if's short form), each name once; the rest is
    reported through `bad(name, value, why)`."""
    good: dict[str, str] = {}
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            continue
        text = text.strip()
        try:
            accelerator = parse_what_if(text)
        except EngineInputError as exc:
            bad("xhw", text, str(exc).removeprefix("xhw: "))
            continue
        if accelerator.id in good:
            bad("xhw", text, f"a second what-if named {accelerator.id!r}")
            continue
        good[accelerator.id] = text
    return tuple(good.values())


def hardware_specs(view: View) -> list[str]:
    """What the service resolves: catalogue ids, then what-if short forms."""
    return [*view.hardware, *view.what_if]


def hardware_ids(view: View) -> list[str]:
    """The accelerators' ids as results and trace uids name them (a what-if by its name)."""
    return [*view.hardware, *(w.split(":", 1)[0] for w in view.what_if)]


def what_if_names(view: View) -> frozenset[str]:
    return frozenset(w.split(":", 1)[0] for w in view.what_if)


# A pinned scenario A (issue 14, pin and compare) holds what defines a scenario; the
# accelerators, language and theme are the page's.
PIN_PARAMS = ("model", "cfg", "batch", "ctx", "kv", "prec", "kvprec", "fa", "tp")


def pin_query(view: View) -> str:
    """The view's scenario as the value of `pin=`."""
    q = dict(parse_qsl(to_query(view)))
    return urlencode({k: q[k] for k in PIN_PARAMS if k in q}, safe=",")


def _pin_view(value: str, bad) -> View | None:
    args = dict(parse_qsl(value, keep_blank_values=True))
    if not args:
        if value:
            bad("pin", value, "a scenario such as model=llama-3-8b&batch=32&ctx=4096&prec=bf16")
        return None
    extra = [k for k in args if k not in PIN_PARAMS]
    if extra:
        bad("pin", ",".join(extra)[:40], "a pin holds only " + ", ".join(PIN_PARAMS))
    pinned = parse_query({k: v for k, v in args.items() if k in PIN_PARAMS})
    for name, given, why in pinned.notices:
        bad(f"pin.{name}", given, why)
    return pinned


def pinned_view(view: View) -> View | None:
    """Scenario A on the page's accelerators, or None without a pin."""
    if not view.pin:
        return None
    a = parse_query(dict(parse_qsl(view.pin)))
    return replace(a, hardware=view.hardware, what_if=view.what_if, lang=view.lang, theme=view.theme)


def view_model(view: View):
    return load_model(view.custom_config) if view.model == "custom" and view.custom_config else get_model(view.model)


def model_spec(view: View) -> object:
    """What the engine's load_model takes: a preset id or the custom config."""
    return view.custom_config if view.model == "custom" and view.custom_config else view.model


def encode_config(config: dict) -> str:
    """config.json -> `cfg=` token: compact JSON, raw deflate, base64url without padding."""
    raw = json.dumps(config, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    packed = zlib.compress(raw, 9)[2:-4]  # zlib header and checksum off: raw deflate
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode_config(token: str) -> dict:
    """`cfg=` token -> validated config.json (EngineInputError on anything else)."""
    if len(token) > MAX_CONFIG_TOKEN_CHARS:
        raise EngineInputError(
            "cfg", f"a config link of {len(token):,} characters is over the {MAX_CONFIG_TOKEN_CHARS:,}-character limit"
        )
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        inflater = zlib.decompressobj(-15)
        raw = inflater.decompress(packed, MAX_CONFIG_BYTES + 1)  # a deflate bomb stops here
        config = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_CONFIG_BYTES else None
    except (binascii.Error, ValueError, zlib.error, RecursionError, UnicodeDecodeError):
        raise EngineInputError("cfg", "not a config link made by this app") from None
    if not isinstance(config, dict):
        raise EngineInputError("cfg", "not a config link made by this app")
    load_model(config)  # validates: EngineInputError names the field
    return config


def _int_value(value: object, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) and low <= value <= high else None


def _fraction_value(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.01 <= value <= 1.0:
        return 1.0  # NaN fails the comparison too
    return float(value)


def _on(value: object) -> bool:
    """A one-box Checklist sends a list: ticked when it holds anything."""
    return isinstance(value, list) and len(value) > 0


def _number_in(value: object, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        return None  # NaN fails the comparison too
    return float(value)


def view_from_controls(
    hardware=None,
    model=None,
    custom=None,
    sizes=None,
    kv_index=None,
    precision=None,
    kv_precision=None,
    flash=None,
    tp=None,
    measured=None,
    bw_eff=None,
    fl_eff=None,
    step_ms=None,
    measurements=None,
    theme=None,
    present=None,
    output_tokens=None,
    price=None,
    memutil=None,
    published=None,
    what_if=None,
    pin=None,
    hierarchy=None,
    flags=None,
) -> View:
    """The controls' values as the browser sends them (or as anyone can hand-make them) ->
    a valid View. Values that cannot come from the controls fall back to the defaults."""
    known = catalogue()
    hw = (
        tuple(dict.fromkeys(h for h in hardware if isinstance(h, str) and h in known))
        if isinstance(hardware, list)
        else ()
    )
    custom_config = custom.get("config") if isinstance(custom, dict) else None
    custom_token = custom.get("token") if isinstance(custom, dict) else None
    if model == "custom" and isinstance(custom_config, dict) and isinstance(custom_token, str):
        model_id = "custom"
        try:
            load_model(custom_config)
        except EngineInputError:  # only a hand-made request gets here: the store holds validated configs
            model_id, custom_config, custom_token = DEFAULT_MODEL, None, None
    else:
        model_id = model if isinstance(model, str) and model in model_ids() else DEFAULT_MODEL
        custom_config = custom_token = None
    sizes = sizes if isinstance(sizes, dict) else {}
    view = View(
        hardware=hw[:MAX_HARDWARE],
        model=model_id,
        custom_config=custom_config,
        custom_token=custom_token,
        batch=_int_value(sizes.get("batch"), *BATCH_RANGE) or View.batch,
        context=_int_value(sizes.get("ctx"), *CONTEXT_RANGE) or View.context,
        precision=precision if isinstance(precision, str) and precision in PRECISIONS else "bf16",
        kv_precision=kv_precision if isinstance(kv_precision, str) and kv_precision in KV_PRECISIONS else "bf16",
        flash_attention=_on(flash),
        tensor_parallel=tp if isinstance(tp, int) and not isinstance(tp, bool) and tp in (1, 2, 4, 8) else 1,
        measured_roofs=_on(measured),
        hierarchy=_on(hierarchy),
        bandwidth_efficiency=_fraction_value(bw_eff),
        compute_efficiency=_fraction_value(fl_eff),
        measured_step_ms=float(step_ms)
        if isinstance(step_ms, (int, float)) and not isinstance(step_ms, bool) and 1e-3 <= step_ms <= MAX_STEP_MS
        else None,
        measurements=_measurement_spec(measurements),
        theme="dark" if _on(theme) else "light",
        present=_on(present),
        lang=flags.get("lang") if isinstance(flags, dict) and flags.get("lang") in ("en", "zh") else "en",
        embed=bool(flags.get("embed")) if isinstance(flags, dict) else False,
        output_tokens=_int_value(output_tokens, 1, CONTEXT_RANGE[1]),
        gpu_hour_price=_number_in(price, 1e-6, MAX_PRICE),
        memory_utilization=_fraction_value(memutil),
        published=_on(published),
        what_if=valid_what_ifs(what_if, lambda *_: None)[: MAX_HARDWARE - len(hw[:MAX_HARDWARE])]
        if isinstance(what_if, list)
        else (),
    )
    pinned = _pin_view(pin, lambda *_: None) if isinstance(pin, str) and len(pin) <= MAX_QUERY_CHARS else None
    if pinned is not None:
        view = replace(view, pin=pin_query(pinned))
    model_config = view_model(view)
    divisors = model_config.allowed_kv_heads()
    index = _int_value(kv_index, 0, len(divisors) - 1)
    if index is not None and not model_config.is_mla and divisors[index] != model_config.num_kv_heads:
        view = replace(view, kv_heads=divisors[index])
    return view


def _measurement_spec(value: object) -> dict | None:
    if not (isinstance(value, dict) and isinstance(value.get("format"), str) and isinstance(value.get("content"), str)):
        return None
    return {
        "format": value["format"],
        "content": value["content"],
        "steps": _int_value(value.get("steps"), 1, 100000) or 1,
    }


def to_query(view: View) -> str:
    """The canonical query string of a view, the link to share: what app.js `syncUrl` writes in
    the browser, less the embedding (`embed`, `controls`), which belongs to the iframe."""
    q: dict[str, str] = {"hw": ",".join(view.hardware)}
    if view.tab != "roofline":  # a lab: its own parameters, as it wrote them
        q = {"tab": view.tab, **q, **dict(view.lab_args), "lang": view.lang, "theme": view.theme}
        return urlencode(q, safe=",")
    if view.model == "custom":
        if view.custom_token:
            q.update(model="custom", cfg=view.custom_token)
    else:
        q["model"] = view.model
    q.update(batch=str(view.batch), ctx=str(view.context))
    if view.kv_heads is not None:
        q["kv"] = str(view.kv_heads)
    q.update(
        prec=view.precision,
        kvprec=view.kv_precision,
        fa="1" if view.flash_attention else "0",
        tp=str(view.tensor_parallel),
    )
    optional = {
        "roofs": ",".join(r for r, on in (("measured", view.measured_roofs), ("hierarchy", view.hierarchy)) if on)
        or None,
        "bweff": view.bandwidth_efficiency if view.bandwidth_efficiency < 1 else None,
        "fleff": view.compute_efficiency if view.compute_efficiency < 1 else None,
        "step": view.measured_step_ms,
        "out": view.output_tokens,
        "price": view.gpu_hour_price,
        "memutil": view.memory_utilization if view.memory_utilization < 1 else None,
        "published": "1" if view.published else None,
    }
    q.update({k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in optional.items() if v is not None})
    if view.pin:
        q["pin"] = view.pin
    q.update(lang=view.lang, theme=view.theme)
    if view.present:
        q["present"] = "1"
    # what-ifs repeat `xhw=` (the short form's ':' travels as is)
    return urlencode([*q.items(), *(("xhw", w) for w in view.what_if)], safe=",:")


def export_name(view: View, kind: str) -> str:
    """roofline-llama-3-8b-h100-sxm5-b32-t4096: what a downloaded file shows, in its name."""
    model = "custom" if view.model == "custom" else view.model
    first = view.hardware[0] if view.hardware else "none"
    return f"{kind}-{model}-{first}-b{view.batch}-t{view.context}"
