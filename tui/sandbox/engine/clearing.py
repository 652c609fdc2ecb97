"""The clearing state machine of contract.md: from an accepted quote to trades in a pool.

One method per move. Each runs inside the caller's transaction, appends a `ClearingEvent`
to the quote, and mirrors the status onto the RFQ (``clearing_status`` of an RFQ is the
status of its latest accepted quote). The path::

    accept --create_new--> pending_pool_creation --pool mined--> (taker margin check)
    accept --existing pool--> (taker margin check)
    (taker margin check) --short--> pending_taker_deposit_approval --taker permit--> last look
                         --enough--> pending_maker_last_look
    last look --reject--> rejected_maker_last_look_rejected
              --accept, no deposit needed--> success_trades_booked_into_pool
              --accept, maker short, no allowance--> pending_maker_deposit_approval
                                                     --maker permit--> pending_atomic_deposit
              --accept, otherwise--> pending_atomic_deposit --block mined--> booked

Deadlines (documented choices where the contract is silent):

- A deposit approval (taker or maker) waits `DEPOSIT_APPROVAL_S` (120 s) for a permit, then
  ``rejected_failed_*_deposit_approval``. A permit that already allows the amount skips it.
- Last look ends at the quote's ``expires_at``, but never sooner than `LAST_LOOK_MIN_S` (10 s)
  after the trade reached it (a trade that took its time through pool creation and deposit
  approval must not expire the instant it reaches the maker): then
  ``rejected_maker_last_look_expired``.
- Pool creation and the atomic deposit take one block (the exchange's ``block_delay_s``). A
  pool not created within `POOL_CREATION_S` (60 s) fails its trade:
  ``rejected_failed_pool_creation``.
- A clearing step that fails unexpectedly (a timer raising) never leaves its trade hanging:
  `Clearing.abandon` moves it to the final ``rejected_*`` status of that step.

Failure triggers besides the deadlines:

- ``rejected_failed_risk_checks`` at accept: a leg price further from the mark than
  `FAT_FINGER_MARK_FRACTION` of the mark *and* `FAT_FINGER_UNDERLYING_FRACTION` of the
  underlying price (a fat finger), or a trade notional (``sum |qty| * underlying``) over
  `MAX_TRADE_NOTIONAL`.
- ``rejected_failed_reduce_only_check`` at accept: a leg on an instrument past its expiry (or an
  underlying the market marks ``reduce_only``) that would grow either side's position.
- ``rejected_failed_pool_creation`` when the block confirms: another pool of the same two
  companies with the same name (case-insensitive) opened first.
- ``rejected_failed_taker_funding`` / ``rejected_failed_maker_funding`` at the atomic deposit:
  the wallet no longer holds the amount, or the allowance was used up meanwhile (for example by
  a manual deposit); and just before any booking, when that side's equity after the trade (its
  deposit included) would not cover its maintenance margin. ``rejected_failed_atomic_deposit``:
  the pool is no longer open.

Margin is reserved from accept to booking: a company's deposit for a trade is sized on its
positions *plus* every other trade still clearing in the same pool (`Clearing.reserved_for`,
their deposits counted as on their way), and ``max_withdrawable_amount`` keeps that margin back
too. Two trades accepted against one balance cannot both count on it.

A failed trade frees its RFQ: another quote may be accepted (or, past its expiry, the RFQ
expires). A booked trade closes the RFQ and voids its other open quotes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState, clearing_is_final
from tui.api.models import (
    USDC,
    ClearingStatus,
    MakerLastLookResponse,
    PartyStatus,
    PendingSettlementPool,
    QuoteAcceptResponse,
    RFQStatus,
    SettlementPoolStatus,
    TradeRole,
    TradeSide,
    TradeType,
    TransferStatus,
    TransferType,
)
from tui.api.types import format_timestamp
from tui.sandbox.engine.chain import Chain, pool_address, to_units
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.portfolio import Holding, Portfolio, parse_instrument, parse_margin_params
from tui.sandbox.engine.store import Store

__all__ = [
    "DEPOSIT_APPROVAL_S",
    "FAT_FINGER_MARK_FRACTION",
    "FAT_FINGER_UNDERLYING_FRACTION",
    "LAST_LOOK_MIN_S",
    "MAX_TRADE_NOTIONAL",
    "POOL_CREATION_S",
    "Clearing",
    "leg_fills",
    "load_pool",
    "load_quote",
    "load_rfq",
    "ms_to_timestamp",
    "save_pool",
    "save_quote",
    "save_rfq",
    "timestamp_to_ms",
]

DEPOSIT_APPROVAL_S = 120
"""How long a trade waits for a deposit permit before it is rejected."""
POOL_CREATION_S = 60
"""How long a trade waits for its new pool's creation block before it is rejected."""
LAST_LOOK_MIN_S = 10
"""The shortest last-look window a maker gets, whatever the quote's expiry."""
FAT_FINGER_MARK_FRACTION = Decimal("0.25")
FAT_FINGER_UNDERLYING_FRACTION = Decimal("0.02")
MAX_TRADE_NOTIONAL = Decimal(100_000_000)
"""The largest trade (sum of leg notionals at the underlying price, USDC) the venue books."""

