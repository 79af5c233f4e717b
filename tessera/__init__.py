"""tessera — abstract strategy games with exact rules, a fast engine and strong AI.

>>> import tessera
>>> tessera.list_games()
['ikabegama', 'nelaxtam', 'nibble', 'nume', 'nymbat']
>>> state = tessera.load_game("ikabegama").new_initial_state()
>>> len(state.legal_moves())
18
"""

from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.registry import list_games, load_game

__version__ = "0.1.0"

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Game",
    "IllegalMove",
    "State",
    "list_games",
    "load_game",
]
