"""Keys typed in one burst behind ``n`` land where they were meant (a new-user trial: ``n Tab Tab
Tab ⌫ 4kw`` typed fast lost its keys): the builder focuses its first leg a refresh after it is
mounted, and the keys wait for that focus, not for the first one the screen happens to take."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen


async def test_a_burst_behind_n_types_into_the_leg_it_tabs_to(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        for key in ("n", "tab", "tab", "tab", "backspace", "4", "k", "w"):
            event = events.Key(key, key if len(key) == 1 else None)
            event.set_sender(app)
            app._driver.send_message(event)
        for _ in range(6):
            await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        assert builder.query_one("#ratio-0", Input).value == "4kw", "typed as typed, in the ratio"
        assert app.focused is builder.query_one("#ratio-0", Input)
