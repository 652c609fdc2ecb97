"""Simulated takers: RFQs to the user's company, acceptance within a limit, the whole path."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import ActorKit
from tui.api.models import ClearingStatus, RequestAction, RFQStatus
from tui.sandbox.actors.profiles import ActorConfig

D = Decimal
S = ClearingStatus
TAKERS_ONLY = ActorConfig(makers=False, taker_rfq_interval_s=20)


@pytest.fixture
def kit(tmp_path):
    k = ActorKit(tmp_path / "takers.db", config=TAKERS_ONLY)
    yield k
    k.close()


def first_rfq_to_desk(kit, taker: str = "EMBR"):
    """Run until ``taker`` sends an RFQ; return DESK's view of it."""
    assert kit.run(300, step=1.0, until=lambda: kit.actions("rfq", taker))
    rfq_id = kit.actions("rfq", taker)[0].ref
    received = kit.received("DESK", rfq_id)
    assert received, "the simulated taker's RFQ did not reach DESK"
    return received[0]


def quote_status(kit, quote_id: str) -> str:
    return str(kit.quote_state("DESK", quote_id).clearing_status)


def test_a_takers_rfq_reaches_the_user_and_clears_through_the_users_last_look(kit):
    rfq = first_rfq_to_desk(kit)
    assert rfq.taker_company == kit.cid("EMBR")
    assert rfq.rfq_status == RFQStatus.OPEN

    # DESK quotes tight, asking for a new pool (it has none with EMBR).
    quote = kit.quote("DESK", rfq)
    assert kit.run(40, until=lambda: kit.actions("accept", "EMBR"))
    assert kit.quote_state("DESK", quote.parent_quote_id).clearing_status is not None

    # Pool creation, then EMBR approves its own deposit, then it is DESK's last look.
    assert kit.run(
        20, until=lambda: quote_status(kit, quote.parent_quote_id) == S.PENDING_MAKER_LAST_LOOK
    )
    assert kit.actions("deposit", "EMBR")
    response = kit.last_look("DESK", quote, RequestAction.ACCEPT)
    assert response.new_clearing_status == S.PENDING_MAKER_DEPOSIT_APPROVAL  # a fresh pool
    kit.permit("DESK", response.settlement_pool_address, response.pending_deposits_sum_qty)
    assert kit.run(
        10,
        until=lambda: quote_status(kit, quote.parent_quote_id) == S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    )

    events = [str(e.status) for e in kit.quote_state("DESK", quote.parent_quote_id).clearing_events]
    assert events == [
        S.PENDING_POOL_CREATION,
        S.PENDING_TAKER_DEPOSIT_APPROVAL,
        S.PENDING_MAKER_LAST_LOOK,
        S.PENDING_MAKER_DEPOSIT_APPROVAL,
        S.PENDING_ATOMIC_DEPOSIT,
        S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    ]
    trades = kit.ex.portfolio_trades(kit.caller("DESK"), limit=100, offset=0).items
    assert {t.source_rfq for t in trades} == {rfq.rfq_id}
    assert all(str(t.role) == "maker" for t in trades)
    assert kit.received("DESK", rfq.rfq_id)[0].rfq_status == RFQStatus.CLOSED
    assert kit.run(5, until=lambda: kit.actions("booked", "EMBR"))


def test_a_taker_ignores_quotes_outside_its_limit_and_takes_one_inside(kit):
    rfq = first_rfq_to_desk(kit)
    side = kit.actions("rfq", "EMBR")[0].detail.split()[1]  # "<kind> <side> <qty> to ..."
    # 300 bps the wrong way for the taker: far outside its limit of ~40 bps.
    skew = D(300) if side == "buy" else D(-300)
    wide = kit.quote("DESK", rfq, skew_bps=skew)
    kit.run(35)
    assert not kit.actions("accept", "EMBR")
    assert str(kit.quote_state("DESK", wide.parent_quote_id).model_extra["quote_status"]) in {
        "open",
        "expired",
    }
    fresh = kit.received("DESK", rfq.rfq_id)[0]
    if fresh.rfq_status != RFQStatus.OPEN:
        pytest.skip("the RFQ expired before the second quote")  # not with this seed
    tight = kit.quote("DESK", fresh, lifetime_s=20)
    assert kit.run(20, until=lambda: kit.actions("accept", "EMBR"))
    accepted = kit.quote_state("DESK", tight.parent_quote_id)
    assert accepted.clearing_status is not None


def test_takers_send_rfqs_at_the_configured_rate(tmp_path):
    counts = {}
    for pace in (1.0, 2.0):
        config = ActorConfig(makers=False, taker_rfq_interval_s=60, pace=pace)
        kit = ActorKit(tmp_path / f"rate-{pace}.db", config=config)
        try:
            kit.run(3600, step=5.0)
            counts[pace] = len(kit.actions("rfq"))
        finally:
            kit.close()
    # Two takers, one RFQ a minute each on average: about 120 an hour (Poisson, so loosely).
    assert 80 <= counts[1.0] <= 160, counts
    assert counts[2.0] >= 1.6 * counts[1.0], counts


def test_taker_rfqs_are_valid_structures_sent_to_the_user(kit):
    kit.run(600, step=2.0)
    sent = kit.actions("rfq")
    assert len(sent) >= 10
    assert not kit.actions("refused")  # the engine took every RFQ the takers built
    received = {r.rfq_id for r in kit.received("DESK")}
    assert {a.ref for a in sent} <= received
    kinds = {a.detail.split()[0] for a in sent}
    assert "perp_major" in kinds and len(kinds) >= 2


def test_taker_competition_sends_some_rfqs_to_the_simulated_makers(tmp_path):
    kit = ActorKit(tmp_path / "compete.db", config=ActorConfig(taker_rfq_interval_s=20))
    try:
        kit.run(900, step=2.0)
        sent = kit.actions("rfq")
        assert sent
        with_makers = [a for a in sent if any(m in a.detail for m in ("ALPHA", "BORE", "CBLT"))]
        assert 0 < len(with_makers) < len(sent)
        assert all("DESK" in a.detail for a in sent)
        # Makers' quotes on those RFQs, and some of them traded.
        assert kit.actions("quote")
        assert kit.actions("booked")
    finally:
        kit.close()


def test_no_takers_no_rfqs(tmp_path):
    kit = ActorKit(tmp_path / "quiet.db", config=ActorConfig(takers=False))
    try:
        kit.run(600, step=5.0)
        assert kit.actions("rfq") == []
        assert kit.received("DESK") == []
    finally:
        kit.close()
