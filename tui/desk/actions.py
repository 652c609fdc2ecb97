"""What a keypress asks of the venue: each user action as one coroutine on the shared client.

These run inside the app's workers, never in a widget. They take plain values, call the client
(user actions acquire the budget without a reserve: they are what the reserve is kept for) and
return what the venue answered; errors propagate as `ApiError` for the worker to report. Permit
signing runs in a thread: eth-account is slow to import and CPU-bound to use.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from decimal import Decimal

from pydantic import SecretStr

from tui.api.client import ServiceClient
from tui.api.errors import ApiError
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    DecimalAllowance,
    MakerLastLookRequest,
    MakerLastLookResponse,
    NewQuoteRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    RequestAction,
    TradeSide,
    Transfer,
    TransferType,
)

PERMIT_VALIDITY_S = 300
"""How long a signed permit stays usable: long enough for a slow block, short enough to be safe."""


async def send_quote(
    client: ServiceClient, request: NewQuoteRequest, replaces: str | None = None
) -> Quote:
    """Send a new quote, or replace ``replaces`` with it."""
    if replaces is None:
        return await client.quotes_new(request)
    replace = ReplaceQuoteRequest(**request.model_dump(), parent_quote_id=replaces)
    return await client.quotes_replace(replace)


async def accept_quote(
    client: ServiceClient, rfq_id: str, quote_id: str, side: TradeSide
) -> QuoteAcceptResponse:
    """The taker buys at the quote's ask or sells at its bid."""
    return await client.quotes_accept(
        AcceptQuoteRequest(parent_quote_id=quote_id, rfq_id=rfq_id, side=side)
    )


async def last_look(
    client: ServiceClient, rfq_id: str, quote_id: str, action: RequestAction
) -> MakerLastLookResponse:
    """The maker's final accept or reject."""
    return await client.quotes_maker_last_look(
        MakerLastLookRequest(parent_quote_id=quote_id, rfq_id=rfq_id, action=action)
    )


async def approve_spending(
    client: ServiceClient, wallet_key: SecretStr, pool_address: str, amount: Decimal
) -> bool:
    """Let ``pool_address`` spend ``amount`` USDC: permit template -> sign -> submit."""
    from tui.api.permits import sign_permit

    template = await client.transfers_permit_template(
        PermitTemplateRequest(
            pool_address=pool_address,
            allowance=DecimalAllowance(value=amount),
            seconds_until_expiry=PERMIT_VALIDITY_S,
        )
    )
    signed = await asyncio.to_thread(sign_permit, template, wallet_key.get_secret_value())
    return await client.transfers_permit(signed)


async def deposit(
    client: ServiceClient,
    wallet_key: SecretStr,
    pool_id: str,
    pool_address: str,
    counterparty: str,
    amount: Decimal,
) -> Transfer:
    """Deposit into a pool: permit the pool to spend the amount, then ask for the transfer."""
    await approve_spending(client, wallet_key, pool_address, amount)
    return await client.transfers_new(
        NewTransferRequest(
            qty=amount,
            target_pool_location=pool_id,
            counterparty=counterparty,
            transfer_type=TransferType.DEPOSIT,
        )
    )


async def withdraw(
    client: ServiceClient, pool_id: str, counterparty: str, amount: Decimal
) -> Transfer:
    """Withdraw from a pool back to the wallet."""
    return await client.transfers_new(
        NewTransferRequest(
            qty=amount,
            target_pool_location=pool_id,
            counterparty=counterparty,
            transfer_type=TransferType.WITHDRAWAL,
        )
    )


@dataclass
class KillReport:
    """What the kill switch managed: quotes pulled, RFQs cancelled, and what failed."""

    quotes_cancelled: bool = False
    rfqs_cancelled: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Everything was cancelled."""
        return self.quotes_cancelled and not self.failures

    def summary(self) -> str:
        """One line for the toast."""
        quotes = "all quotes pulled" if self.quotes_cancelled else "quotes NOT pulled"
        text = f"{quotes}; {len(self.rfqs_cancelled)} RFQ(s) cancelled"
        if self.failures:
            text += f"; failed: {'; '.join(self.failures[:3])}"
        return text


async def kill_switch(client: ServiceClient, known_open: list[RFQ]) -> KillReport:
    """Cancel every quote, then every open RFQ of this company.

    Quotes go first (one call), since a quote can be hit any moment. The open RFQs are read
    fresh from the venue when the budget allows, and the ones the desk already knew are
    cancelled even if that read fails.
    """
    report = KillReport()
    try:
        report.quotes_cancelled = bool(await client.quotes_cancel_all())
    except ApiError as error:
        report.failures.append(f"cancel all quotes: {error.message}")
    open_ids = {rfq.rfq_id for rfq in known_open}
    try:
        async for rfq in client.iterate(client.rfqs_sent, price=False):
            if str(rfq.rfq_status) == "open":
                open_ids.add(rfq.rfq_id)
    except ApiError as error:
        report.failures.append(f"reading open RFQs: {error.message}")
    for rfq_id in sorted(open_ids):
        try:
            if await client.rfqs_cancel(rfq_id):
                report.rfqs_cancelled.append(rfq_id)
        except ApiError as error:
            if error.status == 409:  # closed or expired meanwhile: nothing left to cancel
                continue
            report.failures.append(f"RFQ {rfq_id[:8]}: {error.message}")
    return report
