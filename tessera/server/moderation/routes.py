"""Moderation's HTTP API and page (``router``, included by ``create_app``; docs/moderation.md,
docs/http-api.md).

Any account reports an account or a chat line (``POST /api/reports``), blocks and unblocks accounts
(``/api/blocks``) and reads the warnings it received (``GET /api/warnings``).  Everything under
``/api/mod`` and the page ``/mod`` are for admins only, from a logged-in browser session (an API
token never moderates): 401 without an account, 403 for an account without the admin role.  Every
refusal is a 4xx with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from tessera.server.accounts import auth as A
from tessera.server.accounts.live import announce
from tessera.server.accounts.model import User
from tessera.server.accounts.security import Refused
from tessera.server.http.pages import WEB
from tessera.server.moderation import signal as engine_signal
from tessera.server.moderation.store import ModerationStore

router = APIRouter(tags=["moderation"])

MAX_SIGNAL_ITERATIONS = 2000
"""The largest search budget a moderator may ask for one account's signal."""


class ReportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(description="abuse, cheating, spam, boosting, username or other")
    text: str = Field(default="", description="what happened, in the reporter's words")
    username: str | None = Field(default=None, description="the account reported")
    game_id: str | None = Field(default=None, description="the game it happened in (needed for a chat line)")
    message_id: int | None = Field(default=None, description="the chat line reported")


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: str = Field(description="warn, mute, unmute, close, engine or clear_engine")
    note: str = Field(default="", description="the moderator's reason (a warning's text for the player)")


class CloseIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = ""


class SignalIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    iterations: int = Field(default=engine_signal.ITERATIONS, ge=1, le=MAX_SIGNAL_ITERATIONS)


def store_of(request: Request) -> ModerationStore:
    """The app's moderation store (made on first use)."""
    state = request.app.state
    store: ModerationStore | None = getattr(state, "moderation", None)
    if store is None:
        store = state.moderation = ModerationStore(state.storage)
    return store


def _account(request: Request, name: str, *, closed: bool = False) -> User:
    user = A.accounts(request).user(name, deleted=closed)
    if user is None:
        raise Refused(
            404,
            f"there is no account named {name[:32]!r}",
            key="refusal.moderation.no_such_account",
            args={"name": name[:32]},
        )
    return user


def admin(request: Request) -> User:
    """The asker, if he holds the admin role (401 without an account, 403 otherwise)."""
    auth = A.require(request, session_only=True)
    if not store_of(request).is_admin(auth.user.id):
        raise Refused(403, "this is for the site's moderators only", key="refusal.moderation.admins_only")
    return auth.user


# -- every account ---------------------------------------------------------------------------------
@router.post("/api/reports", status_code=201)
def report(body: ReportIn, request: Request) -> dict[str, Any]:
    """Report an account (``username``) or a chat line (``game_id`` and ``message_id``)."""
    user = A.require(request, "play").user
    target = _account(request, body.username) if body.username is not None else None
    return store_of(request).report(
        user, reason=body.reason, text=body.text, target=target, game_id=body.game_id, message_id=body.message_id
    )


@router.get("/api/blocks")
def blocks(request: Request) -> dict[str, Any]:
    """The accounts the asker blocks."""
    user = A.require(request, "play").user
    return {"blocks": store_of(request).blocks(user)}


@router.put("/api/blocks/{name}")
def block(name: str, request: Request) -> dict[str, Any]:
    """Block an account: its challenges, chat lines and seeks no longer reach the asker."""
    user = A.require(request, "play").user
    other = _account(request, name)
    blocks = store_of(request).block(user, other)
    # his challenges waiting for an answer are declined: they no longer reach the blocker
    accounts = A.accounts(request)
    declined = [
        c["id"]
        for c in accounts.challenges(user, pending_only=True)["incoming"]
        if c["from"] == other.username
        and not c.get("players")
        and accounts.settle_challenge(c["id"], "declined", reason="generic")
    ]
    if declined:
        announce(accounts.storage, request.app.state.service.events, [user.id, other.id])
    return {"blocks": blocks}


@router.delete("/api/blocks/{name}")
def unblock(name: str, request: Request) -> dict[str, Any]:
    user = A.require(request, "play").user
    return {"blocks": store_of(request).unblock(user, _account(request, name, closed=True))}


@router.get("/api/warnings")
def warnings(request: Request) -> dict[str, Any]:
    """The warnings the moderators gave the asker, newest first."""
    user = A.require(request).user
    return {"warnings": store_of(request).warnings(user)}


# -- admins ----------------------------------------------------------------------------------------
@router.get("/mod", include_in_schema=False)
def mod_page(request: Request) -> FileResponse:
    """The moderation page (tessera/web/mod.html), for admins only."""
    admin(request)
    return FileResponse(WEB / "mod.html")


@router.get("/api/mod/reports")
def queue(request: Request, status: str = Query("open")) -> dict[str, Any]:
    """The reports queue: open reports (or closed ones), newest first."""
    admin(request)
    return {"reports": store_of(request).queue(status)}


@router.post("/api/mod/reports/{report_id}/close")
def close_report(report_id: int, body: CloseIn, request: Request) -> dict[str, Any]:
    moderator = admin(request)
    return store_of(request).close_report(moderator, report_id, body.note)


@router.get("/api/mod/accounts/{name}")
def account(name: str, request: Request) -> dict[str, Any]:
    """An account as a moderator sees it: standing, games, chat, reports, log, signal."""
    admin(request)
    return store_of(request).account(_account(request, name, closed=True))


@router.post("/api/mod/accounts/{name}/actions")
def act(name: str, body: ActionIn, request: Request) -> dict[str, Any]:
    """Warn, mute or unmute the chat, close the account, mark or clear an engine user (logged)."""
    moderator = admin(request)
    target = _account(request, name, closed=True)
    if target.id == moderator.id:
        raise Refused(400, "a moderator does not act on his own account", key="refusal.moderation.act_on_self")
    store = A.accounts(request)
    standing = store_of(request).act(moderator, target, body.action, body.note, close=store.close_account)
    return {"username": target.username, **standing}


@router.post("/api/mod/accounts/{name}/signal")
def compute_signal(name: str, body: SignalIn, request: Request) -> dict[str, Any]:
    """Compute the account's engine-use signal now (stored; shown beside the distribution)."""
    admin(request)
    target = _account(request, name, closed=True)
    mod = store_of(request)
    s = engine_signal.compute(mod.storage, target.id, iterations=body.iterations)
    mod.save_signal(target.id, s.moves, s.matches, s.games, s.iterations)
    return {"username": target.username, "signal": mod.signal(target.id)}


@router.get("/api/mod/signals")
def signals(request: Request) -> dict[str, Any]:
    """The distribution of the signal among ordinary players."""
    admin(request)
    dist = store_of(request).distribution()
    dist.pop("_shares")
    return dist


@router.get("/api/mod/log")
def log(request: Request, limit: int = Query(200, ge=1, le=1000)) -> dict[str, Any]:
    """Every moderator's action, newest first."""
    admin(request)
    return {"log": store_of(request).log(limit=limit)}
