"""Nibble's state: a position as one ``int32`` array played by the kernels, with the dealt game it
belongs to; its steps, refusals, random play, notation, position dictionary and evaluation."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
    GAME_OVER,
    Action,
    IllegalMove,
    RolloutResult,
    TurnState,
    no_such_action,
    not_legal,
)
from tessera.core.kernels import rng_state
from tessera.core.render import text_diagram
from tessera.core.texts import Text, colour_text, name_text, outcome
from tessera.games.nibble import kernels as _k
from tessera.games.nibble.constants import (
    NAMES,
    PALETTE,
)

if TYPE_CHECKING:
    from tessera.games.nibble.game import NibbleGame


def _deal_array(table: tuple[int, ...], col: np.ndarray) -> np.ndarray:
    """The kernels' ``deal`` array: the table, each colour's triples, each colour's cells."""
    n = len(table)
    out = np.full(4 * n + n * n, -1, np.int32)
    out[:n] = table
    _k.fill_deal(out, col, n)
    return out


_STATUS: list[tuple[int, bool, int | None, int | None]] = [
    (b & 1, bool(b & 2), ((b >> 2) & 3) - 1 if (b >> 2) & 3 else None, (b >> 4) - 1 if b >> 4 else None)
    for b in range(16 * 15)
]
"""The kernels' packed header (``kernels.status``) → ``(to_move, over, winner, taking)``."""


