"""A terminal for benchmarks: run a program in a pty and time what it writes (issue 11).

Measured from outside, as a trader's terminal sees it: the program gets a pseudo-terminal of a
fixed size (140x45 by default, set with ``TIOCSWINSZ`` before it starts, ``TERM=xterm-256color``,
``COLORTERM=truecolor``), its own XDG config/data/cache/state folders, and bytecode caching on
(``PYTHONDONTWRITEBYTECODE`` removed; caches go to a ``PYTHONPYCACHEPREFIX`` the caller picks,
so nothing is written into the tree). A reader thread keeps every byte the program writes, each
chunk with the `time.perf_counter` it arrived at.

What a benchmark asks of a `PtySession` (its environment from `terminal_environment`):

- `PtySession.wait_for`: when the screen text (the output with escape sequences removed) first
  matched a pattern, e.g. the footer's key text (the first full frame: Textual writes a frame
  top to bottom, so the footer's text ends it) or ``In pools 1,234.00`` (the first data);
  ``since=`` a `PtySession.mark` looks only at what came after it;
- `PtySession.press`: write a key and return the seconds to the end of the output it caused
  (the last byte before ``quiet_s`` of silence), after waiting for the screen to be quiet;
  `PtySession.write` and `PtySession.wait_quiet` are its two halves;
- `PtySession.cpu_seconds` / `PtySession.memory`: utime+stime and RSS of the program's own
  process from ``/proc/<pid>/stat`` and ``/status`` (threads included, children not: a sandbox
  the desk starts is a process of its own);
- `PtySession.bytes_between`: what was written to the terminal in a window;
- `PtySession.close`: ``ctrl+q``, then SIGTERM/SIGKILL to the program's process group.

Keys are bytes as a terminal sends them: `KEYS` names the ones the benchmarks use. The pty
answers no queries: Textual asks whether the terminal has synchronized output and, with no
answer, writes its frames without the begin/end brackets (what it writes is the same).
"""

from __future__ import annotations

import bisect
import fcntl
import os
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

SIZE = (140, 45)
"""Columns and rows of the benchmark terminal (the desk's snapshot size)."""
KEYS = {
    "down": b"\x1b[B",
    "up": b"\x1b[A",
    "tab": b"\t",
    "ctrl+q": b"\x11",
}
"""Key name -> the bytes an xterm sends for it."""
TICKS_PER_S = os.sysconf("SC_CLK_TCK")

_ESCAPE = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: cursor moves, colours, modes
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, clipboard
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS and other strings
    rb"|\x1b[@-Z\\-_]"  # two-byte escapes
    rb"|[\x00-\x08\x0b-\x1f]"  # control bytes but tab and newline
)


def screen_text(raw: bytes) -> str:
    """The text in ``raw`` terminal output: escape sequences and control bytes removed."""
    return _ESCAPE.sub(b"", raw).decode("utf-8", "replace")


