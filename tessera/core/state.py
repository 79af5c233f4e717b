"""A position of a game: :class:`State`, the public API on top of a game's few hooks (see
:mod:`tessera.core.game`), and :class:`TurnState` for games that take turns. Both names are read from
:mod:`tessera.core.game` too."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from tessera.core.moves import (
    GAME_OVER,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    IllegalMove,
    Move,
    RolloutResult,
    no_such_action,
    not_your_turn,
)
from tessera.core.texts import Text, name_text
from tessera.core.texts import outcome as keyed_outcome

if TYPE_CHECKING:
    from tessera.core.game import Game

S = TypeVar("S", bound="State")


class State(ABC):
    """A position plus the moves that led to it.

    The base class implements the public API (docs/rules/ and docs/python-api.md) on top of a
    few hooks; see the module docstring.
    """

    game: Game
    _history: list[tuple[int, Action]]

    def __init__(self, game: Game) -> None:
        self.game = game
        self._history = []

    # -- hooks -------------------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The player to move, ``SIMULTANEOUS`` or ``TERMINAL``."""

    @abstractmethod
    def _legal_actions(self) -> list[Action]:
        """Legal actions of the player to move (state not terminal)."""

    def _illegal_reason(self, action: Action) -> str | None:
        """``None`` when ``action`` is legal now, else why not.  Override for speed."""
        if action in self._legal_actions():
            return None
        move = self.action_to_string(action)
        return Text("refusal.not_legal", f"{move} is not a legal move here", move=move)

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Apply a legal action of the player to move."""

    @abstractmethod
    def action_to_string(self, action: Action) -> Move:
        """The move string of ``action``."""

    @abstractmethod
    def string_to_action(self, move: Move) -> Action:
        """Parse a move; ``IllegalMove`` says what is malformed."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """+1 win, -1 loss, 0 draw per player; all 0.0 while not terminal."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """JSON-able position dictionary (docs/rules/README.md)."""

    @abstractmethod
    def _copy_from(self, other: Any) -> None:
        """Copy ``other``'s position into this fresh object (for ``clone``)."""

    @abstractmethod
    def render(self, player: int | None = None) -> dict[str, Any]:
        """The render description (docs/render.md) as seen by ``player`` (None: spectator)."""

    render_seat_fields: ClassVar[tuple[str, ...]] = ("viewer", "actions")
    """The top-level fields of :meth:`render` that depend on who looks (the seat); every other field
    is the same for every viewer of a position (:meth:`render_shared`).  A game whose render shows a
    seat something more (Nelaxtam's own order, a setup list) names those fields too."""

    def render_shared(self) -> dict[str, Any]:
        """The fields of :meth:`render` every viewer of this position sees alike (all but
        :attr:`render_seat_fields`): a server renders them once per position and adds each
        viewer's :meth:`render_seat`.  Drawn from this position as it is: for a game with secrets,
        call it on the spectator's :meth:`view` (nothing hidden then reaches any seat).  The
        result is shared by the viewers: read it, never change it in place.

        This default renders the spectator's picture and drops the seat's fields; a game
        overrides it to skip what it drops (the list of legal moves)."""
        render = self.render(None)
        for field in self.render_seat_fields:
            render.pop(field, None)
        return render

    def render_seat(self, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        """The fields of :meth:`render` that depend on the seat (:attr:`render_seat_fields`) for
        ``player`` (None: a spectator), so that ``{**s.render_shared(), **s.render_seat(p)}``
        equals ``s.render(p)`` (the shared part from the spectator's :meth:`view` of a game with
        secrets, the seat's from ``player``'s).  ``actions=False``: the action list is ``[]``,
        never computed (a server's spectators, a finished game).

        This default renders the whole picture; a game overrides it to build only these fields."""
        render = self.render(player)
        part = {field: render[field] for field in self.render_seat_fields if field in render}
        if not actions:
            part["actions"] = []
        return part

    # -- public API --------------------------------------------------------------------
    def legal_actions(self, player: int | None = None) -> list[Action]:
        """Legal integer actions of ``player`` (default: the player to move)."""
        cp = self.current_player()
        if cp == TERMINAL or (player is not None and player != cp):
            return []
        return self._legal_actions()

    def legal_actions_array(self, player: int | None = None) -> np.ndarray:
        """:meth:`legal_actions` as a read-only 1-D numpy integer array (ascending), for loops that want
        numpy: a game with kernels hands over its kernels' own array (``int32`` or ``int64``) without
        building a Python list; it is valid until the state changes (copy what you keep).  This
        default converts the list (``int64``)."""
        out = np.array(self.legal_actions(player), dtype=np.int64)
        out.flags.writeable = False
        return out

    def legal_moves(self, player: int | None = None) -> list[Move]:
        """Sorted move strings legal now for ``player`` (default: the player to move)."""
        return sorted(self.action_to_string(a) for a in self.legal_actions(player))

    def is_legal(self, move: Move, player: int | None = None) -> bool:
        """Whether ``move`` is legal now for ``player``; never changes the state."""
        try:
            self._check_move(move, player)
        except IllegalMove:
            return False
        return True

    def why_illegal(self, move: Move, player: int | None = None) -> str | None:
        """``None`` when ``move`` is legal, else the reason ``play`` would give."""
        try:
            self._check_move(move, player)
        except IllegalMove as e:
            return e.text
        return None

    def _check_move(self, move: Move, player: int | None) -> Action:
        if not isinstance(move, str):
            kind = type(move).__name__
            raise IllegalMove(Text("refusal.move_type", f"a move must be a string, not {kind}", kind=kind))
        cp = self.current_player()
        if cp == TERMINAL:
            raise IllegalMove(GAME_OVER)
        if cp == SIMULTANEOUS:
            raise IllegalMove(Text("refusal.simultaneous_play", "all players move at once here: use play_joint"))
        if player is not None and player != cp:
            raise IllegalMove(not_your_turn(cp, player))
        action = self.string_to_action(move)
        reason = self._illegal_reason(action)
        if reason is not None:
            raise IllegalMove(reason)
        return action

    def play(self, move: Move) -> None:
        """Apply one move of the player to move; ``IllegalMove`` leaves the state as it was."""
        action = self._check_move(move, None)
        player = self.current_player()
        self._apply(action)
        self._history.append((player, action))

    def apply_action(self, action: Action) -> None:
        """Apply an integer action of the player to move (checked like ``play``)."""
        cp = self.current_player()
        if cp == TERMINAL:
            raise IllegalMove(GAME_OVER)
        if cp == SIMULTANEOUS:
            raise IllegalMove(Text("refusal.simultaneous_actions", "all players move at once here: use apply_actions"))
        if not isinstance(action, int) or not 0 <= action < self.game.num_distinct_actions():
            raise IllegalMove(no_such_action(action, self.game.name))
        reason = self._illegal_reason(action)
        if reason is not None:
            raise IllegalMove(reason)
        self._apply(action)
        self._history.append((cp, action))

    def apply_legal(self, action: Action) -> None:
        """Apply an action already known to be legal (from ``legal_actions`` or
        ``random_action`` of this very state) without checking it again.

        For search and rollouts at sequential nodes; anything else calls
        ``apply_action``, which checks.
        """
        player = self.current_player()
        self._apply(action)
        self._history.append((player, action))

    def play_joint(self, moves: Sequence[Move]) -> None:
        """At a simultaneous node: one move per player, all or nothing."""
        raise IllegalMove(f"{self.game.name} has no simultaneous moves: use play")

    def apply_actions(self, actions: Sequence[Action]) -> None:
        """At a simultaneous node: one action per player, all or nothing."""
        raise IllegalMove(f"{self.game.name} has no simultaneous moves: use apply_action")

    def winner(self) -> int | None:
        """The winning player, or ``None`` for a draw or a game not over."""
        if not self.is_terminal():
            return None
        r = self.returns()
        best = max(r)
        if best <= 0 or r.count(best) != 1:
            return None
        return r.index(best)

    def outcome(self) -> dict[str, Any] | None:
        """Why the game ended: ``{"reason", "text", "key", "args"}``, ``None`` while it goes on.

        ``reason`` is a short machine-readable word (``"nest"``, ``"majority"``,
        ``"safeguard"`` …); ``text`` is a sentence naming the rule that decided,
        e.g. ``"Second took all 9 red blocks"``, and ``key`` and ``args`` the same
        sentence for a translation (:func:`tessera.core.texts.outcome`).  Games
        override this; the default names only the winner.
        """
        if not self.is_terminal():
            return None
        w = self.winner()
        names = self.game.info.player_names
        if w is None:
            return keyed_outcome("rules", Text("status.draw", "Draw"))
        return keyed_outcome("rules", Text("status.wins", f"{names[w]} wins", name=name_text(names[w])))

    def scores(self) -> list[float] | None:
        """Per-player scores where the game has them, else ``None``."""
        return None

    # -- hidden information and resignation -------------------------------------------
    def view(self: S, player: int | None, sealed: Mapping[int, Move] | None = None) -> S:
        """A copy of the position as ``player`` may see it (``None``: a spectator).

        The one place where a game hides what a player must not know: the server
        renders from it, agents search from it, records and adapters read it.
        ``sealed`` holds orders already sealed at a simultaneous node but kept
        outside the state (the server's storage), by player; the view carries them,
        each player's own in full and the others' hidden.  A game of perfect
        information (and no sealed orders) returns a plain copy; a game with secrets
        overrides this (Nelaxtam).
        """
        if sealed:
            raise ValueError(f"{self.game.name} has no sealed orders")
        return self.clone()

    def resign_plays_on(self) -> bool:
        """Whether :meth:`resign` is a rule here: a player may resign and the others play on.

        False by default (a resignation ends a two-player game: the caller scores it as
        a forfeit); four-player Nymbat overrides it.
        """
        return False

    def resign(self, player: int) -> None:
        """``player`` resigns and the others play on (only where :meth:`resign_plays_on`).

        Recorded in ``history()`` as ``(player, "resign")`` and replayed by this
        method (:func:`tessera.core.records.play_stored`).  ``IllegalMove`` where the
        rules have no such resignation; the state is then unchanged.
        """
        raise IllegalMove(f"{self.game.name}: a resignation ends this game; the others do not play on without him")

    def history(self) -> list[tuple[int, Move]]:
        """``(player, move)`` pairs played since the initial state."""
        return [(p, self.action_to_string(a)) for p, a in self._history]

    def move_number(self) -> int:
        """How many moves (steps) have been played; the server's stale-move check."""
        return len(self._history)

    def clone(self: S) -> S:
        """An independent deep copy."""
        new = object.__new__(type(self))
        new.game = self.game
        new._history = list(self._history)
        new._copy_from(self)
        return new

    def random_action(self, rng: random.Random, player: int | None = None) -> Action:
        """A uniformly random legal action (games may override with a faster sampler).

        ``IllegalMove`` when the game is over or ``player`` is not to move.
        """
        actions = self.legal_actions(player)
        if not actions:
            cp = self.current_player()
            raise IllegalMove(
                GAME_OVER
                if cp == TERMINAL
                else Text("refusal.no_move_now", f"player {player} has no move now", player=str(player))
            )
        return rng.choice(actions)

    def decision_units(self, player: int) -> list[int | None]:
        """At a simultaneous node: the decisions that make up ``player``'s order, for a program
        that plays an order one decision at a time (the research adapters).

        Each unit is decided by one integer action (:meth:`decision_choices`); ``None`` is the
        whole order as one decision, the default when ``player`` has legal actions.  A game
        whose orders are too many to number overrides both (Nelaxtam: one unit per troop).
        """
        return [None] if self.legal_actions(player) else []

    def decision_choices(self, player: int, unit: int | None, pending: Sequence[Action]) -> list[Action]:
        """The sorted actions ``player`` may choose for ``unit`` after his ``pending`` choices for the
        earlier units of :meth:`decision_units`, such that his order can still be completed legally."""
        return sorted(self.legal_actions(player))

    def random_move(self, rng: random.Random, player: int | None = None) -> Move:
        """A random legal move string of ``player``.

        At a simultaneous node a game whose orders are not enumerated overrides
        this to build a random legal order (Nelaxtam); tests and bots use it.
        """
        return self.action_to_string(self.random_action(rng, player))

    def rollouts(self, n: int, seed: int, max_plies: int | None = None) -> RolloutResult:
        """Play ``n`` random games from this position; the state itself is not changed.

        Each rollout plays uniformly random steps (``random_action``; at a
        simultaneous node each player's ``random_move``) until the game ends or
        ``max_plies`` steps were played (``None``: to the end), and is scored by
        ``returns()`` if the game ended, else by ``evaluate``.  In a two-player
        game the values are taken as zero-sum: ``evaluate(0)`` is computed and
        player 1 gets its negation (the assumption MCTS makes).  Same ``seed``,
        same result.

        This is the Python reference; a game with a compiled kernel overrides it
        with one call that plays all ``n`` games (docs/engine.md).
        """
        if n < 0:
            raise ValueError(f"rollouts: n must be >= 0, not {n!r}")
        if max_plies is not None and max_plies < 0:
            raise ValueError(f"rollouts: max_plies must be >= 0 or None, not {max_plies!r}")
        rng = random.Random(seed)
        players = self.game.num_players
        totals = [0.0] * players
        plies = 0
        for _ in range(n):
            state = self.clone()
            steps = 0
            while not state.is_terminal() and (max_plies is None or steps < max_plies):
                cp = state.current_player()
                if cp == SIMULTANEOUS:
                    state.play_joint([state.random_move(rng, p) for p in range(players)])
                else:
                    state.apply_legal(state.random_action(rng))
                steps += 1
            plies += steps
            if state.is_terminal():
                values = state.returns()
            elif players == 2:
                v0 = state.evaluate(0)
                values = [v0, -v0]
            else:
                values = [state.evaluate(p) for p in range(players)]
            for p in range(players):
                totals[p] += values[p]
        return RolloutResult(n, tuple(totals), plies)

    def evaluate(self, player: int) -> float:
        """Heuristic value in [-1, 1] for ``player`` (games override; used by agents)."""
        if self.is_terminal():
            return self.returns()[player]
        return 0.0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game} move {self.move_number()}>"


class TurnState(State):
    """A two-player game with alternating turns, decided by a winner or a draw.

    Subclasses keep ``to_move`` (player index), ``_over`` (bool) and
    ``_winner`` (player index, or ``None`` for a draw) up to date.
    """

    to_move: int
    _over: bool
    _winner: int | None

    def current_player(self) -> int:
        return TERMINAL if self._over else self.to_move

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> list[float]:
        if not self._over or self._winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self._winner == 0 else [-1.0, 1.0]
