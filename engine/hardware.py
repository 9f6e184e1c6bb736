"""Accelerator catalogue: one YAML file per accelerator, validated by a strict schema.

Built-in files live in `hardware/` at the project root; users add their own by pointing
LLM_ROOFLINE_HARDWARE_DIR at a directory of YAML files (validated the same way). Every
tensor figure is a *dense* peak (no 2:4 structured sparsity; the datasheets' dense figures).
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import EngineInputError, UnknownIdError, schema_error
from .precision import TENSOR_FALLBACK, VECTOR_FALLBACK
from .roofline import ridge_point

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "hardware"
# Tensor-parallel degrees a scenario may ask for: powers of two and the whole NVL72 domain (the
# measured serving runs of ai-dynamo/aiconfigurator use TP 1-8 on HGX boards and 16-72 on GB200
# NVL72). Up to 8 on any card with a link (PCIe included, as before); beyond 8 only within an
# accelerator's scale-up domain (`Accelerator.max_tensor_parallel`).
TENSOR_PARALLEL_DEGREES = (1, 2, 4, 8, 16, 32, 64, 72)
PCIE_TENSOR_PARALLEL = 8
USER_DIR_ENV = "LLM_ROOFLINE_HARDWARE_DIR"
MAX_FILE_BYTES = 256 * 1024

# Bounds keep every derived number finite (ridge points, times) and catch unit slips:
# memory 1 MB .. 1 PB, bandwidth 1 MB/s .. 1 PB/s, rates 1 MFLOP/s .. 1e20 FLOP/s.
MemoryBytes = Annotated[float, Field(ge=1e6, le=1e15, allow_inf_nan=False)]
Bandwidth = Annotated[float, Field(ge=1e6, le=1e15, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _rate(what: str) -> object:
    return Field(default=None, ge=1e6, le=1e20, allow_inf_nan=False, description=what)


class TensorRoofs(_Strict):
    """Dense matrix-engine peaks in FLOP/s (int8 in OP/s); null where the chip has none.
    fp32: a matrix rate in fp32, for CPUs and calibrations that have nothing narrower."""

    bf16: float | None = _rate("dense BF16 matrix FLOP/s (FP32 accumulate)")
    fp16: float | None = _rate("dense FP16 matrix FLOP/s (FP32 accumulate)")
    fp8: float | None = _rate("dense FP8 matrix FLOP/s")
    int8: float | None = _rate("dense INT8 matrix OP/s")
    fp4: float | None = _rate("dense FP4 (NVFP4/MXFP4) matrix FLOP/s")
    fp32: float | None = _rate("FP32 matrix FLOP/s (CPUs, calibrations)")


class VectorRoofs(_Strict):
    """Non-tensor (CUDA core / VALU / VPU) peaks in FLOP/s; null where not published."""

    fp32: float | None = _rate("non-tensor FP32 FLOP/s")
    bf16: float | None = _rate("non-tensor BF16 FLOP/s")
    fp16: float | None = _rate("non-tensor FP16 FLOP/s")


class Source(_Strict):
    document: Annotated[str, Field(min_length=3, max_length=2000, description="document, version, table")]
    supports: Annotated[str, Field(max_length=2000, description="which numbers it supports")] = ""


class MeasuredRoofs(_Strict):
    """Roofs measured on a real device by `llm-roofline calibrate`, kept beside (not instead
    of) the datasheet roofs. Same units; `details` records sizes, repeats and spread."""

    date: Annotated[str, Field(max_length=40, description="ISO date of the measurement")]
    tool: Annotated[str, Field(max_length=200, description="what measured it")]
    device: Annotated[str, Field(max_length=200, description="the device as the tool named it")]
    memory_bandwidth_bytes_per_s: Bandwidth = Field(description="achieved memory bandwidth, bytes/s")
    tensor_flops_per_s: TensorRoofs = Field(TensorRoofs(), description="achieved matrix FLOP/s per dtype")
    vector_flops_per_s: VectorRoofs = Field(VectorRoofs(), description="achieved non-tensor FLOP/s")
    details: dict[str, Any] = Field({}, description="sizes, repeats, best/median/worst of each run")


class CacheRoof(_Strict):
    """A bandwidth roof of an on-chip cache level (docs/labs.md "Training and profiling": memory-hierarchy
    roofs). Only where a vendor document or a published microbenchmark gives the number: a card
    without a source has no such roof. A working set of at most `capacity_bytes` can be placed
    under it (Jia et al. 2018: the bandwidth cliff past the cache; Nsight Compute: the L2 hit rate)."""

    level: Annotated[str, Field(pattern=r"^(l1|l2|infinity_cache)$", description="l1, l2 or infinity_cache")]
    bandwidth_bytes_per_s: Bandwidth = Field(description="bytes/s delivered from this level")
    capacity_bytes: MemoryBytes = Field(
        description="largest working set this bandwidth holds for (the measured plateau's end, else the size)"
    )
    kind: Annotated[str, Field(pattern=r"^(peak|measured)$", description="vendor peak or measured")]
    source: Annotated[str, Field(min_length=10, max_length=2000, description="document, table/figure, rows")]


class Accelerator(_Strict):
    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]{0,63}$", description="short id, the file name")]
    name: Annotated[str, Field(min_length=1, max_length=120, description="product name")]
    vendor: Annotated[str, Field(min_length=1, max_length=60, description="maker")]
    memory_bytes: MemoryBytes = Field(
        description="device memory in real bytes: the vendor's capacity in the unit "
        "the vendor means (80 GB HBM = 80 GiB; docs/reference.md 'Memory capacity')"
    )
    memory_visible_bytes: MemoryBytes | None = Field(
        None, description="total the driver reports (nvidia-smi / rocm-smi), bytes, where documented; informational"
    )
    memory_bandwidth_bytes_per_s: Bandwidth = Field(description="nominal memory bandwidth, bytes/s")
    tensor_flops_per_s: TensorRoofs = Field(description="dense matrix-engine peaks per dtype, FLOP/s")
    vector_flops_per_s: VectorRoofs = Field(VectorRoofs(), description="non-tensor peaks, FLOP/s")
    l2_bytes: float | None = _rate("last-level on-chip cache, bytes")
    cache_roofs: Annotated[list[CacheRoof], Field(max_length=4)] = Field(
        [], description="sourced on-chip cache bandwidth roofs (L2, Infinity Cache, L1); empty without a source"
    )
    interconnect: Annotated[str | None, Field(max_length=200, description="scale-up link name")] = None
    interconnect_bytes_per_s_per_direction: float | None = _rate("scale-up link, bytes/s per direction")
    pcie_bytes_per_s_per_direction: float | None = _rate("PCIe x16, bytes/s per direction")
    scale_up_domain_size: Annotated[int, Field(ge=2, le=100_000)] | None = Field(
        None,
        description="accelerators one scale-up domain joins over `interconnect` (NVLink: 8 on an HGX "
        "board, 72 in an NVL72 rack; a bridged pair: 2); null where the card has no such link",
    )
    scale_out_bytes_per_s: float | None = _rate(
        "scale-out network per GPU (its NIC between nodes), bytes/s per direction; null where unsourced"
    )
    notes: Annotated[str, Field(max_length=4000, description="caveats, other rates, uncertain fields")] = ""
    sources: Annotated[list[Source], Field(min_length=1, max_length=20, description="where the numbers come from")]
    measured: MeasuredRoofs | None = Field(None, description="roofs measured by llm-roofline calibrate")

    @model_validator(mode="after")
    def _roofs_consistent(self) -> Accelerator:
        t = self.tensor_flops_per_s
        if t.bf16 is None and t.fp16 is None and t.fp32 is None:
            raise ValueError("tensor_flops_per_s needs at least one of bf16 / fp16 / fp32")
        base = t.bf16 or t.fp16
        if t.fp8 is not None and base is not None and t.fp8 < base:
            raise ValueError("tensor_flops_per_s.fp8 must be >= the bf16/fp16 roof (dense figures)")
        return self

    # ---- derived roofs -------------------------------------------------------------
    def tensor_roof(self, compute_dtype: str, measured: bool = False) -> tuple[str, float]:
        """(dtype actually used, FLOP/s) for matrix ops in `compute_dtype`; with `measured`,
        the calibrated rate when one was measured for that chain of dtypes."""
        if measured and self.measured is not None:
            try:
                return _tensor_roof(self.measured.tensor_flops_per_s, compute_dtype)
            except EngineInputError:
                pass
        return _tensor_roof(self.tensor_flops_per_s, compute_dtype)

    def vector_roof(self, dtype: str = "bf16", measured: bool = False) -> tuple[str, float]:
        """(unit label, FLOP/s) for elementwise ops in `dtype` (fp32 ops use the fp32 rate,
        everything else the 16-bit rate). Falls back to the 16-bit tensor roof when the vendor
        publishes no vector figure (TPUs); those ops are memory-bound by two orders of
        magnitude either way."""
        order = ("fp32", "bf16", "fp16") if dtype == "fp32" else VECTOR_FALLBACK
        sources = [self.measured.vector_flops_per_s] if measured and self.measured is not None else []
        for v in sources + [self.vector_flops_per_s]:
            for name in order:
                rate = getattr(v, name)
                if rate:
                    return name, rate
        return "tensor-bf16", self.tensor_roof("bf16", measured)[1]

    def bandwidth(self, measured: bool = False) -> float:
        if measured and self.measured is not None:
            return self.measured.memory_bandwidth_bytes_per_s
        return self.memory_bandwidth_bytes_per_s

    def link_bandwidth(self) -> tuple[str, float] | None:
        """(name, bytes/s per direction) of the GPU-to-GPU link tensor parallelism uses: the
        scale-up interconnect, else PCIe; None when the catalogue lists neither."""
        if self.interconnect_bytes_per_s_per_direction:
            return self.interconnect or "interconnect", self.interconnect_bytes_per_s_per_direction
        if self.pcie_bytes_per_s_per_direction:
            return "PCIe", self.pcie_bytes_per_s_per_direction
        return None

    @property
    def max_tensor_parallel(self) -> int:
        """Largest tensor-parallel degree a scenario may use on this card: its scale-up domain,
        and at least 8 (TP over PCIe, as on an 8-card PCIe server, stays allowed)."""
        return max(PCIE_TENSOR_PARALLEL, self.scale_up_domain_size or 0)

    def tensor_parallel_degrees(self) -> tuple[int, ...]:
        return tuple(d for d in TENSOR_PARALLEL_DEGREES if d <= self.max_tensor_parallel)

    def check_tensor_parallel(self, n: int, field: str = "tensor_parallel") -> None:
        """Refuse a TP degree larger than this card's scale-up domain, naming the field."""
        if n <= self.max_tensor_parallel:
            return
        if self.scale_up_domain_size and self.scale_up_domain_size >= PCIE_TENSOR_PARALLEL:
            why = f"its scale-up domain joins {self.scale_up_domain_size} accelerators ({self.interconnect})"
            code, extra = "tp_domain", {"size": self.scale_up_domain_size, "interconnect": self.interconnect}
        else:
            why = f"it has no scale-up domain past {PCIE_TENSOR_PARALLEL} (TP beyond that needs one)"
            code, extra = "tp_no_domain", {"pcie": PCIE_TENSOR_PARALLEL}
        allowed = list(self.tensor_parallel_degrees())
        raise EngineInputError(
            field,
            f"{n} is too many GPUs for {self.id}: {why}",
            allowed,
            code=code,
            params={"n": n, "hardware": self.id, "allowed": ", ".join(map(str, allowed)), **extra},
        )

    def cache_roof(self, level: str) -> CacheRoof | None:
        return next((c for c in self.cache_roofs if c.level == level), None)

    @property
    def l2_bandwidth_bytes_per_s(self) -> float | None:
        """The sourced L2 roof, None without one (no guesses)."""
        roof = self.cache_roof("l2")
        return None if roof is None else roof.bandwidth_bytes_per_s

    def ridge_points_by_dtype(self) -> dict[str, float | None]:
        bw = self.memory_bandwidth_bytes_per_s
        return {
            k: (None if rate is None else ridge_point(rate, bw))
            for k, rate in self.tensor_flops_per_s.model_dump().items()
        }


