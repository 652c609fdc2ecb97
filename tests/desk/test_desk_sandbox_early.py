"""The sandbox child launched before the desk's event loop (`SandboxConnector.launch_early`).

``rfq-desk`` on a new data folder launches its sandbox first, before the desk is imported, so
the sandbox seeds its database while the desk imports and draws (issue 11). The child is the
connector's from the start: connecting waits for it instead of launching another, its death is
noticed at once and it is restarted, closing stops it, and a desk that never runs stops it on
the way out. These run the real ``rfq-desk sandbox`` on a temporary data folder, without
counterparties.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tui.desk.session import SandboxConnector
from tui.desk.supervisor import ChildDied, ChildRestarted, RestartPolicy

QUIET = ["--no-actors", "--no-history"]
FAST = RestartPolicy(first_delay_s=0.05, max_delay_s=0.2, max_restarts=2, probe_s=0.1)
NOTICED_WITHIN_S = 1.0
STARTED_WITHIN_S = 15.0
REPO = Path(__file__).resolve().parents[2]


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (reaped, or a zombie no longer running)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_the_child_launched_early_is_the_one_connected_to_watched_and_stopped(
    tmp_path: Path,
) -> None:
    connector = SandboxConnector(tmp_path / "data", extra_args=QUIET, policy=FAST)
    connector.launch_early()  # no event loop yet, as in `rfq-desk`
    assert connector.process is not None
    early = connector.process.pid

    async def session() -> None:
        news = connector.events()
        try:
            await connector.connect()
            assert connector.process is not None and connector.process.pid == early
            assert not connector.attached
            os.kill(early, signal.SIGKILL)
            killed_at = time.monotonic()
            died = await asyncio.wait_for(anext(news), NOTICED_WITHIN_S)
            assert isinstance(died, ChildDied), died
            assert time.monotonic() - killed_at < NOTICED_WITHIN_S
            assert died.exit_code == -signal.SIGKILL
            back = await asyncio.wait_for(anext(news), STARTED_WITHIN_S)
            assert isinstance(back, ChildRestarted), back
            assert connector.process is not None and connector.process.pid != early
        finally:
            await connector.close()

    asyncio.run(session())
    assert connector.process is None
    assert gone(early)


def test_a_desk_that_never_runs_leaves_no_sandbox_behind(tmp_path: Path) -> None:
    connector = SandboxConnector(tmp_path / "data", extra_args=QUIET)
    connector.launch_early()
    assert connector.process is not None and connector.process.returncode is None
    pid = connector.process.pid
    connector.stop_early()
    assert gone(pid)


def test_nothing_is_launched_early_where_a_sandbox_serves_already(tmp_path: Path) -> None:
    owner = SandboxConnector(tmp_path / "data", extra_args=QUIET)
    second = SandboxConnector(tmp_path / "data", extra_args=QUIET)

    async def attach() -> None:
        try:
            await owner.connect()
            second.launch_early()
            assert second.process is None
            await second.connect()
            assert second.attached and second.process is None
        finally:
            await second.close()
            await owner.close()

    asyncio.run(attach())


def test_rfq_desk_launches_the_sandbox_before_the_desk_is_imported(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from tui.desk import launch, session

        seen = []
        session.SandboxConnector.launch_early = lambda self: seen.append(
            "tui.desk.app" in sys.modules
        )
        launch._run_app = lambda *args: seen.append("ran") or 0
        assert launch.run_desk(data=__import__("pathlib").Path(sys.argv[1])) == 0
        print(seen)
        """
    )
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "XDG_DATA_HOME": str(tmp_path / "share"),
    }
    for name in ("RFQ_DESK_CONFIG", "RFQ_DESK_THEME", "RFQ_DESK_PROFILE"):
        env.pop(name, None)
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", script, str(tmp_path / "data")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[False, 'ran']"
