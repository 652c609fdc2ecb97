"""End to end through `ServiceClient` over HTTP: a company sees nothing of other companies'
trades, RFQs, quotes, pools and transfers (empty pages and 404s), and cannot act on them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.sandbox.kit import book_trade, quote_request, rfq_request
from tests.sandbox.kit.common import D
from tui.api.errors import Forbidden, NotFound
from tui.api.models import (
    AcceptQuoteRequest,
    DecimalAllowance,
    MakerLastLookRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    ReplaceQuoteRequest,
    RequestAction,
    TradeSide,
    TransferType,
)
from tui.api.permits import sign_permit


async def test_scoping_other_companies_see_nothing_of_a_trade(sandbox: Any) -> None:
    """BORE probes every endpoint with DESK/ALPHA's ids: empty pages and 404s only."""
    async with (
        sandbox.client("DESK") as desk,
        sandbox.client("ALPHA") as alpha,
        sandbox.client("BORE") as bore,
    ):
        trade = await book_trade(sandbox, desk, alpha)
        open_rfq = await desk.rfqs_new(rfq_request(sandbox, targets=("ALPHA",)))
        open_quote = await alpha.quotes_new(quote_request(sandbox, open_rfq, trade.pool_id))
        (trade_leg,) = (await desk.portfolio_trades(pool=trade.pool_id)).result
        (pool,) = (await desk.settlement_pools(id=trade.pool_id)).result
        transfers = (await desk.transfers(pool=trade.pool_id)).result
        assert pool.data is not None and transfers
        rfq_ids = (trade.rfq.rfq_id, open_rfq.rfq_id)
        quote_ids = (trade.quote.parent_quote_id, open_quote.parent_quote_id)

        sandbox.advance(10)
        empty_pages = [
            await bore.portfolio_assets(pool=trade.pool_id),
            await bore.portfolio_positions(pool=trade.pool_id),
            await bore.portfolio_trades(pool=trade.pool_id),
            await bore.portfolio_trades(id=trade_leg.id),
            await bore.settlement_pools(id=trade.pool_id),
            await bore.transfers(pool=trade.pool_id),
            await bore.transfers(id=transfers[0].id),
            await bore.portfolio_aggregated_positions(),
            await bore.portfolio_positions(),
            await bore.portfolio_trades(),
        ]
        for quote_id in quote_ids:
            empty_pages += [
                await bore.quotes(id=quote_id),
                await bore.quotes_sent(id=quote_id),
                await bore.quotes_received(id=quote_id),
            ]
        sandbox.advance(10)
        for rfq_id in rfq_ids:
            empty_pages += [await bore.rfqs_sent(id=rfq_id), await bore.rfqs_received(id=rfq_id)]
        assert all(page.result == [] for page in empty_pages)
        assert all(page.pagination.next_page is None for page in empty_pages)
        bore_summary = await bore.portfolio_summary()
        assert bore_summary.sum_notional == 0

        sandbox.advance(10)
        refused = {
            "quotes_new": bore.quotes_new(quote_request(sandbox, open_rfq, trade.pool_id)),
            "quotes_replace": bore.quotes_replace(
                ReplaceQuoteRequest(
                    parent_quote_id=open_quote.parent_quote_id,
                    **quote_request(sandbox, open_rfq, trade.pool_id).model_dump(),
                )
            ),
            "quotes_cancel": bore.quotes_cancel(open_quote.parent_quote_id),
            "quotes_accept": bore.quotes_accept(
                AcceptQuoteRequest(
                    parent_quote_id=open_quote.parent_quote_id,
                    rfq_id=open_rfq.rfq_id,
                    side=TradeSide.BUY,
                )
            ),
            "quotes_maker_last_look": bore.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=trade.quote.parent_quote_id,
                    rfq_id=trade.rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            ),
        }
        for name, call in refused.items():
            with pytest.raises(NotFound) as info:
                await call
            assert (info.value.status, info.value.code) == (404, 3000), name
            sandbox.advance(5)
        more = {
            "rfqs_cancel": bore.rfqs_cancel(open_rfq.rfq_id),
            "transfers_new": bore.transfers_new(
                NewTransferRequest(
                    qty=D(1),
                    target_pool_location=trade.pool_id,
                    counterparty=sandbox.company_ids["DESK"],
                    transfer_type=TransferType.DEPOSIT,
                )
            ),
            "transfers_permit_template": bore.transfers_permit_template(
                PermitTemplateRequest(
                    pool_address=pool.data.address, allowance=DecimalAllowance(value=D(1))
                )
            ),
        }
        for name, call in more.items():
            with pytest.raises(NotFound) as info:
                await call
            assert (info.value.status, info.value.code) == (404, 3000), name
            sandbox.advance(5)
        # A permit BORE signs itself for the DESK-ALPHA pool's address: the spender is unknown
        # to BORE (404); DESK's own signed permit submitted by BORE is not BORE's wallet (403).
        desk_template = await desk.transfers_permit_template(
            PermitTemplateRequest(
                pool_address=pool.data.address, allowance=DecimalAllowance(value=D(1))
            )
        )
        forged = copy.deepcopy(desk_template)
        forged["message"]["owner"] = sandbox.credentials["BORE"]["wallet_address"]
        with pytest.raises(NotFound):
            await bore.transfers_permit(
                sign_permit(forged, sandbox.credentials["BORE"]["wallet_private_key"])
            )
        sandbox.advance(5)
        with pytest.raises(Forbidden):
            await bore.transfers_permit(
                sign_permit(desk_template, sandbox.credentials["DESK"]["wallet_private_key"])
            )
        # BORE may not quote the DESK-ALPHA pool even on an RFQ it was asked for.
        asked = await desk.rfqs_new(rfq_request(sandbox, targets=("BORE",)))
        with pytest.raises(NotFound):
            await bore.quotes_new(quote_request(sandbox, asked, trade.pool_id))
        # Nothing of DESK's or ALPHA's changed.
        (still_open,) = (await alpha.quotes_sent(id=open_quote.parent_quote_id)).result
        assert still_open.model_extra is not None
        assert still_open.model_extra["quote_status"] == "open"
