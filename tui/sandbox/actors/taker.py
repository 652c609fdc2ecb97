"""A simulated taker: sends RFQs to the user, accepts good quotes, funds its trades.

Takers (EMBR, FJRD) send RFQs to the user's company (sometimes to simulated makers as well) at
a seeded Poisson rate, collect quotes for a while, accept the best one that is within their
price limit, and approve their own deposits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    NewRfqRequest,
    RFQLeg,
    RFQStatus,
    TradeSide,
)
from tui.sandbox.actors.actor import Actor, first, moment_at
from tui.sandbox.actors.deposits import deposit_needed
from tui.sandbox.actors.pricing import (
    TakerRequest,
    quote_cost_bps,
    structure_fair_value,
    taker_request,
)
from tui.sandbox.actors.profiles import TakerProfile, draw, exponential, uniform
from tui.sandbox.engine.errors import ServiceError

__all__ = ["TakerActor"]


@dataclass
class _OpenRfq:
    rfq_id: str
    request: TakerRequest
    legs: list[RFQLeg]
    decide_ms: int
    expires_ms: int
    accepted: str | None = None
    approved: set[str] = field(default_factory=set)
    tried: set[str] = field(default_factory=set)


class TakerActor(Actor):
    """A simulated taker: sends RFQs to the user, accepts good quotes, approves deposits."""

    def __init__(
        self,
        *args: Any,
        profile: TakerProfile,
        user_id: str | None,
        maker_ids: list[str],
        start_ms: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.profile = profile
        self.user_id = user_id
        self.maker_ids = maker_ids
        self._index = 0
        first_gap = self.config.first_rfq_delay_s + exponential(
            self.seed, self.config.taker_rfq_interval_s, self.name, "first"
        )
        self._next_ms = start_ms + self.pace_ms(first_gap)
        self._open: dict[str, _OpenRfq] = {}

    def step(self, now: int) -> None:
        """Send the RFQ that is due, then follow every open RFQ and trade."""
        if now >= self._next_ms:
            index = self._index
            self._index += 1
            self._send(index, now)
            gap = self.pace_ms(
                exponential(self.seed, self.config.taker_rfq_interval_s, self.name, index, "gap")
            )
            # After a jump of the clock, carry on from now rather than firing a burst.
            self._next_ms = max(self._next_ms + gap, now + gap // 4, now + 1)
        for open_rfq in list(self._open.values()):
            self._follow(open_rfq, now)

    def _targets(self, index: int) -> list[str]:
        targets = [self.user_id] if self.user_id else []
        makers = list(self.maker_ids)
        compete = draw(self.seed, self.name, index, "compete") < self.config.taker_competition
        if makers and (compete or not targets):
            count = 1 if draw(self.seed, self.name, index, "how-many") < 0.5 else 2
            start = int(draw(self.seed, self.name, index, "which") * len(makers))
            targets += [makers[(start + k) % len(makers)] for k in range(min(count, len(makers)))]
        return targets

    def _send(self, index: int, now: int) -> None:
        targets = self._targets(index)
        if not targets:
            return
        request = taker_request(
            self.market, self.seed, self.name, index, self.profile.notional_usdc, now
        )
        expires = now + round(self.config.taker_rfq_lifetime_s * 1000)
        body = NewRfqRequest(
            structure=request.structure,
            qty=request.qty,
            expires_at=moment_at(expires),
            target_companies=targets,
        )
        try:
            rfq = self.exchange.rfqs_new(self.me.caller, body)
        except ServiceError as exc:
            self.record(now, "refused", f"#{index}", f"rfq: {exc.message}")
            return
        low, high = self.profile.decide_after_s
        wait = self.pace_ms(uniform(self.seed, low, high, self.name, index, "decide"))
        decide = min(now + wait, expires - 3_000)
        self._open[rfq.rfq_id] = _OpenRfq(rfq.rfq_id, request, list(rfq.rfq_legs), decide, expires)
        to = ",".join(self.short(t) for t in targets)
        self.record(
            now,
            "rfq",
            rfq.rfq_id,
            f"{request.kind} {request.side} {format(request.qty, 'f')} to {to}",
        )

    def _follow(self, open_rfq: _OpenRfq, now: int) -> None:
        if open_rfq.accepted is None:
            if now >= open_rfq.expires_ms:
                del self._open[open_rfq.rfq_id]
                self.record(now, "expired", open_rfq.rfq_id, "no acceptable quote")
            elif now >= open_rfq.decide_ms:
                self._choose(open_rfq, now)
            return
        quote = first(
            self.exchange.quotes_received(self.me.caller, limit=1, offset=0, id=open_rfq.accepted)
        )
        if quote is None:
            del self._open[open_rfq.rfq_id]
            return
        clearing = str(quote.clearing_status or "")
        if clearing == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL:
            del self._open[open_rfq.rfq_id]
            self.record(now, "booked", open_rfq.rfq_id, open_rfq.accepted)
        elif clearing.startswith("rejected"):
            self.record(now, "failed", open_rfq.rfq_id, clearing)
            open_rfq.tried.add(open_rfq.accepted)
            open_rfq.accepted = None
        elif (
            clearing == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL
            and open_rfq.accepted not in open_rfq.approved
        ):
            amount = deposit_needed(quote, open_rfq.legs, self.market.mark_price)
            if self.approve(now, open_rfq.rfq_id, self.pool_address(quote.pool_location), amount):
                open_rfq.approved.add(open_rfq.accepted)

    def _choose(self, open_rfq: _OpenRfq, now: int) -> None:
        rfq = first(
            self.exchange.rfqs_sent(
                self.me.caller, limit=1, offset=0, id=open_rfq.rfq_id, price=False
            )
        )
        if rfq is None or rfq.rfq_status != RFQStatus.OPEN:
            del self._open[open_rfq.rfq_id]
            return
        side = open_rfq.request.side
        offers = rfq.asks if side is TradeSide.BUY else rfq.bids
        book = [q for q in offers if q.parent_quote_id not in open_rfq.tried]
        if not book:
            return
        pick = min if side is TradeSide.BUY else max
        best = pick(book, key=lambda q: q.quote_price)
        fair, notional = structure_fair_value(self.market, open_rfq.request.structure, now)
        cost = quote_cost_bps(side, best.quote_price, fair, notional)
        if cost > self.profile.limit_bps:
            return
        body = AcceptQuoteRequest(
            parent_quote_id=best.parent_quote_id, rfq_id=open_rfq.rfq_id, side=side
        )
        try:
            self.exchange.quotes_accept(self.me.caller, body)
        except ServiceError as exc:
            open_rfq.tried.add(best.parent_quote_id)
            self.record(now, "refused", open_rfq.rfq_id, f"accept: {exc.message}")
            return
        open_rfq.accepted = best.parent_quote_id
        maker = rfq.quotes_common_metadata.get(best.parent_quote_id, {}).get("maker_company", "")
        self.record(
            now,
            "accept",
            open_rfq.rfq_id,
            f"{side} at {format(best.quote_price, 'f')} from {self.short(str(maker))} "
            f"({cost.quantize(Decimal('0.01'))} bps)",
        )
