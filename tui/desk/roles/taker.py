"""The taker: asks for prices (a new RFQ), trades a quote that came back, or cancels the RFQ.

An accept is confirmed first with everything it commits to (the exact quote: maker, price and
age; side, quantity, notional, premium, pool, the quote's expiry), and on ``y`` the quote is
looked at again on the venue: replaced, pulled or expired meanwhile, nothing is sent and the
dialog says what changed. An accept further from fair value than the guardrails allow, or
over the notional limit, is asked a second time, saying why (`tui.desk.roles.guard`), and its
``s`` looks at the quote again just the same: newer terms are shown, then asked about. A cancel
is confirmed too. The structure builder opens empty (``n``) or prefilled with the legs that
offset a position (`TakerRole.offset`); it stays open while its RFQ is on the way: the outcome
goes back to it (`ActionOutcome.form`). What an accept commits to, in words, is
`tui.desk.roles.accept_terms`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from tui.api.client import ServiceClient
from tui.api.lifecycle import QuoteState
from tui.api.models import RFQ, AcceptQuoteRequest, Leg, NewRfqRequest, Quote, TradeSide
from tui.api.writes import Intent, WriteKind
from tui.desk.analytics.history import quote_seen_at
from tui.desk.builder.draft import StructureDraft, offset_draft
from tui.desk.clearing import quote_is_open
from tui.desk.messages import ActionKind, RecordIds, Topic
from tui.desk.roles.accept_terms import (
    AcceptTerms,
    accept_words,
    my_trade_clearing,
    quote_expired,
    quote_state,
)
from tui.desk.roles.accept_terms import you_trade as you_trade  # the old import path
from tui.desk.roles.guard import LookAgain, accept_reasons, ask_again, guardrail_settings
from tui.desk.roles.runner import ActionRunner, DeskHost, Done
from tui.desk.screens.accept_quote import AcceptQuoteScreen
from tui.desk.screens.confirm import ConfirmScreen, Recheck
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.widgets.common import fmt


class TakerRole:
    """New RFQs, accepts and RFQ cancels (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner) -> None:
        self.desk = desk
        self.runner = runner
        self._fresh: dict[str, Quote] = {}
        self._kept_draft: StructureDraft | None = None
        """What the trader typed into the builder and backed out of (None: nothing)."""

    # -- a new RFQ --------------------------------------------------------------------------

    def open_builder(self, prefill: StructureDraft | None = None) -> None:
        """Open the structure builder (once the companies to send to are known): filled with
        ``prefill``, else with the draft the trader backed out of last, else empty. Backing
        out keeps what was typed for the next time; a sent RFQ leaves nothing to keep."""
        book = self.desk.book
        if not book.counterparties():
            self.desk.notify("company list not loaded yet", severity="warning")
            self.desk.poll_soon(Topic.COMPANIES)
            return
        kept = self._kept_draft if prefill is None else None
        builder = NewRfqScreen.from_book(
            book,
            self.desk.clock,
            self._data_folder(),
            prefill=prefill or kept,
            guardrails=guardrail_settings(self.desk),
            kept=kept is not None,
        )

        def closed(rfq: RFQ | None) -> None:
            self._kept_draft = builder.left_draft if rfq is None else None

        self.desk.push_screen(builder, closed)

    def offset(
        self, legs: Iterable[Leg], qty: Decimal, counterparty: str | None, pool_id: str | None
    ) -> None:
        """The builder filled with the RFQ that closes or reduces a position: ``legs`` (the
        trades that close it: the position's, sides turned; the builder shows the structure
        as held and says which way to trade it, `offset_draft`), ``qty``, asked of
        ``counterparty`` (None: the builder's own choice, the market makers). An RFQ cannot
        name a pool: the toast says which pool the position is in, for the trader to pick
        the quote that clears there."""
        targets = [counterparty] if counterparty else None
        self.open_builder(offset_draft(legs, qty, targets))
        if pool_id is not None and self.desk.book.counterparties():
            self.desk.notify(f"offsetting the position in {self.desk.book.pool_name(pool_id)}")

    def _data_folder(self) -> Path | None:
        """Where the builder keeps templates and the last RFQ: the desk's data folder (beside
        its exports); None keeps them in memory (a host without one)."""
        exports = getattr(self.desk, "export_dir", None)
        return exports.parent if isinstance(exports, Path) else None

    def send_rfq(self, builder: NewRfqScreen, request: NewRfqRequest) -> None:
        """Send the builder's valid request; the builder waits for the outcome."""

        async def send(_client: ServiceClient) -> Done:
            rfq: RFQ = await self.runner.send(Intent.of(WriteKind.RFQ, request))
            self._kept_draft = None  # sent: even a builder backed out of meanwhile is done
            count = len(request.target_companies)
            return Done(
                f"RFQ {fmt.short_id(rfq.rfq_id)} sent to {count}"
                f" {'company' if count == 1 else 'companies'}",
                record=rfq,
                refresh=(Topic.RFQS_SENT,),
            )

        self.runner.run(ActionKind.NEW_RFQ, send, form=builder)

    # -- trading a quote --------------------------------------------------------------------

    def terms_of(self, rfq_id: str, quote_id: str, side: TradeSide, price: Decimal) -> AcceptTerms:
        """The terms of an accept of the quote the trader picked, as the desk knows it now."""
        quote = self._quote(quote_id)
        meta = {}
        rfq = self.desk.book.rfqs_sent.get(rfq_id)
        if rfq is not None:
            meta = rfq.quotes_common_metadata.get(quote_id, {})
        return AcceptTerms(
            rfq_id=rfq_id,
            quote_id=quote_id,
            side=side,
            price=price,
            maker=quote.maker_company if quote else meta.get("maker_company"),
            expires_at=quote.expires_at if quote else None,
            quoted_at=quote_seen_at(quote) if quote else None,
        )

    def accept_details(self, terms: AcceptTerms) -> str:
        """What the accept confirmation says (`accept_words`), as the desk knows it now."""
        book = self.desk.book
        rfq = book.rfqs_sent.get(terms.rfq_id)
        terms = self.known_terms(terms)
        return accept_words(book, terms, rfq, self._quote(terms.quote_id), self.desk.clock())

    def known_terms(self, terms: AcceptTerms) -> AcceptTerms:
        """``terms`` with the quote's expiry and age once the desk has its record (a quote
        first seen on the RFQ alone has neither: they come with the next poll)."""
        quote = self._quote(terms.quote_id)
        if terms.expires_at is not None or quote is None:
            return terms
        return replace(terms, expires_at=quote.expires_at, quoted_at=quote_seen_at(quote))

    def quote_expired(self, terms: AcceptTerms) -> bool:
        """Whether the quote of ``terms`` is past its expiry by the desk's clock."""
        return quote_expired(self.known_terms(terms), self.desk.clock())

    def accept(self, rfq_id: str, quote_id: str, side: TradeSide, price: Decimal) -> None:
        """Confirm, look at the venue again on ``y``, then buy at the ask or sell at the bid.

        Not offered at all while another of my trades on the RFQ is clearing: the venue would
        refuse it.
        """
        why = self.cannot_accept(rfq_id)
        if why:
            self.desk.notify(why, title="Not offered", severity="warning")
            return
        screen = AcceptQuoteScreen(
            self.terms_of(rfq_id, quote_id, side, price),
            self.accept_details,
            self.recheck,
            self.quote_expired,
        )

        def answered(yes: bool | None) -> None:
            terms = screen.terms
            if yes and terms is not None:
                self.accept_checked(terms)

        self.desk.push_screen(screen, answered)

    def accept_checked(self, terms: AcceptTerms) -> None:
        """The confirmed accept through the guardrails: at once when within them, else only
        after a second confirmation that says why."""
        book = self.desk.book
        rfq = book.rfqs_sent.get(terms.rfq_id)
        settings = guardrail_settings(self.desk)
        quote = self._quote(terms.quote_id)
        found = (
            accept_reasons(book, rfq, quote, terms.side, terms.price, settings, self.desk.clock())
            if rfq is not None
            else []
        )
        side = "BUY" if terms.side is TradeSide.BUY else "SELL"

        def dialog(title: str, body: str) -> AcceptQuoteScreen:
            return AcceptQuoteScreen(
                terms,
                self.accept_details,
                self.recheck,
                self.quote_expired,
                title=title,
                body=body,
                second_question=True,
            )

        ask_again(
            self.desk,
            f"{side} at {fmt.exact(terms.price)} (quote {fmt.short_id(terms.quote_id)})",
            found,
            lambda: self.accept_now(terms.rfq_id, terms.quote_id, terms.side),
            LookAgain(terms, dialog, self.accept_checked),
        )

    def cannot_accept(self, rfq_id: str) -> str:
        """Why no quote of this RFQ can be accepted now (empty: it can)."""
        why = my_trade_clearing(self.desk.book, rfq_id, " on this RFQ")
        return f"{why}: no other quote can be taken until it ends" if why else ""

    async def recheck(self, terms: AcceptTerms) -> Recheck[AcceptTerms]:
        """The quote as the venue has it now: unchanged, or what changed (and the new terms).

        Run on ``y``: a quote can be replaced, pulled or expire between the key and the ``y``,
        and an accept names only the quote, not its price.
        """
        found = await self._fetch(terms.quote_id)
        change = self._compare(terms, found)
        if change.changed:
            self.desk.poll_soon(Topic.QUOTES_RECEIVED, Topic.RFQS_SENT)
        if change.changed and found is not None and quote_state(found) == QuoteState.REPLACED:
            newer_id = (found.model_extra or {}).get("replaced_by")
            newer = await self._fetch(str(newer_id)) if newer_id else None
            return self._replacement(terms, newer, change.changed)
        return change

    async def _fetch(self, quote_id: str) -> Quote | None:
        client = self.runner.client()
        page = await client.quotes_received(id=quote_id)
        for record in page.result:
            if record.parent_quote_id == quote_id:
                self._fresh[quote_id] = record
                return record
        return None

    def _compare(self, terms: AcceptTerms, found: Quote | None) -> Recheck[AcceptTerms]:
        book = self.desk.book
        maker = book.company_name(terms.maker) if terms.maker else "the maker"
        which = "ask" if terms.side is TradeSide.BUY else "bid"
        if found is None:
            return Recheck(f"{maker}'s quote is gone from the venue")
        state = quote_state(found)
        if state == QuoteState.REPLACED:
            return Recheck(f"{maker} replaced the quote")
        if state == QuoteState.CANCELED:
            return Recheck(f"{maker} pulled the quote")
        if state == QuoteState.EXPIRED or found.expires_at <= self.desk.clock():
            return Recheck(f"{maker}'s quote expired")
        if state == QuoteState.VOID:
            return Recheck("the RFQ closed: the quote is void")
        if found.clearing_status is not None or state not in (None, QuoteState.OPEN):
            return Recheck(f"the quote is already taken ({state or found.clearing_status})")
        why = self.cannot_accept(terms.rfq_id)
        if why:
            return Recheck(why)
        price = found.aggregated_ask if terms.side is TradeSide.BUY else found.aggregated_bid
        if price is None:
            return Recheck(f"{maker}'s quote has no {which} any more")
        if price != terms.price:
            offer = self.terms_of(terms.rfq_id, terms.quote_id, terms.side, price)
            return Recheck(
                f"{maker}'s {which} moved: {fmt.exact(terms.price)} → {fmt.exact(price)}", offer
            )
        return Recheck()

    def _replacement(
        self, terms: AcceptTerms, newer: Quote | None, changed: str
    ) -> Recheck[AcceptTerms]:
        which = "ask" if terms.side is TradeSide.BUY else "bid"
        if newer is None or not quote_is_open(newer, self.desk.clock()):
            return Recheck(f"{changed}, and the new quote is no longer open")
        price = newer.aggregated_ask if terms.side is TradeSide.BUY else newer.aggregated_bid
        if price is None:
            return Recheck(f"{changed} with one that has no {which}")
        offer = self.terms_of(terms.rfq_id, newer.parent_quote_id, terms.side, price)
        return Recheck(f"{changed}: {which} {fmt.exact(terms.price)} → {fmt.exact(price)}", offer)

    def _quote(self, quote_id: str) -> Quote | None:
        """The newest record of a quote: polled, or fetched by a re-check."""
        return self.desk.book.quotes_received.get(quote_id) or self._fresh.get(quote_id)

    def accept_now(self, rfq_id: str, quote_id: str, side: TradeSide) -> None:
        """Accept without asking (the confirmation said yes)."""

        async def accept(_client: ServiceClient) -> Done:
            request = AcceptQuoteRequest(parent_quote_id=quote_id, rfq_id=rfq_id, side=side)
            response = await self.runner.send(Intent.of(WriteKind.ACCEPT, request))
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
            side=side.value,
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

        async def cancel(_client: ServiceClient) -> Done:
            await self.runner.send(Intent.of(WriteKind.CANCEL_RFQ, id=rfq_id))
            return Done(f"RFQ {fmt.short_id(rfq_id)} cancelled", refresh=(Topic.RFQS_SENT,))

        self.runner.run(ActionKind.CANCEL_RFQ, cancel, ids=RecordIds(rfq_id=rfq_id))
