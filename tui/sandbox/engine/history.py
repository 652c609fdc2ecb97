"""Seeded past activity, so a fresh sandbox's public statistics are not all zeros.

On the first start of a sandbox, `seed_history` plays about a day of trading between the
simulated companies *through the engine itself*, at past times: a second `Exchange` over the
same database runs on a clock set ``hours`` back (with a `Market` of the same seed and epoch, so
its marks are the live market's marks at those instants) and steps forward to now. Pools are
created and funded with permits and deposits, and every trade is a real RFQ, quote, accept,
last look and booking, with its deposits when margin asks for them. What is left is ordinary
sandbox data: closed RFQs, filled quotes, trades, positions, transfers; the public statistics
(24 h and cumulative volume, open interest, TVL) are computed from it like from live trades.

The plan is a pure function of the seed (`tui.sandbox.engine.history_plan`); a taker leans
towards reducing its position once it is large, so open interest stays realistic. The user's
company (DESK) takes no part: its portfolio starts empty.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Any

from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    Leg,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PerpetualFutureInstrument,
    RequestAction,
    Structure,
    TradeSide,
    TransferType,
    UseExistingPool,
)
from tui.sandbox.actors.actor import Identity, identities, moment_at
from tui.sandbox.actors.deposits import approve_deposit, estimated_deposit
from tui.sandbox.actors.pricing import PricedLeg, maker_leg_quotes
from tui.sandbox.actors.profiles import draw, maker_profile, uniform
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.history_plan import HistoryConfig, PlannedTrade, plan_history
from tui.sandbox.engine.seed import default_margin_params

__all__ = ["HISTORY_META_KEY", "HistoryReport", "seed_history"]

log = logging.getLogger(__name__)

HISTORY_META_KEY = "history_seeded_ms"
"""Meta key the store keeps once history was written (its value: the live time it ended at)."""

_SETUP_S = 120
"""History's first minutes: pools are created and funded before the first trade."""
_QUIET_END_S = 120
"""No history trade in the last two minutes, so every history timer has run by now."""


@dataclass
class HistoryReport:
    """What `seed_history` did: trades booked, trades that failed, and the span it covered."""

    start_ms: int
    end_ms: int
    planned: int = 0
    booked: int = 0
    failed: int = 0
    volume: Decimal = Decimal(0)
    failures: list[str] = field(default_factory=list)


