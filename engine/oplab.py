"""The op lab: single kernels on the roofline (docs/labs.md).

- GEMM with three storage dtypes, an optional thread-block tile view and an optional bias +
  activation epilogue, fused into the GEMM (one kernel) or not (three kernels);
- conv2d counted directly and through its im2col GEMM;
- elementwise chains, fused (read once, write once) or not (each op through memory);
- a launch overhead per kernel: a kernel's bound is max(compute, memory, overhead) (NVIDIA's CUDA
  Graphs guide), so a tiny op reports bound "overhead", the regime the two roofs alone hide.

Counts come from engine/ops.py (`matmul`, `elementwise`), the functions the transformer's phases
use, so a q_proj here and a q_proj in a decode step are the same numbers. Hardware-independent
specs are frozen dataclasses validated on construction (EngineInputError names the API field,
"op.<name>"); `lab` places a spec on each accelerator. Every number is SI: FLOP, bytes, seconds.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .errors import EngineInputError
from .hardware import Accelerator
from .model import ModelConfig
from .ops import ELEMENTWISE_KINDS, Op, elementwise, matmul
from .precision import DTYPE_BYTES, DTYPES
from .roofline import kernel_bound, kernel_time_s

MAX_GEMM_DIM = 1 << 24
MAX_TILE_DIM = 4096
MAX_CONV = {"batch": 1 << 16, "height": 1 << 16, "width": 1 << 16, "in_channels": 1 << 20, "out_channels": 1 << 20}
MAX_KERNEL = 255  # kernel side, stride and padding
MAX_ELEMENTS = 1 << 40
MAX_SHAPE_DIMS = 8
MAX_CHAIN_OPS = 32  # distinct entries in an op list
MAX_CHAIN_COUNT = 1000  # repeats of the op list
MAX_KERNELS = 4096  # kernels one unfused chain may launch
# Launch overhead: a few µs per kernel (NVIDIA's CUDA Graphs guide); 10 ms bounds a typo.
MAX_LAUNCH_OVERHEAD_S = 1e-2
ACTIVATIONS = ("silu", "gelu")
STORAGE_DTYPES = tuple(DTYPE_BYTES)  # fp32 too: a GEMM's C is often written in fp32
VALUE_DTYPES = (*DTYPES, "fp32")
# Ops with a second full-size operand (add, mul, swiglu...) read it in a fused chain too; the
# norms also read their weight vector (RMSNorm: gamma; LayerNorm: gamma and beta) of the last
# dimension, as engine/transformer.py counts them.
NORM_WEIGHT_VECTORS = {"rmsnorm": 1, "layernorm": 2}
DEFAULT_CHAIN_OP = "scale"


def _int(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            f"op.{field}",
            f"{value!r} is not an integer in [{low}, {high}]",
            code="op_int",
            params={"value": repr(value)[:40], "low": f"{low:,}", "high": f"{high:,}"},
        )
    return value


def _dtype(field: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise EngineInputError(
            f"op.{field}",
            f"unknown dtype {value!r}",
            ", ".join(allowed),
            code="unknown_dtype",
            params={"value": repr(value)[:40], "allowed": ", ".join(allowed)},
        )
    return value  # type: ignore[return-value]


def check_launch_overhead(launch_overhead_s: object) -> float:
    value = launch_overhead_s
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= MAX_LAUNCH_OVERHEAD_S:
        raise EngineInputError(
            "launch_overhead_s",
            f"{value!r} is not a time in [0, {MAX_LAUNCH_OVERHEAD_S}] s",
            "e.g. 5e-6 (5 µs)",
            code="launch_overhead",
            params={"value": repr(value)[:40], "high": MAX_LAUNCH_OVERHEAD_S},
        )
    return float(value)


def parse_tile(text: str, field: str = "op.tile") -> tuple[int, int, int]:
    """'128x128' -> (128, 128, 128); '128x256x64' -> (128, 256, 64). Without a third number the
    K step is the tile's smaller side: a square block, as the common hand count does."""
    parts = str(text).lower().split("x")
    if len(parts) not in (2, 3) or not all(p.isascii() and p.isdigit() and len(p) <= 5 for p in parts):
        raise EngineInputError(
            field,
            f"{text!r} is not a tile",
            "MxN or MxNxK, e.g. 128x128 or 128x256x64",
            code="tile_text",
            params={"value": repr(str(text)[:40])},
        )
    dims = [int(p) for p in parts]
    if not all(1 <= d <= MAX_TILE_DIM for d in dims):
        raise EngineInputError(
            field,
            f"{text!r}: each side must be in [1, {MAX_TILE_DIM}]",
            code="tile_side",
            params={"value": repr(str(text)[:40]), "high": MAX_TILE_DIM},
        )
    tm, tn = dims[0], dims[1]
    return tm, tn, dims[2] if len(dims) == 3 else min(tm, tn)


