"""The roofline page's state (View), read from the link through its parameter table
(params.py): a bad or hostile value is dropped with a notice, never an error page; the
canonical link is written from the same table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl

from app.dashboard.lib.params import Why, query_string, read_link, write_link
from app.dashboard.pages import scenario
from app.dashboard.pages.roofline.config_link import decode_config
from app.dashboard.pages.roofline.params import (
    BY_NAME,
    CHROME,
    KV_PRECISIONS,
    MAX_HARDWARE,
    PARAMS,
    PIN_PARAMS,
    PRECISIONS,
    SHARED,
    TABS,
    pairs_of,
    valid_what_ifs,
)
from engine.analysis import DEFAULT_MEMORY_UTILIZATION
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, load_model, native_precision

__all__ = ["KV_PRECISIONS", "MAX_HARDWARE", "PRECISIONS", "TABS", "valid_what_ifs"]

DEFAULT_HARDWARE = scenario.HARDWARE  # the product's one default scenario (pages/scenario.py)
DEFAULT_MODEL = scenario.MODEL
MAX_QUERY_CHARS = 8192
Notice = tuple[str, str, "Why | str"]  # (parameter, value as given, why it was refused)


@dataclass(frozen=True)
class View:
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    model: str = DEFAULT_MODEL
    batch: int = scenario.CONCURRENCY  # a static batch of as many requests as the serving page keeps in flight
    context: int = scenario.INPUT_TOKENS
    kv_heads: int | None = None  # None: the model's own
    precision: str = scenario.PRECISION
    kv_precision: str = scenario.kv_dtype_for(scenario.PRECISION)  # a link without kvprec: kv_dtype_for(prec)
    flash_attention: bool = True
    tensor_parallel: int = scenario.TENSOR_PARALLEL
    kv_block: int = 16  # paged KV cache block, tokens (vLLM's default; Kwon et al. 2023)
    measured_roofs: bool = False
    hierarchy: bool = False  # the sourced cache roofs (L2, Infinity Cache) beside HBM's
    bandwidth_efficiency: float = 1.0
    compute_efficiency: float = 1.0
    measured_step_ms: float | None = None
    custom_config: dict | None = field(default=None, hash=False)  # with model == "custom"
    custom_token: str | None = None  # its `cfg=` form
    measurements: dict | None = field(default=None, hash=False)  # {"format", "content", "steps"}
    # a whole request: prefill + this many decode steps (0: none; params.Switchable)
    output_tokens: int = scenario.OUTPUT_TOKENS
    concurrency: int = scenario.CONCURRENCY  # with output_tokens: the serving estimate (0: none)
    backend: str = scenario.BACKEND  # the serving estimate's calibration, as the serving page's `backend`
    gpu_hour_price: float | None = None  # USD per GPU-hour: cost per million output tokens
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION  # of each card's memory a server may use (vLLM's 0.9)
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
    carry: tuple[tuple[str, str], ...] = ()  # a lab: the roofline's parameters it keeps as given (pages/links.py)
    notices: tuple[Notice, ...] = field(default=(), compare=False)  # (name, value, why)
    # number boxes whose typed value was refused: (name, typed, limits), said beside the panels
    refused: tuple = field(default=(), compare=False)
    # the TP asked that a card without a GPU-to-GPU link could not run (the page shows TP 1), or 0
    tp_without_link: int = field(default=0, compare=False)
    query: str = field(default="", compare=False)  # the query string the view was read from


def view_from_search(search: str) -> View:
    """A View from `location.search` ('?a=1&b=2' or 'a=1&b=2')."""
    query = (search or "").lstrip("?")[:MAX_QUERY_CHARS]
    return replace(parse_query(pairs_of(query)), query=query)


def parse_query(args: dict[str, str]) -> View:
    """A View from the link's parameters; anything invalid is ignored and reported."""
    notices: list[Notice] = []

    def bad(name: str, value: str, why) -> None:
        notices.append((name[:40], value[:40], why))

    args = {str(k): str(v) for k, v in args.items()}
    tab = args.pop("tab", "roofline")
    if tab not in TABS:
        bad("tab", tab, Why("one_of", {"allowed": ", ".join(TABS)}))
        tab = "roofline"
    if tab != "roofline":  # a lab reads its own parameters (pages/links.py); the chrome is read here
        lab_args = tuple((k, v) for k, v in args.items() if k not in CHROME)
        chrome = [BY_NAME[name] for name in CHROME]
        view = replace(View(tab=tab, lab_args=lab_args), **read_link(chrome, args, bad))
        return replace(view, notices=tuple(notices))
    for name, value in args.items():
        if name not in BY_NAME:
            bad(name, value, Why("unknown_parameter"))
    view = replace(View(), **read_link(PARAMS, args, bad))
    if "prec" not in args:  # a preset released in fp8 or 4-bit opens in it
        view = replace(view, precision=native_precision(view.model) or view.precision)
    if "tp" not in args and cards_without_link(view):  # a card without a link: one GPU each
        view = replace(view, tensor_parallel=1)
    if "kvprec" not in args:  # the KV cache as the serving page keeps it for these weights
        view = replace(view, kv_precision=scenario.kv_dtype_for(PRECISIONS[view.precision][0]))
    return replace(consistent(view, bad), notices=tuple(notices))


