"""Seeded past activity, so a fresh sandbox's public statistics are not all zeros.

On the first start of a sandbox, `seed_history` writes about a day of trading between the
simulated companies, at past times: pools created and funded with permits and deposits, and
every trade a closed RFQ, a filled quote, its clearing events, its deposits when margin asked
for them, its trades, positions and realized P&L. The public statistics (24 h and cumulative
volume, open interest, TVL) are computed from it like from live trades.

The past is *computed*, not played request by request: a clock of its own steps through the
plan (`tui.sandbox.engine.history_plan`, a pure function of the seed) exactly as a player
driving the engine would (the same latencies, the same market marks, via a `Market` of the
same seed and epoch), each trade goes down the clearing path by the engine's own rules
(`tui.sandbox.engine.history_clearing`) on books kept in memory, and everything is written at
the end in one transaction, one ``executemany`` per table (`tui.sandbox.engine.history_book`).
The rows are those the same trades played through the engine would have left, ids and ``seq``
numbers included; the one difference is the stored market snapshot, a memo of the price walk
(the player's market saved its own), which gives the same marks either way.

A taker leans towards reducing its position once it is large, so open interest stays
realistic. The user's company (DESK) takes no part: its portfolio starts empty.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Any

from tui.api.models import (
    PerpetualFutureInstrument,
    TradeSide,
    TransferStatus,
    TransferType,
    UseExistingPool,
)
from tui.sandbox.actors.actor import Identity, identities
from tui.sandbox.actors.pricing import PricedLeg, maker_leg_quotes
from tui.sandbox.actors.profiles import draw, maker_profile, uniform
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.history_book import HistoryPortfolio, HistoryRecords
from tui.sandbox.engine.history_clearing import HistoryClearing
from tui.sandbox.engine.history_plan import HistoryConfig, PlannedTrade, plan_history
from tui.sandbox.engine.pools import check_pool_name, confirm_pool
from tui.sandbox.engine.quotes import quote_record, structure_quote
from tui.sandbox.engine.records import (
    canonical_instrument,
    ms_to_timestamp,
    pool_record,
    transfer_record,
    transfer_row,
)
from tui.sandbox.engine.rfqs import rfq_record
from tui.sandbox.engine.seed import default_margin_params

__all__ = [
    "HISTORY_META_KEY",
    "QUOTE_LIFETIME_MS",
    "RFQ_LIFETIME_MS",
    "HistoryReport",
    "HistoryStage",
    "TakerLean",
    "seed_history",
    "trade_qty",
]

log = logging.getLogger(__name__)

HISTORY_META_KEY = "history_seeded_ms"
"""Meta key the store keeps once history was written (its value: the live time it ended at)."""

_SETUP_S = 120
"""History's first minutes: pools are created and funded before the first trade."""
_QUIET_END_S = 120
"""No history trade in the last two minutes, so every history timer has run by now."""
RFQ_LIFETIME_MS = 60_000
"""How long a history taker's RFQ is open."""
QUOTE_LIFETIME_MS = 30_000
"""How long a history maker's quote is open."""


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

    def fail(self, trade: PlannedTrade, why: str) -> None:
        """Count a trade that did not book (the first reasons are kept for the log)."""
        self.failed += 1
        if len(self.failures) < 20:
            self.failures.append(f"{trade.underlying}#{trade.index}: {why}")


@dataclass
class HistoryStage:
    """Where the past plays: its own clock and market, the companies, the plan, the report."""

    clock: SandboxClock
    market: Any
    seed: int
    people: dict[str, Identity]
    majors: set[str]
    plan: list[PlannedTrade]
    report: HistoryReport

    @classmethod
    def of(cls, exchange: Any, config: HistoryConfig) -> HistoryStage:
        """The stage of ``exchange``'s past: ``config.hours`` back from its clock's now."""
        from tui.sandbox.market.marks import Market

        live_market = exchange.market
        seed = int(exchange.store.meta_get("seed") or live_market.seed)
        now_ms = exchange.clock.now_ms()
        start_ms = (now_ms - round(config.hours * 3_600_000)) // 1000 * 1000
        clock = SandboxClock(frozen_at_ms=start_ms)
        tickers = list(live_market.underlyings())
        specs = [live_market.spec(t) for t in tickers]
        market = Market(live_market.seed, clock, specs, epoch_ms=live_market.epoch_ms)
        majors = {spec.ticker for spec in specs if spec.major}
        end = now_ms - _QUIET_END_S * 1000
        plan = plan_history(seed, tickers, majors, start_ms + _SETUP_S * 1000, end, config)
        report = HistoryReport(start_ms=start_ms, end_ms=start_ms, planned=len(plan))
        return cls(clock, market, seed, identities(exchange), majors, plan, report)

    def to(self, at_ms: int) -> None:
        """Move the history clock to ``at_ms`` (never back)."""
        now = self.clock.now_ms()
        if at_ms > now:
            self.clock.advance((at_ms - now) / 1000)

    def later(self, seconds: float) -> None:
        """Move the history clock ``seconds`` on."""
        self.to(self.clock.now_ms() + round(seconds * 1000))


