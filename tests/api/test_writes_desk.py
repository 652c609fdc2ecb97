"""`WriteDesk` against a scripted venue (httpx.MockTransport): each answer, each loss (issue 10).

The rules: a refusal (4xx, a 429 too) is `NotLanded` at once and never resent; a lost answer
(a timeout, a dropped connection, a 5xx) is resolved by reading, never by resending; found
nothing, it is declared absent only once the request can no longer land; a record another
intent landed as is never taken for this one; reads that fail leave the intent `Unresolved`
and open.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, LocalClock, fail, make_client, ok, page
from tests.api.kit import records as rec
from tui.api.errors import Conflict, InvalidArgument, RateLimited
from tui.api.models import CancelRequest, NewQuoteRequest, NewTransferRequest, Transfer
from tui.api.types import format_timestamp
from tui.api.writes import (
    SETTLE_MS,
    Intent,
    Journal,
    Landed,
    NotLanded,
    Resolution,
    Unresolved,
    WriteDesk,
    WriteKind,
)
from tui.api.writes.resolve import from_ms

NEW = "/v1/transfers/new"
LIST = "/v1/transfers"


def _deposit() -> Intent:
    return Intent.of(
        WriteKind.TRANSFER,
        NewTransferRequest(
            qty=Decimal(10),
            target_pool_location=rec.POOL_ID,
            counterparty=rec.MAKER,
            transfer_type="deposit",
        ),
    )


def _transfer(local: LocalClock, transfer_id: str = rec.TRANSFER["id"]) -> dict[str, object]:
    created = format_timestamp(from_ms(local.now_ms))
    return dict(rec.TRANSFER, id=transfer_id, qty="10", created_at=created, status="pending")


class Desk:
    """A `WriteDesk` on a `FakeVenue`; its waits move the local clock (and count)."""

    def __init__(self, venue: FakeVenue, fake_time: FakeTime, folder: Path) -> None:
        self.local = LocalClock()
        self.waits: list[float] = []
        self.client = make_client(venue, fake_time, self.local)
        self.journal = Journal(folder / "journal" / "writes.jsonl")
        self.desk = WriteDesk(self.client, self.journal, sleep=self.sleep)

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.local.now_ms += int(seconds * 1000)


@pytest.fixture
def venue() -> FakeVenue:
    return FakeVenue()


@pytest.fixture
def desk(venue: FakeVenue, fake_time: FakeTime, tmp_path: Path) -> Desk:
    return Desk(venue, fake_time, tmp_path)


async def test_an_answer_lands_the_intent(venue: FakeVenue, desk: Desk) -> None:
    venue.on("POST", NEW, ok(_transfer(desk.local)))
    intent = _deposit()
    outcome = await desk.desk.submit(intent)
    assert isinstance(outcome, Landed) and outcome.how is Resolution.ANSWERED
    assert isinstance(outcome.record, Transfer) and outcome.record.qty == 10
    again = await desk.desk.submit(intent)
    assert isinstance(again, Landed) and again.how is Resolution.EARLIER
    assert again.record == outcome.record
    assert len(venue.sent(NEW)) == 1


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (fail(409, 4000, "the pool is pending, not open"), Conflict),
        (fail(429, 5000, "budget", **{"X-Rate-Limit-Resets-In-Ms": "900"}), RateLimited),
    ],
)
async def test_a_refusal_is_not_landed_and_not_resent(
    venue: FakeVenue, desk: Desk, reply: httpx.Response, error: type[Exception]
) -> None:
    venue.on("POST", NEW, reply)
    outcome = await desk.desk.submit(_deposit())
    assert isinstance(outcome, NotLanded) and outcome.how is Resolution.REFUSED
    assert isinstance(outcome.error, error)
    assert len(venue.sent(NEW)) == 1 and not venue.sent(LIST)
    assert desk.journal.open_intents() == []


async def test_a_connection_never_opened_is_not_landed_without_reading(
    venue: FakeVenue, desk: Desk
) -> None:
    venue.on("POST", NEW, httpx.ConnectError("refused"))
    outcome = await desk.desk.submit(_deposit())
    assert isinstance(outcome, NotLanded) and outcome.how is Resolution.NEVER_SENT
    assert not venue.sent(LIST) and desk.waits == []


@pytest.mark.parametrize(
    "loss",
    [
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("dropped"),
        fail(500, 9000, "internal"),
        fail(502, None),
        httpx.Response(200, content=b"<html>proxy</html>"),
    ],
    ids=["timeout", "dropped", "500", "502", "unreadable-200"],
)
async def test_a_lost_answer_is_found_by_reading_not_by_resending(
    venue: FakeVenue, desk: Desk, loss: httpx.Response | Exception
) -> None:
    venue.on("POST", NEW, loss)
    venue.on("GET", LIST, page([_transfer(desk.local)]))
    outcome = await desk.desk.submit(_deposit())
    assert isinstance(outcome, Landed) and outcome.how is Resolution.FOUND
    assert isinstance(outcome.record, Transfer) and outcome.record.id == rec.TRANSFER["id"]
    assert len(venue.sent(NEW)) == 1 and desk.waits == []
    assert dict(venue.sent(LIST)[0].url.params) == {"pool": rec.POOL_ID}


async def test_nothing_found_is_absent_only_once_it_can_no_longer_land(
    venue: FakeVenue, desk: Desk
) -> None:
    venue.on("POST", NEW, httpx.ReadTimeout("slow"), ok(_transfer(desk.local)))
    venue.on("GET", LIST, page([]))
    intent = _deposit()
    lost_at = desk.local.now_ms
    outcome = await desk.desk.submit(intent)
    assert isinstance(outcome, NotLanded) and outcome.how is Resolution.ABSENT
    assert desk.waits == [SETTLE_MS / 1000]
    assert desk.local.now_ms >= lost_at + SETTLE_MS
    assert len(venue.sent(LIST)) == 2  # looked, waited, looked again
    assert len(venue.sent(NEW)) == 1
    sent = await desk.desk.submit(intent)
    assert isinstance(sent, Landed) and sent.how is Resolution.ANSWERED
    assert len(venue.sent(NEW)) == 2


async def test_a_record_another_intent_landed_as_is_not_taken(venue: FakeVenue, desk: Desk) -> None:
    """Two deposits of 10 on purpose: the first's record is not the second's lost answer."""
    first_record = _transfer(desk.local, "11111111-0000-4000-8000-000000000001")
    venue.on("POST", NEW, ok(first_record), httpx.ReadError("reset"))
    venue.on("GET", LIST, page([first_record]))
    first = await desk.desk.submit(_deposit())
    assert isinstance(first, Landed)
    second = await desk.desk.submit(_deposit())
    assert isinstance(second, NotLanded) and second.how is Resolution.ABSENT


async def test_unreadable_venue_leaves_the_intent_open_then_resolves_it(
    venue: FakeVenue, desk: Desk
) -> None:
    venue.on("POST", NEW, httpx.ReadTimeout("slow"))
    venue.on("GET", LIST, httpx.ConnectError("down"))
    intent = _deposit()
    outcome = await desk.desk.submit(intent)
    assert isinstance(outcome, Unresolved) and outcome.error is not None
    assert desk.journal.open_intents() == [intent]

    venue.on("GET", LIST, page([_transfer(desk.local)]))  # the venue is back
    venue.requests.clear()
    again = await desk.desk.submit(intent)
    assert isinstance(again, Landed) and again.how is Resolution.FOUND
    assert not venue.sent(NEW)  # resolved, not resent
    assert desk.journal.open_intents() == []


async def test_resolve_never_sends(venue: FakeVenue, desk: Desk) -> None:
    intent = _deposit()
    outcome = await desk.desk.resolve(intent)
    assert isinstance(outcome, NotLanded) and outcome.how is Resolution.NEVER_SENT
    assert venue.requests == []


async def test_a_clock_that_does_not_move_leaves_it_unresolved(
    venue: FakeVenue, fake_time: FakeTime, tmp_path: Path
) -> None:
    """A sleep that does not move the server clock never yields a premature 'absent'."""
    venue.on("POST", NEW, httpx.ReadTimeout("slow"))
    venue.on("GET", LIST, page([]))
    frozen = Desk(venue, fake_time, tmp_path)

    async def no_time_passes(seconds: float) -> None:
        frozen.waits.append(seconds)

    frozen.desk = WriteDesk(frozen.client, frozen.journal, sleep=no_time_passes)
    outcome = await frozen.desk.submit(_deposit())
    assert isinstance(outcome, Unresolved)
    assert len(frozen.journal.open_intents()) == 1


class SlowVenue(FakeVenue):
    """A venue that takes its time to answer, so two submissions overlap."""

    async def handler(self, request: httpx.Request) -> httpx.Response:  # type: ignore[override]
        await asyncio.sleep(0.01)
        return FakeVenue.handler(self, request)


async def test_a_double_press_sends_once(fake_time: FakeTime, tmp_path: Path) -> None:
    venue = SlowVenue()
    desk = Desk(venue, fake_time, tmp_path)
    venue.on("POST", NEW, ok(_transfer(desk.local)))
    intent = _deposit()
    first, second = await asyncio.gather(desk.desk.submit(intent), desk.desk.submit(intent))
    assert isinstance(first, Landed) and isinstance(second, Landed), (first, second)
    assert {first.how, second.how} == {Resolution.ANSWERED, Resolution.EARLIER}
    assert len(venue.sent(NEW)) == 1


# -- intents -----------------------------------------------------------------------------------


def test_an_intent_checks_its_body_and_names_every_quote() -> None:
    cancel = Intent.of(WriteKind.CANCEL_QUOTE, id=rec.QUOTE_ID)
    assert cancel.payload == {"id": rec.QUOTE_ID}
    with pytest.raises(InvalidArgument) as caught:
        Intent.of(WriteKind.CANCEL_RFQ, id="not-a-uuid")
    assert caught.value.field == "id"
    with pytest.raises(TypeError):
        Intent.of(WriteKind.TRANSFER, CancelRequest(id=rec.QUOTE_ID))
    assert Intent.of(WriteKind.CANCEL_ALL_QUOTES).payload == {}
    with pytest.raises(TypeError):
        Intent.of(WriteKind.CANCEL_ALL_QUOTES, CancelRequest(id=rec.QUOTE_ID))

    quote = NewQuoteRequest.model_validate(
        {
            "rfq_id": rec.RFQ_ID,
            "expires_at": "2030-01-01T00:00:00Z",
            "leg_quotes": [rec.LEG_QUOTE],
            "pool_strategy": {"strategy": "use_existing", "pool_id": rec.POOL_ID},
        }
    )
    named = Intent.of(WriteKind.QUOTE, quote)
    assert named.payload["client_quote_id"] == named.id
    own = Intent.of(WriteKind.QUOTE, quote.model_copy(update={"client_quote_id": "mine-1"}))
    assert own.payload["client_quote_id"] == "mine-1"


async def test_a_journaled_body_this_version_refuses_is_left_open(
    venue: FakeVenue, desk: Desk
) -> None:
    """A pool named "  " was accepted once; the rules changed. Resolving never crashes."""
    blank = {
        "pool_name": "  ",
        "company_other": rec.MAKER,
        "creator_params": rec.MARGIN_PARAMS,
        "other_params": rec.MARGIN_PARAMS,
    }
    intent = Intent(WriteKind.POOL, blank)
    desk.journal.sending(intent, desk.local.now_ms)
    (left_open,) = Journal(desk.journal.path).open_intents()
    assert left_open.request is None
    outcome = await desk.desk.resolve(left_open)
    assert isinstance(outcome, Unresolved) and "read back" in outcome.reason
    assert venue.requests == []
