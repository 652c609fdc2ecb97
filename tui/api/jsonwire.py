"""Response bodies decoded as JSON values the desk can always show, log and export.

A body nested deeper than `MAX_JSON_DEPTH` is refused before decoding: the C decoder recurses
once per level, and with a raised recursion limit (some libraries raise it) a deep enough body
overflows the C stack and kills the process instead of raising.

JSON may carry escapes such as ``\\ud800`` that decode to an unpaired UTF-16 surrogate. Python
keeps it in a `str`, but such a string cannot be encoded to UTF-8 (a terminal, a log line or a
CSV export fails on it) and pydantic refuses it as a key, which would fail a whole page. A
tolerant reader replaces every unpaired surrogate with U+FFFD, the replacement character.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "decode_json", "replace_lone_surrogates"]

MAX_JSON_DEPTH = 128
"""Deepest nesting of arrays and objects accepted in a response (records nest about 10 deep)."""

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_DEPTH_STEP = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))
_QUICK_PASSES = 16

# Any \uD800-\uDFFF escape. Valid pairs match too (json.loads joins them into one character,
# which the scrub then leaves alone): a match only decides whether the scrub runs at all.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _deeper_than(brackets: bytes, limit: int) -> bool:
    """Whether a string of brackets nests more than ``limit`` deep (or does not balance).

    A few passes remove every innermost ``[]`` and ``{}`` at C speed, one level per pass, which
    empties any ordinary body; what is left is measured in one linear pass.
    """
    peeled = 0
    while brackets and peeled < _QUICK_PASSES:
        shorter = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(brackets):
            return True  # unbalanced
        brackets = shorter
        peeled += 1
    if not brackets:
        return peeled > limit
    depths = list(accumulate(map(_DEPTH_STEP.__getitem__, brackets)))
    if min(depths) < 0 or depths[-1] != 0:
        return True  # unbalanced
    return peeled + max(depths) > limit


def _nested_within(content: bytes, limit: int) -> bool:
    """Whether no array or object in ``content`` is nested more than ``limit`` deep.

    The quick look counts brackets inside strings too, so it can only overestimate; only a
    body it flags is looked at again with its strings blanked.
    """
    if content.count(b"[") + content.count(b"{") <= limit:
        return True
    if not _deeper_than(content.translate(None, _NOT_BRACKETS), limit):
        return True
    blanked = _JSON_STRING.sub(b"", content)
    return not _deeper_than(blanked.translate(None, _NOT_BRACKETS), limit)


def decode_json(content: bytes) -> Any:
    """Decode a response body; unpaired surrogates come back as U+FFFD.

    Raises ValueError for a body that is not JSON, including one nested deeper than
    `MAX_JSON_DEPTH`.
    """
    if not _nested_within(content, MAX_JSON_DEPTH):
        raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(content)
        if _SURROGATE_ESCAPE.search(content):
            data = replace_lone_surrogates(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    return data
