"""Margin parameters, settlement pools, pool strategies and permit allowances.

Margin parameters exist on both sides (a record shows a pool's, a request sets a new pool's),
so each record class has a strict ``*Input`` mirror; pool strategies and allowances exist only
in requests.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import Field, field_validator, model_validator

from tui.api.models.base import (
    NullAsDefault,
    PoolNameStr,
    Record,
    RequestPart,
    UnknownVariant,
    record_union,
)
from tui.api.models.enums import AllowanceType, MarginMode, PoolStrategyType
from tui.api.models.instruments import UnderlyingStr
from tui.api.models.portfolio import AggregatedPosition
from tui.api.models.values import PartyStatusValue, PoolStatusValue
from tui.api.types import (
    DecimalStr,
    RequestDecimalStr,
    RequestPositiveDecimalStr,
    Timestamp,
    UuidStr,
)

UnitDecimal = Annotated[RequestDecimalStr, Field(ge=Decimal(0), le=Decimal(1))]
"""A fraction in a request, in [0, 1]."""


class SimpleAsset(Record):
    """Simple-margin parameters for one asset: fractions of notional (in [0, 1] on requests)."""

    futures_initial_margin: DecimalStr
    futures_maintenance_margin: DecimalStr
    futures_leverage: DecimalStr
    option_initial_margin: DecimalStr
    option_initial_margin_min: DecimalStr
    option_maintenance_margin: DecimalStr


class SimpleAssetInput(SimpleAsset, RequestPart):
    """Simple-margin parameters in a request: fractions in [0, 1], leverage > 0, and initial
    margin never below maintenance margin (a position would be liquidated as it opens)."""

    futures_initial_margin: UnitDecimal
    futures_maintenance_margin: UnitDecimal
    futures_leverage: RequestPositiveDecimalStr
    option_initial_margin: UnitDecimal
    option_initial_margin_min: UnitDecimal
    option_maintenance_margin: UnitDecimal

    @model_validator(mode="after")
    def _initial_covers_maintenance(self) -> SimpleAssetInput:
        for initial, maintenance in (
            ("futures_initial_margin", "futures_maintenance_margin"),
            ("option_initial_margin", "option_maintenance_margin"),
        ):
            if getattr(self, initial) < getattr(self, maintenance):
                raise ValueError(f"{initial} must not be below {maintenance}")
        return self


class PortfolioAsset(Record):
    """Portfolio-margin scenario parameters for one asset (each in [0, 1] on requests)."""

    vol_range_up: DecimalStr
    vol_range_down: DecimalStr
    short_vega_power: DecimalStr
    long_vega_power: DecimalStr
    price_range: DecimalStr
    opt_sum_contingency: DecimalStr
    opt_contingency: DecimalStr
    futures_contingency: DecimalStr
    atm_range: DecimalStr


class PortfolioAssetInput(PortfolioAsset, RequestPart):
    """Portfolio-margin parameters in a request, each in [0, 1]."""

    vol_range_up: UnitDecimal
    vol_range_down: UnitDecimal
    short_vega_power: UnitDecimal
    long_vega_power: UnitDecimal
    price_range: UnitDecimal
    opt_sum_contingency: UnitDecimal
    opt_contingency: UnitDecimal
    futures_contingency: UnitDecimal
    atm_range: UnitDecimal


class SimpleMarginSettings(Record):
    """The ``params`` of simple margin."""

    asset_params: NullAsDefault[dict[str, SimpleAsset]] = Field(default_factory=dict)
    default_asset_param: SimpleAsset
    liquidation_penalty: DecimalStr
    auto_liquidation: NullAsDefault[bool] = True


MAX_ASSET_PARAMS = 100
"""Most per-asset entries a request's margin parameters may carry."""


class SimpleMarginSettingsInput(SimpleMarginSettings, RequestPart):
    """Simple-margin settings in a request: every asset checked, penalty in [0, 1]."""

    # Narrower than the record's dict (invariant for mypy); parts are never mutated.
    asset_params: dict[UnderlyingStr, SimpleAssetInput] = Field(  # type: ignore[assignment]
        default_factory=dict, max_length=MAX_ASSET_PARAMS
    )
    default_asset_param: SimpleAssetInput
    liquidation_penalty: UnitDecimal
    auto_liquidation: bool = True


class PortfolioMarginSettings(Record):
    """The ``params`` of portfolio margin."""

    asset_params: NullAsDefault[dict[str, PortfolioAsset]] = Field(default_factory=dict)
    default_asset_param: PortfolioAsset
    decorrelation_risk: DecimalStr
    initial_margin_factor: DecimalStr
    liquidation_penalty: DecimalStr
    auto_liquidation: NullAsDefault[bool] = True


class PortfolioMarginSettingsInput(PortfolioMarginSettings, RequestPart):
    """Portfolio-margin settings in a request: fractions in [0, 1], margin factor above 1."""

    # Narrower than the record's dict (invariant for mypy); parts are never mutated.
    asset_params: dict[UnderlyingStr, PortfolioAssetInput] = Field(  # type: ignore[assignment]
        default_factory=dict, max_length=MAX_ASSET_PARAMS
    )
    default_asset_param: PortfolioAssetInput
    decorrelation_risk: UnitDecimal
    initial_margin_factor: Annotated[RequestDecimalStr, Field(gt=Decimal(1))]
    liquidation_penalty: UnitDecimal
    auto_liquidation: bool = True


class SimpleMarginParams(Record):
    """Margin parameters of one side of a pool under simple margin."""

    margin_mode: Literal[MarginMode.SIMPLE] = MarginMode.SIMPLE
    params: SimpleMarginSettings