def trade_qty(market: Any, trade: PlannedTrade, now_ms: int) -> tuple[Decimal, Decimal]:
    """A planned trade's quantity at the mark of ``now_ms`` (whole ticks, one at least), and
    that mark."""
    spec = market.spec(trade.underlying)
    mark = market.mark_price_at(trade.underlying, now_ms)
    qty = (trade.notional / mark / spec.min_qty_tick).to_integral_value(ROUND_DOWN)
    return max(qty * spec.min_qty_tick, spec.min_qty_tick).normalize(), mark


class TakerLean:
    """Which way a history taker trades: at random, but mostly reducing a large position."""

    def __init__(self, seed: int, config: HistoryConfig) -> None:
        self.seed = seed
        self.config = config
        self.positions: dict[tuple[str, str, str], Decimal] = {}

    def side(self, trade: PlannedTrade, majors: set[str]) -> TradeSide:
        """The taker's side of ``trade`` (a position in one of the ``majors`` may grow larger
        before the taker leans against it)."""
        held = self.positions.get((trade.maker, trade.taker, trade.underlying), Decimal(0))
        limit = (
            self.config.major_max_position
            if trade.underlying in majors
            else self.config.alt_max_position
        )
        lean = draw(self.seed, "history", trade.underlying, trade.index, "side")
        if abs(held) > limit * Decimal("0.6") and lean < 0.8:
            return TradeSide.SELL if held > 0 else TradeSide.BUY
        return TradeSide.BUY if lean < 0.5 else TradeSide.SELL

    def booked(self, trade: PlannedTrade, side: TradeSide) -> None:
        """Count a booked trade into the taker's position with its maker."""
        key = (trade.maker, trade.taker, trade.underlying)
        signed = trade.notional if side is TradeSide.BUY else -trade.notional
        self.positions[key] = self.positions.get(key, Decimal(0)) + signed


