"""Trading records: RFQs, quotes, their clearing events, and the answers to accept and last look."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from tui.api.models.base import NullAsDefault, Record
from tui.api.models.instruments import LegQuote, RFQLeg, Structure, StructurePrice
from tui.api.models.margin import MarginParams, MarginUsage, PendingSettlementPool
from tui.api.models.values import ClearingStatusValue, RFQStatusValue, SideValue
from tui.api.types import DecimalStr, Timestamp


class ClearingEvent(Record):
    """One move along the clearing path, appended to the quote it belongs to."""

    rfq_id: str
    parent_quote_id: str
    status: ClearingStatusValue
    created_at: Timestamp
    taker_side: SideValue | None = None


class Quote(Record):
    """A maker's two-way (or one-way) price for a whole RFQ, and its clearing state."""

    parent_quote_id: str
    target_rfq_id: str
    maker_company: str
    expires_at: Timestamp
    aggregated_bid: DecimalStr | None = None
    aggregated_ask: DecimalStr | None = None
    clearing_status: ClearingStatusValue | None = None
    clearing_events: NullAsDefault[list[ClearingEvent]] = Field(default_factory=list)
    new_pool_name: str | None = None
    creator_params: MarginParams | None = None
    other_params: MarginParams | None = None
    pool_location: str | None = None
    per_leg_quotes: NullAsDefault[list[LegQuote]] = Field(default_factory=list)
    client_quote_id: str | None = None


class QuoteWithMargin(Record):
    """A quote's price on an RFQ's bid or ask side, with what it would cost the taker in margin."""

    parent_quote_id: str
    quote_price: DecimalStr
    existing_margin_requirements: MarginUsage | None = None
    additional_margin_requirements: MarginUsage | None = None
    counter_factual_margin_requirements: MarginUsage | None = None


class RFQ(Record):
    """A taker's request for quotes on a structure, with the quotes it has received."""

    rfq_id: str
    created_at: Timestamp
    clearing_status: ClearingStatusValue | None = None
    structure: Structure
    structure_price: StructurePrice | None = None
    rfq_expires_at: Timestamp
    taker_company: str
    rfq_status: RFQStatusValue
    qty: DecimalStr
    rfq_legs: NullAsDefault[list[RFQLeg]] = Field(default_factory=list)
    quotes_common_metadata: NullAsDefault[dict[str, dict[str, Any]]] = Field(default_factory=dict)
    bids: NullAsDefault[list[QuoteWithMargin]] = Field(default_factory=list)
    asks: NullAsDefault[list[QuoteWithMargin]] = Field(default_factory=list)

    @field_validator("quotes_common_metadata", mode="before")
    @classmethod
    def _metadata_objects_only(cls, value: Any) -> Any:
        # Metadata is informational: an entry that is not an object is dropped, not fatal.
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if isinstance(v, dict)}
        return value

    @property
    def best_bid(self) -> QuoteWithMargin | None:
        """The highest bid quoted on this RFQ, if any."""
        return max(self.bids, key=lambda q: q.quote_price, default=None)

    @property
    def best_ask(self) -> QuoteWithMargin | None:
        """The lowest ask quoted on this RFQ, if any."""
        return min(self.asks, key=lambda q: q.quote_price, default=None)


class QuoteAcceptResponse(Record):
    """Where a trade stands right after the taker accepted a quote."""

    new_clearing_status: ClearingStatusValue
    pending_deposits_sum_qty: DecimalStr | None = None
    pending_settlement_pool: PendingSettlementPool | None = None


class MakerLastLookResponse(Record):
    """Where a trade stands right after the maker's last look."""

    new_clearing_status: ClearingStatusValue
    pending_deposits_sum_qty: DecimalStr | None = None
    settlement_pool_address: str | None = None
