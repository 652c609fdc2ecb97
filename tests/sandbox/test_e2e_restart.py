"""Durability end to end: a graceful restart, and a ``kill -9`` of the ``rfq-desk sandbox``
process right after an acknowledged write, both lose nothing. Plus the command line itself.
"""

from __future__ import annotations

import json
import os
import queue
import re
import stat
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.sandbox.kit import book_trade, perp, quote_request, rfq_request, seed_pool_id
from tui.__main__ import build_parser, main
from tui.api.client import ServiceClient
from tui.api.models import (
    DecimalAllowance,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    Structure,
    TransferType,
)
from tui.api.permits import sign_permit
from tui.sandbox.credentials import write_credentials
from tui.sandbox.engine.seed import default_margin_params

REPO = Path(__file__).resolve().parents[2]
READY = re.compile(r"^sandbox ready at (http://127\.0\.0\.1:\d+) \(credentials: (.+)\)$")
D = Decimal


async def snapshot(sandbox: Any) -> dict[str, Any]:
    """Everything DESK, ALPHA and BORE can read, as plain data."""
    out: dict[str, Any] = {}
    async with (
        sandbox.client("DESK") as desk,
        sandbox.client("ALPHA") as alpha,
        sandbox.client("BORE") as bore,
    ):
        for name, client in (("DESK", desk), ("ALPHA", alpha), ("BORE", bore)):
            out[name] = {
                "rfqs_sent": await client.rfqs_sent(price=False),
                "rfqs_received": await client.rfqs_received(price=False),
                "quotes": await client.quotes(),
                "trades": await client.portfolio_trades(),
                "positions": await client.portfolio_positions(),
                "aggregated": await client.portfolio_aggregated_positions(),
                "assets": await client.portfolio_assets(),
                "transfers": await client.transfers(),
                "pools": await client.settlement_pools(),
                "summary": await client.portfolio_summary(),
            }
    return {
        name: {key: value.model_dump(mode="json") for key, value in reads.items()}
        for name, reads in out.items()
    }


async def test_restart_on_the_same_database_loses_nothing(sandbox_factory: Any) -> None:
    sandbox = sandbox_factory(token_budget=10_000)  # this test is about state, not budgets
    desk_entry = sandbox.credentials["DESK"]
    async with sandbox.client("DESK") as desk, sandbox.client("ALPHA") as alpha:
        trade = await book_trade(sandbox, desk, alpha)
        open_rfq = await desk.rfqs_new(rfq_request(sandbox, targets=("ALPHA", "BORE")))
        open_quote = await alpha.quotes_new(quote_request(sandbox, open_rfq, trade.pool_id))
        (pool,) = (await desk.settlement_pools(id=trade.pool_id)).result
        assert pool.data is not None and pool.data.address
        template = await desk.transfers_permit_template(
            PermitTemplateRequest(
                pool_address=pool.data.address, allowance=DecimalAllowance(value=D(100))
            )
        )
        await desk.transfers_permit(sign_permit(template, desk_entry["wallet_private_key"]))
        pending = await desk.transfers_new(
            NewTransferRequest(
                qty=D(100),
                target_pool_location=trade.pool_id,
                counterparty=sandbox.company_ids["ALPHA"],
                transfer_type=TransferType.DEPOSIT,
            )
        )
    async with sandbox.client("BORE") as bore:
        new_pool = await bore.settlement_pools_new(
            NewSettlementPoolRequest(
                pool_name="opens-after-restart",
                company_other=sandbox.company_ids["CBLT"],
                creator_params=default_margin_params(),
                other_params=default_margin_params(),
            )
        )
    credentials_before = dict(sandbox.credentials)
    before = await snapshot(sandbox)
    assert before["DESK"]["trades"]["result"] and before["ALPHA"]["quotes"]["result"]

    old_url = sandbox.base_url
    sandbox.restart()
    assert sandbox.base_url != old_url  # a new server process-alike, new port, same file
    assert sandbox.credentials == credentials_before  # the same keys still work
    assert await snapshot(sandbox) == before

    # Work in flight at the restart carries on: the deposit and the pool each need a block.
    sandbox.advance(2)
    async with sandbox.client("DESK") as desk, sandbox.client("BORE") as bore:
        (deposit,) = (await desk.transfers(id=pending.id)).result
        assert deposit.status == "confirmed"
        (opened,) = (await bore.settlement_pools(id=new_pool.pool_id)).result
        assert opened.data is not None and opened.data.status == "open"
    async with sandbox.client("ALPHA") as alpha:
        (quote,) = (await alpha.quotes_sent(id=open_quote.parent_quote_id)).result
        assert quote.model_extra is not None and quote.model_extra["quote_status"] == "open"
        assert (await seed_pool_id(alpha)) == trade.pool_id


# -- the command line ---------------------------------------------------------------------------


