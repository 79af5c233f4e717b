"""The notifications' HTTP API (``router``, included by ``create_app``; docs/http-api.md).

Every refusal is a 4xx (or 503) with ``{"detail": "<the reason>"}``.  A guest proves a seat by
its token in the request body, never in a URL; nothing here logs a token or an address.
"""

from __future__ import annotations

import html
import time
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.http.edge import client_address
from tessera.server.http.errors import ServiceError
from tessera.server.match.queries import human_seats
from tessera.server.notify import endpoints, push
from tessera.server.notify.mail import (
    settings_or_refuse,
    unsubscribe_key,
    unsubscribe_signature,
    verification_message,
)
from tessera.server.notify.store import KINDS, NotifyStore, digest_of
from tessera.server.notify.texts import language, text
from tessera.server.notify.waiting import check_tokens, waiting_games

router = APIRouter()

VERIFICATIONS_PER_HOUR = 5
"""Verification e-mails one account may ask for in an hour."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WaitingIn(_Body):
    """The body of ``POST /api/notify/waiting``."""

    tokens: list[str] | None = None
    """Seat tokens this browser holds (a guest's games; an account's are found by the account)."""


class KeysIn(_Body):
    """A push subscription's keys: the browser's P-256 public key and its auth secret."""

    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class SubscriptionIn(BaseModel):
    """A browser's ``PushSubscription.toJSON()``."""

    model_config = ConfigDict(extra="ignore")  # a browser's PushSubscription.toJSON() has expirationTime too
    endpoint: str = Field(max_length=1000)
    keys: KeysIn


class SubscribeIn(_Body):
    """The body of ``POST /api/notify/push/subscribe``."""

    subscription: SubscriptionIn
    tokens: list[str] | None = None
    kinds: list[str] | None = None
    lang: str | None = Field(default=None, max_length=20)


class UnsubscribeIn(_Body):
    """The body of ``POST /api/notify/push/unsubscribe``."""

    endpoint: str = Field(max_length=1000)


class EmailIn(_Body):
    """The body of ``POST /api/notify/email``."""

    email: str = Field(max_length=254)
    lang: str | None = Field(default=None, max_length=20)


class DigestIn(_Body):
    """The body of ``POST /api/notify/email/digest``."""

    hours: int


def notify_store(request: Request) -> NotifyStore:
    """The app's notification store."""
    return request.app.state.notify.store


# -- games waiting for you ---------------------------------------------------------------------
@router.post("/api/notify/waiting")
def waiting(body: WaitingIn, request: Request) -> dict[str, Any]:
    """The active games where it is your turn: the account's (across devices) and those of the seat
    ``tokens`` given (a guest's, held by this browser), longest waiting first."""
    tokens = check_tokens(body.tokens)
    auth = A.optional_auth(request)
    user_id = auth.user.id if auth is not None and (auth.allows("read") or auth.allows("play")) else None
    games = waiting_games(request.app.state.service, user_id=user_id, tokens=tokens)
    return {"games": games, "count": len(games), "account": user_id is not None}


# -- Web Push -------------------------------------------------------------------------------------
def _pusher(request: Request) -> push.Pusher:
    pusher = request.app.state.notify.pusher
    if pusher is None:
        raise ServiceError(
            503, "this server sends no push notifications (pywebpush is not installed)", key="refusal.notify.no_push"
        )
    return pusher


@router.get("/api/notify/push/key")
def push_key(request: Request) -> dict[str, Any]:
    """The server's VAPID public key (``applicationServerKey`` of ``PushManager.subscribe``)."""
    return {"key": _pusher(request).public_key(), "kinds": list(KINDS)}


def _check_subscription(sub: SubscriptionIn) -> None:
    endpoints.check_endpoint(sub.endpoint)  # https, allow-list, and every address it resolves to: 422 naming why
    try:
        key = push.unb64url(sub.keys.p256dh)
        secret = push.unb64url(sub.keys.auth)
    except ValueError:
        raise ServiceError(
            422, "subscription.keys: not URL-safe base64", key="refusal.notify.push_keys_base64"
        ) from None
    if len(key) != 65 or key[0] != 4 or len(secret) != 16:
        raise ServiceError(
            422,
            "subscription.keys: p256dh is a P-256 public key (65 bytes), auth 16 bytes",
            key="refusal.notify.push_keys_size",
        )