class _HistoryPlayer:
    """Steps the stage's clock through the setup and the plan, booking on the history books."""

    def __init__(self, exchange: Any, stage: HistoryStage, config: HistoryConfig) -> None:
        self.stage = stage
        self.config = config
        self.store = exchange.store
        self.chain = exchange.chain
        self.market = stage.market
        self.people = stage.people
        self.book = HistoryPortfolio(exchange.store, stage.market)
        self.records = HistoryRecords(exchange.store)
        self.clearing = HistoryClearing(exchange.chain, self.book, self.records, stage.market)
        self.lean = TakerLean(stage.seed, config)
        self.pools: dict[tuple[str, str], dict[str, Any]] = {}

    def to(self, at_ms: int) -> None:
        """Move the clock to ``at_ms``; valuations are taken afresh there."""
        self.stage.to(at_ms)
        self.book.fresh()

    def later(self, seconds: float) -> None:
        """Move the clock ``seconds`` on."""
        self.to(self.stage.clock.now_ms() + round(seconds * 1000))

    def _block(self) -> None:
        self.later(self.chain.block_delay_ms / 1000 + 1)

    def open_pools(self) -> None:
        """Create every pair's pool, let its block confirm it, fund both sides (a permit and a
        deposit each), let their blocks confirm the deposits."""
        params = default_margin_params().model_dump(mode="json")
        now = self.stage.clock.now_ms()
        pending: list[tuple[tuple[str, str], dict[str, Any]]] = []
        for maker, taker in self.config.pairs:
            if maker not in self.people or taker not in self.people:
                continue
            name = f"{maker}-{taker} main"
            creator, other = self.people[maker].company_id, self.people[taker].company_id
            check_pool_name(self.store, creator, other, name, "pool_name")
            pool = pool_record(
                self.records.new_id(), ms_to_timestamp(now), creator, other, name, params, params
            )
            self.records.add_timer(self.chain.confirm_at(now), "pool_open", pool["pool_id"])
            pending.append(((maker, taker), pool))
        self._block()
        for pair, pool in pending:
            confirm_pool(pool, self.chain.new_tx_id())
            self.records.add_pool(pool)
            self.pools[pair] = pool
        now = self.stage.clock.now_ms()
        deposits = []
        for (maker, taker), pool in pending:
            for name, amount, other in (
                (maker, self.config.maker_deposit, taker),
                (taker, self.config.taker_deposit, maker),
            ):
                company = self.people[name].company_id
                self.clearing.permit(company, pool, amount)
                self.chain.spend_allowance(
                    self.chain.wallet(company).address, pool["address"], amount
                )
                self.chain.move_wallet_usdc(company, -amount)
                transfer = transfer_record(
                    self.records.new_id(),
                    created_at=ms_to_timestamp(now),
                    company=company,
                    counterparty=self.people[other].company_id,
                    qty=amount,
                    pool_id=pool["pool_id"],
                    transfer_type=TransferType.DEPOSIT.value,
                    status=TransferStatus.PENDING.value,
                )
                self.records.add_timer(
                    self.chain.confirm_at(now), "transfer_confirm", transfer["id"]
                )
                deposits.append(transfer)
        self._block()
        for transfer in deposits:
            self.book.move_balance(
                transfer["target_pool_location"], transfer["company"], Decimal(transfer["qty"])
            )
            transfer["status"] = TransferStatus.CONFIRMED.value
            transfer["confirmed_by_transaction_id"] = self.chain.new_tx_id()
            self.records.insert("transfers", transfer_row(transfer))

    def play(self, trade: PlannedTrade, majors: set[str]) -> None:
        """One planned trade, end to end; a refusal is counted, never raised."""
        if (trade.maker, trade.taker) not in self.pools:
            return
        self.to(trade.at_ms)
        try:
            self._play(trade, majors)
        except ServiceError as exc:
            self.stage.report.fail(trade, exc.message)

    def _play(self, trade: PlannedTrade, majors: set[str]) -> None:
        maker = self.people[trade.maker].company_id
        taker = self.people[trade.taker].company_id
        pool = self.pools[(trade.maker, trade.taker)]
        clock = self.stage.clock
        now = clock.now_ms()
        qty, mark = trade_qty(self.market, trade, now)
        side = self.lean.side(trade, majors)
        spec = self.market.spec(trade.underlying)
        perp = PerpetualFutureInstrument(
            underlying=trade.underlying, funding_interval_s=spec.funding_interval_s
        )
        instrument = canonical_instrument(perp).model_dump(mode="json")
        leg = {"side": TradeSide.BUY.value, "ratio": 1, "instrument": instrument}
        rfq_id, leg_id = self.records.new_id(), self.records.new_id()
        rfq = rfq_record(rfq_id, [leg_id], [leg], qty, taker, [maker], now, now + RFQ_LIFETIME_MS)
        self.records.add_rfq(rfq)
        self.records.add_timer(rfq["_expires_ms"], "rfq_expiry", rfq_id)

        key = ("history", trade.underlying, trade.index)
        self.later(uniform(self.stage.seed, 0.5, 4.0, *key, "latency"))
        now = clock.now_ms()
        profile = maker_profile(self.stage.seed, trade.maker)
        legs = [PricedLeg(leg_id, perp, Decimal(rfq["rfq_legs"][0]["qty"]))]
        leg_quotes = maker_leg_quotes(self.market, legs, profile.spread_multiplier)
        quote = quote_record(
            self.records.new_id(),
            rfq_id,
            maker,
            structure_quote(rfq, {q.target_rfq_leg_id: q for q in leg_quotes}),
            UseExistingPool(pool_id=pool["pool_id"]),
            pool["pool_id"],
            None,
            now,
            now + QUOTE_LIFETIME_MS,
        )
        self.records.add_quote(quote, taker)
        self.records.add_timer(quote["_expires_ms"], "quote_expiry", quote["parent_quote_id"])

        self.later(uniform(self.stage.seed, 1.0, 6.0, *key, "think"))
        self.clearing.accept(rfq, quote, side, clock.now_ms())
        self.later(0.5)
        looked_at = clock.now_ms()
        atomic = self.clearing.last_look(rfq, quote, looked_at)
        self.later(self.chain.block_delay_ms / 1000 + 0.5)
        if atomic:
            self.clearing.atomic_deposit(rfq, quote, self.chain.confirm_at(looked_at))
        if quote["quote_status"] != "filled":
            self.stage.report.fail(trade, str(quote["clearing_status"]))
            return
        self.lean.booked(trade, side)
        self.stage.report.booked += 1
        self.stage.report.volume += qty * mark


def seed_history(exchange: Any, config: HistoryConfig | None = None) -> HistoryReport | None:
    """Write the seeded past into a fresh sandbox; None when it already has its history.

    Runs once per database (a meta key records it), before the server serves: it moves a
    clock of its own, never the live one. Everything (the bulk write, the chain's wallets and
    allowances, the meta key) is one store transaction: a process killed half-way leaves the
    database as it was before, and the next start writes the history from the beginning.
    """
    config = config or HistoryConfig()
    store = exchange.store
    if store.meta_get(HISTORY_META_KEY) is not None:
        return None
    with store.transaction():
        stage = HistoryStage.of(exchange, config)
        player = _HistoryPlayer(exchange, stage, config)
        player.open_pools()
        for trade in stage.plan:
            player.play(trade, stage.majors)
        player.to(exchange.clock.now_ms())
        stage.report.end_ms = stage.clock.now_ms()
        player.records.write(player.book, stage.report.end_ms)
        store.meta_set(HISTORY_META_KEY, str(stage.report.end_ms))
    report = stage.report
    log.info(
        "seeded history: %d trades booked (%d failed), %s USDC",
        report.booked,
        report.failed,
        format(report.volume.quantize(Decimal(1)), "f"),
    )
    return report
