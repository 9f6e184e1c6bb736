"""JSON packed into a link parameter: compact JSON, raw deflate, base64url without padding.

The roofline's custom config (`cfg=`) and the serving page's runs (`runs=`) travel so: the app
keeps no state, and a link, a reload or a language switch brings them back. Reading is bounded
twice: the token's length before anything is decoded, and the inflated bytes (a deflate bomb
stops at `max_bytes`)."""

from __future__ import annotations

import base64
import binascii
import json
import zlib


class NotPacked(ValueError):
    """The token is not JSON packed by `pack` (or inflates past the limit)."""


def pack(value: object) -> str:
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    packed = zlib.compress(raw, 9)[2:-4]  # zlib header and checksum off: raw deflate
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def unpack(token: str, max_bytes: int) -> object:
    """The JSON value of a token; NotPacked when it is not one or inflates past `max_bytes`."""
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        inflater = zlib.decompressobj(-15)
        raw = inflater.decompress(packed, max_bytes + 1)
        if len(raw) > max_bytes:
            raise NotPacked("inflates past the limit")
        return json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, zlib.error, RecursionError, UnicodeDecodeError):
        raise NotPacked("not a packed token") from None
