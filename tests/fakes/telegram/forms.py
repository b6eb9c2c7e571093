"""Multipart form bodies read in one pass, as the fake's HTTP server receives uploads.

aiohttp's ``Request.post()`` reads a multipart body part by part, 8 KB at a time in Python,
and parses each header through the email package. In ``bench/load.py``, where
every press uploads a board of about 100 KB, that was about a fifth of the fake's CPU, which
a real deployment would not spend beside the bot. Here the body is read whole and split at
its boundary (RFC 7578, RFC 2046), strictly: anything that is not a well-formed form is
refused, as Telegram refuses it.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from tests.fakes.telegram.records import UploadedFile

# A header parameter: name=token or name="quoted string" (backslash escapes).
_PARAM = re.compile(r';\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))')
_ESCAPE = re.compile(r"\\(.)")
_PLAIN_ENCODINGS = ("binary", "8bit", "7bit")


class FormError(ValueError):
    """A body that is not a well-formed ``multipart/form-data`` body."""


def header_value(header: str) -> tuple[str, dict[str, str]]:
    """A header's main value (lower case) and its parameters (names in lower case)."""
    main, _, rest = header.partition(";")
    params: dict[str, str] = {}
    for match in _PARAM.finditer(";" + rest):
        quoted, token = match.group(2), match.group(3)
        params[match.group(1).lower()] = _ESCAPE.sub(r"\1", quoted) if quoted is not None else token
    return main.strip().lower(), params


def parse_form(body: bytes, boundary: str) -> tuple[dict[str, str], dict[str, UploadedFile]]:
    """The text fields and the files of a multipart body with ``boundary``.

    Like aiohttp's ``post()``: a part with a (non-empty) file name is a file, its content
    type ``application/octet-stream`` unless given; other parts are text in their charset
    (UTF-8 unless given); a later part of the same name replaces an earlier one.
    Raises :class:`FormError` for a body that is not such a form."""
    if not boundary:
        raise FormError("multipart body without a boundary")
    delimiter = b"\r\n--" + boundary.encode("latin-1")
    # The first delimiter may open the body without the line break before it.
    parts = (b"\r\n" + body).split(delimiter)
    if len(parts) < 2 or not parts[-1].startswith(b"--"):
        raise FormError("multipart body without its closing boundary")
    fields: dict[str, str] = {}
    files: dict[str, UploadedFile] = {}
    for part in parts[1:-1]:
        line_end = part.find(b"\r\n")
        if line_end < 0 or part[:line_end].strip(b" \t"):
            raise FormError("a boundary is not alone on its line")
        head, blank, content = part[line_end + 2 :].partition(b"\r\n\r\n")
        if not blank:
            raise FormError("a part without a blank line after its headers")
        headers: dict[str, str] = {}
        for line in head.split(b"\r\n"):
            name, colon, value = line.decode("utf-8").partition(":")
            if not colon or not name.strip():
                raise FormError("a malformed part header")
            headers[name.strip().lower()] = value.strip()
        kind, params = header_value(headers.get("content-disposition", ""))
        if kind != "form-data" or not params.get("name"):
            raise FormError("a part that is not form-data with a name")
        encoding = headers.get("content-transfer-encoding", "binary").lower()
        if encoding not in _PLAIN_ENCODINGS:
            raise FormError(f"a part in the {encoding} transfer encoding")
        filename = params.get("filename") or _extended(params.get("filename*"))
        content_type = headers.get("content-type")
        if filename:
            files[params["name"]] = UploadedFile(
                filename, content, content_type or "application/octet-stream"
            )
        else:
            charset = header_value(content_type or "")[1].get("charset", "utf-8")
            try:
                fields[params["name"]] = content.decode(charset)
            except (LookupError, UnicodeDecodeError) as exc:
                raise FormError(f"a field not in its charset: {exc}") from None
    return fields, files


def _extended(value: str | None) -> str | None:
    """An RFC 5987 ``filename*`` (``utf-8''name%20here``), decoded."""
    if not value:
        return None
    charset, _, rest = value.partition("'")
    _, _, encoded = rest.partition("'")
    try:
        return unquote(encoded, encoding=charset or "utf-8", errors="strict")
    except (LookupError, UnicodeDecodeError):
        raise FormError("a malformed extended file name") from None
