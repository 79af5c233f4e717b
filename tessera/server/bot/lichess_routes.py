"""lichess's paths for the bot, board, challenge, account and user calls (``router``, included by
``create_app``; docs/bot-api.md, *lichess → tessera*): berserk and lichess-bot work against a tessera
server unchanged.

Each route is a thin door onto the function tessera's own route calls — the same checks, the same
answers with lichess's names beside (:mod:`tessera.server.bot.lichess`): nothing here is a second
implementation.  The board routes are the bot routes for a person's account (a token with the
``play`` scope); the bot routes need a bot's token with ``bot:play`` as tessera's do.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.accounts import challenge_routes
from tessera.server.accounts import routes as accounts_routes
from tessera.server.accounts.security import Refused
from tessera.server.accounts.store import User
from tessera.server.bot import lichess
from tessera.server.bot import routes as bot_routes
from tessera.server.bot.store import is_api_bot
from tessera.server.chat.rooms import Chat
from tessera.server.http.edge import client_address

router = APIRouter(tags=["lichess"])

BOARD_SCOPE = "play"
"""The scope of a token that plays a person's games through the board API (lichess's ``board:play``)."""


async def _fields(request: Request) -> dict[str, Any]:
    """The request's body as a dict, sent as JSON or form-encoded (berserk sends either); an empty body
    is an empty dict."""
    raw = await request.body()
    if not raw.strip():
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        return {k: v[-1] for k, v in parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True).items()}
    try:
        data = json.loads(raw)
    except ValueError:
        raise Refused(400, "the body is neither JSON nor form-encoded", key="refusal.lichess.body") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body is neither JSON nor form-encoded", key="refusal.lichess.body")
    return data


# -- challenges --------------------------------------------------------------------------------
def _flag(value: Any) -> bool:
    return value is True or str(value).lower() in ("true", "1", "yes")


def _number(fields: dict[str, Any], name: str) -> float | None:
    value = fields.get(name)
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise Refused(
            422, f"{name[:40]} must be a number of seconds", key="refusal.lichess.number", args={"name": name[:40]}
        ) from None


SEAT_OF_COLOUR = {"white": 0, "black": 1, "random": None}


@router.post("/api/challenge/{username}", status_code=200)
async def create_challenge(username: str, request: Request) -> dict[str, Any]:
    """lichess's challenge: ``variant`` is the game spec (``nume(size=2)``), ``clock.limit`` and
    ``clock.increment`` in seconds or ``days``, ``color`` the challenger's (``white``: seat 0), ``rated``.
    The answer is tessera's challenge with lichess's fields, under ``challenge`` as lichess has it."""
    fields = await _fields(request)
    spec = fields.get("variant")
    if not spec or spec == "standard":
        raise Refused(
            422,
            "variant: name the game to play as its spec, e.g. nume(size=2) (tessera has no chess)",
            key="refusal.lichess.variant",
        )
    colour = str(fields.get("color") or "random")
    if colour not in SEAT_OF_COLOUR:
        raise Refused(422, "color is white, black or random", key="refusal.lichess.colour")
    limit, inc, days = _number(fields, "clock.limit"), _number(fields, "clock.increment"), _number(fields, "days")
    clock: dict[str, Any] | None = None
    if days is not None:
        clock = {"days": int(days)}
    elif limit is not None:
        clock = {"initial": limit, "increment": inc or 0.0}
    try:
        body = challenge_routes.ChallengeIn.model_validate(
            {
                "to": username,
                "game": str(spec),
                "rated": _flag(fields.get("rated")),
                "clock": clock,
                "seat": SEAT_OF_COLOUR[colour],
            }
        )
    except ValidationError as e:
        why = str(e.errors()[0]["msg"])[:200]
        raise Refused(
            422, f"the challenge is not valid: {why}", key="refusal.lichess.invalid", args={"why": why}
        ) from None
    made = await run_in_threadpool(challenge_routes.challenge, body, request)
    shaped = lichess.challenge({**made, "from_bot": False, "to_bot": False}, {})
    return {**shaped, "challenge": shaped}


@router.post("/api/challenge/{cid}/accept")
async def accept_challenge(cid: str, request: Request) -> dict[str, Any]:
    """lichess's accept: tessera's ``POST /api/challenges/{id}/accept``."""
    return {"ok": True, **await run_in_threadpool(challenge_routes.accept, cid, request)}


@router.post("/api/challenge/{cid}/decline")
async def decline_challenge(cid: str, request: Request) -> dict[str, Any]:
    """lichess's decline, the ``reason`` a key (``tooFast`` …) sent as JSON or form-encoded."""
    fields = await _fields(request)
    reason = fields.get("reason")
    body = challenge_routes.DeclineIn(reason=None if reason is None else str(reason)[:200])
    return {"ok": True, **await run_in_threadpool(challenge_routes.decline, cid, request, body)}


@router.post("/api/challenge/{cid}/cancel")
async def cancel_challenge(cid: str, request: Request) -> dict[str, Any]:
    """lichess's cancel: tessera's ``DELETE /api/challenges/{id}``."""
    return {"ok": True, **await run_in_threadpool(challenge_routes.cancel, cid, request)}


