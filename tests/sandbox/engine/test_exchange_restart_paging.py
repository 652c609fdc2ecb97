"""A restart loses nothing and carries on; 2,500 trades page consistently."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit
from tui.api.models import ClearingStatus

D = Decimal
S = ClearingStatus


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "restart.db")
    yield k
    k.close()


def snapshot(kit):
    desk, alpha = kit["DESK"], kit["ALPHA"]
    return {
        "rfqs": [r.model_dump(exclude={"structure_price"}) for r in _all(kit.ex.rfqs_sent, desk)],
        "quotes": [q.model_dump() for q in _all(kit.ex.quotes, alpha)],
        "trades": [t.model_dump() for t in _all(kit.ex.portfolio_trades, desk)],
        "positions": [p.model_dump() for p in _all(kit.ex.portfolio_positions, desk)],
        "transfers": [t.model_dump() for t in _all(kit.ex.transfers, desk)],
        "assets": [a.model_dump() for a in _all(kit.ex.portfolio_assets, desk)],
        "pools": [p.pool_id for p in _all(kit.ex.settlement_pools, desk)],
        "credentials": kit.ex.credentials(),
        "nonce": kit.ex.chain.nonce(kit.creds["DESK"]["wallet_address"]),
    }


def _all(method, caller):
    return method(caller, limit=1000, offset=0).items


def test_restart_loses_nothing_and_pending_work_carries_on(kit):
    booked_rfq = kit.rfq()
    booked = kit.quote("ALPHA", booked_rfq)
    kit.accept("DESK", booked)
    kit.last_look("ALPHA", booked)
    kit.deposit("DESK", kit.seed_pool_id(), "1234.5")
    # Work in flight at the restart: a pool being created, an open quote.
    pending_rfq = kit.rfq(targets=("ALPHA", "BORE"))
    open_quote = kit.quote("ALPHA", pending_rfq)
    creating = kit.quote("BORE", pending_rfq, new_pool="after-restart")
    kit.accept("DESK", creating)
    before = snapshot(kit)

    kit.reopen()
    assert snapshot(kit) == before

    kit.advance(2)  # the pool creation block was scheduled before the restart
    assert kit.my_quote("DESK", creating.parent_quote_id).clearing_status == (
        S.PENDING_TAKER_DEPOSIT_APPROVAL
    )
    assert kit.my_quote("ALPHA", open_quote.parent_quote_id).model_extra["quote_status"] == "open"
    fresh = kit.rfq()
    ids_before = {r["rfq_id"] for r in before["rfqs"]}
    assert fresh.rfq_id not in ids_before  # the id counter carried on
    assert kit.balance("DESK", kit.seed_pool_id()) == D("251234.5")


def test_market_resumes_its_walk_after_restart(kit):
    kit.advance(3600)
    mark = kit.ex.market.mark_price("BTC")
    kit.reopen()
    assert kit.ex.market.mark_price("BTC") == mark


def test_2500_trades_page_consistently(kit):
    # Ten legs per RFQ, bought and sold in pairs, so the position stays flat and margin small.
    legs = [("buy" if n % 2 == 0 else "sell", kit.perp()) for n in range(10)]
    for _ in range(250):
        rfq = kit.rfq(legs=legs, qty="0.001")
        quote = kit.quote("ALPHA", rfq)
        kit.accept("DESK", quote)
        assert kit.last_look("ALPHA", quote).new_clearing_status == (
            S.SUCCESS_TRADES_BOOKED_INTO_POOL
        )
    desk = kit["DESK"]
    seen: list[str] = []
    offset = 0
    while True:
        page = kit.ex.portfolio_trades(desk, limit=700, offset=offset)
        seen.extend(t.id for t in page.items)
        offset += 700
        if not page.has_more:
            break
    assert len(seen) == 2500 and len(set(seen)) == 2500
    full = kit.ex.portfolio_trades(desk, limit=10_000, offset=0)
    assert [t.id for t in full.items] == seen and not full.has_more
    last = kit.ex.portfolio_trades(desk, limit=500, offset=2000)
    assert [t.id for t in last.items] == seen[2000:] and not last.has_more
    assert kit.ex.portfolio_trades(desk, limit=10, offset=2500).items == []
    created = [t.created_at for t in full.items]
    assert created == sorted(created)
    one = kit.ex.portfolio_trades(desk, limit=10, offset=0, id=seen[1234]).items
    assert [t.id for t in one] == [seen[1234]]
    maker = kit.ex.portfolio_trades(kit["ALPHA"], limit=10_000, offset=0)
    assert len(maker.items) == 2500 and {t.role for t in maker.items} == {"maker"}
    assert kit.ex.portfolio_positions(desk, limit=10, offset=0).items == []
