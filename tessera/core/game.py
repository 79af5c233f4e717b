"""The game protocol: declarations, parameters, ``Game`` and ``State``.

Every game module declares itself once, as data (:class:`GameInfo` with its
:class:`Param` list), subclasses :class:`Game` and :class:`State`, and registers
the game class with :func:`tessera.core.registry.register`.

Integer actions are the primary representation inside a game (agents and
adapters use them for speed); move strings are their notation.  For sequential
games :meth:`State.action_to_string` must not depend on the position, so that
``history()`` can be written from the stored actions.

Subclasses implement the hooks named with a leading underscore:

* ``_legal_actions()`` – the legal actions of the player to move;
* ``_illegal_reason(action)`` – ``None`` if legal, else a sentence saying why not;
* ``_apply(action)`` – apply a legal action (no checks);
* ``action_to_string`` / ``string_to_action`` – the notation;
* ``current_player``, ``is_terminal``, ``returns``, ``to_dict``, ``_copy_from``,
  ``render``, ``__str__``.

:meth:`State.rollouts` plays many random games from one position in one call
(MCTS leaves use it); the default plays them through the API above, and a game
with a compiled kernel overrides it (docs/engine.md describes the convention).
"""

from __future__ import annotations

import math
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from tessera.core.texts import Text, json_args, name_text
from tessera.core.texts import outcome as keyed_outcome

if TYPE_CHECKING:
    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.levels import LevelTuning
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame
    from tessera.core.observation import AxialLayout, ObservationSpec

SIMULTANEOUS = -2
"""``current_player()`` at a node where every player moves at once."""

TERMINAL = -4
"""``current_player()`` once the game is over."""

Action = int
"""An integer action, ``0 <= a < game.num_distinct_actions()``."""

Move = str
"""A move in the game's notation (docs/rules/README.md), normalised: lower case, no outer spaces."""


class IllegalMove(ValueError):
    """A move that is malformed or breaks a rule; the message says which.

    The message is usually a :class:`tessera.core.texts.Text`: the English sentence with its
    catalogue key and arguments (:attr:`key`, :attr:`key_args`), so that a client can say it in
    the player's language.
    """

    @property
    def text(self) -> str:
        """The message as given (a :class:`~tessera.core.texts.Text` where it has a key)."""
        return self.args[0] if self.args and isinstance(self.args[0], str) else str(self)

    @property
    def key(self) -> str | None:
        """The message's catalogue key (``refusal.*``), None for a message without one."""
        return getattr(self.text, "key", None)

    @property
    def key_args(self) -> dict[str, Any]:
        """The message's arguments, JSON-able (``{}`` without a key)."""
        t = self.text
        return json_args(t.args) if isinstance(t, Text) else {}


GAME_OVER = Text("refusal.game_over", "the game is over")
"""The refusal of any move once the game is over."""


def not_your_turn(to_move: int, player: int) -> Text:
    """The refusal of a move by ``player`` while ``to_move`` is to move."""
    return Text(
        "refusal.not_your_turn", f"it is player {to_move}'s turn, not player {player}'s", to_move=to_move, player=player
    )


def not_legal(move: str) -> Text:
    """The refusal of a move the rules do not allow here (no more precise reason known)."""
    return Text("refusal.not_legal_here", f"{move} is not legal here", move=move)


def no_such_action(action: object, game: str) -> Text:
    """The refusal of an integer that is no action of ``game``."""
    return Text(
        "refusal.no_such_action", f"action {action!r} is not an action of {game}", action=repr(action), game=game
    )


ParamValue = int | float | str | bool


