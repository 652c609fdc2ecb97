"""The maker: sends, replaces and pulls quotes on received RFQs, and answers a last look.

The ticket validates a quote before it asks; a quote within the guardrails goes at once (it
can be pulled at once). One further than the guardrails allow from the RFQ's fair value, or
over the notional limit, is asked again first, saying why (`tui.desk.roles.guard`). The
answer to a last look says what the maker's permit must allow, which the book keeps for the
deposit approval that may follow.
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
from tui.desk.messages import ActionKind, RecordIds, Topic
from tui.desk.roles.guard import ask_again, guardrail_settings, quote_reasons
from tui.desk.roles.runner import ActionRunner, DeskHost, Done
from tui.desk.widgets.common import fmt


class MakerRole:
    """Quotes and last looks (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner) -> None:
        self.desk = desk
        self.runner = runner

    def send_quote(self, request: NewQuoteRequest, replaces: str | None = None) -> None:
        """Send a new quote, or replace the live quote ``replaces`` with it; past the
        guardrails, only once the trader said yes to a second confirmation naming why."""
        rfq = self.desk.book.rfqs_received.get(request.rfq_id)
        settings = guardrail_settings(self.desk)
        found = quote_reasons(self.desk.book, rfq, request, settings) if rfq else []
        word = "replace quote" if replaces else "quote"
        ask_again(
            self.desk,
            f"{word} on RFQ {fmt.short_id(request.rfq_id)}",
            found,
            lambda: self.send_quote_now(request, replaces),
        )

    def send_quote_now(self, request: NewQuoteRequest, replaces: str | None = None) -> None:
        """Send (or replace) without asking: within the guardrails, or the trader said yes."""
        kind = ActionKind.REPLACE_QUOTE if replaces else ActionKind.NEW_QUOTE

        async def send(_client: ServiceClient) -> Done:
            if replaces is None:
                intent = Intent.of(WriteKind.QUOTE, request)
            else:
                replace = ReplaceQuoteRequest(**request.model_dump(), parent_quote_id=replaces)
                intent = Intent.of(WriteKind.REPLACE_QUOTE, replace)
            quote: Quote = await self.runner.send(intent)
            word = "replaced" if replaces else "sent"
            return Done(
                f"quote {fmt.short_id(quote.parent_quote_id)} {word}: "
                f"bid {fmt.exact(quote.aggregated_bid)} ask {fmt.exact(quote.aggregated_ask)}",
                record=quote,
                refresh=(Topic.QUOTES_SENT, Topic.RFQS_RECEIVED),
            )

        self.runner.run(kind, send, ids=RecordIds(rfq_id=request.rfq_id, quote_id=replaces))

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
