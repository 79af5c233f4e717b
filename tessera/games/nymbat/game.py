r"""Nymbat — number and combat on a hexagon of side 8 (seed ``000``; docs/rules/nymbat.md).

Board
    A regular hexagon of side 8: 169 pointy-top hexes in 15 rows ``a`` (top) to
    ``o`` (bottom), hexes numbered from the left (``a1`` … ``a8``, ``h1`` … ``h15``).
    Player 0 (Red) has home row ``o`` and setup area ``m``, ``n``, ``o``; player 1
    (Blue) has home row ``a`` and setup area ``a``, ``b``, ``c`` (27 hexes each).
    A hex's *distance* to the opponent's home row is the number of rows between
    them (0 on that row).
Pieces
    A piece belongs to a player and carries a whole number 1–6; one piece per hex.
    Each player has a reserve number (parameter ``reserve``, default 60) and a
    cumulative delay count.
A turn is one of
    *Bring in reserves*: one or more steps ``n5=3`` (put a 3 on the empty setup hex
    ``n5``), then ``end``.  The numbers placed this turn may total at most the
    reserve and, on the player's first turn, at most ``first_limit`` (default 30).
    Each player's first turn must be this.  The reserve is reduced as each piece
    is placed (the seed subtracts the total at the end of the turn: the same).
    *Move a group*: the first step ``h5-g7`` picks the group: the contiguous group,
    as at the start of the turn, holding ``h5``.  Its *speed* is the lowest number
    in that group at the start of the turn (moving or losing that piece does not
    change it).  Then each piece of that group may move once, one piece at a
    time (``a-b`` steps), to a hex reachable in at most ``speed`` steps through
    empty or own-occupied hexes (any own piece, in the group or not); it may not
    end on an own piece and never passes through an opponent's piece, but its
    last step may enter an opponent's piece (an attack), which ends its move.
    ``end`` finishes the turn.
    *Pass*: ``pass``.
    What ``end`` means: never legal as a first step (a turn is a bring-in, a
    group move or a pass) nor during a penalty; while bringing in it stops
    placing; while moving it leaves the remaining group pieces where they are
    and forgoes any breakthrough removals still open.  A turn ends by itself as
    soon as ``end`` would be its only legal step (all allowance used or the
    setup area full; no group piece left that can move and no breakthrough
    removal left); retreat/delay accounting and any penalty follow either way.
Attack and breakthrough
    The attacked piece is removed.  The attacker is removed too if its number is
    at most the defender's number plus the numbers of the defender's friendly
    pieces adjacent to the defender (counted before the removal): a 2 supported
    by two 3s defends with 8.  If removing the defender split its contiguous
    group into two or more groups, the attacker may then remove, one step
    ``xg6`` each, any opponent pieces adjacent to the defender's hex whose
    numbers total at most the attacker's number (even if the attacker died).
    These removals never cause another breakthrough; any other step closes it.
Retreat and delay (when the turn ends)
    A turn in which the player removed an opponent's piece is neither.  A group
    move is a *retreat* if the group's closest piece (pieces of the group as at
    the start of the turn, still on the board) ends farther from the opponent's
    home row than the group's closest piece was at the start; *advancing* if
    closer; otherwise a *delay*.  A pass is a delay; bringing in reserves is
    neither.  A retreat costs 1; every ``delay_period``-th delay (default 7,
    cumulative) costs 1.  The cost is paid from the reserve; at reserve 0 the
    player instead removes one of his own pieces with the step ``lose h5`` (then
    the only legal step), if he has any.
Forced pass
    ``pass`` is always a legal turn (except on a first turn that can bring in);
    a player with no piece on the board and reserve 0 can only pass.
Win
    At the start of a player's turn, if he has a piece on the opponent's home row
    and the opponent has none there, he wins.  If the board is empty and both
    reserves are 0 (checked whenever a turn ends), the player who took the last
    turn wins.  Safeguard ``max_turns`` (default 600 turns): a draw.

Four players (``players=4``; docs/rules/nymbat.md, "Four players")
    Seats in turn order (clockwise): 0 Red on the bottom edge (row ``o``), 1 Green
    on the lower-left edge (``h1 i1 … o1``), 2 Blue on the top edge (row ``a``),
    3 Yellow on the upper-right edge (``a8 b9 … h15``).  A player's home row is
    the 8 hexes of his edge, his setup area the 27 hexes at most 2 lines from
    it; near the corners ``o1`` and ``a8`` two setup areas (and home rows)
    overlap in 9 hexes, which belong to both players.  A player's *opponent
    home row* is the home row of the player opposite him (0↔2, 1↔3); distances
    for retreat and delay count lines parallel to it (core geometry,
    :meth:`Grid.edge_lines`).  Every other player's piece is an opponent's:
    never passed through, attacked by ending on it.  Support counts only the
    defender's own pieces; a breakthrough needs the defender's group split and
    removes only the defender's pieces.  Win: at the start of his turn, a player
    with a piece on his opponent home row while the player opposite him has
    none there wins.  The empty-board rule needs every reserve at 0.  Returns:
    winner +1, every other player −1/3; the safeguard (``max_turns`` counts
    every player's turn) is a draw, all 0.  The position dict has 4-long lists;
    ``pieces`` owners are 0–3; a breakthrough in ``in_turn`` also names its
    ``"defender"``.
Resigning (issue 16; a rule of the state, :meth:`NymbatState.resign`)
    A resigned player's pieces leave the board and his reserve drops to 0; he
    passes from then on (the state plays those passes itself; they count as
    turns but never make him "the player who moved last"); the others play on,
    and when only one player is left he wins.  The position dict lists
    ``"resigned"`` (booleans) once someone has resigned; the history records
    ``(player, "resign")``, which is not a move ``play`` accepts.

Rulings made here (where seed and docs/rules/nymbat.md are silent)
    * ``pass`` is refused on a first turn unless no piece can be brought in; a
      first turn that had to pass still counts as the first turn.
    * A piece must actually move: ``h5-h5`` is not a step.
    * "The player who moved last" is the player whose turn ended last (a turn
      ended by a ``lose`` step included); a loaded position with an empty board,
      zero reserves and nobody having moved is a draw.
    * A turn that is both a retreat and a 7th delay cannot happen (a retreat is
      never a delay), so a turn costs at most 1.

Position dict
    ``{"to_move":0,"pieces":{"h5":[0,3]},"reserves":[60,60],"delays":[0,0],
    "first_turn_done":[false,false]}`` at the start of a turn, plus ``"turn"``
    (completed turns, for ``max_turns``) when non-zero and ``"last_mover"`` once
    someone has finished a turn.  During a turn ``"in_turn"`` holds the turn so
    far: ``{"phase":"bring","placed":7}``, ``{"phase":"penalty"}`` or
    ``{"phase":"move","speed":2,"unmoved":["h5"],"group":["g7","h5"],
    "start_distance":7,"captured":false,"breakthrough":{"hex":"g6","budget":3}}``
    (``unmoved``: the group's pieces that may still move; ``group``: where the
    pieces of the start-of-turn group now stand; ``breakthrough`` only while a
    removal is possible).

Engine notes
    The rules are compiled kernels (numba, :mod:`tessera.games.nymbat.kernels`, their
    only implementation; two and four players share them).  A position is one small
    ``int32`` array (the owner and number of each hex, the turn in progress, the
    header with reserves, delays and the end of the game); cloning copies it.  A
    checked ``apply_action``, ``random_action``, ``legal_actions`` and
    :meth:`NymbatState.rollouts` (many random games from a position) are one kernel
    call each; Python keeps the notation, the position dict, the sentences of
    refused steps and the drawing.  Integer actions use the compact cell
    index ``i`` (0–168, label order): ``from·169 + to`` a move step (0–28560),
    ``28561 + i·6 + (k−1)`` a placement of ``k``, ``29575 + i`` a breakthrough
    removal ``x…``, ``29744 + i`` a ``lose`` step, ``29913`` ``end``, ``29914``
    ``pass`` (29915 actions).  ``random_action`` samples a step kind first (so
    random games move, place and end turns at sensible rates), then a uniform
    legal step of that kind.

Evaluation (for agents)
    ``tanh(0.04·material lead + 0.15·race lead + 0.6·home threat)``: material is
    the reserve plus the numbers on the board; the race lead is how much closer
    the player's most advanced piece is to the opponent's home row than the
    opponent's is to his (14 for a side without pieces); the home threat is +1
    (−1) when the player (opponent) stands on the other's home row unopposed.
"""