class _HistoryPlayer:
    """Plays a plan through a history `Exchange` whose clock it moves forward."""

    def __init__(
        self,
        history: Any,
        clock: SandboxClock,
        seed: int,
        people: dict[str, Identity],
        config: HistoryConfig,
        report: HistoryReport,
    ) -> None:
        self.ex = history
        self.clock = clock
        self.seed = seed
        self.people = people
        self.config = config
        self.report = report
        self.market = history.market
        self.pools: dict[tuple[str, str], tuple[str, str]] = {}
        self.positions: dict[tuple[str, str, str], Decimal] = {}

    def to(self, at_ms: int) -> None:
        """Move the history clock to ``at_ms`` (never back) and run what became due."""
        now = self.clock.now_ms()
        if at_ms > now:
            self.clock.advance((at_ms - now) / 1000)
        self.ex.tick()

    def later(self, seconds: float) -> None:
        """Move the history clock ``seconds`` on and run what became due."""
        self.to(self.clock.now_ms() + round(seconds * 1000))

    # -- pools ----------------------------------------------------------------------------------

    def open_pools(self) -> None:
        """Create every pair's pool, wait for its block, fund both sides with a permit each."""
        params = default_margin_params()
        pending: list[tuple[tuple[str, str], Any]] = []
        for maker, taker in self.config.pairs:
            if (maker, taker) in self.pools or maker not in self.people:
                continue
            if taker not in self.people:
                continue
            pool = self.ex.settlement_pools_new(
                self.people[maker].caller,
                NewSettlementPoolRequest(
                    pool_name=f"{maker}-{taker} main",
                    company_other=self.people[taker].company_id,
                    creator_params=params,
                    other_params=params,
                ),
            )
            pending.append(((maker, taker), pool))
        self.later(self.ex.chain.block_delay_ms / 1000 + 1)
        for (maker, taker), pool in pending:
            address = pool.data.address if pool.data else None
            self.pools[(maker, taker)] = (pool.pool_id, str(address))
            for name, amount, other in (
                (maker, self.config.maker_deposit, taker),
                (taker, self.config.taker_deposit, maker),
            ):
                me = self.people[name]
                approve_deposit(self.ex, me.caller, me.private_key, str(address), amount)
                self.ex.transfers_new(
                    me.caller,
                    NewTransferRequest(
                        qty=amount,
                        target_pool_location=pool.pool_id,
                        counterparty=self.people[other].company_id,
                        transfer_type=TransferType.DEPOSIT,
                    ),
                )
        self.later(self.ex.chain.block_delay_ms / 1000 + 1)

    # -- trades ---------------------------------------------------------------------------------

    def _side(self, trade: PlannedTrade, majors: set[str]) -> TradeSide:
        key = (trade.maker, trade.taker, trade.underlying)
        held = self.positions.get(key, Decimal(0))
        limit = (
            self.config.major_max_position
            if trade.underlying in majors
            else self.config.alt_max_position
        )
        lean = draw(self.seed, "history", trade.underlying, trade.index, "side")
        if abs(held) > limit * Decimal("0.6") and lean < 0.8:
            return TradeSide.SELL if held > 0 else TradeSide.BUY
        return TradeSide.BUY if lean < 0.5 else TradeSide.SELL

    def play(self, trade: PlannedTrade, majors: set[str]) -> None:
        """One planned trade, end to end; a refusal is counted, never raised."""
        if (trade.maker, trade.taker) not in self.pools:
            return
        self.to(trade.at_ms)
        try:
            self._play(trade, majors)
        except ServiceError as exc:
            self.report.failed += 1
            if len(self.report.failures) < 20:
                self.report.failures.append(f"{trade.underlying}#{trade.index}: {exc.message}")

    def _play(self, trade: PlannedTrade, majors: set[str]) -> None:
        maker = self.people[trade.maker]
        taker = self.people[trade.taker]
        pool_id, address = self.pools[(trade.maker, trade.taker)]
        spec = self.market.spec(trade.underlying)
        now = self.clock.now_ms()
        mark = self.market.mark_price_at(trade.underlying, now)
        qty = (trade.notional / mark / spec.min_qty_tick).to_integral_value(ROUND_DOWN)
        qty = max(qty * spec.min_qty_tick, spec.min_qty_tick).normalize()
        side = self._side(trade, majors)
        perp = PerpetualFutureInstrument(
            underlying=trade.underlying, funding_interval_s=spec.funding_interval_s
        )
        rfq = self.ex.rfqs_new(
            taker.caller,
            NewRfqRequest(
                structure=Structure(legs=[Leg(side=TradeSide.BUY, ratio=1, instrument=perp)]),
                qty=qty,
                expires_at=moment_at(now + 60_000),
                target_companies=[maker.company_id],
            ),
        )
        key = ("history", trade.underlying, trade.index)
        self.later(uniform(self.seed, 0.5, 4.0, *key, "latency"))
        profile = maker_profile(self.seed, trade.maker)
        legs = [PricedLeg(leg.rfq_leg_id, leg.instrument, leg.qty) for leg in rfq.rfq_legs]
        quote = self.ex.quotes_new(
            maker.caller,
            NewQuoteRequest(
                rfq_id=rfq.rfq_id,
                expires_at=moment_at(self.clock.now_ms() + 30_000),
                leg_quotes=maker_leg_quotes(self.market, legs, profile.spread_multiplier),
                pool_strategy=UseExistingPool(pool_id=pool_id),
            ),
        )
        self.later(uniform(self.seed, 1.0, 6.0, *key, "think"))
        accepted = self.ex.quotes_accept(
            taker.caller,
            AcceptQuoteRequest(parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, side=side),
        )
        status = accepted.new_clearing_status
        if status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
            need = max(
                accepted.pending_deposits_sum_qty or Decimal(0),
                estimated_deposit(rfq.rfq_legs, self.market.mark_price),
            )
            approve_deposit(self.ex, taker.caller, taker.private_key, address, need)
        self.later(0.5)
        looked = self.ex.quotes_maker_last_look(
            maker.caller,
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=rfq.rfq_id,
                action=RequestAction.ACCEPT,
            ),
        )
        if looked.new_clearing_status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL:
            need = max(
                looked.pending_deposits_sum_qty or Decimal(0),
                estimated_deposit(rfq.rfq_legs, self.market.mark_price),
            )
            approve_deposit(self.ex, maker.caller, maker.private_key, address, need)
        self.later(self.ex.chain.block_delay_ms / 1000 + 0.5)
        final = self.ex.quotes_sent(maker.caller, limit=1, offset=0, id=quote.parent_quote_id)
        final_status = final.items[0].clearing_status if final.items else None
        if final_status != ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL:
            self.report.failed += 1
            if len(self.report.failures) < 20:
                self.report.failures.append(f"{trade.underlying}#{trade.index}: {final_status}")
            return
        signed = trade.notional if side is TradeSide.BUY else -trade.notional
        position_key = (trade.maker, trade.taker, trade.underlying)
        self.positions[position_key] = self.positions.get(position_key, Decimal(0)) + signed
        self.report.booked += 1
        self.report.volume += qty * mark


