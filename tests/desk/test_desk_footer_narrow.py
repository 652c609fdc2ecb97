"""The footer at 80x24 (a new-user trial): it is cut at the right, so `? Help` comes early and
is always in view, on every tab."""

from __future__ import annotations

from typing import Any

from textual.widgets._footer import FooterKey

from tests.desk.kit.desk import DeskFactory

NARROW = (80, 24)


async def test_help_is_in_the_footer_at_80_columns_on_every_tab(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        for tab in "123456":
            await pilot.press(tab)
            await pilot.pause()
            keys = {key.description: key.region for key in app.screen.query(FooterKey)}
            assert "Help" in keys, f"tab {tab}: no Help key in the footer"
            region = keys["Help"]
            assert region.width > 0 and region.right <= NARROW[0], f"tab {tab}: Help is cut off"
