"""The sandbox's opening state: companies, API keys, wallets, and one funded pool.

Written once, into an empty database, by `seed_exchange`. The desk opens as DESK (a taker);
four market makers (``is_lp``) quote, two more takers send RFQs. Every company gets a writer
API key and a wallet holding USDC on the simulated chain; DESK also gets a reader key. DESK and
ALPHA already share an open pool with money on both sides, so "use an existing pool" works
from the first minute.

Ids follow the store's deterministic counter (a fixed seed gives the same ids every time);
API secrets and wallet keys are random (`os.urandom`) and live only in the database and the
credentials file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from tui.api.models import (
    ApiRole,
    MarginMode,
    SimpleAsset,
    SimpleMarginParams,
    SimpleMarginSettings,
    TransferStatus,
    TransferType,
)
from tui.api.types import format_timestamp
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.pools import confirm_pool, pool_row
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import insert_transfer, pool_record, transfer_record
from tui.sandbox.engine.store import Store

__all__ = [
    "SEED_COMPANIES",
    "SEED_POOL_DEPOSITS",
    "SEED_POOL_NAME",
    "SeedCompany",
    "default_margin_params",
    "seed_exchange",
]


@dataclass(frozen=True)
class SeedCompany:
    """One company of the opening state and the USDC its wallet starts with."""

    short_name: str
    legal_name: str
    is_lp: bool
    wallet_usdc: Decimal
    reader_key: bool = False


SEED_COMPANIES: tuple[SeedCompany, ...] = (
    SeedCompany("DESK", "Desk Trading Ltd", False, Decimal(1_000_000), reader_key=True),
    SeedCompany("ALPHA", "Alpha Markets", True, Decimal(5_000_000)),
    SeedCompany("BORE", "Borealis Capital", True, Decimal(5_000_000)),
    SeedCompany("CBLT", "Cobalt Liquidity", True, Decimal(5_000_000)),
    SeedCompany("DUNE", "Dune Derivatives", True, Decimal(5_000_000)),
    SeedCompany("EMBR", "Ember Fund", False, Decimal(1_000_000)),
    SeedCompany("FJRD", "Fjord Capital", False, Decimal(1_000_000)),
)
"""The user's company first, then the market makers, then the other takers."""

SEED_POOL_NAME = "DESK-ALPHA main"
SEED_POOL_DEPOSITS = {"DESK": Decimal(250_000), "ALPHA": Decimal(1_000_000)}
"""USDC each side of the opening DESK-ALPHA pool has deposited (taken from its wallet)."""


def default_margin_params() -> SimpleMarginParams:
    """Plain simple-margin parameters: 10 % futures IM (10x), 15 % option IM with a 10 % floor."""
    asset = SimpleAsset(
        futures_initial_margin=Decimal("0.1"),
        futures_maintenance_margin=Decimal("0.05"),
        futures_leverage=Decimal(10),
        option_initial_margin=Decimal("0.15"),
        option_initial_margin_min=Decimal("0.1"),
        option_maintenance_margin=Decimal("0.075"),
    )
    return SimpleMarginParams(
        margin_mode=MarginMode.SIMPLE,
        params=SimpleMarginSettings(
            asset_params={},
            default_asset_param=asset,
            liquidation_penalty=Decimal("0.01"),
            auto_liquidation=True,
        ),
    )


def seed_exchange(store: Store, chain: Chain, portfolio: Portfolio, now: datetime) -> None:
    """Write the opening state into an empty database (inside the caller's transaction)."""
    created_at = format_timestamp(now)
    ids: dict[str, str] = {}
    for company in SEED_COMPANIES:
        company_id = store.new_id()
        ids[company.short_name] = company_id
        store.insert(
            "companies",
            {
                "id": company_id,
                "short_name": company.short_name,
                "data": {
                    "id": company_id,
                    "created_at": created_at,
                    "legal_name": company.legal_name,
                    "short_name": company.short_name,
                    "is_lp": company.is_lp,
                },
            },
        )
        _add_key(store, company_id, ApiRole.WRITER)
        if company.reader_key:
            _add_key(store, company_id, ApiRole.READER)
        chain.create_wallet(company_id, company.wallet_usdc)
    _seed_pool(store, chain, portfolio, ids, created_at)


def _add_key(store: Store, company_id: str, role: ApiRole) -> None:
    store.insert(
        "api_keys",
        {
            "key_id": store.new_id(),
            "company_id": company_id,
            "role": role.value,
            "secret": os.urandom(32),
        },
    )


def _seed_pool(
    store: Store,
    chain: Chain,
    portfolio: Portfolio,
    ids: dict[str, str],
    created_at: str,
) -> None:
    pool_id = store.new_id()
    creator, other = ids["DESK"], ids["ALPHA"]
    params = default_margin_params().model_dump(mode="json")
    data = pool_record(pool_id, created_at, creator, other, SEED_POOL_NAME, params, params)
    confirm_pool(data, chain.new_tx_id())
    store.insert("pools", pool_row(data))
    for short_name, amount in SEED_POOL_DEPOSITS.items():
        company_id = ids[short_name]
        counterparty = other if company_id == creator else creator
        chain.move_wallet_usdc(company_id, -amount)
        portfolio.move_balance(pool_id, company_id, amount)
        transfer_id = store.new_id()
        insert_transfer(
            store,
            transfer_record(
                transfer_id,
                created_at=created_at,
                company=company_id,
                counterparty=counterparty,
                qty=amount,
                pool_id=pool_id,
                transfer_type=TransferType.DEPOSIT.value,
                status=TransferStatus.CONFIRMED.value,
                confirmed_by=chain.new_tx_id(),
            ),
        )
