"""The structure builder's room: what the RFQ builder offers and remembers, without Textual.

The venue's standard expiries and a strike grid around the mark (`calendar`), a structure as
typed (`draft`), the templates and the last RFQ kept on disk (`templates`), the delta-hedge leg
(`hedge`), what the builder knows of the market (`market`), and the venue's quantity ticks and
price precision a quantity and a strike are held to (`ticks`, `strikes`). The builder screen
itself is `tui.desk.screens.new_rfq`; its list fields and small dialogs are `fields` and
`dialogs` here.
"""
