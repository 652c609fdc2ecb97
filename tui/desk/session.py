"""Where the desk connects: a configured venue profile, or the built-in sandbox.

A `Connector` turns a choice into a `Connection` (addresses, credentials, wallet) *after* the
desk's first frame is on screen, in a worker: starting the sandbox takes a moment, and the
trader should see the desk say so rather than stare at a blank terminal.

The sandbox connector attaches to a sandbox already serving the same data directory (its
credentials file names the address; ``GET /v1/status`` proves it answers), or starts one as a
child process on a free loopback port and waits for its ready line. It opens the desk as the
seeded company ``DESK``; its wallet key comes from the credentials file. A real profile's
wallet key is in an encrypted keystore, unlocked by a password prompt when first needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import SecretStr

from tui.desk.config import SANDBOX_PROFILE, Profile
from tui.paths import data_dir, sandbox_credentials_path, sandbox_db_path

SANDBOX_COMPANY = "DESK"
"""The seeded company the desk trades as in the sandbox."""
SANDBOX_START_TIMEOUT_S = 60.0


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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"no sandbox credentials at {path}") from None
    except (OSError, ValueError):
        raise SessionError(f"{path} is not a readable credentials file") from None
    if not isinstance(data, dict):
        raise SessionError(f"{path} is not a credentials document")
    return data


async def answers_status(base_url: str, wait_s: float = 2.0) -> bool:
    """Whether a sandbox (or venue) answers ``GET /v1/status`` at ``base_url``."""
    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=wait_s) as client:
            response = await client.get("/v1/status")
    except httpx.HTTPError:
        return False
    return response.status_code == 200


class SandboxConnector:
    """The built-in sandbox: attach to the one serving ``data``, or start it as a child."""

    def __init__(
        self,
        data: Path | None = None,
        *,
        short_name: str = SANDBOX_COMPANY,
        extra_args: list[str] | None = None,
    ) -> None:
        self.data = data or data_dir()
        self.db_path = sandbox_db_path(self.data)
        self.credentials_path = sandbox_credentials_path(self.db_path)
        self.log_path = self.data / "sandbox.log"
        self.short_name = short_name
        self.extra_args = extra_args or []
        self.label = SANDBOX_PROFILE
        self.sandbox = True
        self.process: asyncio.subprocess.Process | None = None
        self.attached = False

    async def connect(self) -> Connection:
        """Attach to a running sandbox for this data dir, or start one and wait until ready."""
        self.data.mkdir(mode=0o700, parents=True, exist_ok=True)  # keys live here
        if self.credentials_path.exists():
            with contextlib.suppress(SessionError):
                document = read_credentials_file(self.credentials_path)
                if await answers_status(str(document.get("base_url", ""))):
                    self.attached = True
                    return connection_from_credentials(document, self.short_name)
        await self._start()
        return connection_from_credentials(
            read_credentials_file(self.credentials_path), self.short_name
        )

    async def _start(self) -> None:
        # A stale file from a previous run must not be mistaken for the new server's.
        with contextlib.suppress(FileNotFoundError):
            self.credentials_path.unlink()
        command = [
            sys.executable,
            "-m",
            "tui",
            "sandbox",
            "--port",
            "0",
            "--db",
            str(self.db_path),
            "--credentials",
            str(self.credentials_path),
            *self.extra_args,
        ]
        log = self.log_path.open("ab")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *command,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                stdin=asyncio.subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        finally:
            log.close()
        assert self.process.stdout is not None
        try:
            async with asyncio.timeout(SANDBOX_START_TIMEOUT_S):
                while True:
                    line = await self.process.stdout.readline()
                    if not line:
                        raise SessionError(
                            f"the sandbox stopped while starting (see {self.log_path})"
                        )
                    if line.startswith(b"sandbox ready"):
                        break
        except TimeoutError:
            await self.close()
            raise SessionError(f"the sandbox did not start in time (see {self.log_path})") from None

    async def close(self) -> None:
        """Stop the sandbox if this desk started it (an attached one keeps running)."""
        process = self.process
        self.process = None
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            async with asyncio.timeout(10):
                await process.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
