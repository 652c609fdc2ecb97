"""The pools and safety roles against a fake client: money forms, permits, kill switch, export.

As in `test_desk_roles`: a small host app, a fake client answering from a table, and the one
`ActionOutcome` each action ends in.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

from textual.widgets import Input

from tests.desk.kit.fakes import WALLET_KEY, permit_template, session, settle
from tests.desk.kit.journaled import JournaledHost as RoleHost
from tests.desk.kit.journaled import WritingClient as FakeClient
from tests.desk.kit.records import (
    ME,
    OLD_RFQ,
    OTHER,
    POOL_ADDRESS,
    POOL_ID,
    QUOTE_ID,
    RFQ_ID,
    pools_book,
    rfq,
    taker_book,
    transfer,
    waiting_trade,
)
from tui.api.errors import Conflict, ServerError
from tui.api.models import RFQ, NewTransferRequest, Page, Quote, SubmitPermitRequest, TransferType
from tui.api.permits import wallet_address
from tui.desk.book import DeskBook
from tui.desk.clearing import Role
from tui.desk.messages import ActionKind, KillReport, RecordIds, Topic
from tui.desk.pool_facts import DepositHint
from tui.desk.roles.pools import MONEY_MOVES
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.screens.permit import PermitScreen

SIZE = (100, 40)
BROKEN = "44444444-4444-4444-8444-444444444444"


# -- pools ----------------------------------------------------------------------------------


async def test_a_withdrawal_asks_the_amount_then_moves_it() -> None:
    client = FakeClient(transfers_new=transfer(TransferType.WITHDRAWAL))
    host = RoleHost(client, book=pools_book(), connection=session())
    async with host.run_test(size=SIZE) as pilot:
        assert host.pools.withdraw("not-a-pool") == "pool data not available yet"
        assert host.pools.withdraw(POOL_ID) == ""
        await pilot.pause()
        form = host.screen
        assert isinstance(form, PermitScreen) and form.form.maximum == Decimal(1000)
        form.query_one("#amount", Input).value = "400"
        await pilot.press("ctrl+s")
        await settle(host, pilot)

    ((name, body),) = client.calls
    assert name == "transfers_new" and isinstance(body, NewTransferRequest)
    assert (body.qty, body.transfer_type, body.counterparty) == (
        Decimal(400),
        TransferType.WITHDRAWAL,
        OTHER,
    )
    (outcome,) = host.outcomes
    assert outcome.kind is ActionKind.WITHDRAW and outcome.ok and outcome.money
    assert outcome.ids.pool_id == POOL_ID and outcome.refresh == MONEY_MOVES
    assert outcome.summary == "withdrawal of 400.00 USDC pending"


async def test_a_deposit_signs_a_permit_with_the_wallet_then_asks_for_the_transfer() -> None:
    owner = wallet_address(WALLET_KEY)
    client = FakeClient(
        transfers_permit_template=permit_template(owner, POOL_ADDRESS, 250_000_000),
        transfers_permit=True,
        transfers_new=transfer(TransferType.DEPOSIT),
    )
    host = RoleHost(client, book=pools_book(), connection=session())
    async with host.run_test(size=SIZE) as pilot:
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await settle(host, pilot)

    assert client.names == ["transfers_permit_template", "transfers_permit", "transfers_new"]
    template = client.calls[0][1]
    assert template.pool_address == POOL_ADDRESS and template.allowance.value == Decimal(250)
    signed = client.calls[1][1]
    assert isinstance(signed, SubmitPermitRequest) and signed.signature.startswith("0x")
    assert client.calls[2][1].transfer_type == TransferType.DEPOSIT
    (outcome,) = host.outcomes
    assert outcome.ok and outcome.money and outcome.kind is ActionKind.DEPOSIT


async def test_no_wallet_and_a_permit_not_taken_are_outcomes_in_words() -> None:
    template = permit_template(wallet_address(WALLET_KEY), POOL_ADDRESS, 10_000_000)
    client = FakeClient(transfers_permit_template=template)
    book = pools_book()
    book.deposit_hints[QUOTE_ID] = DepositHint(Decimal(10), None)  # what the venue asks
    host = RoleHost(client, book=book, connection=session(wallet_key=None))
    trade = waiting_trade("pending_taker_deposit_approval", Role.TAKER)
    client.answers["quotes_received"] = Page[Quote](result=[trade.quote])  # still waits
    async with host.run_test(size=SIZE) as pilot:
        host.pools.approve_now(trade, POOL_ADDRESS, Decimal(10))
        await settle(host, pilot)
        host.connection = session()
        client.answers["transfers_permit"] = False
        host.pools.approve_now(trade, POOL_ADDRESS, Decimal(10))
        await settle(host, pilot)

    no_wallet, not_taken = host.outcomes
    assert no_wallet.problem == "no wallet configured for this profile (keystore)"
    assert no_wallet.error is None and not no_wallet.crashed
    assert not_taken.problem == "the venue did not take the permit" and not not_taken.money
    assert not_taken.ids == RecordIds(RFQ_ID, QUOTE_ID, POOL_ID)
    # The trade is read again before signing: it still waits for the deposit.
    # the trade read before signing and again before sending
    assert client.names == [
        "quotes_received",
        "transfers_permit_template",
        "quotes_received",
        "transfers_permit",
    ]


async def test_a_deposit_approval_asks_for_what_the_venue_said() -> None:
    book = pools_book()
    trade = waiting_trade("pending_taker_deposit_approval", Role.TAKER)
    book.deposit_hints[QUOTE_ID] = DepositHint(Decimal(75), None)
    host = RoleHost(FakeClient(), book=book, connection=session())
    async with host.run_test(size=SIZE) as pilot:
        host.pools.approve_deposit(trade)
        await pilot.pause()
        form = host.screen
        assert isinstance(form, PermitScreen)
        assert form.form.amount == Decimal(75) and form.form.pool_address == POOL_ADDRESS
        assert form.form.pool_name == "DESK-EMBR"
    assert host.polled == []  # the pool's address is known: no need to poll for it


async def test_a_new_pool_needs_the_company_list_first() -> None:
    host = RoleHost(FakeClient(), book=DeskBook(me=ME))
    async with host.run_test(size=SIZE):
        assert host.pools.create_pool() == "company list not loaded yet"


# -- safety ---------------------------------------------------------------------------------


async def test_the_kill_switch_pulls_everything_and_says_what_failed() -> None:
    def cancel(rfq_id: str) -> bool:
        if rfq_id == OLD_RFQ:
            raise Conflict("already closed", status=409)
        if rfq_id == BROKEN:
            raise ServerError("database down", status=500)
        return True

    book = taker_book()
    book.rfqs_sent[OLD_RFQ] = rfq(OLD_RFQ)
    client = FakeClient(
        quotes_cancel_all=True,
        rfqs_sent=[rfq(RFQ_ID), rfq("closed", status="closed")],
        rfqs_cancel=cancel,
    )
    host = RoleHost(client, book=book)
    async with host.run_test(size=SIZE) as pilot:
        host.safety.kill_switch()
        await pilot.pause()
        confirm = host.screen
        assert isinstance(confirm, ConfirmScreen) and "(2 known)" in confirm.body
        host.safety.kill_switch()  # a second ctrl+k while asking: still one question
        await pilot.pause()
        await pilot.press("y")
        await settle(host, pilot)
        # Read as a list when paged, as a page when asked by id (the lost cancel's resolution).
        still_open = [rfq(BROKEN)]
        client.answers["rfqs_sent"] = lambda asked: (
            still_open if isinstance(asked, dict) else Page[RFQ](result=still_open)
        )
        host.safety.kill_now([])
        await settle(host, pilot)

    assert client.names[:4] == [
        "quotes_cancel_all",
        "iterate rfqs_sent",
        "rfqs_cancel",
        "rfqs_cancel",
    ]
    clean, partial = host.outcomes
    assert clean.kind is ActionKind.KILL_SWITCH and clean.ok
    assert isinstance(clean.record, KillReport) and clean.record.rfqs_cancelled == [RFQ_ID]
    assert clean.summary == "all quotes pulled; 1 RFQ(s) cancelled"
    assert clean.refresh == (Topic.QUOTES_SENT, Topic.RFQS_SENT, Topic.RFQS_RECEIVED)
    # Partly done is not ok, and still refreshes what it touched.
    assert not partial.ok and partial.refresh == clean.refresh
    # Issue 10: a 500 after the cancel left is a lost answer, resolved by reading, never by
    # sending again: the RFQ is still open once the cancel can no longer land.
    assert partial.problem == (
        "all quotes pulled; 0 RFQ(s) cancelled; failed: RFQ 44444444: its answer was lost; "
        "the venue shows it did not land: safe to send again"
    )
    assert client.names.count("rfqs_cancel") == 3


async def test_a_second_kill_switch_replaces_one_still_running() -> None:
    venue_answers = asyncio.Event()

    async def slow_cancel_all() -> bool:
        await venue_answers.wait()
        return True

    client = FakeClient(quotes_cancel_all=lambda _: slow_cancel_all(), rfqs_sent=[])
    host = RoleHost(client)
    async with host.run_test(size=SIZE) as pilot:
        host.safety.kill_now([])
        await pilot.pause()
        host.safety.kill_now([])  # the first is still waiting for the venue
        await pilot.pause()
        venue_answers.set()
        await settle(host, pilot)
    (outcome,) = host.outcomes
    assert outcome.ok and outcome.kind is ActionKind.KILL_SWITCH
    assert client.names.count("quotes_cancel_all") == 2


async def test_the_kill_switch_needs_a_connection() -> None:
    host = RoleHost(None)
    async with host.run_test(size=SIZE) as pilot:
        host.safety.kill_switch()
        await pilot.pause()
        assert not isinstance(host.screen, ConfirmScreen)
        assert [n.message for n in host._notifications] == ["not connected"]


def written_names(paths: Any) -> list[str]:
    """What each written file holds, from its name (``trades-<pool>-<time>.csv``)."""
    assert all(Path(path).is_file() for path in paths)
    return [Path(path).name.split("-DESK-EMBR-")[0] for path in paths]


async def test_an_export_writes_the_view_or_says_why_not(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    host = RoleHost(None, book=pools_book(), export_dir=tmp_path / "exports")
    async with host.run_test(size=SIZE) as pilot:
        host.safety.export(POOL_ID)
        await settle(host, pilot)
        host.safety.export_dir = blocked
        host.safety.export()
        await settle(host, pilot)
    written, failed = host.outcomes
    assert written.ok and written.ids.pool_id == POOL_ID
    assert written_names(written.record) == ["trades", "transfers"]
    assert written.summary.startswith("0 trades → ")
    assert not failed.ok and failed.problem.startswith("export failed: ")
