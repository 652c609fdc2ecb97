"""What the reference SDK's typed records add to an RFQ (contract.md): the sandbox sends it.

Each ``quotes_common_metadata`` entry carries ``parent_quote_id`` and ``clearing_events``; each
bid/ask (``QuoteWithMargin``) carries ``margin_requirements_counter_factual_request_id`` and
``existing_margin_requirements_request_id``: stable ids where the taker sees margin figures,
null where nobody computed any (a maker's view).
"""

from __future__ import annotations

import uuid

import pytest

from tests.sandbox.kit import Kit

EXISTING = "existing_margin_requirements_request_id"
COUNTER_FACTUAL = "margin_requirements_counter_factual_request_id"


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "sdk.db")
    yield k
    k.close()


def _ids(entry) -> tuple[str | None, str | None]:
    extra = entry.model_extra or {}
    assert EXISTING in extra and COUNTER_FACTUAL in extra, extra
    return extra[EXISTING], extra[COUNTER_FACTUAL]


def test_metadata_entries_name_their_quote_and_carry_its_clearing_events(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    alpha = kit.quote("ALPHA", rfq)
    bore = kit.quote("BORE", rfq, new_pool="desk-bore")

    meta = kit.my_rfq("DESK", rfq.rfq_id).quotes_common_metadata
    for quote in (alpha, bore):
        entry = meta[quote.parent_quote_id]
        assert entry["parent_quote_id"] == quote.parent_quote_id
        assert entry["clearing_events"] == []

    kit.accept("DESK", alpha)
    events = kit.my_quote("DESK", alpha.parent_quote_id).clearing_events
    assert events  # the accept moved the trade on
    for viewer in ("DESK", "ALPHA"):
        entry = kit.my_rfq(viewer, rfq.rfq_id).quotes_common_metadata[alpha.parent_quote_id]
        assert [e["status"] for e in entry["clearing_events"]] == [str(e.status) for e in events]
        assert entry["clearing_events"][0]["parent_quote_id"] == alpha.parent_quote_id
        assert entry["clearing_events"][0]["rfq_id"] == rfq.rfq_id
        assert entry["clearing_events"][0]["taker_side"] == "buy"


def test_the_taker_sees_stable_margin_request_ids_on_every_bid_and_ask(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    alpha = kit.quote("ALPHA", rfq)
    kit.quote("BORE", rfq, new_pool="desk-bore")

    first = kit.my_rfq("DESK", rfq.rfq_id)
    assert len(first.bids) == len(first.asks) == 2
    for entry in (*first.bids, *first.asks):
        existing, counter_factual = _ids(entry)
        assert uuid.UUID(existing) and uuid.UUID(counter_factual)
        assert existing != counter_factual

    bid = next(b for b in first.bids if b.parent_quote_id == alpha.parent_quote_id)
    ask = next(a for a in first.asks if a.parent_quote_id == alpha.parent_quote_id)
    # The taker's margin before the trade is one computation for both sides of a quote; the
    # margin after it depends on the side taken.
    assert _ids(bid)[0] == _ids(ask)[0]
    assert _ids(bid)[1] != _ids(ask)[1]
    # Other quotes, other computations.
    others = [e for e in (*first.bids, *first.asks) if e.parent_quote_id != alpha.parent_quote_id]
    assert {_ids(e)[0] for e in others}.isdisjoint({_ids(bid)[0]})

    kit.advance(5)  # the marks move, the figures may change; the ids name the same computation
    again = kit.my_rfq("DESK", rfq.rfq_id)
    assert [_ids(e) for e in (*again.bids, *again.asks)] == [
        _ids(e) for e in (*first.bids, *first.asks)
    ]


def test_a_maker_sees_null_margin_request_ids(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    kit.quote("ALPHA", rfq)
    maker_view = kit.my_rfq("ALPHA", rfq.rfq_id)
    assert maker_view.bids and maker_view.asks
    for entry in (*maker_view.bids, *maker_view.asks):
        assert entry.counter_factual_margin_requirements is None
        assert _ids(entry) == (None, None)
