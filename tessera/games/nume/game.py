"""Nume — a territory game of numbered groups (seed ``001``; docs/rules/nume.md).

Board
    A hexagon of hexes whose sides alternate between ``size`` and ``size + 2``
    hexes (parameter ``size``, default 5, range 2–12): ``3·size·(size+1)`` cells in
    ``2·size + 1`` rows; row ``a`` has ``size + 2`` hexes, rows grow by one down to
    the ``size``-th row (``2·size + 1`` hexes), then shrink by one to the bottom row
    of ``size`` hexes (:func:`tessera.core.geometry.alternating_hexagon`).  Variant
    ``variant="square"``: the ``size × size`` points of a square grid (default
    size 9, range 3–19) with orthogonal adjacency only; chess labels (``a1``
    bottom-left).  The seed advises an odd size or a komi for Black on the
    square board, against mirror play; that is advice, not enforced.
Players
    Player 0 is Black and places first; player 1 is White (but see komi
    bidding: there a person may end up with either colour).
Groups, size and price
    A group is a stone with every like-coloured stone reachable from it through
    adjacent like-coloured stones; its size is its number of stones.  Its price
    is the largest ``|number − size|`` over its numbered stones (a group made by
    merging has several numbered stones).
Moves
    On his turn a player places a stone of his colour on an empty cell.  A stone
    that touches a friendly stone joins (and may merge) groups and carries no
    number: ``d3``.  A stone that touches no friendly stone starts a new group
    and carries a written whole number ``0 ≤ k ≤ cells``: ``d3=5``.  **Ruling**
    (docs/rules/nume.md): writing a number on a joining stone is illegal, and so is
    omitting it on a stone that starts a group.
End and score
    The game ends when the board is full.  A player's score is the sum of the
    prices of his groups, plus the komi when his colour receives it; the
    **lower** score wins.  With a whole-number komi the scores can be equal: a
    draw.  :meth:`NumeState.scores` gives both scores **by player index** (the
    person in seat 0 first, whatever his colour); during komi bidding there is
    no score yet (``None``).
Komi
    Parameters ``komi`` (default 0.5, any multiple of 0.5 from 0) and ``komi_to``
    (``"black"`` default, or ``"white"``).  With ``komi_bidding=True`` (the
    seed's "first player chooses komi and recipient, second player chooses
    sides") the game starts with two extra steps: player 0 plays
    ``komi 3.5 white`` (any ``n + 0.5`` from 0.5 to ``cells + 0.5``, and the
    colour that receives it), then player 1 plays ``black`` or ``white``,
    choosing his own colour.  Black then places first.  Player indices stay
    attached to the people: ``returns()``, ``scores()`` and ``current_player()``
    follow the seats, not the colours.  With komi bidding the ``komi`` and
    ``komi_to`` parameters are not used and must be left at their defaults.
Position dict
    ``{"size": 5, "variant": "hex", "to_move": 0, "stones": {"d3": ["b", 5],
    "d4": ["b", null]}, "komi": 0.5, "komi_to": "black", "colors": ["black",
    "white"]}``; ``colors`` is the colour of each player index.  During komi
    bidding ``komi``/``komi_to`` (before the bid) and ``colors`` (before the
    choice) are ``null`` and there are no stones.  ``to_move`` is ``-4`` once the
    board is full.  :meth:`NumeGame.state_from_dict` accepts exactly the positions
    whose groups can arise: every group has a numbered stone, and no two
    numbered stones of one colour touch (a numbered stone touched no friend
    when placed, and a stone placed next to it later carries no number).  The
    stone counts are free (a set-up position, like the docs/rules/nume.md example with
    two Black stones and Black to move): ``to_move`` says who places next, and
    when it is missing Black moves if he has no more stones than White.

Engine notes
    Cells are numbered ``0 … cells−1`` in label order.  A cell's group id is the
    cell of the group's founding stone; each group keeps its size, smallest and
    largest written number (the price is ``max(max − size, size − min)``) and
    its members as a circular linked list (``next`` per cell), so a merge
    relabels the smaller group only, and every table is a flat list (a clone is
    a few list copies).  The prices of each colour are summed incrementally, so
    a ply costs a handful of list operations.  Empty cells are kept in a list
    with positions (swap-remove), which makes :meth:`NumeState.random_action`
    O(1): it draws an empty cell uniformly, then — if the stone would start a
    new group — a number uniformly from ``0 … cells``.  (So the distribution is
    uniform over cells, not over the ``cell × number`` moves.)  The ``N + 1``
    new-group actions of each cell are built once per game, on first use
    (``NumeGame.new_group_actions``), and ``legal_actions`` extends its list with
    them instead of counting them out again on every call.

    Integer actions, with ``N`` cells and ``K = N + 2``:

    * ``cell·K``: the joining stone ``d3`` (no number);
    * ``cell·K + 1 + k``: the new group ``d3=k``, ``0 ≤ k ≤ N``;
    * ``N·K + 2·n + r``: the bid ``komi (n+0.5) black|white`` (``r`` 0 black, 1 white),
      ``0 ≤ n ≤ N``;
    * ``N·K + 2·(N+1) + c``: the colour choice ``black`` (``c = 0``) or ``white``.

Evaluation (for agents)
    Each group's final price is estimated as the mean of its current price and
    its best reachable price if it could grow by up to its liberties (the empty
    cells next to it) towards the middle of its numbers.  The value for a
    player is ``tanh((opponent's estimate − own estimate) / max(2, √empty))``
    with komi included (a lower score is better); exact ±1/0 when the game is
    over.  Before the bid it is 0 (the bidder can level the sides).  After the
    bid, Black's first move is taken to be worth half a point (the seed's
    suggested komi), player 1 is expected to take the colour the bid favours,
    and his value is ``tanh(|0.5 − komi to Black + komi to White| / max(2, √cells))``
    (player 0 gets its negative).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
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
from tessera.core.geometry import Grid, alternating_hexagon, square
from tessera.core.kernels import neighbour_table, rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.render import PLAYER_COLORS, text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nume import kernels as kern
from tessera.games.nume.kernels import GID, GPRICE, GSIZE, HEAD, NEMPTY, NUM, STONE

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame

BLACK, WHITE = 0, 1
"""Colours (not players: with komi bidding a player may take either)."""
COLOUR_NAMES = ("Black", "White")
COLOUR_WORDS = ("black", "white")
COLOUR_LETTERS = ("b", "w")
COLOURS = (PLAYER_COLORS["black"], PLAYER_COLORS["white"])
NO_COLOUR = ("#8a8a8a", "#c9c9c9")
"""Player colours shown before the colours are chosen (komi bidding)."""

FIRST_MOVE_EDGE = 0.5
"""Points Black's first move is assumed to be worth (the seed suggests a half-point komi for Black)."""

