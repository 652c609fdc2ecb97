"""Where the desk's settings come from: the environment's names, and what one load reads.

The environment's names (`ENV_NAMES`, `env_name`: ``RFQ_DESK_THEME``,
``RFQ_DESK_GUARDRAILS__MAX_NOTIONAL``) and `reading`, which hands one load its environment
(tests pass their own mapping) and its file's tables; the settings classes of
`tui.desk.config_models` read both (highest first: the command line, the environment, the
file). Nothing here loads pydantic: the names are needed before the first frame.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

ENV_PREFIX = "RFQ_DESK_"

ENV_NAMES: dict[str, str] = {
    "config": f"{ENV_PREFIX}CONFIG",
    "theme": f"{ENV_PREFIX}THEME",
    "default_profile": f"{ENV_PREFIX}PROFILE",
    "base_url": f"{ENV_PREFIX}BASE_URL",
    "stats_base_url": f"{ENV_PREFIX}STATS_BASE_URL",
    "api_key": f"{ENV_PREFIX}API_KEY",
    "api_secret": f"{ENV_PREFIX}API_SECRET",
    "keystore": f"{ENV_PREFIX}KEYSTORE",
}
"""The environment variable that overrides each setting (``config`` is the file's path)."""

ENV_NESTING = "__"
"""Between a table and its field in a variable's name: ``RFQ_DESK_ALERTS__QUIET``."""


def env_name(*path: str) -> str:
    """The variable that overrides the setting at ``path`` (``("guardrails", "max_notional")``
    -> ``RFQ_DESK_GUARDRAILS__MAX_NOTIONAL``)."""
    if len(path) == 1 and path[0] in ENV_NAMES:
        return ENV_NAMES[path[0]]
    return ENV_PREFIX + ENV_NESTING.join(path).upper()


def desk_variables(env: Mapping[str, str]) -> dict[str, str]:
    """The desk's variables that are set (not empty), by lower-case name, as the settings read
    them (names are not case-sensitive)."""
    prefix = ENV_PREFIX.lower()
    lowered = {name.lower(): value for name, value in env.items() if value}
    return {name: value for name, value in lowered.items() if name.startswith(prefix)}


# What one `load_config` reads: its environment and its file's tables (sources are built by a
# classmethod, so they are handed over here rather than through the constructor).
READING: ContextVar[tuple[Mapping[str, str], dict[str, Any]]] = ContextVar("READING")


@contextmanager
def reading(env: Mapping[str, str], table: dict[str, Any]) -> Iterator[None]:
    """Within the block, settings read ``env`` and the file's ``table``."""
    token = READING.set((env, table))
    try:
        yield
    finally:
        READING.reset(token)
