"""What non-text parts cost: images, documents, audio, by each provider's documented rule
or a stated estimate (never 0). See ``docs/formats.md`` for the rules and their sources.

- **OpenAI images** (chat ``image_url``, Responses ``input_image``): ``detail="low"`` costs
  85 tokens; ``high`` (and ``auto``, counted as ``high`` so a view never exceeds its
  budget): the image is scaled to fit 2048 x 2048, then its shortest side to 768 px, and
  each 512 px tile costs 170 tokens, plus 85. An image whose size cannot be read (a URL,
  a file id) counts as the most a high-detail image can cost: 1,445 tokens (8 tiles).
- **Anthropic images**: ``width * height / 750`` after the documented downscale (long
  edge at most 1568 px, at most ~1,600 tokens); unknown size: 1,600.
- **Images in provider-neutral formats** (LangChain, LlamaIndex): the larger of the two.
- **PDF documents**: each page is sent as extracted text and as an image (Anthropic's and
  OpenAI's PDF support): 3,000 text tokens (the top of Anthropic's documented
  1,500-3,000 per page) plus 1,600 for the page image; pages are counted in the PDF
  (``/Type /Page`` objects); a PDF we cannot read (URL, file id) counts as one page.
- **Audio**: 10 tokens per second (OpenAI's ~1 token per 100 ms of input audio); the
  duration is read from a WAV header, else the data is taken as 128 kbit/s audio;
  unknown: 1,600.
- **Anything else opaque** (video, encrypted reasoning, unknown blocks): see
  :func:`opaque_tokens` and the format modules.

Sizes are read from base64 data (a ``data:`` URL or a raw base64 field) by the image
headers (PNG, GIF, WebP, JPEG): nothing is fetched.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COSTS", "MediaCosts", "OPENAI_UNKNOWN", "PDF_PAGE_TOKENS", "UNKNOWN_MEDIA",
    "openai_image_tokens", "anthropic_image_tokens", "neutral_image_tokens", "image_size",
    "decode_base64", "pdf_tokens", "audio_tokens", "encrypted_tokens",
]



@dataclass(frozen=True, slots=True, kw_only=True)
class MediaCosts:
    """The providers' documented media costs this module's estimates start from (facts
    about the providers, not weights)."""

    openai_low: int = 85
    """An OpenAI image at low detail (and the base of every high-detail one)."""
    anthropic_max: int = 1600
    """The most an Anthropic image costs (its long side is scaled to 1568 px at most)."""
    pdf_page_text: int = 3000
    """A PDF page's text, at the most Anthropic documents (its image is counted on top)."""


COSTS = MediaCosts()
OPENAI_UNKNOWN = COSTS.openai_low + 170 * 8  # 1445: the most a high-detail image costs (768 x 2048 px: 2 x 4 tiles)
PDF_PAGE_TOKENS = COSTS.pdf_page_text + COSTS.anthropic_max
UNKNOWN_MEDIA = COSTS.anthropic_max


def openai_image_tokens(width: int | None, height: int | None, detail: str | None = None) -> int:
    """OpenAI's documented image cost (GPT-4o family tiles)."""
    if detail == "low":
        return COSTS.openai_low
    if not width or not height:
        return OPENAI_UNKNOWN
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def anthropic_image_tokens(width: int | None, height: int | None) -> int:
    """Anthropic's documented image cost: ``width * height / 750`` after downscaling."""
    if not width or not height:
        return COSTS.anthropic_max
    w, h = float(width), float(height)
    if max(w, h) > 1568:
        s = 1568 / max(w, h)
        w, h = w * s, h * s
    return max(1, min(COSTS.anthropic_max, math.ceil(w * h / 750)))


def neutral_image_tokens(width: int | None, height: int | None, detail: str | None = None) -> int:
    """An image for a format that does not name its provider: the larger rule."""
    return max(openai_image_tokens(width, height, detail), anthropic_image_tokens(width, height))


_DATA_URL = re.compile(r"^data:([^;,]*)(?:;[^,]*)?;base64,", re.I)


def decode_base64(data: Any, limit: int | None = None) -> bytes | None:
    """Bytes of base64 ``data`` (a raw string or a ``data:`` URL), the first ``limit``
    characters' worth when given; None when it is not base64."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if not isinstance(data, str):
        return None
    m = _DATA_URL.match(data)
    body = data[m.end():] if m else data
    if limit is not None:
        body = body[: limit - limit % 4]
    body = body.strip()
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None


def media_type_of(data: Any) -> str | None:
    """The media type of a ``data:`` URL."""
    if isinstance(data, str):
        m = _DATA_URL.match(data)
        if m:
            return m.group(1).lower() or None
    return None


def image_size(data: Any) -> tuple[int, int] | None:
    """(width, height) of a PNG, GIF, WebP or JPEG given as base64 (or a data URL)."""
    head = decode_base64(data, 4096)
    if not head:
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        chunk = head[12:16]
        if chunk == b"VP8X":
            return (int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1)
        if chunk == b"VP8L":
            bits = int.from_bytes(head[21:25], "little")
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", head[26:30])
            return (w & 0x3FFF, h & 0x3FFF)
        return None
    if head[:2] == b"\xff\xd8":
        return _jpeg_size(decode_base64(data) or head)
    return None


def _jpeg_size(b: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(b)
    while i + 9 < n:
        if b[i] != 0xFF:
            i += 1
            continue
        marker = b[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", b[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h, w = struct.unpack(">HH", b[i + 5:i + 9])
            return (w, h)
        i += 2 + length
    return None


_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_tokens(data: Any) -> int:
    """A PDF given as base64: its pages times :data:`PDF_PAGE_TOKENS` (one page if unreadable)."""
    raw = decode_base64(data)
    pages = len(_PAGE.findall(raw)) if raw and raw[:5] == b"%PDF-" else 0
    return max(1, pages) * PDF_PAGE_TOKENS


def audio_tokens(data: Any, fmt: str | None = None) -> int:
    """Audio given as base64: 10 tokens per second."""
    raw = decode_base64(data)
    if not raw:
        return UNKNOWN_MEDIA
    seconds = None
    if raw[:4] == b"RIFF" and raw[8:12] == b"WAVE" and len(raw) >= 44:
        byte_rate = struct.unpack("<I", raw[28:32])[0]
        if byte_rate:
            seconds = (len(raw) - 44) / byte_rate
    if seconds is None:
        seconds = len(raw) / 16000  # 128 kbit/s
    return max(1, math.ceil(seconds * 10))


def encrypted_tokens(payload: Any) -> int:
    """An encrypted reasoning payload (``encrypted_content``, ``redacted_thinking.data``):
    its decoded bytes at 4 bytes a token (a stated estimate: the text it encrypts is
    not readable)."""
    if not isinstance(payload, str) or not payload:
        return 0
    return max(1, math.ceil(len(payload) * 3 / 4 / 4))
