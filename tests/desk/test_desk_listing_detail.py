"""A listing's detail in a small host app, on statistics the sandbox served over loopback: the
mark over the session, the quote ladder by size and its age, funding per period, escape."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from textual import on
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.api.models import MarketStats
from tui.api.stats import StatsClient
from tui.desk.analytics.mark_history import BLOCKS, MarketHistory
from tui.desk.screens.listing_detail import ASK_GLYPH, BID_GLYPH, ListingDetail, MarkSpark
from tui.desk.themes import BUILTIN_THEMES, DESK_VARIABLES
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.market_stats import MarketStatsPane

DESK_TCSS = Path(__file__).resolve().parents[2] / "tui" / "desk" / "desk.tcss"


class Host(App[None]):
    """A bare screen under the detail, styled and themed as the desk is."""

    CSS_PATH = str(DESK_TCSS)

    def __init__(self, clock: Callable[[], datetime]) -> None:
        super().__init__()
        self.clock = clock
        for theme in BUILTIN_THEMES.values():
            self.register_theme(theme)
        self.theme = "desk-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield Static("market tab")


class MarketHost(Host):
    """The Market tab's pane, with Enter on a row routed to the detail as the desk routes it."""

    def __init__(self, clock: Callable[[], datetime], history: MarketHistory) -> None:
        super().__init__(clock)
        self.history = history
        self.stats: MarketStats | None = None

    def compose(self) -> ComposeResult:
        yield MarketStatsPane(self.clock, id="market")

    @on(VirtualTable.RecordSelected, "#market-table")
    def _open_listing(self, chosen: VirtualTable.RecordSelected) -> None:
        self.push_screen(ListingDetail(chosen.record_id, self.history, self.clock, self.stats))


async def read_session(
    sandbox: Any, reads: int, step_s: float
) -> list[tuple[datetime, MarketStats]]:
    """``reads`` statistics records from the sandbox over HTTP, ``step_s`` apart on its clock."""
    records = []
    async with StatsClient(sandbox.stats_base_url) as client:
        for i in range(reads):
            if i:
                sandbox.advance(step_s)
            at = datetime.fromtimestamp(sandbox.clock.now_ms() / 1000, tz=UTC)
            records.append((at, await client.stats()))
    return records


def text_of(app: App[Any], selector: str) -> str:
    """What a Static shows, as plain text at the screen's width."""
    console = Console(width=app.size.width, no_color=True, record=True)
    console.print(app.screen.query_one(selector, Static).content)
    return console.export_text()


async def test_the_detail_shows_marks_ladder_ages_and_funding(sandbox: Any) -> None:
    session = await read_session(sandbox, 6, 1500.0)
    history = MarketHistory()
    for at, stats in session:
        history.note(stats, at)
    last_at, last = session[-1]
    btc = next(item for item in last.listings if item.ticker == "BTC")
    app = Host(lambda: last_at + timedelta(seconds=5))
    async with app.run_test(size=(140, 45)) as pilot:
        app.push_screen(ListingDetail("BTC", history, app.clock, last))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ListingDetail)
        spark = str(screen.query_one(MarkSpark).render())
        bars = spark.split("  lo ")[0]
        assert len(bars) == 6 and set(bars) <= set(BLOCKS)
        assert BLOCKS[0] in bars and BLOCKS[-1] in bars
        marks = text_of(app, "#listing-marks")
        low, high = history.marks("BTC").low(), history.marks("BTC").high()
        assert low is not None and high is not None
        read_at = next(line for line in marks.splitlines() if "read at" in line)
        assert f"{low.mark:,.2f}" in marks and f"{low.at:%H:%M:%S}" in read_at
        assert f"{high.mark:,.2f}" in marks and f"{high.at:%H:%M:%S}" in read_at
        assert "6 marks since 12:00:00" in read_at
        ladder = text_of(app, "#listing-ladder")
        assert btc.quotes.size_1m is not None
        one_m = next(line for line in ladder.splitlines() if line.strip().startswith("1m"))
        assert f"{BID_GLYPH} {btc.quotes.size_1m.bid:,.2f}" in one_m
        assert f"{ASK_GLYPH} {btc.quotes.size_1m.ask:,.2f}" in one_m
        ages = text_of(app, "#listing-ages")
        updated = btc.quotes.updated_at
        assert updated is not None
        age = int((last_at + timedelta(seconds=5) - updated).total_seconds())
        assert f"Quoted {age}s ago" in ages and "Refreshes seen 6" in ages
        assert "only the current rate" in text_of(app, "#listing-funding-now")
        funding = text_of(app, "#listing-funding")
        # 6 reads 25 minutes apart from 12:00: the hours of 12, 13 and 14, newest first.
        periods = [line for line in funding.splitlines() if line.strip()[:2].isdigit()]
        assert len(periods) == 3
        assert periods[0].lstrip().startswith(f"{last_at:%m-%d %H}:00-")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ListingDetail)


async def test_a_new_snapshot_redraws_the_open_detail(sandbox: Any) -> None:
    (first_at, first), (second_at, second) = await read_session(sandbox, 2, 120.0)
    history = MarketHistory()
    history.note(first, first_at)
    app = Host(lambda: second_at)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = ListingDetail("ETH", history, app.clock, first)
        app.push_screen(detail)
        await pilot.pause()
        assert "1 marks since" in text_of(app, "#listing-marks")
        history.note(second, second_at)
        detail.show_stats(second)
        await pilot.pause()
        eth = next(item for item in second.listings if item.ticker == "ETH")
        assert "2 marks since" in text_of(app, "#listing-marks")
        assert f"{eth.mark_price:,.2f}" in text_of(app, "#listing-title")
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ListingDetail)


async def test_a_small_cap_has_no_1m_quote_and_a_stale_quote_says_so(sandbox: Any) -> None:
    ((at, stats),) = await read_session(sandbox, 1, 0)
    small = next(item for item in stats.listings if item.quotes.size_1m is None)
    history = MarketHistory()
    history.note(stats, at)
    app = Host(lambda: at + timedelta(seconds=900))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(ListingDetail(small.ticker, history, app.clock, stats))
        await pilot.pause()
        ladder = text_of(app, "#listing-ladder")
        one_m = next(line for line in ladder.splitlines() if line.strip().startswith("1m"))
        assert "not quoted" in one_m
        assert "STALE" in text_of(app, "#listing-ages")


async def test_a_listing_the_statistics_dropped_says_so() -> None:
    at = datetime(2026, 1, 5, 12, tzinfo=UTC)
    history = MarketHistory()
    app = Host(lambda: at)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(ListingDetail("GONE", history, app.clock, None))
        await pilot.pause()
        assert "not in the latest statistics" in text_of(app, "#listing-title")
        assert "no marks read yet" in str(app.screen.query_one(MarkSpark).render())
        assert "Quotes by size: none" in text_of(app, "#listing-ladder")


async def test_enter_on_a_market_row_opens_that_listing(sandbox: Any) -> None:
    ((at, stats),) = await read_session(sandbox, 1, 0)
    history = MarketHistory()
    history.note(stats, at)
    app = MarketHost(lambda: at, history)
    app.stats = stats
    async with app.run_test(size=(140, 45)) as pilot:
        pane = app.query_one(MarketStatsPane)
        pane.show_stats(stats)
        pane.table.focus()
        await pilot.pause()
        second = pane.table.row_ids()[1]
        await pilot.press("down", "enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, ListingDetail) and detail.ticker == second
        assert text_of(app, "#listing-title").startswith(second)
        await pilot.press("escape")
        await pilot.pause()
        assert pane.table.cursor_id == second
