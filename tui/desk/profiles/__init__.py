"""Venue profiles: checking a profile's credentials against the venue, writing a profile into
the config file, and keeping the wallet key in an encrypted keystore.

Settings themselves (what the file and the environment say) are `tui.desk.config`; how a file
holding a secret is written and checked is `tui.paths`. Nothing here imports Textual: the
first-run screen (`tui.desk.screens.first_run`) and ``rfq-desk profile add`` share it.
"""
