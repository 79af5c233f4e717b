"""lichess's names for what the bot API says, beside tessera's own (docs/bot-api.md, *lichess → tessera*).

A bot written for lichess with its own client (berserk, lichess-bot) reads lichess's field names: this
module adds them to the lines and answers tessera's bot API already makes — nothing here reads or
writes a game; the routes that use it (:mod:`tessera.server.bot.routes`, :mod:`.lichess_routes`) call
the same functions as tessera's own.

- **Colours are seats** in a two-seat game: ``white`` is seat 0 (who moves first), ``black`` seat 1.
- **Moves** in a ``gameState`` are one string, the moves joined by single spaces; a space inside a
  move (Nume's ``komi 3.5 white``, Nymbat's ``lose e6``) is written as :data:`SPACE` (``_``), which
  no game's notation uses: split on spaces, then replace ``_`` by a space.  The same escape is
  accepted in a move sent in the path (``/move/komi_3.5_white``).
- **Clocks** in milliseconds (``wtime``, ``btime``, ``winc``, ``binc``); a game without a clock gives
  lichess's "no limit" (:data:`NO_CLOCK_MS`).
- Games of more than two seats and games whose seats move at once (Nelaxtam) keep tessera's shapes:
  ``moves`` stays a list and ``status`` tessera's word; the names that fit (``gameId``, ``variant``,
  ``speed`` …) are added all the same.  tessera's own list and word are in every ``gameState`` as
  ``move_list`` and ``game_status``.
"""

from __future__ import annotations

from typing import Any

COLOURS = ("white", "black")
"""lichess's colour of seat 0 and seat 1."""

SPACE = "_"
"""What stands for a space inside one move of a ``moves`` string (and of a move in a URL path)."""

NO_CLOCK_MS = 2147483647
"""``wtime``/``btime`` of a game without a clock (lichess's value for an unlimited game)."""

STATUS = {"resign": "resign", "flag": "outoftime", "agreement": "draw"}
"""lichess's status name of a tessera result ``reason`` (an abort: ``aborted``, or ``noStart`` when a
first move was not made in time; any other end by the rules: ``variantEnd``, ``draw`` without a winner)."""


def colour(seat: int | None) -> str | None:
    """lichess's colour of a seat of a two-seat game."""
    return COLOURS[seat] if seat is not None and 0 <= seat < 2 else None


def escape(move: str) -> str:
    """One move as it is written in a ``moves`` string."""
    return move.replace(" ", SPACE)


def unescape(move: str) -> str:
    """A move from a ``moves`` string or a URL path, as tessera's notation writes it."""
    return move.replace(SPACE, " ")


def two_seats(view: dict[str, Any]) -> bool:
    """Whether a game has lichess's shape: two seats that move in turn (its ``sealed`` is never used)."""
    from tessera.core.registry import game_class

    return len(view["seats"]) == 2 and game_class(view["game"]).info.dynamics != "simultaneous"


def speed(clock: dict[str, Any] | None) -> str:
    """lichess's speed of a clock (its estimated duration: initial + 40 × increment)."""
    if clock is None or clock.get("kind") == "correspondence" or "days" in clock:
        return "correspondence"
    estimate = float(clock["initial"]) + 40 * float(clock["increment"])
    for limit, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid")):
        if estimate <= limit:
            return name
    return "classical"


def time_control(clock: dict[str, Any] | None) -> dict[str, Any]:
    """lichess's ``timeControl`` of a clock (seconds, as lichess writes it)."""
    if clock is None:
        return {"type": "unlimited"}
    if clock.get("kind") == "correspondence" or "days" in clock:
        return {"type": "correspondence", "daysPerTurn": clock["days"]}
    initial, inc = _whole(clock["initial"]), _whole(clock["increment"])
    show = f"{initial / 60:g}+{inc:g}"
    return {"type": "clock", "limit": initial, "increment": inc, "show": show}


def _whole(x: float) -> float | int:
    """Whole seconds as an integer (lichess writes them so)."""
    return int(x) if float(x).is_integer() else float(x)


def variant(spec: str, game: str) -> dict[str, Any]:
    """lichess's ``variant``: the game spec is the key (what a bot lists as the variants it plays)."""
    return {"key": spec, "name": spec, "short": game}


