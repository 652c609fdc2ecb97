"""A move of the inbox cursor and the RFQ it shows are drawn in one frame (`OneFrame`).

Drawn apart, the ticket's new text waited for Textual's next frame, ~17 ms after the cursor's:
the drawing is held from the move until the app says it has shown the RFQ, never longer than
`PATIENCE_S`, and never in an app that does not say so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from textual.app import App, ComposeResult

from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import rfq
from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets.one_frame import PATIENCE_S
from tui.desk.widgets.rfq_inbox import RfqInbox


class InboxApp(App[None]):
    """The inbox alone; it says it showed each RFQ while ``answers`` is set."""

    def __init__(self, answers: bool = True) -> None:
        super().__init__()
        self.answers = answers
        self.held_while_showing: list[bool] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield RfqInbox(DeskBook(), lambda: NOW, id="inbox")

    def on_rfq_inbox_selected(self, message: RfqInbox.Selected) -> None:
        self.held_while_showing.append(self._batch_count > 0)
        if self.answers:
            message.shown()


async def _inbox_of_five(app: InboxApp, pilot: Any) -> RfqInbox:
    inbox = app.query_one(RfqInbox)
    rfqs = [
        rfq(f"{n:08d}-1111-4111-8111-111111111111").model_copy(
            update={"created_at": NOW + timedelta(seconds=n)}
        )
        for n in range(5)
    ]
    inbox.show("received", rfqs)
    inbox.table.focus()
    await pilot.pause()
    return inbox


async def test_the_app_shows_the_rfq_while_the_drawing_is_held_then_it_draws() -> None:
    app = InboxApp()
    async with app.run_test() as pilot:
        await _inbox_of_five(app, pilot)
        assert app.held_while_showing == [False], "the first move: the app has not answered yet"
        await pilot.press("down", "down")
        assert app.held_while_showing[1:] == [True, True]
        assert app._batch_count == 0, "released once shown"


async def test_an_app_that_never_answers_never_waits() -> None:
    app = InboxApp(answers=False)
    async with app.run_test() as pilot:
        await _inbox_of_five(app, pilot)
        await pilot.press("down")
        assert app.held_while_showing == [False, False]
        assert app._batch_count == 0


async def test_a_showing_that_never_comes_is_let_go_after_the_patience() -> None:
    app = InboxApp()
    async with app.run_test() as pilot:
        await _inbox_of_five(app, pilot)
        app.answers = False  # say, the showing failed
        await pilot.press("down")
        assert app.held_while_showing[-1] is True
        await pilot.pause(PATIENCE_S * 3)
        assert app._batch_count == 0, "the screen draws again"