_ZERO = Decimal(0)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_WAITING = {
    ClearingStatus.PENDING_POOL_CREATION.value: ClearingStatus.REJECTED_FAILED_POOL_CREATION,
    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL.value: (
        ClearingStatus.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL
    ),
    ClearingStatus.PENDING_MAKER_LAST_LOOK.value: ClearingStatus.REJECTED_MAKER_LAST_LOOK_EXPIRED,
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL.value: (
        ClearingStatus.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL
    ),
}
"""Waiting states with a deadline, and the rejection their deadline leads to."""
# -- time ---------------------------------------------------------------------------------


def ms_to_timestamp(ms: int) -> str:
    """Unix ms -> the wire's RFC 3339 text (exact, no float)."""
    return format_timestamp(_EPOCH + timedelta(milliseconds=ms))


def timestamp_to_ms(value: datetime | str) -> int:
    """An aware datetime (or RFC 3339 text) -> Unix ms, exactly, rounding sub-ms down."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // timedelta(milliseconds=1)


# -- record access ------------------------------------------------------------------------


def load_rfq(store: Store, rfq_id: str) -> dict[str, Any] | None:
    """The stored RFQ dict (wire fields plus ``_``-prefixed internals), or None."""
    return store.data("rfqs", "id = ?", (rfq_id,))


_KEEP = "\x00keep"


def save_rfq(store: Store, rfq: dict[str, Any], live_quote: str | None = _KEEP) -> None:
    """Write an RFQ back; ``live_quote`` (a quote id, or None) sets the live trade pointer."""
    columns: dict[str, Any] = {"status": rfq["rfq_status"], "data": rfq}
    if live_quote != _KEEP:
        columns["live_quote"] = live_quote
    store.update("rfqs", "id", rfq["rfq_id"], columns)


def load_quote(store: Store, quote_id: str) -> dict[str, Any] | None:
    """The stored quote dict, or None."""
    return store.data("quotes", "id = ?", (quote_id,))


def save_quote(store: Store, quote: dict[str, Any]) -> None:
    """Write a quote back (its ``quote_status`` is mirrored into the indexed column)."""
    store.update(
        "quotes", "id", quote["parent_quote_id"], {"status": quote["quote_status"], "data": quote}
    )


def load_pool(store: Store, pool_id: str) -> dict[str, Any] | None:
    """The stored pool dict, or None."""
    return store.data("pools", "id = ?", (pool_id,))


def save_pool(store: Store, pool: dict[str, Any]) -> None:
    """Write a pool back."""
    store.update("pools", "id", pool["pool_id"], {"status": pool["status"], "data": pool})


def party_params(pool: dict[str, Any], company_id: str) -> Any:
    """The margin parameters that apply to ``company_id`` in ``pool`` (parsed)."""
    key = "creator_params" if pool["company_creator"] == company_id else "other_params"
    return parse_margin_params(pool[key])


def other_party(pool: dict[str, Any], company_id: str) -> str:
    """The pool's other company."""
    parties = [p["company"] for p in pool["parties"]]
    return parties[1] if parties[0] == company_id else parties[0]


def leg_fills(
    rfq: dict[str, Any], quote: dict[str, Any], taker_side: TradeSide | str
) -> list[tuple[dict[str, Any], TradeSide, Decimal]]:
    """Per RFQ leg: ``(leg, the taker's side of it, price)``.

    A taker buying the structure buys its buy legs at the maker's ask and sells its sell legs
    at the bid; selling the structure is the mirror image.
    """
    per_leg = {lq["target_rfq_leg_id"]: lq for lq in quote["per_leg_quotes"]}
    out = []
    for leg in rfq["rfq_legs"]:
        side = TradeSide(leg["side"])
        taker_leg_side = side if TradeSide(taker_side) is TradeSide.BUY else side.opposite
        price = per_leg[leg["rfq_leg_id"]]["ask" if taker_leg_side is TradeSide.BUY else "bid"]
        out.append((leg, taker_leg_side, Decimal(price)))
    return out


def holdings_for(
    rfq: dict[str, Any], quote: dict[str, Any], taker_side: TradeSide | str, *, taker: bool
) -> list[Holding]:
    """The fills a trade would give the taker (``taker=True``) or the maker, as holdings."""
    holdings = []
    for leg, taker_leg_side, price in leg_fills(rfq, quote, taker_side):
        qty = Decimal(leg["qty"])
        buys = (taker_leg_side is TradeSide.BUY) == taker
        holdings.append(Holding(parse_instrument(leg["instrument"]), qty if buys else -qty, price))
    return holdings


