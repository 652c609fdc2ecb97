"""The desk: the Textual app a trader works in, and everything only it uses.

Data flows one way: `feed` polls the venue through the one shared `ServiceClient`, judges what
it saw (what polls fast, how fresh each pane is, what is new) and posts `messages`; the app
files them in the `book` and `panes` hands them to the `widgets`; a key asks a role (`roles`)
for an action, which runs on the client and answers with a typed outcome that is filed and
shown the same way. Imports `tui.api`; never imports `tui.sandbox` (it starts the sandbox as a
separate process).
"""

from __future__ import annotations
