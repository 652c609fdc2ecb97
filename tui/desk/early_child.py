"""`EarlyProcess`: the sandbox child launched before the desk's event loop exists.

A new data folder's sandbox takes about as long to get ready (it seeds a new database) as the
whole desk takes to import Textual and draw its first frame. `tui.desk.launch` therefore
launches it first, with `subprocess.Popen`, before anything heavy is imported, and hands it to
the `tui.desk.supervisor.SandboxChild` that owns it from then on. This class gives that process
the face of an `asyncio.subprocess.Process` (``pid``, ``returncode``, ``stdout`` as a stream
reader, ``wait``, ``terminate``, ``kill``), so the child is awaited and stopped exactly like one
launched inside the loop: its exit is known the moment it happens (a pidfd the loop watches),
not at the next poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Sequence
from typing import IO


class EarlyProcess:
    """A child process started outside the event loop, awaited inside it (see module docs)."""

    def __init__(self, command: Sequence[str], log: IO[bytes]) -> None:
        self.popen = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            list(command),
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.pid = self.popen.pid
        self.stdout: asyncio.StreamReader | None = None
        self._pipe: asyncio.BaseTransport | None = None

    async def adopt(self) -> None:
        """Read the child's stdout through the running loop from now on (``stdout``)."""
        if self.stdout is not None:
            return
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = self.popen.stdout
        assert pipe is not None
        self._pipe, _protocol = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        self.stdout = reader

    @property
    def returncode(self) -> int | None:
        """The exit code once the child has exited (negative: the signal), else None."""
        return self.popen.poll()

    async def wait(self) -> int:
        """Wait until the child exits, without blocking the loop; its exit code."""
        if (code := self.popen.poll()) is not None:
            return code
        try:
            handle = os.pidfd_open(self.pid)
        except ProcessLookupError:  # reaped meanwhile
            return self.popen.wait()
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[None] = loop.create_future()

        def _readable() -> None:
            if not exited.done():
                exited.set_result(None)

        loop.add_reader(handle, _readable)
        try:
            await exited
        finally:
            loop.remove_reader(handle)
            os.close(handle)
        return self.popen.wait()

    def terminate(self) -> None:
        """SIGTERM (`ProcessLookupError` once it has exited, as an asyncio process raises)."""
        if self.popen.poll() is not None:
            raise ProcessLookupError(self.pid)
        self.popen.terminate()

    def kill(self) -> None:
        """SIGKILL (`ProcessLookupError` once it has exited)."""
        if self.popen.poll() is not None:
            raise ProcessLookupError(self.pid)
        self.popen.kill()

    def close_pipe(self) -> None:
        """Stop reading the child's stdout (it has exited or is being stopped)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(RuntimeError):  # its loop is closed: the file still is not
                pipe.close()
        if self.popen.stdout is not None:
            self.popen.stdout.close()

    def stop_now(self, wait_s: float) -> None:
        """Stop the child without a loop (the desk never ran, or its loop is gone): SIGTERM,
        then SIGKILL after ``wait_s``."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(wait_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    self.popen.kill()
                self.popen.wait()
        self.close_pipe()
