"""The framework-neutral adapter layer: finite actions, masks, observation planes.

Every research adapter (OpenSpiel, PettingZoo, Gymnasium) drives an
:class:`AdaptedState`, which wraps a tessera :class:`~tessera.core.game.State`
and presents every game as a *sequential* game over a *finite, numbered*
action space, with an optional chance event for the deal:

* **Nume, Nymbat, Nibble**: the adapter action is the tessera integer action
  (``game.num_distinct_actions()`` of them).
* **Ikabegamá** is played on the unbounded plane, whose integer actions are
  numbered over a huge internal window (~10⁷).  The adapter plays it on a
  *declared window*: the regular hexagon of side ``window`` centred on the hex
  midway between the nests, i.e. the tessera game ``board="hexhex:window"``.
  ``window`` defaults to ``d // 2 + 4`` for nests ``d`` apart (side 7 at the
  default distance 6: 127 hexes).  A game given with ``board="hexhex:N"``
  keeps its board (``window = N``).  Action ``13·i + k`` is a growth (``k=0``) or a
  jump from direction ``k`` (``1…12``) onto the ``i``-th hex of the window
  (hexes sorted by row, then column), and ``13·cells`` is ``pass``.
* **Nelaxtam**'s turns are simultaneous and its full orders too many to
  number, so a turn becomes a sequence of *per-troop decisions*: Black decides
  for each of his living troops in increasing number, then White for his;
  each decision is one tessera token (``3>d5``, action = the tessera token
  action).  The tokens a player has chosen so far this turn are *pending*:
  they are hidden from the other player (they appear in neither his
  observation nor his information state) and the turn resolves when the last
  decision is made.  A token is offered only if the order can still be
  completed legally (distinct end squares; in the invasion distinct squares and
  at least ``by_sea`` troops on the edge), so every sequence of legal
  decisions is a legal order and every legal order is such a sequence.  In
  battle turns of ``variant="quiet"`` a whole order is one token: one
  decision per player.
* **Nibble**'s set-up is dealt from a seed.  With no fixed deal the initial
  state is a *chance node* whose ``deals`` outcomes (uniform) are the seeds
  ``0 … deals−1``; with ``deal=K`` the game starts from that deal.

Observations are AlphaZero-style planes, ``float32`` arrays of shape
``(C, H, W)``, seen from one player (``my`` / ``opponent`` planes).  Each game
declares its own beside its rules (:meth:`Game.observation_spec`,
``tessera/games/<name>/observation.py``); they are read off the player's own
:meth:`State.view`, so they never contain a hidden order; docs/research.md
lists every game's planes.  The order completion of a simultaneous turn is the
game's too (:meth:`State.decision_units`, :meth:`State.decision_choices`).
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np

from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.geometry import HEX_RING2
from tessera.core.observation import NO_DECISIONS, AxialLayout, Decisions, Layout, ObservationSpec
from tessera.core.registry import load_game

CHANCE = -1
"""``current_player()`` of an :class:`AdaptedState` while the deal is pending (OpenSpiel's value)."""

DEFAULT_DEALS = 1000
"""Chance outcomes of the deal in dealt games (the seeds ``0 … DEFAULT_DEALS−1``)."""


# -- the adapted game ---------------------------------------------------------------------------


class AdaptedGame:
    """A tessera game as a sequential game with finite numbered actions (see the module docstring).

    ``window`` (Ikabegamá only) is the side of the declared window, 0 for the
    default; ``deal`` (dealt games only) fixes the deal, ``None`` makes the deal
    a chance event with ``deals`` outcomes.
    """

    def __init__(self, game: Game, *, window: int = 0, deal: int | None = None, deals: int = DEFAULT_DEALS) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"expected a tessera Game, not {type(game).__name__}")
        self.window: AxialLayout | None
        game, self.window = game.bounded(window)
        self.game = game
        self.name = game.name
        self.num_players = game.num_players
        self.dealt = bool(game.info.deal)
        if deal is not None and not self.dealt:
            raise ValueError(f"{game.name} has no deal: deal applies to dealt games (nibble) only")
        if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
            raise ValueError(f"deals must be a positive integer, not {deals!r}")
        self.deal = deal
        self.deals = deals
        self.chance = self.dealt and deal is None
        self.simultaneous = game.info.dynamics == "simultaneous"
        probe = game.new_initial_state(seed=0)
        self._probe = probe
        self._to_tessera: list[int] | None = None
        self._from_tessera: dict[int, int] = {}
        if self.window is not None:
            self._build_window_codec(probe)
            self.num_distinct_actions = 13 * self.window.cells + 1
        else:
            self.num_distinct_actions = game.num_distinct_actions()
        self.max_game_length = self._max_length()
        self.obs: ObservationSpec = game.observation_spec()
        """The game's own observation planes (:meth:`Game.observation_spec`)."""
        self.observation_shape = self.obs.shape

    def _build_window_codec(self, probe: State) -> None:
        assert self.window is not None
        table: list[int] = []
        for q, r in self.window.hexes:
            for k in range(13):
                if k == 0:
                    move = f"{q},{r}"
                else:
                    dq, dr = HEX_RING2[k - 1]
                    move = f"{q - dq},{r - dr}>{q},{r}"
                try:
                    a = probe.string_to_action(move)
                except (IllegalMove, ValueError):
                    a = -1
                table.append(a)
        table.append(probe.string_to_action("pass"))
        self._to_tessera = table
        self._from_tessera = {a: i for i, a in enumerate(table) if a >= 0}

    def _max_length(self) -> int:
        n = self.game.max_game_length()
        if self.simultaneous:
            # one decision per living troop per player per turn (quiet battle turns: one each)
            n *= self.num_players * int(self.game.params["troops"])
        return n + (1 if self.chance else 0)

    def __str__(self) -> str:
        return str(self.game)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its description (OpenSpiel pickles states while testing serialisation).
        return (_rebuild, (str(self.game), self.deal, self.deals))

    def new_initial_state(self, seed: int | None = None) -> AdaptedState:
        """A fresh state; for a dealt game ``seed`` (or the fixed ``deal``) deals at once, else a chance node."""
        deal = seed if seed is not None else self.deal
        if self.dealt and deal is None:
            return AdaptedState(self, None)
        return AdaptedState(self, self.game.new_initial_state(seed=deal))

    # -- action codec ---------------------------------------------------------------------
    def to_tessera(self, action: int) -> int:
        """The tessera integer action of an adapter action."""
        if self._to_tessera is None:
            return action
        if not 0 <= action < len(self._to_tessera) or self._to_tessera[action] < 0:
            raise IllegalMove(f"action {action} is not an action of {self.name} on this window")
        return self._to_tessera[action]

    def from_tessera(self, action: int) -> int:
        """The adapter action of a tessera integer action (``IllegalMove`` if outside the window)."""
        if self._to_tessera is None:
            return action
        try:
            return self._from_tessera[action]
        except KeyError:
            raise IllegalMove(f"tessera action {action} lies outside the adapter's window") from None


