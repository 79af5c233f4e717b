"""Nelaxtam's order language, the part of :class:`~tessera.games.nelaxtam.state.NelaxtamState` that
reads, checks and offers orders: tokens and orders in notation, an order checked (one kernel call),
each troop's legal tokens, an order built one troop at a time (the research adapters), random orders."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import GAME_OVER, Action, IllegalMove, Move, State, no_such_action
from tessera.core.geometry import bits
from tessera.core.kernels import rng_state
from tessera.core.texts import Text
from tessera.games.nelaxtam import kernels as _k
from tessera.games.nelaxtam.constants import BATTLE, DESTROY, HOLD, INVASION, MOVE, OVER, PLACE, TOKEN_RE
from tessera.games.nelaxtam.refusals import _order_message, no_player

if TYPE_CHECKING:
    from tessera.games.nelaxtam.game import NelaxtamGame


class NelaxtamOrders(State):
    """The orders of a Nelaxtam position (the base of :class:`~tessera.games.nelaxtam.state.NelaxtamState`,
    which holds the position these methods read)."""

    game: NelaxtamGame
    a: np.ndarray
    """The position (layout in :mod:`tessera.games.nelaxtam.kernels`)."""
    phase: str
    """``"invasion"``, ``"battle"`` or ``"over"``."""

    def _troops(self, player: int) -> list[int]:
        """``player``'s troops' squares (square indices, ``-1`` dead or not landed), by troop."""
        t = self.game.ntroops
        start = self.game.num_squares + player * t
        cells: list[int] = self.a[start : start + t].tolist()
        return cells

    def living(self, player: int) -> list[int]:
        """Numbers (1-based) of ``player``'s troops on the board."""
        return [t + 1 for t, q in enumerate(self._troops(player)) if q >= 0]

    def troop_cells(self, player: int) -> dict[int, str]:
        """``{troop: square}`` of ``player``'s living troops."""
        lab = self.game.sq_label
        return {t + 1: lab[q] for t, q in enumerate(self._troops(player)) if q >= 0}

    def _quiet_battle(self) -> bool:
        return self.phase == BATTLE and self.game._params["variant"] == "quiet"

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
        m = TOKEN_RE.fullmatch(tok)
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
