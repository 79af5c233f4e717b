"""The sentences of Nymbat's refused steps: the kernels' refusal code (``kernels._check``) said in words,
a :class:`~tessera.core.texts.Text` with the key ``refusal.nymbat.*``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tessera.core.game import Action
from tessera.core.texts import Text, name_text
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.board import GRID, LABEL, LOSE_BASE, MOVE, PLACE_BASE, REMOVE_BASE, N

if TYPE_CHECKING:
    from tessera.games.nymbat.state import NymbatState


def refusal(state: NymbatState, code: int, action: Action) -> str:
    """The sentence for the kernels' refusal ``code`` of ``action`` (``kernels._check``), a
    :class:`~tessera.core.texts.Text` with the key ``refusal.nymbat.*``."""
    p = state.to_move
    name = name_text(state.L.names[p])
    move = state.action_to_string(action)
    src, dst = divmod(action, N) if action < PLACE_BASE else (0, 0)
    c = (action - PLACE_BASE) // 6 if PLACE_BASE <= action < REMOVE_BASE else 0

    def say(key: str, english: str, **args: Any) -> Text:
        return Text(f"refusal.nymbat.{key}", english, move=move, **args)

    if code == _k.R_PENALTY_DUE:
        return say(
            "penalty_due",
            f"{move}: {name} must first pay a penalty at reserve 0 by removing one of his own pieces ('lose <hex>')",
            name=name,
        )
    if code == _k.R_MOVE_WHILE_BRINGING:
        return say("move_while_bringing", f"{move}: a turn that brings in reserves cannot also move a group")
    if code == _k.R_MOVE_ON_FIRST_TURN:
        return say("move_on_first_turn", f"{move}: on his first turn {name} must bring in reserves", name=name)
    if code == _k.R_NO_OWN_PIECE:
        return say("no_own_piece", f"{move}: {LABEL[src]} holds no {name} piece", hex=LABEL[src], name=name)
    if code == _k.R_PIECE_HAS_MOVED:
        return say(
            "piece_has_moved",
            f"{move}: each piece moves at most once per turn; the piece on {LABEL[src]} has moved",
            hex=LABEL[src],
        )
    if code == _k.R_NOT_OF_GROUP:
        return say("not_of_group", f"{move}: only pieces of the group chosen at the first step may move this turn")
    if code == _k.R_NO_MOVEMENT:
        return say("no_movement", f"{move}: a piece that moves must leave its hex")
    if code == _k.R_ONTO_OWN_PIECE:
        return say("onto_own_piece", f"{move}: a piece may not end its move on another own piece")
    if code == _k.R_OUT_OF_REACH:
        speed = state.speed if state.phase == MOVE else int(_k.query(state.s, state.game.geo, _k.Q_GROUP_SPEED, src))
        return say(
            "out_of_reach",
            f"{move}: {LABEL[dst]} is not reachable within the group's speed {speed} "
            "(paths go through empty or own hexes, never through an opponent's piece)",
            hex=LABEL[dst],
            speed=speed,
        )
    if code == _k.R_PLACE_WHILE_MOVING:
        return say("place_while_moving", f"{move}: a turn that moves a group cannot also bring in reserves")
    if code == _k.R_OUTSIDE_SETUP:
        area = Text(f"nymbat.setup_area.{state.L.edges[p].replace('-', '_')}", state.L.setup_text[p])
        return say(
            "outside_setup",
            f"{move}: pieces are brought in only in {name}'s setup area ({area})",
            name=name,
            area=area,
        )
    if code == _k.R_ONTO_A_PIECE:
        return say("onto_a_piece", f"{move}: hex {LABEL[c]} is not empty", hex=LABEL[c])
    if code == _k.R_OVER_RESERVE:
        left = state.reserves[p]
        return say(
            "over_reserve",
            f"{move}: the numbers brought in may not exceed the reserve ({left} left)",
            count=left,
        )
    if code == _k.R_OVER_FIRST_LIMIT:
        return say(
            "over_first_limit",
            f"{move}: on the first turn the numbers brought in may total at most {state.game.first_limit} "
            f"({state.placed} placed so far)",
            limit=state.game.first_limit,
            placed=state.placed,
        )
    if code == _k.R_NO_BREAKTHROUGH:
        return say(
            "no_breakthrough",
            f"{move}: removals 'x<hex>' are only allowed right after an attack that splits a group (breakthrough)",
        )
    if code == _k.R_NOT_NEXT_TO_ATTACK:
        at = GRID.label(state.brk_cell)
        if state.n > 2:
            owner = name_text(state.L.names[state.brk_owner])
            return say(
                "not_next_to_attack_of",
                f"{move}: a breakthrough removes only {owner}'s pieces (the defender's) adjacent to the attacked "
                f"hex {at}",
                owner=owner,
                hex=at,
            )
        return say(
            "not_next_to_attack",
            f"{move}: a breakthrough removes only opponent pieces adjacent to the attacked hex {at}",
            hex=at,
        )
    if code == _k.R_OVER_BUDGET:
        k = state._number(action - REMOVE_BASE)
        return say(
            "over_budget",
            f"{move}: the pieces removed by breakthrough may total at most the attacker's number; "
            f"{state.brk_budget} left, this piece is a {k}",
            budget=state.brk_budget,
            number=k,
        )
    if code == _k.R_NO_PENALTY_DUE:
        return say("no_penalty_due", f"{move}: 'lose' is only played to pay a retreat or delay penalty at reserve 0")
    if code == _k.R_LOSE_NOT_OWN:
        at = LABEL[action - LOSE_BASE]
        return say("no_own_piece", f"{move}: {at} holds no {name} piece", hex=at, name=name)
    if code == _k.R_END_FIRST:
        return Text("refusal.nymbat.end_first", "end: a turn must first bring in a piece or move a piece (or pass)")
    if code == _k.R_PASS_AFTER_STEPS:
        return Text("refusal.nymbat.pass_after_steps", "pass: a pass is a whole turn; it cannot follow other steps")
    assert code == _k.R_PASS_ON_FIRST_TURN, code
    return Text(
        "refusal.nymbat.pass_on_first_turn", f"pass: on his first turn {name} must bring in reserves", name=name
    )
