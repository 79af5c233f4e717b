"""The sentences of Nelaxtam's refused orders (keyed texts ``refusal.nelaxtam.*``): an order check's
code (:func:`tessera.games.nelaxtam.kernels.check`) said in words, a player Nelaxtam does not have, a
joint order's refusals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tessera.core.game import Action, no_such_action
from tessera.core.texts import Text, name_text
from tessera.games.nelaxtam import kernels as _k
from tessera.games.nelaxtam.constants import NAMES

if TYPE_CHECKING:
    from tessera.games.nelaxtam.game import NelaxtamGame


def no_player(player: object) -> Text:
    """The refusal naming a player Nelaxtam does not have."""
    return Text(
        "refusal.nelaxtam.no_player",
        f"there is no player {player!r}; players are 0 (Black) and 1 (White)",
        player=repr(player),
    )


def _order_of(player: int, reason: str) -> Text:
    """One player's refused order in a joint refusal."""
    who = name_text(NAMES[player])
    return Text(
        "refusal.nelaxtam.order_of",
        f"{who}'s order (player {player}) is illegal: {reason}",
        name=who,
        player=player,
        reason=reason,
    )


def _joined(errors: Sequence[str]) -> str:
    """The refusals of both orders in one (each a keyed text where it has one)."""
    if len(errors) == 2:
        return Text("refusal.both", f"{errors[0]}; {errors[1]}", first=errors[0], second=errors[1])
    return errors[0] if len(errors) == 1 else "; ".join(errors)


def _order_message(g: NelaxtamGame, code: int, actions: list[Action], player: int) -> Text:
    """The sentence of an order check's code (:func:`tessera.games.nelaxtam.kernels.check`), a
    :class:`~tessera.core.texts.Text` with the key ``refusal.nelaxtam.*``."""
    kind, x, y, z = code & 255, (code >> 8) & 0xFFFF, (code >> 24) & 0xFFFF, code >> 40
    lab = g.sq_label

    def say(key: str, english: str, **args: Any) -> Text:
        return Text(f"refusal.nelaxtam.{key}", english, troop=x, **args)

    if kind == _k.R_TWO_TOKENS:
        return say("two_tokens", f"troop {x} is given two tokens")
    if kind == _k.R_TROOP_ORDER:
        return say(
            "troop_order", f"tokens must be listed in increasing troop number: troop {x} comes after troop {y}", other=y
        )
    if kind == _k.R_TROOP_GONE:
        return say("troop_gone", f"troop {x} is no longer on the board")
    if kind == _k.R_PLACE_AFTER_INVASION:
        return say(
            "place_after_invasion", f"{x}@{lab[y]}: troops are placed only in the invasion (turn 1)", square=lab[y]
        )
    if kind == _k.R_MOVE_NOT_DIAGONAL:
        return say(
            "move_not_diagonal",
            f"troop {x} on {lab[y]} cannot move to {lab[z]}: moves are diagonal",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_MOVE_NOT_ADJACENT:
        return say(
            "move_not_adjacent",
            f"troop {x} on {lab[y]} cannot move to {lab[z]}: it is not adjacent",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_MOVE_ONTO_REMOVED:
        return say(
            "move_onto_removed",
            f"troop {x} cannot move to {lab[y]}: that square's territory has been removed",
            to=lab[y],
        )
    if kind == _k.R_DESTROY_OWN:
        name = name_text(NAMES[player])
        return say(
            "destroy_own",
            f"troop {x} cannot destroy {lab[y]}: it is {name}'s own territory square",
            to=lab[y],
            name=name,
        )
    if kind == _k.R_DESTROY_NOT_ADJACENT:
        return say(
            "destroy_not_adjacent",
            f"troop {x} on {lab[y]} cannot destroy {lab[z]}: it is not orthogonally adjacent",
            at=lab[y],
            to=lab[z],
        )
    if kind == _k.R_DESTROY_REMOVED:
        return say("destroy_removed", f"troop {x} cannot destroy {lab[y]}: it has already been removed", to=lab[y])
    if kind == _k.R_SAME_END:
        return say("same_end", f"troops {x} and {y} would both end on {lab[z]}", other=y, to=lab[z])
    if kind == _k.R_SAME_END_QUIET:
        return say(
            "same_end_quiet",
            f"troops {x} and {y} would both end on {lab[z]} (troop {x} does not act)",
            other=y,
            to=lab[z],
        )
    if kind == _k.R_TROOP_WITHOUT_TOKEN:
        return say(
            "troop_without_token", f"troop {x} has no token: every living troop must be given one ({x}= to hold)"
        )
    if kind == _k.R_QUIET_ONE_TOKEN:
        return Text(
            "refusal.nelaxtam.quiet_one_token",
            f"the quiet variant allows one token per turn (one troop acts), not {x}",
            count=x,
        )
    if kind == _k.R_NOT_AN_ACTION:
        return no_such_action(actions[x], str(g))
    if kind == _k.R_INVASION_PLACES:
        a = actions[x]
        return Text(
            "refusal.nelaxtam.invasion_places",
            f"{g.tokens[a]}: the invasion places every troop with a token like {a // g.block + 1}@a3",
            move=g.tokens[a],
            example=f"{a // g.block + 1}@a3",
        )
    if kind == _k.R_PLACED_TWICE:
        return say("placed_twice", f"troop {x} is placed twice")
    if kind == _k.R_LAND_ON_ENEMY:
        enemy = name_text(NAMES[1 - player])
        return say(
            "land_on_enemy", f"troop {x} cannot land on {lab[y]}: it is {enemy} territory", to=lab[y], name=enemy
        )
    if kind == _k.R_PLACED_SAME:
        return say("placed_same", f"troops {x} and {y} are both placed on {lab[z]}", other=y, to=lab[z])
    if kind == _k.R_TROOP_MISSING:
        return say(
            "troop_missing", f"troop {x} is missing: the invasion places every troop (1 to {g.ntroops})", n=g.ntroops
        )
    if kind == _k.R_TOO_FEW_BY_SEA:
        return Text(
            "refusal.nelaxtam.too_few_by_sea",
            f"only {x} troop{'s' if x != 1 else ''} stand on edge squares, but {y} come by sea "
            "and must land on the edge of the island",
            count=x,
            need=y,
        )
    raise AssertionError(f"unknown order check code {code}")  # the kernel returns only the codes above
