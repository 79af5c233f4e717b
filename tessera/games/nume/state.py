"""Nume's state: the board and its groups in one ``int32`` array changed by the kernels, the komi and who
holds which colour; its moves, notation, position dictionary, groups and evaluation."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import (
    TERMINAL,
    Action,
    IllegalMove,
    RolloutResult,
    State,
    no_such_action,
)
from tessera.core.kernels import rng_state
from tessera.core.render import text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nume import kernels as kern
from tessera.games.nume.constants import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    COLOUR_WORDS,
    FIRST_MOVE_EDGE,
    PLAY,
    WHITE,
)
from tessera.games.nume.kernels import GID, GPRICE, GSIZE, HEAD, NEMPTY, NUM, STONE

if TYPE_CHECKING:
    from tessera.games.nume.game import NumeGame


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

    def render_shared(self) -> dict[str, Any]:
        """The render's fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
        from tessera.games.nume.render import render_shared

        return render_shared(self)

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The render's fields of ``player``'s seat (:meth:`tessera.core.game.State.render_seat`)."""
        from tessera.games.nume.render import render_seat

        return render_seat(self, player, actions=actions)

    def __str__(self) -> str:
        """A text diagram: ``B5`` a Black stone numbered 5, ``W`` an unnumbered White stone, ``.`` empty."""
        width = 3 if self.game.cells < 100 else 4
        return text_diagram(self.render(), cell_width=width)
