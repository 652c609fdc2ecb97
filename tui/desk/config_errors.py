"""A refused setting, said where it was written: the variable that set it, else the file and
line (``config.toml:12: guardrails.max_notional: Input should be greater than 0 (got -5)``).

tomllib gives no line numbers: `tui.desk.toml_lines` finds them in the text. A value is quoted
only from the tables that hold no secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from tui.desk.config_sources import env_name
from tui.desk.toml_lines import entry_lines, line_of

_VALUES_SHOWN = ("guardrails", "alerts")
"""The tables whose refused values are quoted in the message (a profile's may be a secret)."""


def _fields_at(settings: type[BaseModel], loc: tuple[str, ...]) -> list[str]:
    """The fields of the table at ``loc`` in the settings (for an unknown field's message)."""
    model: Any = settings
    parts = list(loc)
    while parts:
        if get_origin(model) is dict:  # [profiles.NAME]: the name is any key
            model, _ = get_args(model)[1], parts.pop(0)
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        field = model.model_fields.get(parts.pop(0))
        if field is None:
            return []
        model = field.annotation
    if isinstance(model, type) and issubclass(model, BaseModel):
        # A profile's name is its table's, never written in it.
        return [name for name in model.model_fields if name != "name"]
    return []


def _why(settings: type[BaseModel], item: Any, loc: tuple[str, ...]) -> str:
    if item["type"] == "extra_forbidden":
        known = _fields_at(settings, loc[:-1])
        return f"unknown setting (here: {', '.join(known)})" if known else item["msg"]
    message = str(item["msg"]).removeprefix("Value error, ")
    given = item.get("input")
    if loc[:1] and loc[0] in _VALUES_SHOWN and not isinstance(given, dict):
        return f"{message} (got {_as_written(given)})"
    return message


def _as_written(value: Any) -> str:
    """A value as the TOML file writes it: ``-5``, ``2.5``, ``true``, ``"abc"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else str(value)


def located_errors(
    error: ValidationError, settings: type[BaseModel], path: Path, env: Mapping[str, str]
) -> str:
    """Each refused setting as ``where: field: why``: the variable that set it, else the file
    and the line it is written on."""
    set_vars = {name.upper() for name, value in env.items() if value}
    try:
        lines = entry_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        lines = {}
    parts = []
    for item in error.errors():
        loc = tuple(str(part) for part in item["loc"])
        what = f"{'.'.join(loc)}: {_why(settings, item, loc)}"
        variable = env_name(*loc)
        line = line_of(lines, loc)
        if variable in set_vars:
            parts.append(f"{variable}: {what}")
        else:
            parts.append(f"{path}:{line}: {what}" if line else f"{path}: {what}")
    return "; ".join(parts)


def unknown_top_level(table: Mapping[str, Any], known: Iterable[str], path: Path) -> str | None:
    """The file's top-level settings the desk does not know, worded like a refused field
    (``config.toml:3: thme: unknown setting (here: theme, ...)``); None when all are known.

    The settings models ignore unknown top-level names (the environment holds many variables
    that are no setting), so a typo there would otherwise pass in silence.
    """
    known = list(known)
    unknown = [key for key in table if key not in known]
    if not unknown:
        return None
    try:
        lines = entry_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        lines = {}
    parts = []
    for key in unknown:
        line = line_of(lines, (key,))
        where = f"{path}:{line}" if line else str(path)
        parts.append(f"{where}: {key}: unknown setting (here: {', '.join(known)})")
    return "; ".join(parts)
