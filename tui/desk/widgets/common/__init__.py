"""What every pane shares: the keyed and virtual tables, form plumbing, formats, colours."""

from __future__ import annotations
