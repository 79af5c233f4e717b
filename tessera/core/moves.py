"""What a move is and how one is refused, shared by :class:`~tessera.core.game.Game` and
:class:`~tessera.core.state.State`: actions and moves, the special players (simultaneous, terminal),
:class:`IllegalMove` with the common refusals, and the result of a batch of random games. Every name
here is read from :mod:`tessera.core.game` too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tessera.core.texts import Text, json_args

if TYPE_CHECKING:
    pass

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

    __module__ = "tessera.core.game"  # its public name, the one tracebacks and the documents show

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
