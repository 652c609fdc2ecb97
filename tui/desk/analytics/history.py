"""History records: every RFQ sent and received and every quote made or received, with its
outcome and timings, built from the venue's records as the book holds them.

An entry is plain data (Decimal, datetime, str), serialised to one JSON object by
`entry_to_json` for the store (`tui.desk.analytics.store`). Timings come from the records'
own stamps: an RFQ's ``created_at``, a quote's ``created_at`` (an extra field some venues
send; otherwise when the desk first saw it, kept by the store), its first clearing event
(the accept) and its last (the end). Outcomes, in trader's words:

- ``traded``: booked; ``traded away``: the RFQ traded with another maker (never said while a
  quote of mine on it is still clearing: the RFQ's close may be my own trade, not polled yet);
- ``expired``, ``cancelled`` (a pulled or replaced quote, a cancelled RFQ);
- ``rejected at last look`` (declined, or not answered in time), ``rejected for funding``
  (a deposit approval or on-chain deposit failed), ``rejected`` (any other rejection);
- ``open`` / ``clearing`` while it can still move.

An RFQ's bid and ask are the best quoted on it, and once it traded those of the quote it
traded on (its maker in ``maker``); a traded entry says which side the taker took
(``taker_side``), so its price traded (`HistoryEntry.traded_price`) is that quote's ask when the
taker bought and its bid when the taker sold.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.api.models import RFQ, ClearingStatus, Quote, RFQStatus, instrument_label


class Outcome(StrEnum):
    """What became of an RFQ or a quote (module docstring)."""

    OPEN = "open"
    CLEARING = "clearing"
    TRADED = "traded"
    TRADED_AWAY = "traded away"
    EXPIRED = "expired"
    CANCELLED = "cancelled"
    LAST_LOOK_REJECTED = "rejected at last look"
    FUNDING_REJECTED = "rejected for funding"
    REJECTED = "rejected"

    @property
    def final(self) -> bool:
        """True once the outcome cannot change."""
        return self not in (Outcome.OPEN, Outcome.CLEARING)


class EntryKind(StrEnum):
    """Which record an entry stands for, from this desk's side."""

    RFQ_SENT = "rfq sent"
    RFQ_RECEIVED = "rfq received"
    QUOTE_MADE = "quote made"
    QUOTE_RECEIVED = "quote received"


_LAST_LOOK = {
    ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED.value,
    ClearingStatus.REJECTED_MAKER_LAST_LOOK_EXPIRED.value,
}
_FUNDING = {
    ClearingStatus.REJECTED_FAILED_TAKER_FUNDING.value,
    ClearingStatus.REJECTED_FAILED_MAKER_FUNDING.value,
    ClearingStatus.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL.value,
    ClearingStatus.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL.value,
    ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT.value,
}
_AT_LAST_LOOK = {
    ClearingStatus.PENDING_MAKER_LAST_LOOK.value,
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL.value,
    ClearingStatus.PENDING_ATOMIC_DEPOSIT.value,
    ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL.value,
    ClearingStatus.REJECTED_FAILED_MAKER_FUNDING.value,
    ClearingStatus.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL.value,
    ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT.value,
    *_LAST_LOOK,
}


