"""The desk's panes, one module each (a pane's form rules beside it), and `common/`: the keyed
table, form plumbing, formats and colours every pane shares."""

from __future__ import annotations
