"""`VenueLink`: the desk's line to the venue, from the first connect to the last close.

It holds the connector, the connection it gave, the signed client, the stats client and the feed
that polls through them. Connecting runs in a worker so the first frame does not wait for it: a
connector that can (`Reaches`: the built-in sandbox) starts looking for the venue before the
first frame, since that is another process's work (`reach`); the client and the models load
right after the first frame (`tui.desk.start_up`). The first poll is the portfolio summary,
alone, asked for while the clock is synced, and its figures are on screen before the rest of
the desk is built (``makes_way``), before any other topic is polled, the journal is read or the
writes are bound (those wait until the desk is whole). When the connector is `Supervised`, the
link follows its sandbox: a death stops polling and marks every pane stale with the reason; a
restart swaps in a client on the new port and polls anew. The App holds one link and routes to
it; it keeps no connection state of its own.

The link also holds the desk's writes (`DeskWrites`: the one `WriteDesk` and its journal), built
at their first use (the first connect binds them), so the first frame loads neither the client
nor the models. At every connect, once the clock is synced, the intents a crash (or a lost
answer) left open are resolved by reading, and the trader is told what was found: a toast, and
the journal view (j).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.app import App
from textual.widgets import TabbedContent

from tui.desk.book import DeskBook
from tui.desk.feed.policy import NOT_CONNECTED
from tui.desk.messages import ActionOutcome, ConnectionChanged, ConnectionState, Topic
from tui.desk.session import Connection, Connector, SessionError
from tui.desk.start_up import frame_drawn
from tui.desk.supervisor import ChildGaveUp, SessionBack, SessionDown, Supervised
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.stats import StatsClient
    from tui.desk.feed.scheduler import Feed
    from tui.desk.roles.writes import DeskWrites

ClientFactory = Callable[[Connection], "ServiceClient"]
"""Makes the client for a connection (tests hand in a client on their own sandbox)."""


def _load_client() -> None:
    """Import the client, its models and the feed (what `VenueLink._open` builds)."""
    import tui.api.client
    import tui.desk.feed.scheduler  # noqa: F401


@runtime_checkable
class Reaches(Protocol):
    """A connector whose way to the venue can be found before the connection is made."""

    async def reach(self) -> None:
        """Find the venue (or start it), loading no client and no models."""
        ...


class VenueLink:
    """Connection, clients and feed of one desk (see module docs)."""

    def __init__(
        self,
        app: App[Any],
        connector: Connector,
        book: DeskBook,
        clock: Callable[[], datetime],
        *,
        journal_path: Path,
        auto_feed: bool = True,
        client_factory: ClientFactory | None = None,
    ) -> None:
        self.app = app
        self.connector = connector
        self.book = book
        self.clock = clock
        self.auto_feed = auto_feed
        self.client_factory = client_factory
        self.connection: Connection | None = None
        self.client: ServiceClient | None = None
        self.stats_client: StatsClient | None = None
        self.feed: Feed | None = None
        self.journal_path = journal_path
        self._writes: DeskWrites | None = None
        self._reaching: asyncio.Task[None] | None = None
        self._whole: asyncio.Event | None = None
        self.makes_way = asyncio.Event()
        """Set once connecting makes way for the rest of the desk (`StartUp` builds it then):
        the summary is on screen, or the sandbox is still starting, or connecting ended."""
        self.connected = asyncio.Event()
        self.down: SessionDown | None = None
        """Why the venue is unreachable right now (the sandbox died or stopped), else None."""

    @property
    def writes(self) -> DeskWrites:
        """The desk's writes over its journal, built at the first use."""
        if self._writes is None:
            from tui.desk.roles.writes import DeskWrites

            self._writes = DeskWrites(self.journal_path)
        return self._writes

    @writes.setter
    def writes(self, writes: DeskWrites) -> None:
        self._writes = writes

    def reach(self) -> None:
        """Start looking for the venue now, if the connector can (`Reaches`): `connect`
        carries on from there."""
        if self._reaching is None and isinstance(self.connector, Reaches):
            self._reaching = asyncio.ensure_future(self.connector.reach())

    def connect(
        self, after: asyncio.Event | None = None, whole: asyncio.Event | None = None
    ) -> None:
        """Connect in a worker, once ``after`` is set; the header says how it goes. Nothing
        but the portfolio summary is polled before ``whole`` is set (see module docs)."""
        self._whole = whole
        self.app.run_worker(
            self._connect(after),
            name="connect",
            group="session",
            exclusive=True,
            exit_on_error=False,
        )

    async def _connect(self, after: asyncio.Event | None) -> None:
        header = self.app.query_one(PortfolioHeader)
        header.detail = "starting the sandbox" if self.connector.sandbox else "connecting"
        self.reach()
        reaching, self._reaching = self._reaching, None
        if after is not None:
            await after.wait()
            await frame_drawn(self.app)
        _load_client()  # while the sandbox may still be starting: its wait is not spent idle
        try:
            if reaching is not None:
                if not reaching.done():
                    self.makes_way.set()
                await reaching
            connection = await self.connector.connect()
        except (SessionError, OSError) as error:
            self.makes_way.set()
            header.state = ConnectionState.DISCONNECTED
            header.detail = "not connected"
            self.app.notify(str(error), title="Cannot connect", severity="error", timeout=30)
            return
        try:
            await self._open(connection)
        finally:
            self.makes_way.set()
        if isinstance(self.connector, Supervised):
            self.app.run_worker(
                self._follow_session(self.connector),
                name="follow_session",
                group="supervision",
                exclusive=True,
                exit_on_error=False,
            )

    async def _open(self, connection: Connection) -> None:
        """A client, a stats client and a feed for ``connection``; polling starts, with the
        portfolio summary alone (see module docs)."""
        from tui.api.client import ServiceClient  # the client loads when first connecting
        from tui.api.errors import ApiError
        from tui.desk.feed.scheduler import Feed

        app = self.app
        header = app.query_one(PortfolioHeader)
        self.connection = connection
        self.book.me = connection.company_id
        header.company = connection.short_name or "…"
        header.detail = ""
        if self.client_factory is not None:
            client = self.client_factory(connection)
        else:
            client = ServiceClient(connection.base_url, connection.api_key, connection.api_secret)
        if connection.stats_base_url:
            from tui.api.stats import StatsClient

            self.stats_client = StatsClient(connection.stats_base_url)
        before = self.feed
        feed = Feed(client, app.post_message, clock=self.clock, stats=self.stats_client)
        if before is not None:  # the panes' ages run on until fresh polls replace them
            feed.last_ok.update(before.last_ok)
        client.on_call = feed.on_call
        feed.show_tab(app.query_one(TabbedContent).active or "trade")
        # The summary does not wait for the clock: a request refused for its timestamp is
        # retried by the client once the clock is synced again.
        synced = asyncio.ensure_future(client.sync_clock())
        try:
            if self.auto_feed:  # the header's figures first, on screen before anything else
                await feed.refresh(Topic.SUMMARY)
                await frame_drawn(app)
            self.makes_way.set()
        except BaseException:
            synced.cancel()
            raise
        try:
            await synced
        except ApiError as error:
            app.notify(f"clock sync failed: {error}", severity="warning")
        if self._whole is not None:
            await self._whole.wait()  # every pane a poll reaches is there
        # The roles act through the client from now on: the writes are bound to it first.
        self.writes.bind(client)
        self.client, self.feed = client, feed
        self.connected.set()
        app.run_worker(
            self._reconcile(),
            name="reconcile",
            group="journal",
            exclusive=True,
            exit_on_error=False,
        )
        if self.auto_feed:
            app.run_worker(
                self.feed.run(), name="feed", group="feed", exclusive=True, exit_on_error=False
            )

    async def _reconcile(self) -> None:
        """Resolve what the journal holds open (a crash cut it short) and say what was found."""
        from tui.desk.roles.writes import is_unknown, reconcile_words

        try:
            outcomes = await self.writes.reconcile()
        except OSError as error:
            self.app.notify(
                f"the journal cannot be read ({error}): actions cannot be sent",
                title="Journal",
                severity="error",
                timeout=30,
            )
            return
        if not outcomes:
            return
        unknown = any(is_unknown(outcome) for outcome in outcomes)
        self.app.notify(
            f"{reconcile_words(outcomes)}\nj: the journal",
            title="Journal",
            severity="warning" if unknown else "information",
            timeout=30,
        )
        if unknown:
            # Still not known: look again on the runner's timer until the venue tells.
            self.app.runner.unknown.start()  # type: ignore[attr-defined]
        if self.feed is not None:
            self.feed.kick(*self.feed.topics)

    def connecting(self) -> bool:
        """Whether a connect is under way."""
        return any(w.group == "session" and not w.is_finished for w in self.app.workers)

    async def _close_clients(self) -> None:
        client, self.client = self.client, None
        stats, self.stats_client = self.stats_client, None
        if client is not None:
            await client.aclose()
        if stats is not None:
            await stats.aclose()

    async def _follow_session(self, connector: Supervised) -> None:
        """The sandbox went down: stop polling, mark every pane stale; back: poll it anew."""
        async for event in connector.events():
            if isinstance(event, SessionBack):
                self.down = None
                await self._close_clients()
                await self._open(event.connection)
                self.app.notify("the sandbox answers again", title="Venue")
                continue
            self.down = event
            self.connected.clear()
            if self.feed is not None:
                await self.feed.go_offline(event.text)
            self.app.post_message(ConnectionChanged(ConnectionState.DISCONNECTED, event.text))
            if isinstance(event, ChildGaveUp):
                self.app.notify(event.reason, title="Sandbox", severity="error", timeout=30)

    async def wait_connected(self) -> Feed:
        """Wait until the session is connected; the feed (tests and scripts use this)."""
        await self.connected.wait()
        assert self.feed is not None
        return self.feed

    def poll_soon(self, *topics: Topic) -> None:
        """Ask the feed for these topics as soon as the budget allows."""
        if self.feed is not None:
            self.feed.kick(*topics)

    def after_action(self, outcome: ActionOutcome) -> None:
        """Poll again what an action changed."""
        if self.feed is not None:
            self.feed.after_action(outcome)

    def tick_freshness(self) -> None:
        """Every second: the panes' ages, or 'not connected' before the first connect."""
        if not self.app.is_running:
            return
        if self.feed is None:
            self.app.query_one(StatusBar).ages = NOT_CONNECTED
        else:
            self.feed.report_freshness()

    def show_tab(self, tab: str) -> None:
        """The feed polls what the tab shows first."""
        if self.feed is not None:
            self.feed.show_tab(tab)

    def refresh(self) -> None:
        """Poll everything now (within the budget); while the venue is down, reach for it now;
        when the first connect failed, connect again."""
        if self.down is not None and isinstance(self.connector, Supervised):
            self.connector.retry_now()
            self.app.notify("trying the sandbox again now", title="Venue")
        elif self.connection is None and not self.connecting():
            self.connect()
        elif self.feed is not None:
            self.feed.kick(*self.feed.topics)

    async def close(self) -> None:
        """Stop polling, close the clients, stop a sandbox this desk started."""
        if self._reaching is not None:  # closed before it connected
            self._reaching.cancel()
            with contextlib.suppress(asyncio.CancelledError, SessionError, OSError):
                await self._reaching
        if self.feed is not None:
            await self.feed.stop()
        await self._close_clients()
        await self.connector.close()
        if self._writes is not None:
            self._writes.close()
