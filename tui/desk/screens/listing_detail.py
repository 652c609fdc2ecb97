"""One listing in detail: its mark over the session, its quotes by size and their age, funding.

Opened by Enter on a row of the Market tab. From the top: the mark over the session as a
sparkline with its low, high and last labelled (with the times they were read); the
indicative quote ladder, bid and ask per size (each told by its column, its glyph and its
colour, never colour alone), with the spread and how far each mid sits from the mark; how old
the quotes are and how often the venue refreshes them; the funding rate now and period by
period. The venue publishes only the current funding rate, so the periods are the rates this
desk read over the session, and the screen says so.

It shows what it is handed: the statistics snapshot (`ListingDetail.show_stats`, after each
poll) and the session's `MarketHistory`, which the book keeps. Nothing here touches the
network. Escape (or ``q``) closes it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Static

from tui.api.models import BidAsk, Listing, MarketStats
from tui.desk.analytics.mark_history import (
    FundingPeriod,
    ListingHistory,
    MarketHistory,
    MarkSeries,
    sparkline,
)
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.palette import tone

QUOTE_STALE_S = 600
"""Quotes older than this are past the venue's caching promise."""

SIZES = (("size_1k", "1k"), ("size_100k", "100k"), ("size_1m", "1m"))
"""The statistics' quote sizes (USD notional) and how the ladder names them."""

BID_GLYPH = "▼"
ASK_GLYPH = "▲"
"""The ladder's bid sits below the mark and its ask above: the glyph says which is which
where the colour cannot (a monochrome terminal, a colour-blind eye)."""

_BPS = Decimal("0.1")


def _bps(part: Decimal, whole: Decimal) -> Decimal | None:
    return None if whole == 0 else (part / whole * 10_000).quantize(_BPS)


def _when(at: datetime | None) -> str:
    return f"{fmt.clock_time(at)} UTC" if at is not None else fmt.DASH


