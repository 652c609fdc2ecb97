"""Finding out, by reading the venue, whether a write whose answer was lost landed.

`find_landed` reads what the write would have made or moved and returns the record, in the
endpoint's own answer type, or None when it is not there. What each kind is found by:

- quote, replacement: its ``client_quote_id`` (`Intent.of` gives every quote one) among the
  maker's own quotes (``GET /v1/quotes``), with the same RFQ, expiry and leg prices;
- RFQ: structure, quantity, expiry, targets (where the venue shows them) and a creation time
  no earlier than the intent, among ``GET /v1/rfqs/sent``;
- accept: a clearing event of the quote (``GET /v1/quotes/received``) from the intent's time on,
  on the taker's side; the answer is rebuilt from the first one (its status is what the accept
  answered, a ``rejected_failed_taker_accept_*`` included);
- last look: the move out of ``pending_maker_last_look`` on the maker's quote (``GET
  /v1/quotes``), unless it was the venue's own expiry;
- quote and RFQ cancels: the record is ``canceled``; cancel-all: no quote of the maker is still
  open (a quote shows no creation time, so one made after the cancel-all keeps it unresolved
  until cancelled);
- pool: its name with the counterparty, created no earlier than the intent
  (``GET /v1/settlement_pools``); transfer: type, quantity, counterparty and creation time in
  the target pool (``GET /v1/transfers``), not a clearing movement;
- permit: the wallet's permit nonce (the template of ``POST /v1/transfers/permit/template``
  carries it) has moved past the permit's: a nonce is used once.

A record another intent already landed as (the journal's claims) is never taken for this one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from tui.api.client import ServiceClient
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    BaseAllowance,
    CancelRequest,
    ClearingStatus,
    MakerLastLookRequest,
    MakerLastLookResponse,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    Quote,
    QuoteAcceptResponse,
    Request,
    RequestAction,
    RFQStatus,
    SettlementPool,
    StructureInput,
    Transfer,
)
from tui.api.writes.intents import Intent, WriteKind

__all__ = ["Lookup", "find_landed", "from_ms"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CANCELED = "canceled"
_OPEN = "open"

B = TypeVar("B", bound=Request)


def from_ms(ms: int) -> datetime:
    """Unix ms as an aware UTC datetime (exact)."""
    return _EPOCH + timedelta(milliseconds=ms)


def _ms(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class Lookup:
    """What one resolution reads with: the client, the intent, the earliest time its record
    can carry (``since``), and the ids of records other intents landed as (``claimed``)."""

    client: ServiceClient
    intent: Intent
    since: datetime
    claimed: frozenset[str]

    def body(self, model: type[B]) -> B:
        """The intent's body as ``model``, rebuilt from the payload when not at hand."""
        request = self.intent.request
        if isinstance(request, model):
            return request
        return model.model_validate(dict(self.intent.payload))


async def find_landed(lookup: Lookup) -> Any:
    """The record the intent landed as, or None when the venue shows no trace of it.

    Raises the client's `ApiError` when the venue cannot be read.
    """
    return await _FINDERS[lookup.intent.kind](lookup)


# -- quotes ----------------------------------------------------------------------------------


def _same_quote(quote: Quote, body: NewQuoteRequest) -> bool:
    if quote.target_rfq_id != body.rfq_id or quote.client_quote_id != body.client_quote_id:
        return False
    if _ms(quote.expires_at) != _ms(body.expires_at):
        return False
    asked = {leg.target_rfq_leg_id: (leg.bid, leg.ask) for leg in body.leg_quotes}
    return asked == {leg.target_rfq_leg_id: (leg.bid, leg.ask) for leg in quote.per_leg_quotes}


async def _quote(lookup: Lookup) -> Quote | None:
    body = lookup.body(NewQuoteRequest)
    replaced = getattr(body, "parent_quote_id", None)
    async for quote in lookup.client.iterate("quotes"):
        taken = quote.parent_quote_id in lookup.claimed or quote.parent_quote_id == replaced
        if not taken and _same_quote(quote, body):
            return quote
    return None


async def _own_quote(lookup: Lookup, quote_id: str) -> Quote | None:
    found = (await lookup.client.quotes(id=quote_id)).result
    return found[0] if found else None


async def _cancel_quote(lookup: Lookup) -> bool | None:
    quote = await _own_quote(lookup, lookup.body(CancelRequest).id)
    return True if quote is not None and _state(quote) == _CANCELED else None


async def _cancel_all_quotes(lookup: Lookup) -> bool | None:
    async for quote in lookup.client.iterate("quotes"):
        if _state(quote) == _OPEN:
            return None
    return True


def _state(quote: Quote) -> str:
    return str((quote.model_extra or {}).get("quote_status", ""))


def _deposits(quote: Quote) -> Any:
    return (quote.model_extra or {}).get("pending_deposits_sum_qty")


async def _accept(lookup: Lookup) -> QuoteAcceptResponse | None:
    body = lookup.body(AcceptQuoteRequest)
    found = (await lookup.client.quotes_received(id=body.parent_quote_id)).result
    for quote in found:
        if quote.target_rfq_id != body.rfq_id:
            continue
        for event in quote.clearing_events:
            ours = event.taker_side is None or event.taker_side == body.side
            if ours and event.created_at >= lookup.since:
                return QuoteAcceptResponse(
                    new_clearing_status=event.status, pending_deposits_sum_qty=_deposits(quote)
                )
    return None


