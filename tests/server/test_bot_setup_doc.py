"""Bot setup as documented (issue 39, point 7): docs/bot-api.md's "Getting a bot account" and its
``curl`` session, followed to the letter against a live server — the requests are read from the page
and sent as written (only the host, the token and the ids the server made are filled in) — with a
token holding ``bot:play`` alone, which (as on lichess) accepts and declines challenges.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.accounts.conftest import PASSWORD
from tests.server.test_bot_api import Live, live_server

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "bot-api.md").read_text(encoding="utf-8")
EXAMPLE = "https://tessera.example"


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    monkeypatch.setenv("TESSERA_RATE_BOT", "0")
    with live_server(f"sqlite:///{tmp_path / 'tessera.db'}") as s:
        yield s


def section(title: str) -> str:
    """The text of the page's section ``## title`` (up to the next ``## ``)."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", DOC, re.S | re.M)
    assert found, f"docs/bot-api.md has a section {title!r}"
    return found.group(1)


def inline_request(text: str, path: str) -> tuple[str, dict[str, Any]]:
    """The page's inline request ``METHOD path {json}`` (its method and body)."""
    found = re.search(rf"`(GET|POST|DELETE) {re.escape(path)} (\{{.*?\}})`", text)
    assert found, f"docs/bot-api.md shows a request to {path}"
    return found.group(1), json.loads(found.group(2).replace('"…"', '"PASSWORD"'))


def curl(line: str, base: str, token: str, **ids: str) -> httpx.Response:
    """Send a ``curl`` command of the page as it is written (``-X``, ``-H``, ``-d``; ``-N`` streams are
    read by the caller), on ``base`` instead of the example host, with ``$TOKEN`` and the ids filled in."""
    words = shlex.split(line.replace("$TOKEN", token).replace("\\\n", " "))
    assert words[0] in ("curl", "$") and "curl" in words
    words = words[words.index("curl") + 1 :]
    method, headers, body, url = "GET", {}, None, ""
    i = 0
    while i < len(words):
        w = words[i]
        if w == "-X":
            method, i = words[i + 1], i + 2
        elif w == "-H":
            k, v = words[i + 1].split(":", 1)
            headers[k.strip()] = v.strip()
            i += 2
        elif w == "-d":
            body, i = words[i + 1], i + 2
        elif w == "-N":
            i += 1
        else:
            url, i = w, i + 1
    assert url.startswith(EXAMPLE), url
    url = base + url[len(EXAMPLE) :]
    for example, real in ids.items():
        url = url.replace(example, real)
    return httpx.request(method, url, headers=headers, content=body, timeout=20)


def first_line(stream_url: str, token: str, kind: str) -> dict[str, Any]:
    """The first line of type ``kind`` on an NDJSON stream."""
    with httpx.stream("GET", stream_url, headers={"Authorization": f"Bearer {token}"}, timeout=20) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.strip():
                msg = json.loads(line)
                if msg.get("type") == kind:
                    return dict(msg)
    raise AssertionError(f"no {kind} line")


