"""Simulated makers: they quote targeted RFQs, restate, take their last look, fund deposits."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from tests.sandbox.kit import MAKERS, ActorKit, always
from tui.api.models import AcceptQuoteRequest, ClearingStatus, TradeSide
from tui.sandbox.actors.profiles import ActorConfig, LastLookAction, maker_profile

D = Decimal
S = ClearingStatus
MAKERS_ONLY = ActorConfig(takers=False)


@pytest.fixture
def kit(tmp_path):
    k = ActorKit(tmp_path / "makers.db", config=MAKERS_ONLY)
    yield k
    k.close()


def test_a_targeted_rfq_gets_quotes_from_the_makers_within_seconds(kit):
    rfq = kit.desk_rfq(MAKERS, qty="0.5")
    created = kit.now

    kit.run(20)

    view = kit.desk_rfq_view(rfq.rfq_id)
    makers = {meta["maker_company"] for meta in view.quotes_common_metadata.values()}
    assert len(makers) >= 2, view.quotes_common_metadata
    assert view.bids and view.asks
    mark = kit.ex.market.mark_price("BTC")
    bids = {q.parent_quote_id: q.quote_price for q in view.bids}
    asks = {q.parent_quote_id: q.quote_price for q in view.asks}
    assert bids.keys() == asks.keys()
    assert all(bids[q] < asks[q] for q in bids)  # each maker's own quote is two-way, not crossed
    # Every maker quotes around the mark, within a few bps (the fat-finger check is 2 %).
    for quote in view.bids + view.asks:
        assert abs(quote.quote_price - mark) / mark < D("0.002")
    # Each first quote came inside its maker's latency range (plus one step of the test).
    for action in kit.actions("quote"):
        profile = maker_profile(7, action.actor)
        low, high = profile.latency_s
        assert low * 1000 <= action.at_ms - created <= high * 1000 + 500
    # A maker either quoted or said why not (the seed leaves some RFQs unanswered).
    said = {a.actor for a in kit.actions("quote")} | {a.actor for a in kit.actions("ignore")}
    assert said == set(MAKERS)


def test_fast_makers_answer_before_slow_ones(kit):
    rfq = kit.desk_rfq(("ALPHA", "BORE"))
    kit.run(25)
    quoted = {a.actor: a.at_ms for a in kit.actions("quote") if a.ref == rfq.rfq_id}
    ignored = {a.actor for a in kit.actions("ignore")}
    if "ALPHA" in quoted and "BORE" in quoted:
        assert quoted["ALPHA"] < quoted["BORE"]
    # Whatever the seed decided, a maker either quoted or said why not.
    assert set(quoted) | ignored == {"ALPHA", "BORE"}


def test_makers_answer_only_rfqs_targeted_at_them(kit):
    rfq = kit.desk_rfq(("ALPHA",))
    kit.run(10)
    assert {a.actor for a in kit.actions() if a.ref == rfq.rfq_id} <= {"ALPHA"}
    assert kit.received("BORE") == []


def test_a_maker_restates_an_old_quote_and_the_old_one_is_replaced(kit):
    rfq = kit.desk_rfq(("ALPHA",), lifetime_s=120)
    restate_s = maker_profile(7, "ALPHA").restate_after_s
    assert kit.run(restate_s + 10, until=lambda: kit.actions("replace", "ALPHA"))
    first = kit.actions("quote", "ALPHA")[0]
    quotes = kit.ex.quotes_sent(kit.caller("ALPHA"), limit=100, offset=0).items
    states = Counter(str(q.model_extra["quote_status"]) for q in quotes)
    assert states["replaced"] >= 1 and states["open"] == 1
    replaced_at = kit.actions("replace", "ALPHA")[0].at_ms
    assert replaced_at - first.at_ms <= (restate_s + 1) * 1000
    # Only one open quote of ALPHA is on the RFQ at any time.
    view = kit.desk_rfq_view(rfq.rfq_id)
    assert len(view.bids) == 1 and len(view.asks) == 1


def test_a_maker_never_quotes_past_the_rfq_expiry(kit):
    rfq = kit.desk_rfq(MAKERS, lifetime_s=15)
    kit.run(40)
    quotes = []
    for name in MAKERS:
        quotes += kit.ex.quotes_sent(kit.caller(name), limit=100, offset=0).items
    assert quotes
    for quote in quotes:
        assert quote.expires_at <= rfq.rfq_expires_at
        assert str(quote.model_extra["quote_status"]) in {"expired", "replaced", "void"}


def _trade_with(kit, maker: str, side: TradeSide = TradeSide.BUY):
    """DESK asks ``maker`` (in the seeded DESK-ALPHA pool when it is ALPHA), accepts its quote."""
    rfq = kit.desk_rfq((maker,), qty="0.01", lifetime_s=90)
    assert kit.run(20, until=lambda: kit.desk_rfq_view(rfq.rfq_id).asks)
    view = kit.desk_rfq_view(rfq.rfq_id)
    best = view.best_ask if side is TradeSide.BUY else view.best_bid
    kit.ex.quotes_accept(
        kit.caller("DESK"),
        AcceptQuoteRequest(parent_quote_id=best.parent_quote_id, rfq_id=rfq.rfq_id, side=side),
    )
    return rfq, best.parent_quote_id


def _final(kit, maker: str, quote_id: str) -> str:
    def done():
        status = str(kit.quote_state(maker, quote_id).clearing_status)
        return status.startswith("rejected") or status == S.SUCCESS_TRADES_BOOKED_INTO_POOL

    kit.run(90, until=done)
    return str(kit.quote_state(maker, quote_id).clearing_status)


EXPECTED = {
    LastLookAction.ACCEPT: S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    LastLookAction.REJECT: S.REJECTED_MAKER_LAST_LOOK_REJECTED,
    LastLookAction.EXPIRE: S.REJECTED_MAKER_LAST_LOOK_EXPIRED,
}


def test_last_look_outcome_follows_the_makers_seeded_decision(kit):
    profile = kit.runner.makers[0].profile
    assert profile.name == "ALPHA"
    outcomes = Counter()
    for _ in range(12):
        _, quote_id = _trade_with(kit, "ALPHA")
        decided = profile.last_look_action(kit.runner.seed, quote_id)
        final = _final(kit, "ALPHA", quote_id)
        assert final == EXPECTED[decided], (quote_id, decided, final)
        outcomes[decided] += 1
    assert outcomes[LastLookAction.ACCEPT] >= 1


def test_last_look_decisions_match_the_profile_probabilities():
    for name in MAKERS:
        profile = maker_profile(11, name)
        counts = Counter(profile.last_look_action(11, f"quote-{i}") for i in range(4000))
        for action, share in profile.last_look.items():
            observed = counts[LastLookAction(action)] / 4000
            assert abs(observed - share) < 0.03, (name, action, observed, share)


def test_answer_rate_and_latency_match_the_profile():
    for name in MAKERS:
        profile = maker_profile(3, name)
        answered = sum(profile.answers(3, f"rfq-{i}") for i in range(4000)) / 4000
        assert abs(answered - profile.answer_rate) < 0.03
        latencies = [profile.latency(3, f"rfq-{i}") for i in range(500)]
        low, high = profile.latency_s
        assert low <= min(latencies) and max(latencies) < high
    assert maker_profile(3, "BORE").latency_s[0] > maker_profile(3, "ALPHA").latency_s[1]
    assert maker_profile(3, "DUNE").answer_rate < 0.8  # the one that leaves RFQs unanswered


def test_a_maker_approves_its_own_deposit_in_a_new_pool(tmp_path):
    kit = ActorKit(
        tmp_path / "deposit.db", config=MAKERS_ONLY, maker_profiles=always("BORE", "accept")
    )
    try:
        rfq = kit.desk_rfq(("BORE",), qty="0.2", lifetime_s=120)
        assert kit.run(30, until=lambda: kit.desk_rfq_view(rfq.rfq_id).asks)
        best = kit.desk_rfq_view(rfq.rfq_id).best_ask
        quote = kit.quote_state("BORE", best.parent_quote_id)
        assert quote.new_pool_name  # no DESK-BORE pool yet: the maker asks for a new one
        response = kit.ex.quotes_accept(
            kit.caller("DESK"),
            AcceptQuoteRequest(
                parent_quote_id=best.parent_quote_id, rfq_id=rfq.rfq_id, side=TradeSide.BUY
            ),
        )
        assert response.new_clearing_status == S.PENDING_POOL_CREATION
        address = response.pending_settlement_pool.address

        def taker_waits():
            status = kit.quote_state("BORE", best.parent_quote_id).clearing_status
            return status == S.PENDING_TAKER_DEPOSIT_APPROVAL

        assert kit.run(10, until=taker_waits)
        kit.permit("DESK", address, D(20_000))  # the user's own deposit
        final = _final(kit, "BORE", best.parent_quote_id)
        assert final == S.SUCCESS_TRADES_BOOKED_INTO_POOL
        history = kit.quote_state("BORE", best.parent_quote_id).clearing_events
        events = [str(e.status) for e in history]
        assert events[-3:] == [
            S.PENDING_MAKER_DEPOSIT_APPROVAL,
            S.PENDING_ATOMIC_DEPOSIT,
            S.SUCCESS_TRADES_BOOKED_INTO_POOL,
        ]
        assert [a.kind for a in kit.actions(actor="BORE")][-3:] == [
            "last_look_accept",
            "deposit",
            "booked",
        ]
        transfers = kit.ex.transfers(kit.caller("BORE"), limit=10, offset=0).items
        assert any(t.rfq_id == rfq.rfq_id and t.qty > 0 for t in transfers)
    finally:
        kit.close()


def test_a_rejecting_maker_frees_the_rfq_for_another_quote(tmp_path):
    kit = ActorKit(
        tmp_path / "reject.db", config=MAKERS_ONLY, maker_profiles=always("ALPHA", "reject")
    )
    try:
        rfq, quote_id = _trade_with(kit, "ALPHA")
        assert _final(kit, "ALPHA", quote_id) == S.REJECTED_MAKER_LAST_LOOK_REJECTED
        assert kit.desk_rfq_view(rfq.rfq_id).rfq_status == "open"
        assert kit.actions("last_look_reject", "ALPHA")
    finally:
        kit.close()