# ---- specs -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GemmSpec:
    """C[m,n] = A[m,k] @ B[k,n]. `dtype` selects the tensor roof; A, B, C default to it."""

    m: int
    n: int
    k: int
    dtype: str = "bf16"
    a_dtype: str | None = None
    b_dtype: str | None = None
    c_dtype: str | None = None
    tile: tuple[int, int, int] | None = None
    bias: bool = False
    activation: str | None = None
    fused_epilogue: bool = True
    kind = "gemm"

    def __post_init__(self) -> None:
        for name in ("m", "n", "k"):
            _int(name, getattr(self, name), 1, MAX_GEMM_DIM)
        _dtype("dtype", self.dtype, DTYPES)
        for name in ("a_dtype", "b_dtype", "c_dtype"):
            if getattr(self, name) is not None:
                _dtype(name, getattr(self, name), STORAGE_DTYPES)
        if self.tile is not None:
            if not (isinstance(self.tile, tuple) and len(self.tile) == 3):
                raise EngineInputError(
                    "op.tile",
                    f"{self.tile!r} is not a tile",
                    "(tile_m, tile_n, tile_k)",
                    code="tile_tuple",
                    params={"value": repr(self.tile)[:40]},
                )
            for side in self.tile:
                _int("tile", side, 1, MAX_TILE_DIM)
        if not isinstance(self.bias, bool) or not isinstance(self.fused_epilogue, bool):
            raise EngineInputError(
                "op.bias",
                "bias and fused_epilogue are true or false",
                code="op_flags",
                params={"value": repr((self.bias, self.fused_epilogue))[:40]},
            )
        if self.activation is not None and self.activation not in ACTIVATIONS:
            raise EngineInputError(
                "op.activation",
                f"unknown activation {self.activation!r}",
                ", ".join(ACTIVATIONS),
                code="op_activation",
                params={"value": repr(self.activation)[:40], "allowed": ", ".join(ACTIVATIONS)},
            )

    @property
    def widths(self) -> tuple[float, float, float]:
        return tuple(DTYPE_BYTES[d or self.dtype] for d in (self.a_dtype, self.b_dtype, self.c_dtype))  # type: ignore[return-value]

    @property
    def has_epilogue(self) -> bool:
        return self.bias or self.activation is not None

    @property
    def label(self) -> str:
        epi = "".join(f"+{e}" for e in (["bias"] if self.bias else []) + ([self.activation] if self.activation else []))
        return f"gemm {self.m}x{self.n}x{self.k} {self.dtype}{epi}"