def user_light(name: str | None, bot: bool, rating: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """lichess's light user (``id``: the name in lower case, ``title: "BOT"`` for a bot)."""
    if name is None:
        return None
    out: dict[str, Any] = {"id": name.lower(), "name": name, "title": "BOT" if bot else None}
    if rating is not None:
        out["rating"] = rating.get("rating")
        out["provisional"] = rating.get("provisional", False)
    return out


def challenge(c: dict[str, Any], ratings: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """A challenge with lichess's fields beside tessera's (``ratings``: each side's rating by name)."""
    clock = c.get("clock")
    seat = c.get("seat")
    return {
        **c,
        "challenger": user_light(c["from"], bool(c.get("from_bot")), ratings.get(c["from"])),
        "destUser": user_light(c.get("to"), bool(c.get("to_bot")), ratings.get(c.get("to") or "")),
        "variant": variant(c["game"], c["game"].partition("(")[0]),
        "speed": speed(clock),
        "timeControl": time_control(clock),
        "color": colour(seat) or "random",
        "perf": {"name": c["game"].partition("(")[0]},
    }


def game_event(summary: dict[str, Any], look: dict[str, Any] | None) -> dict[str, Any]:
    """The ``game`` of a ``gameStart``/``gameFinish`` with lichess's fields (``look``: the game as a
    spectator sees it now, for whose turn it is and the last move)."""
    seat = summary.get("seat")
    players = summary.get("players") or []
    out = {**summary, "gameId": summary["id"], "fullId": summary["id"], "source": "friend"}
    out["variant"] = variant(summary["spec"], summary["game"])
    out["speed"] = speed(summary.get("clock"))
    out["perf"] = {"name": summary["game"]}
    if len(players) == 2 and seat in (0, 1):
        other = players[1 - seat]
        out["color"] = colour(seat)
        out["opponent"] = {
            "id": (other.get("account") or other["name"]).lower(),
            "username": other.get("account") or other["name"],
            "rating": other.get("rating"),
            "ai": other["level"] if other.get("ai") else None,
        }
    if look is not None:
        out["isMyTurn"] = look["status"] == "active" and look["to_move"] == seat
        out["hasMoved"] = any(m["player"] == seat for m in look["moves"])
        out["lastMove"] = escape(look["moves"][-1]["move"]) if look["moves"] else ""
    result = summary.get("result")
    if result is not None and len(players) == 2:
        out["winner"] = colour(result.get("winner"))
    return out


def status_name(state: dict[str, Any]) -> str:
    """lichess's status name of a ``gameState`` (tessera's ``status`` and ``result``)."""
    if state["status"] != "finished":
        return "started"
    result = state.get("result") or {}
    reason = result.get("reason")
    if reason == "abort":
        return "noStart" if result.get("key") == "result.aborted" else "aborted"
    if reason in STATUS:
        return STATUS[reason]
    return "variantEnd" if result.get("winner") is not None else "draw"


def game_state(state: dict[str, Any], view: dict[str, Any], two: bool) -> dict[str, Any]:
    """A ``gameState`` line with lichess's fields beside tessera's (a two-seat game: ``moves`` a string
    and ``status`` lichess's name; else tessera's shapes)."""
    out = {**state, "move_list": state["moves"], "game_status": state["status"]}
    if not two:
        return out
    out["moves"] = " ".join(escape(m) for m in state["moves"])
    out["status"] = status_name(state)
    clock = view.get("clock")
    if clock is None or clock.get("kind") == "correspondence":
        left = [NO_CLOCK_MS, NO_CLOCK_MS] if clock is None else [round(r * 1000) for r in clock["remaining"]]
        inc = 0
    else:
        left, inc = [round(r * 1000) for r in clock["remaining"]], round(clock["increment"] * 1000)
    out.update(wtime=left[0], btime=left[1], winc=inc, binc=inc)
    offer = state.get("draw_offer")
    out["wdraw"], out["bdraw"] = offer == 0, offer == 1
    result = state.get("result")
    if result is not None and result.get("winner") is not None:
        out["winner"] = colour(result["winner"])
    return out


def game_full(full: dict[str, Any], view: dict[str, Any], two: bool) -> dict[str, Any]:
    """A ``gameFull`` line with lichess's fields beside tessera's (``white``/``black``: the players of
    a two-seat game; tessera's ``clock`` stays in seconds: lichess's milliseconds are in ``state``)."""
    out = {**full, "variant": variant(full["spec"], full["game"]), "perf": {"name": full["game"]}}
    out["speed"] = speed(full.get("clock"))
    out["initialFen"] = "startpos"
    out["state"] = game_state(full["state"], view, two)
    if two:
        for seat, p in enumerate(full["players"][:2]):
            named = p.get("account") or p["name"]
            out[COLOURS[seat]] = {
                **(user_light(named, bool(p.get("bot")), p if p.get("rating") is not None else None) or {}),
                "aiLevel": p["level"] if p.get("ai") else None,
            }
    return out
