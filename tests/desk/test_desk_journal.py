"""The journal view (issue 10): every action the desk sent, newest first, with its outcome.

A desk on the test sandbox sends two RFQs and has one refused; ``j`` (and the palette's
"Journal") opens the audit trail at 80x24 with every column in view, newest first, each row
saying what the action was, that it landed or not, and how that is known; nothing on it or in
the file is a secret.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.desk.kit.desk import make_desk, settle
from tests.desk.kit.venue import perp_rfq
from tui.desk.keys import PALETTE
from tui.desk.screens.journal import COLUMNS, JournalScreen
from tui.desk.widgets.common.keyed_table import KeyedTable


async def test_j_opens_the_journal_newest_first_at_80x24(sandbox: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal" / "desk.jsonl"
    app = make_desk(sandbox, tmp_path, journal_path=journal)
    alpha = sandbox.company_ids["ALPHA"]
    async with app.run_test(size=(80, 24)) as pilot:
        await app.wait_connected()
        for qty in ("1", "2"):
            app.taker.send_rfq(object(), perp_rfq([alpha], qty, sandbox.clock.now()))  # type: ignore[arg-type]
            await settle(app, pilot)
            sandbox.advance(1)
        # A target that does not exist: the venue refuses, and the journal says so.
        refused = perp_rfq(["00000000-0000-4000-8000-000000000000"], "3", sandbox.clock.now())
        app.taker.send_rfq(object(), refused)  # type: ignore[arg-type]
        await settle(app, pilot)

        await pilot.press("j")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JournalScreen)
        table = screen.query_one(KeyedTable)
        assert [column.key.value for column in table.ordered_columns] == [c.key for c in COLUMNS]
        rows = [dict(table.row_fields(key)) for key in table.row_keys]
        assert [row["Action"].split()[:3] for row in rows] == [
            ["new", "RFQ", "3"],
            ["new", "RFQ", "2"],
            ["new", "RFQ", "1"],
        ]
        assert [(row["Outcome"], row["How known"]) for row in rows] == [
            ("not landed", "venue refused"),
            ("landed", "answered"),
            ("landed", "answered"),
        ]
        assert rows[1]["Detail"] == app.writes.entries()[1].record["rfq_id"]
        assert "No action was left open at start." in str(
            screen.query_one("#journal-start").render()
        )
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, JournalScreen)

    secret = sandbox.credentials["DESK"]["api_secret"]
    assert secret not in journal.read_text()
    assert any(action == "open_journal" for _title, _help, action, _args in PALETTE)
