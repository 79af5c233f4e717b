"""The accounts HTTP API (``router``, included by ``create_app``).

Every refusal is a 4xx with ``{"detail": "<the reason>"}``.  Secrets travel only in bodies,
cookies and the ``Authorization`` header — never in a URL — and nothing here logs them.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.core.registry import list_games
from tessera.server.accounts import auth as A
from tessera.server.accounts import challenge_routes
from tessera.server.accounts import rematch as seat_rematch
from tessera.server.accounts.live import AccountStreams
from tessera.server.accounts.rating import rate_pending
from tessera.server.accounts.security import Refused
from tessera.server.accounts.stats import fair_values, game_stats, self_play, strengths
from tessera.server.accounts.store import User
from tessera.server.match.service import load_checked
from tessera.server.seeks.pool import paired_since

router = APIRouter()
router.include_router(seat_rematch.router)  # the rest of the rematch asked by a seat

WEB = Path(__file__).resolve().parent.parent.parent / "web"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(_Body):
    """Sign-up and log-in; ``tokens``: seat tokens this browser holds as a guest, claimed into the account."""

    username: str = Field(max_length=100)
    password: str = Field(max_length=1000)
    tokens: list[str] | None = None


class PasswordChange(_Body):
    current: str = Field(max_length=1000)
    new: str = Field(max_length=1000)


class PasswordOnly(_Body):
    password: str = Field(max_length=1000)


class TokensIn(_Body):
    tokens: list[str]


class ScopesIn(_Body):
    scopes: list[str]


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _account_view(request: Request, user: User) -> dict[str, Any]:
    store = A.accounts(request)
    rate_pending(store.storage)
    return {"username": user.username, "ratings": store.ratings(user)}


def _log_in(request: Request, response: Response, user: User, tokens: list[str] | None) -> dict[str, Any]:
    store = A.accounts(request)
    sid = store.new_session(user)
    A.set_session_cookie(request, response, sid)
    store.remember_login(user, _address(request), A.device_of(request, response))  # a known device from now on
    claimed = store.claim_seats(user, tokens) if tokens else []
    return {**_account_view(request, user), "claimed": claimed}


# -- account -----------------------------------------------------------------------------------
@router.post("/api/account/signup", status_code=201)
def signup(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Make an account and log in (201, session cookie)."""
    A.check_same_site(request, required=False)
    user = A.accounts(request).create_user(body.username, body.password, _address(request))
    return _log_in(request, response, user, body.tokens)


@router.post("/api/account/login")
def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Log in (session cookie).  An unknown name and a wrong password get the same 401."""
    A.check_same_site(request, required=False)
    device = request.cookies.get(A.DEVICE_COOKIE)
    user = A.accounts(request).authenticate(body.username, body.password, _address(request), device)
    return _log_in(request, response, user, body.tokens)


@router.post("/api/account/logout")
def logout(request: Request, response: Response) -> dict[str, Any]:
    """End this browser's session (its id is revoked on the server, not only forgotten)."""
    sid = request.cookies.get(A.COOKIE)
    if sid:
        A.check_same_site(request, required=True)
        A.accounts(request).revoke_session(sid)
    A.clear_session_cookie(request, response)
    return {"ok": True}


@router.get("/api/account")
def account(request: Request) -> dict[str, Any]:
    """``{"username", "ratings": {game: {"rating", "rd", "provisional", "games"}}}`` with lichess's
    ``id`` (the name in lower case) and ``title: "BOT"`` for a bot; any token of the account (as
    lichess: a bot's ``bot:play`` token reads its own account) or its session; 401 for a guest."""
    user = A.require(request).user
    out = {"id": user.username.lower(), **_account_view(request, user)}
    if user.is_bot:
        out["title"] = "BOT"
    return out


@router.get("/api/session")
def session(request: Request) -> dict[str, Any]:
    """``{"account": <what GET /api/account answers> | null}``: who the request is, answered 200 for a
    guest too (``null``) — what pages ask on every load, so that a guest's browser logs no 401."""
    auth = A.optional_auth(request)
    if auth is None:
        return {"account": None}
    return {"account": account(request)}


