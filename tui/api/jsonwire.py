"""The JSON guard both ends of the wire share: how deep a document may nest, and what to make
of text that can never be encoded again.

Nesting is checked before decoding: the C decoder recurses once per level, and with a raised
recursion limit (some libraries raise it) a deep enough document overflows the C stack and kills
the process instead of raising. `check_depth` refuses anything nested deeper than
`MAX_JSON_DEPTH` with `JsonTooDeep`, which each side wraps in its own error (the client: a
malformed response; the sandbox: a 400).

JSON may carry escapes such as ``\\ud800`` that decode to an unpaired UTF-16 surrogate. Python
keeps it in a `str`, but such a string cannot be encoded to UTF-8 (a terminal, a log line, a CSV
export or a later answer fails on it). The client is a tolerant reader and replaces each one with
U+FFFD (`decode_json`, `replace_lone_surrogates`); the sandbox refuses a body holding one and
names where (`lone_surrogate_path`), so such text is never stored.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

__all__ = [
    "MAX_JSON_DEPTH",
    "JsonTooDeep",
    "check_depth",
    "decode_json",
    "lone_surrogate_path",
    "replace_lone_surrogates",
]

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted, in a response or a request body (records and
bodies nest about 10 deep)."""

# A string from its opening quote to its closing one (or to the end of an unterminated one); a
# backslash escapes the byte after it only inside a string, as in the decoder.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_QUOTES_OR_BRACKETS = bytes(b for b in range(256) if b not in b'"[]{}')
_AS_PARENS = bytes.maketrans(b"[]{}", b"()()")
_DEPTH_STEP = tuple(1 if b == ord("(") else -1 if b == ord(")") else 0 for b in range(256))

# Any \uD800-\uDFFF escape. Valid pairs match too (json.loads joins them into one character,
# which the scrub then leaves alone): a match only decides whether the scrub runs at all.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than the guard allows (refused before decoding)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")
        self.limit = limit


def _deeper_than(levels: bytes, limit: int) -> bool:
    """Whether the brackets ``levels`` (strings taken out) nest more than ``limit`` deep.

    Each pass drops every ``()`` (an innermost pair, whatever its kind), which lowers the
    deepest level by at most one, so a sequence that empties within ``limit`` passes nests no
    deeper than ``limit``: ordinary documents are settled at C speed in a few passes. Anything
    else (deep, or brackets that do not pair up) is measured exactly, level by level.
    """
    levels = levels.translate(_AS_PARENS)
    peeled, passes = levels, 0
    while peeled and passes < limit:
        shorter = peeled.replace(b"()", b"")
        if len(shorter) == len(peeled):
            break
        peeled, passes = shorter, passes + 1
    if not peeled:
        return False
    return max(accumulate(map(_DEPTH_STEP.__getitem__, levels)), default=0) > limit


def check_depth(content: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise `JsonTooDeep` when arrays/objects in ``content`` nest deeper than ``limit``.

    Only the brackets outside strings count. Without a backslash (most documents) no quote is
    escaped, so quotes alternate between opening and closing: keeping only quotes and brackets
    (one pass) and dropping every ``""`` (an empty string, or two strings with nothing between
    them) leaves only the few strings that hold brackets, all at C speed; a page of 10,000
    trades (~5 MB) costs about two passes over its bytes. With backslashes a regular
    expression walks the strings. A document with no more brackets than ``limit`` (most
    answers) is settled by counting them.
    """
    if len(content) <= limit:
        return  # fewer bytes than brackets an over-deep document needs
    if b"\\" in content:
        if content.count(b"[") + content.count(b"{") <= limit:
            return
        levels = _JSON_STRING.sub(b"", content).translate(None, _NOT_BRACKETS)
    else:
        quotes_and_brackets = content.translate(None, _NOT_QUOTES_OR_BRACKETS)
        if len(quotes_and_brackets) - quotes_and_brackets.count(b'"') <= limit:
            return
        levels = b"".join(quotes_and_brackets.replace(b'""', b"").split(b'"')[::2])
    if _deeper_than(levels, limit):
        raise JsonTooDeep(limit)


def _has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds an unpaired UTF-16 surrogate (text UTF-8 can never encode).

    ``json.loads`` joins a valid escaped pair into one character, so whatever is left in the
    surrogate range of decoded text is a lone half.
    """
    return _LONE_SURROGATE.search(text) is not None


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` (a decoded JSON value) with every unpaired surrogate, in keys and strings,
    replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): replace_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_lone_surrogates(item) for item in value]
    return value


def lone_surrogate_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key or string holding a lone surrogate, or None.

    A key holding one is reported as the path of its object (``"body"`` at the top), a string
    by its own path (``leg_quotes.0.bid``); ``""`` means ``value`` itself is such a string.
    """
    if isinstance(value, str):
        return path if _has_lone_surrogate(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _has_lone_surrogate(key):
                return path or "body"
            found = lone_surrogate_path(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate_path(item, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return None


def decode_json(content: bytes) -> Any:
    """Decode a response body; unpaired surrogates come back as U+FFFD.

    Raises ValueError for a body that is not JSON, including one nested deeper than
    `MAX_JSON_DEPTH` (`JsonTooDeep`).
    """
    check_depth(content)
    try:
        data = json.loads(content)
        if _SURROGATE_ESCAPE.search(content):
            data = replace_lone_surrogates(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    return data