@dataclass(frozen=True)
class Conv2dSpec:
    """A 2-D convolution, NCHW or NHWC alike (layout does not change the ideal count)."""

    batch: int
    height: int
    width: int
    in_channels: int
    out_channels: int
    kernel: int = 3
    stride: int = 1
    padding: int = 0
    groups: int = 1
    dtype: str = "bf16"
    kind = "conv2d"

    def __post_init__(self) -> None:
        for name, high in MAX_CONV.items():
            _int(name, getattr(self, name), 1, high)
        _int("kernel", self.kernel, 1, MAX_KERNEL)
        _int("stride", self.stride, 1, MAX_KERNEL)
        _int("padding", self.padding, 0, MAX_KERNEL)
        _int("groups", self.groups, 1, MAX_CONV["in_channels"])
        _dtype("dtype", self.dtype, DTYPES)
        if self.in_channels % self.groups or self.out_channels % self.groups:
            raise EngineInputError(
                "op.groups",
                f"in_channels {self.in_channels} and out_channels {self.out_channels} must both be divisible "
                f"by groups {self.groups}",
                "a common divisor; groups = in_channels = out_channels is depthwise",
                code="conv_groups",
                params={"cin": self.in_channels, "cout": self.out_channels, "groups": self.groups},
            )
        if self.out_height < 1 or self.out_width < 1:
            raise EngineInputError(
                "op.kernel",
                f"kernel {self.kernel} is larger than the padded input {self.height}x{self.width}",
                code="conv_kernel",
                params={"kernel": self.kernel, "height": self.height, "width": self.width},
            )

    # Output size: floor((H + 2p - k) / s) + 1 (PyTorch Conv2d docs, dilation 1).
    @property
    def out_height(self) -> int:
        return (self.height + 2 * self.padding - self.kernel) // self.stride + 1

    @property
    def out_width(self) -> int:
        return (self.width + 2 * self.padding - self.kernel) // self.stride + 1

    @property
    def depthwise(self) -> bool:
        return self.groups == self.in_channels == self.out_channels and self.groups > 1

    @property
    def label(self) -> str:
        dw = " depthwise" if self.depthwise else (f" g={self.groups}" if self.groups > 1 else "")
        return (
            f"conv2d {self.kernel}x{self.kernel}{dw} {self.batch}x{self.in_channels}x{self.height}x{self.width}"
            f"->{self.out_channels} {self.dtype}"
        )


@dataclass(frozen=True)
class ElementwiseSpec:
    """The op list `ops` repeated `count` times over a tensor of `shape`. Each op takes the
    previous op's output; add/mul/swiglu/geglu also read a second full-size operand."""

    shape: tuple[int, ...]
    ops: tuple[str, ...] = (DEFAULT_CHAIN_OP,)
    count: int = 1
    fused: bool = False
    dtype: str = "bf16"
    kind = "elementwise"

    def __post_init__(self) -> None:
        if not isinstance(self.shape, tuple) or not 1 <= len(self.shape) <= MAX_SHAPE_DIMS:
            raise EngineInputError(
                "op.shape",
                f"{self.shape!r} is not a shape",
                f"1 to {MAX_SHAPE_DIMS} positive sizes",
                code="op_shape",
                params={"value": repr(self.shape)[:40], "n": MAX_SHAPE_DIMS},
            )
        for side in self.shape:
            _int("shape", side, 1, MAX_ELEMENTS)
        if math.prod(self.shape) > MAX_ELEMENTS:
            raise EngineInputError(
                "op.shape",
                f"{math.prod(self.shape)} elements",
                f"at most {MAX_ELEMENTS}",
                code="op_elements",
                params={"n": f"{math.prod(self.shape):,}", "high": f"{MAX_ELEMENTS:,}"},
            )
        if not isinstance(self.ops, tuple) or not 1 <= len(self.ops) <= MAX_CHAIN_OPS:
            raise EngineInputError(
                "op.ops",
                f"{self.ops!r} is not an op list",
                f"1 to {MAX_CHAIN_OPS} op names",
                code="op_list",
                params={"value": repr(self.ops)[:40], "n": MAX_CHAIN_OPS},
            )
        for name in self.ops:
            if name not in ELEMENTWISE_KINDS:
                raise EngineInputError(
                    "op.ops",
                    f"unknown elementwise op {name!r}",
                    ", ".join(ELEMENTWISE_KINDS),
                    code="op_unknown",
                    params={"value": repr(name)[:40], "allowed": ", ".join(ELEMENTWISE_KINDS)},
                )
        _int("count", self.count, 1, MAX_CHAIN_COUNT)
        if self.kernels > MAX_KERNELS:
            raise EngineInputError(
                "op.count",
                f"{self.kernels} kernels",
                f"at most {MAX_KERNELS}",
                code="op_kernels",
                params={"n": self.kernels, "high": MAX_KERNELS},
            )
        if not isinstance(self.fused, bool):
            raise EngineInputError(
                "op.fused",
                f"{self.fused!r} is not true or false",
                code="op_bool",
                params={"value": repr(self.fused)[:40]},
            )
        _dtype("dtype", self.dtype, VALUE_DTYPES)

    @property
    def elements(self) -> int:
        return math.prod(self.shape)

    @property
    def label(self) -> str:
        chain = "+".join(self.ops) + (f" x{self.count}" if self.count > 1 else "")
        shape = "x".join(str(s) for s in self.shape)
        how = ("fused " if self.fused else "unfused ") if self.kernels > 1 else ""
        return f"{how}{chain} on [{shape}] {self.dtype}"

    @property
    def kernels(self) -> int:
        """Kernels the chain launches unfused."""
        return len(self.ops) * self.count


