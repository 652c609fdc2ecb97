"""The roles' fakes with the desk's write path: every write through `DeskWrites` and a journal.

`WritingClient` is the kit's `FakeClient` that also takes writes the way `WriteDesk` sends them
(``client.write(name, body)``), recorded under the endpoint's own name with the argument its
typed method takes (a cancel's id, a body), so a test reads the calls as before; it has a
server clock the test moves (``now_ms``), and pages by name as resolution reads them.
`JournaledHost` is the kit's `RoleHost` with a `DeskWrites` over a journal of its own, whose
waits move that clock instead of sleeping. A journal the test does not give goes in a temporary
folder that is removed with the host (or, at the latest, when the test run ends).
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.desk.kit.fakes import NOW, FakeClient, RoleHost
from tui.api.clock import ServerClock
from tui.api.models import CancelRequest, Request
from tui.desk.roles.writes import DeskWrites

NOW_MS = int(NOW.timestamp() * 1000)
_BY_ID = frozenset({"quotes_cancel", "rfqs_cancel"})


class WritingClient(FakeClient):
    """A `FakeClient` that takes `WriteDesk`'s writes and has a movable server clock."""

    def __init__(self, **answers: Any) -> None:
        super().__init__(**answers)
        self.now_ms = NOW_MS
        self.clock = ServerClock(local_ms=lambda: self.now_ms)

    async def write(self, name: str, body: Request | None = None) -> Any:
        """The write ``name`` as its typed method: a cancel by its id, cancel-all bare."""
        method = getattr(self, name)
        if name in _BY_ID and isinstance(body, CancelRequest):
            return await method(body.id)
        return await method(body) if body is not None else await method()

    def iterate(self, method: Callable[..., Any] | str, **filters: Any) -> AsyncIterator[Any]:
        """As `FakeClient.iterate`, the method named or given."""
        if isinstance(method, str):
            method = getattr(self, method)
        return super().iterate(method, **filters)


class JournaledHost(RoleHost):
    """A `RoleHost` whose writes go through a `DeskWrites` on ``journal`` (when not given, a
    file in a temporary folder that goes with the host); the write desk's waits move the
    client's clock."""

    def __init__(self, client: WritingClient | None, *, journal: Path | None = None, **kw: Any):
        super().__init__(client, **kw)
        path = journal
        if path is None:
            folder = tempfile.mkdtemp(prefix="desk-journal-")
            # Removed when the host is collected (the end of its test), else at exit.
            weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
            path = Path(folder) / "journal.jsonl"

        async def wait(seconds: float) -> None:
            if client is not None:
                client.now_ms += int(seconds * 1000) + 1

        self.writes = DeskWrites(path, sleep=wait)
