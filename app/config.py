"""Runtime settings, read once from the environment (prefix LLM_ROOFLINE_)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LLM_ROOFLINE_", extra="ignore")

    host: str = Field("127.0.0.1", description="address to listen on")
    port: int = Field(8050, ge=1, le=65535, description="port to listen on")
    workers: int = Field(1, ge=1, le=64, description="uvicorn worker processes")
    root_path: str = Field("", description="sub-path behind a reverse proxy, e.g. /roofline")
    frame_ancestors: str = Field("'self'", description="CSP frame-ancestors: who may embed the pages in an iframe")
    cors_origins: str = Field("", description="comma-separated origins allowed to call the API (default none)")
    hardware_dir: str = Field("", description="extra directory of accelerator YAML files")
    log_level: str = Field("info", description="uvicorn log level")
    max_body_bytes: int = Field(256 * 1024, ge=1024, description="largest accepted request body")
    read_timeout_s: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="seconds a client has to send a request's headers, and again its body; then 408",
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
