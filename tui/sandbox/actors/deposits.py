"""How a simulated company approves its deposits: the permit flow of any API caller.

A trade waiting for a deposit (``pending_taker_deposit_approval`` or
``pending_maker_deposit_approval``) moves on once the company's wallet allows the pool address
to spend enough USDC. A simulated company does what the desk's user does: ask the exchange for
the permit template, sign it with its wallet key (`tui.api.permits.sign_permit`), submit it.

The amount the trade needs is not always known to the company (after a pool is created, the
accept response said nothing yet), so an allowance is never smaller than `estimated_deposit`:
a permit only *caps* what the pool may pull, and the pool pulls exactly what the trade needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import ROUND_CEILING, Decimal
from typing import Any

from tui.api.models import DecimalAllowance, PermitTemplateRequest, Quote, RFQLeg
from tui.api.permits import sign_permit

__all__ = [
    "ALLOWANCE_FLOOR",
    "DEPOSIT_MARGIN_SHARE",
    "PERMIT_VALIDITY_S",
    "approve_deposit",
    "deposit_needed",
    "estimated_deposit",
    "permit_allowance",
]

DEPOSIT_MARGIN_SHARE = Decimal("0.25")
"""Share of a trade's notional the estimate allows: over the sandbox's 10 % futures and 15 %
option initial margins plus an option's premium, so the estimate always covers the need."""

ALLOWANCE_FLOOR = Decimal(50_000)
"""No permit allows less (USDC): a small leftover allowance lets the next trade in the same
pool skip the approval step, as a busy desk would set it up."""

PERMIT_VALIDITY_S = 300


def estimated_deposit(legs: Iterable[RFQLeg], underlying_price: Any) -> Decimal:
    """An upper bound of what a trade on ``legs`` can need as deposit, in whole USDC.

    ``underlying_price`` maps an underlying to its mark (``Market.mark_price``).
    """
    notional = Decimal(0)
    for leg in legs:
        underlying = str(getattr(leg.instrument, "underlying", ""))
        notional += abs(Decimal(leg.qty)) * underlying_price(underlying)
    return (notional * DEPOSIT_MARGIN_SHARE).to_integral_value(rounding=ROUND_CEILING)


def permit_allowance(amount: Decimal) -> Decimal:
    """The allowance a simulated company's permit grants for a deposit of ``amount``: never
    below `ALLOWANCE_FLOOR`, rounded up to USDC's 6 decimals."""
    return max(amount, ALLOWANCE_FLOOR).quantize(Decimal("0.000001"), ROUND_CEILING)


def approve_deposit(
    exchange: Any,
    caller: Any,
    private_key: str,
    pool_address: str,
    amount: Decimal,
) -> Decimal:
    """Permit ``pool_address`` to spend at least ``amount`` USDC of the caller's wallet.

    Goes through the exchange's own endpoints (template, then the signed permit), so every
    rule of the venue applies. Returns the allowance granted. Raises the exchange's
    `ServiceError` on refusal and `tui.api.permits.WalletError` on a bad key.
    """
    allowance = permit_allowance(amount)
    template = exchange.transfers_permit_template(
        caller,
        PermitTemplateRequest(
            pool_address=pool_address,
            allowance=DecimalAllowance(value=allowance),
            seconds_until_expiry=PERMIT_VALIDITY_S,
        ),
    )
    exchange.transfers_permit(caller, sign_permit(template, private_key))
    return allowance


def deposit_needed(quote: Quote, legs: list[RFQLeg], mark: Callable[[str], Decimal]) -> Decimal:
    """What a trade needs the viewer to deposit: the amount the quote shows once accepted
    (``pending_deposits_sum_qty``), else a safe estimate from the legs."""
    shown = (quote.model_extra or {}).get("pending_deposits_sum_qty")
    try:
        amount = Decimal(str(shown)) if shown is not None else Decimal(0)
    except ArithmeticError:
        amount = Decimal(0)
    return amount if amount > 0 else estimated_deposit(legs, mark)