KOMI_MAX = 10_000.0
"""The largest komi accepted (far above any board's score; every multiple of 0.5 up to it is exact)."""

BID, CHOOSE, PLAY = 0, 1, 2
"""Phases: player 0 bids komi, player 1 chooses a colour, then stones are placed."""

HEX_SIZES = (2, 12)
SQUARE_SIZES = (3, 19)

INFO = GameInfo(
    name="nume",
    title="Nume",
    params=(
        Param(
            "size",
            None,
            int,
            "board size: hex sides size/size+2 (2–12, default 5); square size×size (3–19, default 9)",
            min=2,
            max=19,
        ),
        Param(
            "variant",
            "hex",
            str,
            "'hex' (alternating hexagon) or 'square' (orthogonal grid)",
            choices=("hex", "square"),
        ),
        Param(
            "komi",
            0.5,
            float,
            "points added to the komi receiver's score (whole komi: ties are draws)",
            min=0,
            max=KOMI_MAX,
            step=0.5,
        ),
        Param("komi_to", "black", str, "colour that receives the komi", choices=("black", "white")),
        Param("komi_bidding", False, bool, "player 0 bids komi and recipient, player 1 then chooses his colour"),
    ),
    param_rules=(
        ParamRule("size", when="variant", equals="hex", default=5, min=2, max=12),
        ParamRule("size", when="variant", equals="square", default=9, min=3, max=19),
        ParamRule("komi", when="komi_bidding", equals=True, fixed=True),
        ParamRule("komi_to", when="komi_bidding", equals=True, fixed=True),
    ),
    player_names=("Black", "White"),
    board_kind="hex",
    version=1,
    summary=__doc__ or "",
    designer="Luis Bolaños Mures (2020)",
    examples=("nume(size=2)", "nume(variant=square,size=5)", "nume(size=3,komi_bidding=true)"),
)


