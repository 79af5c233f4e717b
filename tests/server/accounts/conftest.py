"""An app per test; browsers are clients of their own (their own cookie jar) on the same app."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.http.app import create_app

SITE = "http://testserver"
PASSWORD = "correct horse battery"


@pytest.fixture
def started(db_url: str) -> Iterator[TestClient]:
    """The client that runs the app (its lifespan and event loop) while the test does."""
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01)
    with TestClient(a) as c:
        yield c


@pytest.fixture
def app(started: TestClient) -> FastAPI:
    """The app, started."""
    a: FastAPI = started.app  # type: ignore[assignment]
    return a


@pytest.fixture
def browser(started: TestClient) -> Callable[..., TestClient]:
    """A new browser on the site: its own cookies, and the site's own ``Origin`` on every request
    (as a page of the site sends it) unless ``origin`` says otherwise.  Its requests and WebSockets
    run on the app's own event loop, as on a real server (a socket on a loop of its own would not
    be woken by the hub's pushes from the app's loop)."""

    def make(origin: str | None = SITE, **kw: Any) -> TestClient:
        headers = {"Origin": origin} if origin else {}
        c = TestClient(started.app, headers=headers, **kw)
        c.portal = started.portal
        return c

    return make


@pytest.fixture
def user(browser: Callable[..., TestClient]) -> Callable[[str], TestClient]:
    """A browser logged in to a new account of that name (password ``PASSWORD``)."""

    def make(name: str) -> TestClient:
        b = browser()
        r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return b

    return make
