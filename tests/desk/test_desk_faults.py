"""The desk stays truthful while the venue fails: stale marks, f5, and typed input kept.

The test sandbox misbehaves as ``rfq-desk sandbox --faults`` makes it (`tui.sandbox.faults`),
switched on and off in the running server: ``drop_before=1`` is a venue that never answers
(every connection closed before the engine sees it), ``5xx=1`` one that answers only errors.
The header's figures and the waiting trade's countdown turn stale with the data's age while
their polls fail, and come back when a poll gets through; f5 polls at once whatever the
backoff; what the trader is typing into a form is never touched by a failed (or a later
successful) poll.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static

from tests.desk.kit.desk import SIZE, refresh
from tests.desk.kit.faults import BROKEN, DEAD, faults, faulty_desk, poll
from tests.desk.test_desk_attention import _fresh_rfq_for_desk, _last_look_for_desk
from tui.desk.app import DeskApp
from tui.desk.messages import ConnectionState, PaneAge, Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.widgets.attention import Attention
from tui.desk.widgets.portfolio_header import PortfolioHeader, summary_markup
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


def portfolio_line(app: DeskApp) -> str:
    return str(app.query_one("#portfolio", Static).render())


async def test_the_header_marks_its_figures_stale_with_their_age_while_the_venue_is_down(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        app.link.tick_freshness()
        await pilot.pause()
        header = app.query_one(PortfolioHeader)
        fresh = portfolio_line(app)
        assert "In pools" in fresh and "STALE" not in fresh

        faults(sandbox, DEAD)
        sandbox.advance(12)
        await poll(app, pilot, Topic.STATUS)  # not the summary's poll: the venue is gone
        assert header.state is ConnectionState.DISCONNECTED
        down = portfolio_line(app)
        assert down.startswith("STALE 12s "), down
        assert "In pools" in down, "the last figures stay, marked"

        sandbox.advance(60)
        app.link.tick_freshness()
        await pilot.pause()
        assert portfolio_line(app).startswith("STALE 72s "), "the age keeps counting"

        # Up but failing: the summary's own poll fails, the mark stays.
        faults(sandbox, BROKEN)
        await poll(app, pilot, Topic.SUMMARY)
        assert header.state is ConnectionState.DEGRADED
        assert portfolio_line(app).startswith("STALE ")

        faults(sandbox, None)
        await poll(app, pilot, Topic.SUMMARY)
        assert header.state is ConnectionState.CONNECTED
        # The same figures, unmarked; only the time they were valued at has moved on.
        valued = re.compile(r" at \d\d:\d\d:\d\d")
        assert valued.search(fresh), fresh
        assert valued.sub("", portfolio_line(app)) == valued.sub("", fresh)


def test_stale_figures_are_all_in_the_stale_colour() -> None:
    from tests.desk.test_desk_figures import summary

    fresh = summary_markup(summary())
    assert "$stale" not in fresh and "STALE" not in fresh
    stale = summary_markup(summary(), freshness=PaneAge("book", 75.0, True))
    assert stale.startswith("[$stale]STALE 75s[/] [$stale][$text-muted]USDC[/] In pools")
    assert "$bid" not in stale and "$ask" not in stale, "no figure keeps its live colour"
    two = summary_markup(summary(), two_lines=True, freshness=PaneAge("book", 5.0, True))
    assert all(line.count("[$stale]") >= 1 for line in two.splitlines())
    assert summary_markup(summary(), freshness=PaneAge("book", 5.0, False)) == fresh


async def test_a_waiting_trade_is_marked_stale_while_its_polls_fail(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        await _last_look_for_desk(sandbox)
        await refresh(app, pilot)
        app.link.tick_freshness()
        attention = app.query_one(Attention)
        attention.tick()
        await pilot.pause()
        assert attention.display and "LAST LOOK" in str(attention.render())
        assert "STALE" not in str(attention.render())

        faults(sandbox, DEAD)
        sandbox.advance(3)
        await poll(app, pilot, Topic.QUOTES_SENT)
        assert "STALE 3s" in str(attention.render())

        faults(sandbox, None)
        await poll(app, pilot, Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED)
        assert "STALE" not in str(attention.render())


async def test_f5_polls_everything_at_once_while_the_polls_back_off(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        feed = await app.wait_connected()
        faults(sandbox, BROKEN)
        for _failure in range(3):
            await poll(app, pilot, Topic.QUOTES_SENT)
        assert feed.wait_s(Topic.QUOTES_SENT) > feed.interval(Topic.QUOTES_SENT)
        assert Topic.QUOTES_SENT not in feed.due()
        await pilot.press("f5")
        assert set(feed.due()) == set(feed.polling())  # not a tab's hot-only topics


async def test_prices_typed_into_the_ticket_survive_failed_polls_and_the_venue_coming_back(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        rfq = await _fresh_rfq_for_desk(sandbox)
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        bid = ticket.query_one("#bid-0", Input)
        bid.focus()
        bid.value = ""
        await pilot.press(*"1234.5")

        for spec in (DEAD, BROKEN):
            faults(sandbox, spec)
            await poll(app, pilot, Topic.RFQS_RECEIVED, Topic.STATS, Topic.POOLS, Topic.SUMMARY)
            await pilot.press("f5")
            await pilot.pause()
            assert bid.value == "1234.5", spec
        await pilot.press("6")

        # The venue is back and the RFQ's snapshot arrives again, with another RFQ beside it.
        faults(sandbox, None)
        await _fresh_rfq_for_desk(sandbox)
        await poll(app, pilot, Topic.RFQS_RECEIVED, Topic.STATS, Topic.POOLS, Topic.SUMMARY)
        assert app.query_one(RfqInbox).selected == ("received", rfq.rfq_id)
        assert bid.value == "1234.56"
        assert app.focused is bid


async def test_an_rfq_being_built_survives_failed_polls_and_the_venue_coming_back(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        qty = builder.query_one("#qty", Input)
        qty.focus()
        qty.value = ""
        await pilot.press(*"2.5")

        for spec in (DEAD, BROKEN):
            faults(sandbox, spec)
            await poll(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.RFQS_SENT)
            assert app.screen is builder, spec
            assert qty.value == "2.5", spec
        faults(sandbox, None)
        await poll(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.RFQS_SENT)
        await pilot.press("5")
        assert app.screen is builder
        assert qty.value == "2.55"
