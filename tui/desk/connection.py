"""What a session is: the `Connection` the desk trades on, and the simple `Connector`s.

A `Connection` holds everything the desk needs to talk to one venue as one company (addresses,
credentials, wallet). A `Connector` produces it after the desk's first frame is up; the ones here
need no watching: a connection already known (`StaticConnector`, tests and scripts) and a
configured venue profile (`ProfileConnector`). The sandbox's credentials file is read here too
(`connection_from_credentials`): the built-in sandbox connector (`tui.desk.session`) and the
tests both open the desk from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tui.desk.config import SANDBOX_PROFILE

if TYPE_CHECKING:  # pydantic loads at connect, not before the first frame
    from pydantic import SecretStr

    from tui.desk.config import Profile

SANDBOX_COMPANY = "DESK"
"""The seeded company the desk trades as in the sandbox."""


class SessionError(Exception):
    """The desk could not connect: no sandbox, bad credentials file, unreadable profile."""


@dataclass(frozen=True)
class Connection:
    """Everything the desk needs to talk to one venue as one company."""

    profile: str
    base_url: str
    api_key: str
    api_secret: SecretStr
    stats_base_url: str | None = None
    sandbox: bool = False
    company_id: str | None = None
    short_name: str | None = None
    wallet_key: SecretStr | None = field(default=None, repr=False)
    """The wallet private key when it is known up front (the sandbox's credentials file)."""
    keystore: Path | None = None
    """An encrypted keystore to unlock with a password when a permit must be signed."""


class Connector(Protocol):
    """Produces the `Connection` of a session, and cleans up after it."""

    label: str
    sandbox: bool

    async def connect(self) -> Connection:
        """Connect (start what must be started) and describe the session."""
        ...

    async def close(self) -> None:
        """Stop whatever `connect` started."""
        ...


class StaticConnector:
    """A connection that is already known (tests, scripts)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.label = connection.profile
        self.sandbox = connection.sandbox

    async def connect(self) -> Connection:
        """The given connection."""
        return self.connection

    async def close(self) -> None:
        """Nothing to stop."""


class ProfileConnector:
    """A configured venue profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.label = profile.name
        self.sandbox = False

    async def connect(self) -> Connection:
        """The profile as a connection (the network is first touched by the feed)."""
        profile = self.profile
        return Connection(
            profile=profile.name,
            base_url=profile.base_url,
            api_key=profile.api_key,
            api_secret=profile.api_secret,
            stats_base_url=profile.stats_base_url,
            sandbox=False,
            keystore=profile.keystore,
        )

    async def close(self) -> None:
        """Nothing to stop."""


def connection_from_credentials(
    document: dict[str, Any], short_name: str = SANDBOX_COMPANY, *, profile: str = SANDBOX_PROFILE
) -> Connection:
    """The sandbox connection of one company, from the sandbox's credentials document.

    The company's writer key is used (a reader key cannot trade).
    """
    from pydantic import SecretStr

    entries = document.get("companies")
    if not isinstance(entries, list):
        raise SessionError("the sandbox credentials file lists no companies")
    chosen = None
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("short_name") != short_name:
            continue
        if entry.get("role", "writer") == "writer":
            chosen = entry
            break
    if chosen is None:
        raise SessionError(f"the sandbox credentials file has no writer key for {short_name}")
    try:
        base_url = str(document["base_url"])
        api_key = str(chosen["api_key"])
        secret = str(chosen["api_secret"])
    except KeyError as missing:
        raise SessionError(f"the sandbox credentials file lacks {missing}") from None
    wallet = chosen.get("wallet_private_key")
    return Connection(
        profile=profile,
        base_url=base_url,
        api_key=api_key,
        api_secret=SecretStr(secret),
        stats_base_url=str(document.get("stats_base_url") or base_url),
        sandbox=True,
        company_id=chosen.get("id"),
        short_name=short_name,
        wallet_key=SecretStr(str(wallet)) if wallet else None,
    )


def read_credentials_file(path: Path) -> dict[str, Any]:
    """The credentials document, or a `SessionError` saying what is wrong with the file."""
    import json  # read at connect, not before the first frame

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"no sandbox credentials at {path}") from None
    except (OSError, ValueError):
        raise SessionError(f"{path} is not a readable credentials file") from None
    if not isinstance(data, dict):
        raise SessionError(f"{path} is not a credentials document")
    return data
