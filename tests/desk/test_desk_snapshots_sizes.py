"""Snapshot tests at the terminal sizes the desk must serve: every pane at 80x24 (a laptop's
SSH window), the Trade tab at 200x60 too (a wide screen); 140x45 is `test_desk_snapshots`.

The scenes are the same as there (`tests.desk.kit.scenes`). Update after an intended change
with ``pytest tests/desk/test_desk_snapshots_sizes.py --snapshot-update`` and look at the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.desk.kit.desk import make_desk
from tests.desk.kit.scenes import SCENES, build_world, freeze, open_desk

SMALL = (80, 24)
WIDE = (200, 60)


def _shoot(
    name: str, size: tuple[int, int], sandbox: Any, tmp_path: Path, snap_compare: Any
) -> bool:
    app = make_desk(sandbox, tmp_path)

    async def run_before(pilot: Pilot[Any]) -> None:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        await SCENES[name](app, pilot, world)
        await pilot.pause()
        freeze(app)

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))


@pytest.mark.parametrize("name", list(SCENES))
def test_pane_snapshot_80x24(name: str, sandbox: Any, tmp_path: Path, snap_compare: Any) -> None:
    assert _shoot(name, SMALL, sandbox, tmp_path, snap_compare)


def test_trade_tab_snapshot_200x60(sandbox: Any, tmp_path: Path, snap_compare: Any) -> None:
    assert _shoot("trade", WIDE, sandbox, tmp_path, snap_compare)
