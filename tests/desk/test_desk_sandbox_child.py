"""The desk's own sandbox child is watched and restarted; an attached sandbox is waited for.

These run the real ``rfq-desk sandbox`` as the desk's child (through `SandboxConnector`, on a
temporary data folder, without simulated counterparties), kill it with SIGKILL and watch what
the connector tells the desk. The restart pauses are shortened (`FAST`) so the tests take
seconds; the pauses themselves are checked on `RestartLog` with a fake clock.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.venue import perp_rfq
from tui.api.client import ServiceClient
from tui.desk.probes import Owner
from tui.desk.session import Connection, SandboxConnector, SessionError, StaticConnector
from tui.desk.supervisor import (
    ChildDied,
    ChildGaveUp,
    ChildRestarted,
    RestartLog,
    RestartPolicy,
    SandboxReattached,
    SandboxStopped,
    SandboxTakenOver,
    SessionEvent,
    SessionEvents,
    Supervised,
)

QUIET = ["--no-actors", "--no-history"]
"""A quiet market: nothing but the test writes to the database."""
FAST = RestartPolicy(first_delay_s=0.05, max_delay_s=0.2, max_restarts=2, probe_s=0.1)
"""Short pauses, two restarts a minute at most."""
NOTICED_WITHIN_S = 1.0
STARTED_WITHIN_S = 15.0


async def next_event(news: SessionEvents, within_s: float) -> SessionEvent | None:
    """The next thing the connector says, or None when it says nothing within ``within_s``."""
    try:
        return await asyncio.wait_for(anext(news), within_s)
    except TimeoutError:
        return None


async def send_an_rfq(connection: Connection) -> str:
    """DESK asks ALPHA for a price: a record in the sandbox's database."""
    async with ServiceClient(
        connection.base_url, connection.api_key, connection.api_secret
    ) as client:
        companies = (await client.companies()).result
        alpha = next(company.id for company in companies if company.short_name == "ALPHA")
        rfq = await client.rfqs_new(perp_rfq([alpha], "1", datetime.now(UTC)))
    return rfq.rfq_id


async def sent_rfq_ids(connection: Connection, rfq_id: str) -> list[str]:
    """The ids the venue behind ``connection`` lists for DESK's sent RFQ ``rfq_id``."""
    async with ServiceClient(
        connection.base_url, connection.api_key, connection.api_secret
    ) as client:
        return [rfq.rfq_id for rfq in (await client.rfqs_sent(id=rfq_id)).result]


def child_pid(connector: SandboxConnector) -> int:
    assert connector.process is not None and connector.process.returncode is None
    return connector.process.pid


async def test_a_killed_child_is_noticed_at_once_and_restarted_on_the_same_database(
    tmp_path: Path,
) -> None:
    connector = SandboxConnector(tmp_path / "data", extra_args=QUIET, policy=FAST)
    assert isinstance(connector, Supervised)
    news = connector.events()
    try:
        first = await connector.connect()
        assert not isinstance(StaticConnector(first), Supervised)
        rfq_id = await send_an_rfq(first)
        # Twice: the second death is still within the cap of restarts a minute.
        for _kill in range(2):
            pid = child_pid(connector)
            killed_at = time.monotonic()
            os.kill(pid, signal.SIGKILL)

            died = await next_event(news, NOTICED_WITHIN_S)
            assert isinstance(died, ChildDied), died
            assert time.monotonic() - killed_at < NOTICED_WITHIN_S
            assert died.exit_code == -signal.SIGKILL
            assert died.restart_in_s is not None
            assert died.text == "sandbox killed by SIGKILL: restarting"

            back = await next_event(news, STARTED_WITHIN_S)
            assert isinstance(back, ChildRestarted), back
            assert child_pid(connector) != pid
            assert connector.connection == back.connection
            # The same database: what was booked before the kill is there after it.
            assert await sent_rfq_ids(back.connection, rfq_id) == [rfq_id]
            assert back.connection.api_key == first.api_key
            assert back.connection.company_id == first.company_id
    finally:
        await connector.close()
    assert connector.process is None
    # Closing the session is not a death: nothing more is said, and the stream ends.
    assert await asyncio.wait_for(anext(news, None), 1.0) is None


async def test_a_child_that_dies_on_every_start_is_given_up_until_asked_again(
    tmp_path: Path,
) -> None:
    connector = SandboxConnector(tmp_path / "data", extra_args=QUIET, policy=FAST)
    news = connector.events()
    try:
        await connector.connect()
        # The database turns into garbage under the running child: every start now fails.
        db = connector.db_path
        garbage = db.with_name("garbage.db")
        garbage.write_bytes(b"this is not a database\n" * 200)
        os.replace(garbage, db)
        for suffix in ("-wal", "-shm"):
            db.with_name(db.name + suffix).unlink(missing_ok=True)
        os.kill(child_pid(connector), signal.SIGKILL)

        deaths: list[ChildDied] = []
        while True:
            event = await next_event(news, STARTED_WITHIN_S)
            if isinstance(event, ChildGaveUp):
                break
            assert isinstance(event, ChildDied), event
            deaths.append(event)
        assert [death.exit_code for death in deaths] == [-signal.SIGKILL, 1, 1]
        assert [death.restart_in_s is None for death in deaths] == [False, False, True]
        assert "not a database" in deaths[-1].log_tail
        assert "3 times" in event.reason and "f5" in event.reason
        assert not connector.running
        # Given up: nothing happens by itself any more.
        assert await next_event(news, 0.5) is None

        # The trader moves the broken file away and presses f5: a fresh database, a sandbox.
        db.unlink()
        connector.retry_now()
        back = await next_event(news, STARTED_WITHIN_S)
        assert isinstance(back, ChildRestarted), back
        assert connector.running
    finally:
        await connector.close()


