"""Simulated counterparties: makers that quote RFQs and takers that send them.

Each actor is one of the seeded companies and trades through the very methods the HTTP layer
calls (`Exchange.quotes_new`, ``rfqs_new``, ``quotes_accept``, ``quotes_maker_last_look``, the
permit endpoints ...) with a writer `Caller` of its own, so every rule of the venue applies to
it exactly as to the user.

- **Makers** (ALPHA, BORE, CBLT, DUNE) see the RFQs they are asked for, quote them after a
  seeded delay (some fast, some slow, some RFQs never) around the mark with a size-dependent
  spread (`tui.sandbox.actors.pricing`), restate a quote that has grown old or that the mark
  has moved away from, take their last look on an accepted quote (mostly accept, sometimes
  reject, sometimes say nothing until the window closes), and approve their own deposits.
- **Takers** (EMBR, FJRD) send RFQs to the user's company (sometimes to simulated makers as
  well) at a seeded Poisson rate, collect quotes for a while, accept the best one that is
  within their price limit, and approve their own deposits.

Nothing sleeps: `ActorRunner.step` looks at the sandbox clock and does what is due. The
server calls it from its tick loop (and after an admin clock advance); tests advance a frozen
clock and call it. Every decision comes from a hash of (seed, actor, subject, purpose)
(`tui.sandbox.actors.profiles.draw`), never from a shared random stream, so the same seed and
the same clock steps give the same actions, whatever order things are looked at in.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import quote_state_is_final
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    ApiRole,
    ClearingStatus,
    CreateNewPool,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    Quote,
    ReplaceQuoteRequest,
    RequestAction,
    RFQLeg,
    RFQStatus,
    TradeSide,
    UnknownVariant,
    UseExistingPool,
    VanillaOptionInstrument,
)
from tui.sandbox.actors.deposits import approve_deposit, estimated_deposit
from tui.sandbox.actors.pricing import (
    PricedLeg,
    TakerRequest,
    maker_leg_quotes,
    quote_cost_bps,
    structure_fair_value,
    taker_request,
)
from tui.sandbox.actors.profiles import (
    ActorConfig,
    LastLookAction,
    MakerProfile,
    TakerProfile,
    draw,
    exponential,
    maker_profile,
    taker_profile,
    uniform,
)
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.seed import default_margin_params

__all__ = [
    "ActorAction",
    "ActorRunner",
    "Identity",
    "MakerActor",
    "TakerActor",
    "identities",
    "start_actors",
]

log = logging.getLogger(__name__)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_BPS = Decimal(10_000)
_POOL_RECHECK_MS = 5_000
"""How long a maker trusts "no open pool with this taker" before it looks again."""
_MIN_QUOTE_LEFT_MS = 1_500
"""A maker does not quote (or restate) an RFQ that closes sooner than this."""


def _ms(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def _at(ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=ms)


def _first(page: Any) -> Any:
    return page.items[0] if page.items else None


@dataclass(frozen=True)
class ActorAction:
    """One thing an actor did (or decided not to do), for tests, demos and the debug log.

    ``kind`` is one of: ``rfq``, ``ignore``, ``quote``, ``replace``, ``accept``,
    ``last_look_accept``, ``last_look_reject``, ``last_look_silent``, ``deposit``,
    ``booked``, ``failed``, ``expired``, ``refused`` (the exchange said no).
    """

    at_ms: int
    actor: str
    kind: str
    ref: str
    detail: str = ""


@dataclass(frozen=True)
class Identity:
    """A seeded company as an actor uses it: its writer key and its wallet key."""

    short_name: str
    company_id: str
    caller: Any
    private_key: str = field(repr=False)


def identities(exchange: Any) -> dict[str, Identity]:
    """Every seeded company with a writer key, by short name, from `Exchange.credentials`."""
    from tui.sandbox.engine.exchange import Caller

    out: dict[str, Identity] = {}
    for entry in exchange.credentials():
        if entry["role"] != ApiRole.WRITER or entry["short_name"] in out:
            continue
        caller = Caller(company_id=entry["id"], key_id=entry["key_id"], role=ApiRole.WRITER)
        out[entry["short_name"]] = Identity(
            entry["short_name"], entry["id"], caller, entry["wallet_private_key"] or ""
        )
    return out


Recorder = Callable[[int, str, str, str, str], None]


class _Actor:
    """What makers and takers share: the engine, the market, the seed and the action log."""

    def __init__(
        self,
        exchange: Any,
        me: Identity,
        config: ActorConfig,
        seed: int,
        record: Recorder,
        names: dict[str, str],
    ) -> None:
        self.exchange = exchange
        self.market = exchange.market
        self.me = me
        self.name = me.short_name
        self.config = config
        self.seed = seed
        self._record = record
        self._names = names

    def step(self, now: int) -> None:
        """Do what is due at ``now`` (sandbox ms)."""
        raise NotImplementedError

    def record(self, at_ms: int, kind: str, ref: str, detail: str = "") -> None:
        """Log one action of this actor."""
        self._record(at_ms, self.name, kind, ref, detail)

    def short(self, company_id: str) -> str:
        """A company's short name (its id's head when it is not a seeded company)."""
        return self._names.get(company_id, company_id[:8])

    def pace_ms(self, seconds: float) -> int:
        """A pace-1 duration in ms at the configured pace."""
        return round(self.config.scaled(seconds) * 1000)

    def pool_address(self, pool_id: str | None) -> str | None:
        """The on-chain address of one of this company's pools, read through the API."""
        if not pool_id:
            return None
        pool = _first(self.exchange.settlement_pools(self.me.caller, limit=1, offset=0, id=pool_id))
        if pool is None or pool.data is None:
            return None
        return pool.data.address

    def approve(self, now: int, ref: str, pool_address: str | None, amount: Decimal) -> bool:
        """Sign and submit a permit for ``pool_address``; False (logged) if it was refused."""
        if not pool_address:
            return False
        try:
            granted = approve_deposit(
                self.exchange, self.me.caller, self.me.private_key, pool_address, amount
            )
        except ServiceError as exc:
            self.record(now, "refused", ref, f"permit: {exc.message}")
            return False
        self.record(now, "deposit", ref, f"allowance {format(granted, 'f')} USDC")
        return True


