"""Quotes: prices, what the taker sees, lists, validation naming the field, cancel and replace."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error
from tui.api.models import (
    CancelRequest,
    ClearingStatus,
    ErrorCode,
    LegQuote,
    NewQuoteRequest,
    ReplaceQuoteRequest,
    UseExistingPool,
)

D = Decimal
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "quotes.db")
    yield k
    k.close()


# -- quotes ----------------------------------------------------------------------------------


def test_quote_prices_and_what_the_taker_sees(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    alpha = kit.quote("ALPHA", rfq, client_quote_id="alpha-1")
    bore = kit.quote("BORE", rfq, new_pool="desk-bore", spread="0.0005")
    assert alpha.client_quote_id == "alpha-1"
    assert alpha.model_extra["quote_status"] == "open"
    assert alpha.pool_location == kit.seed_pool_id()
    assert bore.new_pool_name == "desk-bore" and bore.creator_params is not None

    seen = kit.my_rfq("DESK", rfq.rfq_id)
    assert [q.parent_quote_id for q in seen.bids] == [bore.parent_quote_id, alpha.parent_quote_id]
    assert [q.parent_quote_id for q in seen.asks] == [bore.parent_quote_id, alpha.parent_quote_id]
    assert seen.best_ask.quote_price == bore.aggregated_ask
    ask = seen.asks[1]
    assert ask.existing_margin_requirements.initial_margin == 0
    assert ask.counter_factual_margin_requirements.initial_margin > 0
    assert ask.additional_margin_requirements == ask.counter_factual_margin_requirements
    meta = seen.quotes_common_metadata
    assert meta[alpha.parent_quote_id]["pool_strategy"] == {
        "strategy": "use_existing",
        "pool_id": kit.seed_pool_id(),
    }
    assert meta[bore.parent_quote_id]["pool_strategy"] == {
        "strategy": "create_new",
        "name": "desk-bore",
    }
    assert meta[alpha.parent_quote_id]["maker_company"] == kit.id("ALPHA")
    # The taker does not see the maker's own reference.
    assert kit.my_quote("DESK", alpha.parent_quote_id).client_quote_id is None

    # A maker sees only its own quote on the RFQ, and no margin figures.
    maker_view = kit.my_rfq("ALPHA", rfq.rfq_id)
    assert [q.parent_quote_id for q in maker_view.bids] == [alpha.parent_quote_id]
    assert maker_view.bids[0].counter_factual_margin_requirements is None
    assert list(maker_view.quotes_common_metadata) == [alpha.parent_quote_id]


def test_quote_lists_sent_received_and_all(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    quote = kit.quote("ALPHA", rfq)
    theirs = kit.rfq(taker="EMBR", targets=("DESK",))
    mine = kit.quote("DESK", theirs, new_pool="embr-desk")

    def ids(page):
        return [q.parent_quote_id for q in page.items]

    desk = kit["DESK"]
    assert ids(kit.ex.quotes_sent(desk, limit=10, offset=0)) == [mine.parent_quote_id]
    assert ids(kit.ex.quotes_received(desk, limit=10, offset=0)) == [quote.parent_quote_id]
    assert ids(kit.ex.quotes(desk, limit=10, offset=0)) == [
        quote.parent_quote_id,
        mine.parent_quote_id,
    ]
    assert ids(kit.ex.quotes(kit["BORE"], limit=10, offset=0)) == []
    assert ids(kit.ex.quotes(kit["BORE"], limit=10, offset=0, id=quote.parent_quote_id)) == []


def _quote_body(kit, rfq, **changes):
    body = {
        "rfq_id": rfq.rfq_id,
        "expires_at": kit.later(60),
        "leg_quotes": kit.leg_quotes(rfq),
        "pool_strategy": UseExistingPool(pool_id=kit.seed_pool_id()),
    }
    body.update(changes)
    return NewQuoteRequest.model_validate(body)


def test_bad_quotes_are_refused_naming_the_field(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"), legs=[("buy", kit.perp()), ("sell", kit.perp("ETH"))])
    alpha = kit["ALPHA"]
    good = kit.leg_quotes(rfq)
    cases = [
        ({"expires_at": kit.later(0)}, ErrorCode.OUT_OF_RANGE, "expires_at: must be in the"),
        ({"expires_at": kit.later(301)}, ErrorCode.OUT_OF_RANGE, "expires_at: must not be after"),
        ({"leg_quotes": good[:1]}, ErrorCode.OUT_OF_RANGE, "leg_quotes: expected 2 leg quotes"),
        ({"leg_quotes": [good[0], good[0]]}, ErrorCode.OUT_OF_RANGE, "quoted twice"),
        (
            {"leg_quotes": [good[0], LegQuote(target_rfq_leg_id="nope", bid=D(1))]},
            ErrorCode.OUT_OF_RANGE,
            r"leg_quotes\[1\].target_rfq_leg_id: not a leg",
        ),
        (
            {
                "leg_quotes": [
                    LegQuote(target_rfq_leg_id=good[0].target_rfq_leg_id, bid=D(1)),
                    LegQuote(target_rfq_leg_id=good[1].target_rfq_leg_id, bid=D(1)),
                ]
            },
            ErrorCode.OUT_OF_RANGE,
            "leg_quotes: price every leg on one side",
        ),
        (
            {"pool_strategy": UseExistingPool(pool_id=UNKNOWN_ID)},
            ErrorCode.NOT_FOUND,
            "pool_strategy.pool_id",
        ),
        ({"rfq_id": UNKNOWN_ID}, ErrorCode.NOT_FOUND, "rfq_id: RFQ not found"),
    ]
    for changes, code, fragment in cases:
        with expect_error(code, fragment):
            kit.ex.quotes_new(alpha, _quote_body(kit, rfq, **changes))
    # A company that was not asked, and the taker itself, cannot tell the RFQ exists.
    for name in ("CBLT", "DESK"):
        with expect_error(ErrorCode.NOT_FOUND, "rfq_id: RFQ not found"):
            kit.ex.quotes_new(kit[name], _quote_body(kit, rfq))
    # BORE has no pool with DESK; the DESK-ALPHA pool is not BORE's to name.
    with expect_error(ErrorCode.NOT_FOUND, "pool_strategy.pool_id"):
        kit.ex.quotes_new(kit["BORE"], _quote_body(kit, rfq))
    assert kit.ex.quotes(alpha, limit=10, offset=0).items == []


def test_quote_on_a_pool_with_someone_else_or_not_open(kit):
    rfq = kit.rfq(targets=("BORE",))
    other = kit.new_pool("BORE", "CBLT", name="bc")
    with expect_error(ErrorCode.NOT_FOUND):
        kit.quote("BORE", rfq, pool=kit.seed_pool_id())
    kit.advance(2)
    with expect_error(ErrorCode.OUT_OF_RANGE, "not between you and the RFQ's taker"):
        kit.quote("BORE", rfq, pool=other.pool_id)
    pending = kit.new_pool("BORE", "DESK", name="bd")
    with expect_error(ErrorCode.CONFLICT, "pending, not open"):
        kit.quote("BORE", rfq, pool=pending.pool_id)
    with expect_error(ErrorCode.OUT_OF_RANGE, "pool_strategy.name"):
        kit.quote("BORE", rfq, new_pool="BD")  # names are unique per pair, case-insensitive


def test_quote_cancel_cancel_all_and_expiry(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    first = kit.quote("ALPHA", rfq)
    second = kit.quote("ALPHA", rfq, expires_in=10)
    third = kit.quote("ALPHA", rfq)
    with expect_error(ErrorCode.FORBIDDEN, "only the quote's maker"):
        kit.ex.quotes_cancel(kit["DESK"], CancelRequest(id=first.parent_quote_id))
    with expect_error(ErrorCode.NOT_FOUND, "id: quote not found"):
        kit.ex.quotes_cancel(kit["BORE"], CancelRequest(id=first.parent_quote_id))
    assert kit.ex.quotes_cancel(kit["ALPHA"], CancelRequest(id=first.parent_quote_id)) is True
    with expect_error(ErrorCode.CONFLICT, "canceled, not open"):
        kit.ex.quotes_cancel(kit["ALPHA"], CancelRequest(id=first.parent_quote_id))
    kit.advance(10)

    def status(quote):
        return kit.my_quote("ALPHA", quote.parent_quote_id).model_extra["quote_status"]

    assert status(second) == "expired"
    assert kit.ex.quotes_cancel_all(kit["ALPHA"]) is True
    assert [status(q) for q in (first, second, third)] == ["canceled", "expired", "canceled"]
    assert kit.my_rfq("DESK", rfq.rfq_id).bids == []
    assert kit.ex.quotes_cancel_all(kit["ALPHA"]) is True  # nothing left: still true


def test_replace_cancels_the_parent_and_quotes_anew(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    parent = kit.quote("ALPHA", rfq)
    body = ReplaceQuoteRequest(
        parent_quote_id=parent.parent_quote_id,
        rfq_id=rfq.rfq_id,
        expires_at=kit.later(90),
        leg_quotes=kit.leg_quotes(rfq, spread="0.0002"),
        pool_strategy=UseExistingPool(pool_id=kit.seed_pool_id()),
        client_quote_id="v2",
    )
    child = kit.ex.quotes_replace(kit["ALPHA"], body)
    assert child.parent_quote_id != parent.parent_quote_id
    assert child.model_extra["replaces"] == parent.parent_quote_id
    old = kit.my_quote("ALPHA", parent.parent_quote_id)
    assert old.model_extra["quote_status"] == "replaced"
    assert old.model_extra["replaced_by"] == child.parent_quote_id
    seen = kit.my_rfq("DESK", rfq.rfq_id)
    assert [q.parent_quote_id for q in seen.asks] == [child.parent_quote_id]
    with expect_error(ErrorCode.CONFLICT, "replaced, not open"):
        kit.ex.quotes_replace(kit["ALPHA"], body)


def test_a_failed_replace_leaves_the_parent_open(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    parent = kit.quote("ALPHA", rfq)
    body = ReplaceQuoteRequest(
        parent_quote_id=parent.parent_quote_id,
        rfq_id=rfq.rfq_id,
        expires_at=kit.later(9999),
        leg_quotes=kit.leg_quotes(rfq),
        pool_strategy=UseExistingPool(pool_id=kit.seed_pool_id()),
    )
    with expect_error(ErrorCode.OUT_OF_RANGE, "expires_at"):
        kit.ex.quotes_replace(kit["ALPHA"], body)
    assert kit.my_quote("ALPHA", parent.parent_quote_id).model_extra["quote_status"] == "open"
    wrong_rfq = body.model_copy(update={"rfq_id": kit.rfq().rfq_id, "expires_at": kit.later(60)})
    with expect_error(ErrorCode.OUT_OF_RANGE, "rfq_id: does not match"):
        kit.ex.quotes_replace(kit["ALPHA"], wrong_rfq)


def test_rfq_clearing_status_is_hidden_from_other_makers(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    assert kit.my_rfq("ALPHA", rfq.rfq_id).clearing_status == (
        ClearingStatus.PENDING_MAKER_LAST_LOOK
    )
    assert kit.my_rfq("BORE", rfq.rfq_id).clearing_status is None


def test_leg_prices_finer_than_the_listing_precision_are_refused(kit):
    rfq = kit.rfq()
    leg = rfq.rfq_legs[0].rfq_leg_id
    fine = [LegQuote(target_rfq_leg_id=leg, bid=D("98000.123456789"), ask=None)]
    with expect_error(ErrorCode.OUT_OF_RANGE, r"leg_quotes\[0\].bid: at most 8 decimal places"):
        kit.quote("ALPHA", rfq, leg_quotes=fine)
    tiny = [LegQuote(target_rfq_leg_id=leg, bid=None, ask=D("1E-9"))]
    with expect_error(ErrorCode.OUT_OF_RANGE, r"leg_quotes\[0\].ask: at most 8 decimal places"):
        kit.quote("ALPHA", rfq, leg_quotes=tiny)


def test_rfq_views_degrade_when_margin_arithmetic_fails(kit):
    """An RFQ stored before strikes were bounded (put at 1E+15 on 100,000 BTC) still reads."""
    from tui.api.models import PayoffType
    from tui.sandbox.engine.records import load_rfq, save_rfq

    option = kit.option(strike="100000", payoff=PayoffType.PUT)
    rfq = kit.rfq(legs=[("sell", option)], qty="1")
    kit.quote(
        "ALPHA",
        rfq,
        leg_quotes=[
            LegQuote(target_rfq_leg_id=rfq.rfq_legs[0].rfq_leg_id, bid=D("1000"), ask=D("1100"))
        ],
    )
    stored = load_rfq(kit.ex.store, rfq.rfq_id)
    stored["rfq_legs"][0]["instrument"]["strike"] = "1E+20"
    stored["rfq_legs"][0]["qty"] = "100000000"
    stored["structure"]["legs"][0]["instrument"]["strike"] = "1E+20"
    stored["qty"] = "100000000"
    with kit.ex.store.transaction():
        save_rfq(kit.ex.store, stored)
    seen = kit.my_rfq("DESK", rfq.rfq_id)  # the short put's margin does not fit 6 places
    assert seen.asks and seen.asks[0].counter_factual_margin_requirements is None
