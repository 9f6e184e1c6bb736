"""Number formats: storage width and which hardware roof a compute dtype runs on."""

from .errors import EngineInputError

# Bytes per stored value. int4/fp4 pack two values per byte; quantisation scales
# (e.g. one fp16 scale per 128-value group, ~1.6% extra) are not counted.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}
DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "fp4")

# When a chip has no tensor roof for the requested compute dtype, the kernel runs on the
# next wider format it does have (e.g. fp8 weights are up-converted to bf16 on an A100, as
# weight-only kernels such as Marlin do). The result reports the dtype actually used.
# fp32 closes every chain: a CPU (or a calibration of one) may have only an fp32 matrix rate.
TENSOR_FALLBACK: dict[str, tuple[str, ...]] = {
    "bf16": ("bf16", "fp16", "fp32"),
    "fp16": ("fp16", "bf16", "fp32"),
    "fp8": ("fp8", "bf16", "fp16", "fp32"),
    "int8": ("int8", "fp8", "bf16", "fp16", "fp32"),
    "int4": ("int8", "fp8", "bf16", "fp16", "fp32"),
    "fp4": ("fp4", "fp8", "bf16", "fp16", "fp32"),
}
# Elementwise ops run on the vector units in 16-bit (narrower formats are up-converted).
VECTOR_FALLBACK = ("bf16", "fp16", "fp32")


def dtype_bytes(dtype: str, field: str) -> float:
    """Storage bytes per value of `dtype`; raises EngineInputError naming `field`."""
    try:
        return DTYPE_BYTES[dtype]
    except (KeyError, TypeError):
        raise EngineInputError(
            field,
            f"unknown dtype {dtype!r}",
            ", ".join(DTYPES),
            code="unknown_dtype",
            params={"value": repr(dtype), "allowed": ", ".join(DTYPES)},
        ) from None


def check_dtype(dtype: str, field: str) -> str:
    if dtype not in DTYPES:
        raise EngineInputError(
            field,
            f"unknown dtype {dtype!r}",
            ", ".join(DTYPES),
            code="unknown_dtype",
            params={"value": repr(dtype), "allowed": ", ".join(DTYPES)},
        )
    return dtype
