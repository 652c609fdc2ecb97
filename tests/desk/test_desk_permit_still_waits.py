"""A trade's deposit permit is signed only while the venue says the trade still waits for it
(the permit form, like every confirmation, is bound to a record that may change under it: a
trade rejected between the ``p`` and the ``ctrl+s`` gets no permit)."""

from __future__ import annotations

from decimal import Decimal

from tests.desk.kit.fakes import WALLET_KEY, permit_template, session, settle
from tests.desk.kit.journaled import JournaledHost, WritingClient
from tests.desk.kit.records import POOL_ADDRESS, QUOTE_ID, pools_book, quote, waiting_trade
from tui.api.models import Page, Quote
from tui.api.permits import wallet_address
from tui.desk.clearing import Role
from tui.desk.pool_facts import DepositHint

SIZE = (100, 40)
REJECTED = "rejected_failed_taker_deposit_timeout"


async def test_no_permit_for_a_trade_rejected_since_the_key() -> None:
    template = permit_template(wallet_address(WALLET_KEY), POOL_ADDRESS, 10_000_000)
    client = WritingClient(transfers_permit_template=template)
    book = pools_book()
    book.deposit_hints[QUOTE_ID] = DepositHint(Decimal(10), None)
    host = JournaledHost(client, book=book, connection=session())
    trade = waiting_trade("pending_taker_deposit_approval", Role.TAKER)  # as the p saw it
    gone = quote(clearing_status=REJECTED, pool_location=trade.quote.pool_location)
    client.answers["quotes_received"] = Page[Quote](result=[gone])  # as the venue has it now
    async with host.run_test(size=SIZE) as pilot:
        host.pools.approve_now(trade, POOL_ADDRESS, Decimal(10))
        await settle(host, pilot)
    (outcome,) = host.outcomes
    assert outcome.problem.startswith("not signed: the trade no longer waits for your deposit")
    assert client.names == ["quotes_received"]  # no template asked, nothing signed or sent


async def test_no_permit_sent_for_a_trade_rejected_while_it_was_signed() -> None:
    template = permit_template(wallet_address(WALLET_KEY), POOL_ADDRESS, 10_000_000)
    client = WritingClient(transfers_permit_template=template, transfers_permit=True)
    book = pools_book()
    book.deposit_hints[QUOTE_ID] = DepositHint(Decimal(10), None)
    host = JournaledHost(client, book=book, connection=session())
    trade = waiting_trade("pending_taker_deposit_approval", Role.TAKER)
    waits = quote(clearing_status=trade.status, pool_location=trade.quote.pool_location)
    gone = quote(clearing_status=REJECTED, pool_location=trade.quote.pool_location)
    # The venue's word before the wallet signs, then after (a passphrase can take a while).
    said = iter([waits, gone])
    client.answers["quotes_received"] = lambda _argument: Page[Quote](result=[next(said)])
    async with host.run_test(size=SIZE) as pilot:
        host.pools.approve_now(trade, POOL_ADDRESS, Decimal(10))
        await settle(host, pilot)
    (outcome,) = host.outcomes
    assert outcome.problem.startswith("not signed: the trade no longer waits for your deposit")
    assert "transfers_permit" not in client.names, "signed, but never sent"