def consistent(view: View, bad=None) -> View:
    """The checks between fields: the what-ifs share the accelerator limit, a custom model needs
    its config, KV heads must divide the heads; a link's TP too (`bad` given). From the controls
    a TP the heads cannot take (only a hand-made request sends one) reaches the engine, whose
    message says why on every panel."""
    from_link = bad is not None
    bad = bad or (lambda *_: None)
    room = MAX_HARDWARE - len(view.hardware)
    if len(view.what_if) > room:
        bad("xhw", ",".join(view.what_if[room:]), Why("max_accelerators_what_if", {"n": MAX_HARDWARE}))
        view = replace(view, what_if=view.what_if[:room])
    if view.model == "custom" and view.custom_token:
        view = replace(view, custom_config=decode_config(view.custom_token))
    elif view.model == "custom":
        bad("model", "custom", Why("custom_needs_cfg"))
        view = replace(view, model=DEFAULT_MODEL)
    if view.model != "custom":
        view = replace(view, custom_config=None, custom_token=None)
    model = view_model(view)
    if view.kv_heads is not None and (model.is_mla or view.kv_heads not in model.allowed_kv_heads()):
        why = Why("kv_mla") if model.is_mla else Why("kv_divides", {"heads": model.num_heads})
        bad("kv", str(view.kv_heads), why)
        view = replace(view, kv_heads=None)
    if from_link and model.num_heads % view.tensor_parallel:
        bad("tp", str(view.tensor_parallel), Why("tp_divides", {"heads": model.num_heads}))
        view = replace(view, tensor_parallel=1)
    if view.tensor_parallel > 1 and cards_without_link(view):
        # its all-reduce has no link to run on: TP 1, said beside the panels (a what-if card added
        # at TP 4 had blanked every panel, the real cards' too)
        view = replace(view, tensor_parallel=1, tp_without_link=view.tensor_parallel)
    return view


def cards_without_link(view: View) -> list[str]:
    """The accelerators' names that list no GPU-to-GPU link, on which no TP above 1 can run:
    every what-if card, and a custom catalogue card may be one (an unknown id is the analysis's
    to name)."""
    out = [f"{w.split(':', 1)[0]} (what-if)" for w in view.what_if]
    for h in view.hardware:
        try:
            acc = get_accelerator(h)
        except EngineInputError:
            continue
        if acc.link_bandwidth() is None:
            out.append(acc.name)
    return out


def to_query(view: View, template: bool = False) -> str:
    """The canonical query string of a view, the link to share, less the embedding (`embed`,
    `controls`), which belongs to the iframe. With `template`, the parameters the browser
    moves itself (the sliders') are `{batch}`-style slots that assets/url.js fills in."""
    if view.tab != "roofline":  # a lab: its own parameters, as it wrote them
        chrome = [BY_NAME[name] for name in ("tab", *CHROME)]
        return query_string([*write_link(chrome, view), *view.lab_args])
    return query_string(write_link(PARAMS, view, template))


