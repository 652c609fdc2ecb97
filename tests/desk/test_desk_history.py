"""The History pane in a small host app: filtered by record and outcome, searched, and the
scorecards a key away."""

from __future__ import annotations

from datetime import timedelta

from textual.app import App, ComposeResult

from tests.desk.test_analytics_scorecards import FAST, ME, SLOW, T0, the_day
from tui.desk.analytics.scorecards import maker_cards, taker_cards
from tui.desk.analytics.store import HistoryLog
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.history import HistoryPane

NAMES = {ME: "DESK", FAST: "FAST", SLOW: "SLOW", "shy": "SHY", "t1": "TK1", "t2": "TK2"}


class Names:
    """Company names, as the book gives them."""

    def company_name(self, company_id: str | None) -> str:
        return NAMES.get(company_id or "", "-")


class Host(App[None]):
    """The pane alone."""

    def compose(self) -> ComposeResult:
        yield HistoryPane(Names(), id="history")


def _log() -> HistoryLog:
    log = HistoryLog(None)
    log.update(**the_day(), me=ME, now=T0 + timedelta(hours=1))
    return log


async def test_filters_narrow_the_history_and_s_shows_the_scorecards() -> None:
    log = _log()
    app = Host()
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(HistoryPane)
        pane.show_history(log.entries())
        pane.show_scorecards(maker_cards(log.entries()), taker_cards(log.entries()))
        pane.table.focus()
        await pilot.pause()
        assert pane.table.row_count == 13
        await pilot.press("r")  # RFQs sent
        assert sorted(pane.table.row_ids()) == ["rfq sent:r1", "rfq sent:r2", "rfq sent:r3"]
        await pilot.press("r", "r", "r")  # quotes received
        await pilot.press("f", "f", "f", "f", "f")  # rejected
        assert pane.table.row_ids() == ["quote received:q3"]
        await pilot.press("r", "f", "f")  # all records, any outcome
        assert pane.table.row_count == 13
        await pilot.press("slash")
        await pilot.press(*"slow")
        await pilot.pause()
        assert {pane.table.record(i).maker for i in pane.table.row_ids()} == {SLOW}  # type: ignore[union-attr]
        await pilot.press("escape")
        assert pane.table.row_count == 13
        await pilot.press("s")
        await pilot.pause()
        assert pane.showing_cards
        makers = app.query_one("#history-makers", VirtualTable)
        assert makers.row_ids()[:2] == [FAST, SLOW]  # the fastest to quote first
        fields = dict(makers.row_fields(FAST))
        assert (fields["Resp."], fields["1st quote"], fields["Win"]) == ("67%", "1.5s", "50%")
        assert fields["LL rej."] == "50%"
        takers = app.query_one("#history-takers", VirtualTable)
        assert dict(takers.row_fields("t1"))["Hit ratio"] == "100%"
        await pilot.press("escape")
        assert not pane.showing_cards


async def test_a_later_snapshot_keeps_the_cursor_on_its_record() -> None:
    log = _log()
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(HistoryPane)
        pane.show_history(log.entries())
        pane.table.focus()
        await pilot.pause()
        pane.table.move_cursor_to("quote made:m2")
        pane.show_history(log.entries()[3:])
        await pilot.pause()
        assert pane.table.row_count == 10 and pane.table.has_record("quote made:m2")
        assert pane.table.cursor_id == "quote made:m2"
