"""The request bodies of the writing endpoints: strict, every stated bound checked.

The sandbox decodes POST bodies with these models, so their rules are the venue's too: decimals
are strings (a JSON number is refused), integers are JSON integers (never a boolean or a
string), and an optional key sent as null means it was left out.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tui.api.models.base import NameStr, PoolNameStr, Request
from tui.api.models.enums import RequestAction, TradeSide, TransferType
from tui.api.models.instruments import MAX_LEGS, LegQuoteInput, StructureInput
from tui.api.models.margin import Allowance, PoolStrategy, RequestMarginParams
from tui.api.types import H160, RequestInt, RequestPositiveDecimalStr, Timestamp, UuidStr

ClientQuoteId = NameStr


class NewRfqRequest(Request):
    """Body of ``POST /v1/rfqs/new``: a taker asks the targeted companies for quotes."""

    structure: StructureInput
    qty: RequestPositiveDecimalStr
    expires_at: Timestamp
    target_companies: list[UuidStr] = Field(min_length=1, max_length=100)


class NewQuoteRequest(Request):
    """Body of ``POST /v1/quotes/new``: a maker's price for every leg of an RFQ."""

    rfq_id: UuidStr
    expires_at: Timestamp
    leg_quotes: list[LegQuoteInput] = Field(min_length=1, max_length=MAX_LEGS)
    pool_strategy: PoolStrategy
    client_quote_id: ClientQuoteId | None = None


class ReplaceQuoteRequest(NewQuoteRequest):
    """Body of ``POST /v1/quotes/replace``: cancel ``parent_quote_id`` and quote anew."""

    parent_quote_id: UuidStr


class AcceptQuoteRequest(Request):
    """Body of ``POST /v1/quotes/accept``: the taker takes a quote's bid (sell) or ask (buy)."""

    parent_quote_id: UuidStr
    rfq_id: UuidStr
    side: TradeSide


class MakerLastLookRequest(Request):
    """Body of ``POST /v1/quotes/maker_last_look``: the maker's final word on a trade."""

    parent_quote_id: UuidStr
    rfq_id: UuidStr
    action: RequestAction


class CancelRequest(Request):
    """Body of the cancel endpoints: the id of the quote or RFQ to cancel."""

    id: UuidStr


class NewSettlementPoolRequest(Request):
    """Body of ``POST /v1/settlement_pools/new``: a pool with one counterparty."""

    pool_name: PoolNameStr
    company_other: UuidStr
    creator_params: RequestMarginParams
    other_params: RequestMarginParams


class NewTransferRequest(Request):
    """Body of ``POST /v1/transfers/new``: a USDC deposit into or withdrawal from a pool."""

    asset: Literal["USDC"] = "USDC"
    qty: RequestPositiveDecimalStr
    target_pool_location: UuidStr
    counterparty: UuidStr
    transfer_type: Literal[TransferType.DEPOSIT, TransferType.WITHDRAWAL]


class PermitTemplateRequest(Request):
    """Body of ``POST /v1/transfers/permit/template``: what the pool may spend, for how long."""

    pool_address: H160
    allowance: Allowance
    seconds_until_expiry: RequestInt = Field(default=60, gt=0, le=86_400)


class SubmitPermitRequest(Request):
    """Body of ``POST /v1/transfers/permit``: the signed EIP-712 permit."""

    message: dict[str, Any]
    signature: str = Field(min_length=4)
