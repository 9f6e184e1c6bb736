"""What-if accelerators from a short text:
`<name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]]`
(the dashboard's `xhw=` URL parameter, docs/labs.md).

What changes when a vendor doubles a GPU's TFLOP/s but keeps its HBM bandwidth? On the
roofline only compute-bound work speeds up (Williams et al. 2009); a self-test card is 2 TB/s,
500 TFLOP/s (ridge 250, 70B decode ~70 ms).
The result is an ordinary `Accelerator`, validated by the catalogue's schema, marked with the
vendor "what-if". Units are the ones a datasheet prints: TB/s = 1e12 bytes/s, TFLOP/s = 1e12
FLOP/s (dense bf16), and memory "GB" as the vendors mean it for HBM: GiB (80 GB = 80 x 2^30
bytes, docs/reference.md "Memory capacity"), so `h100:3.352:989.4:80` equals the catalogue's H100.
"""

from __future__ import annotations

import math
import re

from .errors import EngineInputError
from .hardware import Accelerator, catalogue, parse_accelerator
from .oplab import WHAT_IF_VENDOR

FORMAT = "<name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]], e.g. fast:3.35:1979:80"
NAME = re.compile(r"^[a-z0-9](?:[a-z0-9.]|-(?!-)){0,47}$")  # CSS-safe, no '--' (the uid separator)
NUMBER = re.compile(r"^[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$")
# Ranges: a unit slip (GB/s typed as TB/s, 3350 instead of 3.35) lands outside them.
BANDWIDTH_TB_S = (0.001, 1000.0)
TFLOPS = (0.001, 1e8)
MEMORY_GB = (0.001, 1e6)
# Without a capacity the card holds anything: 1 PB, the schema's ceiling, and a note says so.
UNSTATED_MEMORY_BYTES = 1e15


# the short form's parts, as its message names them (the part's code: engine_what_if_part_<code>)
PARTS = {"bandwidth (TB/s)": "bandwidth", "bf16 TFLOP/s": "tflops", "memory (GB)": "memory", "vector TFLOP/s": "vector"}


def _number(field: str, text: str, what: str, bounds: tuple[float, float], whole: str) -> float:
    t = text.strip().lower()
    value = float(t) if NUMBER.match(t) else math.nan
    if not math.isfinite(value) or not bounds[0] <= value <= bounds[1]:
        raise EngineInputError(
            field,
            f"{what} {text!r} in {whole!r} is not a number in [{bounds[0]:g}, {bounds[1]:g}]",
            FORMAT,
            code="what_if_number",
            params={
                "part": PARTS[what],
                "value": text,
                "text": whole,
                "low": f"{bounds[0]:g}",
                "high": f"{bounds[1]:g}",
            },
        )
    return value


def parse_what_if(text: str, field: str = "xhw") -> Accelerator:
    """One what-if accelerator; EngineInputError names `field`, the bad part and the format."""
    if not isinstance(text, str) or not 1 <= len(text) <= 200:
        raise EngineInputError(
            field,
            f"{text!r} is not a what-if accelerator",
            FORMAT,
            code="what_if_text",
            params={"text": str(text)[:200]},
        )
    parts = text.split(":")
    if len(parts) not in (3, 4, 5):
        raise EngineInputError(
            field,
            f"{text!r} has {len(parts)} part(s), not 3, 4 or 5",
            FORMAT,
            code="what_if_parts",
            params={"text": text, "n": len(parts)},
        )
    name = parts[0].strip()
    if not NAME.match(name):
        raise EngineInputError(
            field,
            f"name {name!r} in {text!r} must be 1-48 lower-case letters, digits, '.' or single '-'",
            FORMAT,
            code="what_if_name",
            params={"name": name, "text": text},
        )
    if name in catalogue():
        raise EngineInputError(
            field,
            f"name {name!r} is a catalogue id; a what-if needs its own name",
            FORMAT,
            code="what_if_catalogue_id",
            params={"name": name},
        )
    bandwidth = _number(field, parts[1], "bandwidth (TB/s)", BANDWIDTH_TB_S, text)
    tflops = _number(field, parts[2], "bf16 TFLOP/s", TFLOPS, text)
    # memory may be left empty when a vector figure follows (`fast:3.35:1979::134`)
    memory_gb = (
        None if len(parts) == 3 or not parts[3].strip() else _number(field, parts[3], "memory (GB)", MEMORY_GB, text)
    )
    vector = None if len(parts) < 5 else _number(field, parts[4], "vector TFLOP/s", TFLOPS, text)
    memory_bytes = UNSTATED_MEMORY_BYTES if memory_gb is None else memory_gb * 2**30
    note = (
        "memory not given: treated as 1 PB, so everything fits (fits, max batch and min TP say nothing)"
        if memory_gb is None
        else ""
    )
    return parse_accelerator(
        {
            "id": name,
            "name": f"{name} (what-if)",
            "vendor": WHAT_IF_VENDOR,
            "memory_bytes": memory_bytes,
            "memory_bandwidth_bytes_per_s": bandwidth * 1e12,
            "tensor_flops_per_s": {"bf16": tflops * 1e12},
            # without it, elementwise ops use the bf16 tensor roof (as for TPUs)
            "vector_flops_per_s": {} if vector is None else {"bf16": vector * 1e12, "fp16": vector * 1e12},
            "notes": note,
            "sources": [{"document": f"what-if: {text}", "supports": "every number (user-given)"}],
        },
        field,
    )


def what_if_text(acc: Accelerator) -> str:
    """The short form back (for URLs): inverse of parse_what_if up to float formatting."""
    base = f"{acc.id}:{acc.memory_bandwidth_bytes_per_s / 1e12:g}:{(acc.tensor_flops_per_s.bf16 or 0) / 1e12:g}"
    memory = "" if acc.memory_bytes == UNSTATED_MEMORY_BYTES else f"{acc.memory_bytes / 2**30:g}"
    vector = acc.vector_flops_per_s.bf16
    if vector:
        return f"{base}:{memory}:{vector / 1e12:g}"
    return f"{base}:{memory}" if memory else base


def derive_what_if(base: Accelerator, flops_scale: float = 1.0, bandwidth_scale: float = 1.0) -> str:
    """A catalogue card with its FLOP/s (bf16 tensor and vector) and HBM bandwidth scaled, in the short form
    ("double the TFLOPS, keep the bandwidth": a memory-bound decode does not move). The name says what changed, e.g.
    `h100-sxm5-2xflops`; the capacity is the card's own."""
    for what, scale in (("flops_scale", flops_scale), ("bandwidth_scale", bandwidth_scale)):
        if not (isinstance(scale, (int, float)) and math.isfinite(scale) and 0.01 <= scale <= 100):
            raise EngineInputError(
                what, f"{scale!r} is not a factor in [0.01, 100]", code="what_if_factor", params={"value": repr(scale)}
            )
    changes = [f"{s:g}x{w}" for s, w in ((flops_scale, "flops"), (bandwidth_scale, "bw")) if s != 1]
    name = f"{base.id}-{'-'.join(changes) if changes else 'same'}"[:48].rstrip("-.")
    tflops = base.tensor_roof("bf16")[1] / 1e12 * flops_scale
    text = f"{name}:{base.memory_bandwidth_bytes_per_s / 1e12 * bandwidth_scale:.6g}:{tflops:.6g}"
    text += f":{base.memory_bytes / 2**30:.6g}"
    unit, vector = base.vector_roof("bf16")
    # the card's own vector units, scaled with its compute (none published: the tensor roof serves)
    return text if unit.startswith("tensor") else f"{text}:{vector / 1e12 * flops_scale:.6g}"
