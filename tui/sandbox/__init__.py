"""The sandbox exchange: the whole service on loopback over real HTTP, backed by SQLite.

Imports `tui.api` models and the endpoint catalogue; never imports the desk.
"""

from __future__ import annotations
