"""Security headers on every response, and the API's self-description off unless asked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import tessera
from tessera.server.http.app import create_app

WEB = Path(tessera.__file__).parent / "web"

PATHS = ["/", "/account", "/learn/nibble", "/rules/nibble", "/static/js/api.js", "/api/games", "/no/such/page"]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.delenv("TESSERA_API_DOCS", raising=False)
    with TestClient(create_app(f"sqlite:///{tmp_path / 't.db'}", ai_mode="thread", warm=False)) as c:
        yield c


@pytest.mark.parametrize("path", PATHS)
def test_every_response_has_the_security_headers(client: TestClient, path: str) -> None:
    """Pages, files, the API and a 404 alike: CSP without inline script and with frame-ancestors
    'none', X-Frame-Options DENY, nosniff, a same-origin Referrer-Policy."""
    r = client.get(path)
    csp = r.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert "'unsafe-inline'" not in directives["script-src"] and "'unsafe-eval'" not in csp
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"


def test_a_refusal_of_the_rate_limits_has_them_too(client: TestClient) -> None:
    r = client.post("/api/account/login", content=b"not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json"])
def test_the_api_docs_are_off_by_default(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_the_api_docs_are_served_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESSERA_API_DOCS", "1")
    with TestClient(create_app(f"sqlite:///{tmp_path / 't.db'}", ai_mode="thread", warm=False)) as c:
        assert c.get("/openapi.json").status_code == 200
        assert c.get("/docs").status_code == 200


def test_no_page_of_the_web_client_has_an_inline_script_or_handler() -> None:
    """What the CSP would block: ``<script>`` with a body, ``on…=`` attributes, ``javascript:`` links."""
    for page in sorted(WEB.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), page.name
        assert not re.search(r"\son[a-z]+\s*=", text, re.IGNORECASE), page.name
        assert "javascript:" not in text.lower(), page.name
        assert "<style" not in text and not re.search(r"\sstyle\s*=", text), page.name
    for script in sorted((WEB / "js").glob("*.js")):
        text = script.read_text(encoding="utf-8")
        assert not re.search(r"""\son[a-z]+=["'\\]""", text), script.name
        assert "eval(" not in text and "new Function(" not in text, script.name
        assert not re.search(r"""\sstyle=["'\\]""", text), script.name
