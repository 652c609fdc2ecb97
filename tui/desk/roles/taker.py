"""The taker: asks for prices (a new RFQ), trades a quote that came back, or cancels the RFQ.

An accept is confirmed first with everything it commits to (side, price, quantity, notional,
premium, pool, the quote's expiry); so is a cancel. The structure builder stays open while its
RFQ is on the way: the outcome goes back to it (`ActionOutcome.form`).
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.client import ServiceClient
from tui.api.models import AcceptQuoteRequest, NewRfqRequest, TradeSide
from tui.desk.clearing import gross_notional, leg_fills
from tui.desk.messages import ActionKind, RecordIds, Topic
from tui.desk.roles.runner import ActionRunner, DeskHost, Done
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.widgets.common import fmt

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


class TakerRole:
    """New RFQs, accepts and RFQ cancels (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner) -> None:
        self.desk = desk
        self.runner = runner

    # -- a new RFQ --------------------------------------------------------------------------

    def open_builder(self) -> None:
        """Open the structure builder (once the companies to send to are known)."""
        book = self.desk.book
        companies = book.counterparties()
        if not companies:
            self.desk.notify("company list not loaded yet", severity="warning")
            self.desk.poll_soon(Topic.COMPANIES)
            return
        known = sorted(book.assets) or (
            [listing.ticker for listing in book.stats.listings] if book.stats else []
        )
        # The majors first: the builder opens on the most traded underlying.
        underlyings = sorted(
            known, key=lambda t: (t not in MAJORS, MAJORS.index(t) if t in MAJORS else 0, t)
        )
        intervals = (
            {listing.ticker: listing.funding_interval_s for listing in book.stats.listings}
            if book.stats
            else {}
        )
        self.desk.push_screen(
            NewRfqScreen(companies, underlyings or ["BTC", "ETH"], self.desk.clock, intervals)
        )

    def send_rfq(self, builder: NewRfqScreen, request: NewRfqRequest) -> None:
        """Send the builder's valid request; the builder waits for the outcome."""

        async def send(client: ServiceClient) -> Done:
            rfq = await client.rfqs_new(request)
            return Done(
                f"RFQ {fmt.short_id(rfq.rfq_id)} sent to {len(request.target_companies)} companies",
                record=rfq,
                refresh=(Topic.RFQS_SENT,),
            )

        self.runner.run(ActionKind.NEW_RFQ, send, form=builder)

    # -- trading a quote --------------------------------------------------------------------

    def accept_details(self, rfq_id: str, quote_id: str, side: TradeSide, price: Decimal) -> str:
        """What the accept confirmation says: side, price, qty, notional, pool, expiries."""
        book = self.desk.book
        rfq = book.rfqs_sent.get(rfq_id)
        quote = book.quotes_received.get(quote_id)
        qty = rfq.qty if rfq else None
        fills = leg_fills(rfq, quote, side) if rfq and quote else None
        notional = gross_notional(fills) if fills is not None else None
        premium = premium_words(side, price, qty)
        maker = book.company_name(quote.maker_company) if quote else "the maker"
        if quote is not None and quote.pool_location:
            address = book.pool_address(quote.pool_location) or "address pending"
            pool = f"{book.pool_name(quote.pool_location)} ({address})"
        elif quote is not None and quote.new_pool_name:
            pool = f"new pool '{quote.new_pool_name}' (created on acceptance)"
        else:
            pool = "as the quote specifies"
        side_word = "BUY" if side is TradeSide.BUY else "SELL"
        tone = "$bid" if side is TradeSide.BUY else "$ask"
        structure = fmt.structure_text(rfq.structure) if rfq else ""
        now = self.desk.clock()
        expiry = (
            f"quote expires in {fmt.countdown(quote.expires_at, now)}" if quote is not None else ""
        )
        which = "ask" if side is TradeSide.BUY else "bid"
        return (
            f"[b {tone}]{side_word}[/] {fmt.qty(qty)} x {structure}\n"
            f"price     [b]{fmt.price(price)}[/b]  "
            f"({which} of {maker}, quote {fmt.short_id(quote_id)})\n"
            f"notional  [b]{fmt.money(notional)}[/b] USDC  (Σ |leg qty x leg price|)\n"
            f"premium   {premium}\n"
            f"pool      {pool}\n"
            f"{expiry}"
        )

    def accept(self, rfq_id: str, quote_id: str, side: TradeSide, price: Decimal) -> None:
        """Confirm, then buy at the quote's ask or sell at its bid."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.accept_now(rfq_id, quote_id, side)

        details = self.accept_details(rfq_id, quote_id, side, price)
        self.desk.push_screen(
            ConfirmScreen("Accept quote?", details, confirm_label="Trade"), answered
        )

    def accept_now(self, rfq_id: str, quote_id: str, side: TradeSide) -> None:
        """Accept without asking (the confirmation said yes)."""

        async def accept(client: ServiceClient) -> Done:
            response = await client.quotes_accept(
                AcceptQuoteRequest(parent_quote_id=quote_id, rfq_id=rfq_id, side=side)
            )
            return Done(
                f"accepted: {fmt.status_words(response.new_clearing_status)}",
                record=response,
                refresh=(Topic.QUOTES_RECEIVED, Topic.RFQS_SENT, Topic.POOLS, Topic.TRADES),
                money=True,
            )

        self.runner.run(
            ActionKind.ACCEPT_QUOTE,
            accept,
            ids=RecordIds(rfq_id=rfq_id, quote_id=quote_id),
            refresh_on_error=(Topic.RFQS_SENT, Topic.QUOTES_RECEIVED),
        )

    # -- cancelling my RFQ ------------------------------------------------------------------

    def cancel_rfq(self, rfq_id: str) -> None:
        """Confirm, then stop the RFQ taking quotes."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.cancel_rfq_now(rfq_id)

        self.desk.push_screen(
            ConfirmScreen(
                "Cancel RFQ?",
                f"RFQ {fmt.short_id(rfq_id)} will stop taking quotes.",
                confirm_label="Cancel RFQ",
                danger=True,
            ),
            answered,
        )

    def cancel_rfq_now(self, rfq_id: str) -> None:
        """Cancel without asking (the confirmation said yes)."""

        async def cancel(client: ServiceClient) -> Done:
            await client.rfqs_cancel(rfq_id)
            return Done(f"RFQ {fmt.short_id(rfq_id)} cancelled", refresh=(Topic.RFQS_SENT,))

        self.runner.run(ActionKind.CANCEL_RFQ, cancel, ids=RecordIds(rfq_id=rfq_id))