@dataclass(frozen=True)
class HistoryEntry:
    """One RFQ or quote in the history (module docstring). ``key`` is ``kind:record id``."""

    key: str
    kind: EntryKind
    record_id: str
    rfq_id: str
    at: datetime | None
    taker: str
    maker: str | None
    structure: str
    qty: Decimal | None
    bid: Decimal | None
    ask: Decimal | None
    outcome: Outcome
    response_s: Decimal | None = None
    """A quote: seconds from its RFQ to it. An RFQ: seconds to its first quote."""
    accepted_at: datetime | None = None
    ended_at: datetime | None = None
    targets: tuple[str, ...] = ()
    best_bid: bool = False
    best_ask: bool = False
    reached_last_look: bool = False
    quoted_by: tuple[str, ...] = ()
    """An RFQ: the makers that quoted it."""
    taker_side: str | None = None
    """Traded: the side the taker took (``buy``: at the quote's ask), when the venue says."""

    @property
    def mine_as_taker(self) -> bool:
        """True for an RFQ I sent or a quote I received (I am the taker)."""
        return self.kind in (EntryKind.RFQ_SENT, EntryKind.QUOTE_RECEIVED)

    @property
    def traded_price(self) -> Decimal | None:
        """The structure price the trade was done at: the quote's ask when the taker bought,
        its bid when the taker sold; None unless traded and the side is known."""
        if self.outcome is not Outcome.TRADED or self.taker_side is None:
            return None
        return self.ask if self.taker_side == "buy" else self.bid

    @property
    def my_side(self) -> str | None:
        """The side I took on the trade (``buy`` / ``sell``), if traded and known."""
        if self.traded_price is None:
            return None
        if self.mine_as_taker:
            return self.taker_side
        return "sell" if self.taker_side == "buy" else "buy"


def _clearing_outcome(status: str) -> Outcome:
    if clearing_is_booked(status):
        return Outcome.TRADED
    if status in _LAST_LOOK:
        return Outcome.LAST_LOOK_REJECTED
    if status in _FUNDING:
        return Outcome.FUNDING_REJECTED
    if clearing_is_rejected(status):
        return Outcome.REJECTED
    return Outcome.CLEARING


