"""The reference for the seeded history: the same plan played through the engine, call by call.

Before the history was written in bulk, this was how `seed_history` worked: a second
`Exchange` over the same database, on a clock of its own set ``hours`` back, played every
planned trade as real requests (pool creation, permits and deposits, RFQ, quote, accept, last
look, the atomic deposit's block), ticking its timers as it went. `replay_history` does exactly
that, so a test can hold the bulk writer to the rows the engine itself leaves
(``tests/sandbox/engine/test_history_bulk.py``). It shares with the bulk writer only the plan
and the decisions taken before a request (the stage, each trade's size and side).
"""

from __future__ import annotations

from decimal import Decimal
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
from tui.sandbox.actors.actor import moment_at
from tui.sandbox.actors.deposits import approve_deposit, estimated_deposit
from tui.sandbox.actors.pricing import PricedLeg, maker_leg_quotes
from tui.sandbox.actors.profiles import maker_profile, uniform
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.exchange import Exchange
from tui.sandbox.engine.history import (
    HISTORY_META_KEY,
    QUOTE_LIFETIME_MS,
    RFQ_LIFETIME_MS,
    HistoryReport,
    HistoryStage,
    TakerLean,
    trade_qty,
)
from tui.sandbox.engine.history_plan import HistoryConfig, PlannedTrade
from tui.sandbox.engine.seed import default_margin_params

__all__ = ["replay_history"]


class _Replay:
    """Plays the stage's plan through a history `Exchange` whose clock it moves forward."""

    def __init__(self, exchange: Any, stage: HistoryStage, config: HistoryConfig) -> None:
        self.stage = stage
        self.config = config
        self.ex = Exchange(
            exchange.store,
            stage.clock,
            stage.market,
            block_delay_s=exchange.chain.block_delay_ms / 1000,
        )
        self.people = stage.people
        self.lean = TakerLean(stage.seed, config)
        self.pools: dict[tuple[str, str], tuple[str, str]] = {}

    def to(self, at_ms: int) -> None:
        self.stage.to(at_ms)
        self.ex.tick()

    def later(self, seconds: float) -> None:
        self.to(self.stage.clock.now_ms() + round(seconds * 1000))

    def open_pools(self) -> None:
        params = default_margin_params()
        pending: list[tuple[tuple[str, str], Any]] = []
        for maker, taker in self.config.pairs:
            if maker not in self.people or taker not in self.people:
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
            address = str(pool.data.address if pool.data else None)
            self.pools[(maker, taker)] = (pool.pool_id, address)
            for name, amount, other in (
                (maker, self.config.maker_deposit, taker),
                (taker, self.config.taker_deposit, maker),
            ):
                me = self.people[name]
                approve_deposit(self.ex, me.caller, me.private_key, address, amount)
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

    def play(self, trade: PlannedTrade) -> None:
        if (trade.maker, trade.taker) not in self.pools:
            return
        self.to(trade.at_ms)
        try:
            self._play(trade)
        except ServiceError as exc:
            self.stage.report.fail(trade, exc.message)

    def _play(self, trade: PlannedTrade) -> None:
        maker = self.people[trade.maker]
        taker = self.people[trade.taker]
        pool_id, address = self.pools[(trade.maker, trade.taker)]
        market = self.stage.market
        clock = self.stage.clock
        now = clock.now_ms()
        qty, mark = trade_qty(market, trade, now)
        side = self.lean.side(trade, self.stage.majors)
        perp = PerpetualFutureInstrument(
            underlying=trade.underlying,
            funding_interval_s=market.spec(trade.underlying).funding_interval_s,
        )
        rfq = self.ex.rfqs_new(
            taker.caller,
            NewRfqRequest(
                structure=Structure(legs=[Leg(side=TradeSide.BUY, ratio=1, instrument=perp)]),
                qty=qty,
                expires_at=moment_at(now + RFQ_LIFETIME_MS),
                target_companies=[maker.company_id],
            ),
        )
        key = ("history", trade.underlying, trade.index)
        self.later(uniform(self.stage.seed, 0.5, 4.0, *key, "latency"))
        profile = maker_profile(self.stage.seed, trade.maker)
        legs = [PricedLeg(leg.rfq_leg_id, leg.instrument, leg.qty) for leg in rfq.rfq_legs]
        quote = self.ex.quotes_new(
            maker.caller,
            NewQuoteRequest(
                rfq_id=rfq.rfq_id,
                expires_at=moment_at(clock.now_ms() + QUOTE_LIFETIME_MS),
                leg_quotes=maker_leg_quotes(market, legs, profile.spread_multiplier),
                pool_strategy=UseExistingPool(pool_id=pool_id),
            ),
        )
        self.later(uniform(self.stage.seed, 1.0, 6.0, *key, "think"))
        accepted = self.ex.quotes_accept(
            taker.caller,
            AcceptQuoteRequest(parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, side=side),
        )
        if accepted.new_clearing_status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
            need = max(
                accepted.pending_deposits_sum_qty or Decimal(0),
                estimated_deposit(rfq.rfq_legs, market.mark_price),
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
                estimated_deposit(rfq.rfq_legs, market.mark_price),
            )
            approve_deposit(self.ex, maker.caller, maker.private_key, address, need)
        self.later(self.ex.chain.block_delay_ms / 1000 + 0.5)
        final = self.ex.quotes_sent(maker.caller, limit=1, offset=0, id=quote.parent_quote_id)
        status = final.items[0].clearing_status if final.items else None
        if status != ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL:
            self.stage.report.fail(trade, str(status))
            return
        self.lean.booked(trade, side)
        self.stage.report.booked += 1
        self.stage.report.volume += qty * mark


def replay_history(exchange: Any, config: HistoryConfig) -> HistoryReport:
    """`seed_history` as it was: the plan played through the engine, in one transaction."""
    store = exchange.store
    with store.transaction():
        stage = HistoryStage.of(exchange, config)
        replay = _Replay(exchange, stage, config)
        replay.open_pools()
        for trade in stage.plan:
            replay.play(trade)
        replay.to(exchange.clock.now_ms())
        stage.report.end_ms = stage.clock.now_ms()
        store.meta_set(HISTORY_META_KEY, str(stage.report.end_ms))
    return stage.report
