"""Accounts under attack: sessions, CSRF, throttling, names, secrets in logs and records."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts import store as store_module
from tessera.server.accounts.auth import COOKIE
from tests.server.accounts.conftest import PASSWORD

Browser = Callable[..., TestClient]
User = Callable[[str], TestClient]


def dump_database(app: FastAPI) -> str:
    """Every value of every table, as one text."""
    engine = app.state.storage.engine
    out = []
    with engine.connect() as conn:
        for table in sa.inspect(engine).get_table_names():
            for row in conn.execute(sa.text(f'SELECT * FROM "{table}"')):
                out.append(repr(tuple(row)))
    return "\n".join(out)


def test_signup_sets_an_httponly_samesite_lax_session_cookie_not_secure_over_http(browser: Browser) -> None:
    """'sessions are random server-side ids in HttpOnly, SameSite=Lax cookies (Secure behind HTTPS)'."""
    r = browser().post("/api/account/signup", json={"username": "Alice", "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert r.json()["username"] == "Alice" and r.json()["ratings"] == {}
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie


def test_the_session_cookie_is_secure_over_https(browser: Browser) -> None:
    b = browser(origin="https://testserver", base_url="https://testserver")
    r = b.post("/api/account/signup", json={"username": "Alice", "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert "Secure" in r.headers["set-cookie"]


def test_a_guest_gets_401_from_the_account(browser: Browser) -> None:
    """'GET /api/account … (401 when not logged in)'."""
    r = browser().get("/api/account")
    assert r.status_code == 401 and "detail" in r.json()


def test_an_unknown_user_and_a_wrong_password_get_the_same_answer(user: User, browser: Browser) -> None:
    """'the same answer for an unknown user and a wrong password' (status and body)."""
    user("Alice")
    wrong = browser().post("/api/account/login", json={"username": "Alice", "password": "not the password"})
    unknown = browser().post("/api/account/login", json={"username": "Nobody12", "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers
    ok = browser().post("/api/account/login", json={"username": "alice", "password": PASSWORD})
    assert ok.status_code == 200 and ok.json()["username"] == "Alice"


def test_an_unknown_user_costs_an_argon2_verification_like_a_wrong_password(
    user: User, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No shortcut for unknown names: both paths run exactly one Argon2 verification."""
    from tessera.server.accounts import security

    user("Alice")
    calls: list[str] = []
    real = security._HASHER.verify

    def counting(password: str, hashed: str) -> bool:
        calls.append(hashed)
        return bool(real(password, hashed))

    monkeypatch.setattr(security._HASHER, "verify", counting)
    browser().post("/api/account/login", json={"username": "Alice", "password": "not the password"})
    browser().post("/api/account/login", json={"username": "Nobody12", "password": "not the password"})
    assert len(calls) == 2 and all(h.startswith("$argon2id$") for h in calls)


def test_logout_revokes_the_session_and_a_replayed_cookie_is_refused(user: User, browser: Browser) -> None:
    """'sessions … revoked on logout': the old cookie, replayed, no longer logs in."""
    alice = user("Alice")
    sid = alice.cookies[COOKIE]
    assert alice.get("/api/account").status_code == 200
    assert alice.post("/api/account/logout").status_code == 200
    thief = browser()
    thief.cookies.set(COOKIE, sid)
    assert thief.get("/api/account").status_code == 401
    assert thief.post("/api/account/tokens", json={"scopes": ["read"]}).status_code == 401


def test_a_password_change_revokes_every_other_session(user: User, browser: Browser) -> None:
    """'sessions … revoked on … password change'; the old password stops working."""
    alice = user("Alice")
    other = browser()
    assert other.post("/api/account/login", json={"username": "Alice", "password": PASSWORD}).status_code == 200
    r = alice.post("/api/account/password", json={"current": "wrong password", "new": "a new password 2"})
    assert r.status_code == 403
    r = alice.post("/api/account/password", json={"current": PASSWORD, "new": "a new password 2"})
    assert r.status_code == 200, r.text
    assert alice.get("/api/account").status_code == 200  # this browser got a new session
    assert other.get("/api/account").status_code == 401
    old = browser().post("/api/account/login", json={"username": "Alice", "password": PASSWORD})
    assert old.status_code == 401
    new = browser().post("/api/account/login", json={"username": "Alice", "password": "a new password 2"})
    assert new.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://testserver.evil.example"},
        {"Referer": "https://evil.example/page"},
        {},
    ],
    ids=["other-origin", "null-origin", "lookalike", "other-referer", "no-origin-no-referer"],
)
def test_a_cross_site_cookie_write_is_refused_and_changes_nothing(
    user: User, browser: Browser, headers: dict[str, str]
) -> None:
    """'a cookie-authenticated write is refused unless its Origin (or Referer) is the site's own'."""
    alice = user("Alice")
    sid = alice.cookies[COOKIE]
    attacker = browser(origin=None)
    attacker.cookies.set(COOKIE, sid)
    r = attacker.post("/api/account/tokens", json={"scopes": ["play"]}, headers=headers)
    assert r.status_code == 403 and "cross-site" in r.json()["detail"]
    r = attacker.post("/api/challenges", json={"to": "ai-level1", "game": "nibble"}, headers=headers)
    assert r.status_code == 403
    r = attacker.post("/api/account/logout", headers=headers)
    assert r.status_code == 403
    assert alice.get("/api/account/tokens").json()["tokens"] == []
    assert alice.get("/api/challenges").json() == {"incoming": [], "outgoing": []}
    assert alice.get("/api/account").status_code == 200


