"""The roles' writes whose answer was lost (issue 10): resolved by reading, told in words, never
sent twice.

Every action of the desk writes through its one `WriteDesk` and journal (`DeskWrites`). Here a
fake venue loses the answer of an accept (a 500, a dropped connection) or never takes the
request in at all, and each test reads the one `ActionOutcome`: whether the accept landed, did
not (safe to send again) or is still unknown, what carried that (``outcome.writes``), and how
many times the accept went out.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from tests.desk.kit.fakes import NOW, WALLET_KEY, permit_template, session, settle
from tests.desk.kit.journaled import JournaledHost, WritingClient
from tests.desk.kit.records import (
    OTHER,
    POOL_ADDRESS,
    POOL_ID,
    QUOTE_ID,
    RFQ_ID,
    pools_book,
    quote,
    taker_book,
    transfer,
)
from tui.api.errors import ConnectionLost, ServerError
from tui.api.models import ClearingEvent, Page, Quote, TradeSide, TransferType
from tui.api.permits import wallet_address
from tui.api.writes import Landed, NotLanded, Resolution, Unresolved, WriteKind
from tui.desk.messages import ActionKind, Topic

SIZE = (100, 40)
BUY = TradeSide.BUY
TAKING = "pending_taker_deposit_approval"


def _clearing_quote() -> Page[Quote]:
    """My quote as the venue shows it once my accept landed: one clearing event, my side."""
    event = ClearingEvent(
        rfq_id=RFQ_ID, parent_quote_id=QUOTE_ID, status=TAKING, created_at=NOW, taker_side="buy"
    )
    return Page[Quote](result=[quote(clearing_events=[event], clearing_status=TAKING)])


async def test_an_accept_whose_answer_was_lost_is_found_by_reading_and_not_sent_again(
    tmp_path: Path,
) -> None:
    client = WritingClient(
        quotes_accept=ServerError("upstream timeout", status=504),
        quotes_received=_clearing_quote(),
    )
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, BUY)
        await settle(host, pilot)

    assert client.names == ["quotes_accept", "quotes_received"]
    (outcome,) = host.outcomes
    assert outcome.kind is ActionKind.ACCEPT_QUOTE and outcome.ok and outcome.money
    (write,) = outcome.writes
    assert isinstance(write, Landed) and write.how is Resolution.FOUND
    assert outcome.record.new_clearing_status == TAKING
    assert outcome.summary.endswith("(its answer was lost; the venue shows it landed)")
    (entry,) = host.writes.entries()
    assert entry.outcome == "landed" and entry.how is Resolution.FOUND and not entry.open


async def test_an_accept_still_unknown_is_said_so_and_a_second_press_does_not_send_it_again(
    tmp_path: Path,
) -> None:
    client = WritingClient(
        quotes_accept=ConnectionLost("connection reset", maybe_sent=True),
        quotes_received=ServerError("database down", status=500),
    )
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, BUY)
        await settle(host, pilot)
        # The trader presses accept again on the same quote: the earlier accept is read back
        # first, and while it is unknown nothing is sent.
        host.taker.accept_now(RFQ_ID, QUOTE_ID, BUY)
        await settle(host, pilot)

    assert client.names.count("quotes_accept") == 1
    first, second = host.outcomes
    for outcome in (first, second):
        assert not outcome.ok and not outcome.crashed
        (write,) = outcome.writes
        assert isinstance(write, Unresolved)
        assert "NOT KNOWN whether it landed" in outcome.problem
        assert "It is not sent again" in outcome.problem
        assert outcome.refresh == (Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
    (entry,) = host.writes.entries()
    assert entry.open and entry.lost_at_ms is not None


async def test_a_request_that_never_left_is_safe_to_send_again(tmp_path: Path) -> None:
    client = WritingClient(quotes_accept=ConnectionLost("connection refused", maybe_sent=False))
    host = JournaledHost(client, book=taker_book(), journal=tmp_path / "journal.jsonl")
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, BUY)
        await settle(host, pilot)
    (outcome,) = host.outcomes
    (write,) = outcome.writes
    assert isinstance(write, NotLanded) and write.how is Resolution.NEVER_SENT
    assert outcome.problem == "not sent (connection refused); safe to send again"
    assert client.names == ["quotes_accept"]  # nothing to read: it never left


async def test_a_deposit_is_journaled_without_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    client = WritingClient(
        transfers_permit_template=permit_template(
            wallet_address(WALLET_KEY), POOL_ADDRESS, 250_000_000
        ),
        transfers_permit=True,
        transfers_new=transfer(TransferType.DEPOSIT),
    )
    host = JournaledHost(client, book=pools_book(), connection=session(), journal=path)
    async with host.run_test(size=SIZE) as pilot:
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await settle(host, pilot)

    (outcome,) = host.outcomes
    assert outcome.ok and [w.intent.kind for w in outcome.writes] == [
        WriteKind.PERMIT,
        WriteKind.TRANSFER,
    ]
    signature = client.calls[1][1].signature
    text = path.read_text()
    assert signature not in text and WALLET_KEY not in text and WALLET_KEY[2:] not in text
    assert "ab" * 32 not in text  # the session's API secret
    kinds = [json.loads(line).get("kind") for line in text.splitlines()]
    assert kinds.count("transfers_permit") == 1 and kinds.count("transfers_new") == 1