async def test_an_attached_sandbox_that_stops_is_waited_for_not_restarted(
    sandbox: Any, tmp_path: Path
) -> None:
    def publish() -> None:  # what the sandbox's owner writes when it (re)starts it
        companies = list(sandbox.credentials.values())
        document = {"base_url": sandbox.base_url, "companies": companies}
        connector.credentials_path.write_text(json.dumps(document))

    connector = SandboxConnector(tmp_path, policy=FAST)
    publish()
    news = connector.events()
    try:
        await connector.connect()
        assert connector.attached
        sandbox.stop()

        stopped = await next_event(news, NOTICED_WITHIN_S)
        assert isinstance(stopped, SandboxStopped), stopped
        assert stopped.owner is Owner.UNKNOWN  # a sandbox nobody's desk owns: not restarted
        assert stopped.text == "sandbox stopped (f5: start it here)"
        # Not ours: nothing is started, and it is waited for.
        assert await next_event(news, 0.5) is None
        assert connector.process is None

        sandbox.start()  # its owner starts it again, on another port
        publish()
        back = await next_event(news, 3.0)
        assert isinstance(back, SandboxReattached), back
        assert back.connection.base_url == sandbox.base_url
        assert connector.process is None
    finally:
        await connector.close()


async def test_the_data_folder_is_private_at_every_level_the_desk_creates(
    tmp_path: Path,
) -> None:
    data = tmp_path / "home" / "share" / "rfq-desk"
    before = os.umask(0o022)
    try:
        # A sandbox that cannot start (a bad flag): only the folders are of interest here.
        connector = SandboxConnector(data, extra_args=["--seed", "seven"])
        with pytest.raises(SessionError, match="stopped while starting"):
            await connector.connect()
        await connector.close()
    finally:
        os.umask(before)
    for folder in (tmp_path / "home", tmp_path / "home" / "share", data):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_restarts_wait_longer_each_time_and_stop_past_the_cap() -> None:
    now = [0.0]
    policy = RestartPolicy(first_delay_s=0.5, max_delay_s=10.0, max_restarts=6, window_s=60.0)
    log = RestartLog(policy, clock=lambda: now[0])
    delays = []
    for _death in range(7):
        delays.append(log.next_delay())
        now[0] += 1.0
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, None]
    # A minute after the first restart, it no longer counts.
    now[0] = 60.0
    assert log.recent() == 5
    assert log.next_delay() == 10.0
    log.reset()
    assert log.next_delay() == 0.5
    # A child that lives for hours between deaths always restarts after the first pause.
    for _hour in range(20):
        now[0] += 3600.0
        assert log.next_delay() == 0.5


async def until(pilot: Any, condition: Any, within_s: float, what: str) -> float:
    """Let the desk run until ``condition()`` holds; how long that took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < within_s, f"not within {within_s} s: {what}"
        await pilot.pause(0.05)
    return time.monotonic() - started


async def test_the_desk_says_its_sandbox_died_restarts_it_and_fills_its_panes_again(
    tmp_path: Path,
) -> None:
    from tui.desk.app import DeskApp
    from tui.desk.messages import ConnectionState, Topic
    from tui.desk.widgets.portfolio_header import PortfolioHeader
    from tui.desk.widgets.rfq_inbox import RfqInbox, row_key

    connector = SandboxConnector(tmp_path / "data", extra_args=QUIET, policy=FAST)
    app = DeskApp(connector, theme="desk-dark", export_dir=tmp_path / "exports", user_theme_dirs=[])
    async with app.run_test(size=(140, 45)) as pilot:
        header = app.query_one(PortfolioHeader)
        inbox = app.query_one(RfqInbox)
        await until(pilot, app.connected.is_set, STARTED_WITHIN_S, "connected")
        assert connector.connection is not None
        before = await send_an_rfq(connector.connection)
        app.poll_soon(Topic.RFQS_SENT)  # as after the desk's own action
        await until(pilot, lambda: inbox.table.has_row(row_key("sent", before)), 10, "RFQ shown")

        os.kill(child_pid(connector), signal.SIGKILL)
        said = await until(
            pilot, lambda: header.state is ConnectionState.DISCONNECTED, 2.0, "said it died"
        )
        assert said < NOTICED_WITHIN_S
        assert "SIGKILL" in header.detail

        await until(pilot, app.connected.is_set, STARTED_WITHIN_S, "connected again")
        assert connector.connection is not None
        after = await send_an_rfq(connector.connection)
        app.poll_soon(Topic.RFQS_SENT)
        await until(pilot, lambda: inbox.table.has_row(row_key("sent", after)), 10, "new RFQ")
        await until(
            pilot, lambda: header.state is ConnectionState.CONNECTED, 5.0, "header connected"
        )
        assert inbox.table.has_row(row_key("sent", before))


OWNER_DESK = """
import asyncio, sys
from pathlib import Path
from tui.desk.session import SandboxConnector

