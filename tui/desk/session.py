"""Where the desk connects: a configured venue profile, or the built-in sandbox.

A `Connector` turns a choice into a `Connection` (addresses, credentials, wallet) *after* the
desk's first frame is on screen, in a worker: starting the sandbox takes a moment, and the
trader should see the desk say so rather than stare at a blank terminal.

The sandbox connector attaches to a sandbox already serving the same data directory (its
credentials file names the address; ``GET /v1/status`` proves it answers), or starts one as a
child process on a free loopback port and waits for its ready line. It opens the desk as the
seeded company ``DESK``; its wallet key comes from the credentials file. A real profile's
wallet key is in an encrypted keystore, unlocked by a password prompt when first needed.

The sandbox connector then keeps watching (it is `tui.desk.supervisor.Supervised`): a child
it started that dies is started again on the same database with the same arguments, and a
sandbox it attached to that stops is looked for until it is back. What happened is told as
`tui.desk.supervisor.SessionEvent`s; one that brings the session back carries the new
`Connection` (a restarted sandbox serves on a new port), so the desk builds its client anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import SecretStr

from tui.desk.config import SANDBOX_PROFILE, Profile
from tui.desk.supervisor import (
    ChildDied,
    ChildGaveUp,
    ChildRestarted,
    ChildStartError,
    RestartLog,
    RestartPolicy,
    SandboxChild,
    SandboxReattached,
    SandboxStopped,
    SessionEvents,
    describe_exit,
)
from tui.paths import data_dir, private_folder, sandbox_credentials_path, sandbox_db_path

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


async def listening(base_url: str, wait_s: float = 2.0) -> bool:
    """Whether anything accepts a TCP connection at ``base_url``'s host and port.

    How an attached sandbox is watched: no request is made, so the watch costs no rate limit
    and writes nothing to the sandbox's log.
    """
    url = httpx.URL(base_url)
    if not url.host:
        return False
    try:
        async with asyncio.timeout(wait_s):
            _reader, writer = await asyncio.open_connection(url.host, url.port or 80)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


class SandboxConnector:
    """The built-in sandbox: attach to the one serving ``data``, or start it as a child.

    Once connected it is `Supervised` (see module docs): its own child is restarted on the
    same database with the same arguments when it dies (pauses and cap: ``policy``); an
    attached sandbox, another process's, is only looked for again (``policy.probe_s``).
    ``connection`` is always the latest way in.
    """

    def __init__(
        self,
        data: Path | None = None,
        *,
        short_name: str = SANDBOX_COMPANY,
        extra_args: list[str] | None = None,
        policy: RestartPolicy | None = None,
    ) -> None:
        self.data = data or data_dir()
        self.db_path = sandbox_db_path(self.data)
        self.credentials_path = sandbox_credentials_path(self.db_path)
        self.log_path = self.data / "sandbox.log"
        self.short_name = short_name
        self.extra_args = extra_args or []
        self.policy = policy or RestartPolicy()
        self.label = SANDBOX_PROFILE
        self.sandbox = True
        self.child: SandboxChild | None = None
        self.attached = False
        self.connection: Connection | None = None
        self._restarts = RestartLog(self.policy)
        self._events = SessionEvents()
        self._retry = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        """The sandbox process this desk started (None when attached or closed)."""
        return self.child.process if self.child is not None else None

    @property
    def running(self) -> bool:
        """Whether this desk's own sandbox child is up."""
        return self.child is not None and self.child.running

    async def connect(self) -> Connection:
        """Attach to a running sandbox for this data dir, or start one and wait until ready."""
        if self.connection is not None and self._watch is not None:
            return self.connection  # connected and watched already
        private_folder(self.data)  # keys live here
        attached = await self._attach()
        if attached is not None:
            self.attached = True
            self.connection = attached
            self._watch = asyncio.create_task(self._watch_attached(), name="sandbox-watch")
            return attached
        self.connection = await self._start()
        self._watch = asyncio.create_task(self._supervise(), name="sandbox-supervisor")
        return self.connection

    def events(self) -> SessionEvents:
        """What happened to the sandbox since `connect` (see `SessionEvent`)."""
        return self._events

    def retry_now(self) -> None:
        """Cut the pause before the next restart (or attach) short; after giving up, start over."""
        self._retry.set()

    async def close(self) -> None:
        """Stop watching; stop the sandbox if this desk started it (an attached one runs on)."""
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        child, self.child = self.child, None
        if child is not None:
            await child.stop()
        self._events.put(None)

    # -- attached: not ours, only looked for -------------------------------------------------

    async def _attach(self) -> Connection | None:
        if not self.credentials_path.exists():
            return None
        with contextlib.suppress(SessionError):
            document = read_credentials_file(self.credentials_path)
            if await answers_status(str(document.get("base_url", ""))):
                return connection_from_credentials(document, self.short_name)
        return None

    async def _watch_attached(self) -> None:
        assert self.connection is not None
        while True:
            while await listening(self.connection.base_url):
                await self._pause(self.policy.probe_s)
            self._events.put(SandboxStopped(self.connection.base_url))
            while (back := await self._attach()) is None:
                await self._pause(self.policy.probe_s)
            self.connection = back
            self._events.put(SandboxReattached(back))

    # -- our own child: restarted ------------------------------------------------------------

    def _command(self) -> list[str]:
        return [
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

    async def _start(self) -> Connection:
        """Start the child, wait until it is ready and answers; its connection."""
        # A stale file from a previous run must not be mistaken for the new server's.
        with contextlib.suppress(FileNotFoundError):
            self.credentials_path.unlink()
        child = SandboxChild(self._command(), self.log_path)
        self.child = child  # from now on `close` stops it, whatever happens below
        try:
            await child.start(SANDBOX_START_TIMEOUT_S)
            connection = connection_from_credentials(
                read_credentials_file(self.credentials_path), self.short_name
            )
            if not await answers_status(connection.base_url):
                raise SessionError(f"the sandbox does not answer at {connection.base_url}")
        except ChildStartError as error:
            raise SessionError(str(error)) from None
        except OSError as error:
            raise SessionError(f"cannot start the sandbox: {error}") from None
        except SessionError:
            await child.stop()
            raise
        return connection

    async def _supervise(self) -> None:
        """Wait for the child to exit; restart it; say what happened; give up past the cap."""
        while True:
            child = self.child
            assert child is not None
            # Never launched (an OSError): counted as a death all the same, so the cap holds.
            exit_code = await child.wait() if child.process is not None else 127
            delay = self._restarts.next_delay()
            self._events.put(ChildDied(exit_code, child.log_tail(), delay))
            if delay is None:
                self._events.put(ChildGaveUp(self._give_up_reason(exit_code)))
                await self._pause(None)
                self._restarts.reset()
            else:
                await self._pause(delay)
            try:
                connection = await self._start()
            except SessionError:
                continue  # the child is gone again: said as its death, in the next round
            self.connection = connection
            self._events.put(ChildRestarted(connection))

    def _give_up_reason(self, exit_code: int) -> str:
        deaths = self.policy.max_restarts + 1
        return (
            f"the sandbox stopped {deaths} times within {self.policy.window_s:g} s, "
            f"last {describe_exit(exit_code)}; not restarting it again (see {self.log_path}; "
            "f5 tries again)"
        )

    async def _pause(self, seconds: float | None) -> None:
        """Wait ``seconds`` (None: until asked), or less if `retry_now` is called meanwhile."""
        self._retry.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._retry.wait()
