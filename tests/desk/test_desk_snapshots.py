"""Snapshot tests: every pane of the desk, pinned as SVG (pytest-textual-snapshot).

Each scene runs on a fresh copy of the seeded sandbox with its clock frozen, the desk's feed
polled once by hand, a fixed theme and the machine-dependent numbers (latency) pinned, so the
picture depends only on the code. Update after an intended change with
``pytest tests/desk/test_desk_snapshots.py --snapshot-update`` and look at the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.desk.kit.desk import SIZE, make_desk
from tests.desk.kit.scenes import SCENES, build_world, freeze, open_desk


@pytest.mark.parametrize("name", list(SCENES))
def test_pane_snapshot(name: str, sandbox: Any, tmp_path: Path, snap_compare: Any) -> None:
    app = make_desk(sandbox, tmp_path)

    async def run_before(pilot: Pilot[Any]) -> None:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        await SCENES[name](app, pilot, world)
        await pilot.pause()
        freeze(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
