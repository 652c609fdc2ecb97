"""A quiet desk draws only what changed, once a second (issue 11): a poll that changes nothing
repaints nothing, every countdown moves on the desk's one second, the status bar draws a call's
tokens with the next second's ages (whatever their colour), and the feed says
how fresh the panes are after a poll only when one turned fresh or stale."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.timer import Timer
from textual.widget import Widget

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import rfq
from tests.desk.kit.tabs import show_tab
from tui.desk.book import DeskBook
from tui.desk.feed.scheduler import Feed
from tui.desk.messages import FreshnessChanged, PaneAge, Topic
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar


class PaneApp(App[None]):
    """One pane on its own, with the desk's theme variables."""

    def __init__(self, pane: Widget) -> None:
        super().__init__()
        self.pane = pane

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield self.pane


def _count_refreshes(widget: Widget) -> list[bool]:
    """Every `refresh` the widget asks for from now on (whether each wants a layout)."""
    seen: list[bool] = []
    original = widget.refresh

    def spy(*regions: Any, **options: Any) -> Any:
        seen.append(bool(options.get("layout")))
        return original(*regions, **options)

    widget.refresh = spy  # type: ignore[method-assign]
    return seen


async def test_a_poll_that_changes_nothing_repaints_nothing_in_the_inbox() -> None:
    inbox = RfqInbox(DeskBook(), lambda: NOW, id="inbox")
    async with PaneApp(inbox).run_test() as pilot:
        rfqs = [rfq("11111111-1111-4111-8111-111111111111")]
        inbox.show("received", rfqs)
        await pilot.pause()
        assert inbox.border_subtitle == "all (o: open only)"
        seen = _count_refreshes(inbox)
        inbox.show("received", list(rfqs))  # the same RFQs, polled again
        assert seen == []
        await pilot.press("o")  # what the subtitle says changed: drawn
        assert inbox.border_subtitle == "open only (o: all)" and seen


def _repeating(node: Any) -> list[str]:
    """The names of the repeating timers of one node of the app."""
    timers: set[Timer] = set(getattr(node, "_timers", ()))
    return [timer.name for timer in timers if timer._repeat is None and timer._interval >= 1.0]


async def test_every_countdown_moves_on_the_desks_one_second(desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.STATS)
        await show_tab(app, pilot, "market", MarketStatsPane)
        clocks = {
            f"{type(node).__name__}:{name}"
            for node in (app, app.screen, *app.screen.query("*"))
            for name in _repeating(node)
        }
        assert clocks == {"DeskApp:desk-second"}


async def test_the_status_bar_draws_a_calls_tokens_with_the_next_ages() -> None:
    status = StatusBar(id="status")
    async with PaneApp(status).run_test() as pilot:
        status.ages = (PaneAge("inbox", 1.0, False),)
        await pilot.pause()
        seen = _count_refreshes(status)
        for used in (5, 12, 30):  # one call after another
            status.show_call(used, latency_ms=7, offset_ms=-2)
        assert seen == []
        assert "30/100" not in str(status.render())
        status.show_freshness((PaneAge("inbox", 2.0, False),), 30)  # the desk's second
        assert seen == [False]
        shown = str(status.render())
        assert "30/100" in shown and "latency 7 ms" in shown and "clock -2 ms" in shown
        status.show_call(65, latency_ms=None, offset_ms=None)  # amber: with the next second too
        assert seen == [False] and "65/100" not in str(status.render())
        status.show_freshness((PaneAge("inbox", 3.0, False),), 65)
        assert seen == [False, False] and "65/100" in str(status.render())


async def test_the_feed_reports_freshness_after_a_poll_only_when_a_mark_changed(
    sandbox: Any,
) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = Feed(client, posted.append, clock=lambda: NOW)
        feed.report_freshness()  # the desk's second: every pane stale, nothing polled yet
        posted.clear()
        assert await feed.poll(Topic.TRADES)
        reports = [m for m in posted if isinstance(m, FreshnessChanged)]
        assert len(reports) == 1, "the first poll: one report, at once"
        posted.clear()
        assert await feed.poll(Topic.TRADES)  # fresh again: no mark moved
        assert not [m for m in posted if isinstance(m, FreshnessChanged)]
        feed.report_freshness()
        assert [m for m in posted if isinstance(m, FreshnessChanged)]
