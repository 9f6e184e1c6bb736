"""Single operations with their FLOPs and ideal bytes (each input read once, each output
written once — NVIDIA's "arithmetic intensity" count, Williams et al. 2009).

Every op says which unit it runs on: "tensor" (matrix engines: GEMMs, attention matmuls) or
"vector" (CUDA cores / VALU: elementwise), and is placed under that unit's roof — the
elementwise add belongs under the non-tensor roof (H100 datasheet: ridge 133.8/3.352 ~ 40).

Fields may be numpy arrays (sweeps); every formula here is plain arithmetic so it
broadcasts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import EngineInputError


@dataclass(slots=True)
class Op:
    name: str
    unit: str  # "tensor" | "vector"
    flops: float  # FLOP
    bytes: float  # bytes moved to/from memory
    layers: int = 0  # transformer layers this row sums over; 0: once per step (embedding, lm_head)


def matmul(name: str, m, n, k, a_bytes: float, b_bytes: float, c_bytes: float, extra_bytes=0.0) -> Op:
    """C[m,n] = A[m,k] @ B[k,n]: 2mnk FLOP (a multiply-add is 2), reads A and B, writes C
    (NVIDIA matrix-multiplication guide). Widths are bytes per value."""
    return Op(name, "tensor", 2.0 * m * n * k, m * k * a_bytes + k * n * b_bytes + m * n * c_bytes + extra_bytes)


def linear(
    name: str,
    tokens,
    out_features: int,
    in_features: int,
    weight_bytes: float,
    act_bytes: float,
    out_bytes: float | None = None,
    bias: bool = False,
) -> Op:
    """A linear layer over `tokens` rows: the weight [in, out] is read once for all rows."""
    bias_bytes = out_features * weight_bytes if bias else 0.0
    return matmul(
        name,
        tokens,
        out_features,
        in_features,
        act_bytes,
        weight_bytes,
        act_bytes if out_bytes is None else out_bytes,
        bias_bytes,
    )


# name -> (FLOP per element, values read per element, values written per element).
# FLOP counts are conventional (exp, rsqrt count as one FLOP each):
#   add/mul/residual_add: one op on two inputs -> I = 1/6 in bf16, 1/12 in fp32
#   scale: x * a scalar, one input (a chain of ten such ops is the lab's fusion example)
#   silu: x * sigmoid(x) = neg, exp, add, div, mul ~ 4;  gelu (tanh form) ~ 8
#   swiglu: silu(gate) * up -> 5 FLOP, two inputs;  geglu: 9 FLOP, two inputs
#   rmsnorm: square, accumulate, scale by rsqrt, scale by weight -> 4
#   layernorm: mean, centre, square, accumulate, scale, shift -> 7
#   softmax: max, subtract, exp, sum, divide -> 5 (a two-pass kernel reads once, writes once)
#   rope: x*cos + rotate(x)*sin -> 3 (cos/sin tables are shared by all heads; not counted)
#   copy/transpose: layout change, no arithmetic
ELEMENTWISE_KINDS: dict[str, tuple[float, int, int]] = {
    "add": (1, 2, 1),
    "mul": (1, 2, 1),
    "residual_add": (1, 2, 1),
    "scale": (1, 1, 1),
    "silu": (4, 1, 1),
    "gelu": (8, 1, 1),
    "swiglu": (5, 2, 1),
    "geglu": (9, 2, 1),
    "rmsnorm": (4, 1, 1),
    "layernorm": (7, 1, 1),
    "softmax": (5, 1, 1),
    "rope": (3, 1, 1),
    "copy": (0, 1, 1),
    "transpose": (0, 1, 1),
}


def elementwise(kind: str, elements, value_bytes: float, name: str | None = None, extra_bytes=0.0) -> Op:
    """An elementwise op over `elements` values of `value_bytes` each, on the vector units."""
    try:
        flops_per, reads, writes = ELEMENTWISE_KINDS[kind]
    except KeyError:
        raise EngineInputError(
            "op.name",
            f"unknown elementwise op {kind!r}",
            ", ".join(ELEMENTWISE_KINDS),
            code="op_unknown",
            params={"value": repr(kind)[:40], "allowed": ", ".join(ELEMENTWISE_KINDS)},
        ) from None
    return Op(name or kind, "vector", flops_per * elements, (reads + writes) * elements * value_bytes + extra_bytes)


def gemm_op(m: int, n: int, k: int, value_bytes: float) -> Op:
    """A plain GEMM with all three matrices in one format (the API's single-op question)."""
    return matmul("gemm", m, n, k, value_bytes, value_bytes, value_bytes)
