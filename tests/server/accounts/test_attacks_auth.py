"""Log-in, sign-up and password checks under attack (issue 35): concurrent guessing, lock-outs aimed
at the owner, the password re-check, tokens that outlive a password, look-alike names, and chat
posted with a token that may only read."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from tessera.server.accounts import security, throttle
from tessera.server.accounts.tables import users_table
from tests.server.accounts.conftest import PASSWORD

Browser = Callable[..., TestClient]
User = Callable[[str], TestClient]


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many Argon2 verifications and hashes ran."""
    counts = {"verify": 0, "hash": 0}
    real_verify, real_hash = security._HASHER.verify, security._HASHER.hash

    def verify(password: str, hashed: str) -> bool:
        counts["verify"] += 1
        return bool(real_verify(password, hashed))

    def hash_(password: str) -> str:
        counts["hash"] += 1
        return str(real_hash(password))

    monkeypatch.setattr(security._HASHER, "verify", verify)
    monkeypatch.setattr(security._HASHER, "hash", hash_)
    return counts


def at(browser: Browser, address: str) -> TestClient:
    """A new browser at ``address``."""
    return browser(client=(address, 50000))


def bearer(browser: Browser, token: str) -> TestClient:
    """A script using an API token (no cookie, no Origin)."""
    c = browser(origin=None)
    c.headers["Authorization"] = f"Bearer {token}"
    return c


def login(b: TestClient, name: str, password: str) -> int:
    return b.post("/api/account/login", json={"username": name, "password": password}).status_code


def test_forty_concurrent_wrong_log_ins_check_at_most_the_limit(
    user: User, browser: Browser, hashes: dict[str, int]
) -> None:
    """The attempt is counted before the hash: 40 guesses at once check at most
    ``ACCOUNT_FAILURES`` passwords (the rest get 429 without any Argon2 work)."""
    user("Alice")
    hashes["verify"] = 0
    clients = [at(browser, "10.0.0.66") for _ in range(40)]
    with ThreadPoolExecutor(40) as pool:
        codes = list(pool.map(lambda b: login(b, "Alice", "a wrong guess"), clients))
    assert set(codes) <= {401, 429}
    assert codes.count(401) <= throttle.ACCOUNT_FAILURES
    assert hashes["verify"] <= throttle.ACCOUNT_FAILURES