def _fmt_komi(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(float(v))


@warm_up
def _warm_up(game: NumeGame) -> None:
    """Call each kernel the ``State`` uses once (:func:`~tessera.core.kernels.warm_up`: on the first game
    built in this process)."""
    a = game._empty_board.copy()
    nbr = game.nbr
    kern.status(a, nbr, 0, BLACK)
    kern.statuses(a, nbr, BLACK)
    kern.legal(a, nbr, BLACK)
    kern.random_step(a, nbr, BLACK, 0.0, 0.0)
    kern.evaluate(a, nbr, 0.5, 0.0, BLACK)
    kern.rollouts(a, nbr, BLACK, 1, rng_state(0), 1, 0.5, 0.0, BLACK)
    kern.apply(a, nbr, 0, 1, BLACK)


# chosen by the matches in docs/agents.md
LEVELS = LevelTuning(
    search="mcts(c=0.7,rollout_cutoff=0,sample=8)", measured={"vs4": 79, "vs3": 83, "games": "100", "vs2": 90}
)
"""How Nume tunes the strength levels (``NumeGame.level_tuning()``, :func:`tessera.agents.spec.level`)."""


@register
class NumeGame(Game):
    """Nume on one board with fixed komi rules; holds the board tables states share."""

    info = INFO
    client_module = "client.js"  # the board's group badges (size and price)

    grid: Grid
    """The board (alternating hexagon or square)."""
    cells: int
    """Number of cells ``N``."""

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        variant = params["variant"]
        lo, hi = HEX_SIZES if variant == "hex" else SQUARE_SIZES
        if params["size"] is None:
            params["size"] = self._default_size(variant)
        size = params["size"]
        if not lo <= size <= hi:
            raise ValueError(
                f"nume: parameter size={size} is out of range for variant={variant!r}: expected int from {lo} to {hi}"
            )
        if params["komi_bidding"] and (params["komi"] != 0.5 or params["komi_to"] != "black"):
            raise ValueError(
                "nume: with komi_bidding=true the komi is bid in the game; "
                f"leave komi (got {_fmt_komi(params['komi'])}) and komi_to (got {params['komi_to']!r}) "
                "at their defaults"
            )
        params["komi"] = float(params["komi"])
        self._setup_board(variant, size)
        return params

    def _setup_board(self, variant: str, size: int) -> None:
        grid = alternating_hexagon(size) if variant == "hex" else square(size)
        self.grid = grid
        ids = list(grid.cells)
        index = {c: i for i, c in enumerate(ids)}
        n = len(ids)
        self.cells = n
        self.K = n + 2
        """Actions per cell: the joining stone plus ``n + 1`` numbers."""
        self.place_actions = n * self.K
        """First komi-bid action (placements are below it)."""
        self.choose_base = self.place_actions + 2 * (n + 1)
        """First colour-choice action."""
        self.ids = ids
        """Grid cell id of each cell index."""
        self.index = index
        """Cell index of each grid cell id."""
        self.labels = [grid.label(c) for c in ids]
        """Label of each cell index."""
        self.label_index = {lab: i for i, lab in enumerate(self.labels)}
        self.templates = [lab + "={n}" for lab in self.labels]
        """The render's move template of each cell (``a1={n}``: the client asks for the number)."""
        self.nbrs: list[tuple[int, ...]] = [tuple(index[m] for m in grid.neighbors[c]) for c in ids]
        """Neighbour cell indices of each cell index."""
        self.nbr = neighbour_table(grid, ids)
        """The kernels' neighbour table: row ``c`` lists ``nbrs[c]``, padded with -1."""
        self.numstr = [str(k) for k in range(n + 1)]
        self.numbers = n + 1
        """How many numbers a new group may carry (``0 … n``)."""
        self._empty_board = kern.empty_board(n)
        self._new_group_actions: list[list[int]] | None = None
        self._placement_lists: list[list[int]] | None = None
        _warm_up(self)

    @property
    def new_group_actions(self) -> list[list[int]]:
        """The actions ``d3=0 … d3=N`` of each cell index, built on first use (shared by every state)."""
        if self._new_group_actions is None:
            K = self.K
            self._new_group_actions = [list(range(c * K + 1, c * K + K)) for c in range(self.cells)]
        return self._new_group_actions

    @property
    def placement_lists(self) -> list[list[int]]:
        """The actions of each code of :func:`kernels.legal` (``2·c``: ``[c·K]``, the
        joining stone; ``2·c + 1``: the new groups of cell ``c``), built on first use."""
        if self._placement_lists is None:
            K = self.K
            numbered = self.new_group_actions
            self._placement_lists = [x for c in range(self.cells) for x in ([c * K], numbered[c])]
        return self._placement_lists

    @staticmethod
    def _default_size(variant: str) -> int:
        return 5 if variant == "hex" else 9

    def new_initial_state(self, seed: int | None = None) -> NumeState:
        """An empty board; with komi bidding, player 0 bids first."""
        return NumeState(self)

    def num_distinct_actions(self) -> int:
        """``N·(N+2)`` placements, ``2·(N+1)`` komi bids, 2 colour choices."""
        return self.choose_base + 2

    def solver(self) -> EndgameSolver:
        from tessera.games.nume.solver import SOLVER

        return SOLVER

    @classmethod
    def lessons(cls) -> LessonBook:
        from tessera.core.kits.lessons import LessonBook
        from tessera.games.nume.lessons import DIAGRAMS, LESSONS

        return LessonBook(DIAGRAMS, LESSONS)

    def puzzle_themes(self, to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
        from tessera.games.nume.puzzles import themes

        return themes(to_move, line, states)

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        return LEVELS

    @classmethod
    def learned(cls) -> LearnedKit:
        from tessera.games.nume.learned import KIT

        return KIT

    def vector_engine(self) -> type[VectorGame]:
        from tessera.games.nume.vector import NumeVector

        return NumeVector

    def kernel_contract(self) -> KernelContract:
        """The compiled verbs of the kernel contract (:mod:`tessera.games.nume.contract`)."""
        from tessera.games.nume.contract import build

        return build(self)

    def observation_spec(self) -> ObservationSpec:
        """The observation planes of the research adapters (:mod:`tessera.games.nume.observation`)."""
        from tessera.games.nume.observation import observation_spec

        return observation_spec(self)

    def max_game_length(self) -> int:
        """One stone per cell, plus the two bidding steps."""
        return self.cells + (2 if self.params["komi_bidding"] else 0)

    def why_no_draw(self) -> str | None:
        """A tie needs a whole-number komi: never with komi bidding, whose komi ends in .5."""
        if self._params["komi_bidding"] or float(self._params["komi"]) % 1 != 0:
            return Text("refusal.no_draws_komi", "this Nume game cannot end in a draw (its komi is not a whole number)")
        return None

    # -- positions -----------------------------------------------------------------------
    def state_from_dict(self, d: Mapping[str, Any]) -> NumeState:
        """A state from a position dictionary (:mod:`tessera.games.nume.position`; strict)."""
        from tessera.games.nume.position import state_from_dict

        return state_from_dict(self, d)


class NumeState(State):
    """The board, the groups with their prices, the komi and who holds which colour.

    The board and its groups live in one int32 array (``_a``, laid out as in
    :mod:`tessera.games.nume.kernels`), changed only by the kernels there: a clone
    copies one array.
    """

    game: NumeGame

    def __init__(self, game: NumeGame) -> None:
        super().__init__(game)
        self._a = game._empty_board.copy()
        """The board: stones, numbers, groups, empty cells and prices (kernels layout)."""
        p = game.params
        if p["komi_bidding"]:
            self._setup(BID, None, None, None)
        else:
            self._setup(PLAY, p["komi"], COLOUR_WORDS.index(p["komi_to"]), [BLACK, WHITE])

    def _setup(self, phase: int, komi: float | None, komi_to: int | None, colors: list[int] | None) -> None:
        self._phase = phase
        self._komi = komi
        self._komi_to = komi_to
        self._colors = colors
        """Colour of each player index (None until chosen)."""
        self._col = BLACK
        """Colour to place next."""
        self._to_move = 0 if phase == BID else 1 if phase == CHOOSE else colors.index(BLACK)  # type: ignore[union-attr]
        self._over = False
        self._placing = phase == PLAY
        """Stones are being placed: the colours are set and the board is not full."""

    def _copy_from(self, other: NumeState) -> None:
        self._a = other._a.copy()
        self._phase = other._phase
        self._komi = other._komi
        self._komi_to = other._komi_to
        self._colors = None if other._colors is None else other._colors[:]
        self._col = other._col
        self._to_move = other._to_move
        self._over = other._over
        self._placing = other._placing

    # -- the board array, read from Python (not on hot paths) -----------------------------
    def _field(self, which: int) -> list[int]:
        """One per-cell table of the board array as a list (``STONE``, ``NUM``, ``GID`` …)."""
        n = self.game.cells
        return self._a[which * n : which * n + n].tolist()  # type: ignore[no-any-return]

    def _nempty(self) -> int:
        return int(self._a[HEAD * self.game.cells + NEMPTY])

    def _prices(self) -> list[int]:
        """Sum of the prices of Black's and White's groups."""
        h = HEAD * self.game.cells
        return [int(self._a[h]), int(self._a[h + 1])]

    def _komis(self) -> tuple[float, float]:
        """The komi added to Black's and White's scores."""
        kb = kw = 0.0
        if self._komi is not None and self._komi_to is not None:
            if self._komi_to == BLACK:
                kb = self._komi
            else:
                kw = self._komi
        return kb, kw

    # -- protocol ------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self._over else self._to_move

    def is_terminal(self) -> bool:
        return self._over

    def colors(self) -> list[str] | None:
        """Colour (``"black"``/``"white"``) of each player index, or None before the choice."""
        return None if self._colors is None else [COLOUR_WORDS[c] for c in self._colors]

    def colour_scores(self) -> list[float]:
        """Black's and White's scores (prices plus komi), by colour."""
        pb, pw = self._prices()
        kb, kw = self._komis()
        return [pb + kb, pw + kw]

    def scores(self) -> list[float] | None:
        """Each **player's** score (prices of his groups plus komi if he receives it), by player index.

        ``None`` while komi bidding is in progress (no one has a colour yet).
        """
        if self._colors is None:
            return None
        cs = self.colour_scores()
        return [cs[self._colors[0]], cs[self._colors[1]]]

    def returns(self) -> list[float]:
        if not self._over:
            return [0.0, 0.0]
        s = self.scores()
        assert s is not None
        if s[0] < s[1]:
            return [1.0, -1.0]
        if s[1] < s[0]:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): the board is full, the lower score wins."""
        if not self._over:
            return None
        s = self.scores()
        assert s is not None
        a, b = (name_text(n) for n in self._player_names())
        x, y = f"{s[0]:g}", f"{s[1]:g}"
        both = Text("nume.scores", f"{a} {x}, {b} {y}", a=a, x=x, b=b, y=y)
        if self._komi is not None and self._komi_to is not None and self._komi:
            komi, to = f"{self._komi:g}", name_text(COLOUR_NAMES[self._komi_to])
            both = Text(
                "nume.scores_komi", f"{a} {x}, {b} {y}, komi {komi} to {to}", a=a, x=x, b=b, y=y, komi=komi, name=to
            )
        if s[0] == s[1]:
            return outcome(
                "score",
                Text("result.full_draw", f"The board is full and the scores are equal ({both}): a draw", scores=both),
            )
        w = a if s[0] < s[1] else b
        return outcome(
            "score",
            Text(
                "result.full_win", f"The board is full: {w} has the lower score ({both}) and wins", name=w, scores=both
            ),
        )

    # -- moves ---------------------------------------------------------------------------
    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """``State.legal_actions_array``: the placements written by one kernel into a numpy array
        (``int64``, read-only; no Python list is built)."""
        if self._phase != PLAY or self._over or (player is not None and player != self._to_move):
            return super().legal_actions_array(player)
        from tessera.games.nume.contract import placements

        g = self.game
        buf = np.empty(g.place_actions, np.int64)
        out = buf[: placements(self._a, g.nbr, self._col, buf)]
        out.flags.writeable = False
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """``State.legal_actions`` in one step, without the generic dispatch."""
        if self._over or (player is not None and player != self._to_move):
            return []
        return self._legal_actions()

    def _legal_actions(self) -> list[Action]:
        g = self.game
        if self._phase == PLAY:
            lists = g.placement_lists
            out: list[int] = []
            extend = out.extend
            for i in kern.legal(self._a, g.nbr, self._col).tolist():
                extend(lists[i])
            return out
        if self._phase == BID:
            return list(range(g.place_actions, g.choose_base))
        return [g.choose_base, g.choose_base + 1]

    def _placement_reason(self, c: int, k: int) -> str | None:
        """Why placing on cell ``c`` with number code ``k`` (0: none, else number+1) is illegal."""
        g = self.game
        col = self._col
        st = kern.status(self._a, g.nbr, c, col)
        at = g.labels[c]
        if st == kern.OCCUPIED:
            held = name_text(COLOUR_NAMES[int(self._a[STONE * g.cells + c])])
            return Text("refusal.nume.occupied", f"{at} is not empty: it holds a {held} stone", hex=at, colour=held)
        if st == kern.JOINS and k:
            touch = next(g.labels[m] for m in g.nbrs[c] if self._a[STONE * g.cells + m] == col)
            colour = name_text(COLOUR_NAMES[col])
            return Text(
                "refusal.nume.joins_number",
                f"{at}={k - 1}: a stone that joins a {colour} group (it touches {touch}) carries no number; play {at}",
                move=f"{at}={k - 1}",
                colour=colour,
                touch=touch,
                hex=at,
            )
        if st == kern.STARTS and not k:
            return Text(
                "refusal.nume.starts_number",
                f"{at}: a stone that starts a new group must carry a number from 0 to {g.cells}; play e.g. {at}=1",
                hex=at,
                n=g.cells,
            )
        return None

    def _illegal_reason(self, action: Action) -> str | None:
        g = self.game
        phase = self._phase
        if action < g.place_actions:
            if phase != PLAY:
                return self._phase_hint()
            c, k = divmod(action, g.K)
            return self._placement_reason(c, k)
        move = self.action_to_string(action)
        if not g.params["komi_bidding"]:
            return Text(
                "refusal.nume.no_bidding", f"{move}: this game has no komi bidding (komi_bidding=false)", move=move
            )
        if action < g.choose_base:
            if phase != BID:
                return Text("refusal.nume.komi_bid", f"{move}: the komi has already been bid", move=move)
            return None
        if phase != CHOOSE:
            if phase == BID:
                return self._phase_hint()
            return Text("refusal.nume.colours_chosen", f"{move}: the colours have already been chosen", move=move)
        return None

    def _phase_hint(self) -> Text:
        n = self.game.cells
        if self._phase == BID:
            return Text(
                "refusal.nume.bid_first",
                f"komi bidding comes first: player 0 plays 'komi <value> <black|white>' "
                f"with a value n+0.5 from 0.5 to {n}.5, e.g. 'komi 3.5 white'",
                n=n,
            )
        return Text("refusal.nume.choose_first", "player 1 now chooses his colour: 'black' or 'white'")

    def _place(self, c: int, k: int) -> None:
        """Put a stone of the colour to move on cell ``c`` (number code ``k``), which must be legal."""
        left = kern.apply(self._a, self.game.nbr, c, k, self._col)
        if left < 0:
            raise IllegalMove(self._placement_reason(c, k) or Text("refusal.nume.placement", "illegal placement"))
        if left == 0:
            self._over = True
            self._placing = False
        self._col = 1 - self._col
        self._to_move = 1 - self._to_move

    def _apply(self, action: Action) -> None:
        g = self.game
        if action < g.place_actions:
            c, k = divmod(action, g.K)
            self._place(c, k)
        elif action < g.choose_base:
            n, r = divmod(action - g.place_actions, 2)
            self._komi = n + 0.5
            self._komi_to = r
            self._phase = CHOOSE
            self._to_move = 1
        else:
            mine = action - g.choose_base
            self._colors = [1 - mine, mine]
            self._phase = PLAY
            self._placing = True
            self._col = BLACK
            self._to_move = self._colors.index(BLACK)

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move, checked (fast path for placements:
        the placement kernel checks and applies in one call)."""
        g = self.game
        if self._placing and type(action) is int and 0 <= action < g.place_actions:
            c, k = divmod(action, g.K)
            player = self._to_move
            self._place(c, k)  # IllegalMove, state unchanged, when illegal
            self._history.append((player, action))
            return
        super().apply_action(action)

    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A random legal action in O(1).

        Placements: a uniformly random empty cell, then — if the stone starts a new
        group — a uniformly random number ``0 … cells`` (uniform over cells, not over
        the ``cell × number`` moves).  Komi bids and colour choices: uniform.
        """
        if self._placing and (player is None or player == self._to_move):
            return kern.random_step(self._a, self.game.nbr, self._col, rng.random(), rng.random())
        actions = self.legal_actions(player)
        if not actions:
            raise IllegalMove(f"player {player} has no legal move now")
        return rng.choice(actions)

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """``State.rollouts`` by the rollout kernel (one call for all ``n`` games) once stones are placed;
        during komi bidding the generic rollouts play the bid and the choice first."""
        if not self._placing or n <= 0 or (max_plies is not None and max_plies <= 0):
            return super().rollouts(n, seed, max_plies)
        assert self._colors is not None
        kb, kw = self._komis()
        total, plies = kern.rollouts(
            self._a,
            self.game.nbr,
            self._col,
            n,
            rng_state(seed),
            -1 if max_plies is None else max_plies,
            kb,
            kw,
            self._colors[0],
        )
        return RolloutResult(n, (total, -total), plies)

    def legal_moves(self, player: int | None = None) -> list[str]:
        """Sorted legal move strings (built from tables: ~8000 moves at size 5)."""
        cp = self.current_player()
        if cp == TERMINAL or (player is not None and player != cp):
            return []
        if self._phase != PLAY:
            return sorted(self.action_to_string(a) for a in self._legal_actions())
        g = self.game
        labels = g.labels
        out: list[str] = []
        for c, st in enumerate(self._statuses()):
            if st == kern.JOINS:
                out.append(labels[c])
            elif st == kern.STARTS:
                pre = labels[c] + "="
                out.extend([pre + s for s in g.numstr])
        out.sort()
        return out

    def _statuses(self) -> list[int]:
        """:func:`kernels.status` of every cell for the colour to place (one kernel call)."""
        return kern.statuses(self._a, self.game.nbr, self._col).tolist()  # type: ignore[no-any-return]

    # -- notation ------------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        g = self.game
        if not isinstance(action, int) or not 0 <= action < g.num_distinct_actions():
            raise IllegalMove(no_such_action(action, f"nume (0…{g.num_distinct_actions() - 1})"))
        if action < g.place_actions:
            c, k = divmod(action, g.K)
            return g.labels[c] if k == 0 else f"{g.labels[c]}={k - 1}"
        if action < g.choose_base:
            n, r = divmod(action - g.place_actions, 2)
            return f"komi {n}.5 {COLOUR_WORDS[r]}"
        return COLOUR_WORDS[action - g.choose_base]

    def string_to_action(self, move: str) -> Action:
        g = self.game
        n = g.cells
        text = move.strip().lower()
        if text in COLOUR_WORDS:
            return g.choose_base + COLOUR_WORDS.index(text)
        if text.startswith("komi"):
            parts = text.split()
            if len(parts) != 3 or parts[0] != "komi" or parts[2] not in COLOUR_WORDS:
                raise IllegalMove(
                    Text(
                        "refusal.nume.komi_syntax",
                        f"{move!r} is not a komi bid: write 'komi <value> <black|white>', e.g. 'komi 3.5 white'",
                        move=repr(move),
                    )
                )
            try:
                v = float(parts[1])
            except ValueError:
                raise IllegalMove(
                    Text(
                        "refusal.nume.komi_number",
                        f"{move!r}: the komi {parts[1]!r} is not a number",
                        move=repr(move),
                        komi=repr(parts[1]),
                    )
                ) from None
            if not math.isfinite(v) or not (v - 0.5).is_integer() or not 0.5 <= v <= n + 0.5:
                raise IllegalMove(
                    Text(
                        "refusal.nume.komi_range",
                        f"{move!r}: the komi must be n+0.5 from 0.5 to {n}.5 (no ties), not {parts[1]}",
                        move=repr(move),
                        n=n,
                        komi=parts[1],
                    )
                )
            return g.place_actions + 2 * int(v - 0.5) + COLOUR_WORDS.index(parts[2])
        lab, eq, num = text.partition("=")
        lab = lab.strip()
        c = g.label_index.get(lab)
        if c is None:
            raise IllegalMove(
                Text(
                    "refusal.nume.syntax",
                    f"{move!r} is not a move: {lab!r} is not a cell of the {g.grid.shape} board; "
                    "moves are 'd3' (joining stone), 'd3=5' (new group with its number), 'komi 3.5 white', 'black', "
                    "'white'",
                    move=repr(move),
                    cell=repr(lab),
                    shape=g.grid.shape,
                )
            )
        if not eq:
            return c * g.K
        num = num.strip()
        if not num.isascii() or not num.isdigit() or len(num) > len(str(n)) or int(num) > n:
            raise IllegalMove(
                Text(
                    "refusal.nume.number",
                    f"{move!r}: the number written on a stone must be a whole number from 0 to {n}",
                    move=repr(move),
                    n=n,
                )
            )
        return c * g.K + 1 + int(num)

    # -- positions -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        g = self.game
        stone, num = self._field(STONE), self._field(NUM)
        stones = {}
        for c in range(g.cells):
            col = stone[c]
            if col >= 0:
                k = num[c]
                stones[g.labels[c]] = [COLOUR_LETTERS[col], k if k >= 0 else None]
        return {
            "size": g.params["size"],
            "variant": g.params["variant"],
            "to_move": self.current_player(),
            "stones": stones,
            "komi": self._komi,
            "komi_to": None if self._komi_to is None else COLOUR_WORDS[self._komi_to],
            "colors": self.colors(),
        }

    # -- groups --------------------------------------------------------------------------
    def _group_table(self) -> list[dict[str, Any]]:
        """Every group as ``{"root", "color", "members", "size", "numbers", "price"}`` (cell indices),
        in the order of their roots; built in one pass over the cells (the render uses it after
        every move)."""
        stone, num, gid = self._field(STONE), self._field(NUM), self._field(GID)
        gsize, gprice = self._field(GSIZE), self._field(GPRICE)
        groups: dict[int, dict[str, Any]] = {}
        for c, col in enumerate(stone):
            if col >= 0:
                r = gid[c]
                gr = groups.get(r)
                if gr is None:
                    gr = groups[r] = {
                        "root": r,
                        "color": stone[r],
                        "members": [],
                        "size": gsize[r],
                        "numbers": [],
                        "price": gprice[r],
                    }
                gr["members"].append(c)
                if num[c] >= 0:
                    gr["numbers"].append(num[c])
        for gr in groups.values():
            gr["numbers"].sort()
        return sorted(groups.values(), key=lambda gr: gr["root"])

    def groups(self) -> list[dict[str, Any]]:
        """Every group: colour, cells (labels), size, written numbers and price."""
        labels = self.game.labels
        return [
            {
                "color": COLOUR_WORDS[gr["color"]],
                "cells": [labels[m] for m in gr["members"]],
                "size": gr["size"],
                "numbers": gr["numbers"],
                "price": gr["price"],
            }
            for gr in self._group_table()
        ]

    def price_of(self, label: str) -> int:
        """The price of the group holding the stone on ``label``."""
        g = self.game
        n = g.cells
        c = g.label_index.get(label.strip().lower())
        if c is None or self._a[STONE * n + c] < 0:
            raise ValueError(f"there is no stone on {label!r}")
        return int(self._a[GPRICE * n + int(self._a[GID * n + c])])

    # -- agents --------------------------------------------------------------------------
    def evaluate(self, player: int) -> float:
        """Estimated final-score lead of ``player`` squashed to [-1, 1] (see module docstring;
        computed by :func:`kernels.evaluate`, the evaluation rollouts use)."""
        if self._over:
            return self.returns()[player]
        g = self.game
        if self._colors is None:
            if self._komi is None or self._komi_to is None:
                return 0.0  # the bidder can always bid the sides level
            # player 1 will take the colour the bid favours
            edge = FIRST_MOVE_EDGE - (self._komi if self._komi_to == BLACK else -self._komi)
            v = math.tanh(abs(edge) / max(2.0, math.sqrt(g.cells)))
            return v if player == 1 else -v
        kb, kw = self._komis()
        return float(kern.evaluate(self._a, g.nbr, kb, kw, self._colors[player]))

    # -- drawing (render.py) ---------------------------------------------------------
    def _player_names(self) -> list[str]:
        if self._colors is None:
            return ["Player 0", "Player 1"]
        return [COLOUR_NAMES[c] for c in self._colors]

    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: a spectator)."""
        from tessera.games.nume.render import render

        return render(self, player)

    def __str__(self) -> str:
        """A text diagram: ``B5`` a Black stone numbered 5, ``W`` an unnumbered White stone, ``.`` empty."""
        width = 3 if self.game.cells < 100 else 4
        return text_diagram(self.render(), cell_width=width)
