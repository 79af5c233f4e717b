r"""Nymbat — number and combat on a hexagon of side 8 (seed ``000``; RULES.md, Nymbat).

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

Four players (``players=4``; RULES.md, Nymbat, "Four players")
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

Rulings made here (where seed and RULES.md are silent)
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
from collections.abc import Mapping
from typing import Any

import numpy as np

from tessera.core.game import Action, Game, GameInfo, IllegalMove, Param, RolloutResult, TurnState
from tessera.core.geometry import bits, hexagon
from tessera.core.kernels import neighbour_table, rng_state, warm_up
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.render import PLAYER_COLORS, cell_entry, describe, piece, text_diagram
from tessera.games.nymbat import kernels as _k

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
    _k.random_action(s, geo, 1)
    _k.query(s, geo, _k.Q_ALLOWANCE, 0)
    _k.evaluate(s, geo, 0)
    _k.rollouts(s, geo, 1, rng_state(0), 2, np.zeros(game.players))
    _k.step(s.copy(), geo, PASS, True)
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
        return _from_dict(self, d)

    def num_distinct_actions(self) -> int:
        """Moves ``169·169``, placements ``169·6``, removals, losses (169 each), end, pass."""
        return NUM_ACTIONS

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.nymbat.observation`)."""
        from tessera.games.nymbat.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """``max_turns`` turns of at most ``2·169 + 2`` steps each."""
        return self.max_turns * (2 * N + 2)


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

    def _copy_from(self, other: NymbatState) -> None:
        self.n = other.n
        self.L = other.L
        self.s = other.s.copy()
        self.to_move = other.to_move
        self._over = other._over
        self._winner = other._winner

    def _sync(self, status: int) -> None:
        """Mirror the kernels' packed header (``kernels.status``)."""
        self.to_move = status & 3
        self._over = bool(status & 4)
        w = (status >> 3) - 1
        self._winner = w if w >= 0 else None

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
        """``player`` gives up, on his turn or not (RULES.md, Nymbat four players; issue 16).

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
            raise IllegalMove("the game is over")
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise IllegalMove(f"resign: player must be 0 to {self.n - 1}, not {player!r}")
        if self.resigned[player]:
            raise IllegalMove(f"resign: {self.L.names[player]} has already resigned")
        self._sync(_k.resign(self.s, self.game.geo, player))
        self._history.append((player, RESIGN))

    def outcome(self) -> dict[str, str] | None:
        """Why the game ended (see :meth:`State.outcome`): the last player left, the home row, the empty
        board, or the safeguard."""
        if not self._over:
            return None
        w = self._winner
        names = self.L.names
        if w is None:
            return {"reason": "safeguard", "text": f"Draw: the {self.game.max_turns}-turn safeguard was reached"}
        resigned = self.resigned
        if resigned.count(False) == 1 and any(resigned):
            return {"reason": "resign", "text": f"Every other player resigned: {names[w]} wins"}
        target, o = self.L.target[w], self.L.opposite[w]
        own = self.own
        if own[w] & target and not own[o] & target:
            return {
                "reason": "home_row",
                "text": f"{names[w]} has a piece on {names[o]}'s home row and {names[o]} has none there: "
                f"{names[w]} wins",
            }
        return {
            "reason": "empty_board",
            "text": f"The board and every reserve are empty: {names[w]} took the last turn and wins",
        }

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

    def _illegal_reason(self, action: Action) -> str | None:
        if action == RESIGN:
            return "resign: resigning is not a step of a turn; the server (or a program) calls state.resign(player)"
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} is not a Nymbat action"
        code = _k.check(self.s, self.game.geo, action)
        return self._reason(code, action) if code else None

    def _reason(self, code: int, action: Action) -> str:
        """The sentence for the kernels' refusal ``code`` of ``action`` (``kernels._check``)."""
        p = self.to_move
        names = self.L.names
        move = self.action_to_string(action)
        src, dst = divmod(action, N) if action < PLACE_BASE else (0, 0)
        c = (action - PLACE_BASE) // 6 if PLACE_BASE <= action < REMOVE_BASE else 0
        if code == 1:
            return (
                f"{move}: {names[p]} must first pay a penalty at reserve 0 by removing one of his own pieces "
                "('lose <hex>')"
            )
        if code == 2:
            return f"{move}: a turn that brings in reserves cannot also move a group"
        if code == 3:
            return f"{move}: on his first turn {names[p]} must bring in reserves"
        if code == 4:
            return f"{move}: {LABEL[src]} holds no {names[p]} piece"
        if code == 5:
            return f"{move}: each piece moves at most once per turn; the piece on {LABEL[src]} has moved"
        if code == 6:
            return f"{move}: only pieces of the group chosen at the first step may move this turn"
        if code == 7:
            return f"{move}: a piece that moves must leave its hex"
        if code == 8:
            return f"{move}: a piece may not end its move on another own piece"
        if code == 9:
            speed = self.speed if self.phase == MOVE else int(_k.query(self.s, self.game.geo, _k.Q_GROUP_SPEED, src))
            return (
                f"{move}: {LABEL[dst]} is not reachable within the group's speed {speed} "
                "(paths go through empty or own hexes, never through an opponent's piece)"
            )
        if code == 10:
            return f"{move}: a turn that moves a group cannot also bring in reserves"
        if code == 11:
            return f"{move}: pieces are brought in only in {names[p]}'s setup area ({self.L.setup_text[p]})"
        if code == 12:
            return f"{move}: hex {LABEL[c]} is not empty"
        if code == 13:
            return f"{move}: the numbers brought in may not exceed the reserve ({self.reserves[p]} left)"
        if code == 14:
            return (
                f"{move}: on the first turn the numbers brought in may total at most {self.game.first_limit} "
                f"({self.placed} placed so far)"
            )
        if code == 15:
            return (
                f"{move}: removals 'x<hex>' are only allowed right after an attack that splits a group (breakthrough)"
            )
        if code == 16:
            whose = "opponent pieces"
            if self.n > 2:
                whose = f"{names[self.brk_owner]}'s pieces (the defender's)"
            return (
                f"{move}: a breakthrough removes only {whose} adjacent to the attacked hex {GRID.label(self.brk_cell)}"
            )
        if code == 17:
            return (
                f"{move}: the pieces removed by breakthrough may total at most the attacker's number; "
                f"{self.brk_budget} left, this piece is a {self._number(action - REMOVE_BASE)}"
            )
        if code == 18:
            return f"{move}: 'lose' is only played to pay a retreat or delay penalty at reserve 0"
        if code == 19:
            return f"{move}: {LABEL[action - LOSE_BASE]} holds no {names[p]} piece"
        if code == 20:
            return "end: a turn must first bring in a piece or move a piece (or pass)"
        if code == 21:
            return "pass: a pass is a whole turn; it cannot follow other steps"
        return f"pass: on his first turn {names[p]} must bring in reserves"

    def _apply(self, action: Action) -> None:
        self._sync(_k.step(self.s, self.game.geo, action, False))

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move, checked (one kernel call: check and apply)."""
        if type(self) is not NymbatState:  # a view adding its own checks (an agent's army): the generic path
            super().apply_action(action)
            return
        if self._over:
            raise IllegalMove("the game is over")
        if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise IllegalMove(f"action {action!r} is not an action of {self.game.name}")
        p = self.to_move
        status = _k.step(self.s, self.game.geo, action, True)
        if status < 0:
            raise IllegalMove(self._reason(-status, action))
        self._sync(status)
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
        return int(_k.random_action(self.s, self.game.geo, rng.getrandbits(63)))

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
            raise IllegalMove(f"action {action!r} is not a Nymbat action")
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
                raise IllegalMove(f"{digits[:8]}…: a piece's number is a whole number from 1 to 6")
            k = int(digits)
            if not 1 <= k <= 6:
                raise IllegalMove(f"{move!r}: a piece's number is a whole number from 1 to 6, not {k}")
            return PLACE_BASE + _index(m.group(1), move) * 6 + k - 1
        if m := _REMOVE_RE.fullmatch(text):
            return REMOVE_BASE + _index(m.group(1), move)
        if m := _LOSE_RE.fullmatch(text):
            return LOSE_BASE + _index(m.group(1), move)
        raise IllegalMove(f"{move!r} is not a Nymbat step: {_SYNTAX}")

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

    # -- drawing -----------------------------------------------------------------------
    def render(self, player: int | None = None) -> dict[str, Any]:
        L = self.L
        names = L.names
        fills: dict[int, str] = {}
        titles: dict[int, str] = {}
        shades = [_SHADES[L.colors[pl]] for pl in range(self.n)]
        for c in CELLS:
            owners = [pl for pl in range(self.n) if L.setup[pl] >> c & 1]
            if not owners:
                continue
            parts = []
            tints = []
            for pl in owners:
                home = bool(L.home[pl] >> c & 1)
                parts.append(f"{names[pl]} {'home row' if home else 'setup area'}")
                tints.append(shades[pl][0] if home else shades[pl][1])
            if len(owners) == 1:
                fills[c], titles[c] = tints[0], parts[0]
            else:  # a shared corner hex: its own tint (the two mixed), both names in its title
                fills[c] = _mix(tints[0], tints[1])
                titles[c] = "shared: " + " and ".join(parts)
        cells = []
        for c in CELLS:
            x, y = GRID.center(c)
            cells.append(cell_entry(GRID.label(c), x, y, fill=fills.get(c), title=titles.get(c)))
        pieces = []
        for i in np.flatnonzero(self.s[_k.NUM : _k.NUM + N]).tolist():
            o, k = int(self.s[_k.OWNER + i]), int(self.s[_k.NUM + i])
            pieces.append(
                piece(LABEL[i], o, text=str(k), color=L.colors[o], symbol=L.symbols[o], title=f"{names[o]} {k}")
            )
        highlights: list[dict[str, Any]] = []
        for pl in range(self.n):
            for c in bits(L.home[pl]):
                highlights.append({"cell": GRID.label(c), "kind": "home", "owner": pl, "color": L.colors[pl]})
        if self.phase == MOVE:
            for c in bits(self.unmoved):
                highlights.append({"cell": GRID.label(c), "kind": "target", "title": "may still move"})
            if self.brk_cell >= 0:
                highlights.append(
                    {
                        "cell": GRID.label(self.brk_cell),
                        "kind": "warning",
                        "title": f"breakthrough: remove adjacent pieces totalling at most {self.brk_budget}",
                    }
                )
        last: list[str] = []
        # the last-move marker covers the whole turn: every step of the trailing run of one player
        who = self._history[-1][0] if self._history else None
        for p_step, a_step in reversed(self._history):
            if p_step != who:
                break
            s = self.action_to_string(a_step) if a_step != RESIGN else ""
            if "-" in s:
                step_cells = s.split("-")
            elif "=" in s:
                step_cells = [s.split("=")[0]]
            elif s.startswith("x"):
                step_cells = [s[1:]]
            elif s.startswith("lose "):
                step_cells = [s[5:]]
            else:
                step_cells = []
            last = [c for c in step_cells if c not in last] + last
        highlights += [{"cell": c, "kind": "last"} for c in last]
        actions: list[dict[str, Any]] = []
        cp = self.current_player()
        if cp >= 0 and (player is None or player == cp):
            legal = self._legal_actions()
            choices = list(range(1, self._allowance() + 1))
            placed_cells: set[int] = set()
            for a in sorted(legal):
                s = self.action_to_string(a)
                if a == END:
                    actions.append({"move": "end", "path": [], "label": "End turn"})
                elif a == PASS:
                    actions.append({"move": "pass", "path": [], "label": "Pass"})
                elif a < PLACE_BASE:
                    actions.append({"move": s, "path": s.split("-")})
                elif a < REMOVE_BASE:
                    i = (a - PLACE_BASE) // 6
                    if i not in placed_cells:
                        placed_cells.add(i)
                        actions.append({"template": f"{LABEL[i]}={{n}}", "path": [LABEL[i]], "choices": choices})
                elif a < LOSE_BASE:
                    actions.append({"move": s, "path": [s[1:]]})
                else:
                    actions.append({"move": s, "path": [s[5:]]})
        period = self.game.delay_period
        turn_text = {
            START: "start of turn",
            BRING: f"bringing in ({self.placed} placed)",
            MOVE: f"moving a group at speed {self.speed}"
            + (f"; breakthrough: {self.brk_budget} may be removed" if self.brk_cell >= 0 else ""),
            PENALTY: "penalty at reserve 0: remove one of your pieces",
        }[self.phase]
        panel: list[dict[str, Any]] = [
            {"label": "Reserve", "values": list(self.reserves)},
            {"label": f"Delays (every {period}th costs 1)", "values": list(self.delays)},
            {"label": "On board", "values": [self._on_board(i) for i in range(self.n)]},
            {"label": "Turn", "values": [f"{self.turn} / {self.game.max_turns}"]},
            {"label": "This turn", "values": [turn_text]},
        ]
        return describe(
            self,
            board={"kind": "hex", "cells": cells, "unbounded": False, "coords": "rows"},
            pieces=pieces,
            players=[
                {"name": names[i], "color": L.colors[i], **({"resigned": True} if self.resigned[i] else {})}
                for i in range(self.n)
            ],
            highlights=highlights,
            panel=panel,
            actions=actions,
            last_move=last,
            viewer=player,
            hint=self._hint(),
            setups=self._setups() if player is None or player == self.current_player() else [],
        )

    def _setups(self) -> list[dict[str, Any]]:
        """Ready-made first-turn set-ups for the player to move (render ``setups``): each a list of
        placement steps within his first-turn allowance, placed in one click and then adjusted with
        the allowance left.  Only at the start of a first turn."""
        if self._over or self.phase not in (START, BRING) or self.placed:
            return []
        p = self.to_move
        if self.first_done[p]:
            return []
        allowance = min(self.reserves[p], self.game.first_limit)
        spend = allowance - 6 if allowance > 12 else allowance  # leave some to adjust with
        lines = GRID.edge_lines(self.L.edges[p])
        centre = GRID.coords[CELLS[len(CELLS) // 2]]  # the centre hex
        assert centre is not None
        cq, cr = centre

        def from_centre(c: int) -> tuple[int, int]:
            """Hex distance to the centre, then sideways distance (twice the x offset): middle hexes first."""
            qr = GRID.coords[c]
            assert qr is not None
            q, r = qr
            return (abs(q - cq) + abs(r - cr) + abs(q - cq + r - cr)) // 2, abs(2 * (q - cq) + (r - cr))

        occupied = self._occupied()
        free = [c for c in CELLS if self.L.setup[p] >> c & 1 and not occupied >> c & 1]
        front = sorted((c for c in free if lines[c] == 2), key=from_centre)
        middle = sorted((c for c in free if lines[c] == 1), key=from_centre)

        def fill(cells_numbers: list[tuple[int, int]]) -> list[str]:
            out, left = [], spend
            for c, k in cells_numbers:
                k = min(k, left)
                if k < 1:
                    break
                out.append(f"{GRID.label(c)}={k}")
                left -= k
            return out

        def formations(size: int) -> list[int]:
            """Groups of ``size`` mutually adjacent free hexes (2: twins on the front row; 3: a shield,
            two front hexes and the middle hex touching both), middle of the front first, none
            touching another, so that each stays a group of its own."""
            out: list[int] = []
            used = 0
            for a in front:
                for b in GRID.neighbors[a]:
                    if b not in front:
                        continue
                    third = [m for m in middle if GRID.neighbor_mask[a] >> m & 1 and GRID.neighbor_mask[b] >> m & 1]
                    cells = [a, b, *third[:1]] if size == 3 else [a, b]
                    if len(cells) < size:
                        continue
                    zone = 0
                    for c in cells:
                        zone |= 1 << c | GRID.neighbor_mask[c]
                    if zone & used:
                        continue
                    used |= sum(1 << c for c in cells)
                    out += cells
                    break
            return out

        plans = [
            (
                "Shields of 3s",
                "triangles of three 3s, each piece touching the other two: safe from breakthrough",
                fill([(c, 3) for c in formations(3)[: spend // 9 * 3]]),  # whole shields only
            ),
            (
                "Twins of 4s",
                "pairs of 4s: a pair beats any single attacker",
                fill([(c, 4) for c in formations(2)[: spend // 8 * 2]]),
            ),
            ("Horde of 1s", "1s on your two front rows: many fast pieces", fill([(c, 1) for c in front + middle])),
            (
                "Spearhead",
                "a 6 in the front centre with 5s beside it, 3s behind",
                fill([(c, k) for c, k in zip(front[:3], (6, 5, 5), strict=False)] + [(c, 3) for c in middle]),
            ),
        ]
        out = []
        for label, title, moves in plans:
            probe = self.clone()
            try:
                for m in moves:
                    probe.play(m)
            except IllegalMove:
                continue
            if moves:
                total = sum(int(m.split("=")[1]) for m in moves)
                note = f"{len(moves)} pieces, {total} of your {allowance}"
                out.append({"label": label, "title": f"{title} ({note})", "moves": moves})
        return out

    def _hint(self) -> str | None:
        """What the player to move may do that the board alone does not say (render ``hint``)."""
        if self._over or self.phase != MOVE or self.brk_cell < 0:
            return None
        at = GRID.label(self.brk_cell)
        return (
            f"Breakthrough at {at}: your attack split the defender's group, so you may now remove opponent "
            f"pieces next to {at} whose numbers total at most {self.brk_budget} (click them, one step each); "
            "any other step closes the breakthrough."
        )

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
        raise IllegalMove(f"{move!r}: {label!r} is not a hex of the board (rows a–o, side 8)")
    return INDEX[GRID.cell(label)]


# -- position dicts ----------------------------------------------------------------------


def _from_dict(game: NymbatGame, d: Mapping[str, Any]) -> NymbatState:
    where = "nymbat position"
    if not isinstance(d, Mapping):
        raise ValueError(f"a {where} must be a dict")
    known = {"to_move", "pieces", "reserves", "delays", "first_turn_done", "turn", "last_mover", "in_turn", "resigned"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; accepted keys: {', '.join(sorted(known))}")
    for key in ("to_move", "pieces", "reserves"):
        if key not in d:
            raise ValueError(f"{where}: missing key {key!r}")
    st = NymbatState(game)
    players = game.players
    names = game.layout.names
    s = st.s
    st.to_move = _player(d["to_move"], f"{where}: to_move", names)
    s[_H + _k.TO_MOVE] = st.to_move
    pieces = d["pieces"]
    if not isinstance(pieces, Mapping):
        raise ValueError(f"{where}: 'pieces' must map a hex to [owner, number]")
    for key, val in pieces.items():
        if not isinstance(key, str) or not GRID.has_label(key):
            raise ValueError(f"{where}: piece hex {key!r} is not a hex of the board (rows a–o, side 8)")
        if not isinstance(val, list | tuple) or len(val) != 2:
            raise ValueError(f"{where}: piece {key}: expected [owner, number], got {val!r}")
        owner = _player(val[0], f"{where}: piece {key} owner", names)
        n = val[1]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 6:
            raise ValueError(f"{where}: piece {key}: the number must be 1–6, not {n!r}")
        i = INDEX[GRID.cell(key)]
        s[_k.OWNER + i] = owner
        s[_k.NUM + i] = n
    s[_H + _k.RES : _H + _k.RES + players] = _pair(d["reserves"], f"{where}: reserves", 0, 10**6, players)
    s[_H + _k.DEL : _H + _k.DEL + players] = _pair(
        d.get("delays", [0] * players), f"{where}: delays", 0, 10**9, players
    )
    fd = d.get("first_turn_done", [False] * players)
    if not isinstance(fd, list | tuple) or len(fd) != players or not all(isinstance(x, bool) for x in fd):
        raise ValueError(f"{where}: first_turn_done must be {players} booleans, not {fd!r}")
    s[_H + _k.FIRST : _H + _k.FIRST + players] = fd
    rs = d.get("resigned", [False] * players)
    if not isinstance(rs, list | tuple) or len(rs) != players or not all(isinstance(x, bool) for x in rs):
        raise ValueError(f"{where}: resigned must be {players} booleans, not {rs!r}")
    for q in range(players):
        if rs[q] and (st.own[q] or st.reserves[q]):
            raise ValueError(f"{where}: {names[q]} has resigned, so he has no piece on the board and reserve 0")
    if rs.count(False) == 0:
        raise ValueError(f"{where}: at least one player has not resigned")
    s[_H + _k.RESIGNED : _H + _k.RESIGNED + players] = rs
    turn = d.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= game.max_turns:
        raise ValueError(f"{where}: turn must be a whole number 0–{game.max_turns}, not {turn!r}")
    s[_H + _k.TURN] = turn
    lm = d.get("last_mover")
    s[_H + _k.LAST] = -1 if lm is None else _player(lm, f"{where}: last_mover", names)
    it = d.get("in_turn")
    if it is None:
        st._settle()
    if st.resigned[st.to_move] and not st._over:  # (a game can end at a resigned player's turn)
        raise ValueError(f"{where}: {names[st.to_move]} has resigned, so he is never to move")
    if it is None:
        return st
    if not isinstance(it, Mapping) or it.get("phase") not in ("bring", "move", "penalty"):
        raise ValueError(f"{where}: in_turn must be a dict whose phase is 'bring', 'move' or 'penalty'")
    p = st.to_move
    phase = it["phase"]
    allowed = {"bring": {"phase", "placed"}, "penalty": {"phase"}}.get(
        phase, {"phase", "speed", "unmoved", "group", "start_distance", "captured", "breakthrough"}
    )
    extra = sorted(set(it) - allowed)
    if extra:
        raise ValueError(f"{where}: in_turn key {extra[0]!r} does not belong to phase {phase!r}")
    if phase == "penalty":
        if st.reserves[p] != 0 or not st.own[p]:
            raise ValueError(f"{where}: a penalty step needs reserve 0 and a piece of {names[p]} on the board")
        s[_H + _k.PHASE] = PENALTY
        return st
    if phase == "bring":
        placed = it.get("placed")
        if not isinstance(placed, int) or isinstance(placed, bool) or not 1 <= placed <= 10**6:
            raise ValueError(f"{where}: in_turn placed must be a whole number >= 1 (at most 10**6), not {placed!r}")
        if not st.first_done[p] and placed > game.first_limit:
            raise ValueError(f"{where}: {placed} placed on a first turn exceeds first_limit={game.first_limit}")
        s[_H + _k.PHASE] = BRING
        s[_H + _k.PLACED] = placed
        if not st._has_step():
            raise ValueError(f"{where}: nothing more can be brought in, so the turn would already have ended")
        return st
    if not st.first_done[p]:
        raise ValueError(f"{where}: {names[p]} cannot move a group on his first turn")
    speed = it.get("speed")
    if not isinstance(speed, int) or isinstance(speed, bool) or not 1 <= speed <= 6:
        raise ValueError(f"{where}: in_turn speed must be 1–6, not {speed!r}")
    unmoved = _cells(it.get("unmoved"), f"{where}: in_turn unmoved")
    tracked = _cells(it.get("group"), f"{where}: in_turn group")
    if unmoved & ~st.own[p] or tracked & ~st.own[p]:
        raise ValueError(f"{where}: in_turn unmoved/group must be hexes holding {names[p]} pieces")
    if unmoved & ~tracked:
        raise ValueError(f"{where}: in_turn unmoved pieces must also be listed in group")
    sd = it.get("start_distance")
    if not isinstance(sd, int) or isinstance(sd, bool) or not 0 <= sd <= LAST_ROW:
        raise ValueError(f"{where}: in_turn start_distance must be 0–{LAST_ROW}, not {sd!r}")
    cap = it.get("captured")
    if not isinstance(cap, bool):
        raise ValueError(f"{where}: in_turn captured must be true or false, not {cap!r}")
    s[_H + _k.PHASE] = MOVE
    s[_H + _k.SPEED] = speed
    s[_H + _k.START_DIST] = sd
    s[_H + _k.CAPTURED] = cap
    for c in bits(tracked):
        s[_k.FLAG + INDEX[c]] = _k.TRACKED | (_k.UNMOVED if unmoved >> c & 1 else 0)
    brk = it.get("breakthrough")
    if brk is not None:
        keys = {"hex", "budget"} if players == 2 else {"hex", "budget", "defender"}
        if not isinstance(brk, Mapping) or set(brk) != keys:
            form = ", ".join(f"'{k}': ..." for k in sorted(keys))
            raise ValueError(f"{where}: in_turn breakthrough must be {{{form}}}")
        h = brk["hex"]
        if not isinstance(h, str) or not GRID.has_label(h):
            raise ValueError(f"{where}: breakthrough hex {h!r} is not a hex of the board")
        b = brk["budget"]
        if not isinstance(b, int) or isinstance(b, bool) or not 1 <= b <= 6:
            raise ValueError(f"{where}: breakthrough budget must be 1–6, not {b!r}")
        owner = 1 - p if players == 2 else _player(brk["defender"], f"{where}: breakthrough defender", names)
        if owner == p:
            raise ValueError(f"{where}: the breakthrough defender cannot be the player to move")
        s[_H + _k.BRK_CELL] = INDEX[GRID.cell(h)]
        s[_H + _k.BRK_BUDGET] = b
        s[_H + _k.BRK_OWNER] = owner
        if not st._removable():
            raise ValueError(f"{where}: the breakthrough at {h} has nothing left to remove")
    if not st._has_step():
        raise ValueError(f"{where}: no group piece can move any more, so the turn would already have ended")
    return st


def _player(v: Any, where: str, names: tuple[str, ...] = NAMES) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < len(names):
        seats = " or ".join(f"{i} ({name})" for i, name in enumerate(names))
        if len(names) > 2:
            seats = ", ".join(f"{i} ({name})" for i, name in enumerate(names))
        raise ValueError(f"{where} must be {seats}, not {v!r}")
    return int(v)


def _pair(v: Any, where: str, lo: int, hi: int, count: int = 2) -> list[int]:
    if (
        not isinstance(v, list | tuple)
        or len(v) != count
        or not all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi for x in v)
    ):
        words = "two" if count == 2 else str(count)
        raise ValueError(f"{where} must be {words} whole numbers from {lo} to {hi}, not {v!r}")
    return [int(x) for x in v]


def _cells(v: Any, where: str) -> int:
    if not isinstance(v, list | tuple):
        raise ValueError(f"{where} must be a list of hexes, not {v!r}")
    m = 0
    for h in v:
        if not isinstance(h, str) or not GRID.has_label(h):
            raise ValueError(f"{where}: {h!r} is not a hex of the board")
        m |= 1 << GRID.cell(h)
    return m
