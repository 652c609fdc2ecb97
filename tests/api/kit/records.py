"""Example wire records of every record type, written from the field lists of contract.md;
and odd ones (`ODD_OPTION`, `ODD_PERP`, `odd_rfq`) with values a request would refuse, that a
record must still read."""

from __future__ import annotations

import copy
from typing import Any

ME = "a1b2c3d4-0000-4000-8000-000000000001"
MAKER = "a1b2c3d4-0000-4000-8000-000000000002"
POOL_ID = "0b9e0c5e-2f1a-4a8e-9d3c-7e6f5a4b3c2d"
POOL_ADDRESS = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
RFQ_ID = "3f2c9a7e-1b4d-4e8f-a6c5-0d9e8f7a6b5c"
QUOTE_ID = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
LEG_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
TS = "2024-02-02T06:13:45.323432Z"

PERP: dict[str, Any] = {
    "instrument_type": "perpetual_future",
    "underlying": "BTC",
    "settlement_asset": "USDC",
    "funding_interval_s": 3600,
}
OPTION: dict[str, Any] = {
    "instrument_type": "vanilla_option",
    "underlying": "ETH",
    "settlement_asset": "USDC",
    "expiry": "2026-03-27T08:00:00Z",
    "strike": "3000",
    "payoff": "call",
    "exercise": "european",
}
SIMPLE_ASSET: dict[str, Any] = {
    "futures_initial_margin": "0.1",
    "futures_maintenance_margin": "0.05",
    "futures_leverage": "10",
    "option_initial_margin": "0.15",
    "option_initial_margin_min": "0.1",
    "option_maintenance_margin": "0.075",
}
MARGIN_PARAMS: dict[str, Any] = {
    "margin_mode": "simple",
    "params": {
        "asset_params": {"BTC": SIMPLE_ASSET},
        "default_asset_param": SIMPLE_ASSET,
        "liquidation_penalty": "0.02",
        "auto_liquidation": True,
    },
}