class NibbleState(TurnState):
    """A position as one ``int32`` array (module docstring, Engine notes) played by the kernels."""

    game: NibbleGame

    def __init__(
        self,
        game: NibbleGame,
        board: Mapping[int, int] | np.ndarray,
        taken: list[list[int]],
        table: list[int],
        *,
        to_move: int = 0,
        seed: int | None = None,
    ) -> None:
        """``board``: grid cell id → colour, or the colours by cell index (``−1``: no block)."""
        super().__init__(game)
        n = game.colors
        k = len(game.cells)
        s = np.full(_k.state_size(k, n), -1, np.int32)
        if isinstance(board, np.ndarray):
            s[:k] = board
        else:
            idx = game.index
            for c, colour in board.items():
                s[idx[c]] = colour
        s[k : k + 2 * n] = [*taken[0], *taken[1]]
        h = k + 2 * n
        s[h + _k.TO_MOVE] = to_move
        s[h + _k.OVER] = 0
        s[h + _k.ON_BOARD] = int(np.count_nonzero(s[:k] >= 0))
        self.s: np.ndarray = s
        """The position (module docstring, Engine notes; layout in :mod:`tessera.games.nibble.kernels`)."""
        self._h = h
        self.table: tuple[int, ...] = tuple(table)
        """The colour table, left to right."""
        self._deal: np.ndarray = _deal_array(self.table, s[:k])
        """Table, triples and each colour's cells: fixed for the whole game, shared by clones."""
        self.seed = seed
        _k.settle(s, self._deal, game.geo)
        self._sync(_k.status(s, game.geo))

    def _sync(self, status: int) -> None:
        """Mirror the kernel's packed header (:func:`_k.status`) in plain attributes."""
        self.to_move, self._over, self._winner, self.taking = _STATUS[status]
        self._legal: list[int] | None = None
        self._n_legal = -1
        """How many legal actions the array caches (from :func:`_k.apply_step`), ``-1``: not known here."""

    def _set_taking(self, colour: int) -> None:
        """Put the position in the middle of a turn taking ``colour`` (positions from dicts)."""
        self.s[self._h + _k.TAKING] = colour
        self.s[self._h + _k.N_LEGAL] = -1
        self._sync(_k.status(self.s, self.game.geo))

    def _copy_from(self, other: NibbleState) -> None:
        self.s = other.s.copy()
        self._h = other._h
        self.table = other.table
        self._deal = other._deal
        self.seed = other.seed
        self.to_move = other.to_move
        self._over = other._over
        self._winner = other._winner
        self.taking = other.taking
        self._legal = other._legal  # never changed in place
        self._n_legal = other._n_legal

    # -- views -----------------------------------------------------------------------
    @property
    def taken(self) -> list[list[int]]:
        """``taken[p][c]``: blocks of colour ``c`` player ``p`` holds (a copy)."""
        k = len(self.game.cells)
        n = self.game.colors
        flat = self.s[k : k + 2 * n].tolist()
        return [flat[:n], flat[n:]]

    @property
    def occ(self) -> int:
        """Bit set (grid cell ids) of the blocks on the board."""
        cells = self.game.cells
        k = len(cells)
        return sum(1 << cells[i] for i in np.flatnonzero(self.s[:k] >= 0).tolist())

    def blocks(self) -> dict[int, int]:
        """Colour of each block on the board, by grid cell id (in label order)."""
        cells = self.game.cells
        k = len(cells)
        col = self.s[:k].tolist()
        return {cells[i]: c for i, c in enumerate(col) if c >= 0}

    def majorities(self) -> list[int]:
        """How many colours each player holds a majority of."""
        geo = self.game.geo
        return [_k.majorities(self.s, geo, 0), _k.majorities(self.s, geo, 1)]

    def _instant_win(self, p: int) -> bool:
        """Whether ``p`` holds every block of a colour or enough of three table-adjacent colours."""
        return bool(_k.instant_win(self.s, self._deal, self.game.geo, p, -1))

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): a whole colour, three table neighbours, or majorities."""
        if not self._over:
            return None
        n = self.game.colors
        need = self.game.triple_need
        w = self._winner
        if w is not None and self._instant_win(w):
            mine = self.taken[w]
            name = name_text(NAMES[w])
            for c in range(n):
                if mine[c] >= n:
                    colour = colour_text(PALETTE[c][0])
                    return outcome(
                        "colour",
                        Text("result.colour", f"{name} took all {n} {colour} blocks", name=name, n=n, colour=colour),
                    )
            t = self.table
            for i in range(len(t) - 2):
                tri = t[i : i + 3]
                if all(mine[c] >= need for c in tri):
                    colours = [colour_text(PALETTE[c][0]) for c in tri]
                    return outcome(
                        "neighbours",
                        Text(
                            "result.neighbours",
                            f"{name} took {need} or more blocks of each of {', '.join(colours)} "
                            "(neighbours on the colour table)",
                            name=name,
                            n=need,
                            colours=colours,
                        ),
                    )
        s = self.majorities()
        if w is None:
            return outcome(
                "majority",
                Text("result.majority_draw", f"The board is empty: each player holds {s[0]} colours: a draw", n=s[0]),
            )
        name, other = name_text(NAMES[w]), name_text(NAMES[1 - w])
        return outcome(
            "majority",
            Text(
                "result.majority",
                f"The board is empty: {name} holds the majority in {s[w]} of {n} colours ({other}: {s[1 - w]})",
                name=name,
                k=s[w],
                n=n,
                other=other,
                m=s[1 - w],
            ),
        )

    # -- protocol ----------------------------------------------------------------------
    def scores(self) -> list[float]:
        """How many colours each player holds a majority of (5+ of 9, 7+ of 13 blocks)."""
        return [float(v) for v in self.majorities()]

    def _legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            m = self._n_legal
            if m < 0:
                m = _k.legal(self.s, self._deal, self.game.geo)
            start = self._h + _k.LEGAL
            legal = self._legal = self.s[start : start + m].tolist()
        return legal[:]

    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """``State.legal_actions_array``: a read-only view of the legal actions the kernels cache in the
        position array (``int32``; no copy, valid until the state changes)."""
        if self._over or (player is not None and player != self.to_move):
            out = np.empty(0, np.int32)
        else:
            m = self._n_legal
            if m < 0:
                m = _k.legal(self.s, self._deal, self.game.geo)
            start = self._h + _k.LEGAL
            out = self.s[start : start + m]
        out.flags.writeable = False
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """``State.legal_actions`` in one step: the list the last kernel call cached, without the generic dispatch."""
        if self._over or (player is not None and player != self.to_move):
            return []
        return self._legal_actions()

    def _illegal_reason(self, action: Action) -> str | None:
        g = self.game
        if _k.is_legal(self.s, self._deal, g.geo, action):
            return None
        if action == g.end_action:
            return Text("refusal.nibble.end_first", "end: take at least one block first (passing is not allowed)")
        if not 0 <= action < g.end_action:
            return Text(
                "refusal.no_such_action",
                f"action {action} is not an action of nibble",
                action=str(action),
                game="nibble",
            )
        label = g.grid.label(g.cells[action])
        colour = int(self.s[action])
        if colour < 0:
            return Text("refusal.nibble.no_block", f"{label}: there is no block there", move=label)
        if self.taking is not None and colour != self.taking:
            want, got = colour_text(PALETTE[self.taking][0]), colour_text(PALETTE[colour][0])
            return Text(
                "refusal.nibble.one_colour",
                f"{label}: this turn takes {want} blocks (colour {self.taking}); "
                f"this block is {got} (colour {colour}): all blocks of a turn are of one colour",
                move=label,
                want=want,
                want_n=self.taking,
                got=got,
                got_n=colour,
            )
        if not _k.on_corner(self.s, g.geo, action):
            if g.square:
                return Text(
                    "refusal.nibble.corner_square",
                    f"{label}: the block is not on a corner (it needs two exposed sides that share a corner)",
                    move=label,
                )
            return Text(
                "refusal.nibble.corner_hex",
                f"{label}: the block is not on a corner (it needs three consecutive exposed sides)",
                move=label,
            )
        return Text(
            "refusal.nibble.split",
            f"{label}: taking this block would split the blocks left on the board into separate groups",
            move=label,
        )

    def _apply(self, action: Action) -> None:
        g = self.game
        self._sync(_k.apply(self.s, self._deal, g.geo, action))

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move, checked (one kernel call; ``IllegalMove`` if not legal)."""
        if self._over:
            raise IllegalMove(GAME_OVER)
        g = self.game
        if type(action) is not int:
            if not isinstance(action, int):
                raise IllegalMove(no_such_action(action, g.name))
            action = int(action)  # a bool is an int, as in State.apply_action; the kernel takes plain ints
        if not 0 <= action <= g.end_action:
            raise IllegalMove(no_such_action(action, g.name))
        p = self.to_move
        status = _k.apply_step(self.s, self._deal, g.geo, action, self._n_legal)
        if status < 0:
            raise IllegalMove(self._illegal_reason(action) or not_legal(self.action_to_string(action)))
        self.to_move, self._over, self._winner, self.taking = _STATUS[status & 255]
        self._legal = None
        self._n_legal = status >> 8 if not self._over else -1
        self._history.append((p, action))

    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A uniformly random legal action (``rng.random()`` picks from the legal steps the kernel lists)."""
        if self._over or (player is not None and player != self.to_move):
            return super().random_action(rng, player)
        return int(_k.random_step(self.s, self._deal, self.game.geo, rng.random()))

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``n`` random games from here in one kernel call (:meth:`State.rollouts`); the state is unchanged.

        Each plays uniformly random steps to the end (±1, 0 for a draw) or for ``max_plies``
        steps, then scored by :meth:`evaluate`; same seed, same result.
        """
        if n < 0:
            raise ValueError(f"rollouts: n must be >= 0, not {n!r}")
        if max_plies is not None and max_plies < 0:
            raise ValueError(f"rollouts: max_plies must be >= 0 or None, not {max_plies!r}")
        out = np.zeros(n, np.float64)
        cutoff = -1 if max_plies is None else max_plies
        plies = _k.rollouts(self.s, self._deal, self.game.geo, rng_state(seed), cutoff, out) if n else 0
        v0 = float(out.sum())
        return RolloutResult(n, (v0, -v0), int(plies))

    # -- notation ----------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        g = self.game
        if action == g.end_action:
            return "end"
        if not isinstance(action, int) or not 0 <= action < g.end_action:
            raise IllegalMove(f"action {action!r} is not an action of nibble")
        return g.grid.label(g.cells[action])

    def string_to_action(self, move: str) -> Action:
        g = self.game
        text = move.strip().lower()
        if text == "end":
            return g.end_action
        try:
            c = g.grid.cell(text)
        except ValueError as e:
            raise IllegalMove(
                Text(
                    "refusal.nibble.syntax",
                    f"{move!r} is not a move: {e}; a move is a cell label such as 'c1', or 'end'",
                    move=repr(move),
                    reason=str(e),
                )
            ) from None
        return g.index[c]

    # -- positions ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        g = self.game
        grid = g.grid
        d: dict[str, Any] = {
            "colors": g.colors,
            "board": g.params["board"],
            "to_move": self.to_move,
            "cells": {grid.label(c): colour for c, colour in self.blocks().items()},
            "taken": self.taken,
            "table": list(self.table),
        }
        if self.taking is not None:
            d["taking"] = self.taking
        if self.seed is not None:
            d["seed"] = self.seed
        return d

    # -- agents ------------------------------------------------------------------------
    def evaluate(self, player: int) -> float:
        """Majority race plus instant-win threats, squashed by ``tanh`` (module docstring); exact when over."""
        if self._over:
            return self.returns()[player]
        return float(_k.evaluate(self.s, self._deal, self.game.geo, player))

    # -- drawing (render.py) ---------------------------------------------------------
    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: a spectator)."""
        from tessera.games.nibble.render import render

        return render(self, player)

    def render_shared(self) -> dict[str, Any]:
        """The render's fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
        from tessera.games.nibble.render import render_shared

        return render_shared(self)

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The render's fields of ``player``'s seat (:meth:`tessera.core.game.State.render_seat`)."""
        from tessera.games.nibble.render import render_seat

        return render_seat(self, player, actions=actions)

    def __str__(self) -> str:
        return text_diagram(self.render())
