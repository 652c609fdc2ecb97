"""Which states of the venue's records are final: the one answer every layer asks.

A record in a final state will never change again, so the desk stops polling it, the sandbox
refuses to move it, and the actors forget it. Records come from a tolerant reader, so a status
may be a known enum member, a raw string the client does not know yet, or absent; every
function here takes any of them. An unknown status is never final: a newer venue's new state
is treated as still moving, which costs a poll and never hides a change.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from tui.api.models import ClearingStatus, RFQStatus, TransferStatus

__all__ = [
    "FINAL_QUOTE_STATES",
    "FINAL_RFQ_STATUSES",
    "FINAL_TRANSFER_STATUSES",
    "QuoteState",
    "clearing_is_booked",
    "clearing_is_final",
    "clearing_is_rejected",
    "quote_state_is_final",
    "rfq_is_final",
    "transfer_is_final",
]


class QuoteState(StrEnum):
    """Lifecycle of a quote (the ``quote_status`` extra field of a Quote record).

    ``open`` may be accepted; ``accepted`` has a trade clearing; ``filled`` was booked;
    ``failed`` had its trade rejected; ``expired`` passed ``expires_at`` while open;
    ``canceled`` by its maker; ``replaced`` by ``/quotes/replace``; ``void`` because its RFQ
    closed, expired or was canceled while the quote was open.
    """

    OPEN = "open"
    ACCEPTED = "accepted"
    FILLED = "filled"
    FAILED = "failed"
    EXPIRED = "expired"
    CANCELED = "canceled"
    REPLACED = "replaced"
    VOID = "void"


FINAL_QUOTE_STATES = frozenset(
    s.value for s in QuoteState if s not in (QuoteState.OPEN, QuoteState.ACCEPTED)
)
FINAL_RFQ_STATUSES = frozenset(
    {RFQStatus.EXPIRED.value, RFQStatus.CANCELED.value, RFQStatus.CLOSED.value}
)
FINAL_TRANSFER_STATUSES = frozenset({TransferStatus.CONFIRMED.value, TransferStatus.FAILED.value})


def _text(status: Any) -> str:
    return "" if status is None else str(status)


def clearing_is_rejected(status: Any) -> bool:
    """True for every ``rejected_*`` clearing status, known to this client or not."""
    return _text(status).startswith("rejected_")


def clearing_is_booked(status: Any) -> bool:
    """True when the trade was booked into its pool."""
    return _text(status) == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL.value


def clearing_is_final(status: Any) -> bool:
    """True once nothing more can happen to a trade: booked, or any rejection."""
    return clearing_is_booked(status) or clearing_is_rejected(status)


def quote_state_is_final(state: Any) -> bool:
    """True for a quote that is filled, failed, expired, cancelled, replaced or void."""
    return _text(state) in FINAL_QUOTE_STATES


def rfq_is_final(rfq_status: Any, clearing_status: Any = None) -> bool:
    """True for an RFQ that is over and whose accepted quote (if any) has finished clearing."""
    return _text(rfq_status) in FINAL_RFQ_STATUSES and (
        clearing_status is None or clearing_is_final(clearing_status)
    )


def transfer_is_final(status: Any) -> bool:
    """True for a transfer confirmed or failed on chain."""
    return _text(status) in FINAL_TRANSFER_STATUSES
