"""One module (or small package) per game; each registers itself on import.

:func:`tessera.list_games` lists the modules here without importing them.
"""