# -- makers ---------------------------------------------------------------------------------


@dataclass
class _LiveQuote:
    quote_id: str
    rfq: RFQ
    placed_ms: int
    expires_ms: int
    marks: dict[str, Decimal]
    last_look_done: bool = False
    deposit_done: bool = False


class MakerActor(_Actor):
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
        if rfq.rfq_status != RFQStatus.OPEN or _ms(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
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
        self._planned[rfq_id] = (_ms(rfq.created_at) + delay, rfq)

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
        return min(now + lifetime, _ms(rfq.rfq_expires_at))

    def _quote(self, rfq: RFQ, now: int) -> None:
        if _ms(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
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
                expires_at=_at(expires),
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
        if _ms(rfq.rfq_expires_at) - now < _MIN_QUOTE_LEFT_MS:
            return
        old = now - live.placed_ms >= self.pace_ms(self.profile.restate_after_s)
        moved = self._moved_bps(live, now) >= self.profile.restate_move_bps
        ending = live.expires_ms - now <= 2_000 and live.expires_ms < _ms(rfq.rfq_expires_at)
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
                expires_at=_at(expires),
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
        quote = _first(
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
            amount = _deposit_needed(quote, live.rfq.rfq_legs, self.market.mark_price)
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
        entered = max((_ms(e.created_at) for e in quote.clearing_events), default=now)
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


def _deposit_needed(quote: Quote, legs: list[RFQLeg], mark: Callable[[str], Decimal]) -> Decimal:
    """What a trade needs the viewer to deposit: the amount the quote shows once accepted
    (``pending_deposits_sum_qty``), else a safe estimate from the legs."""
    shown = (quote.model_extra or {}).get("pending_deposits_sum_qty")
    try:
        amount = Decimal(str(shown)) if shown is not None else Decimal(0)
    except ArithmeticError:
        amount = Decimal(0)
    return amount if amount > 0 else estimated_deposit(legs, mark)


def _prices(quote: Quote) -> str:
    bid = "-" if quote.aggregated_bid is None else format(quote.aggregated_bid, "f")
    ask = "-" if quote.aggregated_ask is None else format(quote.aggregated_ask, "f")
    return f"{bid} / {ask}"


# -- takers ---------------------------------------------------------------------------------


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


class TakerActor(_Actor):
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
        first = self.config.first_rfq_delay_s + exponential(
            self.seed, self.config.taker_rfq_interval_s, self.name, "first"
        )
        self._next_ms = start_ms + self.pace_ms(first)
        self._open: dict[str, _OpenRfq] = {}

    @property
    def next_rfq_ms(self) -> int:
        """When this taker sends its next RFQ (sandbox ms)."""
        return self._next_ms

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
            expires_at=_at(expires),
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
        quote = _first(
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
            amount = _deposit_needed(quote, open_rfq.legs, self.market.mark_price)
            if self.approve(now, open_rfq.rfq_id, self.pool_address(quote.pool_location), amount):
                open_rfq.approved.add(open_rfq.accepted)

    def _choose(self, open_rfq: _OpenRfq, now: int) -> None:
        rfq = _first(
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


# -- the runner -------------------------------------------------------------------------------


class ActorRunner:
    """Every simulated counterparty of one sandbox, stepped on its clock.

    `step` is cheap when nothing is due and never raises: a failing actor is logged (once
    per failure streak) and the others carry on. ``actions`` keeps the latest actions
    (oldest first) for tests and demos. ``maker_profiles`` replaces the seeded profile of the
    named makers (a demo's always-accepting maker, a test's fixed behaviour); ``seed``
    defaults to the sandbox's stored seed.
    """

    def __init__(
        self,
        exchange: Any,
        config: ActorConfig | None = None,
        *,
        seed: int | None = None,
        maker_profiles: dict[str, MakerProfile] | None = None,
    ) -> None:
        self.exchange = exchange
        self.config = config or ActorConfig()
        stored = exchange.store.meta_get("seed")
        self.seed = int(seed if seed is not None else (stored or 0))
        self.actions: deque[ActorAction] = deque(maxlen=10_000)
        self._failing: set[str] = set()
        people = identities(exchange)
        names = {identity.company_id: short for short, identity in people.items()}
        common = {"config": self.config, "seed": self.seed, "record": self._log, "names": names}
        self.makers: list[MakerActor] = []
        self.takers: list[TakerActor] = []
        if not self.config.enabled:
            return
        if self.config.makers:
            self.makers = [
                MakerActor(
                    exchange,
                    people[name],
                    profile=(maker_profiles or {}).get(name) or maker_profile(self.seed, name),
                    **common,
                )
                for name in self.config.maker_names
                if name in people
            ]
        if self.config.takers:
            user = people.get(self.config.user_company)
            maker_ids = [m.me.company_id for m in self.makers]
            start = exchange.clock.now_ms()
            self.takers = [
                TakerActor(
                    exchange,
                    people[name],
                    profile=taker_profile(self.seed, name, self.config),
                    user_id=user.company_id if user else None,
                    maker_ids=maker_ids,
                    start_ms=start,
                    **common,
                )
                for name in self.config.taker_names
                if name in people
            ]

    def _log(self, at_ms: int, actor: str, kind: str, ref: str, detail: str) -> None:
        action = ActorAction(at_ms, actor, kind, ref, detail)
        self.actions.append(action)
        log.debug("actor %s %s %s %s", actor, kind, ref, detail)

    def step(self) -> None:
        """Let every actor do what is due at the clock's current time."""
        for actor in [*self.makers, *self.takers]:
            now = self.exchange.clock.now_ms()
            try:
                actor.step(now)
            except Exception:
                if actor.name not in self._failing:
                    log.exception("simulated %s failed; it retries on the next step", actor.name)
                self._failing.add(actor.name)
            else:
                self._failing.discard(actor.name)


def start_actors(exchange: Any, config: ActorConfig | None = None) -> ActorRunner | None:
    """The runner of a sandbox's simulated counterparties, or None when they are switched off.

    Call its ``step()`` after every ``exchange.tick()`` (the server's tick loop does).
    """
    config = config or ActorConfig()
    if not config.enabled or not (config.makers or config.takers):
        return None
    return ActorRunner(exchange, config)