def _tensor_roof(roofs: TensorRoofs, compute_dtype: str) -> tuple[str, float]:
    if compute_dtype not in TENSOR_FALLBACK:
        raise EngineInputError(
            "compute_dtype",
            f"unknown compute dtype {compute_dtype!r}",
            ", ".join(TENSOR_FALLBACK),
            code="unknown_dtype",
            params={"value": repr(compute_dtype), "allowed": ", ".join(TENSOR_FALLBACK)},
        )
    for dtype in TENSOR_FALLBACK[compute_dtype]:
        rate = getattr(roofs, dtype)
        if rate:
            return dtype, rate
    raise EngineInputError(
        "compute_dtype",
        f"no tensor roof for {compute_dtype!r} or a wider format",
        code="no_tensor_roof",
        params={"value": repr(compute_dtype)},
    )


def parse_accelerator(data: object, origin: str) -> Accelerator:
    """Validate one accelerator mapping; errors name `origin` and the offending field."""
    if not isinstance(data, dict):
        raise EngineInputError(origin, "an accelerator must be a mapping of fields", code="hw_not_mapping")
    try:
        return Accelerator.model_validate(data)
    except ValidationError as exc:
        raise schema_error(origin, exc.errors()[0]) from None


MAX_YAML_DEPTH = 16


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses what a hand-written accelerator file never needs and an attacker
    does: anchors and aliases (a 773-byte alias bomb expands to ~1e9 nodes), duplicate keys
    (the last one silently won) and nesting deeper than MAX_YAML_DEPTH (a RecursionError)."""

    _depth = 0

    def compose_node(self, parent, index):  # noqa: ANN001, ANN201  (PyYAML's signature)
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases (&, *) are not allowed", event.start_mark
            )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", event.start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):  # noqa: ANN001, ANN201
        seen = set()
        for key_node, _ in node.value:
            key = key_node.value
            if isinstance(key, str) and key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Opened non-blocking and checked on
    the open descriptor, so a FIFO named *.yaml cannot hang the start, and a directory or a
    symlink to /dev/zero is refused instead of read without end."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise EngineInputError(
            str(path), f"cannot open: {exc.strerror}", code="file_open", params={"detail": str(exc.strerror)[:200]}
        ) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise EngineInputError(str(path), "not a regular file", "a YAML file", code="file_not_regular")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise EngineInputError(str(path), f"file larger than {limit} bytes", code="file_size", params={"n": limit})
    return data


def load_file(path: Path) -> Accelerator:
    data = read_regular_file(path)
    try:
        parsed = yaml.load(data.decode("utf-8"), Loader=_StrictLoader)  # noqa: S506  (a SafeLoader subclass)
    except UnicodeDecodeError as exc:
        raise EngineInputError(
            str(path), f"not UTF-8 text (byte {exc.start})", code="file_utf8", params={"n": exc.start}
        ) from None
    except yaml.YAMLError as exc:
        raise EngineInputError(
            str(path), f"not valid YAML: {exc}", code="yaml_invalid", params={"detail": str(exc)[:300]}
        ) from None
    except (ValueError, RecursionError, OverflowError) as exc:  # e.g. a 5,000-digit integer
        detail = str(exc).split(";")[0][:200]
        raise EngineInputError(
            str(path), f"a value cannot be read: {detail}", code="yaml_value", params={"detail": detail}
        ) from None
    acc = parse_accelerator(parsed, str(path))
    if acc.id != path.stem:
        raise EngineInputError(
            f"{path}: id",
            f"id {acc.id!r} must equal the file name {path.stem!r}",
            code="hw_id_file",
            params={"value": repr(acc.id), "name": repr(path.stem)},
        )
    return acc


def load_directory(directory: Path) -> dict[str, Accelerator]:
    found: dict[str, Accelerator] = {}
    for path in sorted(directory.glob("*.yaml")):
        found[path.stem] = load_file(path)
    return found


@lru_cache(maxsize=4)
def _catalogue(user_dir: str | None) -> dict[str, Accelerator]:
    items = load_directory(BUILTIN_DIR)
    if user_dir:
        extra = Path(user_dir)
        if not extra.is_dir():
            raise EngineInputError(
                USER_DIR_ENV, f"{user_dir!r} is not a directory", code="hw_dir", params={"value": repr(user_dir)[:200]}
            )
        for key, acc in load_directory(extra).items():
            if key in items:
                raise EngineInputError(
                    f"{extra / (key + '.yaml')}: id",
                    f"id {key!r} already exists in the built-in catalogue",
                    code="hw_id_builtin",
                    params={"value": repr(key)},
                )
            items[key] = acc
    return items


def catalogue() -> dict[str, Accelerator]:
    """All accelerators: built-in plus the user directory; loaded once per directory."""
    return _catalogue(os.environ.get(USER_DIR_ENV) or None)


def get_accelerator(hardware_id: str) -> Accelerator:
    items = catalogue()
    try:
        return items[hardware_id]
    except (KeyError, TypeError):
        raise UnknownIdError("hardware", str(hardware_id)[:200], sorted(items), code="unknown_hardware") from None