COMPANY: dict[str, Any] = {
    "id": ME,
    "created_at": TS,
    "is_lp": False,
    "legal_name": "Desk Trading Ltd",
    "short_name": "DESK",
}
ASSET: dict[str, Any] = {
    "company": ME,
    "pool_location": POOL_ID,
    "counterparty": MAKER,
    "asset": "USDC",
    "qty": "218205.58082",
}
POSITION: dict[str, Any] = {
    "company": ME,
    "pool_location": POOL_ID,
    "counterparty": MAKER,
    "instrument": PERP,
    "updated_at": TS,
    "qty": "-1.5",
    "avg_entry_price": "64250.5",
    "taker_qty": "-1.5",
}
AGGREGATED_POSITION: dict[str, Any] = {
    "price": "64300.1",
    "underlying_price": "64310",
    "iv": None,
    "sum_delta": "-1.5",
    "sum_gamma": "0",
    "sum_theta": "0",
    "sum_vega": "0",
    "sum_rho": "0",
    "upnl": "-74.4",
    "notional": "96450.15",
    "position_info": POSITION,
}
PORTFOLIO_SUMMARY: dict[str, Any] = {
    "sum_balance": "100000.000001",
    "sum_upnl": "-74.4",
    "sum_notional": "96450.15",
    "sum_delta": "-1.5",
    "sum_gamma": "0.0001",
    "sum_theta": "-12.5",
    "sum_vega": "3.25",
    "sum_rho": "0",
    "sum_dollar_delta": "-96450.15",
    "sum_dollar_gamma": "41.2",
}
TRADE: dict[str, Any] = {
    "id": "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
    "source_rfq": RFQ_ID,
    "source_rfq_leg_id": LEG_ID,
    "source_quote": QUOTE_ID,
    "company": ME,
    "counterparty": MAKER,
    "created_at": TS,
    "side": "buy",
    "instrument": PERP,
    "price": "64250.5",
    "qty": "0.5",
    "pool_location": POOL_ID,
    "role": "taker",
    "trade_type": "trade",
    "status": "success_trades_booked_into_pool",
}
TRANSFER: dict[str, Any] = {
    "id": "6b5c4d3e-2f1a-4b0c-9d8e-7f6a5b4c3d2e",
    "rfq_id": None,
    "parent_quote_id": None,
    "created_at": TS,
    "company": ME,
    "counterparty": MAKER,
    "qty": "2500",
    "asset": "USDC",
    "target_pool_location": POOL_ID,
    "transfer_type": "deposit",
    "status": "confirmed",
    "confirmed_by_transaction_id": "0x" + "ab" * 32,
}
LEG_QUOTE: dict[str, Any] = {"target_rfq_leg_id": LEG_ID, "bid": "64200", "ask": "64300.5"}
QUOTE: dict[str, Any] = {
    "parent_quote_id": QUOTE_ID,
    "target_rfq_id": RFQ_ID,
    "maker_company": MAKER,
    "expires_at": "2026-11-21T12:00:30Z",
    "aggregated_bid": "32100",
    "aggregated_ask": "32150.25",
    "clearing_status": "pending_maker_last_look",
    "clearing_events": [
        {
            "rfq_id": RFQ_ID,
            "parent_quote_id": QUOTE_ID,
            "status": "pending_maker_last_look",
            "created_at": TS,
            "taker_side": "buy",
        }
    ],
    "new_pool_name": None,
    "creator_params": None,
    "other_params": None,
    "pool_location": POOL_ID,
    "per_leg_quotes": [LEG_QUOTE],
    "client_quote_id": "desk-1",
}
RFQ: dict[str, Any] = {
    "rfq_id": RFQ_ID,
    "created_at": TS,
    "clearing_status": None,
    "structure": {"legs": [{"side": "buy", "ratio": 1, "instrument": PERP}]},
    "structure_price": {
        "price": "64250.5",
        "native_price": "64250.5",
        "delta": "1",
        "gamma": "0",
        "theta": "0",
        "vega": "0",
        "rho": "0",
        "timestamp": TS,
    },
    "rfq_expires_at": "2026-11-21T12:00:00Z",
    "taker_company": ME,
    "rfq_status": "open",
    "qty": "0.5",
    "rfq_legs": [
        {"rfq_leg_id": LEG_ID, "rfq_id": RFQ_ID, "instrument": PERP, "side": "buy", "qty": "0.5"}
    ],
    "quotes_common_metadata": {QUOTE_ID: {"maker_company": MAKER}},
    "bids": [
        {
            "parent_quote_id": QUOTE_ID,
            "quote_price": "32100",
            "existing_margin_requirements": {"initial_margin": "0", "maintenance_margin": "0"},
            "additional_margin_requirements": None,
            "counter_factual_margin_requirements": None,
        }
    ],
    "asks": [],
}
SETTLEMENT_POOL: dict[str, Any] = {
    "pool_id": POOL_ID,
    "company_id": ME,
    "data": {
        "created_at": TS,
        "company_creator": ME,
        "status": "open",
        "address": POOL_ADDRESS,
        "name": "Desk / Alpha",
        "confirmed_by_transaction_id": "0x" + "cd" * 32,
        "parties": [
            {
                "company": ME,
                "created_at": TS,
                "address": "0x" + "11" * 20,
                "status": "confirmed",
                "confirmed_by_transaction_id": None,
                "margin_usage": {
                    "company": ME,
                    "balance": "2500",
                    "margin_params": MARGIN_PARAMS,
                    "margin_usage": {"initial_margin": "320.5", "maintenance_margin": "160.25"},
                    "max_withdrawable_amount": "2179.5",
                },
            }
        ],
        "positions": [AGGREGATED_POSITION],
    },
    "error": None,
}
QUOTE_ACCEPT: dict[str, Any] = {
    "new_clearing_status": "pending_taker_deposit_approval",
    "pending_deposits_sum_qty": "320.5",
    "pending_settlement_pool": None,
}
LAST_LOOK: dict[str, Any] = {
    "new_clearing_status": "pending_maker_deposit_approval",
    "pending_deposits_sum_qty": "160.25",
    "settlement_pool_address": POOL_ADDRESS,
}
STATUS: dict[str, Any] = {
    "auth": {"key_id": "6f1c0d2e-4b7a-4c1e-9a51-2f3d8e7b6a10", "company_id": ME, "role": "writer"},
    "server_timestamp_ms": 1763726400123,
}
SUPPORTED_ASSET: dict[str, Any] = {
    "asset": "BTC",
    "name": "Bitcoin",
    "is_dex": False,
    "address": None,
    "verified": True,
    "precision_requirements": {
        "min_decimal_figures": 1,
        "max_decimal_only_figures": 8,
        "max_significant_figures": 6,
    },
    "min_qty_tick": "0.0001",
    "variational_funding_rate_params": {
        "normal_threshold": "0.1",
        "high_threshold": "0.3",
        "extreme_threshold": "0.6",
        "normal_slope": "0.0001",
        "high_slope": "0.0005",
        "extreme_slope": "0.002",
        "min_imbalance_dollars": "10000",
        "funding_exponent_factor": "1.5",
    },
}