async def main():
    connector = SandboxConnector(Path(sys.argv[1]), extra_args=["--no-actors", "--no-history"])
    await connector.connect()
    print(connector.process.pid, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""
"""A desk stand-in: starts its sandbox child on a data folder, says the child's pid, waits."""


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaped yet counts as exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


async def start_owner_desk(data: Path) -> tuple[asyncio.subprocess.Process, int]:
    """Another desk, in its own process, with its sandbox child up: (the desk, the child's pid)."""
    desk = await asyncio.create_subprocess_exec(
        sys.executable, "-c", OWNER_DESK, str(data), stdout=asyncio.subprocess.PIPE
    )
    assert desk.stdout is not None
    line = await asyncio.wait_for(desk.stdout.readline(), STARTED_WITHIN_S)
    assert line.strip().isdigit(), line
    return desk, int(line)


async def wait_gone(pid: int, within_s: float) -> float:
    started = time.monotonic()
    while not gone(pid):
        assert time.monotonic() - started < within_s, f"pid {pid} still running"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def test_a_sigkilled_desk_takes_its_sandbox_child_with_it(tmp_path: Path) -> None:
    desk, child = await start_owner_desk(tmp_path / "data")
    try:
        assert not gone(child)
        desk.kill()  # SIGKILL: the desk cleans nothing up
        await desk.wait()
        await wait_gone(child, 5.0)
    finally:
        if not gone(child):
            os.kill(child, signal.SIGKILL)


async def test_an_attached_desk_takes_the_sandbox_over_when_its_desk_is_gone(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    owner, owners_child = await start_owner_desk(data)
    connector = SandboxConnector(data, extra_args=QUIET, policy=FAST)
    news = connector.events()
    try:
        first = await connector.connect()
        assert connector.attached and connector.process is None
        rfq_id = await send_an_rfq(first)

        owner.kill()  # the owning desk dies; its child follows it
        await owner.wait()
        stopped = await next_event(news, 5.0)
        assert isinstance(stopped, SandboxStopped), stopped
        assert stopped.owner is Owner.GONE
        assert stopped.text == "sandbox's desk quit: starting it here"

        back = await next_event(news, STARTED_WITHIN_S)
        assert isinstance(back, SandboxTakenOver), back
        assert not connector.attached and connector.running
        assert gone(owners_child)
        # The same database: what was booked through the other desk's sandbox is there.
        assert await sent_rfq_ids(back.connection, rfq_id) == [rfq_id]

        # From now on it is this desk's own child: restarted when it dies.
        os.kill(child_pid(connector), signal.SIGKILL)
        assert isinstance(await next_event(news, NOTICED_WITHIN_S), ChildDied)
        assert isinstance(await next_event(news, STARTED_WITHIN_S), ChildRestarted)
    finally:
        await connector.close()
        if owner.returncode is None:
            owner.kill()
            await owner.wait()
        if not gone(owners_child):
            os.kill(owners_child, signal.SIGKILL)


async def test_a_sandbox_started_by_hand_is_one_per_database_and_f5_takes_it_over(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    connector = SandboxConnector(data, extra_args=QUIET, policy=FAST)
    command = [sys.executable, "-m", "tui", "sandbox", "--db", str(connector.db_path), *QUIET]
    by_hand = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    news = connector.events()
    try:
        assert by_hand.stdout is not None
        ready = await asyncio.wait_for(by_hand.stdout.readline(), STARTED_WITHIN_S)
        assert ready.startswith(b"sandbox ready"), ready
        # A second sandbox on the same database refuses to start, naming the one serving it.
        second = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        _out, err = await asyncio.wait_for(second.communicate(), STARTED_WITHIN_S)
        assert second.returncode == 3
        assert f"in use by another sandbox (pid {by_hand.pid})" in err.decode()

        await connector.connect()
        assert connector.attached
        by_hand.terminate()  # its owner, a person, stopped it
        await by_hand.wait()
        stopped = await next_event(news, 5.0)
        assert isinstance(stopped, SandboxStopped) and stopped.owner is Owner.UNKNOWN
        assert "f5" in stopped.text
        assert await next_event(news, 0.5) is None, "nobody's desk: waited for"

        connector.retry_now()  # f5
        back = await next_event(news, STARTED_WITHIN_S)
        assert isinstance(back, SandboxTakenOver), back
        assert connector.running
    finally:
        await connector.close()
        if by_hand.returncode is None:
            by_hand.kill()
            await by_hand.wait()
