"""The venue's risk checks on a trade, and the margin a trade still clearing holds back.

Checks at accept (a refusal ends the trade at once, see `tui.sandbox.engine.clearing`):

- ``rejected_failed_risk_checks``: a leg price further from the mark than
  `FAT_FINGER_MARK_FRACTION` of the mark *and* `FAT_FINGER_UNDERLYING_FRACTION` of the
  underlying price (a fat finger), or a trade notional (``sum |qty| * underlying``) over
  `MAX_TRADE_NOTIONAL`.
- ``rejected_failed_reduce_only_check``: a leg on an instrument past its expiry (or an
  underlying the market marks ``reduce_only``) that would grow either side's position.

Margin is reserved from accept to booking: a company's deposit for a trade is sized on its
positions *plus* every other trade still clearing in the same pool (`Risk.reserved_for`, their
deposits counted as on their way), and ``max_withdrawable_amount`` keeps that margin back too.
Two trades accepted against one balance cannot both count on it. Just before booking, each
side's equity after the trade must still cover its maintenance margin (`Risk.booking_refusal`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.models import ClearingStatus, TradeSide
from tui.sandbox.engine.margin import Holding
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import (
    accepted_quotes,
    leg_fills,
    load_rfq,
    parse_instrument,
    party_params,
    timestamp_to_ms,
)
from tui.sandbox.engine.store import Store

__all__ = [
    "FAT_FINGER_MARK_FRACTION",
    "FAT_FINGER_UNDERLYING_FRACTION",
    "MAX_TRADE_NOTIONAL",
    "Risk",
    "holdings_for",
    "reduce_only_underlyings",
]

FAT_FINGER_MARK_FRACTION = Decimal("0.25")
FAT_FINGER_UNDERLYING_FRACTION = Decimal("0.02")
MAX_TRADE_NOTIONAL = Decimal(100_000_000)
"""The largest trade (sum of leg notionals at the underlying price, USDC) the venue books."""

_ZERO = Decimal(0)


def reduce_only_underlyings(market: Any) -> frozenset[str]:
    """The listings the market marks ``reduce_only`` (trades there may only reduce)."""
    return frozenset(
        ticker
        for ticker in market.underlyings()
        if getattr(market.spec(ticker), "reduce_only", False)
    )


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


class Risk:
    """Risk checks and margin reservation over the store and the portfolio."""

    def __init__(self, store: Store, portfolio: Portfolio) -> None:
        self.store = store
        self.portfolio = portfolio

    # -- at accept ---------------------------------------------------------------------------

    def accept_refusal(
        self,
        rfq: dict[str, Any],
        quote: dict[str, Any],
        side: TradeSide,
        now_ms: int,
        reduce_only_underlyings: frozenset[str],
    ) -> tuple[ClearingStatus, str] | None:
        """Why the venue refuses this trade at accept (status and message), or None."""
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

    # -- margin reserved by trades still clearing --------------------------------------------

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
        for quote in accepted_quotes(self.store):
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

    def shortfall(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any], company: str
    ) -> Decimal:
        """The deposit ``company`` needs for this trade, on top of the trades still clearing."""
        reserved, incoming = self.reserved_for(pool["pool_id"], company, quote["parent_quote_id"])
        taker = company == rfq["taker_company"]
        fills = reserved + holdings_for(rfq, quote, quote["_clearing"]["taker_side"], taker=taker)
        return self.portfolio.shortfall(
            pool["pool_id"], company, party_params(pool, company), fills, incoming
        )

    def booking_refusal(
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
            if after.below_maintenance:
                return failure
        return None
