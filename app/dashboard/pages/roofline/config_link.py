"""The view state, from the query string and from the controls. Every control is mirrored
in the URL so a link reproduces the view; a bad or hostile value is dropped with a notice,
never an error page. Callback arguments pass the same checks (`view_from_controls`): a
hand-made request to a callback gets the defaults, never a 500."""

from __future__ import annotations

from app.dashboard.lib.packed import NotPacked, pack, unpack
from engine.errors import EngineInputError
from engine.model_catalog import MAX_CONFIG_BYTES, load_model

# A custom config.json travels in the link as `cfg=` (lib/packed.py: raw deflate, base64url):
# the app keeps no state, so a link, a reload or a language switch brings the model back. 6,000 characters
# hold a typical config.json (~1 KB; ~600 characters encoded) with room to spare while the
# whole URL stays far below what browsers, proxies and wiki pages accept.
MAX_CONFIG_TOKEN_CHARS = 6000


def encode_config(config: dict) -> str:
    """config.json -> `cfg=` token: compact JSON, raw deflate, base64url without padding."""
    return pack(config)


def decode_config(token: str) -> dict:
    """`cfg=` token -> validated config.json (EngineInputError on anything else)."""
    if len(token) > MAX_CONFIG_TOKEN_CHARS:
        raise EngineInputError(
            "cfg",
            f"a config link of {len(token):,} characters is over the {MAX_CONFIG_TOKEN_CHARS:,}-character limit",
            code="cfg_too_long",
            params={"n": f"{len(token):,}", "max": f"{MAX_CONFIG_TOKEN_CHARS:,}"},
        )
    try:
        config = unpack(token, MAX_CONFIG_BYTES)  # a deflate bomb stops at the limit
    except NotPacked:
        raise EngineInputError("cfg", "not a config link made by this app", code="cfg_not_ours") from None
    if not isinstance(config, dict):
        raise EngineInputError("cfg", "not a config link made by this app", code="cfg_not_ours")
    load_model(config)  # validates: EngineInputError names the field
    return config
