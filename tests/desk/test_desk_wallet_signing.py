"""The wallet key kept no longer than the signing needs (issue 13).

A venue profile's key stays in its encrypted keystore: every permit asks the passphrase in a
masked modal and is signed by `sign_permit_with_keystore`, which decrypts, signs and lets the
key go. A wrong passphrase is said under the field and asked again; backing out signs nothing.
The sandbox session, whose dev key comes in its credentials file, signs without asking.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from textual.pilot import Pilot
from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, settle
from tests.desk.kit.fakes import WALLET_KEY, permit_template, session
from tests.desk.kit.fakes import settle as settle_host
from tests.desk.kit.journaled import JournaledHost, WritingClient
from tests.desk.kit.records import OTHER, POOL_ADDRESS, POOL_ID, pools_book, transfer
from tests.desk.kit.venue import pool_between
from tui.api.models import SubmitPermitRequest, TransferType
from tui.api.permits import save_wallet_key, wallet_address
from tui.api.writes import WriteKind
from tui.desk.app import DeskApp
from tui.desk.messages import ActionKind
from tui.desk.screens.password import PasswordScreen
from tui.desk.session import Connection, StaticConnector

PASSPHRASE = "correct horse"


def _keystore(folder: Path, key: str = WALLET_KEY) -> Path:
    return save_wallet_key(folder / "wallet.json", key, PASSPHRASE, kdf="pbkdf2", iterations=2)


async def _until(pilot: Pilot[Any], ready: Callable[[], bool]) -> None:
    """Let the desk run until ``ready`` (the signing runs in a thread): at most ~10 s."""
    for _ in range(1000):
        if ready():
            return
        await pilot.pause(0.01)
    raise AssertionError("the desk never got there")


def _prompt(app: Any, error: str = "") -> bool:
    screen = app.screen
    if not isinstance(screen, PasswordScreen) or not screen.is_mounted:
        return False
    return error in str(screen.query_one("#err-password").render())


async def _type(app: Any, pilot: Pilot[Any], passphrase: str) -> None:
    field = app.screen.query_one("#password", Input)
    assert field.password  # masked
    field.value = passphrase
    await pilot.press("enter")


def _deposit_client() -> WritingClient:
    return WritingClient(
        transfers_permit_template=permit_template(
            wallet_address(WALLET_KEY), POOL_ADDRESS, 250_000_000
        ),
        transfers_permit=True,
        transfers_new=transfer(TransferType.DEPOSIT),
    )


async def test_each_permit_asks_the_passphrase_and_a_wrong_one_is_asked_again(
    tmp_path: Path,
) -> None:
    client = _deposit_client()
    keystore = _keystore(tmp_path)
    host = JournaledHost(
        client, book=pools_book(), connection=session(wallet_key=None, keystore=keystore)
    )
    async with host.run_test(size=(100, 40)) as pilot:
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await _until(pilot, lambda: _prompt(host))
        assert client.names == ["transfers_permit_template"]  # nothing signed yet
        await _type(host, pilot, "wrong")
        await _until(pilot, lambda: _prompt(host, "wrong password"))
        await _type(host, pilot, PASSPHRASE)
        await _until(pilot, lambda: len(host.outcomes) == 1)
        await settle_host(host, pilot)
        first = host.outcomes[0]
        assert first.ok and first.kind is ActionKind.DEPOSIT
        signed = client.calls[1][1]
        assert isinstance(signed, SubmitPermitRequest) and signed.signature.startswith("0x")

        # The key was let go: the next permit asks again, and backing out signs nothing.
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(250))
        await _until(pilot, lambda: _prompt(host))
        await pilot.press("escape")
        await _until(pilot, lambda: len(host.outcomes) == 2)

    backed_out = host.outcomes[1]
    assert backed_out.problem == "wallet not unlocked: the permit was not signed"
    assert client.names == [
        "transfers_permit_template",
        "transfers_permit",
        "transfers_new",
        "transfers_permit_template",
    ]
    held = repr(vars(host.pools)) + repr(host.screen_stack)
    assert WALLET_KEY[2:] not in held and PASSPHRASE not in held


async def test_a_template_the_wallet_cannot_sign_is_refused_without_asking_again(
    tmp_path: Path,
) -> None:
    stranger = "0x" + "11" * 20
    client = WritingClient(
        transfers_permit_template=permit_template(stranger, POOL_ADDRESS, 1_000_000)
    )
    host = JournaledHost(
        client, book=pools_book(), connection=session(wallet_key=None, keystore=_keystore(tmp_path))
    )
    async with host.run_test(size=(100, 40)) as pilot:
        host.pools.deposit_now(POOL_ID, POOL_ADDRESS, OTHER, Decimal(1))
        await _until(pilot, lambda: _prompt(host))
        await _type(host, pilot, PASSPHRASE)
        await _until(pilot, lambda: len(host.outcomes) == 1)
        assert not isinstance(host.screen, PasswordScreen)

    (outcome,) = host.outcomes
    assert outcome.problem.startswith("permit template: owner") and "is not this wallet" in (
        outcome.problem
    )
    assert client.names == ["transfers_permit_template"]


async def test_a_venue_profile_signs_each_deposit_from_its_keystore(
    sandbox: Any, tmp_path: Path
) -> None:
    entry = sandbox.credentials["DESK"]
    connection = Connection(
        profile="prod",
        base_url=sandbox.base_url,
        api_key=entry["api_key"],
        api_secret=SecretStr(entry["api_secret"]),
        keystore=_keystore(tmp_path, entry["wallet_private_key"]),
    )
    app = DeskApp(
        StaticConnector(connection),
        clock=sandbox.clock.now,
        auto_feed=False,
        export_dir=tmp_path / "exports",
        journal_path=tmp_path / "journals" / "prod.jsonl",
        user_theme_dirs=[],
        client_factory=lambda _c: sandbox.client("DESK"),
    )
    async with sandbox.client("DESK") as desk_client:
        pool = await pool_between(desk_client, sandbox.company_ids["ALPHA"])
    assert pool.data is not None
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        app.pools.deposit_now(
            pool.pool_id, pool.data.address, sandbox.company_ids["ALPHA"], Decimal(10)
        )
        await _until(pilot, lambda: _prompt(app))
        await _type(app, pilot, PASSPHRASE)
        await _until(pilot, lambda: len(app.writes.entries()) == 2)
        await settle(app, pilot)

    permit, deposit = sorted(app.writes.entries(), key=lambda e: e.sent_at_ms)
    assert permit.intent.kind is WriteKind.PERMIT and permit.outcome == "landed"
    assert deposit.intent.kind is WriteKind.TRANSFER and deposit.outcome == "landed"


async def test_the_sandbox_session_signs_with_its_dev_key_without_asking(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with sandbox.client("DESK") as desk_client:
        pool = await pool_between(desk_client, sandbox.company_ids["ALPHA"])
    assert pool.data is not None
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        app.pools.deposit_now(
            pool.pool_id, pool.data.address, sandbox.company_ids["ALPHA"], Decimal(10)
        )
        await settle(app, pilot)
        assert not isinstance(app.screen, PasswordScreen)

    kinds = [entry.intent.kind for entry in app.writes.entries()]
    assert sorted(kinds) == sorted([WriteKind.PERMIT, WriteKind.TRANSFER])
    assert all(entry.outcome == "landed" for entry in app.writes.entries())
