"""A game's declaration as data: its parameters (:class:`Param`), the rules between them
(:class:`ParamRule`) and :class:`GameInfo`. Every name here is read from :mod:`tessera.core.game` too."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

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