class MarkSpark(Widget):
    """The sparkline of one listing's marks, as wide as the screen gives it."""

    DEFAULT_CSS = "MarkSpark { height: 1; }"

    def __init__(self, series: MarkSeries, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series = series
        self.places = 2

    def render(self) -> RenderableType:
        """Bars across the width, then the low and high."""
        if not len(self.series):
            return Text("no marks read yet", style="italic")
        return Text(
            sparkline(self.series, self.size.width, label=lambda v: fmt.money(v, self.places)),
            no_wrap=True,
            overflow="crop",
        )


class ListingDetail(ModalScreen[None]):
    """One listing in detail (see module docs)."""

    DEFAULT_CSS = """
    ListingDetail { align: center middle; }
    ListingDetail #listing-box {
        width: 104;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    ListingDetail .listing-part { margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="listing.close"),
        Binding("q", "close", "Close", show=False, id="listing.close_q"),
    ]

    def __init__(
        self,
        ticker: str,
        history: MarketHistory,
        clock: Callable[[], datetime],
        stats: MarketStats | None = None,
    ) -> None:
        super().__init__()
        self.ticker = ticker
        self.history = history
        self.clock = clock
        self.listing: Listing | None = self._find(stats)

    def _find(self, stats: MarketStats | None) -> Listing | None:
        if stats is None:
            return None
        return next((item for item in stats.listings if item.ticker == self.ticker), None)

    def compose(self) -> ComposeResult:
        """Title, the mark, the ladder, quote ages, funding."""
        with VerticalScroll(id="listing-box"):
            yield Static(id="listing-title")
            yield MarkSpark(self.history.marks(self.ticker), id="listing-spark")
            yield Static(id="listing-marks")
            yield Static(id="listing-ladder", classes="listing-part")
            yield Static(id="listing-ages")
            yield Static(id="listing-funding-now", classes="listing-part")
            yield Static(id="listing-funding")
        yield Footer()

    def on_mount(self) -> None:
        """Draw, and keep the ages and the funding countdown ticking."""
        self._draw()
        self.set_interval(1.0, self._tick, name="listing-ages")

    def show_stats(self, stats: MarketStats) -> None:
        """A new statistics snapshot (the history has filed it already): draw it all again."""
        self.listing = self._find(stats)
        if self.is_mounted:
            self._draw()

    def action_close(self) -> None:
        """Back to the Market tab."""
        self.dismiss(None)

    # -- drawing ----------------------------------------------------------------------------

    def _draw(self) -> None:
        history = self.history.listing(self.ticker)
        listing = self.listing
        places = self._places()
        spark = self.query_one(MarkSpark)
        spark.series = self.history.marks(self.ticker)
        spark.places = places
        spark.refresh()
        self.query_one("#listing-title", Static).update(self._title(listing, places))
        self.query_one("#listing-marks", Static).update(self._marks(places))
        self.query_one("#listing-ladder", Static).update(self._ladder(listing, places))
        self.query_one("#listing-funding", Static).update(self._funding(history))
        self._tick()

    def _tick(self) -> None:
        history = self.history.listing(self.ticker)
        self.query_one("#listing-ages", Static).update(self._ages(history))
        self.query_one("#listing-funding-now", Static).update(self._funding_now(self.listing))

    def _places(self) -> int:
        """One precision for every price on the screen, so they line up by the point."""
        marks = self.history.marks(self.ticker)
        values = [p.mark for p in (marks.low(), marks.high(), marks.last) if p is not None]
        if self.listing is not None:
            values.append(self.listing.mark_price)
            for field, _ in SIZES:
                quote: BidAsk | None = getattr(self.listing.quotes, field)
                if quote is not None:
                    values += [quote.bid, quote.ask]
        return fmt.places_of(*values)

    def _title(self, listing: Listing | None, places: int) -> Text:
        title = Text.assemble((self.ticker, "bold"))
        if listing is None:
            title.append("  not in the latest statistics", style="italic")
            return title
        title.append(f" · {listing.name}")
        title.append("   mark ")
        title.append(fmt.money(listing.mark_price, places), style="bold")
        return title

    def _marks(self, places: int) -> RenderableType:
        marks = self.history.marks(self.ticker)
        low, high, last, first = marks.low(), marks.high(), marks.last, marks.first
        if low is None or high is None or last is None or first is None:
            return Text("The mark is drawn from each statistics read (every 15-30 s).")
        session = fmt.percent(marks.relative_change(), 2)
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="dim")
        table.add_column("")
        for label in ("Low", "High", "Last"):
            table.add_column(label, justify="right")
        table.add_column("Session", justify="right")
        table.add_row(
            Text("mark", style="dim"),
            *(fmt.money(point.mark, places) for point in (low, high, last)),
            session,
        )
        table.add_row(
            Text("read at", style="dim"),
            *(fmt.clock_time(point.at) for point in (low, high, last)),
            f"{len(marks)} marks since {fmt.clock_time(first.at)}",
        )
        return table

    def _ladder(self, listing: Listing | None, places: int) -> RenderableType:
        if listing is None:
            return Text("Quotes by size: none (the listing is not in the latest statistics).")
        bid, ask = tone(self.app, "bid"), tone(self.app, "ask")
        table = Table(
            title="Indicative quotes by size (USD notional)",
            title_justify="left",
            title_style="bold",
            box=None,
            padding=(0, 1),
            show_edge=False,
        )
        table.add_column("Size", justify="right")
        table.add_column(f"Bid {BID_GLYPH}", justify="right", header_style=bid)
        table.add_column(f"Ask {ASK_GLYPH}", justify="right", header_style=ask)
        table.add_column("Spread", justify="right")
        table.add_column("Mid vs mark", justify="right")
        mark = listing.mark_price
        for field, label in SIZES:
            quote: BidAsk | None = getattr(listing.quotes, field)
            if quote is None:
                table.add_row(label, fmt.DASH, fmt.DASH, "not quoted", "")
                continue
            mid = (quote.bid + quote.ask) / 2
            table.add_row(
                label,
                Text(f"{BID_GLYPH} {fmt.money(quote.bid, places)}", style=bid),
                Text(f"{ASK_GLYPH} {fmt.money(quote.ask, places)}", style=ask),
                fmt.bps(_bps(quote.ask - quote.bid, mid)),
                _signed_bps(_bps(mid - mark, mark)),
            )
        return table

    def _ages(self, history: ListingHistory | None) -> Text:
        listing = self.listing
        updated = listing.quotes.updated_at if listing is not None else None
        if updated is None:
            return Text("Quote age: the venue gave no time for these quotes.")
        seconds = max(0.0, (self.clock() - updated).total_seconds())
        line = Text()
        line.append("Quoted ", style="dim")
        line.append(f"{fmt.age(seconds)} ago", style="bold")
        line.append(f" ({_when(updated)}, one time for every size)")
        if seconds > QUOTE_STALE_S:
            line.append("  ⚠ STALE: past the venue's 600s cache", style=tone(self.app, "stale"))
        quotes = history.quotes if history is not None else None
        if quotes is not None:
            gap = quotes.typical_gap_s()
            seen = len(quotes.refreshes)
            line.append("\nRefreshes seen ", style="dim")
            line.append(f"{seen}")
            if gap is not None:
                line.append(", median gap ", style="dim")
                line.append(fmt.age(gap))
            if quotes.oldest_read_s is not None:
                line.append("; oldest at a read ", style="dim")
                line.append(fmt.age(quotes.oldest_read_s))
        return line

    def _funding_now(self, listing: Listing | None) -> Text:
        if listing is None:
            return Text("Funding: not in the latest statistics.", style="bold")
        rate = listing.funding_rate
        line = Text.assemble(("Funding now ", "bold"))
        line.append(fmt.percent(rate), style="bold")
        line.append(f" per {fmt.duration_s(listing.funding_interval_s)}: {_payer(rate)}")
        periods = self.history.listing(self.ticker)
        if periods is not None and periods.funding.periods:
            ends = periods.funding.periods[-1].ends
            line.append(f"\nThis period ends {_when(ends)}", style="dim")
            line.append(f", in {fmt.countdown(ends, self.clock())}.", style="dim")
        line.append(
            " The venue publishes only the current rate: below are the rates this desk read "
            "this session, per funding period.",
            style="italic",
        )
        return line

    def _funding(self, history: ListingHistory | None) -> RenderableType:
        periods = history.funding.latest_first() if history is not None else []
        if not periods:
            return Text("No funding rate read yet.", style="italic")
        table = Table(box=None, padding=(0, 1), show_edge=False)
        table.add_column("Period (UTC)")
        table.add_column("Rate", justify="right")
        table.add_column("Who pays")
        table.add_column("Range read", justify="right")
        table.add_column("Reads", justify="right")
        for period in periods:
            table.add_row(*_period_row(period))
        return table


def _signed_bps(value: Decimal | None) -> str:
    if value is None:
        return fmt.DASH
    return f"+{fmt.bps(value)}" if value > 0 else fmt.bps(value)


def _payer(rate: Decimal, *, short: bool = False) -> str:
    if rate > 0:
        return "longs pay" if short else "longs pay shorts"
    if rate < 0:
        return "shorts pay" if short else "shorts pay longs"
    return "none" if short else "nobody pays"


def _period_row(period: FundingPeriod) -> tuple[str, str, str, str, str]:
    span = f"{period.starts:%m-%d %H:%M}-{period.ends:%H:%M}"
    if period.low == period.high:
        seen = "steady"
    else:
        seen = f"{fmt.percent(period.low)} to {fmt.percent(period.high)}"
    return span, fmt.percent(period.rate), _payer(period.rate, short=True), seen, str(period.reads)
