"""One-off importer: ../shared/reference/accelerators.yaml -> hardware/<id>.yaml.

Kept for provenance: it shows exactly how each catalogue number was converted from the
researched reference (TFLOP/s -> FLOP/s, GB -> bytes, GB/s -> bytes/s). The files it writes
are then reviewed and committed; nothing reads the reference at run time.
Usage: python scripts/import_reference_hardware.py ../shared/reference/accelerators.yaml hardware/
"""

import sys
from pathlib import Path

import yaml

# product id -> reference id
IDS = {
    "h100-sxm5": "nvidia_h100_sxm5_80gb",
    "h100-pcie": "nvidia_h100_pcie_80gb",
    "h200-sxm": "nvidia_h200_sxm_141gb",
    "b200": "nvidia_b200_hgx",
    "b300": "nvidia_b300_hgx",
    "gb200": "nvidia_gb200_per_gpu",
    "a100-40gb-sxm": "nvidia_a100_40gb_sxm",
    "a100-80gb-sxm": "nvidia_a100_80gb_sxm",
    "l4": "nvidia_l4",
    "l40s": "nvidia_l40s",
    "rtx-3090": "nvidia_rtx_3090",
    "rtx-4090": "nvidia_rtx_4090",
    "rtx-5090": "nvidia_rtx_5090",
    "mi300x": "amd_mi300x",
    "mi325x": "amd_mi325x",
    "mi355x": "amd_mi355x",
    "tpu-v5e": "google_tpu_v5e",
    "tpu-v5p": "google_tpu_v5p",
    "tpu-v6e": "google_tpu_v6e",
    "gaudi-3": "intel_gaudi3",
}
T = 1e12
# PCIe x16 bandwidth per direction: 8/16/32/64 GT/s x 16 lanes x 128b/130b (PCI-SIG specs 3.0-6.0)
PCIE_X16_PER_DIRECTION = {3: 15.75e9, 4: 31.5e9, 5: 63e9, 6: 126e9}


def flops(value):
    return None if value is None else round(value * T)


def convert(pid, d):
    peak = d["dense_peak_tflops"]
    mem = d["memory"]
    link = d.get("scale_up_interconnect") or {}
    per_dir = link.get("per_direction_gbps")
    notes = [" ".join(str(d.get("notes") or "").split())]
    other = d.get("other_rates_tflops") or {}
    fp16_acc = {k: v for k, v in other.items() if "acc" in k.lower()}
    if fp16_acc:
        notes.append(
            "FP16-accumulate tensor rates (TFLOP/s, not used as roofs): "
            + ", ".join(f"{k}={v}" for k, v in fp16_acc.items())
        )
    if d.get("uncertain_fields"):
        notes.append("Uncertain: " + "; ".join(d["uncertain_fields"]))
    return {
        "id": pid,
        "name": d["name"],
        "vendor": d["vendor"],
        "memory_bytes": round(mem["capacity_gb"] * 1e9),
        "memory_bandwidth_bytes_per_s": round(mem["bandwidth_gbps"] * 1e9),
        "tensor_flops_per_s": {
            "bf16": flops(peak.get("bf16_tensor")),
            "fp16": flops(peak.get("fp16_tensor")),
            "fp8": flops(peak.get("fp8_tensor")),
            "int8": flops(peak.get("int8_tensor_tops")),
            "fp4": flops(peak.get("fp4_tensor")),
        },
        "vector_flops_per_s": {
            "fp32": flops(peak.get("fp32_vector")),
            "bf16": flops(peak.get("bf16_vector")),
            "fp16": flops(peak.get("fp16_vector")),
        },
        "l2_bytes": None if d.get("l2_cache_mb") is None else round(d["l2_cache_mb"] * 1e6),
        "interconnect": link.get("type"),
        "interconnect_bytes_per_s_per_direction": None if per_dir is None else round(per_dir * 1e9),
        "pcie_bytes_per_s_per_direction": (
            round(PCIE_X16_PER_DIRECTION[d["pcie_gen"]]) if d.get("pcie_gen") in PCIE_X16_PER_DIRECTION else None
        ),
        "notes": " ".join(n for n in notes if n),
        "sources": [
            {"document": " ".join(s["document"].split()), "supports": " ".join(str(s.get("supports", "")).split())}
            for s in d["sources"]
        ],
    }


def main(ref, out):
    devices = {d["id"]: d for d in yaml.safe_load(Path(ref).read_text())["devices"]}
    for pid, rid in IDS.items():
        text = yaml.safe_dump(convert(pid, devices[rid]), sort_keys=False, width=100, allow_unicode=True)
        header = f"# Dense peaks only. Converted from shared/reference/accelerators.yaml ({rid}).\n"
        Path(out, f"{pid}.yaml").write_text(header + text)


if __name__ == "__main__":
    main(*sys.argv[1:3])
