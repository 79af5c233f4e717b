"""Nibble's position dictionary read back: ``state_from_dict`` checks every field and names the problem
(``ValueError``); :meth:`NibbleState.to_dict` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.games.nibble import kernels as _k
from tessera.games.nibble.game import NibbleGame
from tessera.games.nibble.state import NibbleState


def state_from_dict(game: NibbleGame, d: Mapping[str, Any]) -> NibbleState:
    """A state from the position dict (module docstring); ``ValueError`` names the problem."""
    if not isinstance(d, Mapping):
        raise ValueError("a nibble position must be a dict")
    unknown = set(d) - {"colors", "board", "to_move", "cells", "taken", "table", "taking", "seed"}
    if unknown:
        raise ValueError(f"nibble position: unknown key {sorted(unknown)[0]!r}")
    n = game.colors
    for key in ("colors", "board"):
        if key in d and d[key] != game.params[key]:
            raise ValueError(f"nibble position: {key} is {d[key]!r} but this game's is {game.params[key]!r}")
    to_move = d.get("to_move", 0)
    if type(to_move) is not int or to_move not in (0, 1):
        raise ValueError(f"nibble position: to_move must be 0 or 1, not {to_move!r}")
    cells_in = d.get("cells")
    if not isinstance(cells_in, Mapping):
        raise ValueError("nibble position: 'cells' must map cell labels to colours")
    grid = game.grid
    board: dict[int, int] = {}
    for label, colour in cells_in.items():
        try:
            c = grid.cell(str(label))
        except ValueError as e:
            raise ValueError(f"nibble position: cells: {e}") from None
        if not isinstance(colour, int) or isinstance(colour, bool) or not 0 <= colour < n:
            raise ValueError(f"nibble position: cell {label!r} has colour {colour!r}; expected 0 to {n - 1}")
        if c in board:
            raise ValueError(f"nibble position: cell {grid.label(c)!r} is given twice")
        board[c] = colour
    for c, colour in board.items():
        for x in grid.neighbors[c]:
            if board.get(x) == colour and x > c:
                raise ValueError(
                    f"nibble position: blocks {grid.label(c)} and {grid.label(x)} are adjacent and both of "
                    f"colour {colour}; a deal never puts two blocks of one colour side by side"
                )
    occ = grid.mask(board)
    if not grid.is_connected(occ):
        raise ValueError("nibble position: the blocks on the board are not one connected group")
    taken_in = d.get("taken", [[0] * n, [0] * n])
    if (
        not isinstance(taken_in, list | tuple)
        or len(taken_in) != 2
        or not all(isinstance(row, list | tuple) and len(row) == n for row in taken_in)
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for row in taken_in for v in row)
    ):
        raise ValueError(f"nibble position: 'taken' must be two lists of {n} non-negative counts")
    taken = [list(taken_in[0]), list(taken_in[1])]
    on_board = [0] * n
    for colour in board.values():
        on_board[colour] += 1
    for c in range(n):
        total = on_board[c] + taken[0][c] + taken[1][c]
        if total != n:
            raise ValueError(
                f"nibble position: colour {c} has {on_board[c]} blocks on the board and "
                f"{taken[0][c]} + {taken[1][c]} taken, {total} in all; there are {n} of each colour"
            )
    table_in = d.get("table", list(range(n)))
    if (
        not isinstance(table_in, list | tuple)
        or not all(type(v) is int for v in table_in)
        or sorted(table_in) != list(range(n))
    ):
        raise ValueError(f"nibble position: 'table' must be an ordering of the colours 0 to {n - 1}")
    table = list(table_in)
    if not game.params["shuffle_table"] and table != list(range(n)):
        raise ValueError("nibble position: with shuffle_table=false the table must be 0, 1, …, in order")
    seed = d.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError(f"nibble position: seed must be an int, not {seed!r}")
    taking = d.get("taking")
    if taking is not None and (not isinstance(taking, int) or isinstance(taking, bool) or not 0 <= taking < n):
        raise ValueError(f"nibble position: taking must be a colour 0 to {n - 1}, not {taking!r}")
    st = NibbleState(game, board, taken, table, to_move=to_move, seed=seed)
    wins = [p for p in (0, 1) if _k.instant_win(st.s, st._deal, game.geo, p, -1)]
    if len(wins) == 2:
        raise ValueError("nibble position: both players have an instant win; the game stops at the first")
    if taking is not None:
        if st._over:
            raise ValueError("nibble position: 'taking' is given but the game is over")
        if taken[to_move][taking] == 0:
            raise ValueError(f"nibble position: player {to_move} is taking colour {taking} but holds no block of it")
        st._set_taking(taking)
        if _k.legal(st.s, st._deal, game.geo) == 1:  # only end
            raise ValueError(f"nibble position: no block of colour {taking} can be taken, so the turn would have ended")
    return st
