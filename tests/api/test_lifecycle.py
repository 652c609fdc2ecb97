"""Which record states are final: one answer, tolerant of statuses the client does not know."""

from __future__ import annotations

import pytest

from tui.api.lifecycle import (
    QuoteState,
    clearing_is_booked,
    clearing_is_final,
    clearing_is_rejected,
    quote_state_is_final,
    rfq_is_final,
    transfer_is_final,
)
from tui.api.models import ClearingStatus


@pytest.mark.parametrize("status", list(ClearingStatus))
def test_every_known_clearing_status_is_final_exactly_when_booked_or_rejected(
    status: ClearingStatus,
) -> None:
    expected = status.value.startswith("rejected_") or status.value.endswith("_booked_into_pool")
    assert clearing_is_final(status) is expected
    assert clearing_is_final(status.value) is expected


def test_unknown_and_missing_statuses_are_not_final_but_an_unknown_rejection_is() -> None:
    assert not clearing_is_final("pending_something_new")
    assert not clearing_is_final(None)
    assert clearing_is_rejected("rejected_for_a_reason_added_later")
    assert clearing_is_final("rejected_for_a_reason_added_later")
    assert clearing_is_booked(ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL)
    assert not clearing_is_booked("pending_atomic_deposit")


def test_quote_states() -> None:
    assert not quote_state_is_final(QuoteState.OPEN)
    assert not quote_state_is_final("accepted")
    assert all(
        quote_state_is_final(s) for s in ("filled", "failed", "expired", "canceled", "replaced")
    )
    assert quote_state_is_final("void")
    assert not quote_state_is_final("brand_new_state")


def test_rfq_is_final_only_when_its_trade_has_finished_clearing() -> None:
    assert not rfq_is_final("open")
    assert rfq_is_final("expired")
    assert rfq_is_final("closed", "success_trades_booked_into_pool")
    assert not rfq_is_final("closed", "pending_maker_last_look")
    assert not rfq_is_final("reopened_somehow")


def test_transfer_is_final() -> None:
    assert transfer_is_final("confirmed") and transfer_is_final("failed")
    assert not transfer_is_final("pending") and not transfer_is_final("queued")
