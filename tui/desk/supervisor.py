"""Keeping the desk's own sandbox alive: one run of the child, when to restart it, what to say.

`SandboxChild` is one run of ``rfq-desk sandbox`` as a child process of the desk: launched,
waited for until it prints its ready line, its exit awaited (``Process.wait``, so a death is
known the moment it happens, not at the next poll), the tail of what it wrote to its log read
back, and stopped. `RestartLog` applies a `RestartPolicy`: a child that died is started again
after a short pause that doubles with each restart of the last minute, and past a cap of
restarts a minute the desk stops trying and says so (a sandbox that dies on every start would
otherwise spin).

What happens is told to the desk as `SessionEvent`s through `SessionEvents`: the session went
down (`SessionDown`: `ChildDied`, `ChildGaveUp`, `SandboxStopped`) or is back (`SessionBack`:
`ChildRestarted`, `SandboxReattached`, `SandboxTakenOver`, with the new `Connection`). A
connector that tells them is `Supervised`; `tui.desk.session.SandboxConnector` is the one that
does.

A sandbox another desk started (its child, ``--exit-with-parent``) names that desk in its
credentials file (``owner_pid``). When it stops, `tui.desk.probes.owner_of` says whether its
desk is still there to restart it (`Owner.ALIVE`: wait for it), gone (`Owner.GONE`: this desk
starts the sandbox itself, on the same database) or unknown (`Owner.UNKNOWN`, a sandbox started
by hand: wait, and f5 starts it here). The sandbox's own database lock settles a race between
two desks starting it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tui.desk.early_child import EarlyProcess
from tui.desk.probes import Owner

if TYPE_CHECKING:
    from tui.desk.connection import Connection

__all__ = [
    "ChildDied",
    "ChildGaveUp",
    "ChildRestarted",
    "ChildStartError",
    "RestartLog",
    "RestartPolicy",
    "SandboxChild",
    "SandboxReattached",
    "SandboxStopped",
    "SandboxTakenOver",
    "SessionBack",
    "SessionDown",
    "SessionEvent",
    "SessionEvents",
    "Supervised",
    "describe_exit",
]

READY_LINE = b"sandbox ready"
"""How the sandbox's first line on stdout begins once it serves and its credentials are written."""
STOP_WAIT_S = 10.0
"""How long a stopped child may take to exit on SIGTERM before it is killed."""


class ChildStartError(Exception):
    """The child did not come up: it stopped while starting, or did not get ready in time."""


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    """When a dead sandbox child is started again, and when the desk stops trying.

    The n-th restart within ``window_s`` waits ``first_delay_s * 2**n`` seconds, at most
    ``max_delay_s``; once ``max_restarts`` restarts happened within ``window_s``, the next
    death is the last (the desk gives up until the trader asks again). ``probe_s``: how often
    an attached sandbox (another process's) is checked, and how often a stopped one is
    looked for again.
    """

    first_delay_s: float = 0.5
    max_delay_s: float = 10.0
    max_restarts: int = 5
    window_s: float = 60.0
    probe_s: float = 1.0

    def delay_s(self, recent: int) -> float:
        """The pause before a restart when ``recent`` restarts happened within the window."""
        return min(self.first_delay_s * 2 ** min(recent, 32), self.max_delay_s)


