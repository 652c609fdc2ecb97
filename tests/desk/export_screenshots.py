"""Render every pane of the desk as SVG into screenshots/ (for the README and for review).

Deterministic: each scene runs on a fresh copy of the seeded sandbox with a frozen clock, the
desk's feed polled once by hand, and machine-dependent numbers pinned, exactly as the snapshot
tests do (the scenes are shared: tests/desk/kit/scenes.py). The Trade tab and the quote board
are also rendered in every built-in theme.

    python tests/desk/export_screenshots.py            # all scenes -> screenshots/*.svg
    python tests/desk/export_screenshots.py trade pools --out /tmp/shots
    python tests/desk/export_screenshots.py positions history --size 80x24 --out /tmp/shots
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import (  # noqa: E402  (the shared sandbox fixture's building blocks)
    SANDBOX_BLOCK_DELAY_S,
    SANDBOX_SEED,
    SANDBOX_START_MS,
    Sandbox,
    make_sandbox,
)

from tests.desk.kit.desk import SIZE, make_desk  # noqa: E402
from tests.desk.kit.scenes import SCENES, build_world, freeze, open_desk  # noqa: E402
from tui.desk.themes import BUILTIN_THEMES  # noqa: E402
from tui.sandbox.engine.clock import SandboxClock  # noqa: E402
from tui.sandbox.engine.exchange import Exchange  # noqa: E402


def seeded_template(directory: Path) -> Path:
    """A freshly seeded sandbox database, as the test session makes one."""
    path = directory / "template.db"
    clock = SandboxClock(frozen_at_ms=SANDBOX_START_MS)
    Exchange.open(path, seed=SANDBOX_SEED, clock=clock, block_delay_s=SANDBOX_BLOCK_DELAY_S).close()
    return path


SMALL = (80, 24)
"""The smallest terminal the desk is made for (SSH at 80x24): some scenes are shown at it too."""
SMALL_SCENES = ("trade", "quote_board", "positions", "history")
"""The scenes also rendered at `SMALL` when every scene is."""


def _size(text: str) -> tuple[int, int]:
    """``80x24`` as (columns, rows)."""
    columns, _, rows = text.lower().partition("x")
    try:
        return int(columns), int(rows)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not columns x rows: {text!r}") from None


async def render(
    sandbox: Sandbox, scene: str, theme: str, workdir: Path, size: tuple[int, int] = SIZE
) -> str:
    """One scene as SVG text, at ``size`` (columns, rows)."""
    app = make_desk(sandbox, workdir, theme=theme)
    async with app.run_test(size=size) as pilot:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        await SCENES[scene](app, pilot, world)
        await pilot.pause()
        freeze(app)
        await pilot.pause()
        return app.export_screenshot(title=f"RFQ Desk - {scene}")


def main(argv: list[str] | None = None) -> int:
    """Render the chosen scenes (default: all) into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help=f"scenes (default all): {', '.join(SCENES)}")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument(
        "--size", type=_size, default=SIZE, help="columns x rows of the chosen scenes (140x45)"
    )
    args = parser.parse_args(argv)
    unknown = [s for s in args.scenes if s not in SCENES]
    if unknown:
        parser.error(f"unknown scene(s): {', '.join(unknown)}")
    jobs = [(scene, "desk-dark", args.size) for scene in (args.scenes or SCENES)]
    if not args.scenes:
        themed = [t for t in BUILTIN_THEMES if t != "desk-dark"]  # bid and ask in each theme
        jobs += [(scene, t, SIZE) for scene in ("trade", "quote_board") for t in themed]
        jobs += [(scene, "desk-dark", SMALL) for scene in SMALL_SCENES]
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        template = seeded_template(Path(scratch))
        for index, (scene, theme, size) in enumerate(jobs):
            workdir = Path(scratch) / f"run-{index}"
            workdir.mkdir()
            sandbox = make_sandbox(template, workdir)
            try:
                svg = asyncio.run(render(sandbox, scene, theme, workdir, size))
            finally:
                sandbox.stop()
            name = scene if theme == "desk-dark" else f"{scene}-{theme}"
            if size != SIZE:
                name += f"-{size[0]}x{size[1]}"
            target = args.out / f"{name}.svg"
            target.write_text(svg, encoding="utf-8")
            print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