def _seats(request: Request, tokens: list[str]) -> list[tuple[str, int]]:
    return human_seats(request.app.state.service.storage, tokens)


@router.post("/api/notify/push/subscribe", status_code=201)
def push_subscribe(body: SubscribeIn, request: Request) -> dict[str, Any]:
    """Keep a browser's push subscription: for the logged-in account (every game bound to it), and
    for the seats of the ``tokens`` given (a guest's games).  Sent again with more tokens, the seats
    are added.  ``kinds``: which pushes (default all: ``turn``, ``challenge``, ``end``)."""
    _pusher(request)
    _check_subscription(body.subscription)
    kinds = list(KINDS) if body.kinds is None else body.kinds
    if not kinds or any(k not in KINDS for k in kinds):
        raise ServiceError(
            422, f"kinds: some of {', '.join(KINDS)}", key="refusal.notify.kinds", args={"kinds": ", ".join(KINDS)}
        )
    tokens = check_tokens(body.tokens)
    auth = A.optional_auth(request)
    user_id = auth.user.id if auth is not None and auth.allows("play") else None
    seats = _seats(request, tokens)
    if user_id is None and tokens and not seats:
        raise ServiceError(403, "none of these tokens holds a seat", key="refusal.notify.no_seat_token")
    sid = notify_store(request).subscribe(
        endpoint=body.subscription.endpoint,
        p256dh=body.subscription.keys.p256dh,
        auth=body.subscription.keys.auth,
        user_id=user_id,
        seats=seats,
        lang=language(body.lang),
        kinds=kinds,
        client=digest_of("push-client:" + client_address(request.scope)),
    )
    return {"id": sid, "account": user_id is not None, "seats": len(seats), "kinds": sorted(set(kinds))}


@router.post("/api/notify/push/unsubscribe")
def push_unsubscribe(body: UnsubscribeIn, request: Request) -> dict[str, Any]:
    """Forget a subscription (whoever holds its endpoint may)."""
    return {"ok": notify_store(request).unsubscribe(body.endpoint)}


# -- e-mail ---------------------------------------------------------------------------------------
@router.get("/api/notify/email")
def email_settings(request: Request) -> dict[str, Any]:
    """The account's address, whether it is verified, and the digest interval (``null``: none given);
    ``available``: whether this server sends e-mail at all."""
    me = A.require(request, "read").user
    from tessera.server.notify.mail import SmtpSettings, site_origin

    found = notify_store(request).email_settings(me.id)
    public = None if found is None else {k: found[k] for k in ("email", "verified", "digest_hours")}
    return {"email": public, "available": SmtpSettings.from_env() is not None and site_origin() is not None}


@router.post("/api/notify/email", status_code=202)
def email_set(body: EmailIn, request: Request) -> dict[str, Any]:
    """Give (or change) the account's address: a link to verify it is sent there (valid 24 h)."""
    me = A.require(request, session_only=True).user
    settings, base = settings_or_refuse()  # the links start with TESSERA_SITE_ORIGIN, never the request's Host
    store = notify_store(request)
    if store.verifications_since(me.id, time.time() - 3600) >= VERIFICATIONS_PER_HOUR:
        raise ServiceError(
            429, "too many verification e-mails in the last hour; try again later", key="refusal.notify.too_many_mails"
        )
    lang = language(body.lang)
    token = store.set_email(me.id, body.email, lang=lang, base_url=base)
    link = f"{base}/api/notify/email/verify?token={token}"
    try:
        settings.send_now(verification_message(settings, to=body.email, link=link, lang=lang))
    except Exception as e:
        raise ServiceError(
            503,
            f"the verification e-mail could not be sent ({type(e).__name__})",
            key="refusal.notify.mail_failed",
            args={"error": type(e).__name__},
        ) from None
    return {"email": body.email, "verified": False}