@dataclass(frozen=True)
class Param:
    """One game parameter, declared as data."""

    name: str
    """Keyword used by ``load_game``."""
    default: ParamValue | None
    """Default value; ``None`` means the game derives it from other parameters."""
    kind: type
    """``int``, ``float``, ``str`` or ``bool``."""
    doc: str = ""
    """One line for ``tessera rules`` and the web form."""
    min: float | None = None
    """Smallest accepted value (numbers)."""
    max: float | None = None
    """Largest accepted value (numbers)."""
    choices: tuple[ParamValue, ...] | None = None
    """The accepted values, when they are a short list."""
    step: float | None = None
    """Values must be multiples of this (e.g. 0.5 for komi)."""
    expert: bool = False
    """An expert override (the create form puts it under its "advanced" fold)."""

    def accepted(self) -> str:
        """Human description of the accepted values."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        parts = [self.kind.__name__]
        if self.min is not None and self.max is not None:
            parts.append(f"from {_num(self.min)} to {_num(self.max)}")
        elif self.min is not None:
            parts.append(f">= {_num(self.min)}")
        elif self.max is not None:
            parts.append(f"<= {_num(self.max)}")
        if self.step is not None:
            parts.append(f"in steps of {_num(self.step)}")
        return " ".join(parts)

    def coerce(self, game: str, value: Any) -> ParamValue:
        """Convert ``value`` (possibly a string from the one-string form) and check it."""
        where = f"{game}: parameter {self.name}={value!r}"
        v: ParamValue
        try:
            if self.kind is bool:
                if isinstance(value, bool):
                    v = value
                elif isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on"):
                    v = True
                elif isinstance(value, str) and value.strip().lower() in ("false", "0", "no", "off"):
                    v = False
                elif isinstance(value, int) and value in (0, 1):
                    v = bool(value)
                else:
                    raise ValueError
            elif self.kind is int:
                if isinstance(value, bool):
                    raise ValueError
                if isinstance(value, float):
                    if not value.is_integer():
                        raise ValueError
                    v = int(value)
                elif isinstance(value, int):
                    v = value
                elif isinstance(value, str):
                    v = int(value.strip())
                else:
                    raise ValueError
            elif self.kind is float:
                if isinstance(value, bool):
                    raise ValueError
                if isinstance(value, int | float):
                    v = float(value)
                    if isinstance(value, int) and v != value:  # 2**60+1 would silently become 2**60
                        raise ValueError
                elif isinstance(value, str):
                    v = float(value.strip())
                else:
                    raise ValueError
                if v != v or v in (float("inf"), float("-inf")):
                    raise ValueError
                if self.step is not None and isinstance(value, str) and Decimal(value.strip()) != Decimal(v):
                    raise ValueError  # '0.50000000000000001' would silently become 0.5
            else:
                if not isinstance(value, str):
                    raise ValueError
                v = value.strip().lower()
        except ValueError:
            raise ValueError(f"{where} is not valid: expected {self.accepted()}") from None
        where = f"{game}: parameter {self.name}={v!r}"
        if self.choices is not None and v not in self.choices:
            raise ValueError(f"{where} is not accepted: expected {self.accepted()}")
        if isinstance(v, int | float) and not isinstance(v, bool):
            if (self.min is not None and v < self.min) or (self.max is not None and v > self.max):
                raise ValueError(f"{where} is out of range: expected {self.accepted()}")
            if self.step is not None and not _is_multiple(v, self.step):
                raise ValueError(f"{where} is not accepted: expected {self.accepted()}")
        return v


def _is_multiple(v: float, step: float) -> bool:
    q = v / step
    return math.isfinite(q) and q == int(q)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class RolloutResult:
    """What :meth:`State.rollouts` played: ``n`` random games and their summed values."""

    n: int
    """Number of rollouts played."""
    totals: tuple[float, ...]
    """Per player, the sum over the rollouts of ``returns()`` (a finished game) or of the
    ``evaluate`` value where a rollout was cut off by ``max_plies``."""
    plies: int
    """Steps played in all the rollouts together."""

    def mean(self, player: int) -> float:
        """The mean value of ``player`` over the rollouts (0.0 when none were played)."""
        return self.totals[player] / self.n if self.n else 0.0


@dataclass(frozen=True)
class ParamRule:
    """How a parameter's accepted values follow another parameter (data for the web form, which follows it live).

    The game's own checks stay the authority; the conformance tests hold each rule to them.
    """

    param: str
    """The dependent parameter."""
    when: str | None = None
    """The controlling parameter (None: the rule always holds)."""
    equals: ParamValue | None = None
    """The controlling parameter's value for which the rule holds."""
    default: ParamValue | None = None
    """The dependent parameter's default then (None: unchanged)."""
    min: float | None = None
    """Its smallest accepted value then (None: unchanged)."""
    max: float | None = None
    """Its largest accepted value then (None: unchanged)."""
    choices: tuple[ParamValue, ...] | None = None
    """Its accepted values then (None: unchanged)."""
    fixed: bool = False
    """It must keep its default then."""
    max_from: str | None = None
    """It may not exceed the value of this other parameter."""


