"""The desk killed between sending an accept and reading its answer (issue 10, "Done when").

A real desk process (the app, headless, in a subprocess) trades on a sandbox serving real time
over loopback. The sandbox holds the accept's answer once the engine has taken the accept (a
latency after the commit: the ``--faults`` latency comes before the request is read, so a desk
killed during it never gets its accept in), and the test kills the desk with SIGKILL while the
answer is held: the accept is on the venue and no desk heard of it. A desk started again on the
same journal and sandbox must resolve the accept by reading, say that it landed (a toast and the
journal view), and show the trade clearing: never an accept left unknown, never sent twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.api.kit.live import LiveSandbox
from tests.desk.kit.venue import alpha_quotes_my_rfq
from tui.api.models import TradeSide
from tui.api.writes import Journal, Resolution, WriteKind
from tui.desk.app import DeskApp
from tui.desk.screens.journal import JournalScreen
from tui.desk.session import StaticConnector, connection_from_credentials
from tui.desk.widgets.common.keyed_table import KeyedTable

WAIT_S = 60.0
"""The most any step may take on a slow machine (never a timed assertion: only a give-up)."""

DRIVER = """
import asyncio, json, sys
from pathlib import Path

from tui.api.models import TradeSide
from tui.desk.app import DeskApp
from tui.desk.session import StaticConnector, connection_from_credentials


async def main(document: str, journal: str, rfq_id: str, quote_id: str) -> None:
    connection = connection_from_credentials(json.loads(Path(document).read_text()), "DESK")
    app = DeskApp(
        StaticConnector(connection),
        auto_feed=False,
        theme="desk-dark",
        user_theme_dirs=[],
        export_dir=Path(journal).parent / "exports",
        journal_path=Path(journal),
    )
    async with app.run_test(size=(100, 30)):
        await app.wait_connected()
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        app.taker.accept_now(rfq_id, quote_id, TradeSide.BUY)
        await asyncio.sleep(3600)


asyncio.run(main(*sys.argv[1:]))
"""


def _sent_accept(journal: Path) -> bool:
    if not journal.exists():
        return False
    for line in journal.read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "sent" and event.get("kind") == WriteKind.ACCEPT.value:
            return True
    return False


class HeldAnswer:
    """The engine's accept, answered only when the test lets it go (``committed`` once taken)."""

    def __init__(self) -> None:
        self.committed = threading.Event()
        self.released = threading.Event()

    def install(self, exchange: Any) -> None:
        """Wrap the engine's accept: commit, say so, then hold the answer."""
        accept = exchange.quotes_accept

        def committed_then_held(caller: Any, body: Any) -> Any:
            answer = accept(caller, body)
            self.committed.set()
            self.released.wait(WAIT_S)
            return answer

        exchange.quotes_accept = committed_then_held


def _start_desk(env: dict[str, str], *arguments: Any) -> subprocess.Popen[str]:
    """The desk process: the app headless, told on stdin when to accept."""
    return subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", DRIVER, *map(str, arguments)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.05)


async def _clearing(live: LiveSandbox, quote_id: str) -> str | None:
    async with live.client("DESK") as desk:
        (quote,) = (await desk.quotes_received(id=quote_id)).result
    return str(quote.clearing_status) if quote.clearing_status else None


async def test_a_desk_killed_mid_accept_reconciles_on_restart(
    sandbox_template: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "data" / "journals" / "sandbox.jsonl"
    held = HeldAnswer()
    document = tmp_path / "creds.json"
    with LiveSandbox(sandbox_template, tmp_path) as live:
        rfq, quote = await alpha_quotes_my_rfq(live)
        document.write_text(
            json.dumps({"base_url": live.server.base_url, "companies": [live.credentials["DESK"]]})
        )
        env = dict(
            os.environ,
            XDG_DATA_HOME=str(tmp_path / "xdg-data"),
            XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        )
        desk = _start_desk(env, document, journal, rfq.rfq_id, quote.parent_quote_id)
        try:
            assert desk.stdout is not None and desk.stdin is not None
            assert desk.stdout.readline().strip() == "ready"
            live.call(held.install)
            desk.stdin.write("accept\n")
            desk.stdin.flush()
            _until(lambda: _sent_accept(journal), "the desk journals the accept")
            _until(held.committed.is_set, "the engine takes the accept")
            desk.send_signal(signal.SIGKILL)
            desk.wait(WAIT_S)
        finally:
            if desk.poll() is None:
                desk.kill()
            held.released.set()
        assert desk.returncode == -signal.SIGKILL

        # The accept left the desk and nobody heard its answer: the journal holds it open.
        with Journal(journal) as left:
            (open_accept,) = left.open_intents()
        assert open_accept.kind is WriteKind.ACCEPT
        # The venue took it: the truth the desk must find.
        truth = await _clearing(live, quote.parent_quote_id)
        assert truth is not None

        # Started again on the same journal and sandbox: it reads the accept back.
        connection = connection_from_credentials(json.loads(document.read_text()), "DESK")
        app = DeskApp(
            StaticConnector(connection),
            auto_feed=False,
            theme="desk-dark",
            user_theme_dirs=[],
            export_dir=tmp_path / "data" / "exports",
            journal_path=journal,
            client_factory=lambda _c: live.client("DESK"),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            feed = await app.wait_connected()
            await app.workers.wait_for_complete()
            await feed.refresh_all()
            await pilot.pause()

            (entry,) = app.writes.entries()
            assert entry.intent.id == open_accept.id
            assert entry.outcome == "landed" and entry.how is Resolution.FOUND
            assert app.writes.reconciled[open_accept.id].intent.id == open_accept.id
            toasts = [n.message for n in app._notifications]
            assert any("LANDED" in t and "accept BUY" in t for t in toasts), toasts
            # The true state on the desk: the trade is clearing, as the venue has it.
            mine = app.book.quotes_received[quote.parent_quote_id]
            assert str(mine.clearing_status) == truth

            await pilot.press("j")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, JournalScreen)
            table = screen.query_one(KeyedTable)
            assert table.row_keys == [open_accept.id]
            fields = dict(table.row_fields(open_accept.id))
            assert "landed" in fields["Outcome"]
            assert fields["How known"] == "answer lost; read at start"
            assert fields["Action"] == f"accept BUY quote {quote.parent_quote_id[:8]}"

        # Never sent twice: the venue holds one clearing of this quote, from one accept.
        async with live.client("DESK") as desk_client:
            (seen,) = (await desk_client.quotes_received(id=quote.parent_quote_id)).result
        takes = [e for e in seen.clearing_events if e.taker_side == TradeSide.BUY]
        assert len(takes) == 1