@router.delete("/api/notify/email")
def email_remove(request: Request) -> dict[str, Any]:
    """Forget the account's address (no more e-mail)."""
    me = A.require(request, session_only=True).user
    notify_store(request).remove_email(me.id)
    return {"ok": True}


@router.post("/api/notify/email/digest")
def email_digest(body: DigestIn, request: Request) -> dict[str, Any]:
    """Choose the digest interval in hours: 12, 24, or 0 (off)."""
    me = A.require(request, session_only=True).user
    notify_store(request).set_digest(me.id, body.hours)
    return {"digest_hours": body.hours}


def _verify_page(lang: str, body: str) -> HTMLResponse:
    page = f"<!doctype html><html lang='{lang}'><meta charset='utf-8'><title>tessera</title>{body}</html>"
    return HTMLResponse(page, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


@router.get("/api/notify/email/verify", include_in_schema=False)
def email_verify_page(request: Request, token: str = "") -> HTMLResponse:
    """The link of the verification e-mail: a page with one button that verifies (a GET changes
    nothing: mail scanners and link previews follow links)."""
    lang = language(request.headers.get("accept-language", "en").split(",")[0].split(";")[0].strip())
    body = (
        "<form method='post' action='/api/notify/email/verify'>"
        f"<p>{html.escape(text(lang, 'mail.verify_question'))}</p>"
        f"<input type='hidden' name='token' value='{html.escape(token[:200], quote=True)}'>"
        f"<button type='submit'>{html.escape(text(lang, 'mail.verify_button'))}</button></form>"
    )
    return _verify_page(lang, body)


@router.post("/api/notify/email/verify", include_in_schema=False)
async def email_verify(request: Request) -> RedirectResponse:
    """The verification page's button (a form's ``token=…``): the address is verified, and the
    account page says so."""
    raw = (await request.body())[:1000].decode("ascii", "replace")
    token = (parse_qs(raw).get("token") or [""])[0]
    ok = await run_in_threadpool(lambda: notify_store(request).verify(token) is not None)
    return RedirectResponse(f"/account?email={'verified' if ok else 'invalid'}#notifications", status_code=303)


def _unsubscribe_page(request: Request, user_id: str, sig: str, *, done: bool) -> HTMLResponse:
    import hmac

    store = notify_store(request)
    if not hmac.compare_digest(unsubscribe_signature(unsubscribe_key(store), user_id), sig):
        return HTMLResponse("<!doctype html><p>This unsubscribe link is not valid.</p>", status_code=404)
    found = store.email_settings(user_id)
    lang = found["lang"] if found else "en"
    if done:
        if found is not None and found["digest_hours"]:
            store.set_digest(user_id, 0)
        body = f"<p>{html.escape(text(lang, 'mail.unsubscribed'))}</p>"
    else:
        body = (
            f"<form method='post'><p>{html.escape(text(lang, 'mail.unsubscribe_question'))}</p>"
            f"<button type='submit'>{html.escape(text(lang, 'mail.unsubscribe_button'))}</button></form>"
        )
    page = f"<!doctype html><html lang='{lang}'><meta charset='utf-8'><title>tessera</title>{body}</html>"
    return HTMLResponse(page, headers={"Cache-Control": "no-store"})


@router.get("/api/notify/email/unsubscribe", include_in_schema=False)
def email_unsubscribe_page(request: Request, u: str = "", s: str = "") -> HTMLResponse:
    """The digest's unsubscribe link: a page with one button (a GET changes nothing: mail scanners
    follow links)."""
    return _unsubscribe_page(request, u, s, done=False)


@router.post("/api/notify/email/unsubscribe", include_in_schema=False)
async def email_unsubscribe(request: Request, u: str = "", s: str = "") -> HTMLResponse:
    """Unsubscribe from the digest: the page's button, and the mail client's one-click POST (RFC 8058,
    body ``List-Unsubscribe=One-Click``).  No log-in: the link is signed for the account."""
    await request.body()
    return await run_in_threadpool(_unsubscribe_page, request, u, s, done=True)
