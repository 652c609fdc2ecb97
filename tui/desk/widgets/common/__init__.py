"""What every pane shares: the keyed table, form plumbing, number and time formats, colours."""

from __future__ import annotations