def seed_history(exchange: Any, config: HistoryConfig | None = None) -> HistoryReport | None:
    """Play the seeded past into a fresh sandbox; None when it already has its history.

    Runs once per database (a meta key records it), before the server serves: it moves its own
    clock, never the live one. Takes a few seconds at the default volumes.

    All of it is one store transaction (the engine's own writes nest inside as savepoints),
    committed together with the meta key: a process killed half-way leaves the database as it
    was before, and the next start plays the history again from the beginning.
    """
    config = config or HistoryConfig()
    store = exchange.store
    if store.meta_get(HISTORY_META_KEY) is not None:
        return None
    with store.transaction():
        report = _play_history(exchange, config)
        store.meta_set(HISTORY_META_KEY, str(report.end_ms))
    log.info(
        "seeded history: %d trades booked (%d failed), %s USDC",
        report.booked,
        report.failed,
        format(report.volume.quantize(Decimal(1)), "f"),
    )
    return report


def _play_history(exchange: Any, config: HistoryConfig) -> HistoryReport:
    """Plan and play the history through a second engine on a clock of its own."""
    from tui.sandbox.engine.exchange import Exchange
    from tui.sandbox.market.marks import Market

    store = exchange.store
    live_market = exchange.market
    seed = int(store.meta_get("seed") or live_market.seed)
    now_ms = exchange.clock.now_ms()
    start_ms = (now_ms - round(config.hours * 3_600_000)) // 1000 * 1000
    clock = SandboxClock(frozen_at_ms=start_ms)
    tickers = list(live_market.underlyings())
    market = Market(
        live_market.seed,
        clock,
        [live_market.spec(t) for t in tickers],
        epoch_ms=live_market.epoch_ms,
    )
    history = Exchange(store, clock, market, block_delay_s=exchange.chain.block_delay_ms / 1000)
    report = HistoryReport(start_ms=start_ms, end_ms=start_ms)
    people = identities(exchange)
    player = _HistoryPlayer(history, clock, seed, people, config, report)
    player.open_pools()
    majors = {t for t in tickers if live_market.spec(t).major}
    plan = plan_history(
        seed,
        tickers,
        majors,
        start_ms + _SETUP_S * 1000,
        now_ms - _QUIET_END_S * 1000,
        config,
    )
    report.planned = len(plan)
    for trade in plan:
        player.play(trade, majors)
    # Catch up with the live clock so every history timer (RFQ and quote expiries) has run.
    player.to(exchange.clock.now_ms())
    report.end_ms = clock.now_ms()
    return report
