"""What every sandbox test shares: the fixed start, times, instruments, margin, refusals.

`open_sandbox` opens an `Exchange` on a temp file with a frozen clock at `START_MS`, the way
both the engine kit and the actor kit start.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tui.api.models import (
    ErrorCode,
    MarginMode,
    PerpetualFutureInstrument,
    SimpleAsset,
    SimpleMarginParams,
    SimpleMarginSettings,
)
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.exchange import Exchange

START_MS = 1_793_500_000_000
"""A fixed start (2026-11-01): the same seed then gives the same market in every run."""
D = Decimal
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def at(ms: int) -> datetime:
    """Unix ms as an aware datetime."""
    return _EPOCH + timedelta(milliseconds=ms)


def ms_of(moment: datetime) -> int:
    """An aware datetime as Unix ms."""
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def open_sandbox(
    path: Path, *, seed: int = 7, block_delay_s: float = 2.0
) -> tuple[SandboxClock, Exchange]:
    """A sandbox exchange on ``path`` and its clock, frozen at `START_MS` until a test moves it."""
    clock = SandboxClock(frozen_at_ms=START_MS)
    return clock, Exchange.open(path, seed=seed, clock=clock, block_delay_s=block_delay_s)


def perp(underlying: str = "BTC") -> PerpetualFutureInstrument:
    """A perpetual future on ``underlying``."""
    return PerpetualFutureInstrument(underlying=underlying)


def margin_params(futures_im: str = "0.1", option_im: str = "0.15") -> SimpleMarginParams:
    """Simple margin parameters with the given futures and option initial margin."""
    im = D(futures_im)
    asset = SimpleAsset(
        futures_initial_margin=im,
        futures_maintenance_margin=im / 2,
        futures_leverage=D(1) / im,
        option_initial_margin=D(option_im),
        option_initial_margin_min=D("0.1"),
        option_maintenance_margin=D(option_im) / 2,
    )
    return SimpleMarginParams(
        margin_mode=MarginMode.SIMPLE,
        params=SimpleMarginSettings(
            default_asset_param=asset, liquidation_penalty=D("0.01"), auto_liquidation=True
        ),
    )


def expect_error(code: ErrorCode, fragment: str = "") -> Any:
    """``pytest.raises`` for a `ServiceError` of ``code`` whose message has ``fragment``."""
    return pytest.raises(ServiceError, match=fragment or None, check=lambda e: e.code == code)