class Clearing:
    """Moves trades along the clearing path; the exchange calls it inside its transactions."""

    def __init__(self, store: Store, chain: Chain, portfolio: Portfolio) -> None:
        self.store = store
        self.chain = chain
        self.portfolio = portfolio

    # -- bookkeeping of every move -----------------------------------------------------------

    def _move(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        current = quote.get("clearing_status")
        if clearing_is_final(current):
            # Every rejected_* and the booked status are final: a bug, never a request, gets here.
            raise RuntimeError(
                f"quote {quote['parent_quote_id']}: final status {current} cannot become {status}"
            )
        quote["clearing_status"] = status.value
        quote.setdefault("clearing_events", []).append(
            {
                "rfq_id": quote["target_rfq_id"],
                "parent_quote_id": quote["parent_quote_id"],
                "status": status.value,
                "created_at": ms_to_timestamp(now_ms),
                "taker_side": (quote.get("_clearing") or {}).get("taker_side"),
            }
        )
        save_quote(self.store, quote)
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        if rfq is not None:
            rfq["clearing_status"] = status.value
            save_rfq(self.store, rfq)

    def _deadline(self, quote: dict[str, Any], status: ClearingStatus, due_ms: int) -> None:
        quote["_clearing"]["deadline_ms"] = due_ms
        self.store.add_timer(due_ms, "clearing_deadline", f"{quote['parent_quote_id']}|{status}")

    def record_accept_failure(
        self, quote: dict[str, Any] | None, status: ClearingStatus, side: TradeSide, now_ms: int
    ) -> None:
        """Record a ``rejected_failed_taker_accept_*`` on the quote (when there is one).

        Only a quote without a clearing status yet records it: a quote whose trade is under
        way or over (a maker's rejection, a failed deposit, an earlier refused accept) keeps
        its status; the taker gets the 409 all the same.
        """
        if quote is None or quote.get("clearing_status") is not None:
            return
        quote["_clearing"] = {**(quote.get("_clearing") or {}), "taker_side": side.value}
        if quote["quote_status"] == QuoteState.OPEN:
            # An expired quote is expired; a quote of an expired RFQ is void with it.
            expired = status is ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED
            quote["quote_status"] = (QuoteState.EXPIRED if expired else QuoteState.VOID).value
        self._move(quote, status, now_ms)

    def fail(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        """End a trade with a ``rejected_*`` status and free its RFQ."""
        quote["quote_status"] = QuoteState.FAILED.value
        self._move(quote, status, now_ms)
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        if rfq is None:
            return
        save_rfq(self.store, rfq, live_quote=None)
        if rfq["rfq_status"] == RFQStatus.OPEN and now_ms >= rfq["_expires_ms"]:
            self.expire_rfq(rfq, now_ms)

    def expire_rfq(self, rfq: dict[str, Any], now_ms: int) -> None:
        """An open RFQ past its expiry becomes ``expired``; its open quotes become void."""
        rfq["rfq_status"] = RFQStatus.EXPIRED.value
        save_rfq(self.store, rfq)
        self.void_open_quotes(rfq["rfq_id"])

    def void_open_quotes(self, rfq_id: str, keep: str | None = None) -> None:
        """Every open quote of an RFQ (but ``keep``) becomes ``void``."""
        for row in self.store.all(
            "SELECT data FROM quotes WHERE rfq_id = ? AND status = ?", (rfq_id, QuoteState.OPEN)
        ):
            quote = json.loads(row[0])
            if quote["parent_quote_id"] != keep:
                quote["quote_status"] = QuoteState.VOID.value
                save_quote(self.store, quote)

    # -- accept ------------------------------------------------------------------------------

    def accept(
        self,
        rfq: dict[str, Any],
        quote: dict[str, Any],
        side: TradeSide,
        now_ms: int,
        *,
        reduce_only_underlyings: frozenset[str] = frozenset(),
    ) -> QuoteAcceptResponse | ServiceError:
        """Create the trade of an open quote on an open RFQ (already validated).

        Returns the response, or the 409 to raise *after* the transaction commits (the
        rejection is recorded on the quote).
        """
        quote["quote_status"] = QuoteState.ACCEPTED.value
        quote["_clearing"] = {
            "taker_side": side.value,
            "accepted_ms": now_ms,
            "taker_deposit": "0",
            "maker_deposit": "0",
        }
        save_rfq(self.store, rfq, live_quote=quote["parent_quote_id"])
        refusal = self._risk_refusal(rfq, quote, side, now_ms, reduce_only_underlyings)
        if refusal is not None:
            status, message = refusal
            self.fail(quote, status, now_ms)
            return ServiceError.conflict(f"{status.value}: {message}")

        strategy = quote["_pool_strategy"]
        if strategy["strategy"] == "create_new":
            pool = self._create_pool_for(quote, rfq, now_ms)
            quote["pool_location"] = pool["pool_id"]
            quote["_clearing"]["pool_id"] = pool["pool_id"]
            self._move(quote, ClearingStatus.PENDING_POOL_CREATION, now_ms)
            self._deadline(
                quote, ClearingStatus.PENDING_POOL_CREATION, now_ms + POOL_CREATION_S * 1000
            )
            save_quote(self.store, quote)
            return QuoteAcceptResponse(
                new_clearing_status=ClearingStatus.PENDING_POOL_CREATION,
                pending_deposits_sum_qty=_ZERO,
                pending_settlement_pool=PendingSettlementPool(
                    id=pool["pool_id"],
                    created_at=pool["created_at"],
                    status=pool["status"],
                    company_creator=pool["company_creator"],
                    address=pool["address"],
                    confirmed_by_transaction_id=None,
                ),
            )
        quote["_clearing"]["pool_id"] = strategy["pool_id"]
        self._check_taker_margin(quote, rfq, now_ms)
        return QuoteAcceptResponse(
            new_clearing_status=quote["clearing_status"],
            pending_deposits_sum_qty=Decimal(quote["_clearing"]["taker_deposit"]),
            pending_settlement_pool=None,
        )

    def _risk_refusal(
        self,
        rfq: dict[str, Any],
        quote: dict[str, Any],
        side: TradeSide,
        now_ms: int,
        reduce_only_underlyings: frozenset[str],
    ) -> tuple[ClearingStatus, str] | None:
        notional = _ZERO
        pool_id = quote["_pool_strategy"].get("pool_id")
        taker = rfq["taker_company"]
        maker = quote["maker_company"]
        for index, (leg, taker_leg_side, price) in enumerate(leg_fills(rfq, quote, side)):
            instrument = parse_instrument(leg["instrument"])
            value = self.portfolio.value(instrument)
            mark = Decimal(value.price)
            under = Decimal(value.underlying_price)
            qty = Decimal(leg["qty"])
            notional += qty * under
            allowed = max(mark * FAT_FINGER_MARK_FRACTION, under * FAT_FINGER_UNDERLYING_FRACTION)
            if abs(price - mark) > allowed:
                return (
                    ClearingStatus.REJECTED_FAILED_RISK_CHECKS,
                    f"leg_quotes[{index}]: price {price} is too far from the mark "
                    f"{mark.quantize(Decimal('0.00000001')).normalize()} (fat-finger check)",
                )
            if self._reduce_only(instrument, now_ms, reduce_only_underlyings) and pool_id:
                signed = qty if taker_leg_side is TradeSide.BUY else -qty
                if self._grows(pool_id, taker, instrument, signed) or self._grows(
                    pool_id, maker, instrument, -signed
                ):
                    return (
                        ClearingStatus.REJECTED_FAILED_REDUCE_ONLY_CHECK,
                        f"rfq_legs[{index}]: the instrument only takes trades that reduce a "
                        "position (expired or reduce-only listing)",
                    )
            elif self._reduce_only(instrument, now_ms, reduce_only_underlyings):
                return (
                    ClearingStatus.REJECTED_FAILED_REDUCE_ONLY_CHECK,
                    f"rfq_legs[{index}]: the instrument only takes trades that reduce a "
                    "position, and a new pool holds none",
                )
        if notional > MAX_TRADE_NOTIONAL:
            return (
                ClearingStatus.REJECTED_FAILED_RISK_CHECKS,
                f"qty: trade notional {notional.quantize(Decimal(1))} USDC is over the "
                f"{MAX_TRADE_NOTIONAL} USDC limit",
            )
        return None

    @staticmethod
    def _reduce_only(instrument: Any, now_ms: int, underlyings: frozenset[str]) -> bool:
        if instrument.underlying in underlyings:
            return True
        expiry = getattr(instrument, "expiry", None)
        return expiry is not None and timestamp_to_ms(expiry) <= now_ms

    def _grows(self, pool_id: str, company_id: str, instrument: Any, signed: Decimal) -> bool:
        held = {h.key: h.qty for h in self.portfolio.holdings(pool_id, company_id)}
        current = held.get(Holding(instrument, _ZERO, _ZERO).key, _ZERO)
        return abs(current + signed) > abs(current)

    def _create_pool_for(
        self, quote: dict[str, Any], rfq: dict[str, Any], now_ms: int
    ) -> dict[str, Any]:
        strategy = quote["_pool_strategy"]
        pool_id = self.store.new_id()
        created_at = ms_to_timestamp(now_ms)
        maker, taker = quote["maker_company"], rfq["taker_company"]
        pool = {
            "pool_id": pool_id,
            "created_at": created_at,
            "company_creator": maker,
            "status": SettlementPoolStatus.PENDING.value,
            "address": pool_address(pool_id),
            "name": strategy["name"],
            "confirmed_by_transaction_id": None,
            "creator_params": strategy["creator_params"],
            "other_params": strategy["other_params"],
            "parties": [
                {
                    "company": company,
                    "created_at": created_at,
                    "status": PartyStatus.PENDING.value,
                    "confirmed_by_transaction_id": None,
                }
                for company in (maker, taker)
            ],
            "error": None,
            "_origin_quote": quote["parent_quote_id"],
        }
        self.insert_pool(pool, now_ms)
        return pool

    def insert_pool(self, pool: dict[str, Any], now_ms: int) -> None:
        """Store a new pending pool and schedule its creation one block later."""
        creator = pool["company_creator"]
        self.store.insert(
            "pools",
            {
                "id": pool["pool_id"],
                "creator": creator,
                "other": other_party(pool, creator),
                "address": pool["address"],
                "status": pool["status"],
                "name": pool["name"],
                "data": pool,
            },
        )
        self.store.add_timer(self.chain.confirm_at(now_ms), "pool_open", pool["pool_id"])

    # -- pool creation -----------------------------------------------------------------------

    def pool_mined(self, pool_id: str, now_ms: int) -> None:
        """A pending pool's creation block: open it (or fail on a name clash), move its trades."""
        pool = load_pool(self.store, pool_id)
        if pool is None or pool["status"] != SettlementPoolStatus.PENDING:
            return
        clash = self.store.one(
            "SELECT id FROM pools WHERE status = ? AND lower(name) = lower(?) AND id != ? AND "
            "((creator = ? AND other = ?) OR (creator = ? AND other = ?))",
            (
                SettlementPoolStatus.OPEN.value,
                pool["name"],
                pool_id,
                *(p["company"] for p in pool["parties"]),
                *(p["company"] for p in reversed(pool["parties"])),
            ),
        )
        waiting = [
            q
            for q in self._accepted_quotes()
            if q["clearing_status"] == ClearingStatus.PENDING_POOL_CREATION
            and q["_clearing"].get("pool_id") == pool_id
        ]
        if clash is not None:
            pool["status"] = SettlementPoolStatus.CANCELED.value
            pool["error"] = (
                f"pool_name: a pool named {pool['name']!r} already exists between these companies"
            )
            save_pool(self.store, pool)
            for quote in waiting:
                self.fail(quote, ClearingStatus.REJECTED_FAILED_POOL_CREATION, now_ms)
            return
        tx = self.chain.new_tx_id()
        pool["status"] = SettlementPoolStatus.OPEN.value
        pool["confirmed_by_transaction_id"] = tx
        for party in pool["parties"]:
            party["status"] = PartyStatus.CONFIRMED.value
            party["confirmed_by_transaction_id"] = tx
        save_pool(self.store, pool)
        for quote in waiting:
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is not None:
                self._check_taker_margin(quote, rfq, now_ms)

    def reserved_for(
        self, pool_id: str, company_id: str, exclude: str | None = None
    ) -> tuple[list[Holding], Decimal]:
        """What the trades still clearing in a pool hold back for one of its companies.

        Returns the fills those trades would give ``company_id`` (as taker or maker) and the
        deposits it has been asked to bring for them; ``exclude`` leaves one trade out (the
        one being checked). Margin for a trade is reserved from its accept on: a second trade,
        or a withdrawal, cannot spend money the first one counts on.
        """
        fills: list[Holding] = []
        incoming = _ZERO
        for quote in self._accepted_quotes():
            clearing = quote.get("_clearing") or {}
            if quote["parent_quote_id"] == exclude or clearing.get("pool_id") != pool_id:
                continue
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is None:
                continue
            if rfq["taker_company"] == company_id:
                taker, deposit = True, clearing.get("taker_deposit", "0")
            elif quote["maker_company"] == company_id:
                taker, deposit = False, clearing.get("maker_deposit", "0")
            else:
                continue
            fills += holdings_for(rfq, quote, clearing["taker_side"], taker=taker)
            incoming += Decimal(deposit)
        return fills, incoming

    def _shortfall(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any], company: str
    ) -> Decimal:
        """The deposit ``company`` needs for this trade, on top of the trades still clearing."""
        reserved, incoming = self.reserved_for(pool["pool_id"], company, quote["parent_quote_id"])
        taker = company == rfq["taker_company"]
        fills = reserved + holdings_for(rfq, quote, quote["_clearing"]["taker_side"], taker=taker)
        return self.portfolio.shortfall(
            pool["pool_id"], company, party_params(pool, company), fills, incoming
        )

    def _booking_refusal(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any]
    ) -> ClearingStatus | None:
        """The last check before booking: each side's equity after the trade (its deposit
        included, the trades still clearing counted) must cover maintenance margin.

        Initial margin was checked when the deposits were sized; the market may have moved a
        little since, which a trade may absorb, but not into a position that could be
        liquidated the moment it is booked.
        """
        clearing = quote["_clearing"]
        sides = (
            (
                rfq["taker_company"],
                True,
                "taker_deposit",
                ClearingStatus.REJECTED_FAILED_TAKER_FUNDING,
            ),
            (
                quote["maker_company"],
                False,
                "maker_deposit",
                ClearingStatus.REJECTED_FAILED_MAKER_FUNDING,
            ),
        )
        for company, taker, deposit_key, failure in sides:
            reserved, incoming = self.reserved_for(
                pool["pool_id"], company, quote["parent_quote_id"]
            )
            fills = reserved + holdings_for(rfq, quote, clearing["taker_side"], taker=taker)
            after = self.portfolio.state(
                pool["pool_id"],
                company,
                party_params(pool, company),
                fills,
                incoming + Decimal(clearing.get(deposit_key, "0")),
            )
            if after.maintenance_margin is not None and after.equity < after.maintenance_margin:
                return failure
        return None

    def _accepted_quotes(self) -> list[dict[str, Any]]:
        rows = self.store.all(
            "SELECT data FROM quotes WHERE status = ? ORDER BY seq", (QuoteState.ACCEPTED,)
        )
        return [json.loads(row[0]) for row in rows]

    # -- taker margin and deposit approval ---------------------------------------------------

    def _check_taker_margin(self, quote: dict[str, Any], rfq: dict[str, Any], now_ms: int) -> None:
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        assert pool is not None
        taker = rfq["taker_company"]
        shortfall = self._shortfall(quote, rfq, pool, taker)
        quote["_clearing"]["taker_deposit"] = format(shortfall, "f")
        if shortfall <= 0:
            self._enter_last_look(quote, now_ms)
            return
        self._move(quote, ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL, now_ms)
        if self._allowed(taker, pool, shortfall):
            self._enter_last_look(quote, now_ms)
            return
        self._deadline(
            quote, ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL, now_ms + DEPOSIT_APPROVAL_S * 1000
        )
        save_quote(self.store, quote)

    def _allowed(self, company_id: str, pool: dict[str, Any], amount: Decimal) -> bool:
        wallet = self.chain.wallet(company_id)
        return self.chain.allowance_units(wallet.address, pool["address"]) >= to_units(amount)

    def _enter_last_look(self, quote: dict[str, Any], now_ms: int) -> None:
        self._move(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, now_ms)
        due = max(quote["_expires_ms"], now_ms + LAST_LOOK_MIN_S * 1000)
        self._deadline(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, due)
        save_quote(self.store, quote)

    def allowance_changed(self, owner: str, spender: str, now_ms: int) -> None:
        """A permit set ``owner``'s allowance for pool address ``spender``: move what waited."""
        for quote in self._accepted_quotes():
            pool = load_pool(self.store, quote["_clearing"].get("pool_id", ""))
            if pool is None or pool["address"] != spender.lower():
                continue
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is None:
                continue
            status = quote["clearing_status"]
            if status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
                taker = rfq["taker_company"]
                if self.chain.wallet(taker).address == owner.lower() and self._allowed(
                    taker, pool, Decimal(quote["_clearing"]["taker_deposit"])
                ):
                    self._enter_last_look(quote, now_ms)
            elif status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL:
                maker = quote["maker_company"]
                if self.chain.wallet(maker).address == owner.lower() and self._allowed(
                    maker, pool, Decimal(quote["_clearing"]["maker_deposit"])
                ):
                    self._enter_atomic_deposit(quote, now_ms)

    # -- last look ---------------------------------------------------------------------------

    def last_look(self, quote: dict[str, Any], accept: bool, now_ms: int) -> MakerLastLookResponse:
        """The maker's answer on a trade in ``pending_maker_last_look`` (checked by the caller)."""
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        assert pool is not None and rfq is not None
        if not accept:
            self.fail(quote, ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED, now_ms)
            return MakerLastLookResponse(
                new_clearing_status=ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED,
                pending_deposits_sum_qty=_ZERO,
                settlement_pool_address=pool["address"],
            )
        maker = quote["maker_company"]
        maker_short = self._shortfall(quote, rfq, pool, maker)
        quote["_clearing"]["maker_deposit"] = format(maker_short, "f")
        taker_deposit = Decimal(quote["_clearing"]["taker_deposit"])
        if taker_deposit <= 0 and maker_short <= 0:
            refusal = self._booking_refusal(quote, rfq, pool)
            if refusal is None:
                self.book(quote, rfq, pool, now_ms)
            else:
                self.fail(quote, refusal, now_ms)
        elif maker_short > 0 and not self._allowed(maker, pool, maker_short):
            self._move(quote, ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL, now_ms)
            self._deadline(
                quote,
                ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
                now_ms + DEPOSIT_APPROVAL_S * 1000,
            )
            save_quote(self.store, quote)
        else:
            self._enter_atomic_deposit(quote, now_ms)
        return MakerLastLookResponse(
            new_clearing_status=quote["clearing_status"],
            pending_deposits_sum_qty=maker_short,
            settlement_pool_address=pool["address"],
        )

    def _enter_atomic_deposit(self, quote: dict[str, Any], now_ms: int) -> None:
        self._move(quote, ClearingStatus.PENDING_ATOMIC_DEPOSIT, now_ms)
        self.store.add_timer(
            self.chain.confirm_at(now_ms), "atomic_deposit", quote["parent_quote_id"]
        )

    # -- deadlines and the atomic deposit ----------------------------------------------------

    def abandon(self, kind: str, ref: str, now_ms: int) -> None:
        """A clearing timer (``kind`` for ``ref``) failed: end its trade with a final status.

        Pool creation -> the pool is canceled and its waiting trades
        ``rejected_failed_pool_creation``; the atomic deposit -> ``rejected_failed_atomic_deposit``;
        a deadline -> the rejection of the state it guarded, when the trade is still there. A
        trade that already ended (or moved on past a deadline) is left alone.
        """
        if kind == "pool_open":
            pool = load_pool(self.store, ref)
            if pool is not None and pool["status"] == SettlementPoolStatus.PENDING:
                pool["status"] = SettlementPoolStatus.CANCELED.value
                pool["error"] = "pool creation failed"
                save_pool(self.store, pool)
            for waiting in self._accepted_quotes():
                if waiting["_clearing"].get("pool_id") == ref and waiting["clearing_status"] == (
                    ClearingStatus.PENDING_POOL_CREATION
                ):
                    self.fail(waiting, ClearingStatus.REJECTED_FAILED_POOL_CREATION, now_ms)
            return
        quote_id, _, waited = ref.partition("|")
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["quote_status"] != QuoteState.ACCEPTED:
            return
        if clearing_is_final(quote["clearing_status"]):
            return
        if kind == "atomic_deposit":
            self.fail(quote, ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT, now_ms)
        elif kind == "clearing_deadline" and quote["clearing_status"] == waited:
            self.fail(
                quote, _WAITING.get(waited, ClearingStatus.REJECTED_FAILED_RISK_CHECKS), now_ms
            )

    def rescue(self, now_ms: int) -> None:
        """Give every trade still clearing with no timer left to move it one due now.

        A database written by an older sandbox may hold trades whose only timer failed and was
        dropped: a waiting state then meets its deadline at once, and a pending atomic deposit
        gets its block (it books or fails). Cheap when nothing hangs: one pass over the
        accepted quotes.
        """
        for quote in self._accepted_quotes():
            quote_id = quote["parent_quote_id"]
            status = quote["clearing_status"]
            pool_id = (quote.get("_clearing") or {}).get("pool_id", "")
            pending = self.store.scalar(
                "SELECT 1 FROM timers WHERE ref = ? OR ref LIKE ? OR (kind = 'pool_open' "
                "AND ref = ?) LIMIT 1",
                (quote_id, f"{quote_id}|%", pool_id),
            )
            if pending:
                continue
            if status == ClearingStatus.PENDING_ATOMIC_DEPOSIT:
                self.store.add_timer(now_ms, "atomic_deposit", quote_id)
            elif status in _WAITING:
                quote["_clearing"]["deadline_ms"] = now_ms
                save_quote(self.store, quote)
                self.store.add_timer(now_ms, "clearing_deadline", f"{quote_id}|{status}")

    def deadline(self, ref: str, now_ms: int) -> None:
        """A waiting state's deadline passed: reject the trade if it is still waiting there."""
        quote_id, _, status = ref.partition("|")
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["clearing_status"] != status or status not in _WAITING:
            return
        if quote["_clearing"].get("deadline_ms", now_ms) > now_ms:
            return
        self.fail(quote, _WAITING[status], now_ms)

    def atomic_deposit(self, quote_id: str, now_ms: int) -> None:
        """The atomic-deposit block: move both deposits into the pool and book the trades."""
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["clearing_status"] != ClearingStatus.PENDING_ATOMIC_DEPOSIT:
            return
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        assert rfq is not None
        if pool is None or pool["status"] != SettlementPoolStatus.OPEN:
            self.fail(quote, ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT, now_ms)
            return
        deposits = [
            (
                rfq["taker_company"],
                Decimal(quote["_clearing"]["taker_deposit"]),
                ClearingStatus.REJECTED_FAILED_TAKER_FUNDING,
            ),
            (
                quote["maker_company"],
                Decimal(quote["_clearing"]["maker_deposit"]),
                ClearingStatus.REJECTED_FAILED_MAKER_FUNDING,
            ),
        ]
        for company_id, amount, failure in deposits:
            if amount <= 0:
                continue
            wallet = self.chain.wallet(company_id)
            if wallet.usdc < amount or not self._allowed(company_id, pool, amount):
                self.fail(quote, failure, now_ms)
                return
        refusal = self._booking_refusal(quote, rfq, pool)
        if refusal is not None:
            self.fail(quote, refusal, now_ms)
            return
        for company_id, amount, _ in deposits:
            if amount > 0:
                self._deposit(quote, pool, company_id, amount, now_ms)
        self.book(quote, rfq, pool, now_ms)

    def _deposit(
        self,
        quote: dict[str, Any],
        pool: dict[str, Any],
        company_id: str,
        amount: Decimal,
        now_ms: int,
    ) -> None:
        wallet = self.chain.wallet(company_id)
        self.chain.spend_allowance(wallet.address, pool["address"], amount)
        self.chain.move_wallet_usdc(company_id, -amount)
        self.portfolio.move_balance(pool["pool_id"], company_id, amount)
        transfer_id = self.store.new_id()
        self.store.insert(
            "transfers",
            {
                "id": transfer_id,
                "company_id": company_id,
                "pool_id": pool["pool_id"],
                "status": TransferStatus.CONFIRMED.value,
                "data": {
                    "id": transfer_id,
                    "rfq_id": quote["target_rfq_id"],
                    "parent_quote_id": quote["parent_quote_id"],
                    "created_at": ms_to_timestamp(now_ms),
                    "company": company_id,
                    "counterparty": other_party(pool, company_id),
                    "qty": format(amount, "f"),
                    "asset": USDC,
                    "target_pool_location": pool["pool_id"],
                    "transfer_type": TransferType.DEPOSIT.value,
                    "status": TransferStatus.CONFIRMED.value,
                    "confirmed_by_transaction_id": self.chain.new_tx_id(),
                },
            },
        )

    # -- booking -----------------------------------------------------------------------------

    def book(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any], now_ms: int
    ) -> None:
        """Book one trade per leg per side, update positions, close the RFQ, void the rest."""
        taker, maker = rfq["taker_company"], quote["maker_company"]
        created_at = ms_to_timestamp(now_ms)
        for leg, taker_leg_side, price in leg_fills(rfq, quote, quote["_clearing"]["taker_side"]):
            instrument = parse_instrument(leg["instrument"])
            qty = Decimal(leg["qty"])
            under = Decimal(self.portfolio.value(instrument).underlying_price)
            taker_realized = _ZERO  # the taker's fill is booked first
            for company, counterparty, side, role in (
                (taker, maker, taker_leg_side, TradeRole.TAKER),
                (maker, taker, taker_leg_side.opposite, TradeRole.MAKER),
            ):
                trade_id = self.store.new_id()
                self.store.insert(
                    "trades",
                    {
                        "id": trade_id,
                        "company_id": company,
                        "pool_id": pool["pool_id"],
                        "role": role.value,
                        "underlying": instrument.underlying,
                        "notional": format(qty * under, "f"),
                        "created_ms": now_ms,
                        "data": {
                            "id": trade_id,
                            "source_rfq": rfq["rfq_id"],
                            "source_rfq_leg_id": leg["rfq_leg_id"],
                            "source_quote": quote["parent_quote_id"],
                            "company": company,
                            "counterparty": counterparty,
                            "created_at": created_at,
                            "side": side.value,
                            "instrument": leg["instrument"],
                            "price": format(price, "f"),
                            "qty": leg["qty"],
                            "pool_location": pool["pool_id"],
                            "role": role.value,
                            "trade_type": TradeType.TRADE.value,
                            "status": ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL.value,
                        },
                    },
                )
                signed = qty if side is TradeSide.BUY else -qty
                # The maker's fill realizes the exact opposite of the taker's: the pool's money
                # is conserved whatever rounding the taker's side needed.
                realized = self.portfolio.book_fill(
                    pool["pool_id"],
                    company,
                    instrument,
                    signed,
                    price,
                    as_taker=role is TradeRole.TAKER,
                    now_ms=now_ms,
                    realized=None if role is TradeRole.TAKER else -taker_realized,
                )
                if role is TradeRole.TAKER:
                    taker_realized = realized
        quote["quote_status"] = QuoteState.FILLED.value
        quote["pool_location"] = pool["pool_id"]
        self._move(quote, ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL, now_ms)
        fresh = load_rfq(self.store, rfq["rfq_id"])
        assert fresh is not None
        fresh["rfq_status"] = RFQStatus.CLOSED.value
        save_rfq(self.store, fresh)
        self.void_open_quotes(rfq["rfq_id"])
