"""Where the desk's settings come from, for pydantic-settings: the environment and the file.

The environment's names (`ENV_NAMES`, `env_name`: ``RFQ_DESK_THEME``,
``RFQ_DESK_GUARDRAILS__MAX_NOTIONAL``) and `Layered`, the base of the settings classes of
`tui.desk.config`, which reads, highest first, the command line (init arguments), the
environment and the config file's tables. `reading` hands one load its environment (tests pass
their own mapping) and its file's tables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
)

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


class GivenEnv(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping (tests pass their own)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # Only RFQ_DESK_* names: a field's alias (default_profile) must not match a stray
        # variable of that bare name. Profiles are the file's; their fields are overridden
        # through `ProfileOverrides`, never as RFQ_DESK_PROFILES__NAME__FIELD.
        prefix = ENV_PREFIX.lower()
        lowered = {name.lower(): value for name, value in self._environ.items() if value}
        return {
            name: value
            for name, value in lowered.items()
            if name.startswith(prefix) and not name.startswith(f"{prefix}profiles")
        }


class Layered(BaseSettings):
    """Settings read from, highest first: the command line, the environment, the file."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Command line (init arguments) > environment > config.toml > defaults."""
        env, table = READING.get(({}, {}))
        file_settings = InitSettingsSource(settings_cls, table)
        return (init_settings, GivenEnv(settings_cls, env), file_settings)
