"""Market stats: the venue's public statistics, platform totals and one row per listing.

Each listing shows mark, 24h volume, long and short open interest, the funding rate in percent
with its interval, the base spread, the indicative bid (top line) and ask (bottom line) at each
size, and how old those quotes are (the venue may cache them up to 600 s).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.api.models import BidAsk, Listing, MarketStats
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import Column, KeyedTable, SortText
from tui.desk.widgets.common.palette import tone

QUOTE_STALE_S = 600
"""Quotes older than this are past the venue's caching promise."""

COLUMNS = (
    Column("ticker", "Ticker", 6),
    Column("mark", "Mark", 12, numeric=True),
    Column("volume", "24h vol", 9, numeric=True),
    Column("oi", "OI L/S", 9, numeric=True),
    Column("funding", "Funding", 10, numeric=True),
    Column("interval", "Every", 5, numeric=True),
    Column("spread", "Spread", 7, numeric=True),
    Column("q1k", "1k bid/ask", 11, numeric=True),
    Column("q100k", "100k bid/ask", 12, numeric=True),
    Column("q1m", "1m bid/ask", 11, numeric=True),
    Column("age", "Quoted", 7, numeric=True),
)


def compact(value: Decimal | None) -> str:
    """``1.23M`` / ``45.6K``: volumes and open interest at a glance."""
    if value is None:
        return fmt.DASH
    magnitude = abs(value)
    for limit, suffix in (
        (Decimal(10) ** 9, "B"),
        (Decimal(10) ** 6, "M"),
        (Decimal(10) ** 3, "K"),
    ):
        if magnitude >= limit:
            return f"{fmt.money(value / limit, 2)}{suffix}"
    return fmt.money(value, 2)


def totals_markup(stats: MarketStats | None) -> str:
    """The platform totals line."""
    if stats is None:
        return "[$text-muted]market statistics: waiting for the first answer…[/]"
    refund = stats.loss_refund
    refund_text = (
        f"  loss refund pool {fmt.money(refund.pool_size)} (24h {fmt.money(refund.refunded_24h)})"
        if refund
        else ""
    )
    return (
        f"24h volume [b]{fmt.money(stats.total_volume_24h)}[/b]  "
        f"cumulative {fmt.money(stats.cumulative_volume)}  TVL {fmt.money(stats.tvl)}  "
        f"open interest {fmt.money(stats.open_interest)}  markets {stats.num_markets}"
        f"{refund_text}"
    )


class MarketStatsPane(Vertical):
    """Public market statistics (see module docs)."""

    BORDER_TITLE = "Market statistics (public)"

    BINDINGS = [Binding("escape", "app.show_tab('trade')", "Back to Trade")]

    def __init__(self, clock: Callable[[], datetime], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self._updated: dict[str, datetime | None] = {}

    def compose(self) -> ComposeResult:
        """Totals line and the listings table."""
        yield Static(totals_markup(None), id="market-totals")
        yield KeyedTable(
            COLUMNS, id="market-table", sort_column="ticker", newest_first=False, row_height=2
        )

    def on_mount(self) -> None:
        """Tick the quote ages."""
        self.set_interval(1.0, self._tick, name="market-ages")

    def show_stats(self, stats: MarketStats) -> None:
        """Merge a statistics record into the pane."""
        self.query_one("#market-totals", Static).update(totals_markup(stats))
        now = self.clock()
        rows = []
        for listing in stats.listings:
            self._updated[listing.ticker] = listing.quotes.updated_at
            rows.append((listing.ticker, self._cells(listing, now)))
        self.query_one(KeyedTable).merge(rows, prune=True)

    def _two_way(self, quote: BidAsk | None, places: int) -> Text:
        if quote is None:
            return Text(fmt.DASH, justify="right", end="")
        text = Text(justify="right", end="")
        text.append(fmt.money(quote.bid, places), style=tone(self.app, "bid"))
        text.append("\n")
        text.append(fmt.money(quote.ask, places), style=tone(self.app, "ask"))
        return text

    def _age_cell(self, updated: datetime | None, now: datetime) -> Text:
        if updated is None:
            return Text(fmt.DASH, justify="right", end="")
        seconds = max(0.0, (now - updated).total_seconds())
        style = tone(self.app, "stale") if seconds > QUOTE_STALE_S else None
        return Text(fmt.age(seconds), style=style or "", justify="right", end="")

    def _cells(self, listing: Listing, now: datetime) -> tuple[Text | str, ...]:
        oi = listing.open_interest
        sizes = (listing.quotes.size_1k, listing.quotes.size_100k, listing.quotes.size_1m)
        # One precision per listing, so its mark and every bid and ask line up by the point.
        places = fmt.places_of(
            listing.mark_price, *(p for q in sizes if q is not None for p in (q.bid, q.ask))
        )
        funding_style = tone(self.app, "bid" if listing.funding_rate >= 0 else "ask")
        volume = Text(compact(listing.volume_24h), justify="right", end="")
        return (
            SortText(listing.ticker, sort_key=listing.ticker),
            Text(fmt.money(listing.mark_price, places), justify="right", end=""),
            volume,
            Text(
                f"L {compact(oi.long_open_interest)}\nS {compact(oi.short_open_interest)}",
                justify="right",
                end="",
            ),
            Text(fmt.percent(listing.funding_rate), style=funding_style, justify="right", end=""),
            Text(fmt.duration_s(listing.funding_interval_s), justify="right", end=""),
            Text(fmt.bps(listing.base_spread_bps), justify="right", end=""),
            self._two_way(listing.quotes.size_1k, places),
            self._two_way(listing.quotes.size_100k, places),
            self._two_way(listing.quotes.size_1m, places),
            self._age_cell(listing.quotes.updated_at, now),
        )

    def _tick(self) -> None:
        now = self.clock()
        table = self.query_one(KeyedTable)
        for ticker, updated in self._updated.items():
            table.set_cell(ticker, "age", self._age_cell(updated, now))
