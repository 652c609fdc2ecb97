"""The panes seen from the app: what each filed snapshot or action outcome redraws, and the bell.

The app files every message in the book first (`DeskBook.apply`); `DeskPanes` then hands the
book's data to the panes that show it, keeps the ticket or the board on the RFQ under the
cursor, sends an action's outcome to the pane (or the waiting form) it concerns, shows the
link's health (tokens, freshness, connection), and alerts when something needs the trader: a
new RFQ, a last look, a deposit to approve, a booking, a rejection (`tui.desk.alerts`, once per
record, in the ways config.toml's ``[alerts]`` switches on).

A tab not on screen is not drawn for: the Pools, Trades, Market, Positions and History panes
are built the first time their tab is shown (`tui.desk.layout.tab_pane`), and what arrives for
them while their tab is hidden only marks them behind; `show_tab` hands them the book's current
data when they come on screen. The trader never sees a pane older than the book.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual.app import App
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Input, TabbedContent

from tui.desk.alert_settings import AlertSettings
from tui.desk.alerts import Alerts
from tui.desk.later_tabs import LaterTabs
from tui.desk.layout import quote_board, quote_ticket
from tui.desk.messages import (
    ActionKind,
    ActionOutcome,
    AggregatedPositionsUpdated,
    BudgetChanged,
    ClockSynced,
    CompaniesUpdated,
    ConnectionChanged,
    ConnectionState,
    Direction,
    FreshnessChanged,
    PollFailed,
    PoolsUpdated,
    PositionsUpdated,
    QuotesUpdated,
    RfqsUpdated,
    Snapshot,
    StatsUpdated,
    SummaryUpdated,
    TradesUpdated,
    TransfersUpdated,
)
from tui.desk.outcomes import show_outcome
from tui.desk.stale_marks import StaleMarks
from tui.desk.widgets.attention import Attention
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar
from tui.desk.widgets.trade_tracker import TradeTracker

if TYPE_CHECKING:
    from tui.api.models import RFQ
    from tui.desk.book import DeskBook
    from tui.desk.widgets.blotter import Blotter
    from tui.desk.widgets.market_stats import MarketStatsPane
    from tui.desk.widgets.pools import PoolsPane
    from tui.desk.widgets.positions import PositionsPane

Handler = TypeVar("Handler", bound=Callable[..., Any])

LinkNews = BudgetChanged | FreshnessChanged | ConnectionChanged | PollFailed
"""How the link to the venue is doing: tokens, freshness, connection, failed polls."""


def while_running(handler: Handler) -> Handler:
    """Drop a message that arrives while the desk shuts down (its panes are gone)."""

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def guarded_async(self: App[Any], message: Any) -> None:
            if self.is_running:
                await handler(self, message)

        return guarded_async  # type: ignore[return-value]

    @functools.wraps(handler)
    def guarded(self: App[Any], message: Any) -> None:
        if self.is_running:
            handler(self, message)

    return guarded  # type: ignore[return-value]


class DeskPanes:
    """Hands the book to the panes after each message (see module docs)."""

    def __init__(
        self,
        app: App[Any],
        book: DeskBook,
        clock: Callable[[], datetime],
        alert_settings: AlertSettings | None = None,
    ) -> None:
        self.app = app
        self.book = book
        self.clock = clock
        self.alerts = Alerts(alert_settings, since=clock())
        """What rings, flashes and toasts, once per record (`tui.desk.alerts`)."""
        self._directions_seen: set[Direction] = set()
        self._companies_shown: set[str] = set()
        self.tabs = LaterTabs(app, book, clock)
        self.stale_marks = StaleMarks(app)
        self.valued_at: datetime | None = None
        """When the venue last valued the positions (its aggregated read); None: never yet."""

    async def show_tab(self, tab: str) -> None:
        """A tab coming on screen: built the first time, handed what it missed (`LaterTabs`)."""
        await self.tabs.show(tab)
        self.stale_marks.show_all()  # a pane just built carries its mark at once
        if tab == "positions" and (positions := self.tabs.positions) is not None:
            positions.show_valued_at(self.valued_at)  # valued while hidden, or not yet

    # -- the desk's second -----------------------------------------------------------------

    @property
    def pools_pane(self) -> PoolsPane | None:
        """The pools pane, once its tab was shown."""
        return self.tabs.pools_pane

    def tick(self) -> None:
        """Every second, everything that moves with the clock, at once: the redraws of one
        second land in one frame (a frame draws every pane between the changes it shows)."""
        self.app.query_one(TradeTracker).tick()
        quote_ticket(self.app).tick()
        quote_board(self.app).tick()
        self.app.query_one(RfqInbox).tick()
        self.app.query_one(Attention).tick()
        market = self.tabs.market
        if market is not None and self.app.query_one(TabbedContent).active == "market":
            market.tick()

    # -- snapshots --------------------------------------------------------------------------

    async def show(self, snapshot: Snapshot) -> None:
        """A snapshot the book has just filed: to the panes that show it."""
        if isinstance(snapshot, RfqsUpdated):
            await self.rfqs(snapshot.direction, snapshot.arrived)
        elif isinstance(snapshot, QuotesUpdated):
            await self.quotes()
        elif isinstance(snapshot, TradesUpdated):
            self.trades()
            self.tabs.show_positions()  # realised P&L
        elif isinstance(snapshot, TransfersUpdated | PositionsUpdated):
            self.pool_detail()
            if isinstance(snapshot, PositionsUpdated):
                self.tabs.show_positions()
        elif isinstance(snapshot, AggregatedPositionsUpdated):
            self.valued_at = snapshot.at
            self.tabs.show_positions()
            if (pane := self.tabs.on_screen("positions")) is not None:
                cast("PositionsPane", pane).show_valued_at(snapshot.at)
        elif isinstance(snapshot, PoolsUpdated):
            self.pools()
        elif isinstance(snapshot, SummaryUpdated):
            self.app.query_one(PortfolioHeader).show_summary(self.book.summary, snapshot.at)
        elif isinstance(snapshot, StatsUpdated):
            self.stats()
        elif isinstance(snapshot, CompaniesUpdated):
            self.companies()
        elif isinstance(snapshot, ClockSynced):  # drawn with the next second's ages
            self.app.query_one(StatusBar).show_clock(snapshot.latency_ms, snapshot.offset_ms)

    async def rfqs(
        self, direction: Direction, arrived: Sequence[str] = (), follow: str | None = None
    ) -> None:
        """RFQs of one direction: the inbox (flashing what arrived), the ticket or board, the
        tracker, the history; ``follow`` puts the cursor on an RFQ just sent (its quotes come
        there). A new RFQ alerts."""
        self._directions_seen.add(direction)
        inbox = self.app.query_one(RfqInbox)
        inbox.show(direction, list(self._store(direction).values()), arrived)
        if follow is not None:
            inbox.select(direction, follow)
        await self.show_selected_rfq()
        self.app.query_one(TradeTracker).refresh_trades()
        self.tabs.show_history()
        self.alerts.ring(self.app, self.book, self.clock())

    async def quotes(self) -> None:
        """Quotes: the tracker follows, the board re-prices, the history follows, a trade
        waiting for me, booked or rejected alerts; the inbox shows an RFQ closed once the book
        saw its trade booked."""
        self._redraw_inbox()
        self.app.query_one(TradeTracker).refresh_trades()
        await self.show_selected_rfq()
        self.tabs.show_history()
        self.app.query_one(Attention).tick()
        self.alerts.ring(self.app, self.book, self.clock())

    def trades(self) -> None:
        """The blotter adds what is new (when on screen)."""
        if (blotter := self.tabs.on_screen("blotter")) is not None:
            cast("Blotter", blotter).show_trades(self.book.trade_legs)

    def pool_detail(self) -> None:
        """Transfers or positions: the pools pane shows the selected pool's (when on screen)."""
        if (pools := self.tabs.on_screen("pools")) is not None:
            cast("PoolsPane", pools).show_detail()

    def pools(self) -> None:
        """Pools: the ticket's pool choices; the pools pane and the blotter's pool names
        (when on screen)."""
        quote_ticket(self.app).refresh_pools()
        if (pools := self.tabs.on_screen("pools")) is not None:
            cast("PoolsPane", pools).show_pools()
        for tab in ("blotter", "positions"):  # pool names
            if (pane := self.tabs.on_screen(tab)) is not None:
                cast("Blotter | PositionsPane", pane).invalidate()

    def stats(self) -> None:
        """The market pane, when on screen, and a listing's detail, when open (the ticket
        reads its marks from the book when it prefills)."""
        market = self.tabs.on_screen("market")
        stats = self.book.stats
        if market is not None and stats is not None:
            cast("MarketStatsPane", market).show_stats(stats)
        if stats is not None and isinstance(self.app.screen, ModalScreen):
            from tui.desk.screens.listing_detail import ListingDetail  # loaded with the detail

            if isinstance(screen := self.app.screen, ListingDetail):
                screen.show_stats(stats)

    def companies(self) -> None:
        """Company names everywhere: redraw what shows them when the set changed."""
        known = set(self.book.companies)
        if known != self._companies_shown:
            self._companies_shown = known
            self.tabs.names_changed()
            self.app.query_one(TradeTracker).refresh_trades()
            self._redraw_inbox()
        me = self.book.my_company
        if me is not None:
            self.app.query_one(PortfolioHeader).company = f"{me.short_name} · {me.legal_name}"

    def link(self, news: LinkNews) -> None:
        """The status bar and the header's link state; a toast when something broke or healed.

        The feed decides what is news (the first failure of a streak, the link coming back);
        this only shows it.
        """
        self.stale_marks.link(news)  # every pane's stale or offline mark
        if isinstance(news, BudgetChanged):
            self.app.query_one(StatusBar).show_call(news.used, news.latency_ms, news.offset_ms)
        elif isinstance(news, FreshnessChanged):
            self.app.query_one(StatusBar).show_freshness(news.ages, news.tokens_used)
            self.app.query_one(PortfolioHeader).show_freshness(news.ages)
            self.app.query_one(Attention).show_freshness(news.ages)
        elif isinstance(news, ConnectionChanged):
            header = self.app.query_one(PortfolioHeader)
            header.state = news.state
            header.detail = news.detail[:40]
            if news.state is ConnectionState.DISCONNECTED:
                self.app.notify(
                    news.detail or "lost the venue", title="Disconnected", severity="error"
                )
            elif news.recovered:
                self.app.notify("connected again", title="Venue")
        elif news.news:
            self.app.notify(news.error, title=f"{news.topic} is stale", severity="warning")

    def restyle(self) -> None:
        """A new theme: redraw the table cells coloured from theme variables."""
        self.app.query_one(RfqInbox).invalidate()
        self._redraw_inbox()
        self.tabs.restyle()

    def _store(self, direction: Direction) -> dict[str, RFQ]:
        return self.book.rfqs_received if direction == "received" else self.book.rfqs_sent

    def _redraw_inbox(self) -> None:
        inbox = self.app.query_one(RfqInbox)
        for direction in self._directions_seen:
            inbox.show(direction, list(self._store(direction).values()))

    # -- the inbox and the right-hand panel -------------------------------------------------

    async def show_selected_rfq(self) -> None:
        """The ticket for a received RFQ under the cursor, the quote board for a sent one."""
        selected = self.app.query_one(RfqInbox).selected
        switcher = self.app.query_one("#right", ContentSwitcher)
        ticket = quote_ticket(self.app)
        if selected is None:
            await ticket.show_rfq(None)
            return
        direction, rfq_id = selected
        if direction == "received":
            switcher.current = "ticket"
            await ticket.show_rfq(self.book.rfqs_received.get(rfq_id))
        else:
            switcher.current = "board"
            quote_board(self.app).show_rfq(self.book.rfqs_sent.get(rfq_id))

    def view_row(self, table: Widget, fields: list[tuple[str, str]]) -> None:
        """``v`` on a table row: every cell of it, whole, titled after the pane it is in."""
        from tui.desk.screens.record import RowScreen

        titles = (getattr(node, "border_title", None) for node in table.ancestors_with_self)
        title = next((t for t in titles if t), None) or "Row"
        self.app.push_screen(RowScreen(str(title), fields))

    def enter_selected_rfq(self) -> None:
        """Enter on an RFQ: go to its ticket (first price field) or its quotes."""
        selected = self.app.query_one(RfqInbox).selected
        if selected is None:
            return
        if selected[0] == "received":
            inputs = quote_ticket(self.app).query(Input)
            if inputs:
                inputs.first().focus()
        else:
            self.app.query_one("#board-table").focus()

    # -- outcomes ---------------------------------------------------------------------------

    async def outcome(self, outcome: ActionOutcome) -> None:
        """An action came back: to the form that waits for it, a toast, and the panes it
        concerns (`tui.desk.outcomes`)."""
        await show_outcome(self, outcome)

    async def records_moved(self, outcome: ActionOutcome) -> None:
        """My action's answer, filed in the book: every pane that shows the record, at once.

        The inbox, the ticket or board, and the tracker (which follows the trade an accept or
        a last look moved on); the next poll only confirms what they show.
        """
        self._redraw_inbox()
        await self.show_selected_rfq()
        tracker = self.app.query_one(TradeTracker)
        tracker.refresh_trades()
        quote_id = outcome.ids.quote_id
        if quote_id is not None and outcome.kind in (ActionKind.ACCEPT_QUOTE, ActionKind.LAST_LOOK):
            tracker.select(quote_id)
        self.app.query_one(Attention).tick()
        self.alerts.ring(self.app, self.book, self.clock())