def test_thirty_concurrent_sign_ups_from_one_address_make_at_most_the_limit(
    app: FastAPI, browser: Browser, hashes: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TESSERA_SIGNUPS_PER_ADDRESS", raising=False)
    from tessera.server.accounts.store import SIGNUPS_PER_ADDRESS

    clients = [at(browser, "10.0.0.77") for _ in range(30)]

    def signup(i: int) -> int:
        r = clients[i].post("/api/account/signup", json={"username": f"Maker{i}", "password": PASSWORD})
        return r.status_code

    with ThreadPoolExecutor(30) as pool:
        codes = list(pool.map(signup, range(30)))
    assert set(codes) <= {201, 429}
    assert codes.count(201) <= SIGNUPS_PER_ADDRESS
    with app.state.storage.engine.connect() as conn:
        made = conn.execute(sa.select(sa.func.count()).select_from(users_table)).scalar()
    assert made == codes.count(201) <= SIGNUPS_PER_ADDRESS
    assert hashes["hash"] <= SIGNUPS_PER_ADDRESS


def test_guessing_from_many_addresses_does_not_lock_the_owner_out(
    user: User, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lock-out as a weapon: failures from anywhere must not stop the owner.  Guesses from several
    addresses exhaust the account's unknown-places budget; the owner's own browser (its device
    cookie) and a new browser at an address the account logged in from still log in.  A new
    device at a new address waits (the price of stopping a spread-out guessing).  The budget is
    made twice the per-address one here (50 in the site's settings): the rule is the same, with
    half the Argon2 checks."""
    monkeypatch.setattr(throttle, "UNKNOWN_FAILURES", 2 * throttle.ACCOUNT_FAILURES)
    owner = at(browser, "10.0.0.1")
    r = owner.post("/api/account/signup", json={"username": "Owner1", "password": PASSWORD})
    assert r.status_code == 201
    assert owner.post("/api/account/logout").status_code == 200
    per_address = throttle.ACCOUNT_FAILURES
    addresses = [f"10.6.0.{i}" for i in range(throttle.UNKNOWN_FAILURES // per_address + 1)]
    codes = [login(at(browser, a), "Owner1", f"guess {n}") for a in addresses for n in range(per_address)]
    assert codes.count(429) >= 1  # the account's budget for unknown places is spent
    assert login(at(browser, "10.6.9.9"), "Owner1", PASSWORD) == 429
    assert login(owner, "Owner1", PASSWORD) == 200  # the owner's device
    assert login(at(browser, "10.0.0.1"), "owner1", PASSWORD) == 200  # the owner's address, another browser


def test_guessing_at_the_owners_address_does_not_stop_the_owners_device(user: User, browser: Browser) -> None:
    """Someone behind the owner's own address (a shared network) fills that address's budget: the
    owner's device is counted on its own."""
    owner = at(browser, "10.0.0.2")
    assert owner.post("/api/account/signup", json={"username": "Owner2", "password": PASSWORD}).status_code == 201
    owner.post("/api/account/logout")
    neighbour = at(browser, "10.0.0.2")
    for n in range(throttle.ACCOUNT_FAILURES):
        assert login(neighbour, "Owner2", f"guess {n}") == 401
    assert login(neighbour, "Owner2", PASSWORD) == 429
    assert login(owner, "Owner2", PASSWORD) == 200


def test_a_device_cookie_of_another_account_gives_no_extra_guesses(user: User, browser: Browser) -> None:
    """The device path is per account: the attacker's own device, known to his own account, is a
    stranger to the victim's."""
    attacker = at(browser, "10.0.0.3")
    assert attacker.post("/api/account/signup", json={"username": "Mallory", "password": PASSWORD}).status_code == 201
    user("Victim1")
    for n in range(throttle.ACCOUNT_FAILURES):
        assert login(attacker, "Victim1", f"guess {n}") == 401
    assert login(attacker, "Victim1", PASSWORD) == 429


def test_the_password_recheck_is_throttled_like_log_in(user: User, hashes: dict[str, int]) -> None:
    """Changing the password and deleting the account check the password again: counted before the
    hash, 429 after ``ACCOUNT_FAILURES`` wrong ones (whatever comes next), at most that many checks."""
    b = user("Checker")
    hashes["verify"] = 0
    for n in range(throttle.ACCOUNT_FAILURES):
        r = b.post("/api/account/password", json={"current": f"wrong {n}", "new": "a new password 1"})
        assert r.status_code == 403
    r = b.post("/api/account/password", json={"current": PASSWORD, "new": "a new password 1"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    r = b.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 429
    assert hashes["verify"] <= throttle.ACCOUNT_FAILURES
    assert b.get("/api/account").status_code == 200  # nothing changed


def test_a_right_password_recheck_is_not_counted(user: User) -> None:
    b = user("Changer")
    for n in range(throttle.ACCOUNT_FAILURES + 2):
        new, old = (f"password number {n}", PASSWORD if n == 0 else f"password number {n - 1}")
        assert b.post("/api/account/password", json={"current": old, "new": new}).status_code == 200


def test_api_tokens_are_revoked_when_the_password_changes(user: User, browser: Browser) -> None:
    """A token made before the password changed (perhaps by whoever knew the old one) stops working."""
    b = user("Tokened")
    token = b.post("/api/account/tokens", json={"scopes": ["read", "play"]}).json()["token"]
    api = bearer(browser, token)
    assert api.get("/api/account").status_code == 200
    assert b.post("/api/account/password", json={"current": PASSWORD, "new": "another password"}).status_code == 200
    assert api.get("/api/account").status_code == 401
    assert all(t["revoked"] for t in b.get("/api/account/tokens").json()["tokens"])


@pytest.mark.parametrize(
    ("taken", "look_alike"), [("alice1", "aIice1"), ("alice1", "ALICEl"), ("Mary", "rnary"), ("bob0", "BOBO")]
)
def test_a_look_alike_username_is_refused(browser: Browser, taken: str, look_alike: str) -> None:
    """Usernames are unique under their UTS #39 skeleton (``I``/``l``/``1``, ``0``/``O``, ``rn``/``m`` …)."""
    assert browser().post("/api/account/signup", json={"username": taken, "password": PASSWORD}).status_code == 201
    r = browser().post("/api/account/signup", json={"username": look_alike, "password": PASSWORD})
    assert r.status_code == 409
    body = r.json()
    assert body["key"] == "refusal.account.username_look_alike"
    assert body["args"] == {"name": look_alike, "other": taken}
    assert taken in body["detail"] and look_alike in body["detail"]


def test_a_name_that_looks_like_an_ai_account_is_refused_before_the_ai_account_exists(browser: Browser) -> None:
    """``al-level1`` reads as ``ai-level1`` (made only when first challenged): refused all the same."""
    r = browser().post("/api/account/signup", json={"username": "al-level1", "password": PASSWORD})
    assert r.status_code == 409 and r.json()["args"] == {"name": "al-level1", "other": "ai-level1"}


def test_the_migration_fills_the_skeleton_of_existing_accounts_oldest_first(db_url: str) -> None:
    """Accounts made before the skeleton: the oldest of two look-alikes holds it, both still log in,
    and no new name can look like either."""
    from tessera.server.http.app import create_app
    from tests.server.accounts.test_migration import migrate

    migrate(db_url, "0010")
    engine = sa.create_engine(db_url)
    users = sa.table(
        "users",
        *(sa.column(c) for c in ("id", "username", "username_key", "password_hash", "is_bot", "created_at")),
    )
    hashed = security.hash_password(PASSWORD)
    with engine.begin() as conn:
        for i, name in enumerate(["alice1", "aIice1"]):
            conn.execute(
                users.insert().values(
                    id=f"u{i}",
                    username=name,
                    username_key=name.lower(),
                    password_hash=hashed,
                    is_bot=False,
                    created_at=i,
                )
            )
    engine.dispose()
    migrate(db_url, "head")
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        rows = dict(conn.execute(sa.text("SELECT username, username_skeleton FROM users")).all())
    engine.dispose()
    assert rows == {"alice1": "allcel", "aIice1": None}
    with TestClient(create_app(db_url, ai_mode="thread", warm=False), headers={"Origin": "http://testserver"}) as c:
        assert login(c, "aIice1", PASSWORD) == 200
        r = c.post("/api/account/signup", json={"username": "AL1CE1", "password": PASSWORD})
        assert r.status_code == 409


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-|", max_size=20))
def test_the_migrations_frozen_skeleton_is_the_accounts_rule_of_today(name: str) -> None:
    """Revision 0014 fills the skeletons with its own copy of the rule (the store imports no domain, and a
    migration runs the rule of its day): while the rule is unchanged, the copy gives the accounts
    domain's skeleton for every name.  A change of the rule fails here: it needs a new revision."""
    revision = importlib.import_module("tessera.server.store.migrations.versions.0014_account_security")
    assert revision.username_skeleton(name) == security.username_skeleton(name)


def _token(b: TestClient, scopes: list[str]) -> str:
    r = b.post("/api/account/tokens", json={"scopes": scopes})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def test_a_read_scope_token_cannot_post_chat(user: User, browser: Browser) -> None:
    """Chat is a write: a token with only ``read`` is refused (403) on post, mute and unmute; a
    ``play`` token may speak."""
    b = user("Reader")
    guest = browser()
    g = guest.post("/api/games", json={"game": "nibble", "mode": "online", "public": True}).json()
    reader = bearer(browser, _token(b, ["read"]))
    r = reader.post(f"/api/games/{g['id']}/chat", json={"room": "spectator", "text": "hello"})
    assert r.status_code == 403 and r.json()["args"] == {"scope": "play"}
    for path in ("mute", "unmute"):
        assert reader.post(f"/api/games/{g['id']}/chat/{path}", json={"seat": 0}).status_code == 403
    history = guest.get(f"/api/games/{g['id']}/chat", params={"room": "spectator"}).json()
    assert history["messages"] == []
    player = bearer(browser, _token(b, ["play"]))
    assert player.post(f"/api/games/{g['id']}/chat", json={"room": "spectator", "text": "hello"}).status_code == 201


def test_the_bot_chat_needs_the_bot_scope(user: User, browser: Browser) -> None:
    b = user("NotBot")
    reader = bearer(browser, _token(b, ["read", "play"]))
    r = reader.post("/api/bot/game/nogame/chat", json={"room": "player", "text": "hi"})
    assert r.status_code == 403


def test_concurrent_right_log_ins_from_one_device_all_succeed(browser: Browser) -> None:
    """Eight tabs logging in at once from one browser: each is noted as the known device (once)."""
    first = at(browser, "10.0.0.88")
    assert first.post("/api/account/signup", json={"username": "Tabs", "password": PASSWORD}).status_code == 201
    device = first.cookies.get("tessera_device")
    assert device
    tabs = []
    for _ in range(8):
        tab = at(browser, "10.0.0.88")
        tab.cookies.set("tessera_device", device)
        tabs.append(tab)
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda b: login(b, "Tabs", PASSWORD), tabs))
    assert codes == [200] * 8


def test_the_device_cookie_and_the_address_are_stored_only_as_hashes(app: FastAPI, browser: Browser) -> None:
    """The known devices and the throttle hold hashes: a stolen table gives no cookie and no address."""
    from tests.server.accounts.test_security import dump_database

    b = at(browser, "10.42.42.42")
    assert b.post("/api/account/signup", json={"username": "Hashed", "password": PASSWORD}).status_code == 201
    assert login(at(browser, "10.42.42.42"), "Hashed", "a wrong guess") == 401
    device = b.cookies.get("tessera_device")
    assert device
    dump = dump_database(app)
    assert device not in dump and "10.42.42.42" not in dump
