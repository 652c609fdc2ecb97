"""Chaos: a taker and a maker trade through the api's write path against a faulty sandbox
(issue 10's done-when).

The sandbox drops requests before and after its engine, answers 500s, starts 429 storms,
delays requests and runs its clock 3 s ahead of the traders' (`SPEC`, seeded: the same run every
time). No simulated actors: the only writes are DESK's (the taker) and ALPHA's (the maker), each
through its own `WriteDesk` and journal. For ten days they open a pool, permit and deposit, trade
six times (RFQ, quote, accept, last look, deposits by permit where a pool is short) and
withdraw; every intent is submitted again at once after any outcome but `Landed`, as an
impatient user would.

Then, read from the engine with the faults off: no RFQ, quote, trade, transfer, pool or permit
twice; every journal intent settled; the two companies' trades, positions and pool balances
mirror each other; every wallet moved by exactly its transfers, every pool by its deposits and
withdrawals; and the USDC of all wallets and pools together is what it was (realized P&L only
moved between DESK and ALPHA inside their pools).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.api.kit.chaos import (
    Books,
    Floor,
    engine_records,
    open_pool,
    permit,
    read_books,
    trade,
    transfer,
)
from tests.sandbox.kit import seed_pool_id
from tui.api.models import ClearingStatus, TradeRole, TradeSide, TransferStatus, TransferType
from tui.api.writes import Journal, Outcome, Resolution, Unresolved, WriteKind

D = Decimal
BUY, SELL = TradeSide.BUY, TradeSide.SELL
DEPOSIT, WITHDRAWAL = TransferType.DEPOSIT, TransferType.WITHDRAWAL
BOOKED = ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL

SPEC = (
    "latency=2ms,spike=0.04:100ms,5xx=0.1,429=0.04:2s,drop_before=0.12,drop_after=0.12,"
    "skew=+3s,seed=11"
)
"""About one request in three meets a fault; every kind of write meets several."""
DAYS = 10
TRADES_A_DAY = 6
NAMES = ("DESK", "ALPHA")


def _ids(records: list[Any], field: str = "id") -> set[str]:
    return {getattr(r, field) for r in records}


@dataclass(frozen=True)
class Venue:
    """The ids of every record the two companies can see, and the money, at one moment."""

    books: Books
    rfqs: set[str]
    quotes: set[str]
    pools: set[str]
    transfers: dict[str, set[str]]
    trades: dict[str, set[str]]

    @classmethod
    def read(cls, sandbox: Any) -> Venue:
        """The venue as the engine holds it now."""
        return cls(
            read_books(sandbox),
            _ids(engine_records(sandbox, "DESK", "rfqs_sent", price=False), "rfq_id"),
            _ids(engine_records(sandbox, "ALPHA", "quotes"), "parent_quote_id"),
            _ids(engine_records(sandbox, "DESK", "settlement_pools"), "pool_id"),
            {n: _ids(engine_records(sandbox, n, "transfers")) for n in NAMES},
            {n: _ids(engine_records(sandbox, n, "portfolio_trades")) for n in NAMES},
        )


@dataclass
class Script:
    """What the ten days did: the pools, how each trade ended, every outcome seen."""

    main: str = ""
    pools: list[str] = field(default_factory=list)
    ended: list[str | None] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)


async def _ten_days(floor: Floor) -> Script:
    desk, alpha = floor.taker, floor.maker
    script = Script(main=await desk.patiently(lambda: seed_pool_id(desk.client)))
    pool_a = await open_pool(floor, desk, alpha, "DESK-ALPHA chaos A")
    script.pools.append(pool_a)
    for day in range(DAYS):
        creator, other = (desk, alpha) if day % 2 == 0 else (alpha, desk)
        fresh = await open_pool(floor, creator, other, f"{creator.name} chaos {day}")
        script.pools.append(fresh)
        await permit(floor, desk, pool_a, D(12_000))
        await transfer(floor, desk, alpha, pool_a, DEPOSIT, "12000")
        await permit(floor, alpha, pool_a, D(30_000))
        await transfer(floor, alpha, desk, pool_a, DEPOSIT, "30000")
        for pool, side, qty in (
            (script.main, BUY, "1"),
            (pool_a, SELL, "0.5"),
            (fresh, BUY, "0.3"),  # a fresh pool: both sides deposit, by permit
            (fresh, SELL, "0.3"),
            (pool_a, BUY, "0.5"),
            (script.main, SELL, "1"),
        ):
            script.ended.append(await trade(floor, pool, side, qty))
        await transfer(floor, desk, alpha, pool_a, WITHDRAWAL, "4000")
        await transfer(floor, alpha, desk, pool_a, WITHDRAWAL, "10000")
    script.outcomes = [o for t in (desk, alpha) for tries in t.outcomes.values() for o in tries]
    return script


async def test_a_faulty_day_at_the_desk_loses_nothing_and_doubles_nothing(
    sandbox: Any, tmp_path: Path
) -> None:
    before = Venue.read(sandbox)
    async with Floor(sandbox, tmp_path, SPEC) as floor:
        script = await _ten_days(floor)
    sandbox.advance(5)  # every block still due is mined (the faults are off again)
    after = Venue.read(sandbox)

    assert script.ended == [BOOKED] * TRADES_A_DAY * DAYS
    _every_fault_was_met(floor, script)
    for name in NAMES:  # every intent settled, and landed, as the journals on disk say
        with Journal(floor.journal_path(name)) as journal:
            assert journal.open_intents() == []
            assert {e.outcome for e in journal.entries()} == {"landed"}, name
    _nothing_twice(floor, before, after)
    _trades_mirror(sandbox, before)
    for pool in (script.main, *script.pools):
        _pool_mirrors(sandbox, after.books, pool)
    _money_adds_up(sandbox, before, after, (script.main, *script.pools))


def _every_fault_was_met(floor: Floor, script: Script) -> None:
    hits = floor.taker.hits() + floor.maker.hits()
    every = {WriteKind.POOL, WriteKind.PERMIT, WriteKind.TRANSFER, WriteKind.RFQ}
    every |= {WriteKind.QUOTE, WriteKind.ACCEPT, WriteKind.LAST_LOOK}
    assert all(hits[kind] >= 2 for kind in every), hits
    hows = {o.how for o in script.outcomes if not isinstance(o, Unresolved)}
    assert {Resolution.FOUND, Resolution.ABSENT, Resolution.REFUSED} <= hows, hows
    assert any(isinstance(o, Unresolved) for o in script.outcomes)  # reads failed, too


def _nothing_twice(floor: Floor, before: Venue, after: Venue) -> None:
    """What is new on the venue is exactly what the intents landed as, each once."""
    desk, alpha = floor.taker, floor.maker

    def landed(kind: WriteKind, field: str, *traders: Any) -> list[str]:
        return sorted(getattr(o.record, field) for t in traders for o in t.landed[kind])

    assert sorted(after.rfqs - before.rfqs) == landed(WriteKind.RFQ, "rfq_id", desk)
    assert len(after.rfqs - before.rfqs) == TRADES_A_DAY * DAYS
    assert sorted(after.quotes - before.quotes) == landed(WriteKind.QUOTE, "parent_quote_id", alpha)
    assert len(after.quotes - before.quotes) == TRADES_A_DAY * DAYS
    assert sorted(after.pools - before.pools) == landed(WriteKind.POOL, "pool_id", desk, alpha)
    assert len(after.pools - before.pools) == DAYS + 1
    for trader in (desk, alpha):
        permits = len(trader.landed[WriteKind.PERMIT])
        nonce = after.books.nonces[trader.company_id] - before.books.nonces[trader.company_id]
        assert nonce == permits, trader.name
        transfers = engine_records(floor.sandbox, trader.name, "transfers")
        new = [t for t in transfers if t.id not in before.transfers[trader.name]]
        manual = sorted(t.id for t in new if t.rfq_id is None)  # not a clearing deposit
        assert manual == landed(WriteKind.TRANSFER, "id", trader), trader.name


def _trades_mirror(sandbox: Any, before: Venue) -> None:
    """Each of DESK's new trade legs has ALPHA's opposite leg, and nothing else is new."""
    desk_id, alpha_id = sandbox.company_ids["DESK"], sandbox.company_ids["ALPHA"]
    mine = [
        t
        for t in engine_records(sandbox, "DESK", "portfolio_trades")
        if t.id not in before.trades["DESK"]
    ]
    theirs = [
        t
        for t in engine_records(sandbox, "ALPHA", "portfolio_trades")
        if t.id not in before.trades["ALPHA"]
    ]
    assert len(mine) == len(theirs) == TRADES_A_DAY * DAYS
    assert len({t.source_quote for t in mine}) == len(mine)
    for taker_leg in mine:
        (maker_leg,) = [
            t
            for t in theirs
            if t.source_quote == taker_leg.source_quote
            and t.source_rfq_leg_id == taker_leg.source_rfq_leg_id
        ]
        assert (taker_leg.role, taker_leg.counterparty) == (TradeRole.TAKER, alpha_id)
        assert (maker_leg.role, maker_leg.counterparty) == (TradeRole.MAKER, desk_id)
        assert maker_leg.side == taker_leg.side.opposite
        assert maker_leg.instrument == taker_leg.instrument
        assert (maker_leg.price, maker_leg.qty, maker_leg.pool_location) == (
            taker_leg.price,
            taker_leg.qty,
            taker_leg.pool_location,
        )


def _pool_mirrors(sandbox: Any, books: Books, pool_id: str) -> None:
    """In one pool: opposite positions, and the same balances in both views and the engine."""
    positions = {
        name: {
            p.instrument.model_dump_json(): p.qty
            for p in engine_records(sandbox, name, "portfolio_positions", pool=pool_id)
        }
        for name in NAMES
    }
    assert positions["DESK"] == {k: -q for k, q in positions["ALPHA"].items()}, pool_id
    views = []
    for name in NAMES:
        (pool,) = engine_records(sandbox, name, "settlement_pools", id=pool_id)
        views.append({p.company: p.margin_usage.balance for p in pool.data.parties})
    engine = {c: v for (p, c), v in books.balances.items() if p == pool_id}
    assert views[0] == views[1] == engine, pool_id


def _money_adds_up(sandbox: Any, before: Venue, after: Venue, pools: tuple[str, ...]) -> None:
    """Wallets moved by their transfers, pools by theirs; the P&L moved between the two."""
    into_pool: dict[str, Decimal] = dict.fromkeys(pools, D(0))
    for name in NAMES:
        company_id = sandbox.company_ids[name]
        moved = D(0)
        for t in engine_records(sandbox, name, "transfers"):
            if t.id in before.transfers[name]:
                continue
            assert t.status == TransferStatus.CONFIRMED, t
            signed = t.qty if t.transfer_type == DEPOSIT else -t.qty
            moved += signed
            into_pool[t.target_pool_location] += signed
        assert after.books.wallets[company_id] == before.books.wallets[company_id] - moved, name
    for pool in pools:
        assert after.books.pool_total(pool) == before.books.pool_total(pool) + into_pool[pool]
    desk_id, alpha_id = sandbox.company_ids["DESK"], sandbox.company_ids["ALPHA"]
    pnl = {c: after.books.held_by(c) - before.books.held_by(c) for c in after.books.wallets}
    assert pnl[desk_id] == -pnl[alpha_id] != 0
    assert all(pnl[c] == 0 for c in pnl if c not in (desk_id, alpha_id))
    assert after.books.usdc == before.books.usdc