OpSpec = GemmSpec | Conv2dSpec | ElementwiseSpec


def spec_dict(spec: OpSpec) -> dict:
    """The spec as JSON (kind first; a tile as [m, n, k])."""
    data = {"kind": spec.kind} | asdict(spec)
    for key, value in data.items():
        if isinstance(value, tuple):
            data[key] = list(value)
    return data


# ---- kernels -------------------------------------------------------------------------------


def gemm_kernels(spec: GemmSpec, fused: bool | None = None) -> list[Op]:
    """The GEMM's kernels. Fused epilogue (NVIDIA CUTLASS epilogues: fold bias and activation into the GEMM's
    last stage): one kernel that also reads the bias vector [n] and does the epilogue's FLOPs
    on C while it is on chip. Unfused: the GEMM writes C; a bias add reads C and the bias and
    writes C; the activation reads C and writes C (one memory round trip each)."""
    a, b, c = spec.widths
    gemm = matmul("gemm", spec.m, spec.n, spec.k, a, b, c)
    if not spec.has_epilogue:
        return [gemm]
    mn = spec.m * spec.n
    fused = spec.fused_epilogue if fused is None else fused
    if fused:
        epi_flops = (1.0 if spec.bias else 0.0) + (ELEMENTWISE_KINDS[spec.activation][0] if spec.activation else 0.0)
        name = "gemm" + ("+bias" if spec.bias else "") + (f"+{spec.activation}" if spec.activation else "")
        return [Op(name, "tensor", gemm.flops + epi_flops * mn, gemm.bytes + (spec.n * c if spec.bias else 0.0))]
    kernels = [gemm]
    if spec.bias:  # broadcast add of a [n] vector: 1 FLOP per value, reads C and the bias, writes C
        kernels.append(Op("bias_add", "vector", 1.0 * mn, (2.0 * mn + spec.n) * c))
    if spec.activation:
        kernels.append(elementwise(spec.activation, mn, c))
    return kernels


def tile_view(spec: GemmSpec) -> dict | None:
    """What one thread-block tile sees in one step of its K loop (A block tm x tk, B block
    tk x tn, C block tm x tn; sides clamped to the GEMM), under two conventions:

    - c_read_modify_write: C is read and written back every step (accumulated in memory):
      2 tm tn tk / (tm tk a + tk tn b + 2 tm tn c). The common hand count's "about 32 for a
      128x128 block" in fp16 is this one: 2 x 128^3 / (4 x 128^2 x 2) = 32.
    - read_once_write_once: C written once (NVIDIA's ideal count, NVIDIA matmul guide):
      2 tm tn tk / (tm tk a + tk tn b + tm tn c) = 128/3 ~ 42.7 for the same block.

    no_l2_reuse: the whole GEMM if every tile fetched its A and B panels from HBM (no L2 hits):
    A is read ceil(n/tn) times, B ceil(m/tm) times. L2 catching that reuse is what lifts a large
    GEMM from ~tm tn/(tm+tn) to its ideal intensity (NVIDIA matmul guide)."""
    if spec.tile is None:
        return None
    a, b, c = spec.widths
    tm, tn, tk = min(spec.tile[0], spec.m), min(spec.tile[1], spec.n), min(spec.tile[2], spec.k)
    flops = 2.0 * tm * tn * tk
    once = tm * tk * a + tk * tn * b + tm * tn * c
    rmw = once + tm * tn * c
    tiles_m, tiles_n = math.ceil(spec.m / tm), math.ceil(spec.n / tn)
    total_flops = 2.0 * spec.m * spec.n * spec.k
    no_reuse = spec.m * spec.k * a * tiles_n + spec.k * spec.n * b * tiles_m + spec.m * spec.n * c
    return {
        "tile_m": tm,
        "tile_n": tn,
        "tile_k": tk,
        "tiles": tiles_m * tiles_n,
        "c_read_modify_write": {"flops": flops, "bytes": rmw, "intensity": flops / rmw},
        "read_once_write_once": {"flops": flops, "bytes": once, "intensity": flops / once},
        "no_l2_reuse": {"flops": total_flops, "bytes": no_reuse, "intensity": total_flops / no_reuse},
    }


