"""Nymbat's state: a position as one ``int32`` array played by the kernels, read back field by field,
with its steps, resignations, random play, notation, position dictionary and evaluation."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import GAME_OVER, Action, IllegalMove, RolloutResult, TurnState, no_such_action
from tessera.core.geometry import bits
from tessera.core.kernels import rng_state
from tessera.core.render import text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.board import _H, BRING, CELLS, GRID, INDEX, LABEL, MOVE, NUM_ACTIONS, PENALTY, RED, RESIGN, N
from tessera.games.nymbat.notation import parse_step, step_text
from tessera.games.nymbat.refusals import refusal

if TYPE_CHECKING:
    from tessera.games.nymbat.game import NymbatGame


_NO_STEPS = np.empty(0, np.int64)
_NO_STEPS.flags.writeable = False
"""No legal step: the ``legal_now`` argument of :func:`_k.apply_step` when no list is known, and the
legal steps of a position over or of a player not to move."""


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
        self._next: np.ndarray | None = None
        """The legal steps the last :func:`_k.apply_step` listed for this position (never changed in
        place, shared by clones); ``None`` when the array was changed otherwise."""

    def _copy_from(self, other: NymbatState) -> None:
        self.n = other.n
        self.L = other.L
        self.s = other.s.copy()
        self.to_move = other.to_move
        self._over = other._over
        self._winner = other._winner
        self._next = other._next

    def _sync(self, status: int) -> None:
        """Mirror the kernels' packed header (``kernels.status``)."""
        self.to_move = status & 3
        self._over = bool(status & 4)
        w = (status >> 3) - 1
        self._winner = w if w >= 0 else None
        self._next = None

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
        """``player`` gives up, on his turn or not (docs/rules/nymbat.md four players; issue 16).

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
            raise IllegalMove(GAME_OVER)
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise IllegalMove(f"resign: player must be 0 to {self.n - 1}, not {player!r}")
        if self.resigned[player]:
            who = name_text(self.L.names[player])
            raise IllegalMove(Text("refusal.already_resigned", f"resign: {who} has already resigned", name=who))
        self._sync(_k.resign(self.s, self.game.geo, player))
        self._history.append((player, RESIGN))

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended (see :meth:`State.outcome`): the last player left, the home row, the empty
        board, or the safeguard."""
        if not self._over:
            return None
        w = self._winner
        names = self.L.names
        if w is None:
            n = self.game.max_turns
            return outcome(
                "safeguard", Text("result.safeguard_turns", f"Draw: the {n}-turn safeguard was reached", n=n)
            )
        name = name_text(names[w])
        resigned = self.resigned
        if resigned.count(False) == 1 and any(resigned):
            return outcome(
                "resign", Text("result.others_resigned", f"Every other player resigned: {name} wins", name=name)
            )
        target, o = self.L.target[w], self.L.opposite[w]
        own = self.own
        if own[w] & target and not own[o] & target:
            other = name_text(names[o])
            return outcome(
                "home_row",
                Text(
                    "result.home_row",
                    f"{name} has a piece on {other}'s home row and {other} has none there: {name} wins",
                    name=name,
                    other=other,
                ),
            )
        return outcome(
            "empty_board",
            Text(
                "result.empty_board",
                f"The board and every reserve are empty: {name} took the last turn and wins",
                name=name,
            ),
        )

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

    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """``State.legal_actions_array``: the kernel's read-only array of legal steps (``int64``, no copy)."""
        if type(self) is not NymbatState:  # a view with its own legal steps: the generic path
            return super().legal_actions_array(player)
        if self._over or (player is not None and player != self.to_move):
            return _NO_STEPS
        nxt = self._next  # the kernels' arrays are read-only already
        return _k.legal(self.s, self.game.geo) if nxt is None else nxt

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """``State.legal_actions`` in one step: the kernel's list, without the generic dispatch."""
        if type(self) is not NymbatState:  # a view with its own legal steps (an agent's army): the generic path
            return super().legal_actions(player)
        if self._over or (player is not None and player != self.to_move):
            return []
        nxt = self._next
        if nxt is None:
            return _k.legal(self.s, self.game.geo).tolist()  # type: ignore[no-any-return]
        return nxt.tolist()  # type: ignore[no-any-return]

    def _illegal_reason(self, action: Action) -> str | None:
        if action == RESIGN:
            return Text(
                "refusal.nymbat.resign_step",
                "resign: resigning is not a step of a turn; the server (or a program) calls state.resign(player)",
            )
        if not 0 <= action < NUM_ACTIONS:
            return Text("refusal.nymbat.no_such_action", f"action {action} is not a Nymbat action", action=str(action))
        code = _k.check(self.s, self.game.geo, action)
        return self._reason(code, action) if code else None

    def _reason(self, code: int, action: Action) -> str:
        """The sentence for the kernels' refusal ``code`` of ``action`` (:func:`.refusals.refusal`)."""
        return refusal(self, code, action)

    def _apply(self, action: Action) -> None:
        self._sync(_k.apply(self.s, self.game.geo, action, False))

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move, checked (one kernel call: check and apply)."""
        if type(self) is not NymbatState:  # a view adding its own checks (an agent's army): the generic path
            super().apply_action(action)
            return
        if self._over:
            raise IllegalMove(GAME_OVER)
        if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise IllegalMove(no_such_action(action, self.game.name))
        p = self.to_move
        nxt = self._next
        status, legal = _k.apply_step(self.s, self.game.geo, int(action), _NO_STEPS if nxt is None else nxt)
        if status < 0:
            raise IllegalMove(self._reason(-status, action))
        self.to_move = status & 3  # _sync inlined: the game was not over, so no winner yet
        if status & 4:
            self._over = True
            w = (status >> 3) - 1
            self._winner = w if w >= 0 else None
            self._next = None
        else:
            self._next = legal
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
        return int(_k.random_step(self.s, self.game.geo, rng.getrandbits(63)))

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

    # -- notation (notation.py) --------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        return step_text(action)

    def string_to_action(self, move: str) -> Action:
        return parse_step(move)

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

    # -- drawing (render.py) ---------------------------------------------------------
    render_seat_fields = ("viewer", "actions", "setups")
    """The render's fields that depend on the seat: the actions and the first turn's set-ups are the mover's."""

    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: a spectator)."""
        from tessera.games.nymbat.render import render

        return render(self, player)

    def render_shared(self) -> dict[str, Any]:
        """The render's fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
        from tessera.games.nymbat.render import render_shared

        return render_shared(self)

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The render's fields of ``player``'s seat (:meth:`tessera.core.game.State.render_seat`)."""
        from tessera.games.nymbat.render import render_seat

        return render_seat(self, player, actions=actions)

    def __str__(self) -> str:
        return text_diagram(self.render())
