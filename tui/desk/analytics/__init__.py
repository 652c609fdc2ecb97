"""The desk's analytics: option maths, edge, positions and P&L, history and scorecards.

Pure Python with no Textual and no network: Decimal goes in and comes out at every public
edge (prices, sizes, money), so panes format what they are given and tests check figures
exactly. Float appears only inside the Black-Scholes and implied-vol maths, where the model
needs ``exp``, ``log`` and ``erf`` and its inputs (a vol, a rate) are estimates anyway.
The history store is the one piece that touches the disk (a JSON-lines file in the data
folder, mode 0600), so scorecards survive a restart.
"""