def test_a_same_site_referer_is_enough_without_origin(user: User, browser: Browser) -> None:
    alice = user("Alice")
    b = browser(origin=None)
    b.cookies.set(COOKIE, alice.cookies[COOKIE])
    r = b.post("/api/account/tokens", json={"scopes": ["read"]}, headers={"Referer": "http://testserver/account"})
    assert r.status_code == 201


def test_a_cross_site_login_is_refused(user: User, browser: Browser) -> None:
    """Log-in CSRF: a page of another site cannot log a visitor in to an account of its choice."""
    user("Alice")
    r = browser(origin="https://evil.example").post(
        "/api/account/login", json={"username": "Alice", "password": PASSWORD}
    )
    assert r.status_code == 403 and "set-cookie" not in r.headers


def test_a_login_flood_on_one_account_gets_429_with_retry_after_even_for_the_right_password(
    user: User, browser: Browser
) -> None:
    """'failed logins throttled per account … (429 with Retry-After)'."""
    user("Alice")
    b = browser()
    for _ in range(store_module.ACCOUNT_FAILURES):
        assert b.post("/api/account/login", json={"username": "Alice", "password": "guess guess"}).status_code == 401
    r = b.post("/api/account/login", json={"username": "alice", "password": PASSWORD})
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= store_module.THROTTLE_WINDOW + 1
    assert "set-cookie" not in r.headers


def test_a_login_flood_from_one_address_over_many_names_gets_429(browser: Browser) -> None:
    """'failed logins throttled … per address'."""
    b = browser()
    codes = [
        b.post("/api/account/login", json={"username": f"name{i}", "password": "guess guess"}).status_code
        for i in range(store_module.ADDRESS_FAILURES + 1)
    ]
    assert codes[:-1] == [401] * store_module.ADDRESS_FAILURES
    assert codes[-1] == 429


@pytest.mark.parametrize(
    "name",
    [
        "",
        "a",
        "x" * 21,
        "ai-level1",
        "AI-Level3",
        "ai_bot",
        "admin",
        "ADMIN",
        "Administrator",
        "deleted",
        "bot-one",
        "héllo",
        "a b",
        "a/b",
        "../etc",
        "x\x00y",
        "名前",
        "<script>",
        "a.b",
        "ok\n",
    ],
)
def test_weird_and_reserved_usernames_are_refused_and_nothing_is_stored(browser: Browser, name: str) -> None:
    """'usernames 2–20 of [A-Za-z0-9_-] … reserved names refused (ai-…, admin, …)'."""
    b = browser()
    r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 422, r.text
    assert isinstance(r.json()["detail"], str)
    assert "set-cookie" not in r.headers
    assert b.get("/api/account").status_code == 401


@pytest.mark.parametrize("body", [{"username": 12, "password": PASSWORD}, {"username": "Alice"}, {"password": "x"}])
def test_malformed_signups_are_refused(browser: Browser, body: dict[str, Any]) -> None:
    assert browser().post("/api/account/signup", json=body).status_code == 422


def test_usernames_are_unique_without_regard_to_case(user: User, browser: Browser) -> None:
    user("Bob_1")
    r = browser().post("/api/account/signup", json={"username": "bOB_1", "password": PASSWORD})
    assert r.status_code == 409
    assert browser().get("/api/users/BOB_1").json()["username"] == "Bob_1"


@pytest.mark.parametrize("password", ["short", "x" * 257, "Alice"])
def test_weak_passwords_are_refused(browser: Browser, password: str) -> None:
    r = browser().post("/api/account/signup", json={"username": "Alice", "password": password})
    assert r.status_code == 422


