"""How a game's result is written: by the rules, by a resignation or a flag, by agreement, or an abort.

A result is ``{"winner", "returns", "reason", "text", "key", "args"}``; ``reason`` and ``text`` name
what decided, ``key`` and ``args`` are the same sentence for a translation (the client's ``engine``
catalogue).
"""

from __future__ import annotations

from typing import Any

from tessera.core.game import Game, State
from tessera.core.render import status_line
from tessera.core.texts import Text, keyed, name_text


def names(game: Game) -> list[str]:
    """The players' names of ``game``."""
    return list(game.player_names)


def rules_result(state: State) -> dict[str, Any]:
    """The result of a game the rules ended: ``reason`` and ``text`` name the rule that decided."""
    why = state.outcome()
    if why is None:
        line = status_line(state, names(state.game))
        why = {"reason": "rules", "text": str(line), **keyed(line)}
    out = {"winner": state.winner(), "returns": list(state.returns()), "reason": why["reason"], "text": why["text"]}
    if why.get("key"):
        out["key"], out["args"] = why["key"], why.get("args", {})
    return out


def forfeit_result(game: Game, loser: int, reason: str) -> dict[str, Any]:
    """The result when ``loser`` resigns or runs out of time."""
    n = game.num_players
    winner = (loser + 1) % n
    returns = [-1.0] * n
    returns[winner] = 1.0
    lost, won = name_text(names(game)[loser]), name_text(names(game)[winner])
    if reason == "resign":
        text = Text("result.resigned", f"{lost} resigned: {won} wins", loser=lost, winner=won)
    else:
        text = Text("result.flag", f"{lost} ran out of time: {won} wins", loser=lost, winner=won)
    return {"winner": winner, "returns": returns, "reason": reason, "text": str(text), **keyed(text)}


def agreement_result(game: Game, offerer: int | None) -> dict[str, Any]:
    """The result of a draw agreed between the players: ``offerer`` offered (None: not known), the other accepted."""
    n = game.num_players
    who = names(game)
    if offerer is None:
        text = Text("result.agreement", "Draw by agreement between the players")
    else:
        a, b = name_text(who[offerer]), name_text(who[(offerer + 1) % n])
        text = Text("result.agreement_offer", f"Draw by agreement: {a} offered a draw and {b} accepted", a=a, b=b)
    return {"winner": None, "returns": [0.0] * n, "reason": "agreement", "text": str(text), **keyed(text)}


def abort_result(game: Game, player: int) -> dict[str, Any]:
    """A game aborted because ``player`` made no first move in time: no winner, no result."""
    who = name_text(names(game)[player] if player < len(names(game)) else f"Player {player}")
    text = Text("result.aborted", f"Game aborted: {who} made no first move in time (no result)", name=who)
    return {"winner": None, "returns": None, "reason": "abort", "text": str(text), **keyed(text)}


def aborted_by_result(game: Game, player: int) -> dict[str, Any]:
    """A game aborted by ``player`` before every seat had moved (an abort, or a resignation then): no
    winner, no result, no rating change."""
    who = name_text(names(game)[player] if player < len(names(game)) else f"Player {player}")
    text = Text("result.aborted_by", f"Game aborted by {who} before every player had moved (no result)", name=who)
    return {"winner": None, "returns": None, "reason": "abort", "text": str(text), **keyed(text)}
