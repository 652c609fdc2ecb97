"""The venue's enumerations and the error catalogue (plain Python: no pydantic here).

Requests use the enums themselves; records hold their tolerant forms (`tui.api.models.values`).
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class TradeSide(StrEnum):
    """Direction of a leg or a trade, from the point of view of the company that holds it."""

    BUY = "buy"
    SELL = "sell"

    @property
    def opposite(self) -> TradeSide:
        """The other side: what the counterparty of this side does."""
        return TradeSide.SELL if self is TradeSide.BUY else TradeSide.BUY


class RequestAction(StrEnum):
    """A maker's answer at last look."""

    ACCEPT = "accept"
    REJECT = "reject"


class ClearingStatus(StrEnum):
    """Where an accepted quote stands on clearing (final ones: `tui.api.lifecycle`)."""

    PENDING_POOL_CREATION = "pending_pool_creation"
    PENDING_TAKER_DEPOSIT_APPROVAL = "pending_taker_deposit_approval"
    PENDING_MAKER_LAST_LOOK = "pending_maker_last_look"
    PENDING_MAKER_DEPOSIT_APPROVAL = "pending_maker_deposit_approval"
    PENDING_ATOMIC_DEPOSIT = "pending_atomic_deposit"
    SUCCESS_TRADES_BOOKED_INTO_POOL = "success_trades_booked_into_pool"
    REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL = "rejected_failed_taker_deposit_approval"
    REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL = "rejected_failed_maker_deposit_approval"
    REJECTED_MAKER_LAST_LOOK_REJECTED = "rejected_maker_last_look_rejected"
    REJECTED_MAKER_LAST_LOOK_EXPIRED = "rejected_maker_last_look_expired"
    REJECTED_FAILED_POOL_CREATION = "rejected_failed_pool_creation"
    REJECTED_FAILED_RISK_CHECKS = "rejected_failed_risk_checks"
    REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE = "rejected_failed_taker_accept_no_quote"
    REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED = "rejected_failed_taker_accept_quote_expired"
    REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED = "rejected_failed_taker_accept_rfq_expired"
    REJECTED_FAILED_TAKER_FUNDING = "rejected_failed_taker_funding"
    REJECTED_FAILED_MAKER_FUNDING = "rejected_failed_maker_funding"
    REJECTED_FAILED_ATOMIC_DEPOSIT = "rejected_failed_atomic_deposit"
    REJECTED_FAILED_REDUCE_ONLY_CHECK = "rejected_failed_reduce_only_check"


class RFQStatus(StrEnum):
    """Lifecycle of an RFQ; ``closed`` means a trade was booked from it."""

    OPEN = "open"
    EXPIRED = "expired"
    CANCELED = "canceled"
    CLOSED = "closed"


class SettlementPoolStatus(StrEnum):
    """Lifecycle of a settlement pool: created on-chain after a block delay."""

    PENDING = "pending"
    OPEN = "open"
    CANCELED = "canceled"


class PartyStatus(StrEnum):
    """Whether a party's side of a pool is confirmed on-chain."""

    PENDING = "pending"
    CONFIRMED = "confirmed"


class TransferStatus(StrEnum):
    """Lifecycle of a transfer on the simulated or real chain."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    FAILED = "failed"


class TransferType(StrEnum):
    """Kinds of balance movement; only deposit and withdrawal can be requested."""

    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    PREMIUM = "premium"
    SETTLEMENT = "settlement"
    LIQUIDATION = "liquidation"
    REALIZED_PNL = "realized_pnl"
    INITIAL_MARGIN = "initial_margin"
    FUNDING = "funding"
    FEE = "fee"


class TradeRole(StrEnum):
    """Which side of the RFQ a company was on for a trade."""

    MAKER = "maker"
    TAKER = "taker"


class TradeType(StrEnum):
    """Why a trade record exists."""

    TRADE = "trade"
    SETTLEMENT = "settlement"
    SETTLEMENT_MARKET_DELISTED = "settlement_market_delisted"
    LIQUIDATION = "liquidation"


class ApiRole(StrEnum):
    """Permission of an API key: a ``reader`` may not call writing endpoints."""

    READER = "reader"
    WRITER = "writer"


class MarginMode(StrEnum):
    """Margin model of one side of a pool."""

    SIMPLE = "simple"
    PORTFOLIO = "portfolio"


class PoolStrategyType(StrEnum):
    """Whether a quote settles in an existing pool or asks for a new one."""

    USE_EXISTING = "use_existing"
    CREATE_NEW = "create_new"


class AllowanceType(StrEnum):
    """Unit of a permit allowance: a decimal USDC amount or integer base units."""

    BASE = "base"
    DECIMAL = "decimal"


class InstrumentType(StrEnum):
    """What a leg trades."""

    SPOT = "spot"
    DATED_FUTURE = "dated_future"
    PERPETUAL_FUTURE = "perpetual_future"
    VANILLA_OPTION = "vanilla_option"


class PayoffType(StrEnum):
    """Call or put, for vanilla options."""

    CALL = "call"
    PUT = "put"


class ExerciseType(StrEnum):
    """Exercise style of a vanilla option."""

    EUROPEAN = "european"
    AMERICAN = "american"


class ErrorCode(IntEnum):
    """The error catalogue: the ``code`` of an ``{"error": {...}}`` body, with its HTTP status."""

    BAD_REQUEST = 1000
    OUT_OF_RANGE = 1001
    UNAUTHENTICATED = 2000
    TIMESTAMP_SKEW = 2001
    FORBIDDEN = 2002
    NOT_FOUND = 3000
    CONFLICT = 4000
    RATE_LIMITED = 5000
    INTERNAL = 9000

    @property
    def http_status(self) -> int:
        """The HTTP status that goes with this code."""
        return _ERROR_HTTP_STATUS[self]


_ERROR_HTTP_STATUS = {
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.OUT_OF_RANGE: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.TIMESTAMP_SKEW: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.INTERNAL: 500,
}


USDC = "USDC"
"""The only settlement and transfer asset of the venue."""
