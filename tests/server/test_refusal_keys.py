"""The server's own refusals (accounts, challenges, rematches, seeks, chat, bots) carry a catalogue
key and arguments beside their English ``detail``, so that a page says them in the player's language.

"Each refusal has a stable code/key + args beside the English detail and the HTTP 400 carries
{"detail", "key", "args"} without breaking clients that read detail."
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import tessera
from tessera.server.accounts import security
from tessera.server.accounts.security import Refused
from tessera.server.chat.rooms import MAX_CHARS, check_text
from tessera.server.http.app import create_app

SERVER = Path(tessera.__file__).parent / "server"
LOCALES = Path(tessera.__file__).parent / "web" / "locales"
LANGUAGES = ("en", "ko", "es", "de", "fr")
SITE = "http://testserver"
PASSWORD = "correct horse battery"

LEFT_ENGLISH = {"str(e)", "str(e)[:500]"}
"""Details passed on from the game-spec and clock parsers' ``ValueError`` (free English text of
their own, not a sentence of this catalogue): the only refusals without a key."""


def _flatten(data: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in data.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def catalogue(lang: str) -> dict[str, str]:
    return _flatten(json.loads((LOCALES / lang / "refusals.json").read_text(encoding="utf-8")))


def english(key: str, args: dict[str, Any]) -> str:
    """The English catalogue's sentence of ``key`` with ``args`` filled in (a nested text by its own key)."""
    cat = catalogue("en")

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return english(v["key"], v.get("args", {})) if v["key"] in cat else str(v["text"])
        return str(v)

    return re.sub(r"\{\{(\w+)\}\}", lambda m: value(args[m.group(1)]), cat[key])


# -- every Refused(...) in the server, read from the source ---------------------------------------