# -- account and users -------------------------------------------------------------------------
def lichess_user(name: str, bot: bool, ratings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """lichess's user: ``id`` (the name in lower case), ``username``, ``title`` (``BOT``), ``perfs``."""
    perfs = {
        pool: {"rating": r.get("rating"), "rd": r.get("rd"), "games": r.get("games"), "prov": r.get("provisional")}
        for pool, r in ratings.items()
    }
    out: dict[str, Any] = {"id": name.lower(), "username": name, "perfs": perfs}
    if bot:
        out["title"] = "BOT"
    return out


@router.get("/api/user/{username}")
def public_user(username: str, request: Request) -> dict[str, Any]:
    """lichess's public user: tessera's profile (``GET /api/users/{name}``) with lichess's fields."""
    profile = accounts_routes.profile(username, request)
    name = str(profile.get("username", username))
    return {**profile, **lichess_user(name, bool(profile.get("is_bot")), profile.get("ratings") or {})}


@router.get("/api/bot/online")
def online_bots(request: Request, nb: int = 50) -> StreamingResponse:
    """lichess's online bots, as NDJSON (one user a line): tessera's ``GET /api/bots/online``."""
    found = bot_routes.bots(request).online(max(1, min(nb, 300)))

    async def lines() -> AsyncIterator[str]:
        for b in found:
            yield json.dumps({**b, **lichess_user(b["username"], True, b["ratings"])}) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


# -- games: the bot's and a person's (board) -----------------------------------------------------
def board_account(request: Request) -> User:
    """A person's account whose token (scope ``play``) made the request (a bot uses the bot routes)."""
    user = bot_routes._token_auth(request, BOARD_SCOPE).user
    if is_api_bot(user):
        raise Refused(
            403, "a bot plays through the bot API (/api/bot/…), not the board API", key="refusal.lichess.bot_board"
        )
    return user


def _player(kind: str) -> Any:
    return bot_routes.bot_account if kind == "bot" else board_account


def _seat_token(request: Request, kind: str, game_id: str) -> str:
    user = _player(kind)(request)
    return A.accounts(request).seat_token(user, game_id)[1]


@router.get("/api/board/game/stream/{game_id}")
async def board_stream(game_id: str, request: Request) -> StreamingResponse:
    """A person's game through the board API: the bot's game stream for the person's seat."""
    user = await run_in_threadpool(board_account, request)
    return await bot_routes.seat_stream(request, user, game_id, BOARD_SCOPE)


async def _move(request: Request, kind: str, game_id: str, move: str) -> Any:
    token = await run_in_threadpool(_seat_token, request, kind, game_id)
    return await bot_routes.play_move(request, game_id, token, lichess.unescape(move), None)


@router.post("/api/bot/game/{game_id}/move/{move:path}")
async def bot_move_in_path(game_id: str, move: str, request: Request) -> Any:
    """lichess's move: the move in the path (URL-encoded; ``_`` stands for a space, as in ``moves``)."""
    return await _move(request, "bot", game_id, move)


@router.post("/api/board/game/{game_id}/move/{move:path}")
async def board_move_in_path(game_id: str, move: str, request: Request) -> Any:
    """The board API's move, as the bot's."""
    return await _move(request, "board", game_id, move)


def _abort(request: Request, kind: str, game_id: str) -> dict[str, Any]:
    view = request.app.state.service.abort(game_id, _seat_token(request, kind, game_id))
    return {"ok": True, "status": view.get("status"), "result": view.get("result")}


@router.post("/api/bot/game/{game_id}/abort")
def bot_abort(game_id: str, request: Request) -> dict[str, Any]:
    """Abort, until both have moved (tessera's ``POST /api/games/{id}/abort``)."""
    return _abort(request, "bot", game_id)


@router.post("/api/board/game/{game_id}/abort")
def board_abort(game_id: str, request: Request) -> dict[str, Any]:
    """Abort, until both have moved (tessera's ``POST /api/games/{id}/abort``)."""
    return _abort(request, "board", game_id)


@router.post("/api/board/game/{game_id}/resign")
def board_resign(game_id: str, request: Request) -> dict[str, Any]:
    """Give up (before both have moved: an abort)."""
    view = request.app.state.service.resign(game_id, _seat_token(request, "board", game_id))
    return {"ok": True, "status": view.get("status"), "result": view.get("result")}


@router.post("/api/board/game/{game_id}/draw/{answer}")
def board_draw(game_id: str, answer: str, request: Request) -> dict[str, Any]:
    """``yes``: accept the opponent's draw offer, or offer one; ``no``: decline it."""
    return bot_routes.answer_draw(request, _seat_token(request, "board", game_id), answer)


@router.post("/api/board/game/{game_id}/chat", status_code=201)
async def board_chat(game_id: str, request: Request) -> dict[str, Any]:
    """Say something in the players' room (``room``, ``text``: JSON or form-encoded)."""
    fields = await _fields(request)

    def post() -> dict[str, Any]:
        user = board_account(request)
        token = A.accounts(request).seat_token(user, game_id)[1]
        chat: Chat = request.app.state.chat
        who = chat.speaker(game_id, token, user, client_address(request.scope))
        return chat.post(game_id, who, str(fields.get("room", "player")), str(fields.get("text", "")))

    return await run_in_threadpool(post)
