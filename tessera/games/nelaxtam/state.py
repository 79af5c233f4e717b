"""Nelaxtam's state: the position as one ``int32`` array, the sealed orders, a turn resolved, the
position written out; the order language it inherits is in :mod:`tessera.games.nelaxtam.orders`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import GAME_OVER, SIMULTANEOUS, TERMINAL, Action, IllegalMove, Move, RolloutResult
from tessera.core.kernels import rng_state
from tessera.core.render import text_diagram
from tessera.core.texts import Text, name_text, outcome
from tessera.games.nelaxtam import kernels as _k
from tessera.games.nelaxtam.constants import BLACK, DESTROY, HIDDEN, MOVE, NAMES, OVER, PHASES, PLACE
from tessera.games.nelaxtam.orders import NelaxtamOrders
from tessera.games.nelaxtam.refusals import _joined, _order_of

if TYPE_CHECKING:
    from tessera.games.nelaxtam.game import NelaxtamGame


class NelaxtamState(NelaxtamOrders):
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
    render_seat_fields = ("viewer", "actions", "highlights", "order")
    """The render's fields that depend on the seat: the invasion's landing edges and the order builder."""

    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description for ``player`` (``None``: a spectator); never the opponent's order."""
        from tessera.games.nelaxtam.render import render

        return render(self, player)

    def render_shared(self) -> dict[str, Any]:
        """The render's fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
        from tessera.games.nelaxtam.render import render_shared

        return render_shared(self)

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The render's fields of ``player``'s seat (:meth:`tessera.core.game.State.render_seat`)."""
        from tessera.games.nelaxtam.render import render_seat

        return render_seat(self, player, actions=actions)

    def __str__(self) -> str:
        """A text diagram: ``x``/``o`` territory, ``.`` removed, ``X3``/``O3`` troops; rank ``size`` on top."""
        return text_diagram(self.render())
