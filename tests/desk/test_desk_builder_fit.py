"""Any terminal: the builder's leg row fits the screen at 140x45 and at 80x24.

At 140x45 an option leg's expiry, strike and payoff were cut off the right of the builder;
at 80 columns even more of the row was. Every field of a leg is drawn whole, within the
builder and the screen (two lines per leg where one does not fit).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Select

from tests.desk.kit.desk import DeskFactory, refresh
from tui.api.models import InstrumentType
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen


def inside(widget: Widget, box: Region) -> bool:
    """Whether the widget is drawn whole within ``box``."""
    region = widget.region
    return region.width > 0 and region.height > 0 and box.contains_region(region)


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_an_option_leg_shows_expiry_strike_and_payoff_whole(
    size: tuple[int, int], sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=size) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        builder.query_one("#type-0", Select).value = InstrumentType.VANILLA_OPTION.value
        await pilot.pause()
        legs = builder.query_one("#builder-legs").content_region
        screen = Region(0, 0, *size)
        for name in ("type", "underlying", "side", "ratio", "expiry", "strike", "payoff"):
            field = builder.query_one(f"#{name}-0")
            assert inside(field, legs) and inside(field, screen), (name, field.region, legs)
            assert field.region.width >= (field.styles.width.value if field.styles.width else 1)
