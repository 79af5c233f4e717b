"""OpenSpiel: ``import tessera.adapters.openspiel`` registers every tessera game with pyspiel.

>>> import pyspiel, tessera.adapters.openspiel
>>> game = pyspiel.load_game("tessera_nume(size=4)")
>>> state = game.new_initial_state()

Each game is registered as ``tessera_<name>`` (``tessera_nume``,
``tessera_ikabegama``, ``tessera_nibble``, ``tessera_nymbat``,
``tessera_nelaxtam``), taking the tessera parameters (docs/rules/README.md) plus:

* a parameter whose tessera default is derived from the others (Nume's
  ``size``) is ``0`` for "the derived default";
* ``tessera_ikabegama``: ``window`` — the side of the declared hexagonal
  window the plane game is played on (0: ``distance // 2 + 4``), see
  :mod:`tessera.adapters.core`;
* ``tessera_nibble``: ``deal`` (``-1``, default: the deal is a chance node
  with ``deals`` equally likely seeds; ``K >= 0``: that deal, no chance node)
  and ``deals`` (default 1000);
* every game: ``actions`` — ``"flat"`` (default: an action is a move) or ``"factored"``: a move of
  Nume or Nymbat is two decisions of the same player (Nume: the cell, then the number; Nymbat: the
  piece or group, then the destination; :class:`~tessera.adapters.core.FactoredMoves`), made at an
  intermediate decision node: ``current_player()`` stays the mover's, ``legal_actions()`` are the
  decisions legal now (``num_distinct_actions`` is the decisions' count) and ``history()`` records
  each decision.  The observation planes are the position's; the first decision of the move under
  way is in ``state.decided()``, the observation string and the information state.  The other games
  are unchanged (one decision a move); Nume with komi bidding has no factoring (``ValueError``).

Every game is SEQUENTIAL (Nelaxtam as per-troop decisions, IMPERFECT_INFORMATION:
pending decisions are hidden), ZERO_SUM (every game's returns sum to 0), TERMINAL rewards,
``legal_actions(p)`` / ``legal_actions_mask(p)`` answering every player id as OpenSpiel's
C++ games do (the chance player's outcomes at a chance node, nothing for another id), with
``observation_tensor`` (AlphaZero-style planes, shape ``observation_shape``),
``observation_string`` and ``information_state_string``.  ``serialize`` /
``game.deserialize_state`` use OpenSpiel's default (the action history).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from tessera.adapters.core import CHANCE, DEFAULT_DEALS, AdaptedGame, AdaptedState, FactoredMoves
from tessera.core.game import TERMINAL, IllegalMove
from tessera.core.registry import game_class, list_games, load_game

PREFIX = "tessera_"
"""Prefix of the registered OpenSpiel short names."""

ACTIONS = ("flat", "factored")
"""The values of every game's ``actions`` parameter (the first is the default)."""


def _extra(name: str) -> dict[str, Any]:
    """The adapter's own parameters of game ``name``: ``window`` on a board that can be unbounded
    (:meth:`tessera.core.game.Game.bounded`), ``deal`` and ``deals`` in a dealt game."""
    info = game_class(name).info
    extra: dict[str, Any] = {}
    if info.board_kind == "hexplane":
        extra["window"] = 0
    if info.deal:
        extra.update(deal=-1, deals=DEFAULT_DEALS)
    return extra


def _spec_defaults(name: str) -> dict[str, Any]:
    info = game_class(name).info
    spec: dict[str, Any] = {}
    for p in info.params:
        if p.default is None:
            spec[p.name] = p.kind()  # 0 / "" / False: "the derived default"
        else:
            spec[p.name] = p.default
    spec.update(_extra(name))
    spec["actions"] = ACTIONS[0]
    return spec


def _max_players(name: str) -> tuple[int, int]:
    info = game_class(name).info
    for p in info.params:
        if p.name == "players" and p.choices:
            nums = [int(c) for c in p.choices]
            return min(nums), max(nums)
    return info.num_players, info.num_players


def game_type(name: str) -> pyspiel.GameType:
    """The ``pyspiel.GameType`` of tessera game ``name``."""
    info = game_class(name).info
    lo, hi = _max_players(name)
    hidden = info.dynamics == "simultaneous"
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"tessera {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if info.deal else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if hidden
            else pyspiel.GameType.Information.PERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_spec_defaults(name),
    )


