"""What a permit may be signed for: the one rule every path that signs a permit checks first.

A permit lets a pool address spend USDC from the company wallet, so nothing is signed until the
amount passes every check the desk can make itself: above zero, in whole millionths (USDC has 6
decimals), for a trade's deposit exactly what the venue asks (less and the trade fails; more
and the pool may spend more than the deposit), for a pool deposit at most the desk's deposit
limit (``[guardrails] max_deposit``: the venue has no wallet read, so a mistyped
99,999,999,999 would otherwise be signed before the venue refused its transfer), and within
the wallet balance the desk knows.
The venue has no read of the wallet, so the desk knows its balance only when the venue said it
(a deposit refused for want of funds, `heard_wallet`); that word is kept a few minutes, less
what the desk deposited since, and forgotten when a withdrawal may have filled the wallet.
The template the venue returns is checked too before it is signed (`template_refusal`): its
spender must be the pool and its value the amount, in base units.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_CEILING, Decimal
from typing import Any

from tui.api.models import USDC_DECIMALS, DecimalAllowance, allowance_units
from tui.api.permits import template_int
from tui.desk.widgets.common import fmt

USDC_STEP = Decimal(1).scaleb(-USDC_DECIMALS)
"""The smallest USDC amount a permit or a transfer can carry (one millionth)."""

WALLET_WORD_S = 300.0
"""How long the venue's word on the wallet balance is trusted: long enough to catch the retry
of a refused deposit, short enough that a wallet funded outside the desk is not refused for
long."""

LIMIT_WHERE = "guardrails.max_deposit in config.toml"
"""Where the deposit limit is changed, as the refusal names it (no brackets: the words are
shown as markup under the field)."""

_WALLET_SAID = re.compile(r"wallet holds only ([0-9]{1,3}(?:,?[0-9]{3})*(?:\.[0-9]+)?) USDC")
"""How the venue says the wallet is short (the sandbox's words; another venue's are not read)."""


@dataclass(frozen=True)
class WalletWord:
    """The wallet's USDC balance as the venue last said it, and when."""

    usdc: Decimal
    said_at: datetime

    def words(self) -> str:
        """``738,470.19 USDC the wallet holds (the venue said at 12:03:04)``."""
        return (
            f"{fmt.usdc(self.usdc)} USDC the wallet holds "
            f"(the venue said at {self.said_at:%H:%M:%S})"
        )


def heard_wallet(message: str, now: datetime) -> WalletWord | None:
    """The wallet balance a venue refusal states, if it states one."""
    found = _WALLET_SAID.search(message)
    return WalletWord(Decimal(found.group(1).replace(",", "")), now) if found else None


def asked_amount(said: Decimal | None) -> Decimal | None:
    """What a trade's permit must cover: the venue's ask, up to the next millionth (a permit
    carries whole base units); None when the venue has not asked for anything above zero."""
    if said is None or said <= 0:
        return None
    return said.quantize(USDC_STEP, rounding=ROUND_CEILING)


def plain(amount: Decimal) -> str:
    """An amount as a field holds it: plain digits, no exponent, no trailing zeros."""
    text = format(amount, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def permit_refusal(
    amount: Decimal,
    *,
    approval: bool,
    asked: Decimal | None,
    wallet: WalletWord | None,
    max_deposit: Decimal | None = None,
) -> str:
    """Why a permit for ``amount`` must not be signed, in words ('' when it may be).

    ``approval``: the permit is a trade's deposit approval and must be exactly ``asked`` (see
    `asked_amount`); otherwise it is a pool deposit of ``amount``, at most ``max_deposit``
    (the guardrail; None: no cap).
    """
    if amount <= 0:
        return f"must be greater than 0, not {plain(amount)}"
    if amount != amount.quantize(USDC_STEP):
        return f"at most {USDC_DECIMALS} decimal places: USDC moves in millionths"
    if approval:
        if asked is None:
            return "the venue has not said yet how much this trade needs; try again shortly"
        if amount < asked:
            return f"less than the {fmt.usdc(asked)} USDC the venue asks for this trade"
        if amount > asked:
            return (
                f"more than the {fmt.usdc(asked)} USDC the venue asks for this trade: "
                "a permit never lets the pool spend more than the deposit"
            )
    elif max_deposit is not None and amount > max_deposit:
        return (
            f"more than the deposit limit of {fmt.exact(max_deposit)} USDC "
            f"({LIMIT_WHERE}: raise it there to deposit more)"
        )
    if wallet is not None and amount > wallet.usdc:
        return f"more than the {wallet.words()}"
    return ""


def over_limit_note(asked: Decimal | None, max_deposit: Decimal | None) -> str:
    """What a trade's deposit form says when the venue asks for more than the deposit limit:
    the limit caps pool deposits only, a trade's deposit is exactly what it needs ('' when
    not above)."""
    if asked is None or max_deposit is None or asked <= max_deposit:
        return ""
    return (
        f"Above your deposit limit of {fmt.exact(max_deposit)} USDC ({LIMIT_WHERE}): a trade's "
        "deposit is exactly what the venue asks and is not capped by it."
    )


def template_refusal(template: Mapping[str, Any], pool_address: str, amount: Decimal) -> str:
    """Why the venue's permit template must not be signed for ``amount`` to ``pool_address``
    ('' when it says exactly that)."""
    message = template.get("message")
    if not isinstance(message, Mapping):
        return "the venue's permit template has no message: nothing was signed"
    spender = str(message.get("spender", ""))
    if spender.lower() != pool_address.lower():
        return f"the venue's permit names spender {spender}, not the pool: nothing was signed"
    want = allowance_units(DecimalAllowance(value=amount))
    units = template_int(message.get("value"))
    if units != want:
        said = (
            "no readable value"
            if units is None
            else fmt.usdc(Decimal(units).scaleb(-USDC_DECIMALS))
        )
        return (
            f"the venue's permit is for {said} USDC, not the {fmt.usdc(amount)} USDC typed: "
            "nothing was signed"
        )
    return ""