def conv2d_direct(spec: Conv2dSpec) -> Op:
    """Direct count: 2 x (Cin/g) x k^2 FLOP per output value; the input, the weights and the
    output each cross memory once (padding zeros are not read). A depthwise conv has no channel
    reduction to feed a matrix engine and is placed on the vector units; its intensity is 2k^2
    FLOP per output over >= 2 values moved per output: 18 / 4 = 4.5 FLOP/byte for 3x3 in bf16
    (docs/labs.md: the hand count's "9" counts the input read and forgets the output write)."""
    s = spec
    b = DTYPE_BYTES[s.dtype]
    outputs = s.batch * s.out_height * s.out_width * s.out_channels
    per_output = 2.0 * (s.in_channels // s.groups) * s.kernel * s.kernel
    weights = s.out_channels * (s.in_channels // s.groups) * s.kernel * s.kernel
    inputs = s.batch * s.height * s.width * s.in_channels
    unit = "vector" if s.depthwise else "tensor"
    return Op("conv2d", unit, per_output * outputs, (inputs + weights + outputs) * b)


def im2col_shape(spec: Conv2dSpec) -> dict:
    """The GEMM a conv becomes once its input is unrolled (im2col; Chellapilla et al. 2006):
    per group, M = B Ho Wo rows, N = Cout/g, K = (Cin/g) k^2; `groups` such GEMMs."""
    s = spec
    m = s.batch * s.out_height * s.out_width
    k = (s.in_channels // s.groups) * s.kernel * s.kernel
    unrolled = m * k * s.groups
    return {
        "m": m,
        "n": s.out_channels // s.groups,
        "k": k,
        "groups": s.groups,
        "out_height": s.out_height,
        "out_width": s.out_width,
        "unrolled_values": unrolled,
        # how many times the unrolled matrix is larger than the input (k^2 / s^2 at same padding)
        "expansion": unrolled / (s.batch * s.height * s.width * s.in_channels),
    }


def conv2d_im2col(spec: Conv2dSpec) -> list[Op]:
    """Explicit im2col: a lowering kernel reads the input and writes the unrolled matrix
    (no FLOPs), then `groups` GEMMs (ops.matmul) read it. With im2col the input is copied ~k^2
    times (Chellapilla et al. 2006), so the real intensity drops by about that factor."""
    v = im2col_shape(spec)
    b = DTYPE_BYTES[spec.dtype]
    g = v["groups"]
    one = matmul("im2col_gemm", v["m"], v["n"], v["k"], b, b, b)
    inputs = spec.batch * spec.height * spec.width * spec.in_channels
    return [
        Op("im2col", "vector", 0.0, (inputs + v["unrolled_values"]) * b),
        Op("im2col_gemm", "tensor", one.flops * g, one.bytes * g),
    ]


def chain_kernels(spec: ElementwiseSpec, fused: bool | None = None) -> list[Op]:
    """Unfused: one kernel per op (ops.elementwise: each op reads its inputs and writes its
    output through memory). Fused: one kernel that reads the chain's input and every second
    operand once, and writes the last output once (kernel fusion, e.g. PyTorch's torch.compile guide)."""
    fused = spec.fused if fused is None else fused
    # A norm's weight vector spans the last dimension; a flat (1-D) count has no rows, so none
    # is counted (the API's `elements` form, unchanged from before the lab).
    n, b = spec.elements, DTYPE_BYTES[spec.dtype]
    last = spec.shape[-1] if len(spec.shape) > 1 else 0
    ops = list(spec.ops) * spec.count
    kernels = [elementwise(name, n, b, extra_bytes=NORM_WEIGHT_VECTORS.get(name, 0) * last * b) for name in ops]
    if not fused:
        return kernels
    extra_operands = sum(ELEMENTWISE_KINDS[name][1] - 1 for name in ops)
    weights = sum(NORM_WEIGHT_VECTORS.get(name, 0) for name in ops) * last * b
    flops = sum(k.flops for k in kernels)
    return [Op("fused_chain", "vector", flops, (2 + extra_operands) * n * b + weights)]


def spec_kernels(spec: OpSpec) -> tuple[list[Op], dict[str, list[Op]]]:
    """(the kernels of the spec as given, {name: the kernels of each alternative view})."""
    if isinstance(spec, GemmSpec):
        alt = (
            {}
            if not spec.has_epilogue
            else {("unfused" if spec.fused_epilogue else "fused"): gemm_kernels(spec, not spec.fused_epilogue)}
        )
        return gemm_kernels(spec), alt
    if isinstance(spec, Conv2dSpec):
        return [conv2d_direct(spec)], {"im2col": conv2d_im2col(spec)}
    if isinstance(spec, ElementwiseSpec):
        if spec.kernels == 1:  # one op: fused and unfused are the same kernel
            return chain_kernels(spec), {}
        return chain_kernels(spec), {("unfused" if spec.fused else "fused"): chain_kernels(spec, not spec.fused)}
    raise EngineInputError(
        "op.kind",
        f"{type(spec).__name__} is not an op",
        "gemm, conv2d, elementwise",
        code="op_kind",
        params={"value": type(spec).__name__[:40], "allowed": "gemm, conv2d, elementwise"},
    )


# ---- placing kernels on an accelerator ---------------------------------------------------------


def _rates(spec: OpSpec, hw: Accelerator) -> dict[str, float]:
    """FLOP/s per unit for this spec: the tensor roof of its compute dtype, the vector roof of
    its value dtype (fp32 values use the fp32 rate; engine/hardware.py vector_roof)."""
    value_dtype = (spec.c_dtype or spec.dtype) if isinstance(spec, GemmSpec) else spec.dtype
    tensor_dtype = spec.dtype if spec.dtype in DTYPES else "bf16"
    return {"tensor": hw.tensor_roof(tensor_dtype)[1], "vector": hw.vector_roof(value_dtype)[1]}


def place_kernels(
    kernels: list[Op], rates: dict[str, float], bandwidth_bytes_per_s: float, launch_overhead_s=0.0
) -> dict:
    """Kernels run back to back, each bounded by max(compute, memory, launch overhead). `bound`
    is the regime holding most of the time; identical kernels share one row (with a count)."""
    bw = bandwidth_bytes_per_s
    rows: dict[str, dict] = {}
    held = {"memory": 0.0, "compute": 0.0, "overhead": 0.0}
    flops = byts = time_s = compute_s = memory_s = 0.0
    for op in kernels:
        peak = rates[op.unit]
        t = kernel_time_s(op.flops, op.bytes, peak, bw, launch_overhead_s)
        regime = kernel_bound(op.flops, op.bytes, peak, bw, launch_overhead_s)
        held[regime] += t
        flops, byts, time_s = flops + op.flops, byts + op.bytes, time_s + t
        compute_s, memory_s = compute_s + op.flops / peak, memory_s + op.bytes / bw
        row = rows.get(op.name)
        if row is None:
            rows[op.name] = {
                "name": op.name,
                "unit": op.unit,
                "count": 1,
                "flops": op.flops,
                "bytes": op.bytes,
                "time_s": t,
                "bound": regime,
            }
        else:
            row["count"] += 1
            row["flops"] += op.flops
            row["bytes"] += op.bytes
            row["time_s"] += t
    for row in rows.values():
        row["intensity"] = row["flops"] / row["bytes"] if row["bytes"] else 0.0
    unit = kernels[0].unit
    return {
        "unit": unit,
        "flops": flops,
        "bytes": byts,
        "intensity": flops / byts if byts else 0.0,
        "time_s": time_s,
        "bound": max(held, key=held.__getitem__),  # ties: memory, then compute
        "attainable_flops_per_s": flops / time_s,  # = min(peak, I x B) for one kernel, no overhead
        "compute_time_s": compute_s,
        "memory_time_s": memory_s,
        "overhead_time_s": launch_overhead_s * len(kernels),
        "kernels": len(kernels),
        "peak_flops_per_s": rates[unit],
        "ridge_point": rates[unit] / bw,
        "ops": list(rows.values()),
    }


def lab(spec: OpSpec, hardware: list[Accelerator], launch_overhead_s: float = 0.0) -> dict:
    """One op spec on each accelerator (nominal roofs): the one shape the CLI's --json, the
    API's /api/v1/ops and the dashboard's op lab share."""
    overhead = check_launch_overhead(launch_overhead_s)
    kernels, alternatives = spec_kernels(spec)
    results = []
    for hw in hardware:
        rates = _rates(spec, hw)
        bw = hw.memory_bandwidth_bytes_per_s
        placed = place_kernels(kernels, rates, bw, overhead)
        placed["alternatives"] = {name: place_kernels(ks, rates, bw, overhead) for name, ks in alternatives.items()}
        results.append(
            {"hardware_id": hw.id, "hardware_name": hw.name, "what_if": hw.vendor == WHAT_IF_VENDOR} | placed
        )
    return {
        "op": spec_dict(spec),
        "name": spec.label,
        "launch_overhead_s": overhead,
        "tile": tile_view(spec) if isinstance(spec, GemmSpec) else None,
        "im2col": im2col_shape(spec) if isinstance(spec, Conv2dSpec) else None,
        "results": results,
    }


WHAT_IF_VENDOR = "what-if"  # engine/what_if.py marks its accelerators with this vendor


# ---- presets and the teaching chart ----------------------------------------------------------------


def decode_projections(model: ModelConfig, batch: int = 1) -> list[dict]:
    """The GEMMs of one decode step in the model's most common layer (the MoE layers of a
    model whose first layers are dense) and the LM head, as GEMM specs (M = tokens in flight =
    batch; N, K from the config), named as engine/transformer.py names them. MoE experts:
    M = ceil(batch x k / E) tokens per expert on average (uniform routing)."""
    _int("batch", batch, 1, 1 << 16)
    layer = max(model.layer_groups, key=lambda group: group[1])[0]
    att, mlp, h = layer.attention, layer.mlp, model.hidden_size
    if att.is_mla:
        q_in = att.q_lora_rank or h
        dims = ([("q_a_proj", att.q_lora_rank, h)] if att.q_lora_rank else []) + [
            ("q_b_proj", att.q_dim, q_in),
            ("kv_a_proj", att.kv_lora_rank + att.qk_rope_head_dim, h),
        ]
    else:
        dims = [("q_proj", att.q_dim, h), ("k_proj", att.kv_dim, h), ("v_proj", att.kv_dim, h)]
    dims.append(("o_proj", h, att.out_dim))
    rows = batch
    prefix = ""
    if mlp.is_moe:
        rows = math.ceil(batch * mlp.experts_per_token / mlp.num_experts)
        prefix = "expert_"
    inter = mlp.intermediate_size
    mlp_dims = ([(f"{prefix}gate_proj", inter, h)] if mlp.gated else []) + [
        (f"{prefix}up_proj", inter, h),
        (f"{prefix}down_proj", h, inter),
    ]
    out = [{"name": name, "op": {"kind": "gemm", "m": batch, "n": n, "k": k}} for name, n, k in dims]
    out += [{"name": name, "op": {"kind": "gemm", "m": rows, "n": n, "k": k}} for name, n, k in mlp_dims]
    out.append({"name": "lm_head", "op": {"kind": "gemm", "m": batch, "n": model.vocab_size, "k": h}})
    return out


# The example shapes: one per lesson of the op lab (docs/labs.md lists their numbers).
EXAMPLE_PRESETS: tuple[dict, ...] = (
    {
        "id": "gemm-8192",
        "label": "GEMM 8192³ (I ≈ 2731, 1.11 ms compute vs 0.12 ms memory on H100)",
        "op": {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192},
    },
    {
        "id": "gemm-4096",
        "label": "GEMM 4096³ (I ≈ 1365)",
        "op": {"kind": "gemm", "m": 4096, "n": 4096, "k": 4096},
    },
    {"id": "gemv", "label": "GEMV M = 1 (I ≈ 1)", "op": {"kind": "gemm", "m": 1, "n": 4096, "k": 4096}},
    {
        "id": "tile-128",
        "label": "GEMM 4096³, 128x128 tile (≈ 32 with C read-modify-write, ≈ 42.7 read once)",
        "op": {"kind": "gemm", "m": 4096, "n": 4096, "k": 4096, "tile": "128x128"},
    },
    {
        "id": "gemm-bias-silu",
        "label": "GEMM 8192x4096x4096 + bias + SiLU fused in the epilogue",
        "op": {"kind": "gemm", "m": 8192, "n": 4096, "k": 4096, "bias": True, "activation": "silu"},
    },
    {
        "id": "depthwise-3x3",
        "label": "depthwise 3x3 conv (≈ 4.5 FLOP/byte in bf16; the hand count says 9)",
        "op": {
            "kind": "conv2d",
            "batch": 32,
            "height": 56,
            "width": 56,
            "in_channels": 256,
            "out_channels": 256,
            "kernel": 3,
            "stride": 1,
            "padding": 1,
            "groups": 256,
        },  # fmt: skip
    },
    {
        "id": "chain-10",
        "label": "ten elementwise ops on [32, 2048, 4096] (~10.7 GB unfused, 10x less fused)",
        "op": {"kind": "elementwise", "shape": [32, 2048, 4096], "ops": ["scale"], "count": 10},
    },
    {
        "id": "tiny-add",
        "label": "add on [32, 128] (launch overhead comparable to the work)",
        "op": {"kind": "elementwise", "shape": [32, 128], "ops": ["add"]},
        "launch_overhead_s": 5e-6,
    },
)


def op_presets(model: ModelConfig | None = None, batch: int = 1) -> list[dict]:
    """One-click op specs: {id, label, op (an API `op` body), launch_overhead_s}, the example
    shapes first, then the decode projections of `model` at `batch` (ids `decode-<name>`)."""
    presets = [{"launch_overhead_s": 0.0} | p for p in EXAMPLE_PRESETS]
    if model is not None:
        presets += [
            {
                "id": f"decode-{p['name']}",
                "label": f"{model.id} decode {p['name']} at batch {batch}",
                "op": p["op"],
                "launch_overhead_s": 0.0,
            }
            for p in decode_projections(model, batch)
        ]
    return presets


TEACHING_ADD_ELEMENTS = 8192 * 8192  # the add's size does not move its intensity (1/6 in bf16)


def teaching_chart(hardware: list[Accelerator], model: ModelConfig, context_length: int = 128) -> dict:
    """The teaching chart: GEMM 8192³, an elementwise add and a 7B model's decode at batch 1
    (a short cache, as the weights-only count of a decode step assumes; Pope et al. 2022) on
    each accelerator, in the lab's result shape. The decode step is the transformer's own phase (engine/analysis)."""
    from .analysis import Roofs, Scenario, evaluate_phase, phase_ops  # analysis imports ops, not us

    gemm = lab(GemmSpec(8192, 8192, 8192), hardware)
    add = lab(ElementwiseSpec((TEACHING_ADD_ELEMENTS,), ("add",)), hardware)
    scenario = Scenario(batch_size=1, context_length=context_length)
    decode_ops = phase_ops(model, scenario)[0]
    decode = []
    for hw in hardware:
        roofs = Roofs.of(hw, "bf16")
        phase = evaluate_phase(decode_ops, roofs, 1)
        decode.append(
            {
                "hardware_id": hw.id,
                "hardware_name": hw.name,
                "what_if": hw.vendor == WHAT_IF_VENDOR,
                "unit": "tensor",
                "kernels": len(decode_ops),
            }
            | {k: phase[k] for k in ("flops", "bytes", "intensity", "time_s", "bound", "attainable_flops_per_s")}
            | {
                "compute_time_s": phase["compute_time_s"],
                "memory_time_s": phase["memory_time_s"],
                "peak_flops_per_s": roofs.tensor_flops_per_s,
                "ridge_point": roofs.tensor_flops_per_s / roofs.bandwidth_bytes_per_s,
            }
        )
    return {
        "points": [
            {"id": "gemm-8192", "name": gemm["name"], "source": "GEMM: I = n/3 ≈ 2731", "results": gemm["results"]},
            {"id": "add", "name": add["name"], "source": "add: I = 1/6 in bf16", "results": add["results"]},
            {
                "id": "decode",
                "name": f"{model.id} decode step, batch 1, context {context_length}",
                "source": "decode at batch 1 (Pope et al. 2022): I ≈ 1, weights / bandwidth",
                "results": decode,
            },
        ]
    }
