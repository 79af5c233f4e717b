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

import functools
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tessera.core.moves import (
    GAME_OVER,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    IllegalMove,
    Move,
    RolloutResult,
    no_such_action,
    not_legal,
    not_your_turn,
)
from tessera.core.params import GameInfo, Param, ParamRule, ParamValue
from tessera.core.state import State, TurnState

if TYPE_CHECKING:
    import numpy as np

    from tessera.core.kits.contract import KernelContract
    from tessera.core.kits.learned import LearnedKit
    from tessera.core.kits.lessons import LessonBook
    from tessera.core.kits.levels import LevelTuning
    from tessera.core.kits.solver import EndgameSolver
    from tessera.core.kits.vector import VectorGame
    from tessera.core.observation import AxialLayout, ObservationSpec


class Game(ABC):
    """A game with fixed parameters; makes states."""

    info: ClassVar[GameInfo]

    client_module: ClassVar[str | None] = None
    """The file name of the game's client module in its folder (``"client.js"``), or ``None``: an ES module
    the web client loads, because the game declares it, for what the browser needs beyond the generic render
    description.  Its exports are optional: ``decorate(desc, out, {safePalette, t})`` (the board's extra
    drawing), ``legend(deco)``, ``palette``, ``glyph(color)``, and for the create form
    ``choices(param, value)`` (``value(name)`` reads the form; ``undefined``: the declared choices),
    ``choiceLabel(param, choice, t)`` and ``refreshOn``, and for the order builder of a simultaneous game
    ``order`` = ``{head, blocked, conflict, whyNot}`` (what the rules allow between the units of one order,
    and why not; docs/render.md, docs/games.md)."""

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

    @functools.cached_property
    def action_ints(self) -> np.ndarray:
        """The Python ints ``0 … num_distinct_actions()-1``, made once (object array, read-only): a
        state's legal list takes its numbers from here, not from new ints
        (:func:`tessera.core.kits.ints.action_list`)."""
        from tessera.core.kits.ints import int_table

        return int_table(self.num_distinct_actions())

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
        :mod:`tessera.lessons` and the rules and lessons pages use them."""
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


__all__ = [
    "GAME_OVER",
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "Game",
    "GameInfo",
    "IllegalMove",
    "Move",
    "Param",
    "ParamRule",
    "ParamValue",
    "RolloutResult",
    "State",
    "TurnState",
    "no_such_action",
    "not_legal",
    "not_your_turn",
]
