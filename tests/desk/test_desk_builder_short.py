"""A short, narrow terminal (80x24): the builder opens readable from its top.

The builder used to open scrolled past its title and its field-order line (the focus on the
first leg's type was centred in a box taller than the screen), with the leg's ratio alone on
a second line under its selects. On open, the title, the field order and the first leg are
in view, the ratio on the side's row; the quantity and the send-to list stay reachable.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Select

from tests.desk.kit.desk import DeskFactory, refresh
from tui.api.models import InstrumentType
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen

SIZE = (80, 24)


def seen(widget: Widget, builder: NewRfqScreen) -> bool:
    """Whether the widget is drawn whole in the part of the builder's box on screen."""
    box = builder.query_one("#rfq-builder").content_region
    region = widget.region
    return region.width > 0 and region.height > 0 and box.contains_region(region)


async def open_builder(app: Any, pilot: Any) -> NewRfqScreen:
    """Open the builder on a desk that knows the companies and assets."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
    await pilot.press("n")
    await pilot.pause()
    await pilot.pause()
    builder = app.screen
    assert isinstance(builder, NewRfqScreen)
    return builder


async def test_the_builder_opens_with_its_title_and_the_leg_on_one_line(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        title = builder.query_one(".modal-title")
        order = builder.query_one("#builder-order")
        side, ratio = builder.query_one("#side-0"), builder.query_one("#ratio-0")
        for widget in (title, order, builder.query_one("#type-0"), side, ratio):
            assert seen(widget, builder), (widget, widget.region)
        assert ratio.region.y == side.region.y
        assert ratio.region.x > side.region.right - 1

        # An option leg: its first line still ends with the ratio; expiry, strike and payoff
        # on the line below, every field still in view.
        builder.query_one("#type-0", Select).value = InstrumentType.VANILLA_OPTION.value
        await pilot.pause()
        assert builder.query_one("#ratio-0").region.y == builder.query_one("#side-0").region.y
        for name in ("expiry", "strike", "payoff"):
            field = builder.query_one(f"#{name}-0")
            assert seen(field, builder), (name, field.region)
            assert field.region.y == side.region.y + 1


async def test_quantity_and_companies_are_reachable_on_a_short_screen(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        for name in ("#qty", "#targets", "#go"):
            builder.query_one(name).focus()
            await pilot.pause()
            await pilot.pause()
            assert seen(builder.query_one(name), builder), name
