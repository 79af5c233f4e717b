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

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import Game, GameInfo, Move, Param, State
from tessera.core.kernels import rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.board import (
    BLUE,
    BRING,
    CELLS,
    COLORS,
    DIST,
    END,
    FULL,
    GRID,
    HOME,
    INDEX,
    LABEL,
    LAST_ROW,
    LAYOUTS,
    LOSE_BASE,
    MOVE,
    MOVE_BASE,
    NAMES,
    NAMES4,
    NBR,
    NUM_ACTIONS,
    PASS,
    PENALTY,
    PHASE_NAMES,
    PLACE_BASE,
    RED,
    REMOVE_BASE,
    RESIGN,
    SETUP,
    START,
    Layout,
    N,
    _geo,
    _start,
)
from tessera.games.nymbat.state import NymbatState

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.vector import VectorGame

__all__ = [  # the names of the board (board.py) and the state (state.py) read from here too
    "BLUE",
    "BRING",
    "CELLS",
    "COLORS",
    "DIST",
    "END",
    "FULL",
    "GRID",
    "HOME",
    "INDEX",
    "INFO",
    "LABEL",
    "LAST_ROW",
    "LAYOUTS",
    "LEVELS",
    "LOSE_BASE",
    "MOVE",
    "MOVE_BASE",
    "NAMES",
    "NAMES4",
    "NBR",
    "NUM_ACTIONS",
    "PASS",
    "PENALTY",
    "PHASE_NAMES",
    "PLACE_BASE",
    "RED",
    "REMOVE_BASE",
    "RESIGN",
    "SETUP",
    "START",
    "Layout",
    "N",
    "NymbatGame",
    "NymbatState",
    "_start",  # the kernels' starting array (contract.py)
]


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
    # Level 6 (two players): the learned value (tessera.agents.learned) in level 5's alpha-beta, at level
    # 5's time; offered once the SPRT of studies/sprt/nymbat-learned-vs-level5 (H1 = +150 Elo, at a tenth
    # of the time on the CPU clock) accepts H1 (tessera.agents.evidence re-reads it).
    level6="learned(game=nymbat)",
    level6_sprt="nymbat-learned-vs-level5",
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
        """Nymbat's own engine (:mod:`tessera.games.nymbat.vector`: the planes written in place), kept beside
        the generic one on the kernel contract because that costs more (the figure is in its docstring)."""
        from tessera.games.nymbat.vector import NymbatVector

        return NymbatVector

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
