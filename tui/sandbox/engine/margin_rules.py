"""Bounds on the margin parameters a request brings (a new pool, or a quote creating one).

The request models check the interface's bounds (fractions in [0, 1], leverage > 0, IM factor
> 1). The sandbox adds the ones its margin arithmetic needs, so that nothing a pool's creator
writes into it can make margin impossible to compute for the other party later (an answer of
every read that shows the pool, and every clearing step of its trades, computes margin):

- ``futures_leverage`` between `MIN_LEVERAGE` and `MAX_LEVERAGE` (1x to 100x): the initial
  margin rate ``1 / leverage`` stays a fraction of notional, as every other rate is;
- ``initial_margin_factor`` (portfolio margin) at most `MAX_IM_FACTOR`;
- every number with at most `MAX_PLACES` decimal places (``1E-999999`` is a fraction in
  [0, 1], but not one margin can be computed or shown with).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.records import decimal_places

__all__ = ["MAX_IM_FACTOR", "MAX_LEVERAGE", "MAX_PLACES", "MIN_LEVERAGE", "check_margin_params"]

MIN_LEVERAGE = Decimal(1)
MAX_LEVERAGE = Decimal(100)
MAX_IM_FACTOR = Decimal(10)
MAX_PLACES = 28
"""Decimal places a margin parameter may have (what Decimal's own 28 digits give ``1 / 3``)."""


def _check_numbers(model: BaseModel, where: str) -> None:
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, Decimal) and (
            not value.is_finite() or decimal_places(value) > MAX_PLACES
        ):
            raise ServiceError.out_of_range(f"{where}.{name}: at most {MAX_PLACES} decimal places")


def _check_asset(asset: Any, where: str) -> None:
    if not isinstance(asset, BaseModel):
        return
    _check_numbers(asset, where)
    leverage = getattr(asset, "futures_leverage", None)
    if isinstance(leverage, Decimal) and not MIN_LEVERAGE <= leverage <= MAX_LEVERAGE:
        raise ServiceError.out_of_range(
            f"{where}.futures_leverage: must be between {MIN_LEVERAGE} and {MAX_LEVERAGE}"
        )


def check_margin_params(params: Any, where: str) -> None:
    """Refuse (400/1001, naming the field under ``where``) parameters margin cannot use.

    Parameters of a margin mode the sandbox does not model are left alone: no margin is
    computed from them.
    """
    settings = getattr(params, "params", None)
    if not isinstance(settings, BaseModel):
        return
    base = f"{where}.params"
    _check_numbers(settings, base)
    factor = getattr(settings, "initial_margin_factor", None)
    if isinstance(factor, Decimal) and factor > MAX_IM_FACTOR:
        raise ServiceError.out_of_range(
            f"{base}.initial_margin_factor: must be at most {MAX_IM_FACTOR}"
        )
    _check_asset(getattr(settings, "default_asset_param", None), f"{base}.default_asset_param")
    for ticker, asset in (getattr(settings, "asset_params", None) or {}).items():
        _check_asset(asset, f"{base}.asset_params.{ticker}")