def terminal_environment(home: Path, pycache: Path | None) -> dict[str, str]:
    """This process's environment as a fresh 256-colour terminal of its own would have it.

    XDG folders under ``home`` (so config, themes and the sandbox data are the run's own),
    bytecode caching on into ``pycache`` (None: leave the interpreter's settings alone),
    no ``TEXTUAL_*`` settings of the caller's.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    for name in ("CONFIG", "DATA", "CACHE", "STATE"):
        folder = home / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(folder)
    env.pop("LINES", None)  # the size is the pty's
    env.pop("COLUMNS", None)
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


@dataclass(frozen=True)
class Memory:
    """Resident memory of a process, in MB: now and at its peak."""

    rss_mb: float
    peak_mb: float


def _set_size(fd: int, size: tuple[int, int]) -> None:
    columns, rows = size
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


class PtySession:
    """One program running in a pty, its output kept with arrival times (see module docs)."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        *,
        cwd: Path | None = None,
        size: tuple[int, int] = SIZE,
    ) -> None:
        master, slave = os.openpty()
        _set_size(slave, size)
        self.started = time.perf_counter()
        self.process = subprocess.Popen(  # noqa: S603 - the benchmark's own programs
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.pid = self.process.pid
        self._master = master
        self._raw = bytearray()
        self._ends: list[int] = []  # offset in `_raw` after each chunk
        self._times: list[float] = []  # perf_counter when each chunk arrived
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    # -- output ------------------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # EIO: every writer of the pty has closed it
                chunk = b""
            now = time.perf_counter()
            with self._arrived:
                if chunk:
                    self._raw += chunk
                    self._ends.append(len(self._raw))
                    self._times.append(now)
                self._arrived.notify_all()
            if not chunk:
                return

    @property
    def output(self) -> bytes:
        """Every byte written so far."""
        with self._arrived:
            return bytes(self._raw)

    def last_output_at(self) -> float:
        """When the latest chunk arrived (the start, before any)."""
        with self._arrived:
            return self._times[-1] if self._times else self.started

    def bytes_between(self, start: float, end: float) -> int:
        """Bytes that arrived in ``[start, end)`` (perf_counter seconds)."""
        with self._arrived:
            first = bisect.bisect_left(self._times, start)
            last = bisect.bisect_left(self._times, end)
            if last <= first:
                return 0
            begin = self._ends[first - 1] if first else 0
            return self._ends[last - 1] - begin

    def _arrival_of(self, offset: int) -> float:
        """When the byte at ``offset`` of the output arrived."""
        return self._times[bisect.bisect_right(self._ends, offset)]

    def _match_at(self, pattern: re.Pattern[str], since: int) -> float | None:
        """When the output from ``since`` first matched ``pattern`` (as screen text), or None."""
        raw = bytes(self._raw[since:])
        # Screen text and, for each of its characters, the raw offset that wrote it.
        text: list[str] = []
        offsets: list[int] = []
        position = 0
        for escape in [*_ESCAPE.finditer(raw), None]:
            stop = escape.start() if escape else len(raw)
            piece = raw[position:stop].decode("utf-8", "replace")
            # A multi-byte character maps to its piece's end: near enough for arrival times.
            text.append(piece)
            offsets.extend([stop - 1] * len(piece))
            if escape is None:
                break
            position = escape.end()
        found = pattern.search("".join(text))
        if found is None:
            return None
        return self._arrival_of(since + offsets[found.end() - 1])

    def wait_for(self, pattern: str | re.Pattern[str], timeout_s: float, since: int = 0) -> float:
        """Seconds from the start until the screen text first matched ``pattern``.

        Looks at the output from byte ``since`` on (`mark` gives the current end). Raises
        `TimeoutError` (with the screen's last text) when it did not match in ``timeout_s``, or
        `RuntimeError` when the program ended first.
        """
        compiled = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.perf_counter() + timeout_s
        seen = -1
        with self._arrived:
            while True:
                if len(self._raw) != seen:
                    seen = len(self._raw)
                    at = self._match_at(compiled, since)
                    if at is not None:
                        return at - self.started
                if not self._reader.is_alive():
                    raise RuntimeError(f"the program ended first: {self.tail()!r}")
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(f"{compiled.pattern!r} not seen; screen: {self.tail()!r}")
                self._arrived.wait(min(left, 0.25))

    def mark(self) -> int:
        """The current end of the output (for ``wait_for(since=...)``)."""
        with self._arrived:
            return len(self._raw)

    def tail(self, chars: int = 600) -> str:
        """The last ``chars`` characters of screen text (for error messages)."""
        with self._arrived:
            return screen_text(bytes(self._raw[-8 * chars :]))[-chars:]

    def wait_quiet(self, quiet_s: float, timeout_s: float = 30.0) -> float:
        """Wait until nothing was written for ``quiet_s``; when the last byte came."""
        deadline = time.perf_counter() + timeout_s
        while True:
            last = self.last_output_at()
            now = time.perf_counter()
            if now - last >= quiet_s:
                return last
            if now > deadline:
                raise TimeoutError(f"output did not stop for {quiet_s} s in {timeout_s} s")
            time.sleep(min(quiet_s - (now - last), deadline - now) + 0.001)

    # -- input -------------------------------------------------------------------------------

    def write(self, data: bytes) -> float:
        """Send bytes as typed; when they were written."""
        at = time.perf_counter()
        os.write(self._master, data)
        return at

    def press(
        self, key: str, *, quiet_s: float = 0.1, settle_s: float = 0.2, answer_s: float = 2.0
    ) -> float:
        """Seconds from writing ``key`` (a `KEYS` name) to the end of the output it caused.

        First waits for ``settle_s`` of silence (so the key does not land in another frame's
        output), then writes the key and waits for ``quiet_s`` of silence after the last
        byte. A key that caused no output at all within ``answer_s`` counts as 0.
        """
        self.wait_quiet(settle_s)
        pressed = self.write(KEYS[key])
        with self._arrived:
            answered = self._arrived.wait_for(
                lambda: bool(self._times) and self._times[-1] > pressed, timeout=answer_s
            )
        if not answered:
            return 0.0
        return self.wait_quiet(quiet_s) - pressed

    # -- the process -------------------------------------------------------------------------

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds of the program's process so far (all its threads)."""
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / TICKS_PER_S  # utime, stime

    def memory(self) -> Memory:
        """The program's resident memory now and at its peak."""
        values: dict[str, float] = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                values[name] = int(rest.split()[0]) / 1024
        return Memory(values.get("VmRSS", 0.0), values.get("VmHWM", 0.0))

    def close(self, grace_s: float = 10.0) -> int | None:
        """Quit with ``ctrl+q``; past ``grace_s``, SIGTERM then SIGKILL the process group."""
        if self.process.poll() is None:
            try:
                self.write(KEYS["ctrl+q"])
                self.process.wait(timeout=grace_s)
            except (OSError, subprocess.TimeoutExpired):
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if not self._signal_group(sig, wait_s=5.0):
                break
        self._reader.join(timeout=5)
        os.close(self._master)
        return self.process.returncode

    def _signal_group(self, sig: signal.Signals, wait_s: float) -> bool:
        """Send ``sig`` to the program's process group (the desk's sandbox child is in it);
        whether any of the group was still there after ``wait_s``."""
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            return False
        deadline = time.perf_counter() + wait_s
        while time.perf_counter() < deadline:
            self.process.poll()  # reap the program itself
            try:
                os.killpg(self.pid, 0)
            except ProcessLookupError:
                return False
            time.sleep(0.05)
        return True

    def __enter__(self) -> PtySession:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
