"""The seek pool ("Play now"): players ask for a game and are paired in waves by rating closeness
(:mod:`.pool`), over the HTTP routes of :mod:`.routes`; the ``seeks`` table is in :mod:`.tables`."""
