"""An app per test; browsers are clients of their own (their own cookie jar) on the same app."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.app import create_app

SITE = "http://testserver"
PASSWORD = "correct horse battery"


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    """The app, started (its lifespan runs while the test does)."""
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01)
    with TestClient(a):
        yield a


@pytest.fixture
def browser(app: FastAPI) -> Callable[..., TestClient]:
    """A new browser on the site: its own cookies, and the site's own ``Origin`` on every request
    (as a page of the site sends it) unless ``origin`` says otherwise."""

    def make(origin: str | None = SITE, **kw: Any) -> TestClient:
        headers = {"Origin": origin} if origin else {}
        return TestClient(app, headers=headers, **kw)

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