from __future__ import annotations

import functools
import random
import re
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
    RolloutResult,
    State,
    TurnState,
    no_such_action,
)
from tessera.core.geometry import bits, hexagon
from tessera.core.kernels import neighbour_table, rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.render import PLAYER_COLORS, text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nymbat import kernels as _k

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.vector import VectorGame

RED, BLUE = 0, 1
NAMES = ("Red", "Blue")
COLORS = (PLAYER_COLORS["red"], PLAYER_COLORS["blue"])
NAMES4 = ("Red", "Green", "Blue", "Yellow")
"""Seats of the four-player variant in turn order (clockwise)."""

GRID = hexagon(8)
"""The board: a hexagon of side 8, rows ``a``–``o``."""
CELLS: tuple[int, ...] = GRID.cells
"""Cell ids in label order; the compact index of ``CELLS[i]`` is ``i``."""
N = len(CELLS)
if N != _k.N:  # the kernels number cells and actions for this board
    raise ImportError(f"nymbat: the board has {N} cells, the kernels expect {_k.N}")
INDEX = [-1] * GRID.size
for _i, _c in enumerate(CELLS):
    INDEX[_c] = _i
LABEL = [GRID.label(c) for c in CELLS]
FULL = GRID.full
NBR = GRID.neighbor_mask
LAST_ROW = len(GRID.rows) - 1  # 14


