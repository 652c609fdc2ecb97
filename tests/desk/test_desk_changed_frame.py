"""A frame draws only the widgets under what changed (issue 11), and the terminal still ends up
with exactly the screen Textual would show: countdowns far apart (the top of a table, a ticket's
head, the status bar) no longer redraw every pane between them."""

from __future__ import annotations

from typing import Any

from rich.segment import ControlType, Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Label

from tests.desk.kit.desk import SIZE, DeskFactory
from tui.desk.changed_frame import ChangedFrameCompositor, ChangedFrameScreen
from tui.desk.messages import FreshnessChanged, PaneAge
from tui.desk.stale_marks import StaleMarks
from tui.desk.widgets.live_text import LiveText

Cells = list[list[tuple[str, Style | None]]]


class FarApart(App[None]):
    """Two ticking lines far apart, panes with borders between them, an overlay on top."""

    CSS = """
    #top, #bottom { height: 1; }
    .pane { border: round $primary; height: 1fr; }
    #overlay { dock: right; width: 12; height: 3; offset-y: 1; background: red; }
    """

    def get_default_screen(self) -> Screen[Any]:
        return ChangedFrameScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield LiveText("expires 0:41  first line", id="top", fixed_size=True)
        with Horizontal(classes="pane", id="middle"):
            yield Label("a label in between", id="between")
            with Vertical():
                yield Label("bid 101.5", id="bid")
                yield Label("ask 102.0", id="ask")
        yield Label("overlay", id="overlay")
        yield LiveText("tokens 12/100 │ inbox 3s", id="bottom", fixed_size=True)


def _cells(strips: list[Strip]) -> Cells:
    return [
        [(char, segment.style) for segment in strip for char in segment.text] for strip in strips
    ]


def _apply(terminal: Cells, segments: list[Segment]) -> None:
    """Write a frame's segments into ``terminal`` the way a terminal would."""
    x = y = 0
    for segment in segments:
        if segment.control:
            for control in segment.control:
                if control[0] is ControlType.CURSOR_MOVE_TO:
                    x, y = int(control[1]), int(control[2])
            continue
        for char in segment.text:
            if char == "\n":
                continue
            terminal[y][x] = (char, segment.style)
            x += 1


def _frames(compositor: ChangedFrameCompositor) -> list[Any]:
    """Every partial frame the compositor draws from now on."""
    frames: list[Any] = []
    original = compositor.render_partial_update

    def spy() -> Any:
        update = original()
        if update is not None:
            frames.append(update)
        return update

    compositor.render_partial_update = spy  # type: ignore[method-assign]
    return frames


def _drawn(widget: Widget) -> list[int]:
    """How many lines each `render_lines` of the widget drew, from now on."""
    drawn: list[int] = []
    original = widget.render_lines

    def spy(crop: Any) -> list[Strip]:
        drawn.append(crop.height)
        return original(crop)

    widget.render_lines = spy  # type: ignore[method-assign]
    return drawn


async def test_far_apart_changes_draw_only_their_widgets_and_the_screen_stays_true() -> None:
    app = FarApart()
    async with app.run_test(size=(60, 14)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, ChangedFrameCompositor)
        terminal = _cells(compositor.render_strips())
        frames = _frames(compositor)
        between, middle = app.query_one("#between"), app.query_one("#middle")
        drawn_between, drawn_middle = _drawn(between), _drawn(middle)
        top, bottom = app.query_one("#top", LiveText), app.query_one("#bottom", LiveText)

        top.update("expires 0:40  first line")
        bottom.update("tokens 14/100 │ inbox 4s")
        await pilot.pause()
        assert frames, "the changes were drawn"
        assert drawn_between == [] and drawn_middle == []  # the panes between: not drawn

        app.query_one("#bid", Label).update("bid 101.6")  # under the overlay's column
        app.query_one("#overlay", Label).update("overlay 2")
        await pilot.pause()
        assert drawn_between == []  # beside the change, not under it

        console = app.console
        for frame in frames:
            _apply(terminal, list(console.render(frame, console.options)))
        assert terminal == _cells(compositor.render_strips())


async def test_the_widgets_placed_follow_a_new_layout() -> None:
    """Where each widget sits is worked out once per layout, not per frame: after the layout
    changes (the overlay goes), a change is drawn from the widgets now there."""
    app = FarApart()
    async with app.run_test(size=(60, 14)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, ChangedFrameCompositor)
        terminal = _cells(compositor.render_strips())
        frames = _frames(compositor)
        top = app.query_one("#top", LiveText)
        top.update("expires 0:40  first line")
        await pilot.pause()
        placed = compositor._placements()
        top.update("expires 0:39  first line")  # a countdown: no new layout
        await pilot.pause()
        assert compositor._placements() is placed  # the same layout: not worked out again
        app.query_one("#overlay").display = False
        await pilot.pause()
        terminal = _cells(compositor.render_strips())  # the new layout's full frame
        frames.clear()
        app.query_one("#bid", Label).update("bid 101.8")  # where the overlay was
        await pilot.pause()
        assert compositor._placements() is not placed
        assert frames
        console = app.console
        for frame in frames:
            _apply(terminal, list(console.render(frame, console.options)))
        assert terminal == _cells(compositor.render_strips())


async def test_the_desk_draws_on_the_changed_frame_screen(desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE):
        assert isinstance(app.screen._compositor, ChangedFrameCompositor)


async def test_unchanged_stale_marks_look_no_pane_up() -> None:
    class Marked(App[None]):
        def compose(self) -> ComposeResult:
            yield Label("inbox", id="inbox")

    app = Marked()
    async with app.run_test() as pilot:
        marks = StaleMarks(app)
        inbox = app.query_one("#inbox")
        inbox.border_title = "RFQ inbox"
        stale = (PaneAge("inbox", 12.0, True),)
        marks.link(FreshnessChanged(stale, 10))
        assert "STALE 12s" in str(inbox.border_title)
        looked_up: list[str] = []
        original = app.query_one

        def spy(*args: Any, **kwargs: Any) -> Any:
            looked_up.append(str(args[0]))
            return original(*args, **kwargs)

        app.query_one = spy  # type: ignore[method-assign]
        marks.link(FreshnessChanged(stale, 11))  # the same marks: nothing looked up
        assert looked_up == []  # nor the panes not built (looked up once, at the first news)
        marks.link(FreshnessChanged((PaneAge("inbox", 1.0, False),), 11))
        assert looked_up == ["#inbox"] and inbox.border_title == "RFQ inbox"
        await pilot.pause()