async def _last_look(lookup: Lookup) -> MakerLastLookResponse | None:
    body = lookup.body(MakerLastLookRequest)
    quote = await _own_quote(lookup, body.parent_quote_id)
    if quote is None or quote.target_rfq_id != body.rfq_id:
        return None
    events = quote.clearing_events
    looking = ClearingStatus.PENDING_MAKER_LAST_LOOK
    waiting = [i for i, event in enumerate(events) if event.status == looking]
    if not waiting or waiting[-1] + 1 >= len(events):
        return None
    move = events[waiting[-1] + 1]
    rejected = move.status == ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED
    if (
        move.created_at < lookup.since
        or move.status == ClearingStatus.REJECTED_MAKER_LAST_LOOK_EXPIRED
        or rejected != (body.action is RequestAction.REJECT)
    ):
        return None
    return MakerLastLookResponse(
        new_clearing_status=move.status, pending_deposits_sum_qty=_deposits(quote)
    )


# -- RFQs ------------------------------------------------------------------------------------


def _same_structure(rfq: RFQ, asked: StructureInput) -> bool:
    if len(rfq.structure.legs) != len(asked.legs):
        return False
    for leg, want in zip(rfq.structure.legs, asked.legs, strict=True):
        if leg.side != want.side or leg.ratio != want.ratio:
            return False
        # Compared as values (a strike of 1E+5 is 100000), field by field of the request's kind.
        for name in type(want.instrument).model_fields:
            if getattr(leg.instrument, name, None) != getattr(want.instrument, name):
                return False
    return True


def _same_rfq(rfq: RFQ, body: NewRfqRequest) -> bool:
    if rfq.qty != body.qty or _ms(rfq.rfq_expires_at) != _ms(body.expires_at):
        return False
    targets = (rfq.model_extra or {}).get("target_companies")
    if isinstance(targets, list) and set(targets) != set(body.target_companies):
        return False
    return _same_structure(rfq, body.structure)


async def _rfq(lookup: Lookup) -> RFQ | None:
    body = lookup.body(NewRfqRequest)
    async for rfq in lookup.client.iterate("rfqs_sent", price=False):
        fresh = rfq.created_at >= lookup.since and rfq.rfq_id not in lookup.claimed
        if fresh and _same_rfq(rfq, body):
            return rfq
    return None


async def _cancel_rfq(lookup: Lookup) -> bool | None:
    found = (await lookup.client.rfqs_sent(id=lookup.body(CancelRequest).id, price=False)).result
    return True if found and found[0].rfq_status == RFQStatus.CANCELED else None


# -- pools, transfers, permits ---------------------------------------------------------------


async def _pool(lookup: Lookup) -> SettlementPool | None:
    body = lookup.body(NewSettlementPoolRequest)
    async for pool in lookup.client.iterate("settlement_pools"):
        data = pool.data
        if data is None or pool.pool_id in lookup.claimed or data.created_at < lookup.since:
            continue
        parties = {party.company for party in data.parties}
        if (
            data.name == body.pool_name
            and body.company_other in parties
            and data.company_creator != body.company_other
        ):
            return pool
    return None


async def _transfer(lookup: Lookup) -> Transfer | None:
    body = lookup.body(NewTransferRequest)
    async for transfer in lookup.client.iterate("transfers", pool=body.target_pool_location):
        if (
            transfer.id not in lookup.claimed
            and transfer.created_at >= lookup.since
            and transfer.transfer_type == body.transfer_type
            and transfer.qty == body.qty
            and transfer.counterparty == body.counterparty
            and transfer.rfq_id is None
            and transfer.parent_quote_id is None
        ):
            return transfer
    return None


async def _permit(lookup: Lookup) -> bool | None:
    signed = lookup.intent.payload.get("message", {})
    permit = signed.get("message", {}) if isinstance(signed, dict) else {}
    spender, nonce, value = permit.get("spender"), permit.get("nonce"), permit.get("value")
    if not isinstance(spender, str) or not isinstance(nonce, int):
        raise ValueError(f"intent {lookup.intent.id}: the permit carries no spender or nonce")
    units = value if isinstance(value, int) and value > 0 else 1
    template = await lookup.client.transfers_permit_template(
        PermitTemplateRequest(pool_address=spender, allowance=BaseAllowance(value=units))
    )
    now = template.get("message", {}).get("nonce")
    return True if isinstance(now, int) and now > nonce else None


_FINDERS: dict[WriteKind, Callable[[Lookup], Awaitable[Any]]] = {
    WriteKind.QUOTE: _quote,
    WriteKind.REPLACE_QUOTE: _quote,
    WriteKind.CANCEL_QUOTE: _cancel_quote,
    WriteKind.CANCEL_ALL_QUOTES: _cancel_all_quotes,
    WriteKind.ACCEPT: _accept,
    WriteKind.LAST_LOOK: _last_look,
    WriteKind.RFQ: _rfq,
    WriteKind.CANCEL_RFQ: _cancel_rfq,
    WriteKind.POOL: _pool,
    WriteKind.TRANSFER: _transfer,
    WriteKind.PERMIT: _permit,
}