@dataclass(frozen=True)
class GameInfo:
    """A game's declaration: everything about it that is data."""

    name: str
    """Registered name, lower case ASCII (``"ikabegama"``)."""
    title: str
    """Display name (``"Ikabegamá"``)."""
    params: tuple[Param, ...]
    """Declared parameters in display order."""
    num_players: int = 2
    """Number of players."""
    player_names: tuple[str, ...] = ("Player 0", "Player 1")
    """Display names of the seats, by player index."""
    board_kind: str = "hex"
    """``hex``, ``hexplane`` or ``square`` (the default board)."""
    dynamics: str = "sequential"
    """``sequential`` or ``simultaneous``."""
    deal: bool = False
    """True when the initial state is dealt at random from a seed."""
    version: int = 1
    """Bumped whenever the behaviour of the rules changes."""
    summary: str = ""
    """The rules for players, printed by ``tessera rules``."""
    designer: str = ""
    """Who designed the game."""
    examples: tuple[str, ...] = ()
    """One-string forms of notable variants; the conformance suite plays each."""
    param_rules: tuple[ParamRule, ...] = ()
    """How parameters follow each other (:class:`ParamRule`)."""

    def param(self, name: str) -> Param:
        """The declared parameter called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


class Game(ABC):
    """A game with fixed parameters; makes states."""

    info: ClassVar[GameInfo]

    client_module: ClassVar[str | None] = None
    """The file name of the game's client module in its folder (``"client.js"``), or ``None``: an ES module
    the web client loads, because the game declares it, for what the browser needs beyond the generic render
    description.  Its exports are optional: ``decorate(desc, out, {safePalette, t})`` (the board's extra
    drawing), ``legend(deco)``, ``palette``, ``glyph(color)``, and for the create form
    ``choices(param, value)`` (``value(name)`` reads the form; ``undefined``: the declared choices),
    ``choiceLabel(param, choice, t)`` and ``refreshOn`` (docs/games.md)."""

    def __init__(self, **params: Any) -> None:
        declared = {p.name: p for p in self.info.params}
        unknown = sorted(set(params) - set(declared))
        if unknown:
            raise ValueError(
                f"{self.info.name}: unknown parameter {unknown[0]!r}; accepted parameters: "
                + (", ".join(declared) or "none")
            )
        values: dict[str, Any] = {}
        for name, p in declared.items():
            if name in params and params[name] is not None:
                values[name] = p.coerce(self.info.name, params[name])
            else:
                values[name] = p.default
        self._params: dict[str, Any] = self._check_params(values)

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Fill derived defaults and check constraints between parameters (override)."""
        return params

    # -- declaration -----------------------------------------------------------------
    @property
    def name(self) -> str:
        """The registered name."""
        return self.info.name

    @property
    def params(self) -> dict[str, Any]:
        """Every parameter with defaults filled in (a copy)."""
        return dict(self._params)

    @property
    def num_players(self) -> int:
        """Number of players."""
        return self.info.num_players

    @property
    def player_names(self) -> tuple[str, ...]:
        """Display names of the seats of this game (a variant with more players overrides it)."""
        return self.info.player_names

    def __str__(self) -> str:
        """The one-string form accepted by ``load_game``: only the parameters needed.

        A parameter is left out when the game built without it is the same game
        (so derived defaults, e.g. Nume's size per variant, are handled). Made once per game object
        (trying each parameter builds a game: a board's geometry each time).
        """
        known: str | None = self.__dict__.get("_spec")
        if known is None:
            known = self._spec = self._one_string()
        return known

    def _one_string(self) -> str:
        kept = dict(self._params)
        for p in self.info.params:
            trial = {k: v for k, v in kept.items() if k != p.name}
            try:
                same = type(self)(**trial)._params == self._params
            except ValueError:
                same = False
            if same:
                kept = trial
        parts = [f"{p.name}={_format_value(kept[p.name])}" for p in self.info.params if p.name in kept]
        return self.info.name + (f"({','.join(parts)})" if parts else "")

    def __repr__(self) -> str:
        return f"load_game({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.name == other.name and self._params == other._params

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self._params.items()))))

    # -- states ------------------------------------------------------------------------
    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State:
        """A fresh state; a dealt game deals from ``seed`` (same seed, same deal)."""

    @abstractmethod
    def state_from_dict(self, d: Mapping[str, Any]) -> State:
        """A state from a position dictionary (docs/rules/README.md); ``ValueError`` if inconsistent."""

    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the integer action space."""

    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of moves (steps) in a game."""

    def observation_spec(self) -> ObservationSpec:
        """The game's observation planes for the research adapters (:mod:`tessera.core.observation`).

        A game declares its planes beside its rules (``tessera/games/<name>/observation.py``)
        and overrides this; the default reads planes off the render description.
        """
        from tessera.core.observation import render_spec

        return render_spec(self)

    # -- capabilities the game declares (each lives in the game's folder) -------------------
    # A generic package reaches a game's own half of a capability only through these hooks,
    # never through a table keyed by the game's name.  Each returns ``None`` when the game has
    # none; a game overrides the hook and imports its module inside it (so the kernels of a
    # capability are compiled only when it is used).
    @classmethod
    def folder(cls) -> Path | None:
        """The game's folder: that of the module defining the game class (``None`` if it has no file)."""
        module = sys.modules[cls.__module__].__file__
        return None if module is None else Path(module).parent

    @classmethod
    def client_module_path(cls) -> Path | None:
        """The file of the game's client module (:attr:`client_module`), or ``None`` when it declares none."""
        folder = cls.folder()
        if cls.client_module is None or folder is None:
            return None
        path = folder / cls.client_module
        return path if path.is_file() and path.parent == folder else None

    @classmethod
    def rules_page(cls, lang: str = "en") -> str | None:
        """The players' rules page in language ``lang`` (a two-letter code), as Markdown, or ``None`` when the
        game has none in that language: ``rules/<lang>.md`` in the game's folder (the folder of the module that
        defines the game class, so a plugin game ships its pages the same way)."""
        if not (len(lang) == 2 and lang.isascii() and lang.isalpha() and lang.islower()):
            raise ValueError(f"a language is a two-letter lower-case code, not {lang!r}")
        folder = cls.folder()
        path = None if folder is None else folder / "rules" / f"{lang}.md"
        return path.read_text(encoding="utf-8") if path is not None and path.is_file() else None

    @classmethod
    def lessons(cls) -> LessonBook | None:
        """The game's rule diagrams and lessons (``games/<game>/lessons.py``), or ``None``:
        :mod:`tessera.learn` and the rules and lessons pages use them."""
        return None

    def puzzle_themes(self, to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
        """The game's own themes of a puzzle (``games/<game>/puzzles.py``; docs/puzzles.md), read from its
        line: ``to_move`` the solver's player, ``line`` the moves, ``states`` the position before each move
        and after the last.  :mod:`tessera.puzzles` adds the themes every game shares; default: none."""
        return []

    @classmethod
    def level_tuning(cls) -> LevelTuning:
        """How the game tunes the strength levels (:func:`tessera.agents.spec.level`): the agent of its
        search levels, its ladder for more than two players; the default: no change."""
        from tessera.core.kits.levels import LevelTuning

        return LevelTuning()

    def solver(self) -> EndgameSolver | None:
        """This game's exact endgame solver (``games/<game>/solver.py``), or ``None``: the levels'
        wrapper and the analysis board (:mod:`tessera.agents.endgame`) consult it near the end."""
        return None

    @classmethod
    def learned(cls) -> LearnedKit | None:
        """The game's learned evaluation (``games/<game>/learned.py``: features, value, shipped weights), or
        ``None``: the ``learned`` agent and ``tessera train`` (:mod:`tessera.agents.learned`) use it."""
        return None

    def vector_engine(self) -> type[VectorGame] | None:
        """The class of this game's vector engine (``games/<game>/vector.py``, a subclass of
        :class:`tessera.core.kits.vector.VectorGame`), or ``None``: :func:`tessera.vector.make` uses it."""
        return None

    def kernel_contract(self) -> KernelContract | None:
        """This game's compiled verbs (``games/<game>/contract.py``; :mod:`tessera.core.kits.contract`:
        ``init``, ``current``, ``legal``, ``apply``, ``observe``, ``returns``), or ``None`` for a game
        without kernels.  ``ValueError`` for parameters the contract does not cover (it says which)."""
        return None

    # -- what the rules say beyond the moves ---------------------------------------------
    def why_no_draw(self) -> str | None:
        """Why a game with these parameters can never end in a draw, or ``None`` when it can.

        The server offers a draw by agreement only where the rules allow a draw;
        a game without ties overrides this (Nibble; Nume with a komi that is not
        a whole number).
        """
        return None

    # -- fixed-size spaces for the research adapters ---------------------------------------
    def bounded(self, window: int = 0) -> tuple[Game, AxialLayout | None]:
        """This game on a bounded board, for fixed-size action and observation spaces.

        A game on a bounded board returns itself and ``None`` (and refuses a ``window``); a game
        whose board can be unbounded (:attr:`GameInfo.board_kind` ``"hexplane"``: Ikabegamá)
        overrides this and returns the game on a hexagonal window of side ``window`` (0: its own
        default) with that window's layout.
        """
        if window:
            raise ValueError(f"{self.name}: window applies to games on an unbounded board (ikabegama) only")
        return self, None

    def window_holding(self, state: State) -> int:
        """The side of the smallest window (:meth:`bounded`) holding every piece of ``state`` with
        room to spare; 0 for a game on a bounded board or a position its own default window holds."""
        return 0


def _format_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


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


__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "Game",
    "GameInfo",
    "IllegalMove",
    "Move",
    "Param",
    "RolloutResult",
    "State",
    "TurnState",
]
