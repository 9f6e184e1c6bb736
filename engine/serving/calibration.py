"""The serving calibration: a few achieved fractions and fixed costs, fitted to measured runs.

Each parameter p of a (backend, accelerator family) pair is global x backend factor x family
factor (an additive model in log p), so a pair the measurements never saw (a backend on a new
family) still gets both its backend's and its family's effect; a request with no backend gets
the family's "any backend" set. Parameters are physical: achieved fractions of the memory,
tensor and link roofs (the routed experts' grouped GEMMs apart from the dense ones), a
load-imbalance factor on the routed experts, fixed costs per step, layer, scheduled request and
collective, the vector operations a weight-only GEMM spends per weight it converts, and three
TTFT shape factors. None of them looks up a measured run.

The file is written by scripts/fit_serving.py from published/serving/ and read here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

CALIBRATION_PATH = Path(__file__).resolve().parent.parent / "calibration" / "serving.yaml"

# name -> (meaning, lower, upper): bounds keep every fitted value physical.
PARAMETERS: dict[str, tuple[str, float, float]] = {
    "bandwidth_efficiency": ("achieved fraction of memory bandwidth on weights and activations", 0.05, 1.0),
    "compute_efficiency": ("achieved fraction of the tensor roof on GEMMs", 0.02, 1.0),
    "expert_compute_efficiency": ("achieved fraction of the tensor roof in routed-expert grouped GEMMs", 0.01, 1.0),
    "attention_efficiency": ("achieved fraction of both roofs in the attention kernels", 0.02, 1.0),
    "moe_imbalance": ("busiest GPU's routed-expert work over the mean (>= 1)", 1.0, 8.0),
    "link_efficiency": ("achieved fraction of the scale-up link bandwidth", 0.02, 1.0),
    "collective_latency_s": ("fixed cost of one all-reduce (launch, hops, synchronisation)", 1e-7, 2e-4),
    "scale_out_latency_s": ("extra fixed cost of an all-reduce whose group spans nodes (network hops)", 1e-7, 1e-3),
    "alltoall_latency_s": ("fixed cost of one expert-parallel dispatch or combine", 1e-7, 1e-3),
    "step_overhead_s": ("fixed cost of one step (scheduler, sampling, launches)", 1e-6, 0.05),
    "layer_overhead_s": ("fixed cost of one layer in a step (kernel launches, synchronisation)", 1e-8, 1e-3),
    "request_overhead_s": ("scheduler cost of one running request in a step (inputs, sampling, output)", 1e-8, 1e-3),
    "dequant_ops_per_weight": ("vector operations a weight-only GEMM spends converting one weight element", 0.25, 48.0),
    "ttft_prefill_factor": ("TTFT prefill time over one prompt's calibrated prefill", 1.0, 20.0),
    "ttft_wait_steps": ("steps a new prompt waits and spans besides its prefill", 0.0, 200.0),
    "ttft_burst_share": ("share of requests that arrive in a wave and wait for its chunked prefill", 1e-4, 1.0),
    # Disaggregated TTFT: physical limits, so no fit explains a slow first token by a link a
    # hundred times slower than its card (RDMA transfers of KV blocks, NIXL or Mooncake, reach
    # most of a NIC's line rate) or a prefill queue far from M/D/1's.
    "disagg_prefill_factor": ("a disaggregated prefill as the client sees it over the calibrated forward", 1.0, 5.0),
    "prefill_busy_factor": ("a disaggregated prefill worker's busy time over the calibrated forward", 0.3, 3.0),
    "kv_link_efficiency": ("achieved fraction of the link's bandwidth in a KV cache transfer", 0.2, 1.0),
    "kv_transfer_latency_s": ("fixed cost of a disaggregated first token (transfer handshake, routing)", 1e-4, 1.0),
    "prefill_queue_factor": ("a disaggregated prompt's wait over M/D/1's wait for the prefill in progress", 0.5, 4.0),
    "disagg_burst_share": ("share of disaggregated requests that wait behind a first wave of all C prompts", 1e-4, 1.0),
    # Fitted on the disaggregated runs that record their worker counts (the others' decode batch
    # per worker is unknown): each is 1.1-1.4x slower than the aggregated model's step.
    "disagg_decode_factor": ("a disaggregated decode step over an aggregated one of the same batch", 1.0, 3.0),
}
PARAMETER_NAMES = tuple(PARAMETERS)
FAMILY_OF_PREFIX = (("gb", "blackwell"), ("b", "blackwell"), ("h", "hopper"))


def family_of(hardware_id: str, families: dict[str, list[str]]) -> str | None:
    """The accelerator family a calibration groups a card under (None: none fitted)."""
    for family, ids in families.items():
        if hardware_id in ids:
            return family
    return None


@dataclass(frozen=True)
class Calibration:
    id: str
    data: dict
    _resolved: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def families(self) -> dict[str, list[str]]:
        return self.data["families"]

    def parameters(self, backend: str | None, hardware_id: str) -> tuple[dict[str, float], str, str | None]:
        """(parameters, backend used, family used) for a backend (None: any) on a card."""
        key = (backend, hardware_id)
        if key not in self._resolved:
            self._resolved[key] = self._parameters(backend, hardware_id)
        params, used, family = self._resolved[key]
        return dict(params), used, family

    def _parameters(self, backend: str | None, hardware_id: str) -> tuple[dict[str, float], str, str | None]:
        family = family_of(hardware_id, self.families)
        used = backend if backend in self.data["backend_factors"] else None
        out = {}
        for name in PARAMETER_NAMES:
            _, low, high = PARAMETERS[name]
            value = self.data["global"][name]
            if used is not None:
                value *= self.data["backend_factors"][used][name]
            if family in self.data["family_factors"]:
                value *= self.data["family_factors"][family][name]
            out[name] = min(max(value, low), high)
        return out, used or "any", family

    def measured_mtp_acceptance(self) -> tuple[float, float] | None:
        """The acceptance range a measured run's MTP drafts are answered with (their runs record
        none): the rate fitted on the MTP runs of the split (scripts/fit_serving.py) in the middle,
        the estimate's, and 1 (every draft token accepted) or twice the rate at the top, the
        bound's, so no run can beat the bound. None: the file fitted none."""
        a = self.data.get("measured_mtp_acceptance")
        if a is None:
            return None
        low = max(2.0 * a - 1.0, 0.0)
        return low, min(2.0 * a - low, 1.0)

    def ttft_model_factor(self, model_id: str) -> float:
        """A fitted model's factor on its aggregated TTFT estimate (1 for any other model): its
        runs' median measured / estimated first token, shrunk toward 1 by their count
        (scripts/fit_serving.py model_factors). A prompt's first token depends on the model's
        kernels as much as on its FLOPs and bytes, which the roofs count alike for every model."""
        return float(self.data.get("ttft_model_factors", {}).get(model_id, 1.0))

    def range_kind(self, model_id: str, hardware_id: str, mode: str = "aggregated") -> str:
        """Which kind of scenario this is for the fit: a new model (none of its runs fitted), a
        new GPU, or a pairing of a fitted model and GPU, among the runs of the mode asked (GB200
        runs fitted disaggregated only leave an aggregated GB200 scenario a new GPU). Each kind's
        range comes from the held-out residuals of the cross-validation fold that imitates it."""
        fitted = self.data["fitted_on"]
        fitted = fitted.get("by_mode", {}).get(mode, fitted)
        if model_id not in fitted.get("models", []):
            return "new_model"
        if hardware_id not in fitted.get("hardware", []):
            return "new_gpu"
        return "pairing"

    def lengths_outside(self, input_tokens: int, output_tokens: int) -> list[str]:
        """Which of the scenario's lengths lie outside those of the fitted runs, as words."""
        fitted = self.data["fitted_on"]
        out = []
        for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
            low, high = fitted.get(name, (value, value))
            if not low <= value <= high:
                out.append(f"{name} {value:,} (the fitted runs hold {low:,} to {high:,})")
        return out

    def ranges(self, kind: str, mode: str = "aggregated") -> dict:
        """Residual quantiles (measured / estimate, p10 and p90) of the kind's held-out fold: a new
        GPU's or model's span its groups, from the lowest group's median plus the within-group p10
        to the highest's plus the p90 (scripts/fit_serving.py, GROUP_SPREAD_KINDS); a mode whose
        runs lie in too few of the fold's groups covers the aggregated range too (MIN_RANGE_GROUPS)."""
        return self.data["ranges"][f"{kind}/{mode}"]


@lru_cache(maxsize=4)
def load_calibration(path: str | None = None) -> Calibration:
    data = yaml.safe_load(Path(path or CALIBRATION_PATH).read_text(encoding="utf-8"))
    return Calibration(data["id"], data)
