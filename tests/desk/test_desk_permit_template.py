"""The venue's permit template is signed only when it says the amount typed, for the pool.

A venue (or a man in the middle) answering the template request with a larger value, or
another spender, gets nothing signed and nothing submitted; a trade's approval with no ask
from the venue is not signed either.
"""

from __future__ import annotations

from decimal import Decimal

from tests.desk.kit.fakes import WALLET_KEY, permit_template, session, settle
from tests.desk.kit.journaled import JournaledHost as RoleHost
from tests.desk.kit.journaled import WritingClient as FakeClient
from tests.desk.kit.records import OTHER, POOL_ADDRESS, POOL_ID, pools_book, waiting_trade
from tui.api.permits import wallet_address
from tui.desk.clearing import Role

SIZE = (100, 40)
ELSEWHERE = "0x" + "9" * 40


async def test_a_template_for_more_or_for_another_spender_is_not_signed() -> None:
    owner = wallet_address(WALLET_KEY)
    client = FakeClient(transfers_permit_template=permit_template(owner, POOL_ADDRESS, 10**15))
    host = RoleHost(client, book=pools_book(), connection=session())
    async with host.run_test(size=SIZE) as pilot:
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await settle(host, pilot)
        client.answers["transfers_permit_template"] = permit_template(owner, ELSEWHERE, 250_000_000)
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await settle(host, pilot)

    more, elsewhere = host.outcomes
    assert more.problem == (
        "the venue's permit is for 1,000,000,000.00 USDC, not the 250.00 USDC typed: "
        "nothing was signed"
    )
    assert elsewhere.problem.startswith(f"the venue's permit names spender {ELSEWHERE}")
    assert client.names == ["transfers_permit_template", "transfers_permit_template"]


async def test_an_approval_the_venue_has_not_sized_is_not_signed() -> None:
    client = FakeClient()
    host = RoleHost(client, book=pools_book(), connection=session())
    trade = waiting_trade("pending_taker_deposit_approval", Role.TAKER)
    async with host.run_test(size=SIZE) as pilot:
        host.pools.approve_now(trade, POOL_ADDRESS, Decimal(10))
        await settle(host, pilot)

    (outcome,) = host.outcomes
    assert outcome.problem.startswith("not signed: the venue has not said yet")
    assert client.names == []
