"""The header at 80 columns: every figure labelled and on screen, no label running into the
figure or name before it (issue 9, "any terminal")."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.widgets import Static

from tests.desk.kit.desk import DeskFactory, refresh
from tui.desk.messages import Topic
from tui.desk.widgets.portfolio_header import HEADER_FIGURES


async def test_the_header_fits_80_columns_with_every_figure_labelled(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.SUMMARY)
        await pilot.pause()
        portfolio = app.query_one("#portfolio", Static)
        shown = str(portfolio.render())
        lines = shown.splitlines()
        assert all(cell_len(line) <= portfolio.size.width for line in lines), lines
        assert len(lines) <= portfolio.size.height, (lines, portfolio.size)
        for label, _meaning in HEADER_FIGURES:
            assert label in shown, label
        identity = str(app.query_one("#identity", Static).render())
        assert " · profile " in identity, identity
