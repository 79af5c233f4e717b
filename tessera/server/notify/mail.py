"""E-mail: the SMTP settings (environment), the verification and digest messages, and the digest
sender that runs in the server as a periodic task.

Settings (docs/notifications.md):

``TESSERA_SMTP_HOST``
    the SMTP server; without it the server sends no e-mail (giving an address is refused, 503).
``TESSERA_SMTP_PORT``
    default 587 (465 with ``TESSERA_SMTP_SECURITY=tls``).
``TESSERA_SMTP_SECURITY``
    ``starttls`` (required), ``tls`` (implicit TLS), ``none`` (plain: a local relay), or ``auto``
    (default: STARTTLS when the server offers it).
``TESSERA_SMTP_USER``, ``TESSERA_SMTP_PASSWORD``
    log in to the SMTP server (both or neither).
``TESSERA_MAIL_FROM``
    the sender, e.g. ``tessera <noreply@example.org>`` (default ``tessera@<this host's name>``).
``TESSERA_DIGEST_CHECK``
    seconds between two looks for digests due (default 300).
``TESSERA_SITE_ORIGIN``
    the site's own origin, e.g. ``https://tessera.example.org`` (the first, when several are
    given): every link of an e-mail starts with it.  It is required for e-mail: with SMTP set
    and no site origin, the server starts, logs an error, and refuses to send (503) — a link is
    never built from a request's ``Host`` header, which whoever sends the request chooses.

The digest: an account with a verified address and an interval (12 h or 24 h) gets at most one
message per interval, listing the games waiting for it, and only when at least one of them
became its turn since the last digest.  Several server processes may run the sender: on
PostgreSQL one round at a time holds an advisory lock, and every message is claimed first by a
conditional update of the account's ``last_digest_at`` (one process wins it), so an account is
never sent two digests for one interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from typing import Any
from urllib.parse import quote, urlsplit

import sqlalchemy as sa
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts.store import AccountStore
from tessera.server.http.errors import ServiceError
from tessera.server.match.service import MatchService
from tessera.server.notify.store import NotifyStore
from tessera.server.notify.texts import text
from tessera.server.notify.waiting import waiting_games

log = logging.getLogger("tessera.server.notify.mail")

DIGEST_CHECK = 300.0
"""Seconds between two looks for digests due (``TESSERA_DIGEST_CHECK``)."""

DIGEST_LOCK = 7_424_052_007
"""The PostgreSQL advisory lock key held by the process sending a round of digests."""

SECURITY = ("auto", "starttls", "tls", "none")

STOP_WAIT = 40.0
"""Seconds the server's shutdown waits for a round of digests under way (then it is cancelled)."""


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how e-mail is sent."""

    host: str
    port: int
    security: str
    user: str | None
    password: str | None
    sender: str

    @classmethod
    def from_env(cls) -> SmtpSettings | None:
        """The settings of the environment (None: ``TESSERA_SMTP_HOST`` is not set, no e-mail)."""
        host = os.environ.get("TESSERA_SMTP_HOST", "").strip()
        if not host:
            return None
        security = os.environ.get("TESSERA_SMTP_SECURITY", "auto").strip().lower()
        if security not in SECURITY:
            raise ValueError(f"TESSERA_SMTP_SECURITY={security!r}: expected one of {', '.join(SECURITY)}")
        port = int(os.environ.get("TESSERA_SMTP_PORT") or (465 if security == "tls" else 587))
        user = os.environ.get("TESSERA_SMTP_USER") or None
        password = os.environ.get("TESSERA_SMTP_PASSWORD") or None
        if (user is None) != (password is None):
            raise ValueError("TESSERA_SMTP_USER and TESSERA_SMTP_PASSWORD go together")
        sender = os.environ.get("TESSERA_MAIL_FROM") or f"tessera@{socket.getfqdn()}"
        return cls(host, port, security, user, password, sender)

    async def send(self, msg: EmailMessage) -> None:
        """Hand one message to the SMTP server (raises on failure)."""
        import aiosmtplib

        await aiosmtplib.send(
            msg,
            hostname=self.host,
            port=self.port,
            username=self.user,
            password=self.password,
            use_tls=self.security == "tls",
            start_tls={"auto": None, "starttls": True, "tls": False, "none": False}[self.security],
            timeout=30,
        )

    def send_now(self, msg: EmailMessage) -> None:
        """:meth:`send` from a thread without an event loop (the request handlers' thread pool)."""
        asyncio.run(self.send(msg))


def site_origin() -> str | None:
    """The origin e-mail links start with: the first of ``TESSERA_SITE_ORIGIN`` when it is an
    ``http(s)://host[:port]`` origin, else None."""
    configured = (os.environ.get("TESSERA_SITE_ORIGIN") or "").split(",")[0].strip().rstrip("/")
    try:
        parts = urlsplit(configured)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query or parts.fragment:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def settings_or_refuse() -> tuple[SmtpSettings, str]:
    """The SMTP settings and the site origin for links, or 503 when this server sends no e-mail."""
    settings = SmtpSettings.from_env()
    if settings is None:
        raise ServiceError(
            503, "this server sends no e-mail (TESSERA_SMTP_HOST is not set)", key="refusal.notify.no_mail"
        )
    origin = site_origin()
    if origin is None:
        raise ServiceError(
            503,
            "this server sends no e-mail: its links need TESSERA_SITE_ORIGIN (the site's https:// origin)",
            key="refusal.notify.no_site_origin",
        )
    return settings, origin


def check_mail_settings() -> None:
    """At start-up: an error in the log when SMTP is set but ``TESSERA_SITE_ORIGIN`` is not (or is
    not an origin): no e-mail will be sent until it is."""
    if SmtpSettings.from_env() is not None and site_origin() is None:
        log.error(
            "TESSERA_SMTP_HOST is set but TESSERA_SITE_ORIGIN is not a site origin (e.g. https://tessera.example.org):"
            " no e-mail will be sent, since its links would have no trustworthy address"
        )


# -- the messages -----------------------------------------------------------------------------
def _message(settings: SmtpSettings, to: str, subject: str, body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = settings.sender
    msg["To"] = formataddr(("", to))
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=settings.sender.rsplit("@", 1)[-1].strip(">") or None)
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(body)
    return msg


def verification_message(settings: SmtpSettings, *, to: str, link: str, lang: str) -> EmailMessage:
    """The message with the link that verifies an address."""
    body = text(lang, "mail.verify_body", link=link) + "\n"
    return _message(settings, to, text(lang, "mail.verify_subject"), body)


def unsubscribe_key(store: NotifyStore) -> bytes:
    """The key of the unsubscribe links (made once for the database)."""
    value, _ = store.secret("unsubscribe", lambda: (secrets.token_hex(32), None))
    return bytes.fromhex(value)


def unsubscribe_signature(key: bytes, user_id: str) -> str:
    """The signature of an account's unsubscribe link (HMAC-SHA-256, 128 bits in hex)."""
    return hmac.new(key, f"digest-unsubscribe:{user_id}".encode(), hashlib.sha256).hexdigest()[:32]


def unsubscribe_link(base_url: str, key: bytes, user_id: str) -> str:
    """The one-click unsubscribe link of an account's digests (signed: no log-in needed)."""
    sig = unsubscribe_signature(key, user_id)
    return f"{base_url.rstrip('/')}/api/notify/email/unsubscribe?u={quote(user_id)}&s={sig}"


def digest_message(
    settings: SmtpSettings, *, to: str, lang: str, base_url: str, games: list[dict[str, Any]], unsubscribe: str
) -> EmailMessage:
    """The digest of games waiting: one line per game with its link; List-Unsubscribe (RFC 2369) with
    one-click unsubscription (RFC 8058)."""
    base = base_url.rstrip("/")
    lines = [text(lang, "mail.digest_intro", count=len(games)), ""]
    for g in games:
        others = ", ".join(p["name"] for p in g["players"] if p["seat"] not in g["seats"])
        lines.append(text(lang, "mail.digest_line", game=g["title"], players=others or "—"))
        lines.append(f"  {base}{g['url']}")
    lines += ["", text(lang, "mail.digest_footer", link=unsubscribe), ""]
    msg = _message(settings, to, text(lang, "mail.digest_subject", count=len(games)), "\n".join(lines))
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return msg


# -- the digest sender --------------------------------------------------------------------------
class DigestSender:
    """Sends the digests due, every ``every`` seconds, as a task on the server's event loop (the
    database work and the waiting games are read in a thread)."""

    def __init__(self, service: MatchService, store: NotifyStore, every: float | None = None) -> None:
        self.service = service
        self.store = store
        self.accounts = AccountStore(service.storage)
        env = os.environ.get("TESSERA_DIGEST_CHECK")
        self.every = every if every is not None else float(env) if env else DIGEST_CHECK
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        """Run :meth:`round` every ``every`` seconds from now on (only when SMTP is configured)."""
        if SmtpSettings.from_env() is None:
            return
        self._stopping = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """Stop the periodic task: a round under way is let finish (a message half handed to the SMTP
        server is not cut off), for at most :data:`STOP_WAIT` seconds."""
        if self._task is None:
            return
        self._stopping.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), STOP_WAIT)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.every)
            if self._stopping.is_set():
                return
            try:
                await self.round()
            except Exception:
                log.exception("a round of digests failed")

    async def round(self, now: float | None = None) -> int:
        """Send every digest due now; how many were sent by this process."""
        settings = SmtpSettings.from_env()
        if settings is None:
            return 0
        when = time.time() if now is None else now
        lock = await run_in_threadpool(self._lock)
        if lock is False:
            return 0  # another process is sending this round
        sent = 0
        try:
            await run_in_threadpool(self.store.forget_deleted)
            for due in await run_in_threadpool(self.store.due_digests, when):
                made = await run_in_threadpool(self._prepare, settings, due, when)
                if made is None:
                    continue
                try:
                    await settings.send(made)
                    sent += 1
                except Exception as e:
                    log.warning("a digest could not be sent (%s); it is tried again next round", type(e).__name__)
                    await run_in_threadpool(self.store.claim_digest, due["user_id"], when, due["last_digest_at"])
        finally:
            await run_in_threadpool(self._unlock, lock)
        return sent

    def _prepare(self, settings: SmtpSettings, due: dict[str, Any], now: float) -> EmailMessage | None:
        """The digest of one account, claimed for this interval (None: nothing new is waiting, the
        account is gone, or another process claimed it)."""
        user = self.accounts.user_by_id(due["user_id"])
        if user is None or user.deleted_at is not None:
            return None
        games = waiting_games(self.service, user_id=user.id, tokens=[])
        last = due["last_digest_at"]
        if not games or (last is not None and all(g["since"] <= last for g in games)):
            return None
        if not self.store.claim_digest(user.id, last, now):
            return None
        base = site_origin()
        if base is None:  # logged at start-up; no link from anything else
            return None
        link = unsubscribe_link(base, unsubscribe_key(self.store), user.id)
        return digest_message(settings, to=due["email"], lang=due["lang"], base_url=base, games=games, unsubscribe=link)

    def _lock(self) -> Any:
        """On PostgreSQL a connection holding the digests' advisory lock (False: another process holds
        it); None elsewhere (the per-account claim is enough)."""
        engine = self.service.storage.engine
        if engine.dialect.name != "postgresql":
            return None
        conn = engine.connect()
        if conn.execute(sa.select(sa.func.pg_try_advisory_lock(DIGEST_LOCK))).scalar():
            conn.commit()
            return conn
        conn.close()
        return False

    @staticmethod
    def _unlock(conn: Any) -> None:
        if conn:
            try:
                conn.execute(sa.select(sa.func.pg_advisory_unlock(DIGEST_LOCK)))
                conn.commit()
            finally:
                conn.close()