@router.post("/api/account/password")
def change_password(body: PasswordChange, request: Request, response: Response) -> dict[str, Any]:
    """Change the password: every session and every API token is revoked; this browser gets a new
    session.  The current password is checked like a log-in (429 after too many wrong ones)."""
    auth = A.require(request, session_only=True)
    sid = A.accounts(request).change_password(auth.user, body.current, body.new, _address(request))
    A.set_session_cookie(request, response, sid)
    return {"ok": True}


@router.delete("/api/account")
def delete_account(body: PasswordOnly, request: Request, response: Response) -> dict[str, Any]:
    """Delete the account (the password again): its games stay, shown under a neutral name."""
    auth = A.require(request, session_only=True)
    A.accounts(request).delete_account(auth.user, body.password, _address(request))
    A.clear_session_cookie(request, response)
    return {"ok": True}


@router.get("/api/account/export")
def export(request: Request) -> Response:
    """Everything stored about the account, as a JSON download."""
    auth = A.require(request, "read")
    rate_pending(A.accounts(request).storage)
    data = A.accounts(request).export(auth.user)
    return Response(
        json.dumps(data, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="tessera-{auth.user.username}.json"'},
    )


@router.post("/api/account/claim")
def claim(body: TokensIn, request: Request) -> dict[str, Any]:
    """Claim into the account the seats of these seat tokens (a guest's games)."""
    auth = A.require(request, "play")
    return {"claimed": A.accounts(request).claim_seats(auth.user, body.tokens)}


@router.get("/api/account/games/{game_id}/seat")
def my_seat(game_id: str, request: Request) -> dict[str, Any]:
    """The seat and seat token of the account's seat in a game (404 if it holds none): a browser that
    logged in elsewhere plays its bound seats with them."""
    auth = A.require(request, "play")
    seat, token = A.accounts(request).seat_token(auth.user, game_id)
    return {"seat": seat, "token": token}


@router.post("/api/account/tokens", status_code=201)
def new_token(body: ScopesIn, request: Request) -> dict[str, Any]:
    """A personal API token, shown this once (``Authorization: Bearer <token>``)."""
    auth = A.require(request, session_only=True)
    return A.accounts(request).new_token(auth.user, body.scopes)


@router.get("/api/account/tokens")
def list_tokens(request: Request) -> dict[str, Any]:
    auth = A.require(request, session_only=True)
    return {"tokens": A.accounts(request).tokens(auth.user)}


@router.delete("/api/account/tokens/{token_id}")
def revoke_token(token_id: str, request: Request) -> dict[str, Any]:
    auth = A.require(request, session_only=True)
    A.accounts(request).revoke_token(auth.user, token_id)
    return {"ok": True}


# -- players -----------------------------------------------------------------------------------
def _player(request: Request, username: str) -> User:
    user = A.accounts(request).user(username)
    if user is None:
        raise Refused(404, "no such player", key="refusal.player.unknown")
    return user


@router.get("/api/users/{username}")
def profile(username: str, request: Request) -> dict[str, Any]:
    """A public profile: ratings per game, counts, joined, recent games."""
    store = A.accounts(request)
    rate_pending(store.storage)
    return store.profile(_player(request, username))


@router.get("/api/users/{username}/games")
def history(
    username: str,
    request: Request,
    game: Annotated[str | None, Query(max_length=32)] = None,
    result: Annotated[str | None, Query(max_length=16)] = None,
    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
) -> dict[str, Any]:
    """The player's games, newest first (``game``, ``result``: win/loss/draw/aborted/playing, ``page``)."""
    store = A.accounts(request)
    rate_pending(store.storage)
    return store.games(_player(request, username), game=game or None, result=result or None, page=page)


@router.get("/api/users/{username}/ratings/{game}")
def rating_graph(username: str, game: str, request: Request) -> dict[str, Any]:
    """The player's rating after each rated game of ``game``, oldest first."""
    store = A.accounts(request)
    rate_pending(store.storage)
    return {"game": game, "history": store.rating_history(_player(request, username), game)}


@router.get("/api/leaderboard/{game}")
def leaderboard(game: str, request: Request) -> dict[str, Any]:
    """Players of ``game`` whose rating is not provisional, best first."""
    try:
        name = load_checked(game).name
    except ValueError:
        raise Refused(404, f"no game {game[:40]!r}", key="refusal.game.unknown", args={"game": game[:40]}) from None
    store = A.accounts(request)
    rate_pending(store.storage)
    return {"game": name, "players": store.leaderboard(name)}


@router.get("/api/stats/{game}")
def stats(game: str, request: Request) -> dict[str, Any]:
    """Designers' figures from finished rated games between people: first-seat win rate (95 % Wilson
    interval), draw rate, length, aborted / time-out / resignation rates; by variant and rating band;
    ``self_play``: the balance lab's stored self-play figures for the same game; ``fair_values``: the
    fair values it fitted; ``strengths``: its questions asked at several strengths, each agent's verdict
    and what they say together (tessera.server.accounts.stats.strengths)."""
    name = game.strip().lower()
    if name not in list_games():  # a name only: building the game would compile its kernels in the request
        raise Refused(404, f"no game {game[:40]!r}", key="refusal.game.unknown", args={"game": game[:40]})
    store = A.accounts(request)
    rate_pending(store.storage)
    return {
        **game_stats(store.storage, name),
        "self_play": self_play(name),
        "fair_values": fair_values(name),
        "strengths": strengths(name),
    }


@router.get("/api/games/{game_id}/accounts")
def game_accounts(game_id: str, request: Request) -> dict[str, Any]:
    """The accounts on a game's seats, whether it is rated, and each seat's rating change once rated."""
    store = A.accounts(request)
    rate_pending(store.storage)
    return store.game_accounts(game_id)


router.include_router(challenge_routes.router)  # the challenges, here in the order of the routes


STREAM_KEEPALIVE = 15.0
"""Seconds between keep-alive comments on an idle live stream (proxies close silent connections)."""

STREAM_LIFETIME = 300.0
"""A live stream ends after this many seconds; the browser's ``EventSource`` reconnects at once
(``retry``), so a connection left behind by a vanished client does not live for ever."""


def live_challenges(request: Request, me: User, since: float) -> dict[str, Any]:
    """What the live stream sends: the pending challenges both ways, and those answered or
    withdrawn since the stream opened (an accepted one names its game: the page goes there)."""
    store = A.accounts(request)
    pending = store.challenges(me, pending_only=True)
    seeks = paired_since(store.storage, me.id, since)  # the seek pool's pairings (tessera.server.seeks)
    return {**pending, "settled": store.challenges_settled_since(me, since), "seeks": seeks}


@router.get("/api/account/events")
async def account_events(request: Request) -> StreamingResponse:
    """The account's challenges, live (``text/event-stream``): a ``challenges`` event now and again
    whenever a challenge to or from the account is made, answered or withdrawn — on this server
    process or another one on the same PostgreSQL database."""
    me = (await run_in_threadpool(A.require, request, A.CHALLENGE)).user
    streams: AccountStreams = request.app.state.account_streams
    since = time.time() - 1.0
    wake = streams.open(me.id)

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n"
            end = time.monotonic() + STREAM_LIFETIME
            while time.monotonic() < end:
                wake.clear()
                data = await run_in_threadpool(live_challenges, request, me, since)
                yield f"event: challenges\ndata: {json.dumps(data)}\n\n"
                while not wake.is_set() and time.monotonic() < end:
                    try:
                        await asyncio.wait_for(wake.wait(), STREAM_KEEPALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
        finally:
            streams.close(me.id, wake)

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )


# -- pages -------------------------------------------------------------------------------------
@router.get("/account", include_in_schema=False)
def account_page() -> FileResponse:
    """Sign up, log in, and the account itself (ratings, challenges, tokens, password)."""
    return FileResponse(WEB / "account.html")


@router.get("/u/{username}", include_in_schema=False)
def profile_page(username: str) -> FileResponse:
    """A player's profile: ratings, rating graph, history."""
    return FileResponse(WEB / "profile.html")


@router.get("/stats/{game}", include_in_schema=False)
def stats_page(game: str) -> FileResponse:
    """A game's figures from people's rated games beside the balance lab's self-play."""
    return FileResponse(WEB / "stats.html")


@router.get("/leaderboard", include_in_schema=False)
@router.get("/leaderboard/{game}", include_in_schema=False)
def leaderboard_page(game: str | None = None) -> FileResponse:
    return FileResponse(WEB / "profile.html")