class PortfolioMarginParams(Record):
    """Margin parameters of one side of a pool under portfolio margin."""

    margin_mode: Literal[MarginMode.PORTFOLIO] = MarginMode.PORTFOLIO
    params: PortfolioMarginSettings


if TYPE_CHECKING:
    MarginParams: TypeAlias = SimpleMarginParams | PortfolioMarginParams | UnknownVariant
else:
    MarginParams = record_union(SimpleMarginParams | PortfolioMarginParams, "margin_mode")
"""Margin parameters by ``margin_mode``; an unknown mode (or a known mode this client cannot
read) parses as `UnknownVariant`."""


class SimpleMarginParamsInput(SimpleMarginParams, RequestPart):
    """Simple-margin parameters in a request."""

    params: SimpleMarginSettingsInput


class PortfolioMarginParamsInput(PortfolioMarginParams, RequestPart):
    """Portfolio-margin parameters in a request."""

    params: PortfolioMarginSettingsInput


RequestMarginParams = Annotated[
    SimpleMarginParamsInput | PortfolioMarginParamsInput, Field(discriminator="margin_mode")
]
"""Margin parameters in a request: only the modes the venue documents, every bound checked.
Record instances (`SimpleMarginParams`, `PortfolioMarginParams`) are accepted and re-checked."""


class MarginUsage(Record):
    """Initial and maintenance margin in use, in USDC."""

    initial_margin: DecimalStr
    maintenance_margin: DecimalStr


class UseExistingPool(RequestPart):
    """Settle a quote in a pool both companies already share."""

    strategy: Literal[PoolStrategyType.USE_EXISTING] = PoolStrategyType.USE_EXISTING
    pool_id: UuidStr


class CreateNewPool(RequestPart):
    """Settle a quote in a new pool created on acceptance, with margin for both sides."""

    strategy: Literal[PoolStrategyType.CREATE_NEW] = PoolStrategyType.CREATE_NEW
    name: PoolNameStr
    creator_params: RequestMarginParams
    other_params: RequestMarginParams


PoolStrategy = Annotated[UseExistingPool | CreateNewPool, Field(discriminator="strategy")]
"""How a quote's trade will settle: an existing pool or a new one."""


class DecimalAllowance(RequestPart):
    """An allowance in USDC as a decimal amount (> 0, below 1e18, at most 18 places)."""

    type: Literal[AllowanceType.DECIMAL] = AllowanceType.DECIMAL
    value: RequestPositiveDecimalStr


MAX_BASE_UNITS = 2**256 - 1
"""The largest allowance in base units: an ERC-20 allowance is a uint256."""

_HEX_UNITS = re.compile(r"0[xX][0-9a-fA-F]{1,64}|[0-9a-fA-F]{1,64}")


class BaseAllowance(RequestPart):
    """An allowance in integer base units (USDC has 6 decimals), as an int or a hex string.

    A hex string has at most 64 digits (with or without ``0x``); either form must be between 1
    and ``2**256 - 1``, the range of an on-chain allowance.
    """

    type: Literal[AllowanceType.BASE] = AllowanceType.BASE
    value: int | str

    @field_validator("value", mode="before")
    @classmethod
    def _base_units_in_range(cls, value: Any) -> int | str:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError("must be an integer or a hex string of base units")
        if isinstance(value, str):
            if not _HEX_UNITS.fullmatch(value):
                raise ValueError("must be a hex string of at most 64 digits (0x optional)")
            units = int(value, 16)
        else:
            units = value
        if units <= 0:
            raise ValueError("must be a positive number of base units")
        if units > MAX_BASE_UNITS:
            raise ValueError("must be at most 2**256 - 1 base units")
        return value

    @property
    def units(self) -> int:
        """The allowance as an integer number of base units."""
        return int(self.value, 16) if isinstance(self.value, str) else self.value


Allowance = Annotated[DecimalAllowance | BaseAllowance, Field(discriminator="type")]
"""A spending allowance for a permit."""

USDC_DECIMALS = 6


def allowance_units(allowance: DecimalAllowance | BaseAllowance) -> int:
    """The allowance in USDC base units (6 decimals), rounding a decimal amount up."""
    if isinstance(allowance, BaseAllowance):
        return allowance.units
    scaled = allowance.value.scaleb(USDC_DECIMALS)
    return int(scaled.to_integral_value(rounding="ROUND_CEILING"))


class PartyMargin(Record):
    """One party's balance, margin parameters and margin usage inside a pool."""

    company: str
    balance: DecimalStr
    margin_params: MarginParams | None = None
    margin_usage: MarginUsage | None = None
    max_withdrawable_amount: DecimalStr


class PoolParty(Record):
    """One of the two companies of a settlement pool."""

    company: str
    created_at: Timestamp
    address: str | None = None
    status: PartyStatusValue
    confirmed_by_transaction_id: str | None = None
    margin_usage: PartyMargin | None = None


class SettlementPoolData(Record):
    """The on-chain side of a settlement pool."""

    created_at: Timestamp
    company_creator: str
    status: PoolStatusValue
    address: str | None = None
    name: str
    confirmed_by_transaction_id: str | None = None
    parties: NullAsDefault[list[PoolParty]] = Field(default_factory=list)
    positions: NullAsDefault[list[AggregatedPosition]] = Field(default_factory=list)


class SettlementPool(Record):
    """A pool between two companies in which their trades clear."""

    pool_id: str
    company_id: str
    data: SettlementPoolData | None = None
    error: str | None = None


class PendingSettlementPool(Record):
    """The pool a just-accepted quote will create."""

    id: str
    created_at: Timestamp
    status: PoolStatusValue
    company_creator: str
    address: str | None = None
    confirmed_by_transaction_id: str | None = None