class Layout:
    """Where the seats of one player count sit: edges, home rows, setup areas, distances.

    Built once per player count from the core geometry (:meth:`Grid.edge_lines`):
    a player's home row is his edge, his setup area the hexes at most 2 lines
    from it, and his distance is the number of lines parallel to his opponent
    home row (the home row of the player opposite him) between a hex and that row.
    """

    def __init__(self, players: int) -> None:
        edges: tuple[str, ...]
        names: tuple[str, ...]
        setup_text: tuple[str, ...]
        if players == 2:
            edges, names = ("bottom", "top"), NAMES
            colors: tuple[str, ...] = COLORS
            symbols = "RB"
            setup_text = ("rows m, n, o", "rows a, b, c")
        elif players == 4:
            edges, names = ("bottom", "lower-left", "top", "upper-right"), NAMES4
            colors = tuple(PLAYER_COLORS[k] for k in ("red", "green", "blue", "yellow"))
            symbols = "RGBY"
            setup_text = (
                "rows m, n, o",
                "the three lines along the lower-left edge h1–o1",
                "rows a, b, c",
                "the three lines along the upper-right edge a8–h15",
            )
        else:
            raise ValueError(f"nymbat is played by 2 or 4 players, not {players}")
        self.n = players
        """Number of players."""
        self.edges: tuple[str, ...] = edges
        """Each seat's edge (core geometry edge names)."""
        self.names: tuple[str, ...] = names
        self.colors = colors
        self.symbols = symbols
        self.setup_text = setup_text
        self.opposite: tuple[int, ...] = tuple((p + players // 2) % players for p in range(players))
        """The player opposite each player (whose home row he races to)."""
        self.home: tuple[int, ...] = tuple(GRID.edge_mask(e) for e in edges)
        """Home row of each player (bit set)."""
        self.setup: tuple[int, ...] = tuple(GRID.edge_mask(e, 2) for e in edges)
        """Setup area of each player: the hexes at most 2 lines from his edge."""
        self.dist: tuple[list[int], ...] = tuple(GRID.edge_lines(edges[self.opposite[p]]) for p in range(players))
        """Per player and cell: lines between the hex and the player's opponent home row."""
        self.target: tuple[int, ...] = tuple(self.home[self.opposite[p]] for p in range(players))
        """Each player's opponent home row (bit set)."""


LAYOUTS = {2: Layout(2), 4: Layout(4)}
"""The layouts by number of players."""
HOME = LAYOUTS[2].home
"""Two players: home row of each player, Red ``o`` (bottom), Blue ``a`` (top)."""
SETUP = LAYOUTS[2].setup
"""Two players: setup area of each player, his home row and the two rows next to it."""
DIST = LAYOUTS[2].dist
"""Two players: rows between a hex and the opponent's home row, per player."""

# The action numbering is the kernels' (one definition).
MOVE_BASE = 0
PLACE_BASE, REMOVE_BASE, LOSE_BASE, END, PASS, NUM_ACTIONS = (
    _k.PLACE_BASE,
    _k.REMOVE_BASE,
    _k.LOSE_BASE,
    _k.END,
    _k.PASS,
    _k.NUM_ACTIONS,
)
RESIGN = NUM_ACTIONS
"""Not a legal action: the history entry of :meth:`NymbatState.resign` (written ``resign``)."""

START, BRING, MOVE, PENALTY = _k.START, _k.BRING, _k.MOVE, _k.PENALTY
PHASE_NAMES = ("start", "bring", "move", "penalty")

_CELL = r"([a-o](?:1[0-5]|[1-9]))"
_MOVE_RE = re.compile(rf"{_CELL}-{_CELL}")
_PLACE_RE = re.compile(rf"{_CELL}=(\d+)")
_REMOVE_RE = re.compile(rf"x{_CELL}")
_LOSE_RE = re.compile(rf"lose {_CELL}")
_SYNTAX = "steps are 'n5=3' (bring in), 'h5-g7' (move), 'xg6' (breakthrough), 'lose h5', 'end' or 'pass'"


assert _k.N == N and _k.NUM_ACTIONS == NUM_ACTIONS and _k.END == END and _k.FAR == LAST_ROW
_H = _k.H


def _geo(layout: Layout, params: Mapping[str, Any]) -> np.ndarray:
    """The kernels' ``geo`` array for a layout and the game's parameters (layout in the kernels module)."""
    geo = _board_geo(layout.n).copy()
    geo[N, :5] = (layout.n, params["reserve"], params["first_limit"], params["delay_period"], params["max_turns"])
    return geo


@functools.cache
def _board_geo(players: int) -> np.ndarray:
    """The part of :func:`_geo` that depends on the seats only, built once per number of players."""
    layout = LAYOUTS[players]
    geo = np.zeros(_k.GEO_SHAPE, np.int32)
    geo[:N, :6] = neighbour_table(GRID, CELLS)
    for i, c in enumerate(CELLS):
        for p in range(layout.n):
            geo[i, _k.SETUP_COL + p] = layout.setup[p] >> c & 1
            geo[i, _k.DIST_COL + p] = layout.dist[p][c]
            geo[i, _k.TARGET_COL + p] = layout.target[p] >> c & 1
    for p in range(layout.n):
        for row, mask in ((_k.TARGET_ROW + p, layout.target[p]), (_k.SETUP_ROW + p, layout.setup[p])):
            cells = [INDEX[c] for c in bits(mask)]
            geo[row, 0] = len(cells)
            geo[row, 1 : 1 + len(cells)] = cells
    geo.flags.writeable = False
    return geo


def _start(players: int, reserve: int) -> np.ndarray:
    """The kernels' position array of a new game: an empty board, every reserve full, Red to move."""
    s = np.zeros(_k.SIZE, np.int32)
    s[_k.OWNER : _k.OWNER + N] = -1
    s[_H + _k.LAST] = -1
    s[_H + _k.WINNER] = -1
    s[_H + _k.BRK_CELL] = -1
    s[_H + _k.BRK_OWNER] = -1
    s[_H + _k.RES : _H + _k.RES + players] = reserve
    return s


@warm_up
def _warm_up(game: NymbatGame) -> None:
    """Call each kernel the ``State`` uses once (:func:`~tessera.core.kernels.warm_up`: on the first game
    built in this process)."""
    s = _start(game.players, game.reserve)
    geo = game.geo
    _k.legal(s, geo)
    _k.check(s, geo, END)
    _k.random_step(s, geo, 1)
    _k.query(s, geo, _k.Q_ALLOWANCE, 0)
    _k.evaluate(s, geo, 0)
    _k.rollouts(s, geo, 1, rng_state(0), 2, np.zeros(game.players))
    _k.apply(s.copy(), geo, PASS, True)
    _k.resign(s.copy(), geo, 1)


INFO = GameInfo(
    name="nymbat",
    title="Nymbat",
    params=(
        Param("players", 2, int, "number of players: 2, or 4 for the four-player variant", choices=(2, 4)),
        Param("reserve", 60, int, "starting reserve number of each player", min=1, max=999),
        Param("first_limit", 30, int, "most a player may bring in on his first turn", min=1, max=999),
        Param("delay_period", 7, int, "every this many delays (cumulative) costs 1", min=1, max=1000),
        Param("max_turns", 600, int, "safeguard: draw after this many turns", min=1, max=100000),
    ),
    player_names=NAMES,
    board_kind="hex",
    version=1,
    summary=__doc__ or "",
    designer="the Nymbat rules page (seed 000)",
    examples=(
        "nymbat(reserve=12,first_limit=8)",
        "nymbat(reserve=20,first_limit=10,delay_period=3,max_turns=200)",
        "nymbat(players=4)",
        "nymbat(players=4,reserve=16,first_limit=10,max_turns=300)",
    ),
)


LEVELS = LevelTuning(
    search="alphabeta",
    # Four-player Nymbat, each level measured against three of the level below, seats rotated
    # (docs/agents.md, "Four-player ladder"; win rates of level k+1, an equal agent wins 25 %):
    # 1 random; 2 greedy playing a random step 3 times in 4 (91 % against random over 120 games;
    # with noise 0.5 it was not clearly weaker than greedy); 3 greedy (69 % against level 2); 4
    # and 5 the whole-turn search (tessera.agents.turns) set by iterations per turn, not by time:
    # 8 iterations (48 % against greedy) and 40 (35 % against 8; Wilson lower bound 27 %).
    # Step-level MCTS and alpha-beta did not beat greedy here, and above ~10 iterations nothing
    # tried made `turns` clearly stronger (more iterations, 1 s or 3 s, two rounds, best-of-3 or
    # paranoid replies, a leader term): the level's time is only an upper bound on a slow machine.
    many_players={1: "random", 2: "greedy(noise=0.75)", 3: "greedy", 4: "turns(limit=8)", 5: "turns(limit=40)"},
    measured={"vs4": 67, "vs3": 75, "games": "30 / 20", "vs2": 95},
)
"""How Nymbat tunes the strength levels (``NymbatGame.level_tuning()``, :func:`tessera.agents.spec.level`)."""


@register
class NymbatGame(Game):
    """Nymbat with fixed reserve, first-turn limit, delay period and safeguard."""

    info = INFO

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.players = int(params["players"])
        self.layout = LAYOUTS[self.players]
        self.reserve = int(params["reserve"])
        self.first_limit = int(params["first_limit"])
        self.delay_period = int(params["delay_period"])
        self.max_turns = int(params["max_turns"])
        self.geo = _geo(self.layout, params)
        """The board, the seats and the parameters for the kernels."""
        self.start = _start(self.players, self.reserve)
        """The position array of a new game."""
        _warm_up(self)
        return params

    @property
    def num_players(self) -> int:
        """2 (default) or 4 (``players=4``)."""
        return self.players

    @property
    def player_names(self) -> tuple[str, ...]:
        """Red, Blue; or Red, Green, Blue, Yellow with four players."""
        return self.layout.names

    def new_initial_state(self, seed: int | None = None) -> NymbatState:
        """An empty board, every reserve full, Red to bring in first."""
        return NymbatState(self)

    def state_from_dict(self, d: Mapping[str, Any]) -> NymbatState:
        """A state from the position dict described in the module docstring."""
        from tessera.games.nymbat.position import state_from_dict

        return state_from_dict(self, d)

    def num_distinct_actions(self) -> int:
        """Moves ``169·169``, placements ``169·6``, removals, losses (169 each), end, pass."""
        return NUM_ACTIONS

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera.games.nymbat.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    def puzzle_themes(self, to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
        from tessera.games.nymbat.puzzles import themes

        return themes(to_move, line, states)

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    @classmethod
    def learned(cls) -> LearnedKit:
        from tessera.games.nymbat.learned import KIT

        return KIT

    def vector_engine(self) -> type[VectorGame]:
        """The generic engine on Nymbat's kernel contract (:mod:`tessera.games.nymbat.contract`): within
        5 % of the engine of its own it replaced (``benchmarks/contract_engine.py``, docs/engine.md)."""
        from tessera.core.kits.stepper import ContractVector

        return ContractVector

    def kernel_contract(self) -> KernelContract:
        """The compiled verbs of the kernel contract (:mod:`tessera.games.nymbat.contract`)."""
        from tessera.games.nymbat.contract import build

        return build(self)

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.nymbat.observation`)."""
        from tessera.games.nymbat.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """``max_turns`` turns of at most ``2·169 + 2`` steps each."""
        return self.max_turns * (2 * N + 2)


_NO_STEPS = np.empty(0, np.int64)
"""The ``legal_now`` argument of :func:`_k.apply_step` when no list is known."""


class NymbatState(TurnState):
    """A position as one ``int32`` array played by the kernels (module docstring, Engine notes).

    ``to_move``, ``_over`` and ``_winner`` mirror the array's header after every kernel
    call; everything else (``reserves``, ``own``, ``phase`` …) is read from the array.
    """

    game: NymbatGame

    def __init__(self, game: NymbatGame) -> None:
        super().__init__(game)
        self.n = game.players
        self.L = game.layout
        self.s: np.ndarray = game.start.copy()
        """The position (layout in :mod:`tessera.games.nymbat.kernels`)."""
        self.to_move = RED
        self._over = False
        self._winner: int | None = None
        self._next: np.ndarray | None = None
        """The legal steps the last :func:`_k.apply_step` listed for this position (never changed in
        place, shared by clones); ``None`` when the array was changed otherwise."""

    def _copy_from(self, other: NymbatState) -> None:
        self.n = other.n
        self.L = other.L
        self.s = other.s.copy()
        self.to_move = other.to_move
        self._over = other._over
        self._winner = other._winner
        self._next = other._next

    def _sync(self, status: int) -> None:
        """Mirror the kernels' packed header (``kernels.status``)."""
        self.to_move = status & 3
        self._over = bool(status & 4)
        w = (status >> 3) - 1
        self._winner = w if w >= 0 else None
        self._next = None

    # -- the position, read from the array -----------------------------------------------
    def _hdr(self, field: int) -> int:
        return int(self.s[_H + field])

    def _seats(self, field: int) -> list[int]:
        return self.s[_H + field : _H + field + self.n].tolist()  # type: ignore[no-any-return]

    @property
    def reserves(self) -> list[int]:
        """Each player's reserve."""
        return self._seats(_k.RES)

    @property
    def delays(self) -> list[int]:
        """Each player's cumulative delay count."""
        return self._seats(_k.DEL)

    @property
    def first_done(self) -> list[bool]:
        """Whether each player has played his first turn."""
        return [bool(x) for x in self._seats(_k.FIRST)]

    @property
    def resigned(self) -> list[bool]:
        """Whether each player has resigned."""
        return [bool(x) for x in self._seats(_k.RESIGNED)]

    @property
    def turn(self) -> int:
        """Completed turns (for ``max_turns``)."""
        return self._hdr(_k.TURN)

    @property
    def last_mover(self) -> int | None:
        """The player whose turn ended last (``None``: nobody yet)."""
        v = self._hdr(_k.LAST)
        return None if v < 0 else v

    @property
    def phase(self) -> int:
        """``START``, ``BRING``, ``MOVE`` or ``PENALTY``."""
        return self._hdr(_k.PHASE)

    @property
    def placed(self) -> int:
        """Numbers brought in this turn."""
        return self._hdr(_k.PLACED)

    @property
    def speed(self) -> int:
        """The moving group's speed."""
        return self._hdr(_k.SPEED)

    @property
    def start_dist(self) -> int:
        """The moving group's distance at the start of the turn."""
        return self._hdr(_k.START_DIST)

    @property
    def captured(self) -> bool:
        """Whether this turn removed an opponent's piece."""
        return bool(self._hdr(_k.CAPTURED))

    @property
    def brk_cell(self) -> int:
        """The hex (cell id) of an open breakthrough, −1 if none."""
        i = self._hdr(_k.BRK_CELL)
        return CELLS[i] if i >= 0 else -1

    @property
    def brk_budget(self) -> int:
        """What an open breakthrough may still remove."""
        return self._hdr(_k.BRK_BUDGET)

    @property
    def brk_owner(self) -> int:
        """The defender of an open breakthrough, −1 if none."""
        return self._hdr(_k.BRK_OWNER)

    def _flagged(self, flag: int) -> int:
        f = self.s[_k.FLAG : _k.FLAG + N]
        return sum(1 << CELLS[i] for i in np.flatnonzero(f & flag).tolist())

    @property
    def unmoved(self) -> int:
        """The moving group's pieces that may still move (bit set of cell ids)."""
        return self._flagged(_k.UNMOVED)

    @property
    def tracked(self) -> int:
        """Where the pieces of the moving group stand now (bit set of cell ids)."""
        return self._flagged(_k.TRACKED)

    @property
    def own(self) -> list[int]:
        """Each player's pieces (bit sets of cell ids)."""
        owners = self.s[_k.OWNER : _k.OWNER + N]
        return [sum(1 << CELLS[i] for i in np.flatnonzero(owners == q).tolist()) for q in range(self.n)]

    def _number(self, i: int) -> int:
        """The number of the piece on compact cell ``i`` (0: empty)."""
        return int(self.s[_k.NUM + i])

    # -- end of game -------------------------------------------------------------------
    def _settle(self) -> None:
        """At the start of a turn: the last player left, the home-row win, the empty-board win, the safeguard."""
        self._sync(_k.query(self.s, self.game.geo, _k.Q_SETTLE, 0))

    def returns(self) -> list[float]:
        """Winner +1, every other player −1/(players−1) (−1 with two); a draw or a game not over: all 0."""
        n = self.n
        if not self._over or self._winner is None:
            return [0.0] * n
        out = [-1.0 / (n - 1)] * n
        out[self._winner] = 1.0
        return out

    def _occupied(self) -> int:
        """Every piece on the board (bit set)."""
        return sum(1 << CELLS[i] for i in np.flatnonzero(self.s[_k.OWNER : _k.OWNER + N] >= 0).tolist())

    def owner(self, cell: int) -> int:
        """The player whose piece stands on ``cell`` (−1: empty)."""
        return int(self.s[_k.OWNER + INDEX[cell]])

    # -- resigning ---------------------------------------------------------------------
    def resign_plays_on(self) -> bool:
        """Whether a player may resign and the others play on: with four players (with two, a
        resignation ends the game and is scored as a forfeit)."""
        return self.n > 2

    def resign(self, player: int) -> None:
        """``player`` gives up, on his turn or not (docs/rules/nymbat.md four players; issue 16).

        His pieces leave the board and his reserve drops to 0; from then on he
        passes (the state plays his turns as passes by itself, counting them for
        ``max_turns``; a resigned player is never "the player who moved last").
        The others play on; once only one player is left, he wins.  If the
        resigning player is to move, his turn in progress is dropped (no
        retreat or delay is counted) and the next player moves; if another
        player is in mid-turn, a breakthrough against the resigned player's
        pieces closes, and that turn ends by itself if it has no step left.
        The history records ``(player, "resign")``; replay it with this method.
        ``IllegalMove`` if the game is over, ``player`` is not a seat, or he has
        already resigned (the state is unchanged then).
        """
        if self._over:
            raise IllegalMove(GAME_OVER)
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise IllegalMove(f"resign: player must be 0 to {self.n - 1}, not {player!r}")
        if self.resigned[player]:
            who = name_text(self.L.names[player])
            raise IllegalMove(Text("refusal.already_resigned", f"resign: {who} has already resigned", name=who))
        self._sync(_k.resign(self.s, self.game.geo, player))
        self._history.append((player, RESIGN))

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): the last player left, the home row, the empty
        board, or the safeguard."""
        if not self._over:
            return None
        w = self._winner
        names = self.L.names
        if w is None:
            n = self.game.max_turns
            return outcome(
                "safeguard", Text("result.safeguard_turns", f"Draw: the {n}-turn safeguard was reached", n=n)
            )
        name = name_text(names[w])
        resigned = self.resigned
        if resigned.count(False) == 1 and any(resigned):
            return outcome(
                "resign", Text("result.others_resigned", f"Every other player resigned: {name} wins", name=name)
            )
        target, o = self.L.target[w], self.L.opposite[w]
        own = self.own
        if own[w] & target and not own[o] & target:
            other = name_text(names[o])
            return outcome(
                "home_row",
                Text(
                    "result.home_row",
                    f"{name} has a piece on {other}'s home row and {other} has none there: {name} wins",
                    name=name,
                    other=other,
                ),
            )
        return outcome(
            "empty_board",
            Text(
                "result.empty_board",
                f"The board and every reserve are empty: {name} took the last turn and wins",
                name=name,
            ),
        )

    # -- helpers -----------------------------------------------------------------------
    def _allowance(self) -> int:
        """The largest number that may be placed now (0: none)."""
        return int(_k.query(self.s, self.game.geo, _k.Q_ALLOWANCE, 0))

    def _removable(self) -> int:
        """How many opponent pieces an open breakthrough may still remove."""
        return int(_k.query(self.s, self.game.geo, _k.Q_REMOVABLE, 0))

    def _has_step(self) -> bool:
        """Whether a step other than ``end`` is legal (BRING and MOVE phases)."""
        return bool(_k.query(self.s, self.game.geo, _k.Q_HAS_STEP, 0))

    # -- moves -------------------------------------------------------------------------
    def _legal_actions(self) -> list[Action]:
        return _k.legal(self.s, self.game.geo).tolist()  # type: ignore[no-any-return]

    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """``State.legal_actions_array``: a read-only view of the kernel's array of legal steps (``int64``,
        no copy)."""
        if type(self) is not NymbatState:  # a view with its own legal steps: the generic path
            return super().legal_actions_array(player)
        if self._over or (player is not None and player != self.to_move):
            out = np.empty(0, np.int64)
        else:
            nxt = self._next
            out = (_k.legal(self.s, self.game.geo) if nxt is None else nxt).view()
        out.flags.writeable = False
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """``State.legal_actions`` in one step: the kernel's list, without the generic dispatch."""
        if type(self) is not NymbatState:  # a view with its own legal steps (an agent's army): the generic path
            return super().legal_actions(player)
        if self._over or (player is not None and player != self.to_move):
            return []
        nxt = self._next
        if nxt is None:
            return _k.legal(self.s, self.game.geo).tolist()  # type: ignore[no-any-return]
        return nxt.tolist()  # type: ignore[no-any-return]

    def _illegal_reason(self, action: Action) -> str | None:
        if action == RESIGN:
            return Text(
                "refusal.nymbat.resign_step",
                "resign: resigning is not a step of a turn; the server (or a program) calls state.resign(player)",
            )
        if not 0 <= action < NUM_ACTIONS:
            return Text("refusal.nymbat.no_such_action", f"action {action} is not a Nymbat action", action=str(action))
        code = _k.check(self.s, self.game.geo, action)
        return self._reason(code, action) if code else None

    def _reason(self, code: int, action: Action) -> str:
        """The sentence for the kernels' refusal ``code`` of ``action`` (``kernels._check``), a
        :class:`~tessera.core.texts.Text` with the key ``refusal.nymbat.*``."""
        p = self.to_move
        name = name_text(self.L.names[p])
        move = self.action_to_string(action)
        src, dst = divmod(action, N) if action < PLACE_BASE else (0, 0)
        c = (action - PLACE_BASE) // 6 if PLACE_BASE <= action < REMOVE_BASE else 0

        def say(key: str, english: str, **args: Any) -> Text:
            return Text(f"refusal.nymbat.{key}", english, move=move, **args)

        if code == _k.R_PENALTY_DUE:
            return say(
                "penalty_due",
                f"{move}: {name} must first pay a penalty at reserve 0 by removing one of his own pieces "
                "('lose <hex>')",
                name=name,
            )
        if code == _k.R_MOVE_WHILE_BRINGING:
            return say("move_while_bringing", f"{move}: a turn that brings in reserves cannot also move a group")
        if code == _k.R_MOVE_ON_FIRST_TURN:
            return say("move_on_first_turn", f"{move}: on his first turn {name} must bring in reserves", name=name)
        if code == _k.R_NO_OWN_PIECE:
            return say("no_own_piece", f"{move}: {LABEL[src]} holds no {name} piece", hex=LABEL[src], name=name)
        if code == _k.R_PIECE_HAS_MOVED:
            return say(
                "piece_has_moved",
                f"{move}: each piece moves at most once per turn; the piece on {LABEL[src]} has moved",
                hex=LABEL[src],
            )
        if code == _k.R_NOT_OF_GROUP:
            return say("not_of_group", f"{move}: only pieces of the group chosen at the first step may move this turn")
        if code == _k.R_NO_MOVEMENT:
            return say("no_movement", f"{move}: a piece that moves must leave its hex")
        if code == _k.R_ONTO_OWN_PIECE:
            return say("onto_own_piece", f"{move}: a piece may not end its move on another own piece")
        if code == _k.R_OUT_OF_REACH:
            speed = self.speed if self.phase == MOVE else int(_k.query(self.s, self.game.geo, _k.Q_GROUP_SPEED, src))
            return say(
                "out_of_reach",
                f"{move}: {LABEL[dst]} is not reachable within the group's speed {speed} "
                "(paths go through empty or own hexes, never through an opponent's piece)",
                hex=LABEL[dst],
                speed=speed,
            )
        if code == _k.R_PLACE_WHILE_MOVING:
            return say("place_while_moving", f"{move}: a turn that moves a group cannot also bring in reserves")
        if code == _k.R_OUTSIDE_SETUP:
            area = Text(f"nymbat.setup_area.{self.L.edges[p].replace('-', '_')}", self.L.setup_text[p])
            return say(
                "outside_setup",
                f"{move}: pieces are brought in only in {name}'s setup area ({area})",
                name=name,
                area=area,
            )
        if code == _k.R_ONTO_A_PIECE:
            return say("onto_a_piece", f"{move}: hex {LABEL[c]} is not empty", hex=LABEL[c])
        if code == _k.R_OVER_RESERVE:
            left = self.reserves[p]
            return say(
                "over_reserve",
                f"{move}: the numbers brought in may not exceed the reserve ({left} left)",
                count=left,
            )
        if code == _k.R_OVER_FIRST_LIMIT:
            return say(
                "over_first_limit",
                f"{move}: on the first turn the numbers brought in may total at most {self.game.first_limit} "
                f"({self.placed} placed so far)",
                limit=self.game.first_limit,
                placed=self.placed,
            )
        if code == _k.R_NO_BREAKTHROUGH:
            return say(
                "no_breakthrough",
                f"{move}: removals 'x<hex>' are only allowed right after an attack that splits a group (breakthrough)",
            )
        if code == _k.R_NOT_NEXT_TO_ATTACK:
            at = GRID.label(self.brk_cell)
            if self.n > 2:
                owner = name_text(self.L.names[self.brk_owner])
                return say(
                    "not_next_to_attack_of",
                    f"{move}: a breakthrough removes only {owner}'s pieces (the defender's) adjacent to the attacked "
                    f"hex {at}",
                    owner=owner,
                    hex=at,
                )
            return say(
                "not_next_to_attack",
                f"{move}: a breakthrough removes only opponent pieces adjacent to the attacked hex {at}",
                hex=at,
            )
        if code == _k.R_OVER_BUDGET:
            k = self._number(action - REMOVE_BASE)
            return say(
                "over_budget",
                f"{move}: the pieces removed by breakthrough may total at most the attacker's number; "
                f"{self.brk_budget} left, this piece is a {k}",
                budget=self.brk_budget,
                number=k,
            )
        if code == _k.R_NO_PENALTY_DUE:
            return say(
                "no_penalty_due", f"{move}: 'lose' is only played to pay a retreat or delay penalty at reserve 0"
            )
        if code == _k.R_LOSE_NOT_OWN:
            at = LABEL[action - LOSE_BASE]
            return say("no_own_piece", f"{move}: {at} holds no {name} piece", hex=at, name=name)
        if code == _k.R_END_FIRST:
            return Text("refusal.nymbat.end_first", "end: a turn must first bring in a piece or move a piece (or pass)")
        if code == _k.R_PASS_AFTER_STEPS:
            return Text("refusal.nymbat.pass_after_steps", "pass: a pass is a whole turn; it cannot follow other steps")
        assert code == _k.R_PASS_ON_FIRST_TURN, code
        return Text(
            "refusal.nymbat.pass_on_first_turn", f"pass: on his first turn {name} must bring in reserves", name=name
        )

    def _apply(self, action: Action) -> None:
        self._sync(_k.apply(self.s, self.game.geo, action, False))

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move, checked (one kernel call: check and apply)."""
        if type(self) is not NymbatState:  # a view adding its own checks (an agent's army): the generic path
            super().apply_action(action)
            return
        if self._over:
            raise IllegalMove(GAME_OVER)
        if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise IllegalMove(no_such_action(action, self.game.name))
        p = self.to_move
        nxt = self._next
        status, legal = _k.apply_step(
            self.s, self.game.geo, int(action), _NO_STEPS if nxt is None else nxt, nxt is not None
        )
        if status < 0:
            raise IllegalMove(self._reason(-status, action))
        self._sync(status)
        if not self._over:
            self._next = legal
        self._history.append((p, action))

    # -- random play -------------------------------------------------------------------
    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A random legal step: first a kind of step, then a uniform step of that kind.

        At the start of a turn: bring in (30%, always on a first turn), move a
        group (67%) or pass (3%), among the kinds possible; while bringing in,
        ``end`` with probability 1/4; while moving, a breakthrough removal (70%
        when one is possible), else ``end`` with probability 1/6, else a random
        movable piece to a random reachable hex.  One kernel call, seeded by 63
        bits drawn from ``rng``; :meth:`rollouts` plays the same distribution.
        """
        if self._over:
            raise IllegalMove("the game is over: there is no move to draw")
        if player is not None and player != self.to_move:
            raise IllegalMove(f"it is player {self.to_move}'s turn, not player {player}'s")
        return int(_k.random_step(self.s, self.game.geo, rng.getrandbits(63)))

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``n`` random games from here in one kernel call (:meth:`State.rollouts`); the state is unchanged.

        Each plays :meth:`random_action`'s distribution to the end (the returns) or for
        ``max_plies`` steps (then :meth:`evaluate`; two players: player 1 gets minus
        player 0's value); same seed, same result.
        """
        if type(self) is not NymbatState:  # a view with its own random_action (an agent's army)
            return super().rollouts(n, seed, max_plies)
        if n < 0:
            raise ValueError(f"rollouts: n must be >= 0, not {n!r}")
        if max_plies is not None and max_plies < 0:
            raise ValueError(f"rollouts: max_plies must be >= 0 or None, not {max_plies!r}")
        totals = np.zeros(self.n)
        cutoff = -1 if max_plies is None else max_plies
        plies = _k.rollouts(self.s, self.game.geo, n, rng_state(seed), cutoff, totals) if n else 0
        return RolloutResult(n, tuple(totals.tolist()), int(plies))

    # -- notation ----------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        if action == RESIGN:
            return "resign"
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalMove(no_such_action(action, "nymbat"))
        if action < PLACE_BASE:
            return f"{LABEL[action // N]}-{LABEL[action % N]}"
        if action < REMOVE_BASE:
            i, k = divmod(action - PLACE_BASE, 6)
            return f"{LABEL[i]}={k + 1}"
        if action < LOSE_BASE:
            return "x" + LABEL[action - REMOVE_BASE]
        if action < END:
            return "lose " + LABEL[action - LOSE_BASE]
        return "end" if action == END else "pass"

    def string_to_action(self, move: str) -> Action:
        text = move.strip().lower()
        if text == "end":
            return END
        if text == "pass":
            return PASS
        if text == "resign":
            return RESIGN
        if m := _MOVE_RE.fullmatch(text):
            return _index(m.group(1), move) * N + _index(m.group(2), move)
        if m := _PLACE_RE.fullmatch(text):
            digits = m.group(2)
            if len(digits) > 3:  # a huge number is refused without converting it (int() stops at 4,300 digits)
                raise IllegalMove(
                    Text(
                        "refusal.nymbat.number_long",
                        f"{digits[:8]}…: a piece's number is a whole number from 1 to 6",
                        digits=digits[:8],
                    )
                )
            k = int(digits)
            if not 1 <= k <= 6:
                raise IllegalMove(
                    Text(
                        "refusal.nymbat.number",
                        f"{move!r}: a piece's number is a whole number from 1 to 6, not {k}",
                        move=repr(move),
                        n=k,
                    )
                )
            return PLACE_BASE + _index(m.group(1), move) * 6 + k - 1
        if m := _REMOVE_RE.fullmatch(text):
            return REMOVE_BASE + _index(m.group(1), move)
        if m := _LOSE_RE.fullmatch(text):
            return LOSE_BASE + _index(m.group(1), move)
        raise IllegalMove(Text("refusal.nymbat.syntax", f"{move!r} is not a Nymbat step: {_SYNTAX}", move=repr(move)))

    # -- positions ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        s = self.s
        pieces = {}
        for i in np.flatnonzero(s[_k.NUM : _k.NUM + N]).tolist():
            pieces[LABEL[i]] = [int(s[_k.OWNER + i]), int(s[_k.NUM + i])]
        d: dict[str, Any] = {
            "to_move": self.to_move,
            "pieces": pieces,
            "reserves": list(self.reserves),
            "delays": list(self.delays),
            "first_turn_done": list(self.first_done),
        }
        if self.turn:
            d["turn"] = self.turn
        if self.last_mover is not None:
            d["last_mover"] = self.last_mover
        if any(self.resigned):
            d["resigned"] = list(self.resigned)
        phase = self.phase
        if phase == BRING:
            d["in_turn"] = {"phase": "bring", "placed": self.placed}
        elif phase == PENALTY:
            d["in_turn"] = {"phase": "penalty"}
        elif phase == MOVE:
            t: dict[str, Any] = {
                "phase": "move",
                "speed": self.speed,
                "unmoved": [GRID.label(c) for c in bits(self.unmoved)],
                "group": [GRID.label(c) for c in bits(self.tracked)],
                "start_distance": self.start_dist,
                "captured": self.captured,
            }
            brk = self.brk_cell
            if brk >= 0:
                t["breakthrough"] = {"hex": GRID.label(brk), "budget": self.brk_budget}
                if self.n > 2:
                    t["breakthrough"]["defender"] = self.brk_owner
            d["in_turn"] = t
        return d

    # -- agents ------------------------------------------------------------------------
    def _on_board(self, player: int) -> int:
        """The numbers of ``player``'s pieces on the board."""
        s = self.s
        return int(s[_k.NUM : _k.NUM + N][s[_k.OWNER : _k.OWNER + N] == player].sum())

    def evaluate(self, player: int) -> float:
        """Material, race and home-row threat (module docstring); exact when over.

        With four players the other players' material and race are averaged,
        and any other player's unopposed threat counts −1.
        """
        if not 0 <= player < self.n:
            raise IndexError(f"evaluate: player must be 0 to {self.n - 1}, not {player!r}")
        return float(_k.evaluate(self.s, self.game.geo, player))

    # -- drawing (render.py) ---------------------------------------------------------
    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: a spectator)."""
        from tessera.games.nymbat.render import render

        return render(self, player)

    def __str__(self) -> str:
        return text_diagram(self.render())


_SHADES = {
    PLAYER_COLORS["red"]: ("#e9b3ad", "#f6dcd8"),
    PLAYER_COLORS["blue"]: ("#b3c6ec", "#dce5f7"),
    PLAYER_COLORS["green"]: ("#b2d9bb", "#dcefe0"),
    PLAYER_COLORS["yellow"]: ("#f1d98c", "#f9edc6"),
}
"""Board tints of each player colour: (home row, rest of the setup area)."""


def _mix(a: str, b: str) -> str:
    """The colour halfway between two ``#rrggbb`` colours, darkened a little (shared corner hexes)."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{int((x + y) / 2 * 0.88):02x}" for x, y in zip(ca, cb, strict=True))


def _index(label: str, move: str) -> int:
    if not GRID.has_label(label):
        raise IllegalMove(
            Text(
                "refusal.nymbat.no_hex",
                f"{move!r}: {label!r} is not a hex of the board (rows a–o, side 8)",
                move=repr(move),
                hex=repr(label),
            )
        )
    return INDEX[GRID.cell(label)]


# -- position dicts ----------------------------------------------------------------------
