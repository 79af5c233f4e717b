"""Nelaxtam — invade the virgin island and destroy the other side's territory (seed ``003``; docs/rules/nelaxtam.md).

Board
    ``size × size`` squares (parameter ``size``, even, 8–20, default 12).  Every
    square starts with a territory piece of its own colour: ``a1`` and every
    square whose file + rank (counted from 0) is even is White (``o``), the
    others are Black (``x``).  Territory pieces of one colour touch only
    diagonally, so a *group* of territory is a diagonally connected set of
    pieces of one colour.
Players
    Player 0 is Black (``x``), player 1 is White (``o``).  Each has ``troops``
    numbered troops (default 5, 1–10); ``by_sea`` of them (default 3) come by
    sea, the others by air.
Turns are simultaneous
    ``current_player()`` is always ``SIMULTANEOUS`` until the game is over; both
    secret orders are given at once with ``play_joint([black_order, white_order])``
    (or sealed one at a time with :meth:`NelaxtamState.submit`).

    *Invasion* (turn 1): ``1@a3 2@b12 3@l6 4@f6 5@h8`` places every troop, in
    increasing number, on distinct squares of the player's own territory; at
    least ``by_sea`` troops (those that come by sea) must stand on edge squares.

    *Battle turns*: an order lists every living troop in increasing number, one
    token each: ``3=`` do nothing; ``3>d5`` move to a diagonally adjacent
    friendly territory piece; ``3xd6`` destroy an orthogonally adjacent opponent
    territory piece.  Variant ``quiet``: one troop acts per turn, so an order is
    a single token (the others do nothing).
Resolution
    First all moves, then all destructions, of both players at once.
    **Ruling:** an order is illegal if two of its troops would end on the same
    square (swaps and chains are fine).  A troop on a destroyed square dies
    after its own action took effect (so a troop that moves off a square
    survives its destruction, one that moves onto it dies, and a destroying
    troop's destruction still happens).  Then every group of territory with no
    troop of its owner on it is removed; a player with no troops left loses all
    his territory.
End
    **Ruling:** the game ends when no troop of either side can ever destroy
    again, i.e. no territory piece of one side is orthogonally adjacent to a
    piece of the other (every remaining group holds a troop, so this is exactly
    "no square of any troop's group touches opponent territory").  Score = the
    territory pieces a player controls; more wins, equal draws.  Safeguard
    ``max_idle_turns`` (default 30): after that many consecutive battle turns
    without a destruction the game ends as a draw (docs/rules/nelaxtam.md, common
    conventions: every safeguard ends the game as a draw), scores still shown.

Variants
    ``variant="wild"`` (default) is the game the seed describes, every troop
    acting every turn ("This version of the game could be called the 'wild
    variant'"); its designer finds 10×10 the smallest interesting board, so
    (docs/rules/nelaxtam.md) it needs ``size >= 10``.  ``variant="quiet"`` lets one troop act
    per turn and is playable from 8×8.

Referee's rulings where the seed and docs/rules/nelaxtam.md are silent (documented here)
    * Tokens must be listed in increasing troop number; a token out of order,
      a troop given twice, a dead troop, or (outside ``quiet``) a living troop
      without a token makes the order illegal.  Orders are normalised: lower
      case, single spaces.
    * Two troops of one player may destroy the same square (the second
      destruction does nothing more); only ending on the same square is illegal.
    * In ``quiet`` every ``k=`` (nobody acts) is the same order and is
      normalised to the lowest living troop's hold, e.g. ``1=``; only that one
      is listed.  A quiet move onto a square where another friendly troop stands
      is illegal (that troop does not move).
    * The invasion turn does not count towards ``max_idle_turns``.
    * A sealed order (:meth:`NelaxtamState.submit`) cannot be replaced by a
      different one; :meth:`NelaxtamState.withdraw` unseals it before the turn
      resolves.  Submitting the same order again is a no-op.
    * ``move_number()`` counts resolved turns; sealing an order does not change
      it (both players submit against the same move number).

Position dict
    ``{"size": 12, "phase": "invasion"|"battle"|"over", "turn": 3, "idle": 0,
    "board": ["xoxo…", …], "troops": [{"1": "b3"}, {"2": "c3"}],
    "pending": ["1= 2>c4", null]}``: ``board`` from rank ``size`` down to rank 1
    (``x``, ``o``, ``.`` for a removed square), ``troops`` the living troops of
    Black then White, ``turn`` the number of the turn to play (the invasion is
    turn 1), ``idle`` consecutive battle turns without a destruction, and
    ``pending`` (present only while an order is sealed) the sealed orders,
    ``"?"`` for one that is sealed but hidden in a player's :meth:`~NelaxtamState.view`.

Engine notes
    The rules are compiled kernels (numba, :mod:`tessera.games.nelaxtam.kernels`,
    their only implementation): listing each troop's tokens, drawing a random legal
    order, resolving a turn (moves, destructions, deaths, removal of uncontrolled
    groups by a diagonal flood from the troops, the end) and the evaluation.  A
    position is one small ``int32`` array — which territory pieces are left, each
    troop's square (``-1`` dead or not yet landed), phase, turn, idle count, winner —
    so a clone copies it; the sealed orders and the turn record stay Python objects.
    :meth:`NelaxtamState.rollouts` plays many random games from a position in one
    kernel call.  Parsing orders and the sentences saying why one is illegal are Python.

Integer actions (factored per troop)
    Full orders are too many to number (~10⁹ invasions), so an integer action
    is one *token*: with ``S = size²`` squares (square index ``s = rank·size +
    file``, both from 0) and ``B = 1 + 3·S``, troop ``k`` (1-based) has the
    actions ``(k−1)·B + local`` where ``local`` is ``0`` hold (``k=``),
    ``1 + s`` move to ``s`` (``k>s``), ``1 + S + s`` destroy ``s`` (``kxs``),
    ``1 + 2·S + s`` place on ``s`` (``k@s``).  ``game.num_distinct_actions() =
    troops · B``.  The notation is context free: ``action_to_string(a)`` is the
    token and ``string_to_action(token)`` its inverse, the same for both players.

    * ``legal_actions(player)`` at a simultaneous node: the sorted legal tokens
      of ``player`` over all his troops (in ``quiet`` battle turns these are
      exactly the full orders); ``troop_actions(player)`` gives them per troop,
      ``{troop: [actions]}``, the integer twin of ``troop_options``.
    * A full order is one action per troop, in troop order; the only
      constraints between troops are distinct end squares (battle) and distinct
      squares plus the ``by_sea`` edge count (invasion).
      ``order_reason(actions, player)`` checks one fast (``None`` when legal).
    * ``apply_actions([black, white])`` plays a joint order, each entry a list
      of actions (a full order) or a bare int (a one-token order);
      ``actions_to_order(actions)`` / ``order_to_actions(order)`` convert.
      ``random_actions(rng, player)`` draws a random legal full order.

Secret orders and views
    ``submit(order, player)`` checks and seals one player's order; when both
    are sealed the turn resolves.  ``pending(player)`` is that player's sealed
    order.  ``view(player)`` is a copy of the state in which the opponent's
    sealed order is replaced by ``"?"`` (sealed, content unknown), and
    ``render(player)`` shows only the viewer's own pending order (the
    ``order`` section of docs/render.md).  Spectators (``render()``) see no
    pending order, only whether each side has sealed one.

Evaluation (for agents)
    ``0.7 · (T_me − T_opp)/(T_me + T_opp) + 0.3 · (N_me − N_opp)/(N_me + N_opp)``
    with ``T`` the territory pieces and ``N`` the living troops (0 in the
    invasion), clipped to [-0.99, 0.99]; the exact result once the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import Action, Game, GameInfo, Param, ParamRule
from tessera.core.geometry import Grid, diagonal_neighbors, square
from tessera.core.kernels import warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.games.nelaxtam import kernels as _k
from tessera.games.nelaxtam.constants import (
    BATTLE,
    BLACK,
    COLORS,
    DESTROY,
    HIDDEN,
    HOLD,
    INVASION,
    MOVE,
    NAMES,
    OVER,
    PHASES,
    PLACE,
    SEA_FILL,
    TERRITORY_FILL,
    WHITE,
)
from tessera.games.nelaxtam.refusals import no_player
from tessera.games.nelaxtam.state import NelaxtamState

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.vector import VectorGame

__all__ = [
    "BATTLE",
    "BLACK",
    "COLORS",
    "DESTROY",
    "HIDDEN",
    "HOLD",
    "INFO",
    "INVASION",
    "LEVELS",
    "MOVE",
    "NAMES",
    "OVER",
    "PHASES",
    "PLACE",
    "SEA_FILL",
    "TERRITORY_FILL",
    "WHITE",
    "NelaxtamGame",
    "NelaxtamState",
    "no_player",
]

INFO = GameInfo(
    name="nelaxtam",
    title="Nelaxtam",
    params=(
        Param("size", 12, int, "board side (even)", min=8, max=20, step=2),
        Param(
            "variant",
            "wild",
            str,
            "wild: every troop acts each turn (size >= 10); quiet: one troop per turn (size >= 8)",
            choices=("wild", "quiet"),
        ),
        Param("troops", 5, int, "troops per player", min=1, max=10),
        Param("by_sea", 3, int, "troops that come by sea and land on edge squares", min=0, max=10),
        Param(
            "max_idle_turns", 30, int, "safeguard: draw after this many turns without a destruction", min=1, max=1000
        ),
    ),
    param_rules=(
        ParamRule("size", when="variant", equals="wild", min=10),
        ParamRule("size", when="variant", equals="quiet", min=8),
        ParamRule("by_sea", max_from="troops"),
    ),
    player_names=NAMES,
    board_kind="square",
    dynamics="simultaneous",
    version=1,
    summary=__doc__ or "",
    designer="Jorge Gomez Arrausi (2003)",
    examples=("nelaxtam(size=10)", "nelaxtam(size=8,variant=quiet)", "nelaxtam(size=10,troops=3,by_sea=1)"),
)


@warm_up
def _warm_up(game: NelaxtamGame) -> None:
    """Call each kernel the ``State`` uses once (:func:`~tessera.core.kernels.warm_up`: on the first game
    built in this process)."""
    st = NelaxtamState(game)
    rng = random.Random(0)
    st.legal_actions(0)
    st.evaluate(0)
    st.scores()
    st.can_destroy()
    st.rollouts(1, 0, max_plies=1)
    st.apply_actions([st.random_actions(rng, 0), st.random_actions(rng, 1)])  # order check, resolution, end


# since the kernels: beat cutoff 6 and -1 (docs/agents.md)
LEVELS = LevelTuning(
    search="smmcts(c=0.7,rollout_cutoff=20)", measured={"vs4": 78, "vs3": 84, "games": "100", "vs2": 86}
)
"""How Nelaxtam tunes the strength levels (``NelaxtamGame.level_tuning()``, :func:`tessera.agents.spec.level`)."""


@register
class NelaxtamGame(Game):
    """Nelaxtam with a fixed board size, variant, troop counts and safeguard."""

    info = INFO
    client_module = "client.js"  # the order builder's rules between troops (why a choice is not allowed)

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        size = params["size"]
        if params["variant"] == "wild" and size < 10:
            raise ValueError(
                f"nelaxtam: parameter size={size} is too small for variant='wild': expected 10 to 20 "
                "(the designer's minimum for the wild game; variant='quiet' plays from 8)"
            )
        if params["by_sea"] > params["troops"]:
            raise ValueError(
                f"nelaxtam: parameter by_sea={params['by_sea']} is more than troops={params['troops']}: "
                f"expected 0 to {params['troops']}"
            )
        self._build(size, params["troops"])
        quiet = 1 if params["variant"] == "quiet" else 0
        self.geo[self.num_squares, :7] = (
            size,
            self.num_squares,
            self.ntroops,
            params["by_sea"],
            params["max_idle_turns"],
            quiet,
            self.block,
        )
        return params

    def _build(self, size: int, troops: int) -> None:
        """Precompute the board tables and the token tables."""
        grid = square(size)
        self.grid: Grid = grid
        self.size = size
        self.num_squares = size * size
        self.ntroops = troops
        self.block = 1 + 3 * self.num_squares
        """Actions per troop (``B``)."""
        stride = grid.stride
        self.cell_of_sq: list[int] = [y * stride + x for y in range(size) for x in range(size)]
        self.sq_of_cell: list[int] = [-1] * grid.size
        for s, c in enumerate(self.cell_of_sq):
            self.sq_of_cell[c] = s
        self.color: list[int] = [-1] * grid.size
        """Owner colour of each cell: ``BLACK`` or ``WHITE`` (−1 off board)."""
        masks = [0, 0]
        for c in grid.cells:
            x, y = grid.coords[c]  # type: ignore[misc]
            col = WHITE if (x + y) % 2 == 0 else BLACK
            self.color[c] = col
            masks[col] |= 1 << c
        self.color_mask: tuple[int, int] = (masks[0], masks[1])
        self.edge: int = grid.edge
        self.diag: list[tuple[int, ...]] = [()] * grid.size
        for c in grid.cells:
            self.diag[c] = diagonal_neighbors(grid, c)
        self.ortho: list[tuple[int, ...]] = grid.neighbors
        self.labels: list[str] = [grid.label(c) for c in range(grid.size)]
        self.tokens: list[str] = []
        """Token string of every action."""
        for t in range(troops):
            k = t + 1
            self.tokens.append(f"{k}=")
            for op in (">", "x", "@"):
                self.tokens.extend(f"{k}{op}{self.labels[c]}" for c in self.cell_of_sq)
        self.token_index: dict[str, int] = {tok: a for a, tok in enumerate(self.tokens)}
        sq_of = self.sq_of_cell
        self.sq_label: list[str] = [self.labels[c] for c in self.cell_of_sq]
        """Label of each square index."""
        self.sq_color: list[int] = [self.color[c] for c in self.cell_of_sq]
        """Colour of each square index."""
        self.sq_diag: list[tuple[int, ...]] = [tuple(sorted(sq_of[x] for x in self.diag[c])) for c in self.cell_of_sq]
        """Diagonal neighbours of each square index."""
        self.sq_ortho: list[tuple[int, ...]] = [tuple(sorted(sq_of[x] for x in self.ortho[c])) for c in self.cell_of_sq]
        """Orthogonal neighbours of each square index."""
        nsq = self.num_squares
        geo = np.full((nsq + 1, 10), -1, np.int32)
        for s in range(nsq):
            geo[s, : len(self.sq_ortho[s])] = self.sq_ortho[s]
            geo[s, 4 : 4 + len(self.sq_diag[s])] = self.sq_diag[s]
            geo[s, _k.COLOUR] = self.sq_color[s]
            geo[s, _k.EDGE] = self.edge >> self.cell_of_sq[s] & 1
        self.geo: np.ndarray = geo
        """The board for the kernels (:mod:`tessera.games.nelaxtam.kernels`); its header row is set by
        :meth:`_check_params` (it needs every parameter)."""

    # -- helpers used by states --------------------------------------------------------
    def action(self, troop_index: int, kind: int, cell: int = -1) -> Action:
        """The action of troop ``troop_index`` (0-based): ``kind`` HOLD/MOVE/DESTROY/PLACE onto ``cell``."""
        if kind == HOLD:
            return troop_index * self.block
        return troop_index * self.block + 1 + (kind - 1) * self.num_squares + self.sq_of_cell[cell]

    def decode(self, action: Action) -> tuple[int, int, int]:
        """``(troop_index, kind, cell)`` of an action (``cell`` −1 for a hold)."""
        t, local = divmod(action, self.block)
        if local == 0:
            return t, HOLD, -1
        kind, s = divmod(local - 1, self.num_squares)
        return t, kind + 1, self.cell_of_sq[s]

    # -- protocol ----------------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None) -> NelaxtamState:
        """The virgin island: every square holds territory of its colour; troops still at sea."""
        _warm_up(self)
        return NelaxtamState(self)

    def state_from_dict(self, d: Mapping[str, Any]) -> NelaxtamState:
        """A state from the position dictionary described in the module docstring (strict)."""
        from tessera.games.nelaxtam.position import state_from_dict

        return state_from_dict(self, d)

    def num_distinct_actions(self) -> int:
        """``troops · (1 + 3·size²)``: one token per troop (hold, move/destroy/place onto a square)."""
        return self.ntroops * self.block

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera.games.nelaxtam.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    def vector_engine(self) -> type[VectorGame]:
        from tessera.games.nelaxtam.vector import NelaxtamVector

        return NelaxtamVector

    def kernel_contract(self) -> KernelContract:
        """The compiled verbs of the kernel contract (:mod:`tessera.games.nelaxtam.contract`): a turn as
        a sequence of per-troop decisions."""
        from tessera.games.nelaxtam.contract import build

        return build(self)

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.nelaxtam.observation`)."""
        from tessera.games.nelaxtam.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """Invasion + at most ``size²`` destroying turns, with fewer than ``max_idle_turns`` idle turns around each."""
        idle = int(self._params["max_idle_turns"])
        return 1 + self.num_squares * idle + idle