def _adapted_from_params(name: str, params: dict[str, Any]) -> AdaptedGame:
    spec = _spec_defaults(name)
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ValueError(f"{PREFIX}{name}: unknown parameter {unknown[0]!r}; accepted: {', '.join(spec)}")
    values = dict(spec, **params)
    del values["actions"]
    extra = {k: values.pop(k) for k in _extra(name)}
    info = game_class(name).info
    for p in info.params:
        if p.default is None and values[p.name] == p.kind():
            del values[p.name]
    game = load_game(name, **values)
    kwargs: dict[str, Any] = {}
    if "window" in extra:
        kwargs["window"] = int(extra["window"])
    if "deal" in extra:
        deal = int(extra["deal"])
        kwargs["deal"] = None if deal < 0 else deal
        kwargs["deals"] = int(extra["deals"])
    return AdaptedGame(game, **kwargs)


class TesseraGame(pyspiel.Game):
    """A tessera game as an OpenSpiel Python game."""

    def __init__(self, name: str, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.adapted = _adapted_from_params(name, params)
        ad = self.adapted
        actions = params.get("actions", ACTIONS[0])
        if actions not in ACTIONS:
            raise ValueError(f"{PREFIX}{name}: actions must be 'flat' or 'factored', not {actions!r}")
        self.moves: FactoredMoves | None = None
        """The decisions of a move (``actions="factored"`` in a game whose moves are factored), or ``None``."""
        if actions == "factored":
            moves = FactoredMoves(ad)
            self.moves = moves if moves.factoring is not None else None
        # at most two decisions a move
        length = ad.max_game_length if self.moves is None else 2 * ad.max_game_length
        info = pyspiel.GameInfo(
            num_distinct_actions=ad.num_distinct_actions if self.moves is None else self.moves.width,
            max_chance_outcomes=ad.deals if ad.chance else 0,
            num_players=ad.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=length,
        )
        super().__init__(game_type(name), info, params)

    def new_initial_state(self) -> TesseraState:
        """A fresh state (a chance node first in a dealt game without a fixed deal)."""
        return TesseraState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The observation-tensor observer, or (perfect recall) the information-state observer."""
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if perfect_recall and not self.adapted.simultaneous:
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        return TesseraObserver(self.adapted, perfect_recall, params)

    def observation_shape(self) -> list[int]:  # type: ignore[override]
        """``[planes, height, width]`` of ``observation_tensor``."""
        return list(self.adapted.observation_shape)


class TesseraState(pyspiel.State):
    """An OpenSpiel state wrapping an :class:`~tessera.adapters.core.AdaptedState` (``.adapted``)."""

    def __init__(self, game: TesseraGame) -> None:
        super().__init__(game)
        self.adapted: AdaptedState = game.adapted.new_initial_state()
        self.moves = game.moves
        """The game's factoring of moves into decisions (``actions="factored"``), or ``None``."""
        self._decided = -1

    # pyspiel copies a Python state's attributes with copy.deepcopy, which clones the
    # adapted state (AdaptedState.__deepcopy__), sharing the (immutable) game objects.
    def current_player(self) -> int:
        cp = self.adapted.current_player()
        if cp == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if cp == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return cp

    def decided(self) -> int:
        """The first decision of the move under way (``actions="factored"``), −1 when the next decision
        starts a move (always in flat mode)."""
        return self._decided

    def _legal_actions(self, player: int) -> list[int]:
        return self.legal_actions(player)

    # pyspiel's bridge answers a chance node itself, with the chance outcomes for *any* player
    # argument, and then writes them into a mask of ``num_distinct_actions`` entries: with more
    # outcomes than actions (Nibble's 1,000 deals, 82 actions) ``legal_actions_mask(0)`` writes
    # past its end and the process dies.  These two answer as OpenSpiel's C++ games do
    # (``State::LegalActions(player)`` / ``LegalActionsMask(player)``, e.g. ``kuhn_poker``).
    def legal_actions(self, player: int | None = None) -> list[int]:  # type: ignore[override]
        """The legal actions of ``player`` (default: the player to move; at a chance node the
        outcomes, for the chance player only); ``[]`` for any other player and at the end."""
        cp = self.current_player()
        if player is None:
            player = cp
        if self.is_terminal() or int(player) != cp:
            return []
        if self.moves is None:  # (no game with a chance node has factored moves)
            return self.adapted.legal_actions(cp)
        return self.moves.choices(self.adapted.legal_actions(cp), self._decided).tolist()

    def legal_actions_mask(self, player: int | None = None) -> list[int]:  # type: ignore[override]
        """0/1 per action of ``player`` (default: the player to move): ``max_chance_outcomes``
        entries for the chance player, ``num_distinct_actions`` for any other."""
        if player is None:
            player = self.current_player()
        game = self.get_game()
        chance = int(player) == int(pyspiel.PlayerId.CHANCE)
        mask = [0] * (game.max_chance_outcomes() if chance else game.num_distinct_actions())
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.adapted.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.moves is None:
            self.adapted.apply(int(action))
            return
        d = int(action)
        if d not in self.legal_actions():
            raise IllegalMove(f"{self._action_to_string(self.current_player(), d)} is not a legal decision here")
        move, self._decided = self.moves.advance(self._decided, d)
        if move is not None:
            self.adapted.apply(move)

    def _action_to_string(self, player: int, action: int) -> str:
        """The move string of a flat action or of the decision completing a move; a first decision is
        named by what it chooses (``cell 5``, ``piece 40``)."""
        if self.moves is None:
            return self.adapted.action_to_string(int(action))
        f = self.moves.factoring
        assert f is not None
        d, first = int(action), self._decided < 0
        if not 0 <= d < f.flat.shape[0 if first else 1]:
            return f"{f.names[0 if first else 1]} {d}"
        move = self.moves.advance(self._decided, d)[0]
        return f"{f.names[0]} {d}" if move is None or move < 0 else self.adapted.action_to_string(move)

    def pending_string(self) -> str:
        """The first decision of the move under way as text (``""`` at the start of a move)."""
        if self._decided < 0 or self.moves is None or self.moves.factoring is None:
            return ""
        return f"{self.moves.factoring.names[0]} {self._decided} chosen"

    def is_terminal(self) -> bool:
        return self.adapted.is_terminal()

    def returns(self) -> list[float]:
        return self.adapted.returns()

    def __str__(self) -> str:
        return str(self.adapted)


class TesseraObserver:
    """Observer (OpenSpiel's PyObserver interface): planes, or the information-state string."""

    def __init__(self, adapted: AdaptedGame, perfect_recall: bool, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.adapted = adapted
        self.perfect_recall = perfect_recall
        shape = (0,) if perfect_recall else adapted.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict: dict[str, np.ndarray] = {} if perfect_recall else {"observation": self.tensor.reshape(shape)}

    def _check(self, state: TesseraState) -> None:
        theirs = getattr(getattr(state, "adapted", None), "game", None)
        if not isinstance(theirs, AdaptedGame) or theirs.game != self.adapted.game:
            what = theirs.game if isinstance(theirs, AdaptedGame) else type(state).__name__
            raise ValueError(f"this observer is for {self.adapted.game}, not a state of {what}")

    def set_from(self, state: TesseraState, player: int) -> None:
        self._check(state)
        if self.perfect_recall:
            return
        self.dict["observation"][...] = state.adapted.observation(player)

    def string_from(self, state: TesseraState, player: int) -> str:
        self._check(state)
        pending = state.pending_string()
        if self.perfect_recall:
            text = state.adapted.information_state_string(player)
            return f"{text} | {pending}" if pending else text
        text = state.adapted.observation_string(player)
        return f"{text}\n{pending}" if pending else text


def _register(name: str) -> type[TesseraGame]:
    # A class, not a closure, as OpenSpiel's own Python games do: a registered
    # closure aborts the interpreter at exit (PyThreadState_Get without the GIL).
    def __init__(self: TesseraGame, params: dict[str, Any] | None = None) -> None:
        TesseraGame.__init__(self, name, params)

    cls = type(f"Tessera{name.capitalize()}Game", (TesseraGame,), {"__init__": __init__, "__module__": __name__})
    cls.__qualname__ = cls.__name__
    globals()[cls.__name__] = cls  # picklable by name, as OpenSpiel's tests pickle games
    pyspiel.register_game(game_type(name), cls)
    return cls


REGISTERED: list[str] = []
"""Short names registered by importing this module."""


def register_new_games() -> list[str]:
    """Register every tessera game not registered yet (done on import; call it again after a
    package offering games was installed in this process); returns the names it registered."""
    known = set(pyspiel.registered_names())
    added = []
    for name in list_games():
        if PREFIX + name not in known:
            _register(name)
            added.append(PREFIX + name)
        if PREFIX + name not in REGISTERED:
            REGISTERED.append(PREFIX + name)
    return added


register_new_games()


def load(spec: str, **params: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` of a tessera game string: ``load("nume(size=4)")``, ``load("nume", size=4)``."""
    if params:
        return pyspiel.load_game(PREFIX + spec, params)
    return pyspiel.load_game(PREFIX + spec)


__all__ = [
    "ACTIONS",
    "PREFIX",
    "REGISTERED",
    "TesseraGame",
    "TesseraObserver",
    "TesseraState",
    "game_type",
    "load",
    "register_new_games",
]
