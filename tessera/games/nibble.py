"""Nibble — take coloured blocks off the corners (seed ``004``; RULES.md, Nibble).

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
    Position dict (RULES.md)::

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
    Blocks are kept as Python-int bit sets over a :mod:`tessera.core.geometry`
    grid: one mask of occupied cells and one mask per colour.  The corner rule is
    a handful of shifts over the whole board.  The no-split rule is decided per
    candidate first locally — the occupied neighbours of the block are joined
    around it (square: through its 8-neighbourhood; hex: through its ring of six)
    — and only otherwise by one bit-set flood of the board without the block that
    stops as soon as it has reached every neighbour.
    The corner mask is cached per board; after each take the blocks of that
    colour still takeable are listed at once (they decide whether the turn goes
    on) and become the next step's legal moves.  ``random_action`` at the start
    of a turn tries the corner blocks in random order and returns the first that
    does not split the board (uniform over the legal blocks, usually one check);
    it remembers that block with the board it checked, so ``apply_action`` does
    not check it again.
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
    the board legal, so the deal never fails (about 1–3 ms); the colour table
    is shuffled afterwards from the same ``random.Random(seed)``.

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

import math
import random
from collections.abc import Mapping
from typing import Any

from tessera.core.game import TERMINAL, Action, Game, GameInfo, IllegalMove, Param, TurnState
from tessera.core.geometry import Grid, bits, hexagon, square
from tessera.core.registry import register
from tessera.core.render import describe, grid_cells, piece, text_diagram

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
        Param("colors", 9, int, "number of colours (and blocks of each)", choices=(9, 13)),
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
)


def _base_coloring(grid: Grid, colors: int) -> list[int]:
    """A fixed proper colouring of ``grid`` with exactly ``colors`` blocks of each colour."""
    out = []
    for c in grid.cells:
        a, b = grid.coords[c]  # type: ignore[misc]
        out.append((a + 2 * b) % colors if grid.kind == "square" else (a + 4 * b) % colors)
    return out


@register
class NibbleGame(Game):
    """Nibble with a fixed number of colours, board shape and table rule."""

    info = INFO

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
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
        ring: list[int] = [0] * grid.size
        for c in self.cells:
            m = grid.neighbor_mask[c]
            if grid.kind == "square":
                s = grid.stride
                for d in (s + 1, s - 1, -s + 1, -s - 1):
                    if (c + d) in grid:
                        m |= 1 << (c + d)
            ring[c] = m
        self.ring = ring
        self.square: bool = grid.kind == "square"
        self.shifts: tuple[int, ...] = tuple(o for o in grid.offsets if o > 0)
        """Cell-id offsets to the neighbours in the positive directions (flood fills shift both ways)."""
        self.hex_steps: frozenset[int] = frozenset(self.shifts)
        """Cells around each cell through which its neighbours may join (square: 8-neighbourhood)."""
        self.base = _base_coloring(grid, n)
        self.nbr_index: list[tuple[int, ...]] = [tuple(self.index[x] for x in grid.neighbors[c]) for c in self.cells]
        """Neighbours of each cell, as cell indices."""
        return params

    def new_initial_state(self, seed: int | None = None) -> NibbleState:
        """Deal the board and the colour table from ``seed`` (None: a fresh random seed)."""
        if seed is None:
            seed = random.randrange(2**32)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"nibble: seed must be an int or None, not {seed!r}")
        board, table = self.deal(seed)
        return NibbleState(self, board, [[0] * self.colors, [0] * self.colors], table, seed=seed)

    def deal(self, seed: int) -> tuple[dict[int, int], list[int]]:
        """The dealt board (grid cell id → colour) and colour table of ``seed``."""
        rng = random.Random(seed)
        n = self.colors
        perm = list(range(n))
        rng.shuffle(perm)
        k = len(self.cells)
        col = [perm[b] for b in self.base]  # by cell index
        nbr = self.nbr_index
        # cnt[i]: how many neighbours of cell i have each colour, 3 bits per colour (at most 6 neighbours)
        field = [1 << (3 * c) for c in range(n)]
        seven = [7 << (3 * c) for c in range(n)]
        cnt = [0] * k
        for i in range(k):
            for j in nbr[i]:
                cnt[i] += field[col[j]]
        rand = rng.random
        kk = k * k
        for r in [int(rand() * kk) for _ in range(SWAPS_PER_CELL * k)]:
            a, b = divmod(r, k)  # two cell indices from one draw
            ca, cb = col[a], col[b]
            # neither block may get a neighbour of its new colour (this also rules out neighbours)
            if ca == cb or cnt[a] & seven[cb] or cnt[b] & seven[ca]:
                continue
            col[a], col[b] = cb, ca
            delta = field[cb] - field[ca]
            for j in nbr[a]:
                cnt[j] += delta
            for j in nbr[b]:
                cnt[j] -= delta
        table = list(range(n))
        if self.params["shuffle_table"]:
            rng.shuffle(table)
        return {c: col[i] for i, c in enumerate(self.cells)}, table

    def state_from_dict(self, d: Mapping[str, Any]) -> NibbleState:
        """A state from the position dict (module docstring); ``ValueError`` names the problem."""
        if not isinstance(d, Mapping):
            raise ValueError("a nibble position must be a dict")
        unknown = set(d) - {"colors", "board", "to_move", "cells", "taken", "table", "taking", "seed"}
        if unknown:
            raise ValueError(f"nibble position: unknown key {sorted(unknown)[0]!r}")
        n = self.colors
        for key in ("colors", "board"):
            if key in d and d[key] != self.params[key]:
                raise ValueError(f"nibble position: {key} is {d[key]!r} but this game's is {self.params[key]!r}")
        to_move = d.get("to_move", 0)
        if type(to_move) is not int or to_move not in (0, 1):
            raise ValueError(f"nibble position: to_move must be 0 or 1, not {to_move!r}")
        cells_in = d.get("cells")
        if not isinstance(cells_in, Mapping):
            raise ValueError("nibble position: 'cells' must map cell labels to colours")
        grid = self.grid
        board: dict[int, int] = {}
        for label, colour in cells_in.items():
            try:
                c = grid.cell(str(label))
            except ValueError as e:
                raise ValueError(f"nibble position: cells: {e}") from None
            if not isinstance(colour, int) or isinstance(colour, bool) or not 0 <= colour < n:
                raise ValueError(f"nibble position: cell {label!r} has colour {colour!r}; expected 0 to {n - 1}")
            if c in board:
                raise ValueError(f"nibble position: cell {grid.label(c)!r} is given twice")
            board[c] = colour
        for c, colour in board.items():
            for x in grid.neighbors[c]:
                if board.get(x) == colour and x > c:
                    raise ValueError(
                        f"nibble position: blocks {grid.label(c)} and {grid.label(x)} are adjacent and both of "
                        f"colour {colour}; a deal never puts two blocks of one colour side by side"
                    )
        occ = grid.mask(board)
        if not grid.is_connected(occ):
            raise ValueError("nibble position: the blocks on the board are not one connected group")
        taken_in = d.get("taken", [[0] * n, [0] * n])
        if (
            not isinstance(taken_in, list | tuple)
            or len(taken_in) != 2
            or not all(isinstance(row, list | tuple) and len(row) == n for row in taken_in)
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for row in taken_in for v in row)
        ):
            raise ValueError(f"nibble position: 'taken' must be two lists of {n} non-negative counts")
        taken = [list(taken_in[0]), list(taken_in[1])]
        on_board = [0] * n
        for colour in board.values():
            on_board[colour] += 1
        for c in range(n):
            total = on_board[c] + taken[0][c] + taken[1][c]
            if total != n:
                raise ValueError(
                    f"nibble position: colour {c} has {on_board[c]} blocks on the board and "
                    f"{taken[0][c]} + {taken[1][c]} taken, {total} in all; there are {n} of each colour"
                )
        table_in = d.get("table", list(range(n)))
        if (
            not isinstance(table_in, list | tuple)
            or not all(type(v) is int for v in table_in)
            or sorted(table_in) != list(range(n))
        ):
            raise ValueError(f"nibble position: 'table' must be an ordering of the colours 0 to {n - 1}")
        table = list(table_in)
        if not self.params["shuffle_table"] and table != list(range(n)):
            raise ValueError("nibble position: with shuffle_table=false the table must be 0, 1, …, in order")
        seed = d.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"nibble position: seed must be an int, not {seed!r}")
        taking = d.get("taking")
        if taking is not None and (not isinstance(taking, int) or isinstance(taking, bool) or not 0 <= taking < n):
            raise ValueError(f"nibble position: taking must be a colour 0 to {n - 1}, not {taking!r}")
        st = NibbleState(self, board, taken, table, to_move=to_move, seed=seed)
        wins = [p for p in (0, 1) if st._instant_win(p)]
        if len(wins) == 2:
            raise ValueError("nibble position: both players have an instant win; the game stops at the first")
        if taking is not None:
            if st._over:
                raise ValueError("nibble position: 'taking' is given but the game is over")
            if taken[to_move][taking] == 0:
                raise ValueError(
                    f"nibble position: player {to_move} is taking colour {taking} but holds no block of it"
                )
            st.taking = taking
            if not st._has_takeable(st.cmask[taking]):
                raise ValueError(
                    f"nibble position: no block of colour {taking} can be taken, so the turn would have ended"
                )
        return st

    def num_distinct_actions(self) -> int:
        """One per cell (take its block), plus ``end``."""
        return len(self.cells) + 1

    def max_game_length(self) -> int:
        """Every block is taken at most once and each ``end`` follows a take."""
        return 2 * len(self.cells)


class NibbleState(TurnState):
    """Blocks as bit sets, both players' colour counts, the table and the turn in progress."""

    game: NibbleGame

    def __init__(
        self,
        game: NibbleGame,
        board: Mapping[int, int],
        taken: list[list[int]],
        table: list[int],
        *,
        to_move: int = 0,
        seed: int | None = None,
    ) -> None:
        super().__init__(game)
        n = game.colors
        self.color: list[int] = [-1] * game.grid.size
        """Colour of the block on each grid cell id, -1 if none."""
        self.cmask: list[int] = [0] * n
        """Bit set of the blocks of each colour."""
        for c, colour in board.items():
            self.color[c] = colour
            self.cmask[colour] |= 1 << c
        self.occ: int = 0
        for m in self.cmask:
            self.occ |= m
        self.taken = [list(taken[0]), list(taken[1])]
        self.table = list(table)
        self.to_move = to_move
        self.taking: int | None = None
        """The colour being taken in the turn in progress (None at the start of a turn)."""
        self.seed = seed
        self._over = False
        self._winner: int | None = None
        self._legal: list[Action] | None = None
        self._corner_occ = -1
        self._corner = 0
        self._sampled = (-1, -1)
        """``(occ, action)`` of the block ``random_action`` last found legal at the start of a turn."""
        self._triples_of = self._triples()
        for p in (0, 1):
            if self._instant_win(p):
                self._over, self._winner = True, p
        if not self._over and self.occ == 0:
            self._finish_by_majority()

    def _triples(self) -> list[list[tuple[int, int, int]]]:
        """For each colour, the triples of table-adjacent colours holding it."""
        t = self.table
        out: list[list[tuple[int, int, int]]] = [[] for _ in t]
        for i in range(len(t) - 2):
            tri = (t[i], t[i + 1], t[i + 2])
            for c in tri:
                out[c].append(tri)
        return out

    def _copy_from(self, other: NibbleState) -> None:
        self.color = list(other.color)
        self.cmask = list(other.cmask)
        self.occ = other.occ
        self.taken = [list(other.taken[0]), list(other.taken[1])]
        self.table = list(other.table)
        self.to_move = other.to_move
        self.taking = other.taking
        self.seed = other.seed
        self._over = other._over
        self._winner = other._winner
        self._legal = None if other._legal is None else list(other._legal)
        self._corner_occ = other._corner_occ
        self._corner = other._corner
        self._sampled = other._sampled
        self._triples_of = other._triples_of

    # -- rules -------------------------------------------------------------------------
    def _instant_win(self, p: int, colour: int | None = None) -> bool:
        """Whether ``p`` holds a whole colour or three table-adjacent colours (only ``colour``'s, if given)."""
        mine = self.taken[p]
        n = self.game.colors
        need = self.game.triple_need
        colours = range(n) if colour is None else (colour,)
        for c in colours:
            if mine[c] >= n:
                return True
            for a, b, e in self._triples_of[c]:
                if mine[a] >= need and mine[b] >= need and mine[e] >= need:
                    return True
        return False

    def outcome(self) -> dict[str, str] | None:
        """Why the game ended (see :meth:`State.outcome`): a whole colour, three table neighbours, or majorities."""
        if not self._over:
            return None
        n = self.game.colors
        need = self.game.triple_need
        w = self._winner
        if w is not None and self._instant_win(w):
            mine = self.taken[w]
            for c in range(n):
                if mine[c] >= n:
                    return {"reason": "colour", "text": f"{NAMES[w]} took all {n} {PALETTE[c][0]} blocks"}
            t = self.table
            for i in range(len(t) - 2):
                tri = t[i : i + 3]
                if all(mine[c] >= need for c in tri):
                    names = ", ".join(PALETTE[c][0] for c in tri)
                    return {
                        "reason": "neighbours",
                        "text": f"{NAMES[w]} took {need} or more blocks of each of {names} "
                        f"(neighbours on the colour table)",
                    }
        s = self.majorities()
        if w is None:
            return {"reason": "majority", "text": f"The board is empty: each player holds {s[0]} colours: a draw"}
        return {
            "reason": "majority",
            "text": f"The board is empty: {NAMES[w]} holds the majority in {s[w]} of {n} colours "
            f"({NAMES[1 - w]}: {s[1 - w]})",
        }

    def _finish_by_majority(self) -> None:
        s = self.majorities()
        self._over = True
        self._winner = 0 if s[0] > s[1] else 1 if s[1] > s[0] else None

    def majorities(self) -> list[int]:
        """How many colours each player holds a majority of."""
        m = self.game.majority
        return [sum(1 for v in self.taken[p] if v >= m) for p in (0, 1)]

    def corner_mask(self) -> int:
        """Bit set of the blocks that are on a corner (square: 2 sides sharing a corner; hex: 3 in a row)."""
        occ = self.occ
        if occ == self._corner_occ:
            return self._corner
        grid = self.game.grid
        if grid.kind == "square":
            s = grid.stride
            covered = ((occ >> 1) & (occ << 1)) | ((occ >> s) & (occ << s))
            out = occ & ~covered
        else:
            e = [occ & ~((occ >> o) if o > 0 else (occ << -o)) for o in grid.offsets]
            pairs = [e[i] & e[(i + 1) % 6] for i in range(6)]
            out = 0
            for i in range(6):
                out |= pairs[i] & e[(i + 2) % 6]
        self._corner_occ, self._corner = occ, out
        return out

    def _splits(self, c: int) -> bool:
        """Whether taking the block on ``c`` would leave the board in two or more groups."""
        g = self.game
        grid = g.grid
        occ = self.occ
        nb = grid.neighbor_mask[c] & occ
        if nb & (nb - 1) == 0:  # zero or one neighbour
            return False
        seed = nb & -nb
        rest = nb ^ seed
        if rest & (rest - 1) == 0:  # two neighbours: joined next to the block?
            n1 = seed.bit_length() - 1
            n2 = rest.bit_length() - 1
            if n1 + n2 != 2 * c:  # not opposite each other
                if g.square:
                    if (occ >> (n1 + n2 - c)) & 1:  # the square diagonally between them
                        return False
                elif (n2 - n1) in g.hex_steps:  # adjacent hexes
                    return False
        elif grid.flood(seed, g.ring[c] & occ) & nb == nb:
            return False
        # one flood of the board without the block, stopped once it holds every neighbour
        return grid.flood(seed, occ & ~(1 << c), until=nb) & nb != nb

    def _takeable(self, within: int) -> list[int]:
        """Grid cells of the blocks in ``within`` that may be taken now."""
        return [c for c in bits(self.corner_mask() & within) if not self._splits(c)]

    def _has_takeable(self, within: int) -> bool:
        """Whether some block in ``within`` may be taken now (stops at the first)."""
        return any(not self._splits(c) for c in bits(self.corner_mask() & within))

    # -- protocol ----------------------------------------------------------------------
    def scores(self) -> list[float]:
        """How many colours each player holds a majority of (5+ of 9, 7+ of 13 blocks)."""
        return [float(v) for v in self.majorities()]

    def _legal_actions(self) -> list[Action]:
        if self._legal is None:
            g = self.game
            idx = g.index
            if self.taking is None:
                self._legal = [idx[c] for c in self._takeable(self.occ)]
            else:
                self._legal = [idx[c] for c in self._takeable(self.cmask[self.taking])]
                self._legal.append(g.end_action)
        return list(self._legal)

    def _illegal_reason(self, action: Action) -> str | None:
        g = self.game
        if self._legal is not None and action in self._legal:
            return None
        if self.taking is None and self._sampled == (self.occ, action):  # just checked by random_action
            return None
        if action == g.end_action:
            if self.taking is None:
                return "end: take at least one block first (passing is not allowed)"
            return None
        if not 0 <= action < g.end_action:
            return f"action {action} is not an action of nibble"
        c = g.cells[action]
        label = g.grid.label(c)
        colour = self.color[c]
        if colour < 0:
            return f"{label}: there is no block there"
        if self.taking is not None and colour != self.taking:
            return (
                f"{label}: this turn takes {PALETTE[self.taking][0]} blocks (colour {self.taking}); "
                f"this block is {PALETTE[colour][0]} (colour {colour}): all blocks of a turn are of one colour"
            )
        if not (self.corner_mask() >> c) & 1:
            if g.grid.kind == "square":
                return f"{label}: the block is not on a corner (it needs two exposed sides that share a corner)"
            return f"{label}: the block is not on a corner (it needs three consecutive exposed sides)"
        if self._splits(c):
            return f"{label}: taking this block would split the blocks left on the board into separate groups"
        return None

    def _apply(self, action: Action) -> None:
        g = self.game
        p = self.to_move
        if action == g.end_action:
            self.taking = None
            self.to_move = 1 - p
            self._legal = None
            return
        c = g.cells[action]
        colour = self.color[c]
        bit = 1 << c
        self.color[c] = -1
        self.occ ^= bit
        self.cmask[colour] ^= bit
        self.taken[p][colour] += 1
        self._legal = None
        if self._instant_win(p, colour):
            self._over, self._winner = True, p
            self.taking = None
            return
        if self.occ == 0:
            self.taking = None
            self._finish_by_majority()
            return
        more = self._takeable(self.cmask[colour])
        if more:
            self.taking = colour
            idx = g.index
            self._legal = [idx[x] for x in more]
            self._legal.append(g.end_action)
        else:
            self.taking = None
            self.to_move = 1 - p

    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A uniformly random legal action, without testing every candidate at the start of a turn.

        The blocks on a corner are tried in random order and the first that does not split
        the board is returned: uniform over the legal blocks, and usually one check.
        """
        cp = self.current_player()
        if cp < 0 or (player is not None and player != cp):
            return super().random_action(rng, player)
        if self._legal is not None:
            return self._legal[int(rng.random() * len(self._legal))]
        if self.taking is not None:
            return super().random_action(rng, player)
        cand = list(bits(self.corner_mask()))
        while cand:
            i = int(rng.random() * len(cand))
            c = cand[i]
            if not self._splits(c):
                a = self.game.index[c]
                self._sampled = (self.occ, a)
                return a
            cand[i] = cand[-1]
            cand.pop()
        raise AssertionError("a connected, non-empty board always has a block to take")  # proved in the docstring

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
            raise IllegalMove(f"{move!r} is not a move: {e}; a move is a cell label such as 'c1', or 'end'") from None
        return g.index[c]

    # -- positions ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        g = self.game
        grid = g.grid
        d: dict[str, Any] = {
            "colors": g.colors,
            "board": g.params["board"],
            "to_move": self.to_move,
            "cells": {grid.label(c): self.color[c] for c in bits(self.occ)},
            "taken": [list(self.taken[0]), list(self.taken[1])],
            "table": list(self.table),
        }
        if self.taking is not None:
            d["taking"] = self.taking
        if self.seed is not None:
            d["seed"] = self.seed
        return d

    # -- agents ------------------------------------------------------------------------
    def _instant_progress(self, p: int) -> float:
        """How close ``p`` is to an instant win, 0…1 (see the module docstring)."""
        g = self.game
        n = g.colors
        need = g.triple_need
        mine, theirs = self.taken[p], self.taken[1 - p]
        best = max((mine[c] / n for c in range(n) if theirs[c] == 0), default=0.0)
        t = self.table
        for i in range(n - 2):
            tri = (t[i], t[i + 1], t[i + 2])
            if any(theirs[c] > n - need for c in tri):
                continue
            v = min(min(mine[c], need) for c in tri) / need
            if v > best:
                best = v
        return best

    def evaluate(self, player: int) -> float:
        """Majority race plus instant-win threats, squashed by ``tanh`` (module docstring); exact when over."""
        if self._over:
            return self.returns()[player]
        g = self.game
        m = g.majority
        mine, theirs = self.taken[player], self.taken[1 - player]
        race = 0.0
        for a, b in zip(mine, theirs, strict=True):
            if a >= m:
                race += 1.0
            elif b >= m:
                race -= 1.0
            else:
                race += 0.5 * (a - b) / m
        race /= m
        t_me = self._instant_progress(player)
        t_op = self._instant_progress(1 - player)
        return math.tanh(1.2 * race + 2.0 * (t_me * t_me - t_op * t_op))

    # -- drawing -----------------------------------------------------------------------
    def _last_turn_cells(self) -> list[str]:
        """Labels of the blocks taken in the trailing run of steps of one player."""
        if not self._history:
            return []
        g = self.game
        who = self._history[-1][0]
        out: list[str] = []
        for p, a in reversed(self._history):
            if p != who:
                break
            if a != g.end_action:
                out.append(g.grid.label(g.cells[a]))
        return out[::-1]

    def render(self, player: int | None = None) -> dict[str, Any]:
        g = self.game
        grid = g.grid
        n = g.colors
        board = {
            "kind": grid.kind,
            "cells": grid_cells(grid, {c: EMPTY_FILL for c in grid.cells}),
            "unbounded": False,
            "coords": "chess" if grid.kind == "square" else "rows",
        }
        pieces = []
        for c in bits(self.occ):
            colour = self.color[c]
            name, fill = PALETTE[colour]
            pieces.append(
                piece(
                    grid.label(c),
                    None,
                    color=fill,
                    symbol=SYMBOLS[colour],
                    shape="block",
                    title=f"{name} block (colour {colour})",
                )
            )
        last = self._last_turn_cells()
        highlights = [{"cell": lab, "kind": "last"} for lab in last]
        m = g.majority
        on_board = [self.cmask[c].bit_count() for c in range(n)]
        table_view = []
        panel: list[dict[str, Any]] = []
        for pos, colour in enumerate(self.table):
            name, fill = PALETTE[colour]
            counts = [self.taken[0][colour], self.taken[1][colour]]
            owner = 0 if counts[0] >= m else 1 if counts[1] >= m else None
            table_view.append(
                {
                    "position": pos,
                    "color": colour,
                    "name": name,
                    "fill": fill,
                    "counts": counts,
                    "on_board": on_board[colour],
                    "majority": owner,
                }
            )
            panel.append({"label": f"{pos + 1}. {name}", "values": counts, "color": fill})
        panel.append({"label": "Majorities", "values": self.majorities()})
        cp = self.current_player()
        actions: list[dict[str, Any]] = []
        if cp >= 0 and (player is None or player == cp):
            for a in self._legal_actions():
                if a == g.end_action:
                    actions.append({"move": "end", "path": [], "label": "End turn"})
                else:
                    lab = grid.label(g.cells[a])
                    actions.append({"move": lab, "path": [lab]})
        status = None
        if cp >= 0 and self.taking is not None:
            status = f"{NAMES[cp]} to move, taking {PALETTE[self.taking][0]} blocks"
        elif cp == TERMINAL and self._winner is not None:
            how = "by majority of majorities" if self.occ == 0 else "at once"
            status = f"{NAMES[self._winner]} wins {how}"
        return describe(
            self,
            board=board,
            pieces=pieces,
            players=[{"name": NAMES[i], "color": PLAYER_COLORS[i]} for i in (0, 1)],
            highlights=highlights,
            panel=panel,
            actions=actions,
            last_move=last,
            status=status,
            viewer=player,
            table=table_view,
            taking=self.taking,
            thresholds={"all_of_one": n, "three_adjacent": g.triple_need, "majority": m},
        )

    def __str__(self) -> str:
        return text_diagram(self.render())