def permit_template(
    owner: str, spender: str = POOL_ADDRESS, value: int = 320_500_000, deadline: int = 1763726460
) -> dict:
    """The EIP-712 typed data of an ERC-2612 USDC permit, as the template endpoint returns it."""
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "Permit": [
                {"name": "owner", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ],
        },
        "primaryType": "Permit",
        "domain": {
            "name": "USD Coin",
            "version": "2",
            "chainId": "0xa4b1",
            "verifyingContract": "0xaf88d065e77c8cc2239327c5edb3a432268e5831",
        },
        "message": {
            "owner": owner,
            "spender": spender,
            "value": value,
            "nonce": 0,
            "deadline": deadline,
        },
    }


MARKET_STATS: dict[str, Any] = {
    "total_volume_24h": "1234567.89",
    "cumulative_volume": "987654321.5",
    "tvl": "45000000",
    "open_interest": "12000000.25",
    "num_markets": 2,
    "loss_refund": {"pool_size": "50000", "refunded_24h": "125.5"},
    "listings": [
        {
            "ticker": "BTC",
            "name": "Bitcoin",
            "mark_price": "64250.5",
            "volume_24h": "800000",
            "open_interest": {"long_open_interest": "5000000", "short_open_interest": "4900000"},
            "funding_rate": "0.0000125",
            "funding_interval_s": 3600,
            "base_spread_bps": "2.5",
            "quotes": {
                "updated_at": TS,
                "size_1k": {"bid": "64240", "ask": "64260"},
                "size_100k": {"bid": "64230", "ask": "64270"},
                "size_1m": {"bid": "64200", "ask": "64300"},
            },
        }
    ],
}


ODD_OPTION: dict[str, Any] = dict(
    OPTION,
    underlying="A-VERY-LONG-UNDERLYING-NAME",
    strike="-1",
    payoff="digital_call",
    exercise="bermudan",
)
"""An option no request may ask for: a long underlying, a negative strike, unknown kinds."""
ODD_PERP: dict[str, Any] = dict(PERP, underlying="X" * 30, funding_interval_s=0)
"""A perpetual no request may ask for: a long underlying, no funding interval."""


def odd_rfq() -> dict[str, Any]:
    """The example RFQ with twelve odd legs (a sideways option of ratio 0, then perpetuals)."""
    rfq = copy.deepcopy(RFQ)
    legs = [{"side": "sideways", "ratio": 0, "instrument": ODD_OPTION}] + [
        {"side": "buy", "ratio": 1, "instrument": ODD_PERP}
    ] * 11
    rfq["structure"] = {"legs": legs}
    rfq["rfq_legs"][0]["side"] = "sideways"
    return rfq
