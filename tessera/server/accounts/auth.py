"""Who is asking: a session cookie or a personal API token (``Authorization: Bearer …``).

A write (POST, PUT, PATCH, DELETE) authenticated by the cookie is refused unless its
``Origin`` header — or, without one, its ``Referer`` — is the site's own (CSRF); a bearer
token is not sent by browsers on their own, so it needs no such check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from fastapi import Request, Response
from fastapi.requests import HTTPConnection

from tessera.server.accounts import security
from tessera.server.accounts.security import Refused
from tessera.server.accounts.store import SESSION_IDLE, AccountStore, User

COOKIE = "tessera_session"
"""The session cookie: a random id (256 bits), HttpOnly, SameSite=Lax, Secure over HTTPS."""

DEVICE_COOKIE = "tessera_device"
"""A browser's device cookie: a random id (256 bits) given at log-in, HttpOnly, SameSite=Lax, Secure
over HTTPS.  A log-in from a device where the account logged in before is counted on its own and
not stopped by failures from elsewhere (:mod:`tessera.server.accounts.throttle`)."""

DEVICE_AGE = 365 * 24 * 3600
"""Seconds a browser keeps its device cookie."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Auth:
    """An authenticated request: the account, and how (``session`` or ``token`` with its scopes)."""

    user: User
    via: str
    scopes: frozenset[str] = frozenset()

    def allows(self, scope: str) -> bool:
        """A session may do anything; a token only what its scopes allow."""
        return self.via == "session" or scope in self.scopes


def accounts(request: HTTPConnection) -> AccountStore:
    """The app's account store (made on first use, on the app's storage)."""
    state = request.app.state
    store = getattr(state, "accounts", None)
    if store is None:
        store = state.accounts = AccountStore(state.storage)
    return store


def site_origins(request: HTTPConnection) -> list[str]:
    """The site's own origins: ``TESSERA_SITE_ORIGIN`` (comma-separated) if set, else the scheme and
    ``Host`` of the request itself."""
    configured = os.environ.get("TESSERA_SITE_ORIGIN")
    if configured:
        return [o.strip().lower().rstrip("/") for o in configured.split(",") if o.strip()]
    base = str(request.base_url)
    if base.startswith("ws"):  # a WebSocket: its page is on the same host over http(s)
        base = "http" + base[2:]
    own = security.origin_of(base)
    return [own] if own else []


def check_same_site(request: HTTPConnection, *, required: bool) -> None:
    """Refuse (403) a write whose ``Origin``/``Referer`` names another site; with ``required``, also
    one that names no site at all (a cookie-authenticated write must prove where it comes from).
    A WebSocket counts as a write: it plays the seat (browsers send its ``Origin``)."""
    if request.scope["type"] == "http" and request.scope.get("method") in SAFE_METHODS:
        return
    origin = request.headers.get("origin")
    referer = request.headers.get("referer")
    if origin is None and not referer and not required:
        return
    if not any(security.same_site(site, origin, referer) for site in site_origins(request)):
        raise Refused(
            403,
            "this request does not come from this site's own pages (cross-site request refused)",
            key="refusal.auth.cross_site",
        )


def bearer(request: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer …`` header."""
    h = request.headers.get("authorization")
    if h is None:
        return None
    kind, _, value = h.partition(" ")
    if kind.lower() != "bearer" or not value.strip():
        raise Refused(401, "the Authorization header must be 'Bearer <token>'", key="refusal.auth.bearer_form")
    return value.strip()


def optional_auth(request: HTTPConnection) -> Auth | None:
    """The request's account, or None for a guest.  A bearer token that is unknown or revoked is
    refused (401) rather than treated as a guest."""
    store = accounts(request)
    secret = bearer(request)
    if secret is not None:
        found = store.token_user(secret)
        if found is None:
            raise Refused(401, "this API token is not valid (unknown or revoked)", key="refusal.auth.token_invalid")
        return Auth(found[0], "token", found[1])
    sid = request.cookies.get(COOKIE)
    if not sid:
        return None
    user = store.session_user(sid)
    if user is None:
        return None
    check_same_site(request, required=True)
    return Auth(user, "session")


CHALLENGE = ("challenge", "bot:play")
"""The scopes that may make, list, accept, decline and withdraw challenges: ``challenge``, and a
bot's ``bot:play`` (as lichess: a bot token answers its challenges without another scope)."""


def require(request: Request, scope: str | tuple[str, ...] | None = None, *, session_only: bool = False) -> Auth:
    """The request's account (401 if none); ``scope``: what a token must allow (a tuple: any one of
    them; 403 naming the first otherwise); ``session_only``: refused to tokens (managing tokens, the
    password, deleting the account)."""
    auth = optional_auth(request)
    if auth is None:
        raise Refused(401, "log in first", key="refusal.auth.log_in_first")
    if session_only and auth.via != "session":
        raise Refused(
            403, "this needs a logged-in browser session, not an API token", key="refusal.auth.session_needed"
        )
    wanted = (scope,) if isinstance(scope, str) else scope
    if wanted and not any(auth.allows(s) for s in wanted):
        raise Refused(
            403,
            f"this API token lacks the scope {wanted[0]!r}",
            key="refusal.auth.scope_missing",
            args={"scope": wanted[0]},
        )
    return auth


def set_session_cookie(request: Request, response: Response, sid: str) -> None:
    """Send the session cookie (Secure when the request came over HTTPS)."""
    response.set_cookie(
        COOKIE,
        sid,
        max_age=int(SESSION_IDLE),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def device_of(request: Request, response: Response) -> str:
    """The browser's device cookie, given (and sent) now if it has none or a malformed one."""
    device = request.cookies.get(DEVICE_COOKIE) or ""
    if not (20 <= len(device) <= 100):
        device = security.new_secret()
    response.set_cookie(
        DEVICE_COOKIE,
        device,
        max_age=DEVICE_AGE,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return device


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https")


def seat_token_for(request: HTTPConnection, game_id: str) -> str | None:
    """**Hook** for the game endpoints: the seat token of the requester's own seat in ``game_id``
    when the request carries no seat token but a session (or a token with scope ``play``) whose
    account holds a seat of that game; None otherwise (the request then goes on as a spectator's
    or a guest's).  A cookie-authenticated write (or WebSocket) must come from the site's own pages
    (403 otherwise); an unknown or revoked bearer token is refused (401)."""
    auth = optional_auth(request)
    if auth is None or not auth.allows("play"):
        return None
    try:
        return accounts(request).seat_token(auth.user, game_id)[1]
    except Refused:
        return None
