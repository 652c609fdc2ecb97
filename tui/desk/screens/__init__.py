"""Modal screens of the desk: confirmations, forms (new RFQ, permit, pool), help, password."""

from __future__ import annotations
