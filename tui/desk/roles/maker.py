"""The maker: sends, replaces and pulls quotes on received RFQs, and answers a last look.

The ticket validates a quote before it asks; a quote within the guardrails goes at once (it can
be pulled at once). A maker has one live quote per RFQ: a quote sent where mine is live
replaces it (the ticket shows the one live quote; two would leave one unseen and unpulled). One
further than the guardrails allow from the RFQ's fair value, or over the notional limit, is
asked again first, saying why (`tui.desk.roles.guard`). The answer to a last look says what the
maker's permit must allow, which the book keeps for the deposit approval that may follow.
"""

from __future__ import annotations

from tui.api.client import ServiceClient
from tui.api.models import (
    MakerLastLookRequest,
    NewQuoteRequest,
    Quote,
    ReplaceQuoteRequest,
    RequestAction,
)
from tui.api.writes import Intent, WriteKind
from tui.desk.clearing import TrackedTrade
from tui.desk.messages import ActionKind, ActionOutcome, RecordIds, Topic
from tui.desk.roles.guard import ask_again, guardrail_settings, quote_reasons
from tui.desk.roles.runner import ActionRunner, DeskHost, Done
from tui.desk.widgets.common import fmt


class MakerRole:
    """Quotes and last looks (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner) -> None:
        self.desk = desk
        self.runner = runner
        self._on_the_way: set[str] = set()
        """RFQs with a quote (or replace) of mine sent and not yet answered."""

    def send_quote(self, request: NewQuoteRequest, replaces: str | None = None) -> None:
        """Send a new quote, or replace the live quote ``replaces`` with it (a new quote on an
        RFQ where mine is live replaces that one: `live_quote`); past the guardrails, only once
        the trader said yes to a second confirmation naming why."""
        rfq = self.desk.book.rfqs_received.get(request.rfq_id)
        settings = guardrail_settings(self.desk)
        found = (
            quote_reasons(self.desk.book, rfq, request, settings, self.desk.clock()) if rfq else []
        )
        live = replaces or self.live_quote(request.rfq_id)
        word = f"replace quote {fmt.short_id(live)}" if live else "quote"
        ask_again(
            self.desk,
            f"{word} on RFQ {fmt.short_id(request.rfq_id)}",
            found,
            lambda: self.send_quote_now(request, replaces),
        )

    def live_quote(self, rfq_id: str) -> str | None:
        """My live quote on ``rfq_id`` as the desk knows it now (a quote lands in the book with
        the answer to its send), or None."""
        live = self.desk.book.live_quote_on(rfq_id, self.desk.clock())
        return live.parent_quote_id if live is not None else None

    def send_quote_now(self, request: NewQuoteRequest, replaces: str | None = None) -> None:
        """Send (or replace) without asking: within the guardrails, or the trader said yes.

        Decided as it goes, not when the key was pressed: my quote live on the RFQ by then is
        replaced, never joined by a second one; while one is still on its way there (until its
        outcome is in the book: `filed`), nothing is sent (which one is live is known only
        once it lands), and the trader is told so."""
        rfq_id = request.rfq_id
        if rfq_id in self._on_the_way:
            self.desk.notify(
                f"quote on RFQ {fmt.short_id(rfq_id)} still on its way: nothing sent; "
                "once it lands, ctrl+s replaces it",
                title="Quote",
                severity="warning",
            )
            return
        replaces = replaces or self.live_quote(rfq_id)
        kind = ActionKind.REPLACE_QUOTE if replaces else ActionKind.NEW_QUOTE

        # A local action: the client is taken inside `runner.send`, so every way this ends
        # (not connected, a refusal, a crash) has an outcome, and `filed` clears the guard.
        async def send() -> Done:
            if replaces is None:
                intent = Intent.of(WriteKind.QUOTE, request)
            else:
                replace = ReplaceQuoteRequest(**request.model_dump(), parent_quote_id=replaces)
                intent = Intent.of(WriteKind.REPLACE_QUOTE, replace)
            quote: Quote = await self.runner.send(intent)
            word = f"replaced {fmt.short_id(replaces)}" if replaces else "sent"
            return Done(
                f"quote {fmt.short_id(quote.parent_quote_id)} {word}: "
                f"bid {fmt.exact(quote.aggregated_bid)} ask {fmt.exact(quote.aggregated_ask)}",
                record=quote,
                refresh=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED),
            )

        self._on_the_way.add(rfq_id)
        self.runner.run_local(kind, send, ids=RecordIds(rfq_id=rfq_id, quote_id=replaces))

    def filed(self, outcome: ActionOutcome) -> None:
        """An action's outcome is in the book: a quote sent on its RFQ is no longer on its way.

        Cleared only now, not when the venue answered, so a ctrl+s queued behind the send sees
        the quote it must replace instead of sending a second one."""
        if outcome.kind in _QUOTE_SENDS and outcome.ids.rfq_id:
            self._on_the_way.discard(outcome.ids.rfq_id)

    def pull_quote(self, quote_id: str) -> None:
        """Cancel a live quote."""

        async def pull(_client: ServiceClient) -> Done:
            await self.runner.send(Intent.of(WriteKind.CANCEL_QUOTE, id=quote_id))
            return Done(
                f"quote {fmt.short_id(quote_id)} pulled",
                refresh=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED),
            )

        self.runner.run(ActionKind.CANCEL_QUOTE, pull, ids=RecordIds(quote_id=quote_id))

    def last_look(self, trade: TrackedTrade, action: RequestAction) -> None:
        """The maker's final accept or reject of a trade on one of its quotes."""
        quote = trade.quote

        async def answer(_client: ServiceClient) -> Done:
            request = MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id, rfq_id=quote.target_rfq_id, action=action
            )
            response = await self.runner.send(Intent.of(WriteKind.LAST_LOOK, request))
            return Done(
                f"last look {action.value}: {fmt.status_words(response.new_clearing_status)}",
                record=response,
                refresh=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED, Topic.TRADES, Topic.POOLS),
                money=action is RequestAction.ACCEPT,
            )

        self.runner.run(
            ActionKind.LAST_LOOK,
            answer,
            ids=RecordIds(rfq_id=quote.target_rfq_id, quote_id=quote.parent_quote_id),
            refresh_on_error=(Topic.QUOTES_SENT,),
        )


_QUOTE_SENDS = (ActionKind.NEW_QUOTE, ActionKind.REPLACE_QUOTE)
"""The outcomes of a quote's send, which end its time on the way."""
