"""The quote board's table: a keyed table that can leave whole columns out for a structure.

An RFQ on a perpetual has no implied vol, so its board gives the IV columns' room to the
edges; an option RFQ shows them. The table's own rule still chooses among the columns left
(the most droppable go first on a narrow board), so there is one rule for what fits.
"""

from __future__ import annotations

from collections.abc import Iterable

from tui.desk.widgets.common.keyed_table import Column, KeyedTable


class BoardTable(KeyedTable):
    """A `KeyedTable` whose ``left_out`` columns are never shown (see module docs)."""

    _left_out: frozenset[str] = frozenset()

    def leave_out(self, keys: Iterable[str]) -> None:
        """Show every column but ``keys`` (the ones that fit); nothing to do when unchanged."""
        wanted = frozenset(keys)
        if wanted == self._left_out:
            return
        self._left_out = wanted
        width = self.scrollable_content_region.width
        if width > 0:
            self.fit_width(width)

    def _columns_for(self, width: int) -> tuple[Column, ...]:
        every = self._columns
        self._columns = tuple(c for c in every if c.key not in self._left_out)
        try:
            return super()._columns_for(width)
        finally:
            self._columns = every
