"""Nim with one heap (the subtraction game): an example tessera game living in its own package.

Rules
    A heap of ``stones`` stones (default 15).  Players alternate; a move takes 1 to
    ``take`` stones (default 3) from the heap.  Who takes the last stone wins.
    Known theory: the player to move loses exactly when the heap is a multiple of
    ``take + 1`` — so the first player wins unless ``stones`` is such a multiple.

Moves are written as the number of stones taken: ``"1"``, ``"2"``, ``"3"``.
Integer actions: ``n − 1`` takes ``n``.

Evaluation
    The exact value by the theory above: +1 for the player to move on a winning heap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.core.game import Action, Game, GameInfo, IllegalMove, Param, TurnState
from tessera.core.render import cell_entry, describe, piece, text_diagram

INFO = GameInfo(
    name="nim",
    title="Nim",
    params=(
        Param("stones", 15, int, "stones in the heap at the start", min=1, max=60),
        Param("take", 3, int, "most stones a move may take", min=1, max=10),
    ),
    player_names=("First", "Second"),
    board_kind="square",
    summary=__doc__ or "",
    designer="traditional (example package of docs/games.md)",
    examples=("nim(stones=8,take=3)",),
)


class NimGame(Game):
    """One heap, ``take`` stones at most per move."""

    info = INFO

    def new_initial_state(self, seed: int | None = None) -> NimState:
        return NimState(self, self.params["stones"])

    def state_from_dict(self, d: Mapping[str, Any]) -> NimState:
        stones, to_move = d.get("stones"), d.get("to_move", 0)
        if not isinstance(stones, int) or isinstance(stones, bool) or not 0 <= stones <= self.params["stones"]:
            raise ValueError(f"nim: stones must be an integer from 0 to {self.params['stones']}, not {stones!r}")
        if to_move not in (0, 1):
            raise ValueError(f"nim: to_move must be 0 or 1, not {to_move!r}")
        st = NimState(self, stones)
        st.to_move = to_move
        if stones == 0:
            st._over, st._winner = True, 1 - to_move
        return st

    def num_distinct_actions(self) -> int:
        return int(self.params["take"])

    def max_game_length(self) -> int:
        return int(self.params["stones"])


class NimState(TurnState):
    """The heap and the player to move."""

    def __init__(self, game: Game, stones: int) -> None:
        super().__init__(game)
        self.stones = stones
        self.to_move = 0
        self._over = False
        self._winner: int | None = None

    def _legal_actions(self) -> list[Action]:
        return list(range(min(self.game.params["take"], self.stones)))

    def _illegal_reason(self, action: Action) -> str | None:
        if not 0 <= action < self.game.params["take"]:
            return f"a move takes 1 to {self.game.params['take']} stones"
        if action + 1 > self.stones:
            return f"only {self.stones} stones are left"
        return None

    def _apply(self, action: Action) -> None:
        self.stones -= action + 1
        if self.stones == 0:
            self._over, self._winner = True, self.to_move
        self.to_move = 1 - self.to_move

    def action_to_string(self, action: Action) -> str:
        return str(action + 1)

    def string_to_action(self, move: str) -> Action:
        if not move.strip().isdigit():
            raise IllegalMove(f"{move!r}: a move is the number of stones taken, e.g. '2'")
        return int(move) - 1

    def to_dict(self) -> dict[str, Any]:
        return {"stones": self.stones, "to_move": self.to_move}

    def _copy_from(self, other: Any) -> None:
        self.stones, self.to_move = other.stones, other.to_move
        self._over, self._winner = other._over, other._winner

    def evaluate(self, player: int) -> float:
        if self._over:
            return self.returns()[player]
        mover_wins = self.stones % (self.game.params["take"] + 1) != 0
        return 1.0 if mover_wins == (player == self.to_move) else -1.0

    def render(self, player: int | None = None) -> dict[str, Any]:
        total = self.game.params["stones"]
        cells = [cell_entry(f"s{i + 1}", float(i), 0.0) for i in range(total)]
        pieces = [piece(f"s{i + 1}", None, symbol="o", color="#8a6d3b") for i in range(self.stones)]
        return describe(
            self,
            board={"kind": "square", "cells": cells, "unbounded": False, "coords": "rows"},
            pieces=pieces,
            players=[{"name": "First", "color": "#1d1d1f"}, {"name": "Second", "color": "#f4f1ea"}],
            panel=[{"label": "Stones left", "values": [str(self.stones)]}],
            viewer=player,
        )

    def __str__(self) -> str:
        return text_diagram(self.render())
