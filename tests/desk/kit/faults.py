"""A desk on a test sandbox that misbehaves on purpose, as ``rfq-desk sandbox --faults`` makes it.

The faults (`tui.sandbox.faults`) are switched on and off in the running server: `DEAD` is a
venue that never answers, `BROKEN` one that answers only errors. The desk's feed is manual and
its client does not wait between retries of one call, so a test decides every poll.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.session import StaticConnector, connection_from_credentials
from tui.sandbox.faults import FaultInjector, parse_faults

DEAD = "drop_before=1"
"""No answer at all: the venue is down."""
BROKEN = "5xx=1"
"""Only errors: the venue is up but failing."""


async def no_wait(_seconds: float) -> None:
    """The client's backoff between retries of one call: not waited for in these tests."""


def faulty_desk(sandbox: Any, tmp_path: Path, *, with_stats: bool = False) -> DeskApp:
    """DESK's desk on the test sandbox (manual feed, frozen clock), retries not waited for;
    ``with_stats`` also reads the public market statistics."""
    entry = sandbox.credentials["DESK"]
    document: dict[str, Any] = {"base_url": sandbox.base_url, "companies": [entry]}
    if with_stats:
        document["stats_base_url"] = sandbox.stats_base_url
    return DeskApp(
        StaticConnector(connection_from_credentials(document, "DESK")),
        clock=sandbox.clock.now,
        auto_feed=False,
        theme="desk-dark",
        export_dir=tmp_path / "exports",
        journal_path=tmp_path / "journal.jsonl",
        user_theme_dirs=[],
        client_factory=lambda _connection: sandbox.client("DESK", sleep=no_wait),
    )


def faults(sandbox: Any, spec: str | None) -> None:
    """Switch the sandbox's faults (None: none)."""
    sandbox.app.faults = FaultInjector(parse_faults(spec)) if spec else None


async def poll(app: DeskApp, pilot: Pilot[Any], *topics: Topic) -> None:
    """Poll (failing or not) and let the freshness tick reach the panes, as every second."""
    feed = await app.wait_connected()
    await feed.refresh(*topics)
    app.link.tick_freshness()
    await pilot.pause()
