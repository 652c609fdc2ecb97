"""Every write resolved, end to end against the real sandbox over loopback (issue 10).

For each kind of write, three ways to lose it, and never a duplicate on the venue:

- the answer lost after the venue committed: resolved by reading as `Landed` with the record;
  submitting the same intent again returns the landed record and sends nothing;
- the request dropped before the venue's engine: resolved by reading, once it can no longer
  land, as `NotLanded` (absent); sent again, it lands once;
- the connection refused: `NotLanded` (never sent) at once, nothing read; sent again, it lands
  once.

Then two crashes (an intent journaled, the process gone before the answer, or before the
request) resolved on start, and a look-alike RFQ that must not be taken for the lost one.

Duplicates are counted by reading the venue (`Scenario.measure`), not by trusting the client.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.api.kit.writes import SCENARIOS, Scenario, Venue
from tests.sandbox.kit import rfq_request
from tui.api.models import PayoffType, VanillaOptionInstrument
from tui.api.writes import Intent, Landed, NotLanded, Resolution, WriteKind

_IDS = [s.kind.value for s in SCENARIOS]


async def _landed_again(venue: Venue, scenario: Scenario, intent: Intent, first: Landed) -> None:
    """A retry of a landed intent answers its record and sends nothing."""
    reached = len(venue.wires[scenario.sender].reached)
    again = await venue.desks[scenario.sender].submit(intent)
    assert isinstance(again, Landed) and again.how is Resolution.EARLIER
    assert again.record == first.record
    assert len(venue.wires[scenario.sender].reached) == reached


def _no_secret_in_the_journal(venue: Venue, sender: str, intent: Intent) -> None:
    text = venue.journal_path(sender).read_text()
    credentials = venue.sandbox.credentials[sender]
    secrets = [credentials["api_secret"], credentials["wallet_private_key"]]
    signature = getattr(intent.request, "signature", None)
    if signature is not None:
        secrets.append(signature)
    for secret in secrets:
        assert secret.removeprefix("0x").lower() not in text.lower()
    assert intent.id in text  # the intent is there, its secrets are not


async def _armed(venue: Venue, scenario: Scenario, how: str) -> tuple[Intent, Any]:
    """The scenario's intent, the venue's measure before it, and the wire set to lose it."""
    intent = await scenario.prepare(venue)
    before = await scenario.measure(venue)
    venue.wires[scenario.sender].next(scenario.path, how)
    return intent, before


@pytest.mark.parametrize("how", ["lose", "drop_after"], ids=["read-error", "sandbox-drop-after"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=_IDS)
async def test_an_answer_lost_after_commit_is_found_not_resent(
    sandbox: Any, tmp_path: Any, scenario: Scenario, how: str
) -> None:
    async with Venue(sandbox, tmp_path) as venue:
        intent, before = await _armed(venue, scenario, how)

        outcome = await venue.desks[scenario.sender].submit(intent)

        assert isinstance(outcome, Landed), outcome
        assert outcome.how is Resolution.FOUND
        assert isinstance(outcome.record, scenario.kind.endpoint.response)
        assert await scenario.measure(venue) - before == scenario.landed
        await _landed_again(venue, scenario, intent, outcome)
        # A fresh desk on the same journal (a restart) knows it landed too.
        restarted = venue.writes_desk(scenario.sender)
        assert restarted.journal.open_intents() == []
        assert (await restarted.submit(intent)).how is Resolution.EARLIER
        assert await scenario.measure(venue) - before == scenario.landed
        _no_secret_in_the_journal(venue, scenario.sender, intent)


_NOT_LANDED = [
    pytest.param(scenario, how, resolution, id=f"{scenario.kind.value}-{how}")
    for scenario in SCENARIOS
    for how, resolution in (("drop", Resolution.ABSENT), ("refuse", Resolution.NEVER_SENT))
] + [
    # The sandbox's own faults, on the two writes a trader fears most for.
    pytest.param(scenario, how, Resolution.ABSENT, id=f"{scenario.kind.value}-sandbox-{how}")
    for scenario in SCENARIOS
    if scenario.kind in (WriteKind.ACCEPT, WriteKind.TRANSFER)
    for how in ("drop_before", "5xx")
]


@pytest.mark.parametrize(("scenario", "how", "resolution"), _NOT_LANDED)
async def test_a_write_that_did_not_land_says_so_then_is_sent_once(
    sandbox: Any, tmp_path: Any, scenario: Scenario, how: str, resolution: Resolution
) -> None:
    async with Venue(sandbox, tmp_path) as venue:
        intent, before = await _armed(venue, scenario, how)
        wire = venue.wires[scenario.sender]
        reached, started = len(wire.reached), sandbox.clock.now_ms()

        outcome = await venue.desks[scenario.sender].submit(intent)

        assert isinstance(outcome, NotLanded), outcome
        assert outcome.how is resolution
        if resolution is Resolution.ABSENT:
            # Read, and not declared absent while the request could still have landed.
            assert sandbox.clock.now_ms() - started >= 5000
        else:
            # Provably never left: nothing read, no wait.
            assert len(wire.reached) == reached and sandbox.clock.now_ms() == started
        assert await scenario.measure(venue) - before == 0
        sent = await venue.desks[scenario.sender].submit(intent)
        assert isinstance(sent, Landed) and sent.how is Resolution.ANSWERED, sent
        assert await scenario.measure(venue) - before == scenario.landed
        await _landed_again(venue, scenario, intent, sent)


@pytest.mark.parametrize(
    ("kind", "request_left"),
    [(WriteKind.TRANSFER, True), (WriteKind.RFQ, False)],
    ids=["deposit-sent-then-crash", "rfq-crash-before-sending"],
)
async def test_an_intent_a_crash_left_open_is_resolved_on_start(
    sandbox: Any, tmp_path: Any, kind: WriteKind, request_left: bool
) -> None:
    """The journal has the intent; the process died before the answer (or the request) left."""
    (scenario,) = [s for s in SCENARIOS if s.kind is kind]
    async with Venue(sandbox, tmp_path) as venue:
        intent = await scenario.prepare(venue)
        before = await scenario.measure(venue)
        crashed = venue.desks[scenario.sender]
        crashed.journal.sending(intent, sandbox.clock.now_ms())
        if request_left:  # the venue commits; the answer dies with the process
            await venue.clients[scenario.sender].write(intent.kind.value, intent.body())
        crashed.journal.close()

        restarted = venue.writes_desk(scenario.sender)
        (left_open,) = restarted.journal.open_intents()
        assert left_open == intent
        started = sandbox.clock.now_ms()
        (outcome,) = await restarted.resolve_open()

        if request_left:
            assert isinstance(outcome, Landed) and outcome.how is Resolution.FOUND
            assert sandbox.clock.now_ms() == started  # found at once: no wait
            again = await restarted.submit(left_open)
            assert isinstance(again, Landed) and again.how is Resolution.EARLIER
        else:
            assert isinstance(outcome, NotLanded) and outcome.how is Resolution.ABSENT
            # A crash leaves no sending time: it waits out the longest a request may be
            # under way before it says "absent".
            assert sandbox.clock.now_ms() - started >= 60_000
            again = await restarted.submit(left_open)
            assert isinstance(again, Landed) and again.how is Resolution.ANSWERED
        assert restarted.journal.open_intents() == []
        assert await scenario.measure(venue) - before == scenario.landed


def _option(sandbox: Any, strike: str) -> VanillaOptionInstrument:
    return VanillaOptionInstrument(
        underlying="BTC",
        expiry=sandbox.clock.now() + timedelta(days=30),
        strike=Decimal(strike),
        payoff=PayoffType.CALL,
    )


async def test_a_look_alike_rfq_is_never_taken_for_the_lost_one(
    sandbox: Any, tmp_path: Any
) -> None:
    """Same quantity and expiry, another strike: not the lost RFQ. The same strike written
    otherwise (``1.00000E+5``) is the same instrument: found."""
    async with Venue(sandbox, tmp_path) as venue:
        look_alike = await venue.taker.rfqs_new(
            rfq_request(sandbox, legs=[("buy", _option(sandbox, "110000"))])
        )
        dropped = Intent.of(
            WriteKind.RFQ, rfq_request(sandbox, legs=[("buy", _option(sandbox, "100000"))])
        )
        venue.wires["DESK"].next("/v1/rfqs/new", "drop")
        outcome = await venue.desks["DESK"].submit(dropped)
        assert isinstance(outcome, NotLanded) and outcome.how is Resolution.ABSENT

        lost = Intent.of(
            WriteKind.RFQ, rfq_request(sandbox, legs=[("buy", _option(sandbox, "1.00000E+5"))])
        )
        venue.wires["DESK"].next("/v1/rfqs/new", "lose")
        found = await venue.desks["DESK"].submit(lost)
        assert isinstance(found, Landed) and found.how is Resolution.FOUND
        assert found.record.rfq_id != look_alike.rfq_id
        (leg,) = found.record.structure.legs
        assert getattr(leg.instrument, "strike", None) == Decimal(100000)
