"""A write whose landing is unknown is looked for again on a timer, not only at the next connect.

A fake venue loses the answer of an accept and cannot be read either: the outcome is "NOT
KNOWN", and the runner's `UnknownWatch` starts. Each tick of its timer (called here by the
test, as the timer would every `RECHECK_EVERY_S`) reads the venue again, sending nothing; once
the venue answers, the trader is told what became of the accept, what it may have changed is
polled, and the watch stops by itself when nothing is left open.
"""

from __future__ import annotations

from pathlib import Path

from tests.desk.kit.fakes import NOW, settle
from tests.desk.kit.journaled import JournaledHost, WritingClient
from tests.desk.kit.records import QUOTE_ID, RFQ_ID, quote, taker_book
from tui.api.errors import ConnectionLost, ServerError
from tui.api.models import ClearingEvent, Page, Quote, TradeSide
from tui.desk.messages import Topic
from tui.desk.roles.writes import AFTER_RECHECK, RECHECK_EVERY_S, UnknownWatch

SIZE = (100, 40)
TAKING = "pending_taker_deposit_approval"


def _lost_accept_client() -> WritingClient:
    """An accept whose answer is lost, on a venue that cannot be read."""
    return WritingClient(
        quotes_accept=ConnectionLost("connection reset", maybe_sent=True),
        quotes_received=ServerError("database down", status=500),
    )


def _accepted() -> Page[Quote]:
    event = ClearingEvent(
        rfq_id=RFQ_ID, parent_quote_id=QUOTE_ID, status=TAKING, created_at=NOW, taker_side="buy"
    )
    return Page[Quote](result=[quote(clearing_events=[event], clearing_status=TAKING)])


def _watch(host: JournaledHost) -> UnknownWatch:
    return host.taker.runner.unknown


async def test_an_unknown_accept_is_looked_for_again_until_found_and_the_trader_told(
    tmp_path: Path,
) -> None:
    client = _lost_accept_client()
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        assert not _watch(host).running
        host.taker.accept_now(RFQ_ID, QUOTE_ID, TradeSide.BUY)
        await settle(host, pilot)
        assert "NOT KNOWN whether it landed" in host.outcomes[0].problem
        assert f"looks for it every {RECHECK_EVERY_S:.0f} s" in host.outcomes[0].problem
        assert _watch(host).running

        # A tick while the venue still cannot be read: nothing said, nothing sent, still open.
        _watch(host).due()
        await settle(host, pilot)
        assert client.names == ["quotes_accept", "quotes_received", "quotes_received"]
        assert not host._notifications and host.polled == []
        assert host.writes.has_open() and _watch(host).running

        # The venue answers: the accept landed. The trader is told; the book will hear of it.
        client.answers["quotes_received"] = _accepted()
        _watch(host).due()
        await settle(host, pilot)
        (told,) = list(host._notifications)
        assert told.title == "Journal" and told.severity == "warning"
        assert f"accept BUY quote {QUOTE_ID[:8]}: LANDED" in told.message
        assert host.polled == list(AFTER_RECHECK) and Topic.QUOTES_RECEIVED in host.polled
        assert not host.writes.has_open()

        # Nothing left open: the next tick stops the watch, reading nothing.
        _watch(host).due()
        await settle(host, pilot)
        assert not _watch(host).running

    assert client.names.count("quotes_accept") == 1  # looked for, never sent again
    (entry,) = host.writes.entries()
    assert entry.outcome == "landed" and not entry.open


async def test_an_unknown_accept_the_venue_never_took_is_said_safe_to_send_again(
    tmp_path: Path,
) -> None:
    client = _lost_accept_client()
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, TradeSide.BUY)
        await settle(host, pilot)
        client.answers["quotes_received"] = Page[Quote](result=[quote()])  # still open: no accept
        _watch(host).due()
        await settle(host, pilot)
        (told,) = list(host._notifications)
        assert told.severity == "information"
        assert "did not land (safe to send again)" in told.message

    (entry,) = host.writes.entries()
    assert entry.outcome == "not_landed"


async def test_a_write_that_was_answered_starts_no_watch(tmp_path: Path) -> None:
    client = WritingClient(quotes_accept=ConnectionLost("refused", maybe_sent=False))
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, TradeSide.BUY)
        await settle(host, pilot)
        assert not _watch(host).running
        assert await _watch(host).look() == []  # nothing open: nothing read
    assert client.names == ["quotes_accept"]
