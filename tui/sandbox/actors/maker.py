"""A simulated market maker: quotes RFQs, restates them, takes its last look, funds its trades.

Makers (ALPHA, BORE, CBLT, DUNE) see the RFQs they are asked for, quote them after a seeded
delay (some fast, some slow, some RFQs never) around the mark with a size-dependent spread
(`tui.sandbox.actors.pricing`), restate a quote that has grown old or that the mark has moved
away from, take their last look on an accepted quote (mostly accept, sometimes reject,
sometimes say nothing until the window closes), and approve their own deposits.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import quote_state_is_final
from tui.api.models import (
    RFQ,
    ClearingStatus,
    CreateNewPool,
    MakerLastLookRequest,
    NewQuoteRequest,
    Quote,
    ReplaceQuoteRequest,
    RequestAction,
    RFQStatus,
    UnknownVariant,
    UseExistingPool,
    VanillaOptionInstrument,
)
from tui.sandbox.actors.actor import Actor, first, moment_at, ms_of
from tui.sandbox.actors.deposits import deposit_needed, estimated_deposit
from tui.sandbox.actors.pricing import PricedLeg, maker_leg_quotes
from tui.sandbox.actors.profiles import LastLookAction, MakerProfile
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.seed import default_margin_params

__all__ = ["MakerActor"]

_BPS = Decimal(10_000)
_POOL_RECHECK_MS = 5_000
"""How long a maker trusts "no open pool with this taker" before it looks again."""
_MIN_QUOTE_LEFT_MS = 1_500
"""A maker does not quote (or restate) an RFQ that closes sooner than this."""


@dataclass
class _LiveQuote:
    quote_id: str
    rfq: RFQ
    placed_ms: int
    expires_ms: int
    marks: dict[str, Decimal]
    last_look_done: bool = False
    deposit_done: bool = False


class MakerActor(Actor):
    """A simulated market maker: quotes, restates, last look, deposit approvals."""

    def __init__(self, *args: Any, profile: MakerProfile, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.profile = profile
        self._seen = 0
        self._planned: dict[str, tuple[int, RFQ]] = {}
        self._live: dict[str, _LiveQuote] = {}
        self._pools: dict[str, str] = {}
        self._no_pool_until: dict[str, int] = {}
        self._quotes_sent = 0

    def step(self, now: int) -> None:
        """Look at new RFQs, quote what is due, follow every live quote."""
        self._discover(now)
        due = sorted(((when, rfq_id) for rfq_id, (when, _) in self._planned.items() if when <= now))
        for _, rfq_id in due:
            _, rfq = self._planned.pop(rfq_id)
            self._quote(rfq, now)
        for live in list(self._live.values()):
            self._follow(live, now)

    # -- new RFQs -------------------------------------------------------------------------------

    def _discover(self, now: int) -> None:
        while True:
            page = self.exchange.rfqs_received(
                self.me.caller, limit=200, offset=self._seen, price=False
            )
            for rfq in page.items:
                self._seen += 1
                self._consider(rfq, now)
            if not page.has_more or not page.items:
                return

    def _consider(self, rfq: RFQ, now: int) -> None:
        if rfq.rfq_status != RFQStatus.OPEN or ms_of(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
            return
        rfq_id = rfq.rfq_id
        instruments = [leg.instrument for leg in rfq.rfq_legs]
        if any(isinstance(i, UnknownVariant) for i in instruments):
            self.record(now, "ignore", rfq_id, "unknown instrument type")
            return
        has_option = any(isinstance(i, VanillaOptionInstrument) for i in instruments)
        if has_option and not self.profile.quotes_options:
            self.record(now, "ignore", rfq_id, "does not quote options")
            return
        if not self.profile.answers(self.seed, rfq_id):
            self.record(now, "ignore", rfq_id, "passes on this RFQ")
            return
        delay = self.pace_ms(self.profile.latency(self.seed, rfq_id))
        self._planned[rfq_id] = (ms_of(rfq.created_at) + delay, rfq)

    # -- quoting --------------------------------------------------------------------------------

    def _pool_strategy(self, rfq: RFQ) -> UseExistingPool | CreateNewPool:
        taker = rfq.taker_company
        pool_id = self._open_pool_with(taker)
        if pool_id is not None:
            return UseExistingPool(pool_id=pool_id)
        params = default_margin_params()
        return CreateNewPool(
            name=f"{self.name}-{self.short(taker)} {rfq.rfq_id[:8]}",
            creator_params=params,
            other_params=params,
        )

    def _open_pool_with(self, taker: str) -> str | None:
        if taker in self._pools:
            return self._pools[taker]
        now = self.exchange.clock.now_ms()
        if self._no_pool_until.get(taker, 0) > now:
            return None
        offset = 0
        while True:
            page = self.exchange.settlement_pools(self.me.caller, limit=100, offset=offset)
            for pool in page.items:
                data = pool.data
                if data is None or str(data.status) != "open":
                    continue
                if taker in (party.company for party in data.parties):
                    self._pools[taker] = pool.pool_id
                    return pool.pool_id
            offset += len(page.items)
            if not page.has_more or not page.items:
                break
        self._no_pool_until[taker] = now + _POOL_RECHECK_MS
        return None

    def _price(self, rfq: RFQ, now: int) -> tuple[list[Any], dict[str, Decimal]]:
        legs = [PricedLeg(leg.rfq_leg_id, leg.instrument, leg.qty) for leg in rfq.rfq_legs]
        quotes = maker_leg_quotes(self.market, legs, self.profile.spread_multiplier, now)
        underlyings = {str(getattr(leg.instrument, "underlying", "")) for leg in rfq.rfq_legs}
        marks = {u: self.market.mark_price_at(u, now) for u in sorted(underlyings)}
        return quotes, marks

    def _expiry(self, rfq: RFQ, now: int) -> int:
        lifetime = max(self.pace_ms(self.profile.quote_lifetime_s), 5_000)
        return min(now + lifetime, ms_of(rfq.rfq_expires_at))

    def _quote(self, rfq: RFQ, now: int) -> None:
        if ms_of(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
            return
        try:
            leg_quotes, marks = self._price(rfq, now)
        except (ValueError, KeyError) as exc:
            self.record(now, "ignore", rfq.rfq_id, f"cannot price: {exc}")
            return
        expires = self._expiry(rfq, now)
        self._quotes_sent += 1
        try:
            request = NewQuoteRequest(
                rfq_id=rfq.rfq_id,
                expires_at=moment_at(expires),
                leg_quotes=leg_quotes,
                pool_strategy=self._pool_strategy(rfq),
                client_quote_id=f"sim-{self.name.lower()}-{self._quotes_sent}",
            )
            quote = self.exchange.quotes_new(self.me.caller, request)
        except ServiceError as exc:
            self.record(now, "refused", rfq.rfq_id, f"quote: {exc.message}")
            return
        except ValueError as exc:  # a request the models refuse: never sent
            self.record(now, "refused", rfq.rfq_id, f"quote: {exc}")
            return
        self._live[quote.parent_quote_id] = _LiveQuote(
            quote.parent_quote_id, rfq, now, expires, marks
        )
        self.record(now, "quote", rfq.rfq_id, _prices(quote))

    def _moved_bps(self, live: _LiveQuote, now: int) -> Decimal:
        moved = Decimal(0)
        for underlying, then in live.marks.items():
            mark = self.market.mark_price_at(underlying, now)
            moved = max(moved, abs(mark - then) / then * _BPS)
        return moved

    def _restate(self, live: _LiveQuote, now: int) -> None:
        rfq = live.rfq
        if ms_of(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
            return
        old = now - live.placed_ms >= self.pace_ms(self.profile.restate_after_s)
        moved = self._moved_bps(live, now) >= self.profile.restate_move_bps
        ending = live.expires_ms - now <= 2_000 and live.expires_ms < ms_of(rfq.rfq_expires_at)
        if not (old or moved or ending):
            return
        try:
            leg_quotes, marks = self._price(rfq, now)
        except (ValueError, KeyError):
            return
        expires = self._expiry(rfq, now)
        self._quotes_sent += 1
        try:
            request = ReplaceQuoteRequest(
                parent_quote_id=live.quote_id,
                rfq_id=rfq.rfq_id,
                expires_at=moment_at(expires),
                leg_quotes=leg_quotes,
                pool_strategy=self._pool_strategy(rfq),
                client_quote_id=f"sim-{self.name.lower()}-{self._quotes_sent}",
            )
            quote = self.exchange.quotes_replace(self.me.caller, request)
        except (ServiceError, ValueError) as exc:
            # Most often the quote was accepted or expired a moment ago: follow it as it is.
            reason = exc.message if isinstance(exc, ServiceError) else str(exc)
            self.record(now, "refused", rfq.rfq_id, f"replace: {reason}")
            live.placed_ms = now
            return
        del self._live[live.quote_id]
        self._live[quote.parent_quote_id] = _LiveQuote(
            quote.parent_quote_id, rfq, now, expires, marks
        )
        reason = "moved" if moved else ("aged" if old else "expiring")
        self.record(now, "replace", rfq.rfq_id, f"{reason}: {_prices(quote)}")

    # -- after the taker accepted -------------------------------------------------------------

    def _follow(self, live: _LiveQuote, now: int) -> None:
        quote = first(
            self.exchange.quotes_sent(self.me.caller, limit=1, offset=0, id=live.quote_id)
        )
        if quote is None:
            del self._live[live.quote_id]
            return
        state = str((quote.model_extra or {}).get("quote_status", ""))
        clearing = str(quote.clearing_status or "")
        if state == "open":
            self._restate(live, now)
        elif clearing == ClearingStatus.PENDING_MAKER_LAST_LOOK and not live.last_look_done:
            self._last_look(live, quote, now)
        elif clearing == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL and not live.deposit_done:
            amount = deposit_needed(quote, live.rfq.rfq_legs, self.market.mark_price)
            live.deposit_done = self.approve(
                now, live.rfq.rfq_id, self.pool_address(quote.pool_location), amount
            )
        elif quote_state_is_final(state):
            del self._live[live.quote_id]
            if state == "filled":
                if quote.pool_location:
                    self._pools.setdefault(live.rfq.taker_company, quote.pool_location)
                self.record(now, "booked", live.rfq.rfq_id, live.quote_id)
            elif state == "failed":
                self.record(now, "failed", live.rfq.rfq_id, clearing)

    def _last_look(self, live: _LiveQuote, quote: Quote, now: int) -> None:
        entered = max((ms_of(e.created_at) for e in quote.clearing_events), default=now)
        delay = self.pace_ms(self.profile.last_look_delay(self.seed, live.quote_id))
        if now < entered + delay:
            return
        live.last_look_done = True
        action = self.profile.last_look_action(self.seed, live.quote_id)
        rfq_id = live.rfq.rfq_id
        if action is LastLookAction.EXPIRE:
            self.record(now, "last_look_silent", rfq_id, live.quote_id)
            return
        request = MakerLastLookRequest(
            parent_quote_id=live.quote_id, rfq_id=rfq_id, action=RequestAction(action.value)
        )
        try:
            response = self.exchange.quotes_maker_last_look(self.me.caller, request)
        except ServiceError as exc:
            self.record(now, "refused", rfq_id, f"last look: {exc.message}")
            return
        self.record(now, f"last_look_{action.value}", rfq_id, live.quote_id)
        if response.new_clearing_status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL:
            amount = response.pending_deposits_sum_qty or estimated_deposit(
                live.rfq.rfq_legs, self.market.mark_price
            )
            live.deposit_done = self.approve(now, rfq_id, response.settlement_pool_address, amount)


def _prices(quote: Quote) -> str:
    bid = "-" if quote.aggregated_bid is None else format(quote.aggregated_bid, "f")
    ask = "-" if quote.aggregated_ask is None else format(quote.aggregated_ask, "f")
    return f"{bid} / {ask}"