def test_a_bot_account_made_as_the_documentation_says_answers_challenges_with_bot_play_alone(live: Live) -> None:
    """docs/bot-api.md, "Getting a bot account": sign up (``POST /api/account/signup``), make a token
    with ``{"scopes": ["bot:play"]}``, upgrade with the page's ``curl`` (answered as the page shows);
    then "A session with curl -N": the challenge on the event stream, accepted with the page's
    ``curl``, the game on the game stream — and a second challenge declined with a reason: 'a token
    with bot:play alone may accept and decline challenges (as lichess)'."""
    base = live.base
    getting = section("Getting a bot account")
    method, signup = inline_request(getting, "/api/account/signup")
    bot = httpx.Client(base_url=base, headers={"Origin": base}, timeout=20)
    signup["password"] = PASSWORD
    r = bot.request(method, "/api/account/signup", json=signup)
    assert r.status_code == 201, r.text
    name = signup["username"]
    method, scopes = inline_request(getting, "/api/account/tokens")
    assert scopes == {"scopes": ["bot:play"]}
    r = bot.request(method, "/api/account/tokens", json=scopes)
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    block = re.search(r"```\n(curl -X POST .*?/api/bot/account/upgrade.*?)\n(\{.*?\})\n```", getting, re.S)
    assert block, "the page shows the upgrade's curl and its answer"
    r = curl(block.group(1), base, token)
    assert r.status_code == 200 and r.json() == json.loads(block.group(2)), r.text

    # "A session with curl -N", with a person who challenges the bot
    ada = httpx.Client(base_url=base, headers={"Origin": base}, timeout=20)
    assert ada.post("/api/account/signup", json={"username": "Ada", "password": PASSWORD}).status_code == 201
    made = ada.post("/api/challenges", json={"to": name, "game": "nume(size=2)", "rated": True})
    assert made.status_code == 201, made.text
    cid = made.json()["id"]
    session = section("A session with `curl -N`")
    commands = re.findall(r"^\$ (curl .*?)(?:\n(?!\s)|\Z)", session, re.S | re.M)
    stream_cmd = next(c for c in commands if "/api/stream/event" in c)
    stream_url = base + shlex.split(stream_cmd)[2][len(EXAMPLE) :]
    event = first_line(stream_url, token, "challenge")
    assert event["challenge"]["id"] == cid and event["challenge"]["direction"] == "in"
    doc_cid = re.search(r"/api/challenges/(\w+)/accept", session)
    doc_gid = re.search(r"/api/bot/game/stream/(\w+)", session)
    assert doc_cid and doc_gid
    accept_cmd = next(c for c in commands if "/accept" in c)
    r = curl(accept_cmd, base, token, **{doc_cid.group(1): cid})
    assert r.status_code == 200, r.text
    accepted = r.json()
    assert accepted["status"] == "accepted" and accepted["game_id"]
    game_cmd = next(c for c in commands if "/api/bot/game/stream/" in c)
    full_url = base + shlex.split(game_cmd)[2][len(EXAMPLE) :].replace(doc_gid.group(1), accepted["game_id"])
    full = first_line(full_url, token, "gameFull")
    assert full["id"] == accepted["game_id"] and full["players"][full["seat"]]["account"] == name

    # a second challenge, declined with one of the documented reasons, by the same bot:play token
    again = ada.post("/api/challenges", json={"to": name, "game": "nibble", "rated": False}).json()
    mine = httpx.get(base + "/api/challenges", headers={"Authorization": f"Bearer {token}"}).json()
    assert [c["id"] for c in mine["incoming"]] == [again["id"]]
    r = httpx.post(
        f"{base}/api/challenges/{again['id']}/decline",
        json={"reason": "later"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200, r.text
    seen = ada.get("/api/challenges", params={"pending": False}).json()["outgoing"]
    assert {c["id"]: (c["status"], c["reason"]) for c in seen}[again["id"]] == ("declined", "later")


def test_a_token_without_bot_play_or_challenge_may_not_answer_challenges(live: Live) -> None:
    """The scopes that answer challenges are ``challenge`` and ``bot:play``: a ``read`` token is
    refused (403 naming the scope), and the challenge stays pending."""
    base = live.base
    bob = httpx.Client(base_url=base, headers={"Origin": base}, timeout=20)
    assert bob.post("/api/account/signup", json={"username": "Bob", "password": PASSWORD}).status_code == 201
    read = bob.post("/api/account/tokens", json={"scopes": ["read"]}).json()["token"]
    ada = httpx.Client(base_url=base, headers={"Origin": base}, timeout=20)
    assert ada.post("/api/account/signup", json={"username": "Ada", "password": PASSWORD}).status_code == 201
    cid = ada.post("/api/challenges", json={"to": "Bob", "game": "nume(size=2)"}).json()["id"]
    r = httpx.post(f"{base}/api/challenges/{cid}/accept", headers={"Authorization": f"Bearer {read}"})
    assert r.status_code == 403 and "challenge" in r.json()["detail"]
    assert [c["id"] for c in bob.get("/api/challenges").json()["incoming"]] == [cid]
