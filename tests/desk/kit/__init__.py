"""The desk layer's test kit: a desk on the test sandbox (`desk`), the counterparties' moves
through the API (`venue`), the deterministic scenes the snapshots and screenshots pin
(`scenes`), and for the roles' unit tests a fake client with a small host app (`fakes`) and
the venue records they trade on (`records`); for the virtual table's own tests a table of
small fills in a host app (`fills`)."""

from __future__ import annotations
