"""A `DeskApp` on the test sandbox, and the waits a test needs around it.

The desk runs with its feed in manual mode (`Feed.refresh`), its clock on the sandbox's frozen
clock, and its client stamping and budgeting on sandbox time, so what a test sees depends only
on what it did, never on how fast the machine is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.session import StaticConnector, connection_from_credentials

DeskFactory = Callable[..., DeskApp]
SIZE = (140, 45)


def make_desk(sandbox: Any, tmp_path: Path, short_name: str = "DESK", **options: Any) -> DeskApp:
    """A desk for ``short_name`` on the test sandbox (manual feed, frozen clock, fixed theme)."""
    entry = sandbox.credentials[short_name]
    document = {
        "base_url": sandbox.base_url,
        "stats_base_url": sandbox.stats_base_url,
        "companies": [entry],
    }
    connection = connection_from_credentials(document, short_name)
    options.setdefault("clock", sandbox.clock.now)
    options.setdefault("auto_feed", False)
    options.setdefault("theme", "desk-dark")
    options.setdefault("export_dir", tmp_path / "exports")
    options.setdefault("journal_path", tmp_path / "journals" / "desk.jsonl")
    options.setdefault("user_theme_dirs", [])
    return DeskApp(
        StaticConnector(connection),
        client_factory=lambda _connection: sandbox.client(short_name),
        **options,
    )


async def refresh(app: DeskApp, pilot: Pilot[Any], *topics: Topic) -> None:
    """Poll topics (all when none given) and let the screen catch up."""
    feed = await app.wait_connected()
    if topics:
        await feed.refresh(*topics)
    else:
        await feed.refresh_all()
    await pilot.pause()


async def settle(app: DeskApp, pilot: Pilot[Any]) -> None:
    """Wait for every action worker to finish and the messages to land."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
