"""Web Push: the server's VAPID key pair (made once, kept in the database), what a push says,
and sending one (``pywebpush``: the payload encrypted for the subscription, RFC 8291, signed
with the VAPID key, RFC 8292).

A push never says what was played: "your turn" names the game and that it is your move, "game
over" the result everybody sees, "challenge received" who challenges you to what.  A sealed
Nelaxtam order is therefore never in a push (nor is any move).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from typing import Any

from tessera.server.notify import endpoints
from tessera.server.notify.store import NotifyStore
from tessera.server.notify.texts import text

log = logging.getLogger("tessera.server.notify")

TTL = 24 * 3600
"""Seconds a push service keeps an undelivered push (a browser offline for a day misses it)."""

TIMEOUT = 10.0
"""Seconds to wait for a push service's answer."""


def b64url(data: bytes) -> str:
    """URL-safe base64 without padding (as Web Push keys are written)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text_: str) -> bytes:
    """The bytes of :func:`b64url` text (``ValueError`` if it is not)."""
    return base64.urlsafe_b64decode(text_ + "=" * (-len(text_) % 4))


def available() -> bool:
    """Whether ``pywebpush`` is installed (the ``notify`` extra)."""
    try:
        import pywebpush  # noqa: F401
    except ImportError:
        return False
    return True


def subject() -> str:
    """The VAPID ``sub`` claim: ``TESSERA_VAPID_SUBJECT``, else ``mailto:`` the mail sender, else a
    placeholder (push services use it to reach the operator)."""
    configured = os.environ.get("TESSERA_VAPID_SUBJECT") or ""
    if configured:
        return configured
    sender = os.environ.get("TESSERA_MAIL_FROM") or ""
    address = sender.rsplit("<", 1)[-1].rstrip(">").strip()
    return f"mailto:{address}" if "@" in address else "mailto:tessera@localhost"


def _make_keys() -> tuple[str, str]:
    from cryptography.hazmat.primitives import serialization
    from py_vapid import Vapid02

    v = Vapid02()
    v.generate_keys()
    public = v.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return v.private_pem().decode("ascii"), b64url(public)


class Pusher:
    """Sends pushes with the database's VAPID key (loaded, or made, on first use)."""

    def __init__(self, store: NotifyStore) -> None:
        self.store = store
        self._key: Any = None
        self._public: str | None = None
        self._guard = threading.Lock()

    def public_key(self) -> str:
        """The VAPID public key (the browser's ``applicationServerKey``)."""
        self._load()
        assert self._public is not None
        return self._public

    def _load(self) -> None:
        with self._guard:
            if self._key is not None:
                return
            from py_vapid import Vapid02

            pem, public = self.store.secret("vapid", _make_keys)
            self._key = Vapid02.from_pem(pem.encode("ascii"))
            self._public = public

    def send(self, sub: dict[str, Any], payload: dict[str, Any]) -> bool:
        """Push ``payload`` (JSON) to one subscription; the outcome is noted on it (a subscription the
        push service calls gone — 404 or 410 — is dropped).  Blocking: call it off the event loop."""
        from pywebpush import WebPushException, webpush

        self._load()
        info = {"endpoint": sub["endpoint"], "keys": sub["keys"]}
        try:
            endpoints.split_endpoint(sub["endpoint"])  # the form and the allow-list as they are now
        except endpoints.EndpointRefused as e:
            log.warning("push to subscription %s refused: %s", sub["id"][:12], e.detail)
            self.store.sent(sub["id"], ok=False, gone=True)
            return False
        try:
            with endpoints.session() as session:  # each address checked at connection, no redirects
                webpush(
                    info,
                    json.dumps(payload, ensure_ascii=False),
                    vapid_private_key=self._key,
                    vapid_claims={"sub": subject()},
                    ttl=TTL,
                    timeout=TIMEOUT,
                    requests_session=session,
                )
        except endpoints.EndpointRefused as e:  # the host resolves to a local address now
            log.warning("push to subscription %s refused: %s", sub["id"][:12], e.detail)
            self.store.sent(sub["id"], ok=False, gone=True)
            return False
        except WebPushException as e:
            status = getattr(e.response, "status_code", None)
            log.warning("push to subscription %s failed (%s)", sub["id"][:12], status or e)
            self.store.sent(sub["id"], ok=False, gone=status in (404, 410))
            return False
        except Exception as e:  # the push service unreachable: counted as a failure
            log.warning("push to subscription %s failed: %s", sub["id"][:12], type(e).__name__)
            self.store.sent(sub["id"], ok=False)
            return False
        self.store.sent(sub["id"], ok=True)
        return True


# -- what a push says ------------------------------------------------------------------------
def turn_payload(lang: str, *, game_id: str, title: str) -> dict[str, Any]:
    """Your turn in a game: its name and link, nothing of the position."""
    return {
        "kind": "turn",
        "game_id": game_id,
        "url": f"/g/{game_id}",
        "title": text(lang, "push.turn_title"),
        "body": text(lang, "push.turn_body", game=title),
    }


def end_payload(lang: str, *, game_id: str, title: str, result: str) -> dict[str, Any]:
    """A game over, with its public result."""
    return {
        "kind": "end",
        "game_id": game_id,
        "url": f"/g/{game_id}",
        "title": text(lang, "push.end_title"),
        "body": text(lang, "push.end_body", game=title, result=result),
    }


def challenge_payload(lang: str, *, challenger: str, game: str) -> dict[str, Any]:
    """A challenge received: who, and to which game (answered on the lobby)."""
    return {
        "kind": "challenge",
        "url": "/",
        "title": text(lang, "push.challenge_title"),
        "body": text(lang, "push.challenge_body", player=challenger, game=game),
    }
