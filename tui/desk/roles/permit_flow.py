"""A permit's way out: template -> sign -> a last look -> submit, and the trade it is for.

`approve_spending` is the one path every permit takes (a pool deposit's and a trade's deposit
approval): the venue's template is read, refused unsigned when it is for another amount or
spender (`permit_terms.template_refusal`), signed, looked at once more (signing may have taken
the trader a while), and submitted through the runner's journaled send. `trade_still_waiting`
is the venue's word on a trade whose deposit is being approved: nothing is signed or sent for
one that no longer waits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from decimal import Decimal
from typing import Any

from tui.api.client import ServiceClient
from tui.api.models import DecimalAllowance, PermitTemplateRequest, SubmitPermitRequest
from tui.api.writes import Intent, WriteKind
from tui.desk.clearing import NextStep, Role, TrackedTrade, track
from tui.desk.roles.permit_terms import template_refusal
from tui.desk.roles.runner import Refused
from tui.desk.widgets.common import fmt

PERMIT_VALIDITY_S = 300
"""How long a signed permit stays usable: long enough for a slow block, short enough to be safe."""


Send = Callable[[Intent], Awaitable[Any]]
"""How a write leaves: `ActionRunner.send`."""

Sign = Callable[[Mapping[str, Any]], Awaitable[SubmitPermitRequest]]
"""How a permit template is signed: `PoolsRole.signer`."""


async def approve_spending(
    client: ServiceClient,
    send: Send,
    sign: Sign,
    pool_address: str,
    amount: Decimal,
    before_send: Callable[[], Awaitable[None]] | None = None,
) -> bool:
    """Let ``pool_address`` spend ``amount`` USDC: permit template (read) -> ``sign`` ->
    ``before_send`` (a last look at what the permit is for: signing may have taken the
    trader a while, a passphrase asked) -> submit (``send``). A template for another amount
    or spender is refused unsigned."""
    template = await client.transfers_permit_template(
        PermitTemplateRequest(
            pool_address=pool_address,
            allowance=DecimalAllowance(value=amount),
            seconds_until_expiry=PERMIT_VALIDITY_S,
        )
    )
    if refusal := template_refusal(template, pool_address, amount):
        raise Refused(refusal)
    signed = await sign(template)
    if before_send is not None:
        await before_send()
    return bool(await send(Intent.of(WriteKind.PERMIT, signed)))


async def trade_still_waiting(client: ServiceClient, trade: TrackedTrade) -> TrackedTrade:
    """The trade as the venue has it now, when it still waits for my deposit; else a
    refusal, nothing signed: it may have been rejected or moved on since the ``p``."""
    quote_id = trade.quote.parent_quote_id
    read = client.quotes_received if trade.role is Role.TAKER else client.quotes_sent
    found = next(
        (q for q in (await read(id=quote_id)).result if q.parent_quote_id == quote_id), None
    )
    if found is None:
        raise Refused("not signed: the venue no longer shows this trade's quote")
    now = track(found, trade.role, trade.rfq)
    if now.next_step is not NextStep.APPROVE_DEPOSIT:
        raise Refused(
            "not signed: the trade no longer waits for your deposit "
            f"({fmt.status_words(now.status)})"
        )
    return now
