"""How a game's result is written: by the rules, by a resignation or a flag, by agreement, or an abort.

A result is ``{"winner", "returns", "reason", "text"}``; ``reason`` and ``text`` name what decided.
"""

from __future__ import annotations

from typing import Any

from tessera.core.game import Game, State
from tessera.core.render import status_line


def names(game: Game) -> list[str]:
    """The players' names of ``game``."""
    return list(game.player_names)


def rules_result(state: State) -> dict[str, Any]:
    """The result of a game the rules ended: ``reason`` and ``text`` name the rule that decided."""
    why = state.outcome() or {"reason": "rules", "text": status_line(state, names(state.game))}
    return {
        "winner": state.winner(),
        "returns": list(state.returns()),
        "reason": why["reason"],
        "text": why["text"],
    }


def forfeit_result(game: Game, loser: int, reason: str) -> dict[str, Any]:
    """The result when ``loser`` resigns or runs out of time."""
    n = game.num_players
    winner = (loser + 1) % n
    returns = [-1.0] * n
    returns[winner] = 1.0
    who = names(game)
    how = "resigned" if reason == "resign" else "ran out of time"
    return {
        "winner": winner,
        "returns": returns,
        "reason": reason,
        "text": f"{who[loser]} {how}: {who[winner]} wins",
    }


def agreement_result(game: Game, offerer: int | None) -> dict[str, Any]:
    """The result of a draw agreed between the players: ``offerer`` offered (None: not known), the other accepted."""
    n = game.num_players
    who = names(game)
    text = (
        "Draw by agreement between the players"
        if offerer is None
        else f"Draw by agreement: {who[offerer]} offered a draw and {who[(offerer + 1) % n]} accepted"
    )
    return {"winner": None, "returns": [0.0] * n, "reason": "agreement", "text": text}


def abort_result(game: Game, player: int) -> dict[str, Any]:
    """A game aborted because ``player`` made no first move in time: no winner, no result."""
    who = names(game)[player] if player < len(names(game)) else f"Player {player}"
    return {
        "winner": None,
        "returns": None,
        "reason": "abort",
        "text": f"Game aborted: {who} made no first move in time (no result)",
    }
