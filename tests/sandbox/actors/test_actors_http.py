"""Simulated counterparties end to end: the server steps them, the desk's client sees them.

Over real HTTP on 127.0.0.1 (the `sandbox_factory` fixture), with the sandbox clock frozen and
moved by the test: every `Sandbox.advance` lets the server tick the engine and step the actors.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from tui.api.models import (
    AcceptQuoteRequest,
    Leg,
    MarketStats,
    NewRfqRequest,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
)

D = Decimal
MAKERS = ("ALPHA", "BORE", "CBLT", "DUNE")


def advance(sandbox: Any, seconds: float, step: float = 1.0) -> None:
    """Move sandbox time in steps, as the server's 250 ms tick loop would see it."""
    moved = 0.0
    while moved < seconds:
        sandbox.advance(step)
        moved += step


def stats(sandbox: Any) -> MarketStats:
    response = sandbox.request("GET", "/metadata/stats", as_company=None)
    assert response.status_code == 200
    return MarketStats.model_validate(response.json())


async def test_makers_quote_the_desks_rfq_over_http(sandbox_factory):
    sandbox = sandbox_factory(actors=True)
    async with sandbox.client("DESK") as desk:
        rfq = await desk.rfqs_new(
            NewRfqRequest(
                structure=Structure(
                    legs=[
                        Leg(
                            side=TradeSide.BUY,
                            instrument=PerpetualFutureInstrument(underlying="ETH"),
                        )
                    ]
                ),
                qty=D("3"),
                expires_at=sandbox.clock.now() + timedelta(seconds=90),
                target_companies=[sandbox.company_ids[m] for m in MAKERS],
            )
        )
        advance(sandbox, 20)
        view = (await desk.rfqs_sent(id=rfq.rfq_id)).result[0]
    makers = {meta["maker_company"] for meta in view.quotes_common_metadata.values()}
    assert len(makers) >= 2
    assert makers <= {sandbox.company_ids[m] for m in MAKERS}
    assert view.bids and view.asks


async def test_a_simulated_takers_rfq_reaches_the_desk_over_http(sandbox_factory):
    sandbox = sandbox_factory(actors=True)
    takers = {sandbox.company_ids["EMBR"], sandbox.company_ids["FJRD"]}
    async with sandbox.client("DESK") as desk:
        received = []
        for _ in range(20):
            advance(sandbox, 15, step=1.5)
            received = (await desk.rfqs_received()).result
            if received:
                break
    assert received, "no simulated taker sent an RFQ to DESK in five minutes"
    assert {r.taker_company for r in received} <= takers


async def test_public_stats_move_after_a_trade_with_a_simulated_maker(sandbox_factory):
    sandbox = sandbox_factory(actors=True)
    before = stats(sandbox)
    async with sandbox.client("DESK") as desk:
        for _ in range(6):  # the maker may reject at last look: ask again
            rfq = await desk.rfqs_new(
                NewRfqRequest(
                    structure=Structure(
                        legs=[
                            Leg(
                                side=TradeSide.BUY,
                                instrument=PerpetualFutureInstrument(underlying="BTC"),
                            )
                        ]
                    ),
                    qty=D("0.5"),
                    expires_at=sandbox.clock.now() + timedelta(seconds=60),
                    target_companies=[sandbox.company_ids["ALPHA"]],  # the seeded DESK pool
                )
            )
            advance(sandbox, 4)
            view = (await desk.rfqs_sent(id=rfq.rfq_id)).result[0]
            if not view.asks:
                advance(sandbox, 60)
                continue
            await desk.quotes_accept(
                AcceptQuoteRequest(
                    parent_quote_id=view.asks[0].parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    side=TradeSide.BUY,
                )
            )
            advance(sandbox, 16)
            if (await desk.portfolio_trades()).result:
                break
            advance(sandbox, 45)
        trades = (await desk.portfolio_trades()).result
    assert trades, "ALPHA never took a trade at last look"
    after = stats(sandbox)
    assert after.total_volume_24h > before.total_volume_24h
    assert after.cumulative_volume > before.cumulative_volume
