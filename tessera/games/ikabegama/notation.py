"""Ikabegamá's move notation (docs/rules/ikabegama.md, *Board and notation*): a growth ``2,-1``, a jump ``0,0>2,-1``
(source and destination in axial coordinates, at distance exactly 2) or ``pass``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tessera.core.game import Action, IllegalMove
from tessera.core.hexplane import HEX_RING2, hex_distance, parse_axial
from tessera.core.texts import Text

if TYPE_CHECKING:
    from tessera.games.ikabegama.game import IkabegamaGame


def action_to_string(g: IkabegamaGame, action: Action) -> str:
    """``q,r`` (a growth), ``q,r>q,r`` (a jump) or ``pass``."""
    if action == g.pass_action:
        return "pass"
    dest, k = divmod(action, 13)
    if k == 0:
        return g.window.label(dest)
    return f"{g.window.label(dest - g.window.ring2_offsets[k - 1])}>{g.window.label(dest)}"


def string_to_action(g: IkabegamaGame, move: str) -> Action:
    """The action of a move written ``q,r``, ``q,r>q,r`` or ``pass``; ``IllegalMove`` (keyed) names what is wrong."""
    text = move.strip().lower()
    if text == "pass":
        return g.pass_action
    try:
        if ">" in text:
            src_s, _, dst_s = text.partition(">")
            sq, sr = parse_axial(src_s)
            dq, dr = parse_axial(dst_s)
            delta = (dq - sq, dr - sr)
            if delta not in HEX_RING2:
                far = hex_distance(sq, sr, dq, dr)
                raise IllegalMove(
                    Text(
                        "refusal.ikabegama.jump_distance",
                        f"{text}: a jump goes to a hex at distance exactly 2, this one is at distance {far}",
                        move=text,
                        distance=far,
                    )
                )
            g.window.id(sq, sr)
            return g.window.id(dq, dr) * 13 + HEX_RING2.index(delta) + 1
        q, r = parse_axial(text)
        return g.window.id(q, r) * 13
    except IllegalMove:
        raise
    except ValueError as e:
        raise IllegalMove(
            Text(
                "refusal.ikabegama.syntax",
                f"{move!r} is not a move: {e}; moves are 'q,r' (growth), 'q,r>q,r' (jump) or 'pass'",
                move=repr(move),
                reason=str(e),
            )
        ) from None