def shared_query(view: View, tab: str) -> str:
    """The link to another tab: what every tab shares, then the roofline's own parameters
    (a lab keeps them as it was given them), so a round trip ends on the view it left."""
    from app.dashboard.pages.links import lab_names  # links.py reads the View: imported here

    shared = [BY_NAME[name] for name in ("tab", *SHARED)]
    own = [p for p in PARAMS if p.name not in SHARED and p.name != "tab"]
    embedding = [("embed", "1")] if view.embed else []
    # a lab's own names for what it shares with the roofline (the serving page's isl for ctx)
    theirs = lab_names(tab, view)
    return query_string([*write_link(shared, replace(view, tab=tab)), *embedding, *theirs, *write_link(own, view)])


def pin_query(view: View) -> str:
    """The view's scenario as the value of `pin=`."""
    q = dict(parse_qsl(to_query(view)))
    return query_string((k, q[k]) for k in PIN_PARAMS if k in q)


def pin_view(value: str, bad) -> View | None:
    args = dict(parse_qsl(value, keep_blank_values=True))
    if not args:
        if value:
            bad("pin", value, Why("pin_format"))
        return None
    extra = [k for k in args if k not in PIN_PARAMS]
    if extra:
        bad("pin", ",".join(extra)[:40], Why("pin_holds", {"allowed": ", ".join(PIN_PARAMS)}))
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


def hardware_specs(view: View) -> list[str]:
    """What the service resolves: catalogue ids, then what-if short forms."""
    return [*view.hardware, *view.what_if]


def hardware_ids(view: View) -> list[str]:
    """The accelerators' ids as results and trace uids name them (a what-if by its name)."""
    return [*view.hardware, *(w.split(":", 1)[0] for w in view.what_if)]


def what_if_names(view: View) -> frozenset[str]:
    return frozenset(w.split(":", 1)[0] for w in view.what_if)


def view_model(view: View):
    return load_model(view.custom_config) if view.model == "custom" and view.custom_config else get_model(view.model)


def model_spec(view: View) -> object:
    """What the engine's load_model takes: a preset id or the custom config."""
    return view.custom_config if view.model == "custom" and view.custom_config else view.model


# Left out of a file name: how the page looks, not what it computes (and the pin and a custom
# config, too long for a name); the model, accelerators, batch and context lead every name.
EXPORT_SKIP_NAMES = (
    *("tab", "lang", "theme", "present", "embed", "controls", "pin", "cfg"),
    *("hw", "model", "batch", "ctx"),
)
MAX_EXPORT_NAME = 180


def export_skip() -> dict:
    """What an export's name leaves out: the names above and every parameter at its default."""
    return {"names": list(EXPORT_SKIP_NAMES), "pairs": [f"{k}={v}" for k, v in parse_qsl(to_query(View()))]}


def export_name(view: View, kind: str) -> str:
    """roofline-llama-3-8b-h100-sxm5+h200-sxm-b32-t4096-prec-fp8-tp-2: what a downloaded file
    shows, in its name. Every non-default part of the link is named, so an fp8 and a bf16 export,
    or two TP degrees, never overwrite each other."""
    if view.kv_heads is not None and view.model != "custom" and view.kv_heads == get_model(view.model).num_kv_heads:
        view = replace(view, kv_heads=None)  # the model's own KV heads are no choice (the link leaves them out)
    model = "custom" if view.model == "custom" else view.model
    hardware = "+".join(view.hardware) or "none"
    parts = [kind, model, hardware, f"b{view.batch}", f"t{view.context}"]
    skip = export_skip()
    for name, value in parse_qsl(to_query(view)):
        if name not in skip["names"] and f"{name}={value}" not in skip["pairs"]:
            parts.append(f"{name}-{value}")
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", "-".join(parts))[:MAX_EXPORT_NAME]


def export_template(view: View, kind: str = "roofline") -> str:
    """export_name with `{batch}`/`{ctx}` slots, for the browser to fill as the sliders move."""
    return export_name(view, kind).replace(f"-b{view.batch}-t{view.context}", "-b{batch}-t{ctx}", 1)
