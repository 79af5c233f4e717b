"""Ikabegamá — swarm into the other player's nest (seed ``002``; docs/rules/ikabegama.md).

Board
    An unbounded plane of hexes, each empty or holding one token.  Hexes are
    written in axial coordinates ``q,r`` (``3,-1``); the neighbours of ``(q,r)``
    are ``(q±1,r)``, ``(q,r±1)``, ``(q+1,r−1)`` and ``(q−1,r+1)``.  The Light nest
    is ``0,0``; the Dark nest is ``distance,0`` (parameter ``distance``, default
    6, 2–30) unless ``dark_nest`` names another hex (e.g. ``"4,3"``).  Variant
    ``board="hexhex:N"`` limits play to a regular hexagon of side N centred on
    the hex midway between the nests.  **Ruling** (docs/rules/ikabegama.md is silent): the
    centre is the hex whose larger distance to the two nests is smallest,
    then the one drawn nearest the true midpoint; when no hex lies exactly
    midway (the nests an odd distance apart) the tie goes to the hex nearer
    the Light nest: ``distance=5`` centres on ``2,0``, ``distance=7`` on
    ``3,0``, ``dark_nest="3,2"`` on ``1,1``.
Players
    Player 0 is Light and moves first; player 1 is Dark.  The game starts with a
    Light token on the Light nest and a Dark token on the Dark nest.
Moves
    *Growth* ``2,-1``: a new token on an empty hex adjacent to a friendly token.
    *Jump* ``0,0>2,-1``: a friendly token moves to an empty hex at distance
    exactly 2 (the twelve-hex ring); its source becomes empty.
    After either, every enemy token adjacent to the destination flips to the
    mover's colour.
End
    As soon as a Light token occupies the Dark nest Light wins, and vice versa
    (a flip onto a nest counts).  A player with no legal move passes (``pass``
    is then his only move).  **Ruling:** if both players pass in a row, the
    player with more tokens wins, equal is a draw.  Safeguard ``max_plies``
    (default 400) ends the game in a draw after that many plies.

Engine notes
    Hexes are ints in a :class:`~tessera.core.hexplane.PlaneWindow` whose bound
    is ``max(nests' reach, 30) + max_plies + 4``.  A player's tokens spread by at
    most two hexes per own move, so from the initial position no token can get
    near the window's edge before the safeguard ends the game, and move
    generation needs no bounds check.  A position loaded with
    ``state_from_dict`` must keep that promise: each token's ``max(|q|, |r|)``
    plus the plies left plus 3 must not exceed the bound (a clear
    ``ValueError`` says so otherwise).
    Integer action ``hex * 13 + k``: ``k = 0`` a growth onto ``hex``, ``k = 1…12`` a
    jump onto ``hex`` from ``hex − ring2[k−1]``; the last action is ``pass``.
    The rules are numba kernels (:mod:`tessera.games.ikabegama.kernels`) over
    one int32 array per state: the tokens in a list plus a hash table from hex
    to token (the plane has no grid to copy), the counts, the ply, the passes
    and the result; a clone copies that array (docs/engine.md).

Evaluation (for agents)
    ``tanh`` of a weighted sum of the token difference and of how much closer
    the player's nearest token is to the enemy nest than the enemy's nearest
    token is to his own nest (that race decides most games).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
    Action,
    Game,
    GameInfo,
    IllegalMove,
    Move,
    Param,
    RolloutResult,
    State,
    TurnState,
    not_legal,
)
from tessera.core.hexplane import (
    PlaneWindow,
    format_axial,
    hex_center,
    hex_distance,
    hex_round,
    parse_axial,
)
from tessera.core.kernels import warm_up
from tessera.core.kits.ints import action_list
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import AxialLayout, ObservationSpec
from tessera.core.registry import register
from tessera.core.render import PLAYER_COLORS, text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.ikabegama import kernels as kern
from tessera.games.ikabegama import notation

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame

LIGHT, DARK = 0, 1
NAMES = ("Light", "Dark")
COLORS = (PLAYER_COLORS["light"], PLAYER_COLORS["dark"])

INFO = GameInfo(
    name="ikabegama",
    title="Ikabegamá",
    params=(
        Param("distance", 6, int, "Dark nest at distance,0", min=2, max=30),
        Param("dark_nest", "", str, "Dark nest as 'q,r' (overrides distance)", expert=True),
        Param("board", "plane", str, "'plane' (unbounded) or 'hexhex:N' (hexagon of side N)"),
        Param("max_plies", 400, int, "safeguard: draw after this many plies", min=1, max=2000),
    ),
    player_names=NAMES,
    board_kind="hexplane",
    version=1,
    summary=__doc__ or "",
    designer="a 2011 blog post ('a game to explore')",
)


@warm_up
def _warm_up(game: IkabegamaGame) -> None:
    """Call each kernel the ``State`` uses once (:func:`~tessera.core.kernels.warm_up`: on the first game
    built in this process)."""
    k, allowed = game.kconst, game.allowed_mask
    a = kern.new_array(4)
    kern.add_token(a, game.nest_ids[0], LIGHT)
    kern.add_token(a, game.nest_ids[1], DARK)
    kern.settle(a, k)
    kern.legal(a, k, allowed)
    kern.check(a, k, allowed, game.pass_action)
    kern.evaluate(a, k, LIGHT)
    kern.rollouts(a, k, allowed, 1, 0, 1)
    kern.play(a, k, allowed, game.pass_action)  # refused (a move exists): changes nothing
    kern.apply(a, k, kern.random_step(a, k, allowed, 0))
    kern.grown(a, 8)


# chosen by the matches in docs/agents.md
LEVELS = LevelTuning(
    search="alphabeta", measured={"vs4": 45, "vs3": 50, "games": "20 / 6", "vs2": 100}, note="params:measured.ikabegama"
)
"""How Ikabegamá tunes the strength levels (``IkabegamaGame.level_tuning()``, :func:`tessera.agents.spec.level`)."""


@register
class IkabegamaGame(Game):
    """Ikabegamá with fixed nests, board and safeguard."""

    info = INFO
    client_module = "client.js"  # the create form's list of boards, which follows the distance

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        if params["dark_nest"]:
            try:
                q, r = parse_axial(params["dark_nest"])
            except ValueError as e:
                raise ValueError(f"ikabegama: parameter dark_nest: {e}") from None
            if (q, r) == (0, 0):
                raise ValueError("ikabegama: parameter dark_nest='0,0' is the Light nest; choose another hex")
            if hex_distance(0, 0, q, r) > 60:
                raise ValueError(
                    f"ikabegama: parameter dark_nest={params['dark_nest']!r} is too far: at most 60 from 0,0"
                )
            params["dark_nest"] = format_axial(q, r)
        self.light_nest = (0, 0)
        self.dark_nest = parse_axial(params["dark_nest"]) if params["dark_nest"] else (params["distance"], 0)
        board = params["board"]
        self.hexhex: int | None = None
        if board != "plane":
            kind, _, n = board.partition(":")
            if kind != "hexhex" or not n.isdigit() or not 2 <= int(n) <= 30:
                raise ValueError(
                    f"ikabegama: parameter board={board!r} is not accepted: "
                    "expected 'plane' or 'hexhex:N' with N from 2 to 30"
                )
            self.hexhex = int(n)
        reach = max(abs(self.dark_nest[0]), abs(self.dark_nest[1]))
        if self.hexhex is None:
            bound = max(reach, 30) + params["max_plies"] + 4  # 30: room for hand-made positions
        else:
            bound = reach + self.hexhex + 2
        self.window = PlaneWindow(bound)
        w = self.window
        self.allowed: frozenset[int] | None = None
        if self.hexhex is not None:
            self.center = mq, mr = _midpoint_hex(self.light_nest, self.dark_nest)
            n = self.hexhex
            cells = [(mq + dq, mr + dr) for dq in range(-n + 1, n) for dr in range(-n + 1, n) if abs(dq + dr) <= n - 1]
            self.allowed = frozenset(w.id(q, r) for q, r in cells)
            for nest in (self.light_nest, self.dark_nest):
                if w.id(*nest) not in self.allowed:
                    raise ValueError(f"ikabegama: board={board!r} is too small to hold the nest {format_axial(*nest)}")
        self.nest_ids = (w.id(*self.light_nest), w.id(*self.dark_nest))
        self.jump_codes: tuple[tuple[int, int], ...] = tuple(
            (off, off * 13 + k) for k, off in enumerate(w.ring2_offsets, start=1)
        )
        """``(hex offset, action offset)`` of each of the twelve jump directions."""
        self.pass_action = w.size * 13
        self.kconst = np.zeros(kern.K_LEN, dtype=np.int64)
        """The kernels' game constants (``kernels.K_*``)."""
        k = self.kconst
        k[kern.K_STRIDE], k[kern.K_BOUND], k[kern.K_SIZE] = w.stride, w.bound, w.size
        k[kern.K_NEST0], k[kern.K_NEST1] = self.nest_ids
        k[kern.K_MAXPLY] = params["max_plies"]
        k[kern.K_BOUNDED] = self.allowed is not None
        k[kern.K_NBR : kern.K_NBR + 6] = w.neighbor_offsets
        k[kern.K_RING : kern.K_RING + 12] = w.ring2_offsets
        self.allowed_mask = np.zeros(w.size if self.allowed is not None else 1, dtype=np.uint8)
        """1 on the hexes of a bounded board (the kernels' ``allowed``)."""
        if self.allowed is not None:
            self.allowed_mask[sorted(self.allowed)] = 1
        _warm_up(self)
        return params

    def new_initial_state(self, seed: int | None = None) -> IkabegamaState:
        """Light token on the Light nest, Dark token on the Dark nest."""
        return IkabegamaState(self, {self.nest_ids[0]: LIGHT, self.nest_ids[1]: DARK})

    def state_from_dict(self, d: Mapping[str, Any]) -> IkabegamaState:
        """A state from a position dictionary (:mod:`tessera.games.ikabegama.position`; strict)."""
        from tessera.games.ikabegama.position import state_from_dict

        return state_from_dict(self, d)

    def num_distinct_actions(self) -> int:
        """13 per hex of the window (growth + 12 jump directions), plus ``pass``."""
        return self.pass_action + 1

    def solver(self) -> EndgameSolver:
        from tessera.games.ikabegama.solver import SOLVER

        return SOLVER

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera.games.ikabegama.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    def puzzle_themes(self, to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
        from tessera.games.ikabegama.puzzles import themes

        return themes(to_move, line, states)

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    def vector_engine(self) -> type[VectorGame]:
        from tessera.games.ikabegama.vector import IkabegamaVector

        return IkabegamaVector

    def kernel_contract(self) -> KernelContract:
        """The compiled verbs of the kernel contract (:mod:`tessera.games.ikabegama.contract`)."""
        from tessera.games.ikabegama.contract import build

        return build(self)

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.ikabegama.observation`)."""
        from tessera.games.ikabegama.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """The ``max_plies`` safeguard."""
        return int(self.params["max_plies"])

    def bounded(self, window: int = 0) -> tuple[Game, AxialLayout]:
        """The game on a ``hexhex`` board of side ``window`` around the midpoint of the nests (on the
        plane; 0: half the nests' distance plus 4), or on its own ``hexhex`` board; with its layout."""
        game: IkabegamaGame = self
        if self.hexhex is not None:
            if window and window != self.hexhex:
                raise ValueError(f"ikabegama: window={window} differs from the board {self.params['board']!r}")
            side = self.hexhex
        else:
            side = window or hex_distance(*self.light_nest, *self.dark_nest) // 2 + 4
            game = type(self)(**dict(self.params, board=f"hexhex:{side}"))
        return game, AxialLayout(game.center, side)

    def window_holding(self, state: State) -> int:
        """On the plane: the side of a window around the nests' midpoint reaching every token with
        four hexes to spare (at least the default window, at most 30); 0 on a ``hexhex`` board."""
        if self.hexhex is not None:
            return 0
        _, layout = self.bounded()
        mq, mr = layout.centre
        reach = 0
        for key in state.to_dict()["tokens"]:
            q, r = parse_axial(key)
            reach = max(reach, hex_distance(mq, mr, q, r))
        return min(30, max(layout.side, reach + 4))


def _midpoint_hex(light: tuple[int, int], dark: tuple[int, int]) -> tuple[int, int]:
    """The hex minimising the larger distance to the nests, then the drawn distance to the
    true midpoint; remaining ties go to the hex nearer the Light nest, then smaller q, r."""
    mq, mr = (light[0] + dark[0]) / 2, (light[1] + dark[1]) / 2
    mx, my = hex_center(mq, mr)
    fq, fr = hex_round(mq, mr)

    def key(h: tuple[int, int]) -> tuple[int, float, int, tuple[int, int]]:
        x, y = hex_center(*h)
        far = max(hex_distance(*h, *light), hex_distance(*h, *dark))
        return far, round(math.hypot(x - mx, y - my), 9), hex_distance(*h, *light), h

    return min(((fq + dq, fr + dr) for dq in range(-2, 3) for dr in range(-2, 3)), key=key)


class IkabegamaState(TurnState):
    """Tokens, the player to move, the ply count and consecutive passes, in one int32 array
    (the layout of :mod:`tessera.games.ikabegama.kernels`), changed only by those kernels."""

    game: IkabegamaGame

    def __init__(
        self,
        game: IkabegamaGame,
        tokens: dict[int, int],
        *,
        to_move: int = LIGHT,
        ply: int = 0,
        passes: int = 0,
    ) -> None:
        super().__init__(game)
        # room for the tokens there are and a few growths; _apply grows the array when it is full
        a = kern.new_array(len(tokens) + 16)
        for h, o in tokens.items():
            kern.add_token(a, h, o)
        a[kern.TO_MOVE], a[kern.PLY], a[kern.PASSES] = to_move, ply, passes
        kern.settle(a, game.kconst)
        self._a = a
        self._sync()

    def _sync(self) -> None:
        """Refresh the Python view of the array's player to move and result."""
        a = self._a
        self.to_move = int(a[kern.TO_MOVE])
        self._over = bool(a[kern.OVER])
        w = int(a[kern.WINNER])
        self._winner = w if self._over and w != kern.DRAW else None

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): a nest taken, two passes, or the safeguard."""
        if not self._over:
            return None
        tokens = self.tokens
        light_home, dark_home = self.game.nest_ids
        light, dark = name_text(NAMES[LIGHT]), name_text(NAMES[DARK])
        if tokens.get(dark_home) == LIGHT:
            return outcome(
                "nest", Text("result.nest", f"{light} occupies the {dark} nest: {light} wins", name=light, nest=dark)
            )
        if tokens.get(light_home) == DARK:
            return outcome(
                "nest", Text("result.nest", f"{dark} occupies the {light} nest: {dark} wins", name=dark, nest=light)
            )
        if self.passes >= 2:
            a, b = self.counts
            if a == b:
                return outcome(
                    "passes", Text("result.passes_draw", f"Both players passed with {a} tokens each: a draw", n=a)
                )
            w = name_text(NAMES[LIGHT if a > b else DARK])
            hi, lo = max(a, b), min(a, b)
            return outcome(
                "passes",
                Text(
                    "result.passes_win",
                    f"Both players passed; {w} has more tokens ({hi} to {lo}) and wins",
                    name=w,
                    a=hi,
                    b=lo,
                ),
            )
        n = self.game.params["max_plies"]
        return outcome("safeguard", Text("result.safeguard_plies", f"Draw: the {n}-ply safeguard was reached", n=n))

    def _copy_from(self, other: IkabegamaState) -> None:
        self._a = other._a.copy()
        self.to_move = other.to_move
        self._winner = other._winner
        self._over = other._over

    # -- the array, read from Python ---------------------------------------------------
    @property
    def tokens(self) -> dict[int, int]:
        """Owner of each token by hex id (a new dict)."""
        a = self._a
        n, cap = int(a[kern.NTOK]), int(a[kern.CAP])
        h0 = kern.HEADER
        return dict(zip(a[h0 : h0 + n].tolist(), a[h0 + cap : h0 + cap + n].tolist(), strict=True))

    @property
    def counts(self) -> list[int]:
        """Tokens of Light and Dark."""
        return [int(self._a[kern.CNT0]), int(self._a[kern.CNT1])]

    @property
    def ply(self) -> int:
        """Plies played (the safeguard counts them)."""
        return int(self._a[kern.PLY])

    @property
    def passes(self) -> int:
        """Consecutive passes just played."""
        return int(self._a[kern.PASSES])

    # -- protocol ----------------------------------------------------------------------

    def _legal_actions(self) -> list[Action]:
        g = self.game
        moves = kern.legal(self._a, g.kconst, g.allowed_mask)
        if moves.shape[0] == 0:
            return [g.pass_action]
        return action_list(g.action_ints, moves)

    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """``State.legal_actions_array``: the kernel's sorted array of moves, read-only (``int64``; the
        pass alone when there is none)."""
        if self._over or (player is not None and player != self.to_move):
            out = np.empty(0, np.int64)
        else:
            g = self.game
            out = kern.legal(self._a, g.kconst, g.allowed_mask)
            if out.shape[0] == 0:
                out = np.array([g.pass_action], np.int64)
        out.flags.writeable = False
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """``State.legal_actions`` in one step: the kernel's list, without the generic dispatch."""
        if self._over or (player is not None and player != self.to_move):
            return []
        return self._legal_actions()

    def apply_action(self, action: Action) -> None:
        """``State.apply_action`` with the kernel's check inlined (same refusals, same messages)."""
        if self._over or type(action) is not int:
            super().apply_action(action)  # the generic refusals
            return
        g = self.game
        if not 0 <= action <= g.pass_action:
            super().apply_action(action)
            return
        p = self.to_move
        result = kern.play(self._a, g.kconst, g.allowed_mask, action)  # check and apply: one dispatch
        if result <= kern.REFUSED:
            raise IllegalMove(self._illegal_reason(action) or not_legal(self.action_to_string(action)))
        self._applied(action, result)
        self._history.append((p, action))

    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A uniformly random legal action by rejection sampling (no move list), drawn by the kernel
        from a seed taken from ``rng``: an own token and one of its 18 offsets; a jump is taken
        when its destination is empty, a growth with probability 1 / (own tokens adjacent to it),
        so each distinct move is equally likely.  Crowded positions use the full list."""
        if self._over:
            raise IllegalMove("the game is over: there is no move to draw")
        if player is not None and player != self.to_move:
            raise IllegalMove(f"it is player {self.to_move}'s turn, not player {player}'s")
        g = self.game
        return kern.random_step(self._a, g.kconst, g.allowed_mask, rng.getrandbits(63))

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``State.rollouts`` by the rollout kernel: all ``n`` games in one call."""
        if n <= 0 or (max_plies is not None and max_plies <= 0) or self._over:
            return super().rollouts(n, seed, max_plies)
        g = self.game
        total, plies = kern.rollouts(
            self._a, g.kconst, g.allowed_mask, n, seed & 0x7FFFFFFFFFFFFFFF, -1 if max_plies is None else max_plies
        )
        return RolloutResult(n, (total, -total), plies)

    def _illegal_reason(self, action: Action) -> str | None:
        g = self.game
        code = kern.check(self._a, g.kconst, g.allowed_mask, action)
        if code == kern.OK:
            return None
        if code == kern.MUST_MOVE:
            return Text("refusal.ikabegama.must_move", "pass is only allowed when no growth or jump is possible")
        dest, k = divmod(action, 13)
        move = self.action_to_string(action)
        name = name_text(NAMES[self.to_move])
        at = g.window.label(dest)
        if code == kern.OFF_BOARD:
            return Text("refusal.ikabegama.off_board", f"{move}: hex {at} is off the board", move=move, hex=at)
        if code == kern.NOT_EMPTY:
            return Text("refusal.not_empty", f"{move}: hex {at} is not empty", move=move, hex=at)
        if code == kern.NOT_ADJACENT:
            return Text(
                "refusal.ikabegama.not_adjacent",
                f"{move}: a growth must be adjacent to one of {name}'s tokens",
                move=move,
                name=name,
            )
        src = g.window.label(dest - g.window.ring2_offsets[k - 1])
        return Text(
            "refusal.ikabegama.no_token",
            f"{move}: hex {src} does not hold a {name} token",
            move=move,
            hex=src,
            name=name,
        )

    def _apply(self, action: Action) -> None:
        self._applied(action, kern.apply(self._a, self.game.kconst, action))

    def _applied(self, action: Action, result: int) -> None:
        """Finish a move :func:`kern.apply` has played (``result``: what it returned; it played nothing and
        said ``FULL`` when the token list is full, so the array grows and the move is played again)."""
        if result == kern.FULL:
            self._a = kern.grown(self._a, 2 * int(self._a[kern.CAP]))
            result = kern.apply(self._a, self.game.kconst, action)
        self.to_move = 1 - self.to_move
        if result >= 0:
            self._over = True
            self._winner = None if result == kern.DRAW else result

    # -- notation ----------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        return notation.action_to_string(self.game, action)

    def string_to_action(self, move: str) -> Action:
        return notation.string_to_action(self.game, move)

    # -- positions ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        w = self.game.window
        return {
            "to_move": self.to_move,
            "light_nest": format_axial(*self.game.light_nest),
            "dark_nest": format_axial(*self.game.dark_nest),
            "tokens": {w.label(h): o for h, o in sorted(self.tokens.items())},
            "ply": self.ply,
            "passes": self.passes,
        }

    # -- agents ------------------------------------------------------------------------
    def evaluate(self, player: int) -> float:
        """``tanh(0.15·token lead + 0.35·nest-race lead)`` for ``player``; exact when over
        (:func:`kernels.evaluate`, the evaluation rollouts use)."""
        if self._over:
            return self.returns()[player]
        return float(kern.evaluate(self._a, self.game.kconst, player))

    # -- drawing (render.py) ---------------------------------------------------------
    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: a spectator)."""
        from tessera.games.ikabegama.render import render

        return render(self, player)

    def render_shared(self) -> dict[str, Any]:
        """The render's fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
        from tessera.games.ikabegama.render import render_shared

        return render_shared(self)

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The render's fields of ``player``'s seat (:meth:`tessera.core.game.State.render_seat`)."""
        from tessera.games.ikabegama.render import render_seat

        return render_seat(self, player, actions=actions)

    def __str__(self) -> str:
        return text_diagram(self.render())
