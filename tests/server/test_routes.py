"""The app's routes: the order routers are included in changes no answer, only how fast one is found."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.routing import Match

from tessera.server.http.app import create_app


def _routes(router: Any) -> list[Any]:
    """Every route, in the order a request tries them (included routers opened)."""
    router = getattr(router, "original_router", router)  # an included router
    if not hasattr(router, "routes"):
        return [router]  # a route of the app's own
    out = []
    for route in router.routes:
        inner = getattr(route, "original_router", None)
        out.extend(_routes(inner) if inner is not None else [route])
    return out


def _answering(routes: list[Any], path: str, method: str) -> str | None:
    scope = {"type": "websocket" if method == "WS" else "http", "path": path, "method": method, "root_path": ""}
    for route in routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return str(route.path)
    return None


def test_no_request_path_is_claimed_by_two_routes_so_router_order_changes_no_answer(tmp_path: Path) -> None:
    """'the most asked first … the order changes no answer': every concrete path a route serves —
    its parameters filled with a neutral value and with each fixed word of any route (``lobby``,
    ``waiting``, ``me`` …, where a fixed path could be mistaken for a parameter) — is answered by the same
    route with the app's routers in their order and in the reverse order (a router's own routes keep
    theirs: ``/api/learn/diagrams/…`` before ``/api/learn/{game}/…`` is that router's business)."""
    app = create_app(f"sqlite:///{tmp_path / 'routes.db'}")
    groups = [_routes(r) for r in app.router.routes]  # one group per included router (or route)
    groups = [[r for r in g if getattr(r, "path", None) and hasattr(r, "path_regex")] for g in groups]
    routes = [r for g in groups for r in g]
    reversed_routers = [r for g in groups[::-1] for r in g]
    assert len(routes) > 90 and len(groups) > 10
    words = {w for r in routes for w in r.path.split("/") if w and "{" not in w} | {"x1"}
    checked = 0
    for route in routes:
        methods = sorted(getattr(route, "methods", None) or {"WS"})
        params = re.findall(r"\{[^}]+\}", route.path)
        fills = [route.path] if not params else [re.sub(r"\{[^}]+\}", w, route.path) for w in sorted(words)]
        for path in fills:
            if not route.path_regex.match(path):
                continue  # a word the parameter's type refuses
            for method in methods:
                forward, backward = _answering(routes, path, method), _answering(reversed_routers, path, method)
                assert forward == backward, f"{method} {path}: {forward} in the app's order, {backward} reversed"
                checked += 1
    assert checked > 1000
