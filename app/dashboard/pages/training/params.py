"""The training lab's URL parameters, each declared once (lib/params.py): its name in the link,
the TrainArgs field it sets, its limits (engine/training.py's own) and the control that shows
it. Parsing a link, the canonical link, the controls' first values and reading the controls
back all come from this table (state.py); the rows' order is the canonical link's.

Adding a parameter: a TrainArgs field and a row here (`scenario=` names the TrainingSetup
field it feeds as is), its control in layout.py (labelled `lab_train_<name>` in locales/, the
words a refused value is told in too), a line in docs/labs.md's training-lab section. `gpn`
was added that way.

The shared parameters are the roofline table's rows (roofline/params.py SHARED), read and
shown here by this lab's controls: `hw` is read with the page's chrome (the View) and its
first accelerator is the one trained on; the lab writes `model` (a preset id or `teaching`).
The other shared ones (`xhw`, `prec`, `lang`, `theme`...) travel through as given
(pages/links.py), so a tab switch keeps them both ways.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.dashboard.lib.params import Choice, Float, Int, Invalid, Param, model_choice
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.params import CHROME
from engine.hardware import catalogue
from engine.model_catalog import model_ids
from engine.training import (
    DEFAULT_GPUS_PER_NODE,
    MAX_BUS_BANDWIDTH_BYTES_PER_S,
    MAX_GPUS,
    MAX_HEAD_DIM,
    MAX_HEADS,
    MAX_LAYERS,
    MAX_PARAMS,
    MAX_SEQUENCE,
    MAX_SEQUENCES_PER_GPU,
    MAX_STEP_TIME_S,
    MAX_TOKENS_PER_S,
    MAX_TOKENS_PER_STEP,
    MIN_BUS_BANDWIDTH_BYTES_PER_S,
    MIN_STEP_TIME_S,
    MIN_TOKENS_PER_S,
    OPTIMIZERS,
    RECOMPUTE,
    TRAINING_DTYPES,
    ZERO_STAGES,
)

TEACHING = "teaching"


MIN_PARAMS_B = 0.001  # a million parameters, in billions


@dataclass(frozen=True)
class TrainArgs:
    """What the lab was asked: a 7B model on 8 x H100 SXM5 with full recomputation (the
    run whose four utilisation figures span 19% to 51%)."""

    hardware: str = "h100-sxm5"
    model: str = TEACHING
    params_b: float = 7.0  # teaching form: N in billions
    layers: int = 32
    heads: int = 32
    head_dim: int = 128
    gpus: int = 8
    seq: int = 4096
    tokens: int = 262144
    measure: str = "step"  # "step": `measured` is the step time (s); "rate": tokens/s
    # the teaching run's measured step; None: no measurement of this run yet (a link that brought
    # another model and no step_s/tok_s: the example's 3.64 s was never measured for it)
    measured: float | None = 3.64
    optimizer: str = "adamw"
    zero: int = 0
    recompute: str = "full"
    dtype: str = "bf16"
    busbw_gbs: float | None = None  # measured busbw, GB/s; None: the link
    micro_batch: int | None = None  # None: every sequence of the GPU at once
    gpus_per_node: int = DEFAULT_GPUS_PER_NODE  # GPUs one scale-up link joins (an HGX board: 8)


class Accelerator:
    """The accelerator trained on: one catalogue id (the dropdown's value)."""

    def parse(self, text: str) -> str:
        if text not in catalogue():
            raise Invalid("unknown_accelerator")
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, str):
            raise Invalid("unknown_accelerator")
        return self.parse(value)

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Measured:
    """`step_s=` (s) or `tok_s=` (tokens/s, whole job): what was measured and its value. The
    `train-measure` radio says which of the two the `train-measured` box holds; the row whose
    measure it is not reads nothing."""

    measure: str  # "step" or "rate"
    number: Float

    @property
    def low(self) -> float:
        return self.number.low

    @property
    def high(self) -> float:
        return self.number.high

    def parse(self, text: str) -> tuple[str, float]:
        return self.measure, self.number.parse(text)

    def write(self, value: tuple[str, float]) -> str:
        return self.number.write(value[1])

    def read(self, measure: object, value: object) -> tuple[str, float]:
        if measure != self.measure:
            raise Invalid("missing")
        return self.measure, self.number.read(value)

    def show(self, value: tuple[str, float]) -> tuple[str, float]:
        return value


