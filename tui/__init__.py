"""RFQ Desk: a keyboard-driven terminal trading desk for RFQ derivatives."""

from __future__ import annotations

__version__ = "0.1.0"
