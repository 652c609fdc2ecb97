"""Money in settlement pools: deposit, withdraw, open a pool, approve a trade's deposit.

Approving and depositing sign an ERC-2612 permit with the company wallet (permit template ->
sign -> submit) so the pool address may spend the amount; a deposit then also asks for the
transfer. Check first, sign second: the amount passes the permit rule (`permit_terms`: a
trade's deposit exactly what the venue asks, never more than the wallet is known to hold) in
the form and again here, against the freshest word, before anything is signed, and the
venue's template is signed only when it says that amount for that pool. Every write goes
through the runner's `ActionRunner.send` (journaled, sent once).
The sandbox's session carries its dev wallet key; a venue profile's key stays in its encrypted
keystore, and each permit asks for the passphrase in a masked modal and signs with
`sign_permit_with_keystore`, which decrypts the key, signs and lets it go: the desk never holds
the decrypted key, and a wrong passphrase is said under the field and asked again. Signing
runs in a thread: eth-account is slow to import and CPU-bound to use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from tui.api.client import ServiceClient
from tui.api.errors import ApiError
from tui.api.models import (
    NewSettlementPoolRequest,
    NewTransferRequest,
    SettlementPool,
    SubmitPermitRequest,
    Transfer,
    TransferType,
)
from tui.api.writes import Intent, WriteKind
from tui.desk.clearing import TrackedTrade
from tui.desk.messages import ActionKind, DepositApproved, RecordIds, Topic
from tui.desk.pool_facts import party_margin
from tui.desk.roles.guard import guardrail_settings
from tui.desk.roles.permit_flow import Sign, approve_spending, trade_still_waiting
from tui.desk.roles.permit_terms import (
    WALLET_WORD_S,
    WalletWord,
    asked_amount,
    heard_wallet,
    permit_refusal,
)
from tui.desk.roles.runner import ActionRunner, DeskHost, Done, Refused
from tui.desk.screens.password import PasswordScreen
from tui.desk.screens.permit import MoneyAction, MoneyForm, PermitScreen
from tui.desk.screens.pool_create import NewPoolScreen
from tui.desk.widgets.common import fmt

UNLOCK_TRIES = 3
"""Passphrase attempts for one permit before it is given up (the action then fails, in
words)."""

MONEY_MOVES = (Topic.TRANSFERS, Topic.POOLS, Topic.SUMMARY)
"""What a deposit or a withdrawal changes."""


class WalletUnavailable(Refused):
    """No wallet key to sign a permit with (none configured, or the unlock was abandoned)."""


class PoolsRole:
    """Deposits, withdrawals, new pools, deposit approvals, the wallet (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner) -> None:
        self.desk = desk
        self.runner = runner
        self._wallet: WalletWord | None = None

    # -- what the permit may be for ---------------------------------------------------------

    @property
    def wallet(self) -> WalletWord | None:
        """The wallet balance the desk knows: the venue's last word, if recent enough."""
        word = self._wallet
        if word is not None and (self.desk.clock() - word.said_at).total_seconds() > WALLET_WORD_S:
            self._wallet = word = None
        return word

    @property
    def max_deposit(self) -> Decimal:
        """The deposit limit in force (config.toml ``[guardrails] max_deposit``)."""
        return guardrail_settings(self.desk).max_deposit

    def _check_permit(
        self, amount: Decimal, *, approval: bool = False, asked: Decimal | None = None
    ) -> None:
        """Refuse (nothing signed) a permit the rule does not allow: a pool deposit's, or with
        ``approval`` a trade's, which must be exactly what the venue ``asked``."""
        refusal = permit_refusal(
            amount,
            approval=approval,
            asked=asked_amount(asked),
            wallet=self.wallet,
            max_deposit=self.max_deposit,
        )
        if refusal:
            raise Refused(f"not signed: {refusal}")

    # -- a trade's deposit ------------------------------------------------------------------

    def approve_deposit(self, trade: TrackedTrade) -> None:
        """Ask for the permit amount (prefilled with what the venue said), then sign and submit."""
        book = self.desk.book
        hint = book.deposit_hint(trade)
        pool_id = trade.quote.pool_location
        # A pool created for this trade may not be in the last pools poll yet: its name is
        # the one the quote asked for.
        pool_name = (
            book.pool_name(pool_id)
            if pool_id in book.pools
            else trade.quote.new_pool_name or book.pool_name(pool_id)
        )
        form = MoneyForm(
            action=MoneyAction.APPROVE,
            pool_name=pool_name,
            pool_address=hint.pool_address,
            counterparty=book.company_name(trade.counterparty),
            amount=asked_amount(hint.amount),
            note=f"Trade on RFQ {fmt.short_id(trade.quote.target_rfq_id)} waits for this deposit.",
            wallet=self.wallet,
            max_deposit=self.max_deposit,
        )
        if hint.pool_address is None:
            self.desk.poll_soon(Topic.POOLS)
        if form.amount is None:
            self.desk.poll_soon(Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED)

        def send(amount: Decimal, screen: PermitScreen) -> None:
            if hint.pool_address is not None:
                self.approve_now(trade, hint.pool_address, amount, form=screen)

        self.desk.push_screen(PermitScreen(form, send))

    def approve_now(
        self, trade: TrackedTrade, pool_address: str, amount: Decimal, form: object = None
    ) -> None:
        """Sign and submit the permit for ``amount`` (the form said how much), once the venue
        says the trade still waits for it and it is exactly what the venue asks."""

        async def approve(client: ServiceClient) -> Done:
            asked = self.desk.book.deposit_hint(trade).amount
            if asked_amount(asked) is None:
                raise Refused(
                    "not signed: the venue has not said yet how much this trade needs; "
                    "try again shortly"
                )
            self._check_permit(amount, approval=True, asked=asked)
            sign = self.signer()

            async def still_asked() -> None:
                # The venue's word now, not the desk's at the p: the same checks on the trade.
                now = await trade_still_waiting(client, trade)
                hint = self.desk.book.deposit_hint(now)
                if hint.pool_address not in (None, pool_address):
                    raise Refused("not signed: the trade's pool is no longer the one asked for")
                self._check_permit(amount, approval=True, asked=hint.amount)

            await still_asked()  # before the wallet is asked to sign
            try:
                taken = await approve_spending(
                    client, self.runner.send, sign, pool_address, amount, still_asked
                )
            except ApiError:
                raise
            except ValueError as error:  # a template the wallet cannot sign, a bad address
                raise Refused(str(error)) from None
            if not taken:
                return Done("", problem="the venue did not take the permit")
            return Done(
                f"permit for {fmt.usdc(amount)} USDC submitted",
                record=DepositApproved(trade.key, amount),
                refresh=(Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS, Topic.TRANSFERS),
                money=True,
            )

        quote = trade.quote
        ids = RecordIds(quote.target_rfq_id, quote.parent_quote_id, quote.pool_location)
        self.runner.run(ActionKind.APPROVE_DEPOSIT, approve, ids=ids, form=form)

    # -- deposits and withdrawals -----------------------------------------------------------

    def deposit(self, pool_id: str) -> str:
        """Deposit form, then permit + transfer; why not, when it cannot even start."""
        return self._money_form(pool_id, MoneyAction.DEPOSIT)

    def withdraw(self, pool_id: str) -> str:
        """Withdraw form, then transfer; why not, when it cannot even start."""
        return self._money_form(pool_id, MoneyAction.WITHDRAW)

    def _money_form(self, pool_id: str, action: MoneyAction) -> str:
        book = self.desk.book
        pool = book.pools.get(pool_id)
        if pool is None or pool.data is None:
            return "pool data not available yet"
        counterparty = book.pool_counterparty(pool)
        if counterparty is None:
            return "the pool has no counterparty yet"
        if action is MoneyAction.DEPOSIT and (closed := _not_open(pool)):
            return closed
        mine = party_margin(pool, book.me)
        address = pool.data.address
        form = MoneyForm(
            action=action,
            pool_name=pool.data.name,
            pool_address=address,
            counterparty=book.company_name(counterparty),
            maximum=mine.max_withdrawable_amount
            if mine and action is MoneyAction.WITHDRAW
            else None,
            wallet=self.wallet,
            max_deposit=self.max_deposit if action is MoneyAction.DEPOSIT else None,
        )

        def send(amount: Decimal, screen: PermitScreen) -> None:
            if action is MoneyAction.DEPOSIT:
                self.deposit_now(pool_id, str(address), counterparty, amount, form=screen)
            else:
                self.withdraw_now(pool_id, counterparty, amount, form=screen)

        self.desk.push_screen(PermitScreen(form, send))
        return ""

    def deposit_now(
        self,
        pool_id: str,
        address: str,
        counterparty: str,
        amount: Decimal,
        form: object = None,
    ) -> None:
        """Permit the pool to spend ``amount``, then ask for the deposit; nothing is signed
        when the amount or the pool fails a check the desk can make itself."""

        async def deposit(client: ServiceClient) -> Done:
            pool = self.desk.book.pools.get(pool_id)
            if pool is not None and (closed := _not_open(pool)):
                raise Refused(f"not signed: {closed}")
            self._check_permit(amount)
            sign = self.signer()
            try:
                await approve_spending(client, self.runner.send, sign, address, amount)
                request = NewTransferRequest(
                    qty=amount,
                    target_pool_location=pool_id,
                    counterparty=counterparty,
                    transfer_type=TransferType.DEPOSIT,
                )
                transfer: Transfer = await self.runner.send(Intent.of(WriteKind.TRANSFER, request))
            except ApiError as error:
                self._heard(error)
                raise
            except ValueError as error:  # a template the wallet cannot sign, a bad request
                raise Refused(str(error)) from None
            if (known := self._wallet) is not None:
                self._wallet = WalletWord(known.usdc - amount, known.said_at)
            return Done(
                f"deposit of {fmt.usdc(amount)} USDC {transfer.status}",
                record=transfer,
                refresh=MONEY_MOVES,
                money=True,
            )

        self.runner.run(ActionKind.DEPOSIT, deposit, ids=RecordIds(pool_id=pool_id), form=form)

    def withdraw_now(
        self, pool_id: str, counterparty: str, amount: Decimal, form: object = None
    ) -> None:
        """Move ``amount`` from the pool back to the wallet."""

        async def withdraw(_client: ServiceClient) -> Done:
            self._wallet = None  # the wallet may hold more once this lands
            request = NewTransferRequest(
                qty=amount,
                target_pool_location=pool_id,
                counterparty=counterparty,
                transfer_type=TransferType.WITHDRAWAL,
            )
            transfer: Transfer = await self.runner.send(Intent.of(WriteKind.TRANSFER, request))
            return Done(
                f"withdrawal of {fmt.usdc(amount)} USDC {transfer.status}",
                record=transfer,
                refresh=MONEY_MOVES,
                money=True,
            )

        self.runner.run(ActionKind.WITHDRAW, withdraw, ids=RecordIds(pool_id=pool_id), form=form)

    def _heard(self, error: ApiError) -> None:
        """Keep the wallet balance a refusal states (the only word the desk gets of it)."""
        if (word := heard_wallet(error.message, self.desk.clock())) is not None:
            self._wallet = word

    # -- a new pool -------------------------------------------------------------------------

    def create_pool(self) -> str:
        """Pool form, then create; why not, when it cannot even start."""
        book = self.desk.book
        companies = book.counterparties()
        if not companies:
            return "company list not loaded yet"

        def built(request: NewSettlementPoolRequest | None) -> None:
            if request is not None:
                self.create_pool_now(request)

        self.desk.push_screen(NewPoolScreen(companies, book.company_name(book.me)), built)
        return ""

    def create_pool_now(self, request: NewSettlementPoolRequest) -> None:
        """Ask the venue for the pool the form describes."""

        async def create(_client: ServiceClient) -> Done:
            pool: SettlementPool = await self.runner.send(Intent.of(WriteKind.POOL, request))
            return Done(
                f"pool '{request.pool_name}' requested "
                f"({pool.data.status if pool.data else 'pending'})",
                record=pool,
                refresh=(Topic.POOLS,),
            )

        self.runner.run(ActionKind.NEW_POOL, create)

    # -- the wallet -------------------------------------------------------------------------

    def signer(self) -> Sign:
        """How this session signs a permit: with the session's wallet key (the sandbox's dev
        key), or from the profile's keystore, asking the passphrase each time; a
        `WalletUnavailable` when it has neither (before anything is asked of the venue)."""
        connection = self.desk.connection
        if connection is not None and connection.wallet_key is not None:
            key = connection.wallet_key

            async def with_key(template: Mapping[str, Any]) -> SubmitPermitRequest:
                from tui.api.permits import sign_permit

                return await asyncio.to_thread(sign_permit, template, key.get_secret_value())

            return with_key
        if connection is None or connection.keystore is None:
            raise WalletUnavailable("no wallet configured for this profile (keystore)")
        keystore = connection.keystore

        async def with_keystore(template: Mapping[str, Any]) -> SubmitPermitRequest:
            return await self.sign_with_keystore(template, keystore)

        return with_keystore

    async def sign_with_keystore(
        self, template: Mapping[str, Any], keystore: Path
    ) -> SubmitPermitRequest:
        """Ask the passphrase (masked) and sign this one permit; the key is decrypted inside
        the signing call only. A wrong passphrase is said under the field and asked again, up
        to `UNLOCK_TRIES` times; a template the wallet cannot sign is refused in words."""
        from tui.api.permits import WalletError, sign_permit_with_keystore

        error = ""
        for _ in range(UNLOCK_TRIES):
            passphrase: SecretStr | None = await self.desk.push_screen_wait(
                PasswordScreen(keystore, error=error)
            )
            if passphrase is None:
                raise WalletUnavailable("wallet not unlocked: the permit was not signed")
            try:
                return await asyncio.to_thread(
                    sign_permit_with_keystore, template, keystore, passphrase
                )
            except WalletError as problem:
                if str(problem).startswith("permit template"):
                    raise Refused(str(problem)) from None
                error = str(problem)
            finally:
                del passphrase
        raise WalletUnavailable(f"wallet not unlocked after {UNLOCK_TRIES} tries: {error}")


def _not_open(pool: SettlementPool) -> str:
    """Why nothing can be deposited into ``pool`` yet ('' when it is open)."""
    status = str(pool.data.status) if pool.data is not None else "unknown"
    if status == "open":
        return ""
    return f"the pool is {status}, not open: deposits wait until it opens"
