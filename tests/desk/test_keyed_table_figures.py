"""`KeyedTable` never cuts a figure: a numeric column widens for one longer than its width
(at 80 columns a BTC mark read ``101,2…``), a text column still ends in an ellipsis, and a
narrow table leaves a droppable column out to make the room."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets.data_table import ColumnKey

from tui.desk.widgets.common.keyed_table import Column, KeyedTable

COLUMNS = (
    Column("name", "Instrument", 10, flex=True, least=6),
    Column("note", "Note", 8, drop=1),
    Column("mark", "Mark", 8, numeric=True),
)


class _Table(App[None]):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def compose(self) -> ComposeResult:
        table = KeyedTable(COLUMNS, sort_column="name")
        table.styles.width = self.width
        yield table


def _drawn(table: KeyedTable, key: str, column: str) -> str:
    """The cell's text as the table draws it on screen (its column's slice of the row)."""
    line = table.render_line(1 + table.get_row_index(key)).text
    left = 0
    for each in table.ordered_columns:
        width = each.get_render_width(table)
        if each.key == ColumnKey(column):
            return line[left : left + width].strip()
        left += width
    raise KeyError(column)


async def test_a_numeric_column_widens_for_a_longer_figure_and_text_still_ellipsizes() -> None:
    app = _Table(60)
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(KeyedTable)
        table.merge([("btc", ("BTC-PERP with a long name", "a long remark", "101,234.56789"))])
        await pilot.pause()
        await pilot.pause()
        assert table.columns[ColumnKey("mark")].width == len("101,234.56789")
        assert _drawn(table, "btc", "mark") == "101,234.56789"
        assert _drawn(table, "btc", "note").endswith("…")
        # A cell changed in place widens it too, and the column keeps its width after.
        table.set_cell("btc", "mark", "1,101,234.56789")
        await pilot.pause()
        assert _drawn(table, "btc", "mark") == "1,101,234.56789"
        table.set_cell("btc", "mark", "7.5")
        await pilot.pause()
        assert table.columns[ColumnKey("mark")].width == len("1,101,234.56789")


async def test_a_narrow_table_drops_a_column_to_keep_a_widened_figure_whole() -> None:
    app = _Table(36)
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(KeyedTable)
        await pilot.pause()
        assert [str(c.label) for c in table.columns.values()] == ["Instrument", "Note", "Mark"]
        table.merge([("btc", ("BTC-PERP", "remark", "101,234,567,891.25"))])
        await pilot.pause()
        await pilot.pause()
        assert [str(c.label) for c in table.columns.values()] == ["Instrument", "Mark"]
        assert _drawn(table, "btc", "mark") == "101,234,567,891.25"
        assert table.virtual_size.width <= table.scrollable_content_region.width
