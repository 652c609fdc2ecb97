"""At 80x24 (SSH) every pane reads: toasts keep off fields and figures, the Pools header fits,
a clearing path keeps each time under its step, the help's wrapped lines stay indented, and
the pools' balances are amounts of USDC (`fmt.usdc`, every place they have).
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import DataTable, Input, OptionList, Static
from textual.widgets._toast import Toast
from textual.widgets.option_list import Option

from tests.desk.kit.desk import make_desk
from tests.desk.kit.scenes import build_world, open_desk
from tui.desk.keymap import DeskKeymap
from tui.desk.screens.help import HelpScreen, HelpText, cells, help_text
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.lines import MORE, whole_figures
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.trade_tracker import TradeCard

SMALL = (80, 24)


async def test_toasts_keep_off_the_ticket_fields_and_the_inbox_figures(
    sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await build_world(sandbox)
        await open_desk(app, pilot)
        app.query_one("#inbox-table").focus()
        await pilot.pause()
        for n in range(3):
            app.notify(f"quote {n} sent on RFQ 1cff37f8 " + "and more words " * 6, title="Q")
        await pilot.pause()
        await pilot.pause()
        shown = [t.region for t in app.screen.query(Toast) if t.region.area]
        assert len(shown) == 1, shown  # the newest only
        guarded = [app.query_one("#inbox-table").region]
        in_sight = app.query_one("#ticket").content_region  # the fields scrolled into view
        inputs = [i.region.intersection(in_sight) for i in app.screen.query(Input)]
        guarded += [region for region in inputs if region.area]
        assert len(guarded) > 1  # the ticket's bid/ask fields are on screen
        for region in guarded:
            assert not shown[0].overlaps(region), (shown[0], region)
        assert shown[0].bottom <= SMALL[1] - 1  # never over the footer


async def test_the_pools_header_fits_80_columns_and_balances_are_usdc(
    sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await build_world(sandbox)
        await open_desk(app, pilot)
        await pilot.press("2")
        await pilot.pause()
        table = app.query_one("#pools-table", DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        labels = [str(column.label) for column in table.columns.values()]
        for label in ("Pool", "My balance", "Their balance", "Max withdraw"):
            assert label in labels, labels
        pane = app.query_one(PoolsPane)
        pool = pane.book.pools[pane.selected_pool_id or ""]
        assert pool.data is not None
        mine = next(p.margin_usage for p in pool.data.parties if p.company == pane.book.me)
        assert mine is not None
        free = table.get_cell(pane.selected_pool_id or "", "free")
        assert str(free).strip() == fmt.usdc(mine.max_withdrawable_amount)
        # The detail's party lines leave figures out whole, never cut one ('IM 19,692.6…').
        detail = app.query_one("#pool-detail", Static)
        text = str(detail.render())
        lines = text.splitlines()
        assert len(lines) == 1 + len(pool.data.parties)
        width = detail.content_size.width
        for line in lines:
            assert len(line) <= width, (line, width)  # past it the pane would cut a figure
        assert fmt.usdc(mine.max_withdrawable_amount) in lines[1]
        for name in ("#pool-positions", "#pool-transfers"):  # half a pane at 80 columns
            lower = app.query_one(name, DataTable)
            assert lower.virtual_size.width <= lower.scrollable_content_region.width, name
        await pilot.resize_terminal(140, 45)
        await pilot.pause()
        await pilot.pause()
        wide = str(detail.render())
        assert "IM " in wide and "MM " in wide and "…" not in wide, wide


def test_whole_figures_leave_the_last_ones_out_whole_and_say_so() -> None:
    parts = ["  me balance 250,000.00 USDC", "max withdraw 229,373.996", "IM 19,692.60"]
    assert whole_figures(parts, 0) == "  ".join(parts), "no width yet: every figure"
    assert whole_figures(parts, 200) == "  ".join(parts)
    exact = len("  ".join(parts))
    assert whole_figures(parts, exact) == "  ".join(parts)
    assert whole_figures(parts, exact - 1) == f"{'  '.join(parts[:2])} {MORE}"
    assert whole_figures(parts, 30) == f"{parts[0]} {MORE}"
    # A first part too long itself keeps its whole legs (else words), never past the width.
    legs = ["[b]ab12cd34[/b] B BTC-27MAR26-90000-C / S BTC-27MAR26-95000-C", "qty 1"]
    assert whole_figures(legs, 50) == f"[b]ab12cd34[/b] B BTC-27MAR26-90000-C {MORE}"
    assert whole_figures(legs, 16) == f"[b]ab12cd34[/b] B {MORE}"
    assert whole_figures(legs, 5) == MORE
    for width in range(1, 90):
        fitted = Content.from_markup(whole_figures(legs, width)).cell_length
        assert fitted <= max(width, len(MORE)), (width, fitted)
    named = ["[b]DESK-ALPHA[/b]", "address 0xab"]
    assert whole_figures(named, 24) == "[b]DESK-ALPHA[/b]  address 0xab", "markup takes no cells"


def _path_card() -> TradeCard:
    names = ("accepted", "pool", "tkr dep", "last look", "mkr dep", "settling", "booked")
    steps = tuple(
        (11, f"[$booked]✓ {name:<9}[/]", f"  [$text-muted]{'12:00:1' + str(i):<9}[/]")
        for i, name in enumerate(names)
    )
    details = "  [$text-muted]notional 6,714.40 · premium 6,714.40 · quote 815a4983 · RFQ e2[/]"
    return TradeCard("MAKER BUY B SOL-PERP x40", steps, "  booked into the pool", details)


class _Tracker(App[None]):
    def compose(self) -> ComposeResult:
        yield OptionList(Option(_path_card(), id="t"))


async def test_a_clearing_path_keeps_each_time_under_its_step_at_80_columns() -> None:
    app = _Tracker()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        options = app.query_one(OptionList)
        width = options.scrollable_content_region.width
        assert width < 77  # seven steps do not fit one row
        lines = [options.render_line(y).text for y in range(options.size.height)]
        marks = [(y, line) for y, line in enumerate(lines) if "✓" in line]
        assert len(marks) == 2, lines  # two rows of steps
        for y, line in marks:
            times = lines[y + 1]
            for column, char in enumerate(line):
                if char == "✓":
                    assert times[column + 2 : column + 4] == "12", (line, times)
        assert "booked" in "".join(line for _, line in marks)
        details = [line for line in lines if "quote 815a4983" in line or "RFQ e2" in line]
        assert all(line.startswith("  ") for line in details), lines
        assert all(len(line.rstrip()) <= width for line in lines)


async def test_help_lines_wrap_under_their_description_at_80_columns(
    sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await open_desk(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = app.screen.query_one(HelpText)
        width = shown.content_region.width
        text = help_text(DeskKeymap(), width)
        lines = text.split("\n")
        assert all(cells(line) <= width for line in lines), width
        kill = next(i for i, line in enumerate(lines) if "KILL SWITCH" in line)
        assert lines[kill + 1].startswith(" " * 15) and lines[kill + 1].strip(), lines[kill + 1]
        assert str(shown.render()).split("\n")[kill + 1].startswith(" " * 15)