def test_passwords_are_stored_only_as_argon2id_hashes_and_secrets_only_hashed(user: User, app: FastAPI) -> None:
    """'passwords hashed with Argon2id'; 'no password or token ever in … a record' (the database)."""
    alice = user("Alice")
    token = alice.post("/api/account/tokens", json={"scopes": ["read"]}).json()["token"]
    sid = alice.cookies[COOKIE]
    text = dump_database(app)
    assert "$argon2id$" in text
    for secret in (PASSWORD, token, sid):
        assert secret not in text


def test_tokens_and_passwords_never_reach_the_logs(
    user: User, browser: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    """'no password or token ever in a log': every logger at DEBUG through sign-up, log-in, token use."""
    caplog.set_level(logging.DEBUG)
    alice = user("Alice")
    sid = alice.cookies[COOKIE]
    made = alice.post("/api/account/tokens", json={"scopes": ["read", "challenge"]}).json()
    token = made["token"]
    script = browser(origin=None)
    assert script.get("/api/account", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    browser().post("/api/account/login", json={"username": "Alice", "password": "wrong " + PASSWORD})
    browser().post("/api/account/login", json={"username": "Alice", "password": PASSWORD})
    alice.post("/api/account/password", json={"current": PASSWORD, "new": "second " + PASSWORD})
    alice.delete(f"/api/account/tokens/{made['id']}")
    assert script.get("/api/account", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    logged = caplog.text + "\n".join(str(r.args) for r in caplog.records)
    assert caplog.records  # the requests were logged (by httpx at least)
    for secret in (PASSWORD, "second " + PASSWORD, token, sid):
        assert secret not in logged


def test_tokens_are_shown_once_listed_without_secret_scoped_and_revocable(user: User, browser: Browser) -> None:
    """'Personal API tokens (Authorization: Bearer …, scopes, shown once, listed, revocable, stored hashed)'."""
    alice = user("Alice")
    r = alice.post("/api/account/tokens", json={"scopes": ["read"]})
    assert r.status_code == 201
    made = r.json()
    assert made["token"].startswith("tsr_") and made["scopes"] == ["read"]
    listed = alice.get("/api/account/tokens").json()["tokens"]
    assert [t["id"] for t in listed] == [made["id"]] and "token" not in listed[0]
    script = browser(origin=None)
    bearer = {"Authorization": f"Bearer {made['token']}"}
    assert script.get("/api/account", headers=bearer).json()["username"] == "Alice"
    # a read-only token cannot challenge, nor manage tokens
    assert script.post("/api/challenges", json={"to": "ai-level1", "game": "nibble"}, headers=bearer).status_code == 403
    assert script.post("/api/account/tokens", json={"scopes": ["play"]}, headers=bearer).status_code == 403
    assert alice.delete(f"/api/account/tokens/{made['id']}").status_code == 200
    assert script.get("/api/account", headers=bearer).status_code == 401
    assert alice.get("/api/account/tokens").json()["tokens"][0]["revoked"] is True
    assert script.get("/api/account", headers={"Authorization": "Bearer tsr_made-up"}).status_code == 401
    assert script.get("/api/account", headers={"Authorization": "Basic abc"}).status_code == 401


@pytest.mark.parametrize("scopes", [[], ["root"], "play", [1]])
def test_bad_scopes_are_refused(user: User, scopes: Any) -> None:
    alice = user("Alice")
    assert alice.post("/api/account/tokens", json={"scopes": scopes}).status_code == 422
    assert alice.get("/api/account/tokens").json()["tokens"] == []


def test_a_bearer_write_needs_no_origin(user: User, browser: Browser) -> None:
    """A token is not sent by browsers on their own: scripts post without Origin."""
    alice = user("Alice")
    token = alice.post("/api/account/tokens", json={"scopes": ["challenge"]}).json()["token"]
    r = browser(origin=None).post(
        "/api/challenges", json={"to": "ai-level2", "game": "nibble"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 201, r.text


def test_a_password_with_the_right_beginning_but_longer_than_any_allowed_does_not_log_in(
    browser: Browser,
) -> None:
    """Passwords are compared whole: nothing is cut off before checking."""
    pw = "p" * 256
    assert browser().post("/api/account/signup", json={"username": "Longpw", "password": pw}).status_code == 201
    r = browser().post("/api/account/login", json={"username": "Longpw", "password": pw + "extra"})
    assert r.status_code == 401
    assert browser().post("/api/account/login", json={"username": "Longpw", "password": pw}).status_code == 200
