"""The desk's panes, one module each, and the small helpers they share (formats, tables)."""

from __future__ import annotations
