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
    GAME_OVER,
    Action,
    Game,
    GameInfo,
    IllegalMove,
    Move,
    Param,
    ParamRule,
    RolloutResult,
    State,
    TurnState,
    no_such_action,
    not_legal,
)
from tessera.core.geometry import Grid, hexagon, square
from tessera.core.kernels import neighbour_table, rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.render import text_diagram
from tessera.core.texts import Text, colour_text, name_text, outcome
from tessera.games.nibble import kernels as _k

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame

NAMES = ("First", "Second")
PLAYER_COLORS = ("#1d1d1f", "#f4f1ea")

PALETTE: tuple[tuple[str, str], ...] = (
    ("red", "#e6194b"),
    ("green", "#3cb44b"),
    ("yellow", "#ffe119"),
    ("blue", "#4363d8"),
    ("orange", "#f58231"),
    ("purple", "#911eb4"),
    ("cyan", "#42d4f4"),
    ("magenta", "#f032e6"),
    ("brown", "#9a6324"),
    ("lime", "#bfef45"),
    ("pink", "#fabed4"),
    ("teal", "#469990"),
    ("navy", "#000075"),
)
"""Name and fill of each colour, by colour number (the first 9 in the 9-colour game)."""

SYMBOLS = "0123456789abc"
"""One-character terminal symbol of each colour (its number, then a, b, c)."""

EMPTY_FILL = "#ece6d8"

INSTANT_TRIPLE = {9: 7, 13: 10}
"""Blocks of each of three table-adjacent colours that win at once."""

MAJORITY = {9: 5, 13: 7}
"""Blocks that make a majority of one colour, and majorities that win."""

SWAPS_PER_CELL = 20
"""Random swap attempts per cell when dealing."""

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

    def __str__(self) -> str:
        return text_diagram(self.render())
