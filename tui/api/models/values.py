"""The tolerant record forms of the venue's enums: what a record's enum field holds.

Each ``*Value`` alias is the enum member when the server sends a known value and the raw string
otherwise (see `tui.api.types.tolerant`), so a new state on the venue shows up on the desk
instead of failing a page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.api.models.enums import (
    ApiRole,
    ClearingStatus,
    ExerciseType,
    PartyStatus,
    PayoffType,
    RFQStatus,
    SettlementPoolStatus,
    TradeRole,
    TradeSide,
    TradeType,
    TransferStatus,
    TransferType,
)
from tui.api.types import tolerant

__all__ = [
    "ApiRoleValue",
    "ClearingStatusValue",
    "ExerciseValue",
    "PartyStatusValue",
    "PayoffValue",
    "PoolStatusValue",
    "RFQStatusValue",
    "SideValue",
    "TradeRoleValue",
    "TradeTypeValue",
    "TransferStatusValue",
    "TransferTypeValue",
]

if TYPE_CHECKING:
    SideValue = TradeSide | str
    ClearingStatusValue = ClearingStatus | str
    PartyStatusValue = PartyStatus | str
    PoolStatusValue = SettlementPoolStatus | str
    TradeRoleValue = TradeRole | str
    TradeTypeValue = TradeType | str
    TransferTypeValue = TransferType | str
    TransferStatusValue = TransferStatus | str
    RFQStatusValue = RFQStatus | str
    ApiRoleValue = ApiRole | str
    PayoffValue = PayoffType | str
    ExerciseValue = ExerciseType | str
else:
    SideValue = tolerant(TradeSide)
    ClearingStatusValue = tolerant(ClearingStatus)
    PartyStatusValue = tolerant(PartyStatus)
    PoolStatusValue = tolerant(SettlementPoolStatus)
    TradeRoleValue = tolerant(TradeRole)
    TradeTypeValue = tolerant(TradeType)
    TransferTypeValue = tolerant(TransferType)
    TransferStatusValue = tolerant(TransferStatus)
    RFQStatusValue = tolerant(RFQStatus)
    ApiRoleValue = tolerant(ApiRole)
    PayoffValue = tolerant(PayoffType)
    ExerciseValue = tolerant(ExerciseType)
