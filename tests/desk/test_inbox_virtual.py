"""The RFQ inbox at 1,000 RFQs: a poll or a tick touches only what moved, and only on screen.

Before issue 11 each poll rebuilt every open RFQ's row (its change signature held the live
structure price, which moves with the mark) and the countdown rewrote every row each second.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from textual.app import App, ComposeResult

from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import rfq
from tui.api.models import RFQ, StructurePrice
from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets import inbox_columns
from tui.desk.widgets.rfq_inbox import RfqInbox, row_key

COUNT = 1000


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


class InboxApp(App[None]):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.selected: list[tuple[Any, Any]] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield RfqInbox(DeskBook(), self.clock, id="inbox")

    def on_rfq_inbox_selected(self, message: RfqInbox.Selected) -> None:
        self.selected.append((message.direction, message.rfq_id))


def received(price: str) -> list[RFQ]:
    """COUNT open RFQs, one a second, each with a live structure price."""
    return [
        rfq(f"{n:08d}-1111-4111-8111-111111111111").model_copy(
            update={
                "created_at": NOW + timedelta(seconds=n),
                "structure_price": StructurePrice(price=Decimal(price) + n),
            }
        )
        for n in range(COUNT)
    ]


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``fmt.<name>`` made by the inbox's columns."""
    calls = [0]
    real: Callable[..., Any] = getattr(inbox_columns.fmt, name)

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(inbox_columns.fmt, name, counted)
    return calls


async def test_a_poll_where_every_price_moved_formats_only_the_rows_on_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = InboxApp(Clock())
    async with app.run_test(size=(140, 30)) as pilot:
        inbox = app.query_one(RfqInbox)
        inbox.show("received", received("100"))
        await pilot.pause()
        shown = inbox.table.scrollable_content_region.height - 1
        structures = counting(monkeypatch, "structure_text")
        quantities = counting(monkeypatch, "qty")
        inbox.show("received", received("101"))  # the mark moved: every price with it
        await pilot.pause()
        assert 0 < structures[0] <= shown  # rows off screen are not touched
        assert quantities[0] == 0  # on screen, only the cells whose value moved
        newest = row_key("received", f"{COUNT - 1:08d}-1111-4111-8111-111111111111")
        assert str(inbox.table.cell_value(newest, "price")).strip() == "1,100.00"


async def test_the_countdown_ticks_only_the_rows_on_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    app = InboxApp(clock)
    async with app.run_test(size=(140, 30)) as pilot:
        inbox = app.query_one(RfqInbox)
        inbox.show("received", received("100"))
        await pilot.pause()
        newest = inbox.table.row_keys[0]
        assert str(inbox.table.cell_value(newest, "expires")).strip() == "5:00"
        shown = inbox.table.scrollable_content_region.height - 1
        countdowns = counting(monkeypatch, "countdown")
        clock.now += timedelta(seconds=1)
        inbox.tick()
        await pilot.pause()
        assert 0 < countdowns[0] <= 2 * shown  # looked at, then drawn: the lines on screen
        assert str(inbox.table.cell_value(newest, "expires")).strip() == "4:59"


async def test_the_cursor_stays_on_its_rfq_and_says_so_once() -> None:
    app = InboxApp(Clock())
    async with app.run_test(size=(140, 30)) as pilot:
        inbox = app.query_one(RfqInbox)
        first = received("100")
        inbox.show("received", first[:500])
        await pilot.pause()
        inbox.table.focus()
        await pilot.press("down", "down")
        await pilot.pause()
        chosen = inbox.selected
        assert chosen is not None and chosen[1] == first[497].rfq_id
        app.selected.clear()
        inbox.show("received", first, arrived=[r.rfq_id for r in first[500:]])
        await pilot.pause()
        assert inbox.selected == chosen  # 500 newer RFQs came in above it
        assert app.selected == []  # and no selection message: the cursor did not move
        assert inbox.table.row_keys[0] == row_key("received", first[-1].rfq_id)
        assert str(inbox.table.cell_value(inbox.table.row_keys[0], "new")) == "●"


async def test_a_poll_redraws_the_empty_inbox_hint_only_when_its_words_change() -> None:
    app = InboxApp(Clock())
    async with app.run_test(size=(140, 30)) as pilot:
        inbox = app.query_one(RfqInbox)
        hint = inbox.query_one("#inbox-empty")
        redrawn: list[object] = []
        real = hint.refresh

        def counted(*args: Any, **kwargs: Any) -> Any:
            redrawn.append(kwargs)
            return real(*args, **kwargs)

        inbox.show("received", [])  # the first poll may draw it
        await pilot.pause()
        hint.refresh = counted  # type: ignore[method-assign]
        for _ in range(3):
            inbox.show("received", [])  # the same empty inbox, poll after poll
            await pilot.pause()
        assert redrawn == []
        inbox.show("received", received("100")[:1])
        inbox.action_toggle_open()  # open only
        inbox.show("received", [rfq("x").model_copy(update={"rfq_status": "expired"})])
        await pilot.pause()
        assert "No open RFQs (1 in all)" in str(hint.render())
        assert redrawn  # new words: drawn