# Links written before the measured step's name carried its unit read `step=` (s). The roofline
# reads its own `step=` in ms, so the old name is renamed before anything reads a training link:
# a tab switch never hands a training step to the roofline as a 1,000x shorter one.
LEGACY_NAMES = {"step": "step_s"}


def current_names(lab_args: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((LEGACY_NAMES.get(name, name), value) for name, value in lab_args)


def shared(name: str, **changes: object) -> Param:
    """A parameter every tab carries: the roofline table's row, with this lab's kind and control."""
    return replace(ROOFLINE_PARAMS[name], **changes)


MEASURE = (("train-measure", "value"), ("train-measured", "value"))

PARAMS: tuple[Param, ...] = (
    shared("hw", kind=Accelerator(), control=("train-hw", "value")),
    shared("model", kind=model_choice((TEACHING, *model_ids())), control=("train-model", "value")),
    # at least a million parameters: a smaller "model" (1e-320 was taken) printed MFU with 300 zeros
    Param("n", "params_b", Float(MIN_PARAMS_B, MAX_PARAMS / 1e9), control=("train-n", "value")),
    Param("layers", "layers", Int(1, MAX_LAYERS), control=("train-layers", "value")),
    Param("heads", "heads", Int(1, MAX_HEADS), control=("train-heads", "value")),
    Param("hdim", "head_dim", Int(1, MAX_HEAD_DIM), control=("train-hdim", "value")),
    Param("gpus", "gpus", Int(1, MAX_GPUS), control=("train-gpus", "value"), scenario="gpus"),
    Param("seq", "seq", Int(1, MAX_SEQUENCE), control=("train-seq", "value"), scenario="sequence_length"),
    Param(
        "tokens", "tokens", Int(1, MAX_TOKENS_PER_STEP), control=("train-tokens", "value"), scenario="tokens_per_step"
    ),
    Param(
        "step_s",
        ("measure", "measured"),
        Measured("step", Float(MIN_STEP_TIME_S, MAX_STEP_TIME_S)),
        control=MEASURE,
        omit=lambda value: value[0] != "step" or value[1] is None,
    ),
    Param(
        "tok_s",
        ("measure", "measured"),
        Measured("rate", Float(MIN_TOKENS_PER_S, MAX_TOKENS_PER_S)),
        control=MEASURE,
        omit=lambda value: value[0] != "rate" or value[1] is None,
    ),
    Param("opt", "optimizer", Choice(OPTIMIZERS), control=("train-opt", "value"), scenario="optimizer"),
    Param("zero", "zero", Choice(ZERO_STAGES), control=("train-zero", "value"), scenario="zero_stage"),
    Param("recompute", "recompute", Choice(RECOMPUTE), control=("train-recompute", "value"), scenario="recompute"),
    Param("dtype", "dtype", Choice(TRAINING_DTYPES), control=("train-dtype", "value"), scenario="dtype"),
    Param(
        "busbw",
        "busbw_gbs",
        Float(MIN_BUS_BANDWIDTH_BYTES_PER_S / 1e9, MAX_BUS_BANDWIDTH_BYTES_PER_S / 1e9),
        control=("train-busbw", "value"),
    ),
    Param(
        "mb", "micro_batch", Int(1, MAX_SEQUENCES_PER_GPU), control=("train-mb", "value"), scenario="micro_batch_size"
    ),
    Param(
        "gpn",
        "gpus_per_node",
        Int(1, MAX_GPUS),
        control=("train-gpn", "value"),
        omit=lambda value: value == DEFAULT_GPUS_PER_NODE,
        scenario="gpus_per_node",
    ),
)
BY_NAME = {p.name: p for p in PARAMS}
# The link's own rows: `hw` is the page's chrome, read and written with the View's.
LINK = tuple(p for p in PARAMS if p.name not in CHROME)
OWN = frozenset(p.name for p in LINK)
# The teaching form's rows: read and written only with model=teaching (a preset has its own shape).
TEACHING_PARAMS = ("n", "layers", "heads", "hdim")
