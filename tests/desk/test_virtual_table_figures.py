"""The virtual table never cuts a figure: a numeric column widens for one longer than its
width once the line is drawn (at 80 columns the inbox's structure price and Positions' mark
read ``101,2…``), keeps that width, and a narrow table leaves a droppable column out for it."""

from __future__ import annotations

from decimal import Decimal

from tests.desk.kit.fills import SIZE, Fill, FillsApp, FillTable
from tui.desk.widgets.common.columns import TableColumn, fit_columns


async def test_a_numeric_column_widens_for_a_longer_figure_and_keeps_the_width() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        assert table.column_width("price") == 8
        table.merge([Fill("f1", Decimal("101234.56789")), Fill("f2", Decimal(2))])
        await pilot.pause()
        await pilot.pause()
        assert table.column_width("price") == len("101,234.56789")
        line = next(text for text in table.lines.values() if text.startswith(" f1"))
        assert "101,234.56789" in line and "101,2…" not in line
        table.merge([Fill("f2", Decimal(2))])  # the long figure is gone
        await pilot.pause()
        assert table.column_width("price") == len("101,234.56789")


async def test_a_narrow_table_leaves_a_column_out_to_keep_a_figure_whole() -> None:
    app = FillsApp()
    async with app.run_test(size=(50, 12)) as pilot:
        table = app.query_one(FillTable)
        table.merge([Fill("f1", Decimal(1), note="a note")])
        await pilot.pause()
        assert table.column_width("note") > 0
        table.merge([Fill("f1", Decimal("12345678901.5"), note="a note")])
        await pilot.pause()
        await pilot.pause()
        assert table.column_width("note") == 0, "the droppable note made room"
        assert table.column_width("price") == len("12,345,678,901.5")


def test_grown_widths_are_the_fitting_rule_s_not_a_second_copy() -> None:
    columns = [
        TableColumn[object]("name", "Name", 10, str, flex=True, least=4),
        TableColumn[object]("px", "Px", 8, str, numeric=True),
        TableColumn[object]("note", "Note", 6, str, drop=1),
    ]
    assert fit_columns(columns, 0) == ((0, 1, 2), (10, 8, 6))
    assert fit_columns(columns, 0, {1: 12}) == ((0, 1, 2), (10, 12, 6))
    # 4 + 12 + 6 and their padding (2 each) and the scrollbar: 29 cells.
    assert fit_columns(columns, 29, {1: 12}) == ((0, 1, 2), (4, 12, 6))
    assert fit_columns(columns, 28, {1: 12}) == ((0, 1), (11, 12))


def test_with_nothing_left_to_drop_the_growth_is_given_back_not_run_past_the_edge() -> None:
    columns = [
        TableColumn[object]("name", "Name", 6, str),
        TableColumn[object]("bid", "Bid", 8, str, numeric=True),
        TableColumn[object]("ask", "Ask", 8, str, numeric=True),
    ]
    # 6 + 8 + 8, padding 2 each, a scrollbar cell: 29. Grown bid 15 and ask 10 need 38.
    shown, widths = fit_columns(columns, 34, {1: 15, 2: 10})
    assert shown == (0, 1, 2)
    assert sum(widths) + 2 * len(widths) + 1 == 34, widths  # the table fits its pane
    assert widths == (6, 11, 10), "the widest growth gives back first"
    assert fit_columns(columns, 29, {1: 15, 2: 10}) == ((0, 1, 2), (6, 8, 8))