@functools.lru_cache(maxsize=64)
def _rebuild(spec: str, deal: int | None, deals: int) -> AdaptedGame:
    return AdaptedGame(load_game(spec), deal=deal, deals=deals)


# -- the adapted state --------------------------------------------------------------------------


class AdaptedState:
    """A position of an :class:`AdaptedGame`: a tessera state plus, in Nelaxtam, the turn's pending decisions."""

    def __init__(self, game: AdaptedGame, state: State | None) -> None:
        self.game = game
        self.state = state
        """The tessera state (``None`` while the deal is pending)."""
        self.history: list[int] = []
        """Adapter actions played, chance outcomes included."""
        self.decision_history: list[tuple[int, int]] = []
        """``(player, action)`` of every decision (chance: player ``CHANCE``)."""
        self._queue: list[tuple[int, int | None]] = []
        self.rounds: dict[int, int | None] | None = None
        """Parallel play (PettingZoo's parallel env): the troop each player decides for now."""
        self._pending: list[list[int]] = [[] for _ in range(game.num_players)]
        if state is not None and game.simultaneous:
            self._start_turn()

    # -- Nelaxtam's decision queue ------------------------------------------------------------
    def _start_turn(self) -> None:
        st = self.state
        assert st is not None
        self._pending = [[] for _ in range(self.game.num_players)]
        self._queue = []
        if st.is_terminal():
            return
        for p in range(self.game.num_players):
            self._queue += [(p, unit) for unit in st.decision_units(p)]

    def deciding_troop(self) -> tuple[int, int | None] | None:
        """``(player, troop)`` of the decision to make now (Nelaxtam; troop ``None``: a whole quiet order)."""
        return self._queue[0] if self._queue else None

    def deciding_troop_of(self, player: int) -> int | None:
        """The troop ``player`` is deciding for now, if he is deciding (Nelaxtam)."""
        if self.rounds is not None:
            return self.rounds.get(player)
        head = self.deciding_troop()
        return head[1] if head is not None and head[0] == player else None

    def troop_choices(self, player: int, troop: int | None) -> list[int]:
        """``player``'s legal tokens for ``troop`` given his pending decisions (``None``: a whole quiet order)."""
        return self._troop_choices(player, troop)

    def decide(self, player: int, action: int) -> None:
        """Add a pending decision of ``player`` without the turn order (the parallel env's rounds); unchecked."""
        self._pending[player].append(action)
        self.decision_history.append((player, action))
        self.history.append(action)

    def pending(self, player: int) -> list[int]:
        """``player``'s pending tokens this turn (Nelaxtam), in troop order."""
        return list(self._pending[player])

    def _troop_choices(self, player: int, troop: int | None) -> list[int]:
        st = self.state
        assert st is not None
        return st.decision_choices(player, troop, self._pending[player])

    # -- protocol -------------------------------------------------------------------------
    def current_player(self) -> int:
        """The player to decide, ``CHANCE`` while the deal is pending, or ``TERMINAL``."""
        if self.state is None:
            return CHANCE
        if self.game.simultaneous:
            return self._queue[0][0] if self._queue else TERMINAL
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    def returns(self) -> list[float]:
        if self.state is None:
            return [0.0] * self.game.num_players
        return list(self.state.returns())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(seed, probability)`` of each deal while the deal is pending."""
        if self.state is not None:
            return []
        n = self.game.deals
        return [(k, 1.0 / n) for k in range(n)]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal adapter actions of ``player`` (default: the player to decide); chance: the seeds."""
        cp = self.current_player()
        if cp == CHANCE:
            return list(range(self.game.deals)) if player in (None, CHANCE) else []
        if cp == TERMINAL or (player is not None and player != cp):
            return []
        st = self.state
        assert st is not None
        if self.game.simultaneous:
            _, troop = self._queue[0]
            return self._troop_choices(cp, troop)
        acts = st.legal_actions()
        if self.game._to_tessera is None:
            return sorted(acts)
        return sorted(self.game.from_tessera(a) for a in acts)

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        """``int8`` mask over all adapter actions: 1 where legal for ``player``."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        acts = self.legal_actions(player) if self.current_player() != CHANCE else []
        if acts:
            mask[np.asarray(acts, dtype=np.intp)] = 1
        return mask

    def apply(self, action: int) -> None:
        """Apply the decision (or chance outcome) ``action``; ``IllegalMove`` if it is not legal."""
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            raise IllegalMove(f"an action must be an integer, not {type(action).__name__}")
        action = int(action)
        cp = self.current_player()
        if cp == TERMINAL:
            raise IllegalMove("the game is over")
        if cp == CHANCE:
            if not 0 <= action < self.game.deals:
                raise IllegalMove(f"deal {action} is not one of 0…{self.game.deals - 1}")
            self.state = self.game.game.new_initial_state(seed=action)
        elif self.game.simultaneous:
            if action not in self.legal_actions():
                raise IllegalMove(f"{self._describe(action)} is not a legal decision here")
            self._pending[cp].append(action)
            self._queue.pop(0)
            if not self._queue:
                st = self.state
                assert st is not None
                st.apply_actions(self._pending)  # type: ignore[arg-type]
                self._start_turn()
        else:
            st = self.state
            assert st is not None
            st.apply_action(self.game.to_tessera(action))
        self.history.append(action)
        self.decision_history.append((cp, action))

    def _describe(self, action: int) -> str:
        try:
            return self.action_to_string(action)
        except (IllegalMove, ValueError, IndexError):
            return f"action {action}"

    def action_to_string(self, action: int) -> str:
        """The move string (a token in Nelaxtam, ``deal K`` for a chance outcome)."""
        if self.state is None:
            return f"deal {action}"
        return self.state.action_to_string(self.game.to_tessera(int(action)))

    def string_to_action(self, move: str) -> int:
        """The adapter action of a move string (``IllegalMove`` if malformed or outside the window)."""
        if self.state is None:
            parts = move.split()
            if len(parts) == 2 and parts[0] == "deal" and parts[1].isdigit():
                return int(parts[1])
            raise IllegalMove(f"{move!r}: expected 'deal K' at the deal")
        return self.game.from_tessera(self.state.string_to_action(move))

    def clone(self) -> AdaptedState:
        new = object.__new__(AdaptedState)
        new.game = self.game
        new.state = None if self.state is None else self.state.clone()
        new.history = list(self.history)
        new.decision_history = list(self.decision_history)
        new._queue = list(self._queue)
        new.rounds = None if self.rounds is None else dict(self.rounds)
        new._pending = [list(p) for p in self._pending]
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> AdaptedState:
        """A deep copy is a :meth:`clone`: the game objects are immutable and shared
        (OpenSpiel copies a Python state's attributes with ``copy.deepcopy``)."""
        return self.clone()

    # -- observations ---------------------------------------------------------------------
    def _observer(self, player: int) -> int:
        """``player`` as a seat index; ``ValueError`` for anything that is not one of the game's players."""
        n = self.game.num_players
        if not isinstance(player, int | np.integer) or isinstance(player, bool) or not 0 <= player < n:
            raise ValueError(f"player must be a player index 0 … {n - 1}, not {player!r}")
        return int(player)

    def observation(self, player: int) -> np.ndarray:
        """``player``'s observation planes, shape ``game.observation_shape`` (zeros before the deal)."""
        player = self._observer(player)
        if self.state is None:
            return np.zeros(self.game.observation_shape, dtype=np.float32)
        decisions = NO_DECISIONS
        if self.game.simultaneous:
            decisions = Decisions(tuple(self._pending[player]), self.deciding_troop_of(player))
        return self.game.obs.observe(self.state, player, decisions)

    def observation_string(self, player: int) -> str:
        """The board as text; in Nelaxtam plus ``player``'s own pending tokens (never the opponent's)."""
        player = self._observer(player)
        if self.state is None:
            return "the deal is pending"
        text = str(self.state)
        if self.game.simultaneous and self._pending[player]:
            text += "\nmy pending decisions: " + " ".join(self.state.action_to_string(a) for a in self._pending[player])
        return text

    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen: public moves and resolved orders, plus his own pending decisions."""
        player = self._observer(player)
        if not self.game.simultaneous:
            return " ".join(str(a) for a in self.history)
        pending_start = len(self.decision_history) - sum(len(p) for p in self._pending)
        seen = [f"{p}:{a}" for p, a in self.decision_history[:pending_start]]
        mine = [str(a) for a in self._pending[player]]
        return " ".join(seen) + " | " + " ".join(mine)

    def __str__(self) -> str:
        return "the deal is pending" if self.state is None else str(self.state)


def adapt(spec: str | Game, *, window: int = 0, deal: int | None = None, deals: int = DEFAULT_DEALS) -> AdaptedGame:
    """An :class:`AdaptedGame` from a game string (``"nume(size=4)"``) or a tessera ``Game``."""
    game = load_game(spec) if isinstance(spec, str) else spec
    return AdaptedGame(game, window=window, deal=deal, deals=deals)


class FactoredMoves:
    """The adapters' ``actions="factored"``: a move of ``game`` as the short sequence of decisions of
    :func:`tessera.vector.make` (Nume: the cell, then the number; Nymbat: the piece or group, then the
    destination; in the other games a decision is a move).

    ``phase`` is 0 when the next decision starts a move, 1 after a first decision (``decided``).
    :meth:`mask` is the current decision's (``int8``, ``width`` entries) and :meth:`decide` turns a
    decision into the flat action it completes.  ``ValueError`` for a game whose moves the factoring
    does not cover (Nume with komi bidding)."""

    def __init__(self, game: AdaptedGame) -> None:
        from tessera.core.kits.stepper import contract_factoring

        self.factoring = None
        contract = game.game.kernel_contract() if not game.simultaneous else None
        if contract is not None:
            self.factoring = contract_factoring(contract, game)
        self.flat_width = game.num_distinct_actions
        self.width = self.flat_width if self.factoring is None else max(self.factoring.flat.shape)
        """The decisions (the action space's size)."""
        self.phase = 0
        self.decided = -1

    def reset(self) -> None:
        """A move starts (a new game, or an illegal decision ended the episode)."""
        self.phase, self.decided = 0, -1

    def choices(self, legal: np.ndarray | list[int], decided: int = -1) -> np.ndarray:
        """``int64``, sorted: the legal decisions given the legal flat actions ``legal`` and the first
        decision ``decided`` of the move under way (−1: the next decision starts a move)."""
        flat = np.asarray(legal, np.int64)
        f = self.factoring
        if f is None:
            return np.sort(flat)
        if decided < 0:
            heads = np.unique(f.head[flat])
            return heads[heads >= 0]
        return np.sort(f.tail[flat[f.head[flat] == decided]])

    def advance(self, decided: int, decision: int) -> tuple[int | None, int]:
        """``(move, decided)`` after the (legal) ``decision``: the flat action it completes (``None``
        after a first decision) and the first decision of the move then under way (−1 if none)."""
        f = self.factoring
        if f is None:
            return decision, -1
        if decided < 0:
            if f.single[decision]:
                return int(f.flat[decision, 0]), -1
            return None, decision
        return int(f.flat[decided, decision]), -1

    def mask(self, state: AdaptedState, player: int | None = None) -> np.ndarray:
        """``int8 (width,)``: 1 on the legal decisions of ``player`` (default: the one to move) now."""
        flat = state.legal_mask(player)
        if self.factoring is None:
            return flat
        out = np.zeros(self.width, np.int8)
        out[self.choices(np.flatnonzero(flat), self.decided)] = 1
        return out

    def decide(self, state: AdaptedState, decision: int) -> int | None:
        """The flat action ``decision`` completes (to ``state.apply``), or ``None`` after a first decision;
        ``IllegalMove`` for a decision that is not legal now (nothing changes)."""
        d = int(decision)
        if not 0 <= d < self.width or not self.mask(state)[d]:
            what = "decision" if self.factoring is not None else "action"
            raise IllegalMove(f"{decision!r} is not a legal {what} now (see the action mask)")
        move, self.decided = self.advance(self.decided, d)
        self.phase = 0 if self.decided < 0 else 1
        return move


def random_playout(state: AdaptedState, rng: random.Random, max_steps: int | None = None) -> AdaptedState:
    """Play random legal decisions (and deals) until the end or ``max_steps``; returns ``state``."""
    steps = 0
    while not state.is_terminal() and (max_steps is None or steps < max_steps):
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return state


__all__ = [
    "CHANCE",
    "DEFAULT_DEALS",
    "SIMULTANEOUS",
    "TERMINAL",
    "AdaptedGame",
    "AdaptedState",
    "AxialLayout",
    "FactoredMoves",
    "Layout",
    "ObservationSpec",
    "adapt",
    "random_playout",
]
