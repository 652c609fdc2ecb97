"""The trader's workflows: every action that goes to the venue, from the key to the answer.

`DeskWorkflows` is the base of `DeskApp`. Each workflow takes a pane's request (a message from
the ticket, the board, the tracker, the pools pane, or a key), confirms what needs confirming,
starts a worker that calls the client (`tui.desk.actions`), and posts `ActionFinished` with the
outcome, which lands next to the field or in the pane it concerns and in a toast. The polls that
the action changed are kicked so the panes catch up at once.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from pydantic import SecretStr
from textual import work
from textual.app import App
from textual.widgets import TabbedContent

from tui.api.client import ServiceClient
from tui.api.errors import ApiError
from tui.api.models import RFQ, RequestAction, RFQStatus, TradeSide
from tui.desk import actions
from tui.desk.book import DepositHint, DeskBook, TrackedTrade, gross_notional, leg_fills
from tui.desk.export import export_csv
from tui.desk.feed import Feed
from tui.desk.messages import ActionFinished, ActionKind, RfqsUpdated, Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.screens.new_rfq import NewRfqScreen, rfq_errors_from_api
from tui.desk.screens.password import PasswordScreen
from tui.desk.screens.permit import MoneyAction, MoneyForm, PermitScreen
from tui.desk.screens.pool_create import NewPoolScreen
from tui.desk.session import Connection
from tui.desk.widgets import fmt
from tui.desk.widgets.forms import FORM, errors_from_api
from tui.desk.widgets.pools import PoolsPane, party_margin
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket, locate_quote_field
from tui.desk.widgets.trade_tracker import TradeTracker

Handler = TypeVar("Handler", bound=Callable[..., Any])

MAJORS = ("BTC", "ETH")
"""Underlyings the structure builder offers first."""


def premium_words(side: TradeSide, price: Decimal, qty: Decimal | None) -> str:
    """The premium of an accept in words: price x qty, and whether the taker pays or receives.

    Buying at a positive price pays, at a negative price (a credit spread) receives; selling
    is the mirror image.
    """
    if qty is None:
        return fmt.DASH
    amount = price * qty
    pays = (amount >= 0) == (side is TradeSide.BUY)
    return f"{fmt.money(abs(amount))} USDC {'you pay' if pays else 'you receive'}"


class WalletUnavailable(Exception):
    """No wallet key to sign a permit with (none configured, or the unlock was abandoned)."""


def while_running(handler: Handler) -> Handler:
    """Drop a feed message that arrives while the desk shuts down (its panes are gone)."""

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def guarded_async(self: App[Any], message: Any) -> None:
            if self.is_running:
                await handler(self, message)

        return guarded_async  # type: ignore[return-value]

    @functools.wraps(handler)
    def guarded(self: App[Any], message: Any) -> None:
        if self.is_running:
            handler(self, message)

    return guarded  # type: ignore[return-value]


class DeskWorkflows(App[None]):
    """Trading workflows of the desk (see module docs); `DeskApp` supplies the state."""

    book: DeskBook
    connection: Connection | None
    client: ServiceClient | None
    feed: Feed | None
    export_dir: Path
    _fixed_clock: Any
    _wallet_key: SecretStr | None
    _follow_rfq: str | None
    """An RFQ just sent: the inbox moves to it when it first shows (its quotes come there)."""
    _filed_rfqs: dict[str, RFQ]
    """RFQs the venue took that no poll of sent RFQs has listed yet."""

    def clock(self) -> datetime:
        """Now, as the venue sees it: the injected clock, else local time plus server offset."""
        if self._fixed_clock is not None:
            result: datetime = self._fixed_clock()
            return result
        if self.client is not None:
            return datetime.fromtimestamp(self.client.clock.now_ms() / 1000, tz=UTC)
        return datetime.now(UTC)

    # -- maker: quotes ----------------------------------------------------------------------

    def on_quote_ticket_submit(self, message: QuoteTicket.Submit) -> None:
        """Send the quote the ticket validated."""
        self._send_quote(message.request, message.replaces)

    @work(group="actions", exit_on_error=False)
    async def _send_quote(self, request: Any, replaces: str | None) -> None:
        kind = ActionKind.REPLACE_QUOTE if replaces else ActionKind.NEW_QUOTE
        client = self._client()
        try:
            quote = await actions.send_quote(client, request, replaces)
        except ApiError as error:
            self._finished(kind, error=error)
            return
        word = "replaced" if replaces else "sent"
        self._finished(
            kind,
            summary=f"quote {fmt.short_id(quote.parent_quote_id)} {word}: "
            f"bid {fmt.price(quote.aggregated_bid)} ask {fmt.price(quote.aggregated_ask)}",
            result=quote,
            kick=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED),
        )

    def on_quote_ticket_cancel(self, message: QuoteTicket.Cancel) -> None:
        """Pull a live quote."""
        self._cancel_quote(message.quote_id)

    @work(group="actions", exit_on_error=False)
    async def _cancel_quote(self, quote_id: str) -> None:
        try:
            await self._client().quotes_cancel(quote_id)
        except ApiError as error:
            self._finished(ActionKind.CANCEL_QUOTE, error=error)
            return
        self._finished(
            ActionKind.CANCEL_QUOTE,
            summary=f"quote {fmt.short_id(quote_id)} pulled",
            kick=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED),
        )

    # -- taker: accept and cancel -----------------------------------------------------------

    def accept_details(self, message: QuoteBoard.Accept) -> str:
        """What the accept confirmation says: side, price, qty, notional, pool, expiries."""
        rfq = self.book.rfqs_sent.get(message.rfq_id)
        quote = self.book.quotes_received.get(message.quote_id)
        qty = rfq.qty if rfq else None
        fills = leg_fills(rfq, quote, message.side) if rfq and quote else None
        notional = gross_notional(fills) if fills is not None else None
        premium = premium_words(message.side, message.price, qty)
        maker = self.book.company_name(quote.maker_company) if quote else "the maker"
        if quote is not None and quote.pool_location:
            address = self.book.pool_address(quote.pool_location) or "address pending"
            pool = f"{self.book.pool_name(quote.pool_location)} ({address})"
        elif quote is not None and quote.new_pool_name:
            pool = f"new pool '{quote.new_pool_name}' (created on acceptance)"
        else:
            pool = "as the quote specifies"
        side_word = "BUY" if message.side is TradeSide.BUY else "SELL"
        tone = "$bid" if message.side is TradeSide.BUY else "$ask"
        structure = fmt.structure_text(rfq.structure) if rfq else ""
        now = self.clock()
        expiry = (
            f"quote expires in {fmt.countdown(quote.expires_at, now)}" if quote is not None else ""
        )
        which = "ask" if message.side is TradeSide.BUY else "bid"
        return (
            f"[b {tone}]{side_word}[/] {fmt.qty(qty)} x {structure}\n"
            f"price     [b]{fmt.price(message.price)}[/b]  "
            f"({which} of {maker}, quote {fmt.short_id(message.quote_id)})\n"
            f"notional  [b]{fmt.money(notional)}[/b] USDC  (Σ |leg qty x leg price|)\n"
            f"premium   {premium}\n"
            f"pool      {pool}\n"
            f"{expiry}"
        )

    def on_quote_board_accept(self, message: QuoteBoard.Accept) -> None:
        """Confirm, then accept."""

        def answered(yes: bool | None) -> None:
            if yes:
                self._accept(message.rfq_id, message.quote_id, message.side)

        self.push_screen(
            ConfirmScreen("Accept quote?", self.accept_details(message), confirm_label="Trade"),
            answered,
        )

    @work(group="actions", exit_on_error=False)
    async def _accept(self, rfq_id: str, quote_id: str, side: TradeSide) -> None:
        try:
            response = await actions.accept_quote(self._client(), rfq_id, quote_id, side)
        except ApiError as error:
            self._finished(
                ActionKind.ACCEPT_QUOTE,
                error=error,
                kick=(Topic.RFQS_SENT, Topic.QUOTES_RECEIVED),
            )
            return
        pending = response.pending_settlement_pool
        self.book.deposit_hints[quote_id] = DepositHint(
            amount=response.pending_deposits_sum_qty,
            pool_address=pending.address if pending else None,
        )
        self._finished(
            ActionKind.ACCEPT_QUOTE,
            summary=f"accepted: {fmt.status_words(response.new_clearing_status)}",
            result=response,
            kick=(Topic.QUOTES_RECEIVED, Topic.RFQS_SENT, Topic.POOLS, Topic.TRADES),
            money=True,
        )

    def on_quote_board_cancel_rfq(self, message: QuoteBoard.CancelRfq) -> None:
        """Confirm, then cancel the RFQ."""

        def answered(yes: bool | None) -> None:
            if yes:
                self._cancel_rfq(message.rfq_id)

        self.push_screen(
            ConfirmScreen(
                "Cancel RFQ?",
                f"RFQ {fmt.short_id(message.rfq_id)} will stop taking quotes.",
                confirm_label="Cancel RFQ",
                danger=True,
            ),
            answered,
        )

    @work(group="actions", exit_on_error=False)
    async def _cancel_rfq(self, rfq_id: str) -> None:
        try:
            await self._client().rfqs_cancel(rfq_id)
        except ApiError as error:
            self._finished(ActionKind.CANCEL_RFQ, error=error)
            return
        self._finished(
            ActionKind.CANCEL_RFQ,
            summary=f"RFQ {fmt.short_id(rfq_id)} cancelled",
            kick=(Topic.RFQS_SENT,),
        )

    # -- taker: new RFQ ---------------------------------------------------------------------

    def action_new_rfq(self) -> None:
        """Open the structure builder."""
        companies = self.book.counterparties()
        if not companies:
            self.notify("company list not loaded yet", severity="warning")
            if self.feed is not None:
                self.feed.kick(Topic.COMPANIES)
            return
        known = sorted(self.book.assets) or (
            [listing.ticker for listing in self.book.stats.listings] if self.book.stats else []
        )
        # The majors first: the builder opens on the most traded underlying.
        underlyings = sorted(
            known, key=lambda t: (t not in MAJORS, MAJORS.index(t) if t in MAJORS else 0, t)
        )
        intervals = (
            {listing.ticker: listing.funding_interval_s for listing in self.book.stats.listings}
            if self.book.stats
            else {}
        )

        self.push_screen(
            NewRfqScreen(companies, underlyings or ["BTC", "ETH"], self.clock, intervals)
        )

    def on_new_rfq_screen_send(self, message: NewRfqScreen.Send) -> None:
        """The builder's request is valid: send it; the builder waits for the answer."""
        self._send_rfq(message.builder, message.request)

    @work(group="actions", exit_on_error=False)
    async def _send_rfq(self, builder: NewRfqScreen, request: Any) -> None:
        try:
            rfq = await self._client().rfqs_new(request)
        except ApiError as error:
            if builder.is_attached and builder.sending:
                # The builder is still open: the reasons go under its fields, not in a toast.
                builder.refused(rfq_errors_from_api(error))
                return
            self._finished(ActionKind.NEW_RFQ, error=error)
            return
        except Exception as error:
            if builder.is_attached and builder.sending:
                builder.refused({FORM: f"not sent: {error}"})
            raise
        if builder.is_attached and builder.sending:
            builder.sent(rfq)
        self.file_sent_rfq(rfq)
        self._finished(
            ActionKind.NEW_RFQ,
            summary=f"RFQ {fmt.short_id(rfq.rfq_id)} sent to "
            f"{len(request.target_companies)} companies",
            result=rfq,
            kick=(Topic.RFQS_SENT,),
        )

    def file_sent_rfq(self, rfq: RFQ) -> None:
        """An RFQ the venue just took: show it now, not at the next poll of sent RFQs.

        After a user action the polls may wait for the request budget for a few seconds; the
        venue's own answer is as good as a poll for this one record. It is kept until a poll
        lists it (a poll started before the send would not).
        """
        self._filed_rfqs[rfq.rfq_id] = rfq
        self._follow_rfq = rfq.rfq_id
        self.post_message(RfqsUpdated(self.clock(), "sent", list(self.book.rfqs_sent.values())))

    def with_filed(self, rfqs: list[RFQ]) -> list[RFQ]:
        """A polled list of sent RFQs plus those the venue took that it does not list yet."""
        listed = {r.rfq_id for r in rfqs}
        for rfq_id in listed & set(self._filed_rfqs):
            del self._filed_rfqs[rfq_id]
        return rfqs + list(self._filed_rfqs.values())

    # -- the tracker: last look and deposits ------------------------------------------------

    def on_trade_tracker_last_look(self, message: TradeTracker.LastLook) -> None:
        """Answer a last look."""
        self._last_look(message.trade, message.action)

    @work(group="actions", exit_on_error=False)
    async def _last_look(self, trade: TrackedTrade, action: RequestAction) -> None:
        quote = trade.quote
        try:
            response = await actions.last_look(
                self._client(), quote.target_rfq_id, quote.parent_quote_id, action
            )
        except ApiError as error:
            self._finished(ActionKind.LAST_LOOK, error=error, kick=(Topic.QUOTES_SENT,))
            return
        self.book.deposit_hints[quote.parent_quote_id] = DepositHint(
            amount=response.pending_deposits_sum_qty,
            pool_address=response.settlement_pool_address,
        )
        self._finished(
            ActionKind.LAST_LOOK,
            summary=f"last look {action.value}: {fmt.status_words(response.new_clearing_status)}",
            result=response,
            kick=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED, Topic.TRADES, Topic.POOLS),
            money=action is RequestAction.ACCEPT,
        )

    def on_trade_tracker_approve_deposit(self, message: TradeTracker.ApproveDeposit) -> None:
        """Ask for the permit amount, then sign and submit."""
        trade = message.trade
        hint = self.book.deposit_hint(trade)
        pool_id = trade.quote.pool_location
        # A pool created for this trade may not be in the last pools poll yet: its name is
        # the one the quote asked for.
        pool_name = (
            self.book.pool_name(pool_id)
            if pool_id in self.book.pools
            else trade.quote.new_pool_name or self.book.pool_name(pool_id)
        )
        form = MoneyForm(
            action=MoneyAction.APPROVE,
            pool_name=pool_name,
            pool_address=hint.pool_address,
            counterparty=self.book.company_name(trade.counterparty),
            amount=hint.amount,
            note=f"Trade on RFQ {fmt.short_id(trade.quote.target_rfq_id)} waits for this deposit.",
        )
        if hint.pool_address is None and self.feed is not None:
            self.feed.kick(Topic.POOLS)

        def entered(amount: Decimal | None) -> None:
            if amount is not None and hint.pool_address is not None:
                self._approve(trade, hint.pool_address, amount)

        self.push_screen(PermitScreen(form), entered)

    @work(group="actions", exit_on_error=False)
    async def _approve(self, trade: TrackedTrade, pool_address: str, amount: Decimal) -> None:
        try:
            key = await self._wallet()
            ok = await actions.approve_spending(self._client(), key, pool_address, amount)
        except WalletUnavailable as error:
            self._finished(ActionKind.APPROVE_DEPOSIT, message=str(error))
            return
        except (ApiError, ValueError) as error:
            self._finished(ActionKind.APPROVE_DEPOSIT, error=error)
            return
        kick = (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS, Topic.TRANSFERS)
        if ok:
            self._finished(
                ActionKind.APPROVE_DEPOSIT,
                summary=f"permit for {fmt.money(amount)} USDC submitted",
                kick=kick,
                money=True,
            )
        else:
            self._finished(ActionKind.APPROVE_DEPOSIT, message="the venue did not take the permit")

    async def _wallet(self) -> SecretStr:
        """The wallet key: from the session, or unlocked from the keystore (asked once)."""
        connection = self.connection
        if connection is not None and connection.wallet_key is not None:
            return connection.wallet_key
        if self._wallet_key is not None:
            return self._wallet_key
        if connection is None or connection.keystore is None:
            raise WalletUnavailable("no wallet configured for this profile (keystore)")
        from tui.api.permits import WalletError, load_wallet_key

        error = ""
        for _ in range(3):
            password = await self.push_screen_wait(PasswordScreen(connection.keystore, error=error))
            if password is None:
                raise WalletUnavailable("wallet not unlocked")
            try:
                key = await asyncio.to_thread(
                    load_wallet_key, connection.keystore, password.get_secret_value()
                )
            except WalletError as problem:
                error = str(problem)
                continue
            self._wallet_key = SecretStr(key)
            return self._wallet_key
        raise WalletUnavailable("wallet not unlocked")

    # -- pools ------------------------------------------------------------------------------

    def on_pools_pane_deposit(self, message: PoolsPane.Deposit) -> None:
        """Deposit form, then permit + transfer."""
        self._money_form(message.pool_id, MoneyAction.DEPOSIT)

    def on_pools_pane_withdraw(self, message: PoolsPane.Withdraw) -> None:
        """Withdraw form, then transfer."""
        self._money_form(message.pool_id, MoneyAction.WITHDRAW)

    def _money_form(self, pool_id: str, action: MoneyAction) -> None:
        pool = self.book.pools.get(pool_id)
        if pool is None or pool.data is None:
            self.query_one(PoolsPane).show_error("pool data not available yet")
            return
        counterparty = self.book.pool_counterparty(pool)
        if counterparty is None:
            self.query_one(PoolsPane).show_error("the pool has no counterparty yet")
            return
        mine = party_margin(pool, self.book.me)
        form = MoneyForm(
            action=action,
            pool_name=pool.data.name,
            pool_address=pool.data.address,
            counterparty=self.book.company_name(counterparty),
            maximum=mine.max_withdrawable_amount
            if mine and action is MoneyAction.WITHDRAW
            else None,
        )

        def entered(amount: Decimal | None) -> None:
            if amount is None:
                return
            if action is MoneyAction.DEPOSIT:
                self._deposit(
                    pool_id, str(pool.data.address if pool.data else ""), counterparty, amount
                )
            else:
                self._withdraw(pool_id, counterparty, amount)

        self.push_screen(PermitScreen(form), entered)

    @work(group="actions", exit_on_error=False)
    async def _deposit(
        self, pool_id: str, address: str, counterparty: str, amount: Decimal
    ) -> None:
        try:
            key = await self._wallet()
            transfer = await actions.deposit(
                self._client(), key, pool_id, address, counterparty, amount
            )
        except WalletUnavailable as error:
            self._finished(ActionKind.DEPOSIT, message=str(error))
            return
        except (ApiError, ValueError) as error:
            self._finished(ActionKind.DEPOSIT, error=error)
            return
        self._finished(
            ActionKind.DEPOSIT,
            summary=f"deposit of {fmt.money(amount)} USDC {transfer.status}",
            result=transfer,
            kick=(Topic.TRANSFERS, Topic.POOLS, Topic.SUMMARY),
            money=True,
        )

    @work(group="actions", exit_on_error=False)
    async def _withdraw(self, pool_id: str, counterparty: str, amount: Decimal) -> None:
        try:
            transfer = await actions.withdraw(self._client(), pool_id, counterparty, amount)
        except ApiError as error:
            self._finished(ActionKind.WITHDRAW, error=error)
            return
        self._finished(
            ActionKind.WITHDRAW,
            summary=f"withdrawal of {fmt.money(amount)} USDC {transfer.status}",
            result=transfer,
            kick=(Topic.TRANSFERS, Topic.POOLS, Topic.SUMMARY),
            money=True,
        )

    def on_pools_pane_create_pool(self, message: PoolsPane.CreatePool) -> None:
        """Pool form, then create."""
        companies = self.book.counterparties()
        if not companies:
            self.query_one(PoolsPane).show_error("company list not loaded yet")
            return
        me = self.book.company_name(self.book.me)

        def built(request: Any) -> None:
            if request is not None:
                self._create_pool(request)

        self.push_screen(NewPoolScreen(companies, me), built)

    @work(group="actions", exit_on_error=False)
    async def _create_pool(self, request: Any) -> None:
        try:
            pool = await self._client().settlement_pools_new(request)
        except ApiError as error:
            self._finished(ActionKind.NEW_POOL, error=error)
            return
        self._finished(
            ActionKind.NEW_POOL,
            summary=f"pool '{request.pool_name}' requested "
            f"({pool.data.status if pool.data else 'pending'})",
            result=pool,
            kick=(Topic.POOLS,),
        )

    # -- kill switch, export, navigation ----------------------------------------------------

    def action_kill_switch(self) -> None:
        """Confirm once, then cancel every quote and every open RFQ."""
        if self.client is None:
            self.notify("not connected", severity="error")
            return
        if isinstance(self.screen, ConfirmScreen):
            return
        now = self.clock()
        live_quotes = self.book.live_quotes(now)
        open_rfqs = [r for r in self.book.rfqs_sent.values() if r.rfq_status == RFQStatus.OPEN]

        def answered(yes: bool | None) -> None:
            if yes:
                self._kill(open_rfqs)

        self.push_screen(
            ConfirmScreen(
                "KILL SWITCH",
                f"Cancel ALL my quotes ({len(live_quotes)} known live) and ALL my open RFQs "
                f"({len(open_rfqs)} known)?\nTrades already accepted keep clearing.",
                confirm_label="Cancel everything",
                danger=True,
            ),
            answered,
        )

    @work(group="kill", exit_on_error=False)
    async def _kill(self, open_rfqs: list[Any]) -> None:
        report = await actions.kill_switch(self._client(), open_rfqs)
        message = report.summary()
        self._finished(
            ActionKind.KILL_SWITCH,
            summary=message if report.ok else "",
            message="" if report.ok else message,
            result=report,
            kick=(Topic.QUOTES_SENT, Topic.RFQS_SENT, Topic.RFQS_RECEIVED),
        )

    def action_export(self) -> None:
        """Write the trades and transfers of the view as CSV; toast the paths."""
        tab = self.query_one(TabbedContent).active
        pool_id = self.query_one(PoolsPane).selected_pool_id if tab == "pools" else None
        trades = [t for t in self.book.trades if pool_id is None or t.pool_location == pool_id]
        transfers = [
            t for t in self.book.transfers if pool_id is None or t.target_pool_location == pool_id
        ]
        label = self.book.pool_name(pool_id) if pool_id else "all"
        self._export(trades, transfers, label)

    @work(group="export", exit_on_error=False)
    async def _export(self, trades: list[Any], transfers: list[Any], label: str) -> None:
        try:
            paths = await asyncio.to_thread(
                export_csv, self.export_dir, trades, transfers, self.clock(), label
            )
        except OSError as error:
            self._finished(ActionKind.EXPORT, message=f"export failed: {error}")
            return
        self._finished(
            ActionKind.EXPORT,
            summary=f"{len(trades)} trades → {paths[0]}\n{len(transfers)} transfers → {paths[1]}",
            result=paths,
        )

    # -- results ----------------------------------------------------------------------------

    def _client(self) -> ServiceClient:
        if self.client is None:
            raise ApiError("not connected")
        return self.client

    def _finished(
        self,
        kind: ActionKind,
        *,
        summary: str = "",
        error: Exception | None = None,
        message: str = "",
        result: Any = None,
        kick: tuple[Topic, ...] = (),
        money: bool = False,
    ) -> None:
        """Post the outcome of an action and poll what it changed.

        ``money``: the action moved money (an accept, a permit, a deposit, a withdrawal), so
        the portfolio summary, pools and positions refresh early (`Feed.kick_money`).
        """
        field_errors: dict[str, str] = {}
        if error is not None:
            if isinstance(error, ApiError):
                field_errors = errors_from_api(error, locate_quote_field)
                message = error.message
            else:
                message = str(error)
        ok = error is None and not message
        if self.feed is not None and kick:
            self.feed.kick(*kick)
        if self.feed is not None and money and ok:
            self.feed.kick_money()
        self.post_message(
            ActionFinished(kind, ok, summary if ok else message, field_errors, result)
        )

    @while_running
    def on_action_finished(self, message: ActionFinished) -> None:
        """Toast the outcome; put errors next to the fields or panes they belong to."""
        if message.ok:
            self.notify(message.summary, title=message.kind.value.replace("_", " "))
        else:
            self.notify(
                message.summary,
                title=f"{message.kind.value.replace('_', ' ')} failed",
                severity="error",
            )
        kind = message.kind
        if kind in (ActionKind.NEW_QUOTE, ActionKind.REPLACE_QUOTE, ActionKind.CANCEL_QUOTE):
            ticket = self.query_one(QuoteTicket)
            if message.ok:
                ticket.show_errors({})
                ticket.new_client_id()
                # Back to the inbox: the next RFQ, or g for the next action, is one key away.
                self.query_one("#inbox-table").focus()
            else:
                ticket.show_errors(message.field_errors or {FORM: message.summary})
        elif kind in (ActionKind.ACCEPT_QUOTE, ActionKind.CANCEL_RFQ):
            self.query_one(QuoteBoard).show_error("" if message.ok else message.summary)
            if message.ok and kind is ActionKind.ACCEPT_QUOTE:
                status = str(getattr(message.result, "new_clearing_status", ""))
                if status == "pending_taker_deposit_approval":
                    self.notify("approve the deposit: press g, then p", title="Your move")
        elif kind in (ActionKind.LAST_LOOK, ActionKind.APPROVE_DEPOSIT):
            self.query_one(TradeTracker).show_error("" if message.ok else message.summary)
        elif kind in (ActionKind.DEPOSIT, ActionKind.WITHDRAW, ActionKind.NEW_POOL):
            self.query_one(PoolsPane).show_error("" if message.ok else message.summary)
