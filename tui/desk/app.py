"""`DeskApp`: the terminal trading desk — panes, keys, command palette, themes, and the routing.

Data flows one way. The feed polls the venue and posts messages; the app files each in the
`DeskBook` and the `DeskPanes` hand the book to the panes. A key, the palette or a pane asks a
role (`tui.desk.roles`: taker, maker, pools, safety) for an action; the role confirms what needs
confirming and its runner calls the client in a worker and posts an `ActionOutcome`, which is
filed in the book, shown by the pane it concerns, and tells the feed what to poll again. The app
itself only routes: it holds no trading logic and no feed policy.
Widgets never await the network, and every failure is a toast and a stale mark, never a crash.

The first frame appears before anything is connected: connecting (starting the sandbox, syncing
the clock) runs in a worker, and the panes fill in as answers arrive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.screen import ModalScreen, Screen
from textual.widgets import TabbedContent
from textual.worker import Worker, WorkerState

from tui.desk.alert_settings import AlertSettings
from tui.desk.book import DeskBook
from tui.desk.changed_frame import ChangedFrameScreen
from tui.desk.config import theme_dirs
from tui.desk.fitting import fit_terminal, follow_focus, is_narrow, show_tracker
from tui.desk.guardrails import GuardrailSettings
from tui.desk.keymap import DeskKeymap
from tui.desk.keys import DESK_BINDINGS, PALETTE, TAB_FOCUS
from tui.desk.layout import desk_layout
from tui.desk.messages import (
    ActionOutcome,
    ActionRequest,
    BudgetChanged,
    ConnectionChanged,
    FreshnessChanged,
    PollFailed,
    Snapshot,
    Topic,
)
from tui.desk.panes import DeskPanes, LinkNews, while_running
from tui.desk.role_set import RoleSet
from tui.desk.roles.journals import history_path_for, journal_path_for
from tui.desk.routing import pools_problem, route
from tui.desk.screen_set import ScreenSet
from tui.desk.session import Connection, Connector
from tui.desk.start_up import StartUp
from tui.desk.themes import BUILTIN_THEMES, DESK_VARIABLES, load_user_themes, pick_theme
from tui.desk.typeahead import Replay, TypeAhead
from tui.desk.venue_link import VenueLink
from tui.desk.widgets.common.keyed_table import KeyedTable
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker
from tui.paths import data_dir

if TYPE_CHECKING:  # the client and the feed load while connecting
    from tui.api.client import ServiceClient
    from tui.desk.feed.scheduler import Feed
    from tui.desk.roles.writes import DeskWrites

Clock = Callable[[], datetime]


class DeskApp(RoleSet, ScreenSet, App[None]):
    """The RFQ Desk (see module docs); its roles come from `RoleSet`, built at first use, and
    the screens it opens from `ScreenSet`."""

    CSS_PATH = "desk.tcss"
    TITLE = "RFQ Desk"

    BINDINGS = DESK_BINDINGS
    desk_keymap = DeskKeymap()  # the keys in force: `tui.desk.keymap.use_keymap` sets it

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
        journal_path: Path | None = None,
        guardrails: GuardrailSettings | None = None,
        alert_settings: AlertSettings | None = None,
    ) -> None:
        super().__init__()
        self.guardrails = guardrails or GuardrailSettings()  # config.toml's [guardrails]
        self.alert_settings = alert_settings or AlertSettings()  # and its [alerts]
        self._fixed_clock = clock
        self.export_dir = export_dir or data_dir() / "exports"
        self.book = DeskBook(history_path=history_path_for(self.export_dir.parent, connector.label))
        self.link = VenueLink(
            self,
            connector,
            self.book,
            self.clock,
            journal_path=journal_path or journal_path_for(self.export_dir.parent, connector.label),
            auto_feed=auto_feed,
            client_factory=client_factory,
        )
        self.panes = DeskPanes(self, self.book, self.clock, self.alert_settings)
        self.type_ahead = TypeAhead(self)
        self.start_up = StartUp(self)
        for builtin in BUILTIN_THEMES.values():
            self.register_theme(builtin)
        loaded = load_user_themes(theme_dirs() if user_theme_dirs is None else user_theme_dirs)
        for user_theme in loaded.themes.values():
            self.register_theme(user_theme)
        self._theme_warnings = loaded.warnings
        self.theme = pick_theme(theme, self.available_themes)

    @property
    def writes(self) -> DeskWrites:
        """The desk's writes and journal: the link's, built at their first use."""
        return self.link.writes

    @writes.setter
    def writes(self, writes: DeskWrites) -> None:
        self.link.writes = writes

    def clock(self) -> datetime:
        """Now, as the venue sees it: the injected clock, else local time plus server offset."""
        if self._fixed_clock is not None:
            return self._fixed_clock()
        if self.client is not None:
            return datetime.fromtimestamp(self.client.clock.now_ms() / 1000, tz=UTC)
        return datetime.now(UTC)

    # -- the venue, through the link ---------------------------------------------------------

    @property
    def connection(self) -> Connection | None:
        """The session's connection, once connected."""
        return self.link.connection

    @property
    def client(self) -> ServiceClient | None:
        """The signed client the roles act through, once connected."""
        return self.link.client

    @property
    def feed(self) -> Feed | None:
        """The feed polling the venue, once connected."""
        return self.link.feed

    @property
    def connected(self) -> asyncio.Event:
        """Set while the venue answers."""
        return self.link.connected

    async def wait_connected(self) -> Feed:
        """Wait until the session is connected; the feed (tests and scripts use this)."""
        return await self.link.wait_connected()

    def poll_soon(self, *topics: Topic) -> None:
        """Ask the feed for these topics as soon as the budget allows (roles use this)."""
        self.link.poll_soon(*topics)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Desk variables ($bid, $ask, $stale ...) for themes that do not define them."""
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    # -- layout -----------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        """The main screen, whose frames draw only the widgets under what changed."""
        return ChangedFrameScreen(id="_default")

    def compose(self) -> ComposeResult:
        """Header, the six tabs, status bar, footer (`tui.desk.layout`): the first frame."""
        yield from desk_layout(self.book, self.clock)

    def on_load(self) -> None:
        """Look for the venue (or start the sandbox) while the first frame is drawn."""
        self.link.reach()

    def on_mount(self) -> None:
        """Show who and where at once; then the rest of the desk, then connect
        (`tui.desk.start_up`)."""
        header = self.query_one(PortfolioHeader)
        header.profile = self.link.connector.label
        header.sandbox = self.link.connector.sandbox
        for warning in [*self._theme_warnings, *self.desk_keymap.warnings]:
            self.notify(warning, severity="warning")
        self.theme_changed_signal.subscribe(self, lambda _theme: self.panes.restyle())
        self.link.tick_freshness()
        fit_terminal(self, self.size.width, self.size.height)
        self.query_one("#inbox-table").focus()
        self.run_worker(self._come_up(), name="start-up", group="start-up")
        self.link.connect(after=self.start_up.drawn, whole=self.start_up.whole)

    async def _come_up(self) -> None:
        await self.start_up.run()
        self.set_interval(1.0, self._every_second, name="desk-second")  # every part is there

    def _every_second(self) -> None:
        if not self.is_running:
            return  # the desk is closing: its panes are going
        self.link.tick_freshness()  # the panes' ages: the feed posts them
        # The countdowns move once the ages are shown, so the second is drawn in one frame.
        self.call_later(self._tick_countdowns)

    def _tick_countdowns(self) -> None:
        if self.is_running:
            self.panes.tick()

    async def on_unmount(self) -> None:
        """Stop polling, close connections, stop a sandbox this desk started."""
        await self.link.close()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one error handler: a failed worker is a toast, never a crash."""
        if event.state is not WorkerState.ERROR:
            return
        error = event.worker.error
        self.notify(f"{event.worker.name}: {error}", title="Action failed", severity="error")

    # -- the feed's messages: file, then show -----------------------------------------------

    @on(Snapshot)
    @while_running
    async def _file_snapshot(self, snapshot: Snapshot) -> None:
        self.book.apply(snapshot)
        await self.panes.show(snapshot)

    @on(BudgetChanged)
    @on(FreshnessChanged)
    @on(ConnectionChanged)
    @on(PollFailed)
    @while_running
    def _show_link(self, news: LinkNews) -> None:
        self.panes.link(news)

    # -- actions: to the roles, and back ----------------------------------------------------

    @while_running
    async def on_action_outcome(self, outcome: ActionOutcome) -> None:
        """File what the venue answered, poll what the action changed, show how it ended."""
        self.book.apply(outcome)
        self.maker.filed(outcome)
        self.link.after_action(outcome)
        await self.panes.outcome(outcome)

    @on(ActionRequest)
    def _ask_a_role(self, ask: ActionRequest) -> None:
        route(self, ask)  # each pane's request, to the role that does it (`tui.desk.routing`)

    @on(KeyedTable.ViewRow)
    @on(VirtualTable.ViewRecord)
    def _view_row(self, ask: KeyedTable.ViewRow | VirtualTable.ViewRecord) -> None:
        """``v`` on a table row: every cell of it, whole."""
        self.panes.view_row(ask.table, ask.fields)

    def action_new_rfq(self) -> None:
        """Open the structure builder."""
        self.taker.open_builder()

    async def action_quit(self) -> None:
        """Quit; asked first while a trade waits for my action (`tui.desk.roles.quitting`)."""
        from tui.desk.roles.quitting import quit_or_ask

        quit_or_ask(self)

    def action_kill_switch(self) -> None:
        """Confirm once, then cancel every quote and every open RFQ."""
        self.safety.kill_switch()

    def action_create_pool(self) -> None:
        """Open the new-pool form (the pools pane's ``c``, and the palette)."""
        pools_problem(self, self.pools.create_pool())

    def action_export(self) -> None:
        """Write the trades and transfers of the view (the selected pool's, on Pools) as CSV."""
        on_pools = self.query_one(TabbedContent).active == "pools"
        pools = self.panes.pools_pane if on_pools else None
        self.safety.export(pools.selected_pool_id if pools is not None else None)

    # -- the inbox, tabs and navigation -----------------------------------------------------

    async def on_rfq_inbox_selected(self, message: RfqInbox.Selected) -> None:
        """Show the ticket (received RFQ) or the quote board (sent RFQ), in the cursor's frame."""
        await self.panes.show_selected_rfq()
        message.shown()

    @on(VirtualTable.RecordSelected, "#inbox-table")
    def _inbox_enter(self) -> None:
        """Enter on an RFQ: go to its ticket or its quotes."""
        self.panes.enter_selected_rfq()

    @on(VirtualTable.RecordSelected, "#market-table")
    def _open_listing(self, chosen: VirtualTable.RecordSelected) -> None:
        """Enter on a listing of the Market tab: its detail."""
        self.open_listing(chosen.record_id)

    @on(TabbedContent.TabActivated)
    async def _tab_changed(self) -> None:
        active = self.query_one(TabbedContent).active or ""
        await self.panes.show_tab(active)  # built when first shown; handed what it missed
        self.link.show_tab(active or "trade")
        # The keys of a tab work at once: its main table takes the focus.
        main = TAB_FOCUS.get(active)
        if main is not None and not isinstance(self.screen, ModalScreen):
            self.query_one(main).focus()

    async def action_show_tab(self, tab: str) -> None:
        """Switch tab (a tab shown for the first time is built before it shows)."""
        await self.panes.show_tab(tab)
        self._to_tab(tab)

    def _to_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.link.show_tab(tab)

    def action_focus_inbox(self) -> None:
        """Back to the RFQ inbox (escape from the board, the tracker, another tab)."""
        if self.query_one(TabbedContent).active != "trade":
            self._to_tab("trade")
        self.query_one("#inbox-table").focus()

    # -- any terminal -----------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        """Lay the Trade tab out for the terminal (`tui.desk.fitting`)."""
        fit_terminal(self, event.size.width, event.size.height)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Keys that waited for a form go to it; on a narrow terminal the tracker shows while
        it has the focus, else the ticket."""
        self.type_ahead.focus_moved(event.widget)
        follow_focus(self, event.widget)

    def action_show_tracker(self) -> None:
        """Show the trades in clearing (on a narrow terminal they take turns with the ticket)."""
        self._to_tab("trade")
        show_tracker(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``t`` (the tracker) is offered only where the tracker can be out of sight."""
        return is_narrow(self) if action == "show_tracker" else True

    async def on_event(self, event: events.Event) -> None:
        """Keys, one at a time as the trader meant them (`TypeAhead`), and ``g`` anywhere.

        A key typed behind one that opens a form waits until the form has the focus (a paste,
        a macro). While a last look or a deposit approval waits, ``g`` is taken before the
        focused widget sees it (a text field would type it), and the focus moves to the
        tracker at once, so the ``a``/``r``/``p`` typed right after it answer there. While
        nothing waits, or a modal is open, ``g`` is left to whoever has the focus.
        """
        if isinstance(event, Replay):
            while (key := self.type_ahead.next_key()) is not None:
                await self._take_key(key)
            return
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self.start_up.hold(event):
                return  # the desk is not whole yet: the key goes on once it is
            if self.type_ahead.busy:
                self.type_ahead.keep(event)
            else:
                await self._take_key(event)
            return
        await super().on_event(event)
        if isinstance(event, events.Key):
            self.type_ahead.came_back(event)

    async def _take_key(self, key: events.Key) -> None:
        waiting = not isinstance(self.screen, ModalScreen) and self.book.needs_me()
        # g, or as rebound (asked only while something waits: the default keys are read from
        # every pane's bindings, which loads them all)
        if waiting and key.key in self.desk_keymap.keys("desk.next_action"):
            self.action_next_action()  # moves the focus at once: no need to hold what follows
            return
        if self.type_ahead.opens_something(key):
            self.type_ahead.hold()
        elif self.type_ahead.travels(key):
            self.type_ahead.hold_until_back(key)
        await super().on_event(key)

    def action_next_action(self) -> None:
        """Go to the most urgent trade waiting for me."""
        waiting = self.book.needs_me()
        if not waiting:
            self.notify("nothing waits for you")
            return
        self._to_tab("trade")
        tracker = self.query_one(TradeTracker)
        tracker.select(waiting[0].key)
        # At once, not after a refresh: the next key typed (a, r, p) must land in the tracker.
        self.screen.set_focus(tracker.options)

    def action_refresh(self) -> None:
        """Poll everything now (within the budget); while the venue is down, reach for it now."""
        self.link.refresh()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: Textual's commands plus every desk action (`PALETTE`)."""
        yield from super().get_system_commands(screen)
        for title, help_text, action, arguments in PALETTE:
            method = getattr(self, f"action_{action}")
            yield SystemCommand(title, help_text, partial(method, *arguments))