def refused_calls() -> Iterator[tuple[str, ast.Call]]:
    """Every ``Refused(...)`` of the server, and the notifications' ``ServiceError(...)`` (the
    settings on the account page and the bell's menu)."""
    for path in sorted(SERVER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        kinds = {"Refused", "ServiceError"} if path.parent.name == "notify" else {"Refused"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in kinds:
                yield f"{path.relative_to(SERVER)}:{node.lineno}", node


def _template(detail: ast.expr) -> str:
    """A detail's shape: its literal text, each interpolated value as ``{{?}}`` (quoted when repr'd)."""
    if isinstance(detail, ast.Constant) and isinstance(detail.value, str):
        return detail.value
    assert isinstance(detail, ast.JoinedStr), ast.unparse(detail)
    out = []
    for part in detail.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
        else:
            assert isinstance(part, ast.FormattedValue)
            out.append("'{{?}}'" if part.conversion == ord("r") else "{{?}}")
    return "".join(out)


def _branches(node: ast.expr | None, n: int) -> list[ast.expr | None]:
    """The ``n`` alternatives of an ``a if c else b`` (or the same expression ``n`` times)."""
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return [node] * n


def keyed_sentences() -> list[tuple[str, str, str, dict[str, ast.expr]]]:
    """(where, key, the detail's shape, the arguments given) of every keyed Refused."""
    out = []
    for where, call in refused_calls():
        detail = call.args[1]
        kw = {k.arg: k.value for k in call.keywords}
        if ast.unparse(detail) in LEFT_ENGLISH:
            assert "key" not in kw, where
            continue
        if ast.unparse(detail) == "e.detail":  # a match-layer refusal passed on with its own key
            assert ast.unparse(kw["key"]) == "e.key" and ast.unparse(kw["args"]) == "e.args_", where
            continue
        assert "key" in kw, f"{where}: Refused({ast.unparse(detail)}) has no key"
        details = _branches(detail, 2) if isinstance(detail, ast.IfExp) else [detail]
        keys = _branches(kw["key"], len(details))
        argses = _branches(kw.get("args"), len(details))
        assert len(keys) == len(details) == len(argses), where
        for d, k, a in zip(details, keys, argses, strict=True):
            assert isinstance(k, ast.Constant) and isinstance(k.value, str), where
            assert d is not None
            assert a is None or isinstance(a, ast.Dict), where
            given = (
                {}
                if a is None
                else {ast.literal_eval(n): v for n, v in zip(a.keys, a.values, strict=True) if n is not None}
            )
            out.append((where, k.value, _template(d), given))
    return out


def test_every_refusal_of_the_server_has_a_key_but_the_parsers_own_texts() -> None:
    """Every ``Refused`` a page can meet names its catalogue key; only the game-spec and clock
    parsers' free texts are passed on in English (and there are few of them)."""
    found = keyed_sentences()
    assert len(found) >= 110
    left = [w for w, c in refused_calls() if ast.unparse(c.args[1]) in LEFT_ENGLISH]
    assert len(left) <= 4, left


def test_every_refusal_key_exists_in_the_five_catalogues() -> None:
    """'translations … not English copies': each key is in en, ko, es, de and fr."""
    cats = {lang: catalogue(lang) for lang in LANGUAGES}
    for where, key, _, _ in keyed_sentences():
        assert key.startswith("refusal."), where
        for lang in LANGUAGES:
            assert key in cats[lang], f"{where}: {lang}/refusals.json lacks {key}"


def test_the_english_catalogue_says_what_the_server_writes() -> None:
    """The English sentence of each key has the detail's very words, its variable parts as the
    arguments the call gives."""
    en = catalogue("en")
    for where, key, shape, given in keyed_sentences():
        sentence = en[key]

        def fill(m: re.Match[str], given: dict[str, ast.expr] = given) -> str:  # a constant argument, else any value
            v = given.get(m.group(1))
            return str(v.value) if isinstance(v, ast.Constant) else "{{?}}"

        assert re.sub(r"\{\{(\w+)\}\}", fill, sentence) == shape, f"{where}: {key}: {sentence!r} vs {shape!r}"
        assert set(re.findall(r"\{\{(\w+)\}\}", sentence)) == set(given), f"{where}: {key} arguments"


@pytest.mark.parametrize(
    ("call", "key", "args"),
    [
        (lambda: security.check_username("a"), "refusal.account.username_form", {}),
        (lambda: security.check_username("Admin"), "refusal.account.username_reserved", {"name": "Admin"}),
        (lambda: security.check_password("short"), "refusal.account.password_length", {"min": 8, "max": 256}),
        (lambda: security.check_password("LongEnough", "longenough"), "refusal.account.password_is_name", {}),
        (lambda: check_text(""), "refusal.chat.empty", {}),
        (
            lambda: check_text("x" * (MAX_CHARS + 5)),
            "refusal.chat.too_long",
            {"max": MAX_CHARS, "length": MAX_CHARS + 5},
        ),
        (lambda: check_text("a\u0007b"), "refusal.chat.control", {"code": "0007"}),
    ],
)
def test_a_refusal_keeps_its_english_and_gives_key_and_arguments(
    call: Callable[[], Any], key: str, args: dict[str, Any]
) -> None:
    """The English detail is unchanged, and the English catalogue with the arguments says it word for word."""
    with pytest.raises(Refused) as caught:
        call()
    e = caught.value
    assert (e.key, e.args_) == (key, args)
    assert english(key, args) == e.detail
    assert e.body() == {"detail": e.detail, "key": key, "args": args}


# -- over HTTP ------------------------------------------------------------------------------------


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a):
        yield a


@pytest.fixture
def browser(app: FastAPI) -> Callable[..., TestClient]:
    """A new browser of the site (its own cookies, the site's ``Origin``)."""

    def make(address: str = "10.0.0.1") -> TestClient:
        return TestClient(app, headers={"Origin": SITE}, client=(address, 50000))

    return make


def said(r: Any, status: int, key: str, args: dict[str, Any]) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert (body["key"], body["args"]) == (key, args)
    assert english(key, args) == body["detail"]


def test_signing_up_with_a_taken_name_is_refused_with_its_key(browser: Callable[..., TestClient]) -> None:
    """'the username … is taken' (409) names the name in its arguments."""
    assert browser().post("/api/account/signup", json={"username": "Alice", "password": PASSWORD}).status_code == 201
    r = browser("10.0.0.2").post("/api/account/signup", json={"username": "Alice", "password": PASSWORD})
    said(r, 409, "refusal.account.username_taken", {"name": "Alice"})
    assert r.json()["detail"] == "the username 'Alice' is taken"


def test_a_wrong_password_is_refused_with_its_key(browser: Callable[..., TestClient]) -> None:
    """Log-in with a wrong password: 401, the same words as for an unknown name, keyed."""
    browser().post("/api/account/signup", json={"username": "Bea", "password": PASSWORD})
    r = browser().post("/api/account/login", json={"username": "Bea", "password": "not the password"})
    said(r, 401, "refusal.account.wrong_login", {})


def test_too_many_log_ins_keep_retry_after_beside_the_key(browser: Callable[..., TestClient]) -> None:
    """A throttled log-in keeps its Retry-After header and says the wait in its arguments."""
    b = browser("10.0.0.9")
    answers = [b.post("/api/account/login", json={"username": "Nobody", "password": "x" * 9}) for _ in range(30)]
    r = next(a for a in answers if a.status_code == 429)
    body = r.json()
    assert body["key"] == "refusal.account.too_many_attempts"
    assert r.headers["Retry-After"] == str(body["args"]["seconds"])
    assert english(body["key"], body["args"]) == body["detail"]


def test_a_chat_message_too_long_is_refused_with_its_key(browser: Callable[..., TestClient]) -> None:
    """'Messages at most 200 characters (… too long → 400 saying why)', with the limit and the length."""
    c = browser()
    g = c.post("/api/games", json={"game": "nibble", "mode": "online", "public": True}).json()
    r = c.post(
        f"/api/games/{g['id']}/chat", json={"room": "player", "text": "x" * (MAX_CHARS + 1), "token": g["tokens"]["0"]}
    )
    said(r, 400, "refusal.chat.too_long", {"max": MAX_CHARS, "length": MAX_CHARS + 1})


def test_a_guest_seeking_a_rated_game_is_refused_with_its_key(browser: Callable[..., TestClient]) -> None:
    """'guests only in casual games (a guest asking rated gets a 4xx saying why)'."""
    r = browser("10.0.0.3").post(
        "/api/seeks", json={"game": "nibble", "clock": {"initial": 180, "increment": 2}, "rated": True}
    )
    said(r, 403, "refusal.seek.rated_guest", {})


def test_a_challenge_refusal_names_its_state_by_key(browser: Callable[..., TestClient]) -> None:
    """Cancelling a challenge twice: 'this challenge is cancelled', the state a keyed word."""
    a, b = browser(), browser("10.0.0.4")
    a.post("/api/account/signup", json={"username": "Carol", "password": PASSWORD})
    b.post("/api/account/signup", json={"username": "Dave", "password": PASSWORD})
    c = a.post("/api/challenges", json={"to": "Dave", "game": "nibble"}).json()
    cid = c["id"]
    assert a.delete(f"/api/challenges/{cid}").status_code == 200
    r = a.delete(f"/api/challenges/{cid}")
    state = {"key": "refusal.state.cancelled", "args": {}, "text": "cancelled"}
    said(r, 409, "refusal.challenge.is_now", {"status": state})
    assert r.json()["detail"] == "this challenge is cancelled"
    assert "취소됨" in catalogue("ko")["refusal.state.cancelled"]
