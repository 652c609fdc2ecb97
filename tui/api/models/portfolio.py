"""The company's book: companies, balances, positions, the portfolio summary, trades, transfers."""

from __future__ import annotations

from decimal import Decimal

from tui.api.models.base import NullAsDefault, Record
from tui.api.models.enums import ClearingStatus, TradeType
from tui.api.models.instruments import Instrument
from tui.api.models.values import (
    ClearingStatusValue,
    SideValue,
    TradeRoleValue,
    TradeTypeValue,
    TransferStatusValue,
    TransferTypeValue,
)
from tui.api.types import DecimalStr, Timestamp


class Company(Record):
    """A company on the venue: a taker, a maker (``is_lp``), or both."""

    id: str
    created_at: Timestamp
    legal_name: str
    short_name: str
    is_lp: NullAsDefault[bool] = False


class Asset(Record):
    """A balance of one asset held by a company in a pool (or summed over pools)."""

    company: str
    pool_location: str | None = None
    counterparty: str | None = None
    asset: str
    qty: DecimalStr


class Position(Record):
    """A net position in one instrument inside a pool."""

    company: str
    pool_location: str | None = None
    counterparty: str | None = None
    instrument: Instrument
    updated_at: Timestamp
    qty: DecimalStr
    avg_entry_price: DecimalStr
    taker_qty: NullAsDefault[DecimalStr] = Decimal(0)


class AggregatedPosition(Record):
    """A position valued at the mark: price, greeks, uPNL and notional."""

    price: DecimalStr | None = None
    underlying_price: DecimalStr | None = None
    iv: DecimalStr | None = None
    sum_delta: DecimalStr
    sum_gamma: DecimalStr
    sum_theta: DecimalStr
    sum_vega: DecimalStr
    sum_rho: DecimalStr
    upnl: DecimalStr
    notional: DecimalStr
    position_info: Position


class PortfolioSummary(Record):
    """The company's whole portfolio at the mark: balance, uPNL, notional and greeks."""

    sum_balance: DecimalStr
    sum_upnl: DecimalStr
    sum_notional: DecimalStr
    sum_delta: DecimalStr
    sum_gamma: DecimalStr
    sum_theta: DecimalStr
    sum_vega: DecimalStr
    sum_rho: DecimalStr
    sum_dollar_delta: DecimalStr
    sum_dollar_gamma: DecimalStr


class Trade(Record):
    """One leg of a booked trade, as seen by one of its two companies.

    ``pool_location``, ``source_rfq``, ``source_quote`` and ``counterparty`` are ``""`` when
    the server sends none (null or missing): a settlement or liquidation trade may have no
    RFQ, quote or counterparty, and a trade may show before its pool exists.
    """

    id: str
    source_rfq: NullAsDefault[str] = ""
    source_rfq_leg_id: str | None = None
    source_quote: NullAsDefault[str] = ""
    company: str
    counterparty: NullAsDefault[str] = ""
    created_at: Timestamp
    side: SideValue
    instrument: Instrument
    price: DecimalStr
    qty: DecimalStr
    pool_location: NullAsDefault[str] = ""
    role: TradeRoleValue
    trade_type: NullAsDefault[TradeTypeValue] = TradeType.TRADE
    status: NullAsDefault[ClearingStatusValue] = ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL


class Transfer(Record):
    """A movement of USDC into or out of a pool."""

    id: str
    rfq_id: str | None = None
    parent_quote_id: str | None = None
    created_at: Timestamp
    company: str
    counterparty: str | None = None
    qty: DecimalStr
    asset: str
    target_pool_location: str
    transfer_type: TransferTypeValue
    status: TransferStatusValue
    confirmed_by_transaction_id: str | None = None
