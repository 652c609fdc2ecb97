"""Where the desk connects: a configured venue profile, or the built-in sandbox.

A `Connector` turns a choice into a `Connection` (addresses, credentials, wallet) *after* the
desk's first frame is on screen, in a worker: starting the sandbox takes a moment, and the
trader should see the desk say so rather than stare at a blank terminal. The connection and the
connectors that need no watching live in `tui.desk.connection` (and are importable from here).

The sandbox connector attaches to a sandbox already serving the same data directory (its
credentials file names the address; ``GET /v1/status`` proves it answers), or starts one as a
child process on a free loopback port and waits for its ready line. That much (`reach`) loads
no models: the desk does it while its first frame is drawn, and makes the `Connection` after.
``rfq-desk`` launches that child even sooner, before the desk is imported (`launch_early`).
It opens the desk as the seeded company ``DESK``; its wallet key comes from the credentials
file. A real profile's wallet key is in an encrypted keystore, unlocked by a password prompt
when first needed.

The sandbox connector then keeps watching (it is `tui.desk.supervisor.Supervised`): a child
it started that dies is started again on the same database with the same arguments (and never
outlives the desk: it runs with ``--exit-with-parent``). A sandbox it attached to that stops is
looked for until it is back while the desk that started it is there to restart it; once that
desk is gone, this one starts the sandbox itself on the same database and from then on owns it
(f5 does so at once, whoever the owner). A sandbox started by hand that stops is waited for, and
f5 starts it here. What happened is told as `tui.desk.supervisor.SessionEvent`s; one that brings
the session back carries the new `Connection` (a restarted sandbox serves on a new port), so the
desk builds its client anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tui.desk.config import SANDBOX_PROFILE
from tui.desk.connection import (
    SANDBOX_COMPANY,
    Connection,
    Connector,
    ProfileConnector,
    SessionError,
    StaticConnector,
    connection_from_credentials,
    read_credentials_file,
)
from tui.desk.early_child import EarlyProcess
from tui.desk.probes import Owner, answers_status, listening, owner_of
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
    SandboxTakenOver,
    SessionEvents,
    describe_exit,
)
from tui.paths import data_dir, private_folder, sandbox_credentials_path, sandbox_db_path

__all__ = [
    "SANDBOX_COMPANY",
    "Connection",
    "Connector",
    "ProfileConnector",
    "SandboxConnector",
    "SessionError",
    "StaticConnector",
    "connection_from_credentials",
    "read_credentials_file",
]

SANDBOX_START_TIMEOUT_S = 60.0
LISTEN_PROBE_S = 0.2
"""How long `SandboxConnector.launch_early` waits to hear whether a sandbox listens already."""


class SandboxConnector:
    """The built-in sandbox: attach to the one serving ``data``, or start it as a child.

    Once connected it is `Supervised` (see module docs): its own child is restarted on the
    same database with the same arguments when it dies (pauses and cap: ``policy``); an
    attached sandbox, another process's, is looked for again (``policy.probe_s``) while its
    owner lives, and started here once the owner is gone (or on f5). ``connection`` is always
    the latest way in; ``attached`` says whether the sandbox is another process's right now.
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
        self._retry_asked = False
        self._owner_pid: int | None = None
        """The desk that owns the attached sandbox, as its credentials file said."""
        self._watch: asyncio.Task[None] | None = None
        self._reached: dict[str, Any] | None = None
        """The credentials document of the sandbox `reach` found or started, until `connect`."""
        self._early: SandboxChild | None = None
        """The child `launch_early` launched, until `reach` waits for it."""

    @property
    def process(self) -> asyncio.subprocess.Process | EarlyProcess | None:
        """The sandbox process this desk started (None when attached or closed)."""
        return self.child.process if self.child is not None else None

    @property
    def running(self) -> bool:
        """Whether this desk's own sandbox child is up."""
        return self.child is not None and self.child.running

    def launch_early(self) -> None:
        """Launch the sandbox child now, before the desk's event loop exists, unless a sandbox
        already listens where this data dir's credentials file says: a new data folder's
        sandbox then gets ready while the desk imports and draws (`reach` waits for it).

        Anything that goes wrong is left to `reach`, which starts the child the usual way and
        says why it cannot. `stop_early` stops the child when the desk never runs.
        """
        if self._early is not None or self.child is not None or self._someone_listens():
            return
        try:
            private_folder(self.data)  # keys live here
            child = SandboxChild(self._command(), self.log_path)
            child.launch_early()
        except OSError:
            return
        self._early = self.child = child  # from now on `close` stops it

    def stop_early(self) -> None:
        """Stop a child `launch_early` launched if no loop stopped it (the desk never ran, or
        ended without closing): nothing is left behind."""
        child = self.child
        if child is not None:
            child.stop_now()

    def _someone_listens(self) -> bool:
        """Whether anything accepts a connection where the credentials file says a sandbox
        serves (False without a readable file)."""
        try:
            url = urlsplit(str(read_credentials_file(self.credentials_path).get("base_url", "")))
            host, port = url.hostname, url.port
        except (SessionError, ValueError):
            return False
        if not host or port is None:
            return False
        try:
            with socket.create_connection((host, port), timeout=LISTEN_PROBE_S):
                return True
        except OSError:
            return False

    async def reach(self) -> None:
        """Find the sandbox serving this data dir, or start one and wait until it is ready;
        no models are loaded (`connect` makes the connection)."""
        if self._reached is not None or self._watch is not None:
            return
        private_folder(self.data)  # keys live here
        document = None if self._early is not None else await self._answering()
        self.attached = document is not None
        self._reached = document if document is not None else await self._launch()

    async def connect(self) -> Connection:
        """Attach to a running sandbox for this data dir, or start one and wait until ready."""
        if self.connection is not None and self._watch is not None:
            return self.connection  # connected and watched already
        await self.reach()
        document, self._reached = self._reached, None
        assert document is not None
        if self.attached:
            self.connection = self._attached_to(document)
        else:
            self.connection = await self._connection_to_child(document)
        self._watch = asyncio.create_task(self._follow(), name="sandbox-watch")
        return self.connection

    def events(self) -> SessionEvents:
        """What happened to the sandbox since `connect` (see `SessionEvent`)."""
        return self._events

    def retry_now(self) -> None:
        """Cut the pause before the next restart short (after giving up: start over); while an
        attached sandbox is down, start it here now instead of waiting for its owner."""
        self._retry_asked = True
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

    async def _follow(self) -> None:
        """Follow the sandbox for as long as the session lasts, attached or owned, switching
        when the owner is gone (this desk takes over) or another desk's sandbox won the race
        to restart it (this desk attaches)."""
        while True:
            if self.attached:
                await self._follow_attached()
            else:
                await self._supervise()

    # -- attached: another desk's, looked for; taken over once its owner is gone ------------

    async def _answering(self) -> dict[str, Any] | None:
        """The credentials document of a sandbox serving this data dir that answers, if any."""
        if not self.credentials_path.exists():
            return None
        with contextlib.suppress(SessionError):
            document = read_credentials_file(self.credentials_path)
            if await answers_status(str(document.get("base_url", ""))):
                return document
        return None

    async def _attach(self) -> Connection | None:
        document = await self._answering()
        if document is None:
            return None
        with contextlib.suppress(SessionError):
            return self._attached_to(document)
        return None

    def _attached_to(self, document: dict[str, Any]) -> Connection:
        connection = connection_from_credentials(document, self.short_name)
        self._owner_pid = owner_of(document)[1]
        return connection

    def _owner(self) -> Owner:
        return owner_of({"owner_pid": self._owner_pid})[0]

    async def _follow_attached(self) -> None:
        """Watch the attached sandbox; when it stops, attach again once it is back, or start
        it here when its owner is gone (or the trader asks): returns once this desk owns it."""
        assert self.connection is not None
        while True:
            while await listening(self.connection.base_url):
                await self._pause(self.policy.probe_s)
            self._retry_asked = False
            told = None
            while True:
                owner = self._owner()
                if owner is not told:  # what happens next changed (its desk quit meanwhile)
                    self._events.put(SandboxStopped(self.connection.base_url, owner))
                    told = owner
                if (back := await self._attach()) is not None:
                    self.connection = back
                    self._events.put(SandboxReattached(back))
                    break
                if (owner is Owner.GONE or self._retry_asked) and await self._take_over():
                    return
                self._retry_asked = False
                await self._pause(self.policy.probe_s)

    async def _take_over(self) -> bool:
        """Start the sandbox here, on the same database; False when it would not start (its
        owner or another desk got there first: the database's lock)."""
        try:
            connection = await self._start()
        except SessionError:
            self.child = None
            return False
        self.attached = False
        self.connection = connection
        self._restarts.reset()
        self._events.put(SandboxTakenOver(connection))
        return True

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
            "--exit-with-parent",
            *self.extra_args,
        ]

    async def _start(self) -> Connection:
        """Start the child, wait until it is ready and answers; its connection."""
        return await self._connection_to_child(await self._launch())

    async def _launch(self) -> dict[str, Any]:
        """Start the child, wait until it is ready and answers; its credentials document.

        The credentials file is read only after the ready line, which the sandbox prints once
        it has written the file: a stale one is never mistaken for the new server's. It is not
        removed first either: a child that cannot start because another sandbox serves the
        database must not take that sandbox's file away.
        """
        child, self._early = self._early or SandboxChild(self._command(), self.log_path), None
        self.child = child  # from now on `close` stops it, whatever happens below
        try:
            await child.start(SANDBOX_START_TIMEOUT_S)
            document = read_credentials_file(self.credentials_path)
            base_url = str(document.get("base_url", ""))
            if not await answers_status(base_url):
                raise SessionError(f"the sandbox does not answer at {base_url}")
        except ChildStartError as error:
            raise SessionError(str(error)) from None
        except OSError as error:
            raise SessionError(f"cannot start the sandbox: {error}") from None
        except SessionError:
            await child.stop()
            raise
        return document

    async def _connection_to_child(self, document: dict[str, Any]) -> Connection:
        """The connection to the child just started (stopped when its file names none)."""
        try:
            return connection_from_credentials(document, self.short_name)
        except SessionError:
            if self.child is not None:
                await self.child.stop()
            raise

    async def _supervise(self) -> None:
        """Wait for the child to exit; restart it; say what happened; give up past the cap.

        Returns when, instead, another desk's sandbox now serves the database (it restarted
        first): this desk attaches to it.
        """
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
            if (back := await self._attach()) is not None:
                self.child, self.attached, self.connection = None, True, back
                self._events.put(SandboxReattached(back))
                return
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
