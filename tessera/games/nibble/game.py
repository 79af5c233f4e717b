"""Nibble — take coloured blocks off the corners (seed ``004``; docs/rules/nibble.md).

Board
    ``colors`` colours (9, default, or 13), numbered ``0 … colors−1``, with
    ``colors`` blocks of each.  ``board="square"`` (default) is a
    ``colors × colors`` square board (9×9 or 13×13, chess labels, ``a1``
    bottom-left); ``board="hex"`` (13 colours only) is a regular hexagon of side
    8 (169 hexes, rows ``a``–``o`` from the top).  The set-up is dealt at random
    from the ``seed`` so that no two blocks of one colour are orthogonally
    adjacent (hex: adjacent).
Colour table
    An ordered row of the colours, dealt at random from the seed
    (``shuffle_table=True``, default; ``False`` gives ``0, 1, …``).  Two colours
    are *adjacent on the table* when they stand next to each other in that row;
    the ends do not wrap.
Players
    Player 0 moves first.  Passing is not allowed.
Taking
    A block may be taken if it is *on a corner* — square: at least two sides
    that share a corner are exposed, i.e. one horizontal and one vertical side
    (a side is exposed when it faces an empty cell or the board's edge); hex:
    at least three consecutive sides (cyclically, around the hexagon) are
    exposed — and if the blocks left on the board stay one orthogonally
    connected group (hex: connected).  A turn takes one or more blocks, all of
    one colour: the step ``c1`` takes the block on ``c1``; more blocks of that
    colour may follow (``i9``), each checked against the board as it then
    stands; ``end`` finishes the turn.  The turn ends by itself when ``end``
    would be its only legal step, so ``end`` is offered only while another
    block of the colour being taken could be taken too.
Winning
    A player wins at once when he holds all ``colors`` blocks of one colour, or
    at least 7 (13 colours: 10) blocks of each of three colours adjacent on the
    table; this is checked after every step.  When the board is empty the player
    holding the majority of the blocks (9 colours: 5 or more; 13 colours: 7 or
    more) in a majority of the colours (5 of 9; 7 of 13) wins; with an odd
    number of colours and of blocks per colour a tie cannot happen.
    ``scores()`` returns how many colours each player already holds a majority
    of (a majority, once held, is never lost).
No legal block (ruling, proved, not a parameter)
    A player to move always has a legal block, so the question of a player who
    cannot move never arises.  Proof: the board starts full, hence connected,
    and every take keeps it connected, so the blocks on the board form a
    non-empty connected graph G.  One block or a block with one neighbour is on
    a corner (on a square at most one side is covered; on a hex five
    consecutive sides are exposed) and is not a cut vertex.  Otherwise take a
    leaf biconnected component B of G (or G itself when it has no cut vertex):
    it has at least three blocks, spans at least two rows, and all blocks of B
    but at most one (its cut vertex) have every neighbour inside B and are not
    cut vertices of G.  The top-most block of B that is left-most in its row has
    its upper and left sides (hex: NE, NW and W, three consecutive sides)
    exposed, and so does the bottom-most, right-most one (lower and right;
    hex: SW, SE and E).  They are two different blocks, so at least one of them
    is not B's cut vertex and can be taken.  Within a turn, the turn only
    continues while another block of the colour can be taken.

Notation and position
    A step is the label of the block taken (``c1``; hex ``h5``) or ``end``.
    Position dict (docs/rules/nibble.md)::

        {"colors": 9, "board": "square", "to_move": 0,
         "cells": {"a1": 4, "b1": 0, ...},      # every block left -> its colour
         "taken": [[0, ...], [0, ...]],          # taken[p][c], colour-indexed
         "table": [3, 0, 8, ...],                # the colour table, left to right
         "taking": 4,                            # only during a turn: the colour being taken
         "seed": 12345}                          # only when the state was dealt from a seed

    ``seed`` (the deal's seed; ``new_initial_state(None)`` draws one) is kept so
    a game record can be replayed from its first position; it does not affect
    the rules.  After an instant win ``to_move`` stays the winner (the player
    who made the last step).

Engine notes
    The rules are compiled kernels (numba, :mod:`tessera.games.nibble.kernels`, their
    only implementation).  A position is one small ``int32`` array: the colour of the
    block on each cell (``-1`` if none), both players' counts, the turn header, the
    cached legal steps and a flag per block on a corner; cloning copies it.  A block is
    on a corner when ``run`` consecutive sides around it (cyclically; square 2, hex 3)
    face an empty cell or the edge; a block once on a corner stays so, and a take can
    only expose its neighbours, so the flags are set when a position is made and
    updated for the taken block's neighbours only.  ``apply_action`` is one kernel call
    that checks the step against the cached list, plays it and lists the next step's
    legal actions, which ``legal_actions()`` then reads.  The no-split rule is decided
    per candidate first locally — the occupied neighbours of the block are joined when
    one arc of blocks in the ring around it (square: its 8-neighbourhood; hex: its six
    neighbours) holds them all — and only
    otherwise by one flood of the board without the block that stops as soon as it has
    reached every neighbour.  After each take the blocks of that colour still takeable
    are listed at once (they decide whether the turn goes on) and become the next
    step's legal moves.  Random playouts run inside the kernels (many from a position
    in one call, :meth:`NibbleState.rollouts`): at the start of a turn they try
    the corner blocks in random order and take the first that does not split the
    board (uniform over the legal blocks, usually one check).
    Integer actions: ``i`` (``0 ≤ i < cells``) takes the block on the ``i``-th
    cell in label order (``grid.cells[i]``, rows bottom-to-top on squares,
    top-to-bottom on hexes, left to right); ``cells`` is ``end``.
    The deal starts from a fixed proper colouring with exactly ``colors``
    blocks of each colour — square ``(x + 2y) mod colors``, hex ``(q + 4r) mod 13``
    in axial coordinates — permutes the colours at random and then makes
    ``20 × cells`` random swap attempts of two blocks, each done only if
    neither block then has a neighbour of its new colour (so two neighbours are
    never swapped); a running count of each cell's neighbour colours (3 bits per
    colour packed in one int per cell) makes the check O(1).  Every step keeps
    the board legal, so the deal never fails; the colour table is shuffled
    afterwards from the same ``random.Random(seed)``.  The swap draws are
    ``int(rng.random() × cells²)``.  The whole deal runs in one kernel
    (:func:`~tessera.games.nibble.kernels.deal`), which reproduces ``random.Random(seed)``
    (CPython's Mersenne Twister, its seeding from the seed's 32-bit words, ``random()``,
    ``shuffle``): the same numbers, so the same boards as dealing in Python.

Evaluation (for agents)
    ``tanh(1.2·M + 2·(T_me² − T_opp²))`` where ``M`` is the majority race: the sum
    over colours of +1 for a colour the player holds a majority of, −1 for one
    the opponent holds, else ``0.5·(mine − theirs)/majority``, divided by the
    number of majorities needed (5 or 7); and ``T`` a player's nearest instant
    win: the larger of the best share of a colour (``mine/colors``, 0 if the
    opponent owns any of it) and, over the triples of table-adjacent colours
    still reachable, the smallest ``min(mine, threshold)/threshold``.
    Exact (±1) once the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
    Game,
    GameInfo,
    Move,
    Param,
    ParamRule,
    State,
)
from tessera.core.geometry import Grid, hexagon, square
from tessera.core.kernels import neighbour_table, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.texts import Text
from tessera.games.nibble import kernels as _k
from tessera.games.nibble.constants import (
    EMPTY_FILL,
    INSTANT_TRIPLE,
    MAJORITY,
    NAMES,
    PALETTE,
    PLAYER_COLORS,
    SWAPS_PER_CELL,
    SYMBOLS,
)
from tessera.games.nibble.state import NibbleState

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame

__all__ = [
    "EMPTY_FILL",
    "INFO",
    "INSTANT_TRIPLE",
    "LEVELS",
    "MAJORITY",
    "NAMES",
    "PALETTE",
    "PLAYER_COLORS",
    "SWAPS_PER_CELL",
    "SYMBOLS",
    "NibbleGame",
    "NibbleState",
]

INFO = GameInfo(
    name="nibble",
    title="Nibble",
    params=(
        Param("colors", None, int, "number of colours and blocks of each (9; 13 on the hex board)", choices=(9, 13)),
        Param(
            "board",
            "square",
            str,
            "'square' (colors × colors) or 'hex' (hexagon of side 8, 13 colours)",
            choices=("square", "hex"),
        ),
        Param("shuffle_table", True, bool, "deal the colour table at random (False: colours in order 0, 1, …)"),
    ),
    player_names=NAMES,
    board_kind="square",
    deal=True,
    version=1,
    summary=__doc__ or "",
    designer="Jared McComb (after Dieter Stein and Reiner Knizia)",
    examples=("nibble(colors=13)", "nibble(colors=13,board=hex)", "nibble(shuffle_table=false)"),
    param_rules=(
        ParamRule("colors", when="board", equals="square", default=9),
        ParamRule("colors", when="board", equals="hex", default=13, choices=(13,)),
    ),
)


def _base_coloring(grid: Grid, colors: int) -> list[int]:
    """A fixed proper colouring of ``grid`` with exactly ``colors`` blocks of each colour."""
    out = []
    for c in grid.cells:
        a, b = grid.coords[c]  # type: ignore[misc]
        out.append((a + 2 * b) % colors if grid.kind == "square" else (a + 4 * b) % colors)
    return out


def _geometry(game: NibbleGame) -> np.ndarray:
    """The ``geo`` array of the kernels: neighbours in cyclic side order, the ring, the header."""
    grid = game.grid
    k = len(game.cells)
    geo = np.full((k + 1, 16), -1, np.int32)
    sides: tuple[int, ...]
    ring: tuple[int, ...]
    if game.square:
        s = grid.stride
        sides = (1, s, -1, -s)  # E, N, W, S
        ring = (1, s + 1, s, s - 1, -1, -s - 1, -s, -s + 1)  # E, NE, N, NW, W, SW, S, SE
    else:
        sides = grid.offsets  # E, NE, NW, W, SW, SE
        ring = sides
    for i, c in enumerate(game.cells):
        for j, o in enumerate(sides):
            geo[i, j] = game.index[c + o] if 0 <= c + o < grid.size else -1
        for j, o in enumerate(ring):
            geo[i, _k.RING + j] = game.index[c + o] if 0 <= c + o < grid.size else -1
    geo[k, :7] = (k, game.colors, len(sides), 2 if game.square else 3, len(ring), game.triple_need, game.majority)
    return geo


@warm_up
def _warm_up(game: NibbleGame) -> None:
    """Call each kernel the ``State`` uses once (:func:`~tessera.core.kernels.warm_up`: on the first game
    built in this process): deal, check, play, evaluate and roll out a few steps."""
    st = game.new_initial_state(seed=0)
    rng = random.Random(0)
    st.rollouts(1, 0, max_plies=2)
    for _ in range(3):
        st.is_legal(st.action_to_string(st.random_action(rng)))
        st.apply_action(st.random_action(rng))
        st.clone().apply_legal(st.random_action(rng))
        st.evaluate(0)
        st.scores()


# since the kernels: beat alphabeta 19-1 at 0.1 s and 0.3 s
LEVELS = LevelTuning(
    search="mcts(c=0.7,rollout_cutoff=-1)", measured={"vs4": 81, "vs3": 95, "games": "100", "vs2": 100}
)
"""How Nibble tunes the strength levels (``NibbleGame.level_tuning()``, :func:`tessera.agents.spec.level`)."""


@register
class NibbleGame(Game):
    """Nibble with a fixed number of colours, board shape and table rule."""

    info = INFO
    client_module = "client.js"  # the blocks' table numbers and the colour-blind palette

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        if params["colors"] is None:  # a dependent default: the hex board has 13 colours
            params["colors"] = 13 if params["board"] == "hex" else 9
        n = params["colors"]
        if params["board"] == "hex" and n != 13:
            raise ValueError(
                f"nibble: parameter board='hex' needs colors=13 (the hexagonal variant has 13 colours), not colors={n}"
            )
        self.colors: int = n
        self.grid: Grid = hexagon(8) if params["board"] == "hex" else square(n)
        grid = self.grid
        self.cells: tuple[int, ...] = grid.cells
        """Grid cell id of each action index."""
        self.index: list[int] = [-1] * grid.size
        """Action index of each grid cell id (-1 off the board)."""
        for i, c in enumerate(self.cells):
            self.index[c] = i
        self.end_action: int = len(self.cells)
        self.triple_need: int = INSTANT_TRIPLE[n]
        self.majority: int = MAJORITY[n]
        self.square: bool = grid.kind == "square"
        self.base = _base_coloring(grid, n)
        self._base = np.array(self.base, np.int64)
        self._shuffle: bool = params["shuffle_table"]
        self.nbr_index: list[tuple[int, ...]] = [tuple(self.index[x] for x in grid.neighbors[c]) for c in self.cells]
        """Neighbours of each cell, as cell indices."""
        self.geo: np.ndarray = _geometry(self)
        """The board for the kernels (:mod:`tessera.games.nibble.kernels`)."""
        self._nbr: np.ndarray = neighbour_table(grid, self.cells)
        return params

    def new_initial_state(self, seed: int | None = None) -> NibbleState:
        """Deal the board and the colour table from ``seed`` (None: a fresh random seed)."""
        _warm_up(self)
        if seed is None:
            seed = random.randrange(2**32)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"nibble: seed must be an int or None, not {seed!r}")
        col, table = self._deal(seed)
        return NibbleState(self, col, [[0] * self.colors, [0] * self.colors], table, seed=seed)

    def deal(self, seed: int) -> tuple[dict[int, int], list[int]]:
        """The dealt board (grid cell id → colour) and colour table of ``seed``."""
        col, table = self._deal(seed)
        return dict(zip(self.cells, col.tolist(), strict=True)), table

    def _deal(self, seed: int) -> tuple[np.ndarray, list[int]]:
        """The dealt colours by cell index, and the colour table, of ``seed``."""
        n = abs(seed)
        words = max(1, (n.bit_length() + 31) // 32)
        key = np.frombuffer(n.to_bytes(4 * words, "little"), "<u4")  # random.Random(seed)'s seed words
        table = np.empty(self.colors, np.int64)
        col = _k.deal(key, self._base, self._nbr, self.colors, SWAPS_PER_CELL * len(self.cells), self._shuffle, table)
        return col, table.tolist()

    def state_from_dict(self, d: Mapping[str, Any]) -> NibbleState:
        """A state from a position dictionary (:mod:`tessera.games.nibble.position`; strict)."""
        from tessera.games.nibble.position import state_from_dict

        return state_from_dict(self, d)

    def num_distinct_actions(self) -> int:
        """One per cell (take its block), plus ``end``."""
        return len(self.cells) + 1

    def solver(self) -> EndgameSolver:
        from tessera.games.nibble.solver import SOLVER

        return SOLVER

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera.games.nibble.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    def puzzle_themes(self, to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
        from tessera.games.nibble.puzzles import themes

        return themes(to_move, line, states)

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    @classmethod
    def learned(cls) -> LearnedKit:
        from tessera.games.nibble.learned import KIT

        return KIT

    def vector_engine(self) -> type[VectorGame]:
        from tessera.games.nibble.vector import NibbleVector

        return NibbleVector

    def kernel_contract(self) -> KernelContract:
        """The compiled verbs of the kernel contract (:mod:`tessera.games.nibble.contract`)."""
        from tessera.games.nibble.contract import build

        return build(self)

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.nibble.observation`)."""
        from tessera.games.nibble.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """Every block is taken at most once and each ``end`` follows a take."""
        return 2 * len(self.cells)

    def why_no_draw(self) -> str | None:
        """A tie cannot happen: the numbers of colours and of blocks per colour are odd."""
        return Text("refusal.no_draws_nibble", "Nibble has no draws (a tie cannot happen)")
