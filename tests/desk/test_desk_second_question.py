"""The guardrails' second question says what its keys do, and its footer offers only those.

The tester's case: the dialog said "y sends it anyway" and the footer showed ``y Confirm``, but
only ``s`` sends (a ``y`` typed ahead must not get through). Now the words and the footer name
``s`` and ``n``; ``y`` and Enter ring the bell and send nothing, Enter included (a focused
"Send anyway" button used to take it).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Footer, Input, Static

from tests.desk.kit.desk import SIZE, DeskFactory, make_desk, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.desk.keymap import parse_keymap, use_keymap
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


def _footer(screen: ConfirmScreen) -> dict[str, str]:
    """What the footer offers: key -> description, for the bindings it shows."""
    return {
        key: active.binding.description
        for key, active in screen.active_bindings.items()
        if active.binding.show
    }


async def _off_fair_quote_asked_again(app: Any, pilot: Any, sandbox: Any) -> ConfirmScreen:
    """EMBR asks DESK for 1 BTC perpetual; DESK bids 5 % under fair: the second question."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    async with sandbox.client("EMBR") as embr:
        rfq = await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now()))
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
    app.query_one(RfqInbox).select("received", rfq.rfq_id)
    await pilot.pause()
    ticket = app.query_one(QuoteTicket)
    fair = app.book.rfqs_received[rfq.rfq_id].structure_price.price
    ticket.set_leg_prices(0, str((fair * Decimal("0.95")).quantize(Decimal("0.01"))), str(fair))
    ticket.query_one("#bid-0", Input).focus()
    await pilot.press("ctrl+s")
    await pilot.pause()
    check = app.screen
    assert isinstance(check, ConfirmScreen) and check.second_question
    return check


async def test_the_second_question_names_its_keys_and_the_footer_offers_no_y(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        check = await _off_fair_quote_asked_again(app, pilot, sandbox)
        body = str(check.query_one("#confirm-body", Static).render())
        assert "s sends it anyway, n backs out" in body
        assert "y sends" not in body
        footer = _footer(check)
        assert footer == {"n": "Back out", "s": "Send anyway"}
        assert check.query_one(Footer)  # drawn from those bindings

        bells: list[None] = []
        app.bell = lambda: bells.append(None)  # type: ignore[method-assign]
        await pilot.press("y", "enter")  # neither answers it: the bell, nothing sent
        await settle(app, pilot)
        assert app.screen is check and len(bells) == 2
        assert app.writes.entries() == []
        await pilot.press("s")
        await settle(app, pilot)
        assert [e.outcome for e in app.writes.entries()] == ["landed"]


async def test_the_words_follow_a_rebound_key(sandbox: Any, tmp_path: Path) -> None:
    app = make_desk(sandbox, tmp_path)
    use_keymap(app, parse_keymap('[keymap]\n"confirm.send_anyway" = "f9"\n'))
    async with app.run_test(size=SIZE) as pilot:
        check = await _off_fair_quote_asked_again(app, pilot, sandbox)
        body = str(check.query_one("#confirm-body", Static).render())
        assert "f9 sends it anyway, n backs out" in body
        assert "f9" in _footer(check) and "s" not in _footer(check)


class _Asks(App[None]):
    """A bare app that asks one question and keeps the answers."""

    def __init__(self, second_question: bool) -> None:
        super().__init__()
        self.second_question = second_question
        self.answers: list[bool | None] = []

    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        screen = ConfirmScreen("t", "b", second_question=self.second_question)
        self.push_screen(screen, self.answers.append)


async def test_enter_answers_a_first_question_but_not_a_second() -> None:
    first = _Asks(second_question=False)
    async with first.run_test() as pilot:
        assert "y" in _footer(first.screen)  # type: ignore[arg-type]
        await pilot.press("enter")
        await pilot.pause()
        assert first.answers == [True]
    second = _Asks(second_question=True)
    async with second.run_test() as pilot:
        assert "y" not in _footer(second.screen)  # type: ignore[arg-type]
        await pilot.press("enter", "y", "tab", "enter")
        await pilot.pause()
        assert second.answers == []
        await pilot.press("n")
        await pilot.pause()
        assert second.answers == [False]
