"""The quote board's table: a keyed table that can leave whole columns out for a structure
and never lets a row slide under the cursor into a trade (like every keyed table, it widens a
price column rather than cut a price).

An RFQ on a perpetual has no implied vol, so its board gives the IV columns' room to the
edges; an option RFQ shows them. The table's own rule still chooses among the columns left
(the most droppable go first on a narrow board), so there is one rule for what fits.

When the quote under the cursor goes (withdrawn, expired, replaced by a requote), the cursor
lands, by position, on some other maker's quote the trader never looked at. Such a row is not
*chosen*: `chosen_key` is None until the trader moves the cursor (any cursor key or a click,
even one that cannot move it), so ``b``/``s`` ask for a fresh look instead of trading it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual import events

from tui.desk.widgets.common.keyed_table import Cell, Column, KeyedTable


class BoardTable(KeyedTable):
    """A `KeyedTable` whose ``left_out`` columns are never shown and whose cursor row is not
    chosen after the chosen quote went (see module docs)."""

    _left_out: frozenset[str] = frozenset()
    lost_key: str | None = None
    """The quote the cursor was on when it went; None once the trader looked again."""

    def leave_out(self, keys: Iterable[str]) -> None:
        """Show every column but ``keys`` (the ones that fit); nothing to do when unchanged."""
        wanted = frozenset(keys)
        if wanted == self._left_out:
            return
        self._left_out = wanted
        width = self.scrollable_content_region.width
        if width > 0:
            self.fit_width(width)

    def _candidates(self) -> tuple[Column, ...]:
        """Every column but the ones left out for this structure."""
        return tuple(c for c in self._columns if c.key not in self._left_out)

    # -- the chosen quote -------------------------------------------------------------------

    def merge(self, rows: Iterable[tuple[str, Sequence[Cell]]], *, prune: bool = False) -> int:
        """`KeyedTable.merge`, noting when the row under the cursor went."""
        before = self.selected_key
        added = super().merge(rows, prune=prune)
        if before is not None and not self.has_row(before):
            self.lost_key = before
        return added

    def clear_rows(self) -> None:
        """Drop every row; nothing is lost (another RFQ's quotes come next)."""
        super().clear_rows()
        self.lost_key = None

    @property
    def chosen_key(self) -> str | None:
        """The quote the trader chose: the row under the cursor, unless it slid there when
        the chosen one went."""
        return None if self.lost_key is not None else self.selected_key

    def select_key(self, key: str) -> None:
        """Move the cursor to the row with this key (a deliberate choice)."""
        self.lost_key = None
        super().select_key(key)

    def _looked(self) -> None:
        self.lost_key = None

    def action_cursor_up(self) -> None:
        """Up a row: the trader looks again."""
        self._looked()
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        """Down a row: the trader looks again."""
        self._looked()
        super().action_cursor_down()

    def action_page_up(self) -> None:
        """Up a page: the trader looks again."""
        self._looked()
        super().action_page_up()

    def action_page_down(self) -> None:
        """Down a page: the trader looks again."""
        self._looked()
        super().action_page_down()

    def action_scroll_top(self) -> None:
        """To the first quote: the trader looks again."""
        self._looked()
        super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        """To the last quote: the trader looks again."""
        self._looked()
        super().action_scroll_bottom()

    async def _on_click(self, event: events.Click) -> None:
        self._looked()
        await super()._on_click(event)
