"""The seek pool ("Play now"): players ask for a game and are paired in waves (:mod:`.pool`) by
rating closeness (the rules: :mod:`.matching`), over the HTTP routes of :mod:`.routes`; the
``seeks`` table is in :mod:`.tables`."""
