"""Nim with one heap (the subtraction game): an example tessera game living in its own package.

Rules
    A heap of ``stones`` stones (default 15).  Players alternate; a move takes 1 to
    ``take`` stones (default 3) from the heap.  Who takes the last stone wins.
    Known theory: the player to move loses exactly when the heap is a multiple of
    ``take + 1`` — so the first player wins unless ``stones`` is such a multiple.

Moves are written as the number of stones taken: ``"1"``, ``"2"``, ``"3"``.
Integer actions: ``n − 1`` takes ``n``.

Engine notes
    The rules are compiled kernels (:mod:`tessera_nim.kernels`) over one small
    position array; this module is the notation, the checks' sentences, the
    position dictionary and the render description around them.

Evaluation
    The exact value by the theory above: +1 for the player to move on a winning heap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import Action, Game, GameInfo, IllegalMove, Param, RolloutResult, TurnState
from tessera.core.kernels import rng_state, warm_up
from tessera.core.kits.lessons import LessonBook
from tessera.core.kits.levels import LevelTuning
from tessera.core.kits.solver import EndgameSolver
from tessera.core.render import cell_entry, describe, piece, text_diagram
from tessera_nim import kernels as _k

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.vector import VectorGame

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


@warm_up
def _warm_up(game: NimGame) -> None:
    """Call each kernel once, on the first game built in this process (numba compiles or loads them here)."""
    st = NimState(game, 2)
    st.legal_actions()
    st.is_legal("1")
    st.evaluate(0)
    st.rollouts(1, 0)
    st.play("1")


LEVELS = LevelTuning(search="alphabeta")  # the exact evaluation makes a shallow alpha-beta perfect
"""How Nim tunes the strength levels (``NimGame.level_tuning()``)."""


class NimGame(Game):
    """One heap, ``take`` stones at most per move.

    Besides the rules it declares, from its own folder, what the other parts of tessera use:
    its rules page (``rules/en.md``, found by ``Game.rules_page``), its exact solver
    (:meth:`solver`, :mod:`tessera_nim.solver`) and its level tuning (:meth:`level_tuning`).
    """

    info = INFO

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera_nim.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    def solver(self) -> EndgameSolver:
        from tessera_nim.solver import SOLVER

        return SOLVER

    def kernel_contract(self) -> KernelContract:
        """The six verbs every game's kernels offer (:mod:`tessera_nim.contract`)."""
        from tessera_nim.contract import build

        return build(self)

    def vector_engine(self) -> type[VectorGame]:
        """The generic vector engine on this game's kernel contract (no engine of its own)."""
        from tessera.core.kits.stepper import ContractVector

        return ContractVector

    def new_initial_state(self, seed: int | None = None) -> NimState:
        _warm_up(self)
        return NimState(self, self.params["stones"])

    def state_from_dict(self, d: Mapping[str, Any]) -> NimState:
        stones, to_move = d.get("stones"), d.get("to_move", 0)
        if not isinstance(stones, int) or isinstance(stones, bool) or not 0 <= stones <= self.params["stones"]:
            raise ValueError(f"nim: stones must be an integer from 0 to {self.params['stones']}, not {stones!r}")
        if to_move not in (0, 1):
            raise ValueError(f"nim: to_move must be 0 or 1, not {to_move!r}")
        st = NimState(self, stones)
        st.s[_k.TO_MOVE] = to_move
        if stones == 0:
            st.s[_k.OVER], st.s[_k.WINNER] = 1, 1 - to_move
        return st

    def num_distinct_actions(self) -> int:
        return int(self.params["take"])

    def max_game_length(self) -> int:
        return int(self.params["stones"])


class NimState(TurnState):
    """The position array of :mod:`tessera_nim.kernels`; every rule is a kernel call."""

    game: NimGame

    def __init__(self, game: NimGame, stones: int) -> None:
        super().__init__(game)
        self.take = int(game.params["take"])
        self.s = _k.new_position(stones)

    # -- the position, read off the array (TurnState reads to_move, _over, _winner) ------------------
    @property
    def stones(self) -> int:
        """Stones left in the heap."""
        return int(self.s[_k.HEAP])

    @property
    def to_move(self) -> int:  # type: ignore[override]
        """The player to move."""
        return int(self.s[_k.TO_MOVE])

    @property
    def _over(self) -> bool:  # type: ignore[override]
        return bool(self.s[_k.OVER])

    @property
    def _winner(self) -> int | None:  # type: ignore[override]
        w = int(self.s[_k.WINNER])
        return None if w < 0 else w

    # -- the hooks of tessera.core.game.State, each one kernel call ----------------------------------
    def _legal_actions(self) -> list[Action]:
        actions: list[Action] = _k.legal(self.s, self.take).tolist()
        return actions

    def _illegal_reason(self, action: Action) -> str | None:
        code = _k.check(self.s, self.take, action)
        if code == _k.R_NOT_A_TAKE:
            return f"a move takes 1 to {self.take} stones"
        if code == _k.R_MORE_THAN_THE_HEAP:
            return f"only {self.stones} stones are left"
        return None

    def _apply(self, action: Action) -> None:
        _k.apply(self.s, self.take, action)

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``n`` random games in one kernel call (Nim's games are short: ``max_plies`` is not needed)."""
        if n < 0:
            raise ValueError(f"rollouts: n must be >= 0, not {n!r}")
        totals = np.zeros(2)
        plies = _k.rollouts(self.s, self.take, n, rng_state(seed), totals)
        return RolloutResult(n, (float(totals[0]), float(totals[1])), int(plies))

    def evaluate(self, player: int) -> float:
        return float(_k.evaluate(self.s, self.take, player))

    # -- notation, position, copy, drawing -----------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        return str(action + 1)

    def string_to_action(self, move: str) -> Action:
        if not move.strip().isdigit():
            raise IllegalMove(f"{move!r}: a move is the number of stones taken, e.g. '2'")
        return int(move) - 1

    def to_dict(self) -> dict[str, Any]:
        return {"stones": self.stones, "to_move": self.to_move}

    def _copy_from(self, other: Any) -> None:
        self.take = other.take
        self.s = other.s.copy()

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