class RestartLog:
    """The restarts of the last `RestartPolicy.window_s` seconds (monotonic ``clock``)."""

    def __init__(self, policy: RestartPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self._clock = clock
        self._times: deque[float] = deque()

    def recent(self) -> int:
        """How many restarts happened within the window, up to now."""
        now = self._clock()
        while self._times and now - self._times[0] >= self.policy.window_s:
            self._times.popleft()
        return len(self._times)

    def next_delay(self) -> float | None:
        """Count one more restart and say how long to wait before it; None: give up instead."""
        recent = self.recent()
        if recent >= self.policy.max_restarts:
            return None
        self._times.append(self._clock())
        return self.policy.delay_s(recent)

    def reset(self) -> None:
        """Forget the restarts (the trader asked to try again after the desk gave up)."""
        self._times.clear()


def describe_exit(exit_code: int) -> str:
    """A child's exit in words: ``killed by SIGKILL`` (negative codes), ``exited with code 1``."""
    if exit_code < 0:
        try:
            return f"killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            return f"killed by signal {-exit_code}"
    return "stopped" if exit_code == 0 else f"exited with code {exit_code}"


@dataclass(frozen=True)
class SessionDown:
    """The venue behind the session went away; ``text`` says so in a few words (the header)."""

    @property
    def text(self) -> str:
        """What the header shows while the session is down."""
        raise NotImplementedError


@dataclass(frozen=True)
class ChildDied(SessionDown):
    """The sandbox this desk started exited (noticed the moment it did).

    ``exit_code`` is negative when a signal killed it (-9: SIGKILL). ``log_tail`` is the end
    of what this run wrote to its log. ``restart_in_s``: when it will be started again; None
    when the desk gives up instead (a `ChildGaveUp` follows).
    """

    exit_code: int
    log_tail: str
    restart_in_s: float | None

    @property
    def text(self) -> str:
        """``sandbox killed by SIGKILL: restarting`` (or ``sandbox exited with code 1``)."""
        how = f"sandbox {describe_exit(self.exit_code)}"
        return f"{how}: restarting" if self.restart_in_s is not None else how


@dataclass(frozen=True)
class ChildGaveUp(SessionDown):
    """The sandbox child died too often in a row; the desk stops restarting it until `retry_now`.

    ``reason`` is a sentence for a toast (how often, how it last ended, where its log is).
    """

    reason: str

    @property
    def text(self) -> str:
        """What the header shows once the desk gave up."""
        return "sandbox down: gave up (f5 retries)"


@dataclass(frozen=True)
class SandboxStopped(SessionDown):
    """The sandbox this desk attached to (another process's) stopped; it is looked for again.

    ``owner`` says what happens next: its desk restarts it (ALIVE), this desk starts it itself
    (GONE), or nobody will unless the trader presses f5 (UNKNOWN, and ALIVE too when its desk
    gave up).
    """

    base_url: str
    owner: Owner = Owner.UNKNOWN

    @property
    def text(self) -> str:
        """The header's words (at most 40 characters): what happens next, and the way out."""
        if self.owner is Owner.GONE:
            return "sandbox's desk quit: starting it here"
        return "sandbox stopped (f5: start it here)"


@dataclass(frozen=True)
class SessionBack:
    """The venue is back: ``connection`` is where it now is (build the client anew from it)."""

    connection: Connection


@dataclass(frozen=True)
class ChildRestarted(SessionBack):
    """The sandbox child was started again on the same database and answers."""


@dataclass(frozen=True)
class SandboxReattached(SessionBack):
    """The attached sandbox answers again (perhaps restarted by its owner on another port)."""


@dataclass(frozen=True)
class SandboxTakenOver(SessionBack):
    """The attached sandbox's desk was gone (or the trader pressed f5): this desk started the
    sandbox itself on the same database, and now owns it (restarts it when it dies)."""


SessionEvent = (
    ChildDied | ChildGaveUp | SandboxStopped | ChildRestarted | SandboxReattached | SandboxTakenOver
)
"""Everything a supervised connector tells the desk."""


class SessionEvents:
    """The events of one supervised session, in order: ``async for event in events``.

    One reader. Cancelling a wait (a timeout, a worker stopped) loses nothing; the stream ends
    when the connector closes.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[SessionEvent | None] = asyncio.Queue()

    def put(self, event: SessionEvent | None) -> None:
        """Tell the reader ``event`` (None: the session is closed, the stream ends)."""
        self._queue.put_nowait(event)

    def __aiter__(self) -> SessionEvents:
        return self

    async def __anext__(self) -> SessionEvent:
        event = await self._queue.get()
        if event is None:
            self._queue.put_nowait(None)  # ended for good, however often it is asked again
            raise StopAsyncIteration
        return event


@runtime_checkable
class Supervised(Protocol):
    """A connector that keeps watching what it connected to (the built-in sandbox)."""

    def events(self) -> SessionEvents:
        """What happened to the session since `connect`, as it happens."""
        ...

    def retry_now(self) -> None:
        """Cut a pause short and try now (after giving up too: the trader asks again)."""
        ...


class SandboxChild:
    """One run of the sandbox as the desk's child process (see module docs).

    Its stdout is read for the ready line (then drained, so it can never block on a full
    pipe); its stderr is appended to ``log_path``, whose tail from this run on is kept for
    the trader (`log_tail`). It is launched by `start`, or earlier, before the desk's event
    loop exists, by `launch_early` (`tui.desk.early_child`); `start` then only waits for it.
    """

    def __init__(self, command: Sequence[str], log_path: Path) -> None:
        self.command = list(command)
        self.log_path = log_path
        self.process: asyncio.subprocess.Process | EarlyProcess | None = None
        self._log_from = 0
        self._drain: asyncio.Task[None] | None = None

    def launch_early(self) -> None:
        """Launch the child now, outside any event loop (`start` waits for its ready line).

        An `OSError` when it cannot be launched.
        """
        with self.log_path.open("ab") as log:
            self._log_from = log.tell()
            self.process = EarlyProcess(self.command, log)

    async def start(self, timeout_s: float) -> None:
        """Launch the child (unless `launch_early` did) and wait for its ready line.

        `ChildStartError` when it stops first (the process has exited) or is not ready within
        ``timeout_s`` (it is stopped). An `OSError` when it cannot be launched at all.
        """
        if self.process is None:
            with self.log_path.open("ab") as log:
                self._log_from = log.tell()
                self.process = await asyncio.create_subprocess_exec(
                    *self.command,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=log,
                    stdin=asyncio.subprocess.DEVNULL,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
        elif isinstance(self.process, EarlyProcess):
            await self.process.adopt()
        stdout = self.process.stdout
        assert stdout is not None
        try:
            async with asyncio.timeout(timeout_s):
                while not (line := await stdout.readline()).startswith(READY_LINE):
                    if not line:
                        how = describe_exit(await self.process.wait())
                        raise ChildStartError(
                            f"the sandbox stopped while starting ({how}; see {self.log_path})"
                        )
        except TimeoutError:
            await self.stop()
            raise ChildStartError(
                f"the sandbox did not start in time (see {self.log_path})"
            ) from None
        self._drain = asyncio.create_task(_discard(stdout), name="sandbox-stdout")

    @property
    def running(self) -> bool:
        """Whether the process was launched and has not exited."""
        return self.process is not None and self.process.returncode is None

    async def wait(self) -> int:
        """Wait until the child exits; its exit code (negative: the signal that killed it)."""
        assert self.process is not None, "the child was never launched"
        return await self.process.wait()

    def log_tail(self, lines: int = 15, max_bytes: int = 4096) -> str:
        """The last ``lines`` lines this run wrote to the log ("" when there are none)."""
        try:
            with self.log_path.open("rb") as log:
                size = log.seek(0, os.SEEK_END)
                start = max(self._log_from, size - max_bytes)
                log.seek(start)
                data = log.read()
        except OSError:
            return ""
        text = data.decode("utf-8", errors="replace").splitlines()
        if start > self._log_from and text:
            text = text[1:]  # cut mid-line
        return "\n".join(text[-lines:])

    async def stop(self) -> None:
        """Stop the child: SIGTERM, then SIGKILL if it has not exited in `STOP_WAIT_S`."""
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                async with asyncio.timeout(STOP_WAIT_S):
                    await process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._drain
            self._drain = None
        if isinstance(process, EarlyProcess):
            process.close_pipe()

    def stop_now(self) -> None:
        """Stop a child `launch_early` launched, without a loop (the desk never ran, or its
        loop is gone); nothing for a child the loop launched (its loop stopped it)."""
        if isinstance(self.process, EarlyProcess):
            self.process.stop_now(STOP_WAIT_S)


async def _discard(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass
