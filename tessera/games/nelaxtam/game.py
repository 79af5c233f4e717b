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
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
    GAME_OVER,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    IllegalMove,
    Move,
    Param,
    ParamRule,
    RolloutResult,
    State,
    no_such_action,
)
from tessera.core.geometry import Grid, bits, diagonal_neighbors, square
from tessera.core.kernels import rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.render import PLAYER_COLORS, text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nelaxtam import kernels as _k

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.vector import VectorGame

BLACK, WHITE = 0, 1
NAMES = ("Black", "White")
COLORS = (PLAYER_COLORS["black"], PLAYER_COLORS["white"])
TERRITORY_FILL = ("#6e6a64", "#e4dccb")
"""Cell fill of Black and White territory."""
SEA_FILL = "#9cc3dd"
"""Cell fill of a removed square."""
HIDDEN = "?"
"""A sealed order whose content this view may not see."""

INVASION, BATTLE, OVER = "invasion", "battle", "over"
PHASES = (INVASION, BATTLE, OVER)
"""Phase names by the kernels' phase number."""

HOLD, MOVE, DESTROY, PLACE = 0, 1, 2, 3
"""Token kinds."""

_TOKEN_RE = re.compile(r"(\d+)([=>x@])(.*)")

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


class NelaxtamState(State):
    """The position as one ``int32`` array (Engine notes), the sealed orders and the turn record."""

    game: NelaxtamGame

    def __init__(self, game: NelaxtamGame) -> None:
        super().__init__(game)
        nsq, t = game.num_squares, game.ntroops
        a = np.full(_k.state_size(nsq, t), -1, np.int32)
        a[:nsq] = 1
        self._h = nsq + 2 * t
        a[self._h : self._h + 4] = (_k.INVASION, 1, 0, -1)
        self.a: np.ndarray = a
        """The position (layout in :mod:`tessera.games.nelaxtam.kernels`)."""
        self._pending: list[str | None] = [None, None]
        self._turns: list[tuple[tuple[Action, ...], tuple[Action, ...]]] = []
        self._sync()

    def _sync(self) -> None:
        """Mirror the kernels' header (phase, turn, idle count, winner) in plain attributes."""
        ph, self.turn, self.idle, w = self.a[self._h : self._h + 4].tolist()
        self.phase = PHASES[ph]
        self._winner: int | None = None if w < 0 else w

    def _copy_from(self, other: NelaxtamState) -> None:
        self.a = other.a.copy()
        self._h = other._h
        self.phase = other.phase
        self.turn = other.turn
        self.idle = other.idle
        self._pending = list(other._pending)
        self._turns = list(other._turns)
        self._winner = other._winner

    def _troops(self, player: int) -> list[int]:
        """``player``'s troops' squares (square indices, ``-1`` dead or not landed), by troop."""
        t = self.game.ntroops
        start = self.game.num_squares + player * t
        cells: list[int] = self.a[start : start + t].tolist()
        return cells

    @property
    def pos(self) -> list[list[int]]:
        """Each player's troops' cells (grid cell ids, ``-1`` dead or not landed), by troop."""
        cell = self.game.cell_of_sq
        return [[cell[q] if q >= 0 else -1 for q in self._troops(p)] for p in (0, 1)]

    @property
    def terr(self) -> list[int]:
        """Each side's territory pieces as a bit set of grid cells."""
        g = self.game
        out = [0, 0]
        for q in np.flatnonzero(self.a[: g.num_squares]).tolist():
            out[g.sq_color[q]] |= 1 << g.cell_of_sq[q]
        return out

    @property
    def _last_cells(self) -> list[int]:
        """Cells of the last resolved turn: where troops landed or moved, then the destroyed squares."""
        if not self._turns:
            return []
        g = self.game
        out: list[int] = []
        destroyed: set[int] = set()
        for acts in self._turns[-1]:
            for a in acts:
                _, kind, cell = g.decode(a)
                if kind in (MOVE, PLACE):
                    out.append(cell)
                elif kind == DESTROY:
                    destroyed.add(cell)
        return out + sorted(destroyed)

    # -- protocol ----------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else SIMULTANEOUS

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def returns(self) -> list[float]:
        if self.phase != OVER or self._winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self._winner == BLACK else [-1.0, 1.0]

    def scores(self) -> list[float]:
        """Territory pieces each side controls (every remaining group holds a troop)."""
        geo = self.game.geo
        return [_k.territory(self.a, geo, 0), _k.territory(self.a, geo, 1)]

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): no destruction possible, or the idle safeguard."""
        if self.phase != OVER:
            return None
        a, b = (int(x) for x in self.scores())
        if not self.can_destroy():
            head = "No troop can destroy any more"
            if self._winner is None:
                return outcome(
                    "territory",
                    Text("result.territory_draw", f"{head}; both control {a} territory pieces: a draw", n=a),
                )
            w = name_text(NAMES[self._winner])
            hi, lo = max(a, b), min(a, b)
            return outcome(
                "territory",
                Text(
                    "result.territory",
                    f"{head}: {w} controls more territory ({hi} pieces to {lo}) and wins",
                    name=w,
                    a=hi,
                    b=lo,
                ),
            )
        limit = self.game._params["max_idle_turns"]
        return outcome(
            "safeguard", Text("result.safeguard_idle", f"Draw: {limit} turns in a row without a destruction", n=limit)
        )

    def history(self) -> list[tuple[int, Move]]:
        """``(SIMULTANEOUS, "black order | white order")`` per resolved turn."""
        tok = self.game.tokens
        return [
            (SIMULTANEOUS, " ".join(tok[a] for a in b) + " | " + " ".join(tok[a] for a in w)) for b, w in self._turns
        ]

    def move_number(self) -> int:
        """Resolved turns (sealing an order does not count)."""
        return len(self._turns)

    def living(self, player: int) -> list[int]:
        """Numbers (1-based) of ``player``'s troops on the board."""
        return [t + 1 for t, q in enumerate(self._troops(player)) if q >= 0]

    def troop_cells(self, player: int) -> dict[int, str]:
        """``{troop: square}`` of ``player``'s living troops."""
        lab = self.game.sq_label
        return {t + 1: lab[q] for t, q in enumerate(self._troops(player)) if q >= 0}

    def _quiet_battle(self) -> bool:
        return self.phase == BATTLE and self.game._params["variant"] == "quiet"

    # -- the sequential hooks (Nelaxtam has no sequential node) ------------------------
    def _legal_actions(self) -> list[Action]:
        return []

    def _illegal_reason(self, action: Action) -> str | None:
        return Text(
            "refusal.nelaxtam.simultaneous",
            "every Nelaxtam turn is simultaneous: use play_joint, submit or apply_actions",
        )

    def _apply(self, action: Action) -> None:
        raise IllegalMove("every Nelaxtam turn is simultaneous: use play_joint, submit or apply_actions")

    # -- notation ----------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        """The token of ``action`` (context free: ``3=``, ``3>d5``, ``3xd6``, ``3@a3``)."""
        g = self.game
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < len(g.tokens):
            raise IllegalMove(no_such_action(action, str(g)))
        return g.tokens[action]

    def string_to_action(self, move: str) -> Action:
        """The action of one token; ``IllegalMove`` says what is malformed."""
        if not isinstance(move, str):
            raise IllegalMove(f"a token must be a string, not {type(move).__name__}")
        return self._parse_token(move.strip().lower())

    def _parse_token(self, tok: str) -> Action:
        g = self.game
        a = g.token_index.get(tok)
        if a is not None:
            return a
        m = _TOKEN_RE.fullmatch(tok)
        if m is None:
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.token_syntax",
                    f"{tok!r} is not an order token: write 3= (hold), 3>d5 (move), 3xd6 (destroy) or 3@a3 (place)",
                    move=repr(tok),
                )
            )
        if len(m.group(1)) > 6:  # a huge number is refused without converting it (int() stops at 4,300 digits)
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.no_troop",
                    f"{m.group(1)[:8]}…: there is no such troop; troops are numbered 1 to {g.ntroops}",
                    digits=m.group(1)[:8],
                    n=g.ntroops,
                )
            )
        num, op, rest = int(m.group(1)), m.group(2), m.group(3)
        if not 1 <= num <= g.ntroops:
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.no_troop_n",
                    f"{tok!r}: there is no troop {num}; troops are numbered 1 to {g.ntroops}",
                    move=repr(tok),
                    troop=num,
                    n=g.ntroops,
                )
            )
        if op == "=":
            if rest:
                raise IllegalMove(
                    Text(
                        "refusal.nelaxtam.hold_syntax",
                        f"{tok!r}: a hold is written {num}= with nothing after it",
                        move=repr(tok),
                        troop=num,
                    )
                )
            return g.action(num - 1, HOLD)
        if not g.grid.has_label(rest):
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.no_square",
                    f"{tok!r}: {rest!r} is not a square of the {g.size}×{g.size} board",
                    move=repr(tok),
                    square=repr(rest),
                    n=g.size,
                )
            )
        kind = {">": MOVE, "x": DESTROY, "@": PLACE}[op]
        return g.action(num - 1, kind, g.grid.cell(rest))

    def parse_order(self, order: str) -> list[Action]:
        """The tokens of an order as actions, in the order written (syntax only)."""
        if not isinstance(order, str):
            raise IllegalMove(f"an order must be a string, not {type(order).__name__}")
        words = order.lower().split()
        if not words:
            help_text = self._order_help()
            raise IllegalMove(Text("refusal.nelaxtam.empty", f"the order is empty: {help_text}", help=help_text))
        return [self._parse_token(w) for w in words]

    def _order_help(self) -> Text:
        if self.phase == INVASION:
            return Text("nelaxtam.help_invasion", "the invasion places every troop, e.g. '1@a3 2@b12 …'")
        if self.game._params["variant"] == "quiet":
            return Text("nelaxtam.help_quiet", "a quiet order is one token, e.g. '3>d5', '3xd6' or '1=' (nobody acts)")
        return Text(
            "nelaxtam.help_order",
            "an order gives every living troop one token in increasing number, e.g. '1= 2>c4 3xd6'",
        )

    def actions_to_order(self, actions: Sequence[Action]) -> str:
        """The order string of a list of actions (one token each, as written)."""
        self._check_ints(actions)
        tok = self.game.tokens
        return " ".join(tok[a] for a in actions)

    def _check_ints(self, actions: Sequence[Action]) -> None:
        n = len(self.game.tokens)
        for a in actions:
            if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a < n:
                raise IllegalMove(no_such_action(a, str(self.game)))

    def order_to_actions(self, order: str) -> list[Action]:
        """The actions of an order string (syntax only; see :meth:`order_reason`)."""
        return self.parse_order(order)

    # -- legality ----------------------------------------------------------------------
    @staticmethod
    def _check_player(player: Any) -> int:
        """``player`` if it is 0 (Black) or 1 (White), else ``IllegalMove`` saying so."""
        if player not in (0, 1) or isinstance(player, bool):
            raise IllegalMove(no_player(player))
        return int(player)

    def order_reason(self, actions: Sequence[Action], player: int) -> str | None:
        """``None`` when ``actions`` (one per token, as written) are a legal full order of ``player``.

        The check is one kernel call (:func:`tessera.games.nelaxtam.kernels.check`);
        its code becomes the sentence here.
        """
        if self.phase == OVER:
            return GAME_OVER
        if player not in (0, 1):
            return no_player(player)
        acts = list(actions)
        code = _k.check(self.a, self.game.geo, player, np.array(acts, np.int64))
        return _order_message(self.game, code, acts, player) if code else None

    def _check_order(self, order: str, player: int | None) -> list[Action]:
        """The actions of a legal order, normalised, or ``IllegalMove`` saying why not."""
        if self.phase == OVER:
            raise IllegalMove(GAME_OVER)
        if player is None:
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.whose_order",
                    "every Nelaxtam turn is simultaneous: say whose order this is (player 0 or 1)",
                )
            )
        if player not in (0, 1) or isinstance(player, bool):
            raise IllegalMove(no_player(player))
        actions = self.parse_order(order)
        reason = self.order_reason(actions, player)
        if reason is not None:
            raise IllegalMove(reason)
        return self._normalised(actions, player)

    def _normalised(self, actions: list[Action], player: int) -> list[Action]:
        """Quiet battle turns: every hold becomes the lowest living troop's hold."""
        if len(actions) == 1 and self._quiet_battle() and actions[0] % self.game.block == 0:
            return [self.game.action(self.living(player)[0] - 1, HOLD)]
        return actions

    def is_legal(self, move: Move, player: int | None = None) -> bool:
        """Whether ``move`` is a legal full order of ``player`` now (``False`` without a player)."""
        try:
            self._check_order(move, player)
        except IllegalMove:
            return False
        return True

    def why_illegal(self, move: Move, player: int | None = None) -> str | None:
        """``None`` when ``move`` is a legal order of ``player``, else the reason (a keyed text)."""
        try:
            self._check_order(move, player)
        except IllegalMove as e:
            return e.text
        return None

    def normalize(self, order: str, player: int) -> str:
        """The canonical form of a legal order (``IllegalMove`` if it is not legal)."""
        return self.actions_to_order(self._check_order(order, player))

    # -- options -----------------------------------------------------------------------
    def troop_actions(self, player: int) -> dict[int, list[Action]]:
        """``{troop: [actions]}``: each living (or, in the invasion, each) troop's legal tokens.

        Outside ``quiet`` the moves include squares where another friendly troop
        stands (legal if that troop moves away); in ``quiet`` they do not, and
        only the lowest troop carries the hold (the order where nobody acts).
        """
        if self.phase == OVER or player not in (0, 1):
            return {}
        g = self.game
        out: dict[int, list[Action]] = {}
        if self.phase == INVASION:
            squares = sorted(g.sq_of_cell[c] for c in bits(g.color_mask[player]))
            for t in range(g.ntroops):
                base = t * g.block + 1 + 2 * g.num_squares
                out[t + 1] = [base + s for s in squares]
            return out
        opts = np.empty((g.ntroops, _k.MAX_OPTIONS), np.int64)
        counts = np.empty(g.ntroops, np.int64)
        _k.legal(self.a, g.geo, player, opts, counts)
        rows = opts.tolist()
        for t, m in enumerate(counts.tolist()):
            if m:
                out[t + 1] = rows[t][:m]
        return out

    # -- an order built one troop at a time (the research adapters) ------------------------
    def decision_units(self, player: int) -> list[int | None]:
        """The decisions that make up ``player``'s order this turn, in order: each troop's number
        (the troops of :meth:`troop_actions`, increasing), or ``[None]`` when a whole order is one
        choice (battle turns of ``variant="quiet"``); ``[]`` when he has nothing to decide."""
        if self.phase == OVER:
            return []
        if self.legal_moves(0) or self.legal_moves(1):  # whole orders are enumerated (quiet battle)
            return [None] if self.legal_actions(player) else []
        return [*sorted(self.troop_actions(player))]

    def decision_choices(self, player: int, unit: int | None, pending: Sequence[Action]) -> list[Action]:
        """``player``'s tokens for troop ``unit`` that leave his order completable, sorted.

        ``pending`` are his tokens for the earlier troops of :meth:`decision_units`.  A
        token is offered only if the order can still be completed legally: distinct end
        squares, and in the invasion distinct squares and at least ``by_sea`` troops on
        the edge.  So every sequence of offered tokens is a legal order and every legal
        order is such a sequence.  ``unit=None`` (a whole quiet order): the legal orders.
        """
        if unit is None:
            return sorted(self.legal_actions(player))
        options = self.troop_actions(player)
        cells = self.troop_cells(player)
        size = int(self.game._params["size"])
        claimed: set[str] = set()
        edges = 0
        for a in pending:
            t, op, sq = _token(self.action_to_string(a))
            end = sq if op in (">", "@") else cells[t]
            claimed.add(end)
            edges += _is_edge(end, size)
        later = [t for t in sorted(options) if t > unit]
        out = []
        if self.phase == INVASION:
            need = int(self.game._params["by_sea"])
            for a in options[unit]:
                _, _, sq = _token(self.action_to_string(a))
                if sq in claimed:
                    continue
                if edges + _is_edge(sq, size) + len(later) < need:
                    continue
                out.append(a)
            return sorted(out)
        ends_of = {
            t: sorted(
                {(sq if op == ">" else cells[t]) for _, op, sq in (_token(self.action_to_string(a)) for a in acts)}
            )
            for t, acts in options.items()
        }
        for a in options[unit]:
            _, op, sq = _token(self.action_to_string(a))
            end = sq if op == ">" else cells[unit]
            if end in claimed:
                continue
            if _completable([ends_of[t] for t in later], claimed | {end}):
                out.append(a)
        return sorted(out)

    def pending_squares(self, player: int, pending: Sequence[Action]) -> tuple[list[str], list[str]]:
        """End squares and destroyed squares of ``player``'s tokens ``pending`` (an order in the making)."""
        ends: list[str] = []
        destroyed: list[str] = []
        if not pending:
            return ends, destroyed
        cells = self.troop_cells(player)
        for a in pending:
            troop, op, sq = _token(self.action_to_string(a))
            if op in (">", "@"):
                ends.append(sq)
            else:
                if troop in cells:
                    ends.append(cells[troop])
                if op == "x":
                    destroyed.append(sq)
        return ends, destroyed

    def troop_options(self, player: int) -> dict[int, list[str]]:
        """``{troop: [tokens]}``: the string form of :meth:`troop_actions`."""
        tok = self.game.tokens
        return {k: [tok[a] for a in acts] for k, acts in self.troop_actions(player).items()}

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """The legal tokens of ``player`` as sorted actions (empty without a player or once over)."""
        if player is None or self.phase == OVER:
            return []
        return sorted(a for acts in self.troop_actions(player).values() for a in acts)

    def legal_moves(self, player: int | None = None) -> list[Move]:
        """Full orders of ``player``: listed only in battle turns of ``quiet`` (else ``[]``)."""
        if player is None or not self._quiet_battle():
            return []
        return sorted(self.game.tokens[a] for a in self.legal_actions(player))

    # -- random orders -----------------------------------------------------------------
    def random_actions(self, rng: random.Random, player: int) -> list[Action]:
        """A random legal full order of ``player`` as actions in troop order (drawn by a kernel seeded from ``rng``).

        Invasion: ``by_sea`` distinct edge squares, then distinct others, dealt to the troops
        at random.  Quiet battle turns: one legal token, uniformly.  Otherwise the troops
        choose in a random order; a troop may not step onto a square that is claimed already
        or still holds a troop yet to choose, so every troop keeps at least one option (its
        hold) and swaps never arise.
        """
        if self.phase == OVER:
            raise IllegalMove(GAME_OVER)
        player = self._check_player(player)
        out = np.empty(self.game.ntroops, np.int64)
        n = _k.random_step(self.a, self.game.geo, player, rng_state(rng.getrandbits(63)), out)
        order: list[Action] = out[:n].tolist()
        return order

    def random_move(self, rng: random.Random, player: int | None = None) -> Move:
        """A random legal full order of ``player`` (normalised)."""
        if player is None:
            raise IllegalMove("every Nelaxtam turn is simultaneous: say whose order to draw (player 0 or 1)")
        return self.actions_to_order(self.random_actions(rng, player))

    # -- playing -----------------------------------------------------------------------
    def play(self, move: Move) -> None:
        """Nelaxtam has no sequential moves: always refused (use ``play_joint`` or ``submit``)."""
        if not isinstance(move, str):
            raise IllegalMove(f"a move must be a string, not {type(move).__name__}")
        if self.phase == OVER:
            raise IllegalMove(GAME_OVER)
        raise IllegalMove("all players move at once here: use play_joint([black_order, white_order]) or submit")

    def play_joint(self, moves: Sequence[Move]) -> None:
        """Resolve one turn from both orders (Black's, White's); all or nothing.

        Any sealed orders are discarded: the orders given here are the turn.
        """
        if self.phase == OVER:
            raise IllegalMove(GAME_OVER)
        if isinstance(moves, str) or not isinstance(moves, Sequence) or len(moves) != 2:
            raise IllegalMove("play_joint takes a list of two orders: [black_order, white_order]")
        acts: list[list[Action]] = []
        errors = []
        for p in (0, 1):
            try:
                acts.append(self._check_order(moves[p], p))
            except IllegalMove as e:
                errors.append(_order_of(p, e.text))
        if errors:
            raise IllegalMove(_joined(errors))
        self._resolve(acts)

    def apply_actions(self, actions: Sequence[Any]) -> None:
        """Play a joint order given as integers: per player a list of actions (or one int); all or nothing."""
        if self.phase == OVER:
            raise IllegalMove(GAME_OVER)
        if isinstance(actions, str) or not isinstance(actions, Sequence) or len(actions) != 2:
            raise IllegalMove("apply_actions takes two entries: [black_actions, white_actions]")
        acts: list[list[Action]] = []
        errors = []
        for p, entry in enumerate(actions):
            seq = [entry] if isinstance(entry, int) else entry
            if isinstance(seq, str) or not isinstance(seq, Sequence):
                errors.append(f"player {p}: expected a list of actions or one action, not {entry!r}")
                continue
            seq = list(seq)
            try:
                self._check_ints(seq)
                reason = self.order_reason(seq, p)
                if reason is not None:
                    raise IllegalMove(reason)
            except IllegalMove as e:
                errors.append(_order_of(p, e.text))
                continue
            acts.append(self._normalised(seq, p))
        if errors:
            raise IllegalMove(_joined(errors))
        self._resolve(acts)

    def submit(self, order: Move, player: int) -> bool:
        """Seal ``player``'s order (checked now); when both are sealed the turn resolves.

        Returns ``True`` when this submission resolved the turn.  Submitting the
        same order again is a no-op; a different one is refused until
        :meth:`withdraw`.  On a :meth:`view` (the opponent's order hidden) the
        turn cannot resolve: submit on the authoritative state.
        """
        norm = self.actions_to_order(self._check_order(order, player))
        mine = self._pending[player]
        if mine is not None:
            if mine == norm:
                return False
            who = name_text(NAMES[player])
            raise IllegalMove(
                Text(
                    "refusal.nelaxtam.already_sealed",
                    f"{who}'s order is already sealed; withdraw it before sealing another",
                    name=who,
                )
            )
        other = self._pending[1 - player]
        if other == HIDDEN:
            raise IllegalMove(
                "this is a player's view: the opponent's sealed order is hidden; submit on the game state"
            )
        self._pending[player] = norm
        if other is None:
            return False
        pend = list(self._pending)
        self.play_joint([str(pend[0]), str(pend[1])])
        return True

    def withdraw(self, player: int) -> None:
        """Unseal ``player``'s order before the turn resolves."""
        player = self._check_player(player)
        if self._pending[player] is None:
            raise IllegalMove(f"{NAMES[player]} has no sealed order")
        self._pending[player] = None

    def pending(self, player: int) -> str | None:
        """``player``'s sealed order (``"?"`` when it is hidden in this view), or ``None``."""
        return self._pending[self._check_player(player)]

    def view(self, player: int | None, sealed: Mapping[int, Move] | None = None) -> NelaxtamState:
        """A copy as ``player`` may see it: the opponent's sealed order replaced by ``"?"``.

        ``None`` is a spectator: both sealed orders hidden.  ``sealed`` adds orders sealed
        outside this state (the server keeps them in its storage), by player; each is
        checked like :meth:`submit` (``IllegalMove``) but the turn never resolves in a view.
        This is the one place an order is hidden: :meth:`render` and :meth:`to_dict` of
        the view show only what ``player`` may see.
        """
        if player is not None:
            player = self._check_player(player)
        v = self.clone()
        for p, order in sorted((sealed or {}).items()):
            p = self._check_player(p)
            norm = v.actions_to_order(v._check_order(order, p))
            if v._pending[p] is not None and v._pending[p] != norm:
                raise IllegalMove(f"{NAMES[p]}'s order is already sealed in this state")
            v._pending[p] = norm
        for p in (0, 1):
            if p != player and v._pending[p] is not None:
                v._pending[p] = HIDDEN
        return v

    def _resolve(self, acts: list[list[Action]]) -> None:
        """Apply two legal orders (one kernel call): moves, then destructions, deaths, removals, end."""
        self._pending = [None, None]
        self._turns.append((tuple(acts[0]), tuple(acts[1])))
        _k.apply(self.a, self.game.geo, np.array(acts[0] + acts[1], np.int64), len(acts[0]))
        self._sync()

    def can_destroy(self) -> bool:
        """Whether some troop could still ever destroy: opposing territory pieces touch orthogonally."""
        return bool(_k.can_destroy(self.a, self.game.geo))

    def _check_end(self) -> None:
        _k.check_end(self.a, self.game.geo)
        self._sync()

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``n`` random games from here in one kernel call (:meth:`State.rollouts`); the state is unchanged.

        Each plays random joint orders (both players' :meth:`random_actions`) to the end
        (±1, 0 for a draw) or for ``max_plies`` turns, then scored by :meth:`evaluate`.
        Sealed orders are not played: a rollout starts with fresh orders.
        """
        if n < 0:
            raise ValueError(f"rollouts: n must be >= 0, not {n!r}")
        if max_plies is not None and max_plies < 0:
            raise ValueError(f"rollouts: max_plies must be >= 0 or None, not {max_plies!r}")
        out = np.zeros(n, np.float64)
        cutoff = -1 if max_plies is None else max_plies
        turns = _k.rollouts(self.a, self.game.geo, rng_state(seed), cutoff, out) if n else 0
        v0 = float(out.sum())
        return RolloutResult(n, (v0, -v0), int(turns))

    # -- positions ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        g = self.game
        left = self.a[: g.num_squares].tolist()
        mark = [("x", "o")[col] for col in g.sq_color]
        rows = []
        for y in range(g.size - 1, -1, -1):
            rows.append("".join(mark[q] if left[q] else "." for q in range(y * g.size, (y + 1) * g.size)))
        d: dict[str, Any] = {
            "size": g.size,
            "phase": self.phase,
            "turn": self.turn,
            "idle": self.idle,
            "board": rows,
            "troops": [{str(k): v for k, v in self.troop_cells(p).items()} for p in (0, 1)],
        }
        if self._pending[0] is not None or self._pending[1] is not None:
            d["pending"] = list(self._pending)
        return d

    # -- agents ------------------------------------------------------------------------
    def evaluate(self, player: int) -> float:
        """Territory share (0.7) and troop share (0.3) lead of ``player``; exact when over."""
        return float(_k.evaluate(self.a, self.game.geo, player))

    # -- drawing (render.py) ---------------------------------------------------------
    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description for ``player`` (``None``: a spectator); never the opponent's order."""
        from tessera.games.nelaxtam.render import render

        return render(self, player)

    def __str__(self) -> str:
        """A text diagram: ``x``/``o`` territory, ``.`` removed, ``X3``/``O3`` troops; rank ``size`` on top."""
        return text_diagram(self.render())


def _token(tok: str) -> tuple[int, str, str]:
    """``"3>d5"`` → ``(3, ">", "d5")``; ``"3="`` → ``(3, "=", "")``."""
    i = 0
    while tok[i].isdigit():
        i += 1
    return int(tok[:i]), tok[i], tok[i + 1 :]


def _is_edge(label: str, size: int) -> int:
    x = ord(label[0]) - ord("a")
    y = int(label[1:]) - 1
    return int(x in (0, size - 1) or y in (0, size - 1))


def _completable(options: list[list[str]], claimed: set[str]) -> bool:
    """Whether each remaining troop can pick an end square, all distinct and unclaimed."""
    if not options:
        return True
    first, rest = options[0], options[1:]
    return any(end not in claimed and _completable(rest, claimed | {end}) for end in first)


def no_player(player: object) -> Text:
    """The refusal naming a player Nelaxtam does not have."""
    return Text(
        "refusal.nelaxtam.no_player",
        f"there is no player {player!r}; players are 0 (Black) and 1 (White)",
        player=repr(player),
    )


def _order_of(player: int, reason: str) -> Text:
    """One player's refused order in a joint refusal."""
    who = name_text(NAMES[player])
    return Text(
        "refusal.nelaxtam.order_of",
        f"{who}'s order (player {player}) is illegal: {reason}",
        name=who,
        player=player,
        reason=reason,
    )


def _joined(errors: Sequence[str]) -> str:
    """The refusals of both orders in one (each a keyed text where it has one)."""
    if len(errors) == 2:
        return Text("refusal.both", f"{errors[0]}; {errors[1]}", first=errors[0], second=errors[1])
    return errors[0] if len(errors) == 1 else "; ".join(errors)


def _order_message(g: NelaxtamGame, code: int, actions: list[Action], player: int) -> Text:
    """The sentence of an order check's code (:func:`tessera.games.nelaxtam.kernels.check`), a
    :class:`~tessera.core.texts.Text` with the key ``refusal.nelaxtam.*``."""
    kind, x, y, z = code & 255, (code >> 8) & 0xFFFF, (code >> 24) & 0xFFFF, code >> 40
    lab = g.sq_label

    def say(key: str, english: str, **args: Any) -> Text:
        return Text(f"refusal.nelaxtam.{key}", english, troop=x, **args)

    if kind == _k.R_TWO_TOKENS:
        return say("two_tokens", f"troop {x} is given two tokens")
    if kind == _k.R_TROOP_ORDER:
        return say(
            "troop_order", f"tokens must be listed in increasing troop number: troop {x} comes after troop {y}", other=y
        )
    if kind == _k.R_TROOP_GONE:
        return say("troop_gone", f"troop {x} is no longer on the board")
    if kind == _k.R_PLACE_AFTER_INVASION:
        return say(
            "place_after_invasion", f"{x}@{lab[y]}: troops are placed only in the invasion (turn 1)", square=lab[y]
        )
    if kind == _k.R_MOVE_NOT_DIAGONAL:
        return say(
            "move_not_diagonal",
            f"troop {x} on {lab[y]} cannot move to {lab[z]}: moves are diagonal",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_MOVE_NOT_ADJACENT:
        return say(
            "move_not_adjacent",
            f"troop {x} on {lab[y]} cannot move to {lab[z]}: it is not adjacent",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_MOVE_ONTO_REMOVED:
        return say(
            "move_onto_removed",
            f"troop {x} cannot move to {lab[y]}: that square's territory has been removed",
            to=lab[y],
        )
    if kind == _k.R_DESTROY_OWN:
        name = name_text(NAMES[player])
        return say(
            "destroy_own",
            f"troop {x} cannot destroy {lab[y]}: it is {name}'s own territory square",
            to=lab[y],
            name=name,
        )
    if kind == _k.R_DESTROY_NOT_ADJACENT:
        return say(
            "destroy_not_adjacent",
            f"troop {x} on {lab[y]} cannot destroy {lab[z]}: it is not orthogonally adjacent",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_DESTROY_REMOVED:
        return say("destroy_removed", f"troop {x} cannot destroy {lab[y]}: it has already been removed", to=lab[y])
    if kind == _k.R_SAME_END:
        return say("same_end", f"troops {x} and {y} would both end on {lab[z]}", other=y, to=lab[z])
    if kind == _k.R_SAME_END_QUIET:
        return say(
            "same_end_quiet",
            f"troops {x} and {y} would both end on {lab[z]} (troop {x} does not act)",
            other=y,
            to=lab[z],
        )
    if kind == _k.R_TROOP_WITHOUT_TOKEN:
        return say(
            "troop_without_token", f"troop {x} has no token: every living troop must be given one ({x}= to hold)"
        )
    if kind == _k.R_QUIET_ONE_TOKEN:
        return Text(
            "refusal.nelaxtam.quiet_one_token",
            f"the quiet variant allows one token per turn (one troop acts), not {x}",
            count=x,
        )
    if kind == _k.R_NOT_AN_ACTION:
        return no_such_action(actions[x], str(g))
    if kind == _k.R_INVASION_PLACES:
        a = actions[x]
        return Text(
            "refusal.nelaxtam.invasion_places",
            f"{g.tokens[a]}: the invasion places every troop with a token like {a // g.block + 1}@a3",
            move=g.tokens[a],
            example=f"{a // g.block + 1}@a3",
        )
    if kind == _k.R_PLACED_TWICE:
        return say("placed_twice", f"troop {x} is placed twice")
    if kind == _k.R_LAND_ON_ENEMY:
        enemy = name_text(NAMES[1 - player])
        return say(
            "land_on_enemy", f"troop {x} cannot land on {lab[y]}: it is {enemy} territory", to=lab[y], name=enemy
        )
    if kind == _k.R_PLACED_SAME:
        return say("placed_same", f"troops {x} and {y} are both placed on {lab[z]}", other=y, to=lab[z])
    if kind == _k.R_TROOP_MISSING:
        return say(
            "troop_missing", f"troop {x} is missing: the invasion places every troop (1 to {g.ntroops})", n=g.ntroops
        )
    if kind == _k.R_TOO_FEW_BY_SEA:
        return Text(
            "refusal.nelaxtam.too_few_by_sea",
            f"only {x} troop{'s' if x != 1 else ''} stand on edge squares, but {y} come by sea "
            "and must land on the edge of the island",
            count=x,
            need=y,
        )
    raise AssertionError(f"unknown order check code {code}")  # the kernel returns only the codes above