class SandboxProcess:
    """``python -m tui sandbox`` in a subprocess (``extra`` flags added), and the line it prints
    when ready."""

    def __init__(self, db: Path, credentials: Path, log: Path, *extra: str) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        }
        self._log = log.open("ab")
        self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [
                sys.executable,
                "-m",
                "tui",
                "sandbox",
                "--db",
                str(db),
                "--credentials",
                str(credentials),
                "--port",
                "0",
                "--seed",
                "7",
                "--no-actors",
                *extra,
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()

        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                lines.put(line)

        threading.Thread(target=pump, daemon=True).start()
        try:
            line = lines.get(timeout=60)
        except queue.Empty:
            self.kill()
            raise AssertionError("the sandbox did not get ready within 60 s") from None
        match = READY.match(line.strip())
        assert match, line
        self.base_url = match.group(1)
        self.credentials_path = Path(match.group(2))

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no goodbye."""
        self.proc.kill()
        self.proc.wait(timeout=30)
        self._log.close()

    def terminate(self) -> int:
        """SIGTERM, and the exit code of a graceful stop."""
        self.proc.terminate()
        code = self.proc.wait(timeout=30)
        self._log.close()
        return code


def client_from(
    credentials: Path, short_name: str = "DESK"
) -> tuple[ServiceClient, dict[str, Any]]:
    document = json.loads(credentials.read_text())
    entries = {c["short_name"]: c for c in document["companies"] if c["role"] == "writer"}
    entry = entries[short_name]
    client = ServiceClient(document["base_url"], entry["api_key"], entry["api_secret"])
    return client, {"document": document, "ids": {k: v["id"] for k, v in entries.items()}}


async def test_kill_9_after_an_acknowledged_write_loses_nothing(tmp_path: Path) -> None:
    db, credentials = tmp_path / "data" / "desk.db", tmp_path / "data" / "creds.json"
    first = SandboxProcess(db, credentials, tmp_path / "sandbox.log")
    try:
        assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
        assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700  # the folder of keys is private
        client, info = client_from(credentials)
        assert info["document"]["base_url"] == first.base_url
        assert info["document"]["stats_base_url"] == first.base_url
        async with client:
            rfq = await client.rfqs_new(
                NewRfqRequest(
                    structure=Structure.model_validate(
                        {"legs": [{"side": "buy", "ratio": 1, "instrument": perp("ETH")}]}
                    ),
                    qty=D("3"),
                    expires_at=datetime.now(UTC) + timedelta(minutes=30),
                    target_companies=[info["ids"]["ALPHA"]],
                )
            )
    finally:
        first.kill()  # the write was acknowledged (200) before this

    second = SandboxProcess(db, credentials, tmp_path / "sandbox.log")
    try:
        client, again = client_from(credentials)
        assert again["ids"] == info["ids"]
        async with client:
            (found,) = (await client.rfqs_sent(id=rfq.rfq_id, price=False)).result
            assert found.qty == D(3) and found.rfq_status == "open"
    finally:
        assert second.terminate() == 0


def test_cli_faults_and_private_folders_end_to_end(tmp_path: Path) -> None:
    """``--faults`` skews the clock from the start and faults requests once ready; every
    folder made on the way to the database and the credentials is private."""
    db, credentials = tmp_path / "a" / "b" / "desk.db", tmp_path / "c" / "d" / "creds.json"
    log = tmp_path / "sandbox.log"
    process = SandboxProcess(
        db, credentials, log, "--no-history", "--faults", "5xx=1,skew=+30s,seed=4"
    )
    try:
        for folder in (db.parent.parent, db.parent, credentials.parent.parent, credentials.parent):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        wall = datetime.now(UTC).timestamp() * 1000
        with httpx.Client(base_url=process.base_url, timeout=10) as http:
            response = http.get("/v1/status")
        assert response.json() == {"error": {"code": 9000, "message": "internal server error"}}
        assert abs(int(response.headers["X-Request-Received-Ms"]) - wall - 30_000) < 5_000
    finally:
        assert process.terminate() == 0
    assert "faults on purpose: 5xx=1,skew=+30000ms,seed=4" in log.read_text()


def test_cli_without_a_command_opens_the_desk_or_explains_why_not(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Without a subcommand the desk opens; an unknown profile is refused before the terminal
    # is taken over, in one line naming it (the desk itself is tested in tests/desk).
    monkeypatch.setenv("RFQ_DESK_CONFIG", str(tmp_path / "config.toml"))
    assert main(["--profile", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no profile named 'nope'" in err


def test_cli_config_prints_the_paths(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert "data dir" in out and "sandbox.db" in out and "sandbox-credentials.json" in out


def test_cli_sandbox_flags() -> None:
    args = build_parser().parse_args(["sandbox"])
    assert (args.host, args.port, args.db, args.admin, args.no_actors) == (
        "127.0.0.1",
        0,
        None,
        False,
        False,
    )
    args = build_parser().parse_args(
        ["sandbox", "--port", "8765", "--admin", "--block-delay", "0.5", "--token-budget", "500"]
    )
    assert (args.port, args.admin, args.block_delay, args.token_budget) == (8765, True, 0.5, 500)
    for bad in (["--port", "70000"], ["--block-delay", "-1"], ["--token-budget", "0"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["sandbox", *bad])


def test_cli_imports_stay_lazy() -> None:
    code = (
        "import sys, tui.__main__ as m; m.build_parser();"
        "print(sorted(k for k in ('uvicorn','eth_account','textual','httpx') if k in sys.modules))"
    )
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.strip() == "[]"


def test_credentials_file_is_private_from_the_first_byte(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "creds.json"
    write_credentials(path, {"companies": [{"api_secret": "ab"}]})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700  # a folder it makes is private
    path.chmod(0o644)  # a stale, too-open file is replaced, not rewritten in place
    write_credentials(path, {"companies": []})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"companies": []}
    assert [p.name for p in path.parent.iterdir()] == ["creds.json"]  # no temp file left
