"""llm-roofline engine: pure roofline math for LLM inference (no web imports).

SI base units everywhere: FLOP, bytes, seconds, FLOP/s, bytes/s. Conversion to GB/s,
TFLOP/s or ms happens only where a person reads the number.
"""

__version__ = "0.1.0"
