"""The venue's API: signed async client, models, budget and errors, and the writes desk that
journals every write and resolves one whose answer was lost (`tui.api.writes`). Never imports
Textual."""

from __future__ import annotations
