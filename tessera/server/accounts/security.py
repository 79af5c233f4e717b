"""Secrets and names: Argon2id passwords, random session ids and API tokens stored as hashes,
username rules, same-site checks of cookie-authenticated writes (CSRF).

Nothing here logs; no function returns a password or a secret except the one that creates it.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

USERNAME = re.compile(r"[A-Za-z0-9_-]{2,20}")
"""Usernames: 2 to 20 letters (A-Z, a-z), digits, ``_`` and ``-``."""

RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "sysop",
        "tessera",
        "moderator",
        "mod",
        "staff",
        "support",
        "help",
        "official",
        "guest",
        "anonymous",
        "anon",
        "deleted",
        "nobody",
        "null",
        "none",
        "undefined",
        "api",
        "account",
        "login",
        "logout",
        "signup",
        "me",
        "ai",
        "bot",
        "computer",
        "engine",
        "lichess",
    }
)
"""Names nobody may take (compared in lower case); names beginning ``ai-`` or ``bot-`` are refused
too (``ai-level1`` … ``ai-level6`` are the AI accounts)."""

RESERVED_PREFIXES = ("ai-", "ai_", "bot-", "bot_", "admin", "deleted-")

MIN_PASSWORD = 8
MAX_PASSWORD = 256

SCOPES = ("play", "challenge", "read", "bot:play")
"""What a personal API token may do: ``play`` a seat bound to the account, make and answer
``challenge``\\ s, ``read`` the account and export its data, ``bot:play``: the bot API (upgrade
the account to a bot, play its games)."""

_HASHER = PasswordHash((Argon2Hasher(),))
"""Argon2id with argon2-cffi's default cost (3 passes over 64 MiB, 4 lanes)."""


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the account does not exist, so that an unknown user costs the same time
    as a wrong password (made on first use: an Argon2 hash is about 0.1 s of CPU, kept off the
    server's start-up)."""
    return str(_HASHER.hash(secrets.token_urlsafe(24)))


class Refused(HTTPException):
    """A request refused with an HTTP status and a reason: answered as ``{"detail": reason}`` with
    that status (and ``headers``, e.g. ``Retry-After``), plus the reason's catalogue ``key`` and
    its ``args`` when it has one (the page says it in the player's language; ``detail`` stays the
    English that bots and scripts read)."""

    def __init__(
        self,
        status: int,
        detail: str,
        headers: dict[str, str] | None = None,
        *,
        key: str | None = None,
        args: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=detail, headers=headers)
        self.key = key
        self.args_ = dict(args or {})  # not `args`: an exception's own args are a tuple

    def body(self) -> dict[str, Any]:
        """The JSON answer: ``{"detail"}``, with ``key`` and ``args`` when the reason has a key."""
        out: dict[str, Any] = {"detail": self.detail}
        if self.key is not None:
            out["key"] = self.key
            out["args"] = self.args_
        return out

    @property
    def status(self) -> int:
        return self.status_code


def state_text(word: str) -> dict[str, Any]:
    """A challenge's, rematch offer's or seek's state (``accepted``, ``paired`` …) as a keyed text for
    a refusal's arguments: the page says it in the player's language, else the English word."""
    return {"key": f"refusal.state.{word}", "args": {}, "text": word}


def username_key(name: str) -> str:
    """The form under which names are looked up: lower case."""
    return name.lower()


LOOK_ALIKE_LETTERS = str.maketrans({"0": "o", "1": "l", "i": "l"})
"""Single characters of the username alphabet that UTS #39's ``confusables.txt`` maps to one another
(``0`` → ``O``, ``1``, ``I`` and ``|`` → ``l``), closed under case: names compare in lower case, so
``I`` (whose lower case is ``i``) joins ``l``."""

LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
"""Pairs of the username alphabet that ``confusables.txt`` maps to one letter."""


def username_skeleton(name: str) -> str:
    """The form under which names are unique: a UTS #39 skeleton for the username alphabet
    (``[A-Za-z0-9_-]``), in lower case.  ``aIice1``, ``alice1`` and ``ALlCEl`` share ``allcel``;
    ``rn`` reads as ``m``.  Idempotent: ``username_skeleton(username_skeleton(x)) ==
    username_skeleton(x)``."""
    out = name.lower().translate(LOOK_ALIKE_LETTERS)
    for pair, letter in LOOK_ALIKE_PAIRS:
        out = out.replace(pair, letter)
    return out


def check_username(name: Any, *, allow_reserved: bool = False) -> str:
    """The username if it may be taken, else ``Refused(422)`` saying why."""
    if not isinstance(name, str) or not USERNAME.fullmatch(name):
        raise Refused(
            422,
            "a username is 2 to 20 characters: letters A-Z, digits, '_' and '-'",
            key="refusal.account.username_form",
        )
    key = username_key(name)
    if not allow_reserved and (key in RESERVED or key.startswith(RESERVED_PREFIXES)):
        raise Refused(
            422,
            f"the username {name!r} is reserved; choose another",
            key="refusal.account.username_reserved",
            args={"name": name},
        )
    return name


def check_password(password: Any, username: str | None = None) -> str:
    """The password if acceptable (8 to 256 characters, not the username), else ``Refused(422)``."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Refused(
            422,
            f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters",
            key="refusal.account.password_length",
            args={"min": MIN_PASSWORD, "max": MAX_PASSWORD},
        )
    if username is not None and password.lower() == username.lower():
        raise Refused(422, "the password must not be the username", key="refusal.account.password_is_name")
    return password


def hash_password(password: str) -> str:
    """An Argon2id hash (PHC string with its own salt and cost)."""
    return _HASHER.hash(password)


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; with no stored hash, or a password longer than any
    that can be set, the work is done all the same (against a dummy hash) and the answer is False."""
    if stored is None or len(password) > MAX_PASSWORD:
        _HASHER.verify(password[:MAX_PASSWORD], _dummy_hash())
        return False
    try:
        return bool(_HASHER.verify(password, stored))
    except Exception:  # a malformed stored hash never lets anyone in
        return False


def new_secret(prefix: str = "") -> str:
    """A random secret of 256 bits (URL-safe text), with an optional recognisable prefix."""
    return prefix + secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """The SHA-256 (hex) under which a session id or API token is stored: the secret itself is
    random and long, so a fast hash is enough and a stolen table gives no usable secret."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def throttle_key(kind: str, value: str) -> str:
    """The stored key of a log-in throttle: a hash, so that the table holds no addresses or names."""
    return hashlib.sha256(f"{kind}:{value}".encode("utf-8", "surrogatepass")).hexdigest()


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL (None: not an http(s) URL)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


def same_site(site: str, origin: str | None, referer: str | None) -> bool:
    """Whether a write comes from the site's own pages: its ``Origin`` header is ``site``, or, with
    no ``Origin``, its ``Referer`` is on ``site``.  With neither, False."""
    site = site.lower().rstrip("/")
    if origin is not None:
        return origin.lower().rstrip("/") == site
    if referer:
        return origin_of(referer) == site
    return False