def _stamp(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def quote_seen_at(quote: Quote) -> datetime | None:
    """When the venue says the quote was made (its ``created_at`` extra), if it says."""
    return _stamp((quote.model_extra or {}).get("created_at"))


def _seconds(start: datetime | None, end: datetime | None) -> Decimal | None:
    if start is None or end is None:
        return None
    return Decimal(round((end - start).total_seconds() * 1000)) / 1000


def side_taken(events: list[Any]) -> str | None:
    """The side the taker took, from a quote's clearing events (records, or the plain objects
    an RFQ's quote metadata carries); the last event that says wins."""
    for event in reversed(events):
        side = event.get("taker_side") if isinstance(event, dict) else event.taker_side
        if side is not None and str(side) in ("buy", "sell"):
            return str(side)
    return None


def structure_words(rfq: RFQ | None) -> str:
    """``B BTC-PERP / S ETH-PERP x2``: the legs of an RFQ on one line."""
    if rfq is None:
        return "-"
    return " / ".join(
        f"{str(leg.side)[:1].upper()} {instrument_label(leg.instrument)}"
        + (f" x{leg.ratio}" if leg.ratio != 1 else "")
        for leg in rfq.structure.legs
    )


def quote_outcome(quote: Quote, rfq: RFQ | None, now: datetime) -> Outcome:
    """What became of a quote, from its clearing state, its quote state and its RFQ."""
    if quote.clearing_status is not None:
        return _clearing_outcome(str(quote.clearing_status))
    state = (quote.model_extra or {}).get("quote_status")
    if state == "filled":
        return Outcome.TRADED
    if state in ("canceled", "replaced"):
        return Outcome.CANCELLED
    rfq_status = str(rfq.rfq_status) if rfq is not None else ""
    if rfq_status == RFQStatus.CLOSED:
        return Outcome.TRADED_AWAY
    if state == "expired" or quote.expires_at <= now:
        return Outcome.EXPIRED
    if state == "void" or rfq_status in (RFQStatus.EXPIRED, RFQStatus.CANCELED):
        return Outcome.CANCELLED if rfq_status == RFQStatus.CANCELED else Outcome.EXPIRED
    return Outcome.OPEN


def quote_entry(
    quote: Quote,
    kind: EntryKind,
    rfq: RFQ | None,
    rivals: list[Quote],
    now: datetime,
    seen: datetime | None = None,
) -> HistoryEntry:
    """The history entry of a quote I made or received; ``rivals`` are every quote on its RFQ
    (for whether it was the best price), ``seen`` when the desk first saw it."""
    at = quote_seen_at(quote) or seen
    events = sorted(quote.clearing_events, key=lambda e: e.created_at)
    outcome = quote_outcome(quote, rfq, now)
    bids = [q.aggregated_bid for q in rivals if q.aggregated_bid is not None]
    asks = [q.aggregated_ask for q in rivals if q.aggregated_ask is not None]
    statuses = {str(e.status) for e in events} | {str(quote.clearing_status or "")}
    return HistoryEntry(
        key=f"{kind.value}:{quote.parent_quote_id}",
        kind=kind,
        record_id=quote.parent_quote_id,
        rfq_id=quote.target_rfq_id,
        at=at,
        taker=rfq.taker_company if rfq is not None else "",
        maker=quote.maker_company,
        structure=structure_words(rfq),
        qty=rfq.qty if rfq is not None else None,
        bid=quote.aggregated_bid,
        ask=quote.aggregated_ask,
        outcome=outcome,
        response_s=_seconds(rfq.created_at if rfq else None, at),
        accepted_at=events[0].created_at if events else None,
        ended_at=events[-1].created_at if events and outcome.final else None,
        best_bid=quote.aggregated_bid is not None and quote.aggregated_bid == max(bids),
        best_ask=quote.aggregated_ask is not None and quote.aggregated_ask == min(asks),
        reached_last_look=bool(statuses & _AT_LAST_LOOK),
        taker_side=side_taken(events) if outcome is Outcome.TRADED else None,
    )


def rfq_entry(
    rfq: RFQ, kind: EntryKind, quotes: list[Quote], me: str | None, now: datetime
) -> HistoryEntry:
    """The history entry of an RFQ I sent or received; ``quotes`` are the quotes on it that
    this desk sees (every maker's on mine, my own on one I received)."""
    booked = next((q for q in quotes if clearing_is_booked(q.clearing_status)), None)
    trade = booked_trade(rfq, booked)
    status = str(rfq.rfq_status)
    bid = rfq.best_bid.quote_price if rfq.best_bid else None
    ask = rfq.best_ask.quote_price if rfq.best_ask else None
    if trade is not None:
        outcome = (
            Outcome.TRADED
            if kind is EntryKind.RFQ_SENT or trade.maker == me
            else Outcome.TRADED_AWAY
        )
        if outcome is Outcome.TRADED:
            # The quote it traded on, not the best of what was left on the board.
            bid, ask = trade.bid, trade.ask
    elif status == RFQStatus.CLOSED:
        if kind is EntryKind.RFQ_SENT:
            outcome, bid, ask = Outcome.TRADED, None, None
        elif any(_still_clearing(q) for q in quotes):
            outcome = Outcome.CLEARING
        else:
            outcome = Outcome.TRADED_AWAY
    elif status == RFQStatus.CANCELED:
        outcome = Outcome.CANCELLED
    elif status == RFQStatus.EXPIRED or rfq.rfq_expires_at <= now:
        tried = [q for q in quotes if q.clearing_status is not None]
        last = max(
            tried,
            key=lambda q: q.clearing_events[-1].created_at if q.clearing_events else q.expires_at,
            default=None,
        )
        outcome = Outcome.EXPIRED
        if last is not None and _clearing_outcome(str(last.clearing_status)).final:
            outcome = _clearing_outcome(str(last.clearing_status))
    else:
        outcome = Outcome.CLEARING if any(_still_clearing(q) for q in quotes) else Outcome.OPEN
    stamps = [s for s in (quote_seen_at(q) for q in quotes) if s is not None]
    targets = (rfq.model_extra or {}).get("target_companies") or ()
    return HistoryEntry(
        key=f"{kind.value}:{rfq.rfq_id}",
        kind=kind,
        record_id=rfq.rfq_id,
        rfq_id=rfq.rfq_id,
        at=rfq.created_at,
        taker=rfq.taker_company,
        maker=trade.maker if trade is not None else None,
        structure=structure_words(rfq),
        qty=rfq.qty,
        bid=bid,
        ask=ask,
        outcome=outcome,
        response_s=_seconds(rfq.created_at, min(stamps)) if stamps else None,
        accepted_at=min(
            (q.clearing_events[0].created_at for q in quotes if q.clearing_events), default=None
        ),
        ended_at=(
            booked.clearing_events[-1].created_at
            if booked is not None and booked.clearing_events
            else None
        ),
        targets=tuple(str(t) for t in targets) if isinstance(targets, list | tuple) else (),
        quoted_by=tuple(sorted({q.maker_company for q in quotes})),
        taker_side=trade.side if trade is not None and outcome is Outcome.TRADED else None,
    )


def _still_clearing(quote: Quote) -> bool:
    return quote.clearing_status is not None and not (
        _clearing_outcome(str(quote.clearing_status)).final
    )


@dataclass(frozen=True)
class BookedTrade:
    """The trade an RFQ closed in: its maker, that quote's bid and ask, the taker's side."""

    maker: str
    bid: Decimal | None
    ask: Decimal | None
    side: str | None


def booked_trade(rfq: RFQ, booked: Quote | None) -> BookedTrade | None:
    """The trade an RFQ closed in: from the booked quote, else from the RFQ's own quote
    metadata naming a quote as booked (the quote itself may not be polled yet, or at all;
    its prices then only if the RFQ still lists them)."""
    if booked is not None:
        return BookedTrade(
            booked.maker_company,
            booked.aggregated_bid,
            booked.aggregated_ask,
            side_taken(booked.clearing_events),
        )
    for quote_id, meta in rfq.quotes_common_metadata.items():
        maker = meta.get("maker_company")
        if isinstance(maker, str) and clearing_is_booked(str(meta.get("clearing_status") or "")):
            events = meta.get("clearing_events")
            return BookedTrade(
                maker,
                next((b.quote_price for b in rfq.bids if b.parent_quote_id == quote_id), None),
                next((a.quote_price for a in rfq.asks if a.parent_quote_id == quote_id), None),
                side_taken(events) if isinstance(events, list) else None,
            )
    return None


def entry_to_json(entry: HistoryEntry) -> dict[str, Any]:
    """An entry as a JSON-ready object: decimals as strings, times in ISO 8601."""
    out: dict[str, Any] = {}
    for name, value in asdict(entry).items():
        if isinstance(value, Decimal):
            out[name] = format(value, "f")
        elif isinstance(value, datetime):
            out[name] = value.isoformat()
        elif isinstance(value, tuple):
            out[name] = list(value)
        elif isinstance(value, StrEnum):
            out[name] = value.value
        else:
            out[name] = value
    return out


_DECIMALS = ("qty", "bid", "ask", "response_s")
_TIMES = ("at", "accepted_at", "ended_at")


def entry_from_json(data: dict[str, Any]) -> HistoryEntry:
    """An entry read back from the store; raises (KeyError, ValueError) on a broken line."""
    fields: dict[str, Any] = dict(data)
    for name in _DECIMALS:
        fields[name] = None if fields.get(name) is None else Decimal(fields[name])
    for name in _TIMES:
        fields[name] = _stamp(fields.get(name))
    fields["kind"] = EntryKind(fields["kind"])
    fields["outcome"] = Outcome(fields["outcome"])
    fields["targets"] = tuple(fields.get("targets") or ())
    fields["quoted_by"] = tuple(fields.get("quoted_by") or ())
    known = HistoryEntry.__dataclass_fields__
    return HistoryEntry(**{k: v for k, v in fields.items() if k in known})


def with_seen(entry: HistoryEntry, seen: datetime | None) -> HistoryEntry:
    """The entry with ``at`` filled in from when the desk first saw it, if it had none."""
    return entry if entry.at is not None or seen is None else replace(entry, at=seen)
