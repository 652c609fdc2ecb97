"""Snapshot tests: the desk in every built-in theme (the quote board: bid, ask, best marks,
a last look waiting, the status bar), pinned as SVG like `test_desk_snapshots.py`.

Same still picture as the pane snapshots (seeded sandbox, frozen clock, feed polled once,
latency pinned): only the theme changes. Update after an intended change to a theme with
``pytest tests/desk/test_desk_themes_snapshots.py --snapshot-update`` and look at the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.desk.kit.desk import SIZE, make_desk
from tests.desk.kit.scenes import SCENES, build_world, freeze, open_desk
from tui.desk.themes import BUILTIN_THEMES

SCENE = "quote_board"
"""The scene with the most colours of a theme in it."""


@pytest.mark.parametrize("theme", list(BUILTIN_THEMES))
def test_theme_snapshot(theme: str, sandbox: Any, tmp_path: Path, snap_compare: Any) -> None:
    app = make_desk(sandbox, tmp_path, theme=theme)

    async def run_before(pilot: Pilot[Any]) -> None:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        await SCENES[SCENE](app, pilot, world)
        await pilot.pause()
        freeze(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
