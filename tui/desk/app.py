"""`DeskApp`: the terminal trading desk — panes, keys, command palette, themes, workers.

Data flows one way. The feed polls the venue and posts messages; the app files each snapshot in
the `DeskBook` and hands it to the panes. A key or a form asks for an action; the workflows
(`tui.desk.workflows`, the app's base class) confirm what needs confirming and start a worker, which
calls the client and posts `ActionFinished`.
Widgets never await the network, and one handler turns every failure into a toast and a stale
mark instead of a crash.

The first frame appears before anything is connected: connecting (starting the sandbox, syncing
the clock) runs in a worker, and the panes fill in as answers arrive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen, Screen
from textual.widgets import ContentSwitcher, DataTable, Footer, Input, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from tui.api.client import CallInfo, ServiceClient
from tui.api.endpoints import BUDGET_TOKENS
from tui.api.errors import ApiError
from tui.api.lifecycle import clearing_is_final
from tui.api.models import RFQStatus
from tui.api.stats import StatsClient
from tui.desk.book import DeskBook, NextStep, Role
from tui.desk.config import theme_dirs
from tui.desk.feed import Feed
from tui.desk.messages import (
    AssetsUpdated,
    BudgetChanged,
    ClockSynced,
    CompaniesUpdated,
    ConnectionChanged,
    ConnectionState,
    Direction,
    PollFailed,
    PoolsUpdated,
    PositionsUpdated,
    QuotesUpdated,
    RfqsUpdated,
    StatsUpdated,
    SummaryUpdated,
    Topic,
    TradesUpdated,
    TransfersUpdated,
)
from tui.desk.screens.help import HelpScreen
from tui.desk.session import Connection, Connector, SessionError
from tui.desk.themes import BUILTIN_THEMES, DESK_VARIABLES, load_user_themes, pick_theme
from tui.desk.widgets import fmt
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.keyed_table import KeyedTable
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import PaneAge, StatusBar
from tui.desk.widgets.trade_tracker import TradeTracker
from tui.desk.workflows import DeskWorkflows, while_running
from tui.paths import data_dir

Clock = Callable[[], datetime]

PANE_TOPICS: tuple[tuple[str, tuple[Topic, ...]], ...] = (
    ("inbox", (Topic.RFQS_RECEIVED, Topic.RFQS_SENT)),
    ("clearing", (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED)),
    ("book", (Topic.SUMMARY,)),
    ("pools", (Topic.POOLS, Topic.TRANSFERS, Topic.POSITIONS)),
    ("trades", (Topic.TRADES,)),
    ("market", (Topic.STATS,)),
)
"""Status-bar panes and the topics whose freshness they show."""

TAB_TOPICS: dict[str, set[Topic]] = {
    "trade": {Topic.RFQS_RECEIVED, Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED},
    "pools": {Topic.POOLS, Topic.TRANSFERS, Topic.POSITIONS},
    "blotter": {Topic.TRADES},
    "market": {Topic.STATS},
}
"""Topics polled fast while their tab is on screen."""


TAB_FOCUS: dict[str, str] = {
    "trade": "#inbox-table",
    "pools": "#pools-table",
    "blotter": "#blotter-table",
    "market": "#market-table",
}
"""The widget that takes the focus when a tab opens."""


class DeskApp(DeskWorkflows):
    """The RFQ Desk (see module docs)."""

    CSS_PATH = "desk.tcss"
    TITLE = "RFQ Desk"

    BINDINGS = [
        Binding("ctrl+k", "kill_switch", "KILL SWITCH", priority=True),
        Binding("n", "new_rfq", "New RFQ"),
        Binding("g", "next_action", "Next action"),
        Binding("ctrl+g", "next_action", "Next action", show=False, priority=True),
        Binding("ctrl+n", "new_rfq", "New RFQ", show=False, priority=True),
        Binding("e", "export", "Export CSV"),
        Binding("f5", "refresh", "Refresh"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("1", "show_tab('trade')", "Trade", show=False),
        Binding("2", "show_tab('pools')", "Pools", show=False),
        Binding("3", "show_tab('blotter')", "Trades", show=False),
        Binding("4", "show_tab('market')", "Market", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        connector: Connector,
        *,
        clock: Clock | None = None,
        auto_feed: bool = True,
        theme: str | None = None,
        export_dir: Path | None = None,
        user_theme_dirs: Iterable[Path] | None = None,
        client_factory: Callable[[Connection], ServiceClient] | None = None,
    ) -> None:
        super().__init__()
        self.connector = connector
        self.client_factory = client_factory
        self.book = DeskBook()
        self._fixed_clock = clock
        self.auto_feed = auto_feed
        self.export_dir = export_dir or data_dir() / "exports"
        self.connection: Connection | None = None
        self.client: ServiceClient | None = None
        self.stats_client: StatsClient | None = None
        self.feed: Feed | None = None
        self.connected = asyncio.Event()
        self._wallet_key: SecretStr | None = None
        self._waiting_on_me: set[str] = set()
        self._follow_rfq: str | None = None
        self._filed_rfqs = {}
        self._toasted_failures: set[Topic] = set()
        self._rfq_directions_seen: set[Direction] = set()
        for builtin in BUILTIN_THEMES.values():
            self.register_theme(builtin)
        loaded = load_user_themes(theme_dirs() if user_theme_dirs is None else user_theme_dirs)
        for user_theme in loaded.themes.values():
            self.register_theme(user_theme)
        self._theme_warnings = loaded.warnings
        self.theme = pick_theme(theme, self.available_themes)

    # -- theme ------------------------------------------------------------------------------

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Desk variables ($bid, $ask, $stale ...) for themes that do not define them."""
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Header, the four tabs, status bar, footer."""
        yield PortfolioHeader(id="header")
        with TabbedContent(initial="trade", id="tabs"):
            with TabPane("1 Trade", id="trade"):
                yield RfqInbox(self.book, self.clock, id="inbox")
                with Horizontal(id="trade-lower"):
                    yield TradeTracker(self.book, self.clock, id="tracker")
                    with ContentSwitcher(initial="ticket", id="right"):
                        yield QuoteTicket(self.book, self.clock, id="ticket")
                        yield QuoteBoard(self.book, self.clock, id="board")
            with TabPane("2 Pools", id="pools"):
                yield PoolsPane(self.book, self.clock, id="pools-pane")
            with TabPane("3 Trades", id="blotter"):
                yield Blotter(self.book, id="blotter-pane")
            with TabPane("4 Market", id="market"):
                yield MarketStatsPane(self.clock, id="market-pane")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        """Show who and where at once, then connect in the background."""
        header = self.query_one(PortfolioHeader)
        header.profile = self.connector.label
        header.sandbox = self.connector.sandbox
        for warning in self._theme_warnings:
            self.notify(warning, severity="warning")
        self.theme_changed_signal.subscribe(self, self._restyle)
        self.set_interval(1.0, self._refresh_ages, name="pane-ages")
        self._refresh_ages()
        self.query_one("#inbox-table").focus()
        self._connect()

    async def on_unmount(self) -> None:
        """Stop polling, close connections, stop a sandbox this desk started."""
        if self.feed is not None:
            await self.feed.stop()
        if self.client is not None:
            await self.client.aclose()
        if self.stats_client is not None:
            await self.stats_client.aclose()
        await self.connector.close()

    def _restyle(self, _theme: object) -> None:
        """A new theme: redraw the table cells coloured from theme variables."""
        inbox = self.query_one(RfqInbox)
        inbox.table.clear_rows()
        for direction in self._rfq_directions_seen:
            store = self.book.rfqs_received if direction == "received" else self.book.rfqs_sent
            inbox.show(direction, list(store.values()))
        blotter = self.query_one(Blotter)
        blotter.restyle()
        blotter.show_trades(self.book.trades)
        self.query_one(PoolsPane).pools_table.clear_rows()
        self.query_one(PoolsPane).show_pools()
        if self.book.stats is not None:
            market = self.query_one(MarketStatsPane)
            market.query_one(KeyedTable).clear_rows()
            market.show_stats(self.book.stats)

    # -- connecting -------------------------------------------------------------------------

    @work(group="session", exit_on_error=False)
    async def _connect(self) -> None:
        header = self.query_one(PortfolioHeader)
        header.detail = "starting the sandbox" if self.connector.sandbox else "connecting"
        try:
            connection = await self.connector.connect()
        except (SessionError, OSError) as error:
            header.state = ConnectionState.DISCONNECTED
            header.detail = "not connected"
            self.notify(str(error), title="Cannot connect", severity="error", timeout=30)
            return
        self.connection = connection
        self.book.me = connection.company_id
        header.company = connection.short_name or "…"
        header.detail = ""
        if self.client_factory is not None:
            self.client = self.client_factory(connection)
            self.client.on_call = self._on_call
        else:
            self.client = ServiceClient(
                connection.base_url,
                connection.api_key,
                connection.api_secret,
                on_call=self._on_call,
            )
        if connection.stats_base_url:
            self.stats_client = StatsClient(connection.stats_base_url)
        self.feed = Feed(self.client, self.post_message, clock=self.clock, stats=self.stats_client)
        self._update_hot()
        try:
            await self.client.sync_clock()
        except ApiError as error:
            self.notify(f"clock sync failed: {error}", severity="warning")
        self.connected.set()
        if self.auto_feed:
            self.run_worker(self.feed.run(), name="feed", group="feed", exit_on_error=False)

    def _on_call(self, info: CallInfo) -> None:
        self.post_message(
            BudgetChanged(
                info.tokens_used, BUDGET_TOKENS, round(info.latency_ms), info.clock_offset_ms
            )
        )

    async def wait_connected(self) -> Feed:
        """Wait until the session is connected; the feed (tests and scripts use this)."""
        await self.connected.wait()
        assert self.feed is not None
        return self.feed

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one error handler: a failed worker is a toast, never a crash."""
        if event.state is not WorkerState.ERROR:
            return
        error = event.worker.error
        self.notify(f"{event.worker.name}: {error}", title="Action failed", severity="error")

    # -- the feed's messages ----------------------------------------------------------------

    @while_running
    async def on_rfqs_updated(self, message: RfqsUpdated) -> None:
        """File RFQs; refresh the inbox, the ticket or board, the tracker."""
        self._rfq_directions_seen.add(message.direction)
        store = self.book.rfqs_received if message.direction == "received" else self.book.rfqs_sent
        rfqs = message.rfqs
        if message.direction == "sent":
            rfqs = self.with_filed(rfqs)
        store.clear()
        store.update({r.rfq_id: r for r in rfqs})
        inbox = self.query_one(RfqInbox)
        inbox.show(message.direction, rfqs)
        if message.direction == "sent" and self._follow_rfq in store:
            # The RFQ just sent: its row, and the board where its quotes will come in.
            inbox.select("sent", self._follow_rfq)
            self._follow_rfq = None
        await self._show_selected_rfq()
        self.query_one(TradeTracker).refresh_trades()
        self._update_hot()
        self._refresh_ages()

    @while_running
    async def on_quotes_updated(self, message: QuotesUpdated) -> None:
        """File quotes; the tracker follows, and a new trade waiting for me rings."""
        store = self.book.quotes_sent if message.direction == "sent" else self.book.quotes_received
        store.clear()
        store.update({q.parent_quote_id: q for q in message.quotes})
        self.query_one(TradeTracker).refresh_trades()
        await self._show_selected_rfq()
        self._announce_waiting()
        self._update_hot()
        self._refresh_ages()

    @while_running
    def on_trades_updated(self, message: TradesUpdated) -> None:
        """File trades; the blotter adds what is new."""
        self.book.trades = message.trades
        self.query_one(Blotter).show_trades(message.trades)
        self._refresh_ages()

    @while_running
    def on_transfers_updated(self, message: TransfersUpdated) -> None:
        """File transfers; the pools pane shows the selected pool's."""
        self.book.transfers = message.transfers
        self.query_one(PoolsPane).show_detail()
        self._refresh_ages()

    @while_running
    def on_positions_updated(self, message: PositionsUpdated) -> None:
        """File positions; the pools pane shows the selected pool's."""
        self.book.positions = message.positions
        self.query_one(PoolsPane).show_detail()
        self._refresh_ages()

    @while_running
    def on_pools_updated(self, message: PoolsUpdated) -> None:
        """File pools; the pools pane and the ticket's pool choices follow."""
        self.book.pools = {p.pool_id: p for p in message.pools}
        self.query_one(PoolsPane).show_pools()
        self.query_one(QuoteTicket).refresh_pools()
        self._refresh_ages()

    @while_running
    def on_summary_updated(self, message: SummaryUpdated) -> None:
        """The header's portfolio line."""
        self.book.summary = message.summary
        self.query_one(PortfolioHeader).summary = message.summary
        self._refresh_ages()

    @while_running
    def on_stats_updated(self, message: StatsUpdated) -> None:
        """The market pane (and the marks the ticket prefills from)."""
        self.book.stats = message.stats
        if message.stats is not None:
            self.query_one(MarketStatsPane).show_stats(message.stats)
        self._refresh_ages()

    @while_running
    def on_companies_updated(self, message: CompaniesUpdated) -> None:
        """Company names everywhere: redraw what shows them."""
        known = set(self.book.companies)
        self.book.companies = {c.id: c for c in message.companies}
        if set(self.book.companies) != known:
            self.query_one(PoolsPane).show_pools()
            self.query_one(Blotter).show_trades(self.book.trades)
            self.query_one(TradeTracker).refresh_trades()
            inbox = self.query_one(RfqInbox)
            for direction in self._rfq_directions_seen:
                store = self.book.rfqs_received if direction == "received" else self.book.rfqs_sent
                inbox.show(direction, list(store.values()))
        me = self.book.my_company
        if me is not None:
            self.query_one(PortfolioHeader).company = f"{me.short_name} · {me.legal_name}"

    @while_running
    def on_assets_updated(self, message: AssetsUpdated) -> None:
        """Underlyings for the structure builder."""
        self.book.assets = message.assets

    @while_running
    def on_clock_synced(self, message: ClockSynced) -> None:
        """Latency, offset, and who the venue says I am."""
        status = self.query_one(StatusBar)
        status.latency_ms = message.latency_ms
        status.offset_ms = message.offset_ms
        if message.company_id and self.book.me is None:
            self.book.me = message.company_id

    @while_running
    def on_budget_changed(self, message: BudgetChanged) -> None:
        """Tokens used, latency and offset of the last call."""
        status = self.query_one(StatusBar)
        status.tokens_used = message.used
        if message.latency_ms is not None:
            status.latency_ms = message.latency_ms
        if message.offset_ms is not None:
            status.offset_ms = message.offset_ms

    @while_running
    def on_connection_changed(self, message: ConnectionChanged) -> None:
        """The header's link state; a toast when it breaks or comes back."""
        header = self.query_one(PortfolioHeader)
        header.state = message.state
        header.detail = message.detail[:40]
        if message.state is ConnectionState.DISCONNECTED:
            self.notify(message.detail or "lost the venue", title="Disconnected", severity="error")
        elif message.state is ConnectionState.CONNECTED and self._toasted_failures:
            self._toasted_failures.clear()
            self.notify("connected again", title="Venue")

    @while_running
    def on_poll_failed(self, message: PollFailed) -> None:
        """Mark the pane stale (status bar) and toast once per failure streak."""
        if message.topic not in self._toasted_failures:
            self._toasted_failures.add(message.topic)
            self.notify(message.error, title=f"{message.topic} is stale", severity="warning")
        self._refresh_ages()

    def _refresh_ages(self) -> None:
        if not self.is_running:
            return
        feed = self.feed
        now = self.clock()
        ages = []
        for pane, topics in PANE_TOPICS:
            if feed is None:
                ages.append(PaneAge(pane, None, False))
                continue
            topics = tuple(t for t in topics if t in feed.topics)
            if not topics:
                continue
            # The age shown is that of the data that should be freshest: the hot topics of
            # the pane when it has any (a cold companion topic would always look old).
            shown = [t for t in topics if t in feed.hot] or list(topics)
            known = [feed.last_ok[t] for t in shown if t in feed.last_ok]
            age = (now - min(known)).total_seconds() if len(known) == len(shown) else None
            stale = any(feed.is_stale(t, now) for t in topics)
            ages.append(PaneAge(pane, age, stale))
        status = self.query_one(StatusBar)
        status.ages = tuple(ages)
        if self.client is not None:
            # Tokens leave the window as time passes, polls or not.
            status.tokens_used = self.client.budget.used()
        for topic in list(self._toasted_failures):
            if feed is not None and topic not in feed.failing:
                self._toasted_failures.discard(topic)

    # -- what polls fast --------------------------------------------------------------------

    def _update_hot(self) -> None:
        if self.feed is None:
            return
        tab = self.query_one(TabbedContent).active or "trade"
        hot = set(TAB_TOPICS.get(tab, set()))
        if tab == "trade" and any(
            r.rfq_status == RFQStatus.OPEN for r in self.book.rfqs_sent.values()
        ):
            hot.add(Topic.RFQS_SENT)
        for trade in self.book.tracked_trades():
            if not clearing_is_final(trade.status):
                hot.add(Topic.QUOTES_SENT if trade.role is Role.MAKER else Topic.QUOTES_RECEIVED)
        self.feed.set_hot(hot)

    @on(TabbedContent.TabActivated)
    def _tab_changed(self) -> None:
        self._update_hot()
        # The keys of a tab work at once: its main table takes the focus.
        main = TAB_FOCUS.get(self.query_one(TabbedContent).active or "")
        if main is not None and not isinstance(self.screen, ModalScreen):
            self.query_one(main).focus()

    # -- the inbox and the right-hand panel -------------------------------------------------

    async def on_rfq_inbox_selected(self, message: RfqInbox.Selected) -> None:
        """Show the ticket (received RFQ) or the quote board (sent RFQ)."""
        await self._show_selected_rfq()

    def on_rfq_inbox_arrived(self, message: RfqInbox.Arrived) -> None:
        """A new RFQ: bell and toast."""
        self.bell()
        names = ", ".join(
            self.book.company_name(r.taker_company)
            for r in (self.book.rfqs_received.get(i) for i in message.rfq_ids)
            if r is not None
        )
        self.notify(f"new RFQ from {names or 'a taker'}", title="RFQ in")

    async def _show_selected_rfq(self) -> None:
        selected = self.query_one(RfqInbox).selected
        switcher = self.query_one("#right", ContentSwitcher)
        ticket = self.query_one(QuoteTicket)
        board = self.query_one(QuoteBoard)
        if selected is None:
            await ticket.show_rfq(None)
            return
        direction, rfq_id = selected
        if direction == "received":
            switcher.current = "ticket"
            await ticket.show_rfq(self.book.rfqs_received.get(rfq_id))
        else:
            switcher.current = "board"
            board.show_rfq(self.book.rfqs_sent.get(rfq_id))

    @on(DataTable.RowSelected, "#inbox-table")
    def _inbox_enter(self) -> None:
        """Enter on an RFQ: go to its ticket or its quotes."""
        selected = self.query_one(RfqInbox).selected
        if selected is None:
            return
        if selected[0] == "received":
            inputs = self.query_one(QuoteTicket).query(Input)
            if inputs:
                inputs.first().focus()
        else:
            self.query_one("#board-table").focus()

    # -- navigation ---------------------------------------------------------------------------

    def action_show_tab(self, tab: str) -> None:
        """Switch tab."""
        self.query_one(TabbedContent).active = tab
        self._update_hot()

    def action_focus_inbox(self) -> None:
        """Back to the RFQ inbox (escape from the board, the tracker, another tab)."""
        if self.query_one(TabbedContent).active != "trade":
            self.action_show_tab("trade")
        self.query_one("#inbox-table").focus()

    def action_next_action(self) -> None:
        """Go to the most urgent trade waiting for me."""
        waiting = self.book.needs_me()
        if not waiting:
            self.notify("nothing waits for you")
            return
        self.action_show_tab("trade")
        tracker = self.query_one(TradeTracker)
        tracker.select(waiting[0].key)
        tracker.options.focus()

    def action_refresh(self) -> None:
        """Poll everything now (within the budget)."""
        if self.feed is not None:
            self.feed.kick(*self.feed.topics)

    def action_help(self) -> None:
        """Keys and workflows."""
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: Textual's commands plus every desk action."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("New RFQ", "Open the structure builder", self.action_new_rfq)
        yield SystemCommand(
            "Kill switch", "Cancel all quotes and open RFQs (asks first)", self.action_kill_switch
        )
        yield SystemCommand("Export CSV", "Trades and transfers of the view", self.action_export)
        yield SystemCommand(
            "Next action", "Go to the trade waiting for you", self.action_next_action
        )
        yield SystemCommand("Refresh all", "Poll everything now", self.action_refresh)
        yield SystemCommand("Create pool", "Open a settlement pool", self._palette_create_pool)
        for tab, title in (
            ("trade", "Trade"),
            ("pools", "Pools"),
            ("blotter", "Trades"),
            ("market", "Market"),
        ):
            yield SystemCommand(
                f"Show {title} tab",
                f"Switch to the {title} tab",
                lambda t=tab: self.action_show_tab(t),
            )
        yield SystemCommand("Desk help", "Keys and workflows", self.action_help)

    def _palette_create_pool(self) -> None:
        self.on_pools_pane_create_pool(PoolsPane.CreatePool())

    def _announce_waiting(self) -> None:
        waiting = {t.key: t for t in self.book.needs_me()}
        fresh = [t for key, t in waiting.items() if key not in self._waiting_on_me]
        self._waiting_on_me = set(waiting)
        for trade in fresh:
            self.bell()
            what = "LAST LOOK" if trade.next_step is NextStep.LAST_LOOK else "DEPOSIT APPROVAL"
            self.notify(
                f"{what} on RFQ {fmt.short_id(trade.quote.target_rfq_id)} — press g",
                title="Your move",
                severity="warning",
            )
