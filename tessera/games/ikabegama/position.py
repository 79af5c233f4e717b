"""Ikabegamá's position dictionary read back: ``state_from_dict`` checks every field and names the problem
(``ValueError``); :meth:`IkabegamaState.to_dict` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.core.hexplane import (
    format_axial,
    parse_axial,
)
from tessera.games.ikabegama.game import DARK, LIGHT, IkabegamaGame, IkabegamaState


def state_from_dict(game: IkabegamaGame, d: Mapping[str, Any]) -> IkabegamaState:
    """A state from ``{"to_move", "light_nest", "dark_nest", "tokens", "ply"?, "passes"?}``."""
    if not isinstance(d, Mapping):
        raise ValueError("an ikabegama position must be a dict")
    unknown = set(d) - {"to_move", "light_nest", "dark_nest", "tokens", "ply", "passes"}
    if unknown:
        raise ValueError(f"ikabegama position: unknown key {sorted(unknown)[0]!r}")
    for key, want in (("light_nest", game.light_nest), ("dark_nest", game.dark_nest)):
        if key in d:
            try:
                got = parse_axial(str(d[key]))
            except ValueError as e:
                raise ValueError(f"ikabegama position: {key}: {e}") from None
            if got != want:
                raise ValueError(
                    f"ikabegama position: {key} is {format_axial(*got)} but this game's is {format_axial(*want)}"
                )
    to_move = d.get("to_move", 0)
    if to_move not in (0, 1) or isinstance(to_move, bool):
        raise ValueError(f"ikabegama position: to_move must be 0 or 1, not {to_move!r}")
    tokens_in = d.get("tokens")
    if not isinstance(tokens_in, Mapping):
        raise ValueError("ikabegama position: 'tokens' must map 'q,r' to 0 or 1")
    tokens: dict[int, int] = {}
    for key, owner in tokens_in.items():
        try:
            hid = game.window.id_of(str(key))
        except ValueError as e:
            raise ValueError(f"ikabegama position: token {key!r}: {e}") from None
        if game.allowed is not None and hid not in game.allowed:
            raise ValueError(f"ikabegama position: token {key!r} is off the {game.params['board']} board")
        if owner not in (0, 1) or isinstance(owner, bool):
            raise ValueError(f"ikabegama position: token {key!r} has owner {owner!r}; expected 0 or 1")
        if hid in tokens:
            raise ValueError(f"ikabegama position: hex {key!r} is given twice")
        tokens[hid] = owner
    ply = d.get("ply", 0)
    passes = d.get("passes", 0)
    if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= game.params["max_plies"]:
        raise ValueError(f"ikabegama position: ply must be 0…{game.params['max_plies']}, not {ply!r}")
    if passes not in (0, 1, 2):
        raise ValueError(f"ikabegama position: passes must be 0, 1 or 2, not {passes!r}")
    if game.allowed is None:
        left = game.params["max_plies"] - ply
        for hid in tokens:
            q, r = game.window.axial(hid)
            if max(abs(q), abs(r)) + left + 3 > game.window.bound:
                raise ValueError(
                    f"ikabegama position: token {game.window.label(hid)} is too far out: with {left} plies "
                    f"left its tokens could leave the playing window |q|,|r| <= {game.window.bound}"
                )
    light_home, dark_home = game.nest_ids
    if tokens.get(dark_home) == LIGHT and tokens.get(light_home) == DARK:
        raise ValueError("ikabegama position: both nests are taken by the enemy; only one player can have won")
    st = IkabegamaState(game, tokens, to_move=to_move, ply=ply, passes=passes)
    return st
