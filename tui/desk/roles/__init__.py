"""The trader's actions, by role: taker, maker, pools, safety.

Each role turns a request from a key, the command palette or a pane into an action on the
venue: it confirms what must be confirmed (a modal), then hands the action to the one
`runner`, which calls the shared client in a worker and posts a typed `ActionOutcome`. Roles
never draw panes; the desk files the outcome in the book and the panes show it. A role needs
only the narrow `DeskHost` of the app, so it runs as well against a fake client in a test.
"""

from __future__ import annotations
