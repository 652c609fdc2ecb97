"""Where a key is written in a TOML text: tomllib gives values, not line numbers.

A refusal that names the file and the line (``config.toml:12: ...``) is found with this: the
line of every table header and key, by its full key path (``("keymap", "desk", "new_rfq")``).
"""

from __future__ import annotations

import re

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY = re.compile(rf"^\s*(?P<key>{_PART}(?:\s*\.\s*{_PART})*)\s*=")
_HEADER = re.compile(rf"^\s*\[\[?\s*(?P<key>{_PART}(?:\s*\.\s*{_PART})*)\s*\]\]?")


def key_path(text: str) -> tuple[str, ...]:
    """``a."b.c".d`` -> ``("a", "b.c", "d")`` (quoted parts taken as written, unescaped)."""
    return tuple(part[1:-1] if part[:1] in "\"'" else part for part in re.findall(_PART, text))


def entry_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line (1-based) of every table header and key in a TOML text, by its full key path.

    A line scan, not a parser: keys inside multi-line strings or arrays may be mistaken, which
    only costs a line number in a message.
    """
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        if header := _HEADER.match(line):
            table = key_path(header["key"])
            lines.setdefault(table, number)
        elif entry := _KEY.match(line):
            lines.setdefault(table + key_path(entry["key"]), number)
    return lines


def line_of(lines: dict[tuple[str, ...], int], path: tuple[str, ...]) -> int | None:
    """The line of ``path``, else of the nearest table above it that is written, else None."""
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
