"""Market stats: the venue's public statistics, platform totals and one row per listing.

Each listing shows mark, its marks over the session (a sparkline over the change), 24h
volume, long and short open interest, the funding rate in percent with its interval, the base
spread, the indicative bid (top line, ``b``) and ask (bottom line, ``a``) at each size, told
apart by their letter as well as their colour, and how old those quotes are (the venue may
cache them up to 600 s; the ages tick only while the tab is shown).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from operator import attrgetter
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.api.models import BidAsk, Listing, MarketStats
from tui.desk.analytics.mark_history import MarketHistory, MarkSeries, spark_bars
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.palette import tone
from tui.desk.widgets.common.virtual_table import VirtualTable

QUOTE_STALE_S = 600
"""Quotes older than this are past the venue's caching promise."""

BID_MARK = "b"
ASK_MARK = "a"
"""The letters before a bid and an ask stacked in one cell: never told apart by colour alone."""


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


def _places(listing: Listing) -> int:
    """One precision per listing, so its mark and every bid and ask line up by the point."""
    quotes = listing.quotes
    sizes = (quotes.size_1k, quotes.size_100k, quotes.size_1m)
    return fmt.places_of(
        listing.mark_price, *(p for q in sizes if q is not None for p in (q.bid, q.ask))
    )


def _moved(series: MarkSeries) -> tuple[bool, Decimal]:
    """How far a listing moved over the session, for sorting (unknown last)."""
    change = series.relative_change()
    return change is None, change if change is not None else Decimal(0)


def market_columns(
    app: App[Any],
    clock: Callable[[], datetime],
    marks: Callable[[str], MarkSeries] | None = None,
) -> list[TableColumn[Listing]]:
    """The listings table's columns; a quote cell is the bid over the ask (two lines). A narrow
    terminal keeps the ticker, mark, funding and the 1k bid/ask and their age (``v`` shows a
    listing whole). ``marks`` gives a listing's marks over the session (the "Session"
    sparkline and its change; none given: an empty line)."""
    session = marks or MarketHistory().marks

    def right(text: str, style: str | Style = "") -> Text:
        return Text(text, style=style, justify="right", end="")

    def two_way(size: str) -> Callable[[Listing], tuple[BidAsk, int] | None]:
        def value(listing: Listing) -> tuple[BidAsk, int] | None:
            quote = getattr(listing.quotes, size)
            return None if quote is None else (quote, _places(listing))

        return value

    def two_way_cell(value: tuple[BidAsk, int] | None) -> Cell:
        if value is None:
            return right(fmt.DASH)
        quote, places = value
        text = right("")
        text.append(f"{BID_MARK} {fmt.money(quote.bid, places)}", style=tone(app, "bid"))
        text.append("\n")
        text.append(f"{ASK_MARK} {fmt.money(quote.ask, places)}", style=tone(app, "ask"))
        return text

    def age(listing: Listing) -> tuple[str, bool] | None:
        updated = listing.quotes.updated_at
        if updated is None:
            return None
        seconds = max(0.0, (clock() - updated).total_seconds())
        return fmt.age(seconds), seconds > QUOTE_STALE_S

    def age_cell(value: tuple[str, bool] | None) -> Cell:
        if value is None:
            return right(fmt.DASH)
        text, stale = value
        return right(text, tone(app, "stale") if stale else "")

    def funding_cell(rate: Decimal) -> Cell:
        return right(fmt.percent(rate), tone(app, "bid" if rate >= 0 else "ask"))

    def open_interest(listing: Listing) -> tuple[Decimal | None, Decimal | None]:
        oi = listing.open_interest
        return oi.long_open_interest, oi.short_open_interest

    return [
        TableColumn("ticker", "Ticker", 6, attrgetter("ticker")),
        TableColumn(
            "mark",
            "Mark",
            12,
            lambda listing: (listing.mark_price, _places(listing)),
            cell=lambda value: fmt.money(*value),
            sort=attrgetter("mark_price"),
            numeric=True,
        ),
        TableColumn(
            "trend",
            "Session",
            14,
            lambda listing: session(listing.ticker),
            cell=lambda series: Text(
                f"{spark_bars(series, 14)}\n{fmt.percent(series.relative_change(), 2)}", end=""
            ),
            sort=lambda listing: _moved(session(listing.ticker)),
            search=lambda _series: "",
            drop=3,
        ),
        TableColumn(
            "volume", "24h vol", 9, attrgetter("volume_24h"), cell=compact, numeric=True, drop=4
        ),
        TableColumn(
            "oi",
            "OI L/S",
            9,
            open_interest,
            cell=lambda ls: right(f"L {compact(ls[0])}\nS {compact(ls[1])}"),
            numeric=True,
            drop=5,
        ),
        TableColumn(
            "funding", "Funding", 10, attrgetter("funding_rate"), cell=funding_cell, numeric=True
        ),
        TableColumn(
            "interval",
            "Every",
            5,
            attrgetter("funding_interval_s"),
            cell=fmt.duration_s,
            numeric=True,
            drop=7,
        ),
        TableColumn(
            "spread",
            "Spread",
            7,
            attrgetter("base_spread_bps"),
            cell=fmt.bps,
            numeric=True,
            drop=2,
        ),
        TableColumn("q1k", "1k bid/ask", 13, two_way("size_1k"), cell=two_way_cell, numeric=True),
        TableColumn(
            "q100k",
            "100k bid/ask",
            13,
            two_way("size_100k"),
            cell=two_way_cell,
            numeric=True,
            drop=3,
        ),
        TableColumn(
            "q1m", "1m bid/ask", 13, two_way("size_1m"), cell=two_way_cell, numeric=True, drop=6
        ),
        TableColumn("age", "Quoted", 7, age, cell=age_cell, numeric=True, live=True),
    ]


class MarketStatsPane(Vertical):
    """Public market statistics (see module docs)."""

    BORDER_TITLE = "Market statistics (public)"

    BINDINGS = [Binding("escape", "app.show_tab('trade')", "Back to Trade", id="market.back")]

    def __init__(
        self,
        clock: Callable[[], datetime],
        *,
        marks: Callable[[str], MarkSeries] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.marks = marks or MarketHistory().marks

    def compose(self) -> ComposeResult:
        """Totals line and the listings table (a listing takes two lines: bid over ask)."""
        yield Static(totals_markup(None), id="market-totals")
        yield VirtualTable(
            market_columns(self.app, self.clock, self.marks),
            key=attrgetter("ticker"),
            # A listing is drawn again when it or its session marks moved on.
            version=lambda listing: (listing, self.marks(listing.ticker).last),
            sort="ticker",
            row_height=2,
            id="market-table",
        )

    @property
    def table(self) -> VirtualTable[Listing]:
        """The listings table."""
        table: VirtualTable[Listing] = self.query_one("#market-table", VirtualTable)
        return table

    def tick(self) -> None:
        """Redraw the quote ages that moved (only the lines on screen are looked at), while the
        tab is shown (a hidden tab's ages are drawn afresh when it comes back); the desk's
        second calls it while the Market tab is on screen (`tui.desk.panes.DeskPanes.tick`)."""
        if all(node.display for node in self.ancestors_with_self):
            self.table.refresh_live()

    def show_stats(self, stats: MarketStats) -> None:
        """Merge a statistics record into the pane (a listing that did not change is not
        formatted again)."""
        self.query_one("#market-totals", Static).update(totals_markup(stats))
        self.table.merge(stats.listings)

    def invalidate(self) -> None:
        """Draw the listings again (a new theme)."""
        self.table.invalidate()
