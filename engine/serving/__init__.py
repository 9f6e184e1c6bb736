"""Serving: C requests in flight on one server instance; bound (ideal roofs) and estimate
(calibrated to measured runs) of TPOT, TTFT and throughput. Pure: no web imports."""

from .calibration import Calibration, load_calibration
from .estimate import serving_estimate
from .scenario import DEFAULT_MEMORY_UTILIZATION, ServingScenario

__all__ = ["Calibration", "DEFAULT_MEMORY_UTILIZATION", "ServingScenario", "load_calibration", "serving_estimate"]
