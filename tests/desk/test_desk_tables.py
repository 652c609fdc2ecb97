"""The keyed tables stay cheap at 10,000 rows: no redraw of what did not change."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tests.desk.kit.venue import booked_trades as trades
from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common.keyed_table import KeyedTable


class CountingTable(KeyedTable):
    """Counts cell updates, to prove unchanged cells are never touched."""

    updates = 0

    def update_cell(self, *args: Any, **kwargs: Any) -> None:
        assert kwargs.get("update_width") is False  # never re-measure a column
        CountingTable.updates += 1
        super().update_cell(*args, **kwargs)


class BlotterApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield Blotter(DeskBook(), id="blotter")


async def filled(pilot: Any, table: KeyedTable) -> None:
    while table.pending_rows:
        await pilot.pause()


async def test_ten_thousand_trades_merge_in_place(monkeypatch: Any) -> None:
    monkeypatch.setattr("tui.desk.widgets.blotter.KeyedTable", CountingTable)
    CountingTable.updates = 0
    app = BlotterApp()
    async with app.run_test(size=(140, 45)) as pilot:
        blotter = app.query_one(Blotter)
        day = trades(10_000)
        blotter.show_trades(day)
        table = blotter.query_one(CountingTable)
        assert table.pending_rows > 0  # a big first load fills in by chunks, one per frame
        assert table.row_count + table.pending_rows == 10_000
        await filled(pilot, table)
        assert table.row_count == 10_000
        assert table.row_keys[:2] == ["t009999", "t009998"]  # newest first
        assert CountingTable.updates == 0

        # The same snapshot again: nothing is rendered, nothing updated.
        blotter.show_trades(day)
        assert CountingTable.updates == 0 and table.row_count == 10_000

        # One new trade and one changed status: one row added, one cell updated.
        table.move_cursor(row=table.get_row_index("t005000"))
        changed = [*day, *trades(1, start=10_000)]
        changed[5000] = changed[5000].model_copy(update={"status": "rejected_failed_risk_checks"})
        blotter.show_trades(changed)
        await filled(pilot, table)
        assert table.row_count == 10_001 and table.row_keys[0] == "t010000"
        assert CountingTable.updates == 1
        assert str(table.cell_value("t005000", "status")) == "rejected"
        assert table.selected_key == "t005000"  # the cursor stayed on its trade
