"""llm-roofline surfaces: CLI, HTTP API and dashboard over the pure engine."""
