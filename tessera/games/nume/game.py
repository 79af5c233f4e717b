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

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tessera.core.game import (
    Game,
    GameInfo,
    Move,
    Param,
    ParamRule,
    State,
)
from tessera.core.geometry import Grid, alternating_hexagon, square
from tessera.core.kernels import neighbour_table, rng_state, warm_up
from tessera.core.kits.levels import LevelTuning
from tessera.core.observation import ObservationSpec
from tessera.core.registry import register
from tessera.core.texts import Text
from tessera.games.nume import kernels as kern
from tessera.games.nume.constants import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    COLOUR_WORDS,
    COLOURS,
    FIRST_MOVE_EDGE,
    HEX_SIZES,
    KOMI_MAX,
    NO_COLOUR,
    PLAY,
    SQUARE_SIZES,
    WHITE,
    _fmt_komi,
)
from tessera.games.nume.state import NumeState

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame

__all__ = [
    "BID",
    "BLACK",
    "CHOOSE",
    "COLOURS",
    "COLOUR_LETTERS",
    "COLOUR_NAMES",
    "COLOUR_WORDS",
    "FIRST_MOVE_EDGE",
    "HEX_SIZES",
    "INFO",
    "KOMI_MAX",
    "LEVELS",
    "NO_COLOUR",
    "PLAY",
    "SQUARE_SIZES",
    "WHITE",
    "NumeGame",
    "NumeState",
]

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
