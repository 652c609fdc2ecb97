"""The venue's API: signed async client, models, budget and errors. Never imports Textual."""

from __future__ import annotations
