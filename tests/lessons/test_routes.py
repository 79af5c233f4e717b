"""The /api/learn routes: rules by language, diagrams as render descriptions, lessons judged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the server extras are not installed: pip install -e '.[server]'")

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.catalog import lessons as learn_routes


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = FastAPI()
    app.include_router(learn_routes.router)
    with TestClient(app) as c:
        yield c


def test_diagrams_come_step_by_step_as_render_descriptions(client: TestClient) -> None:
    r = client.get("/api/learn/nymbat/diagrams")
    assert r.status_code == 200
    d = {x["id"]: x for x in r.json()["diagrams"]}["nymbat-breakthrough"]
    assert [s["move"] for s in d["steps"]] == [None, "f5-h5", "f6-h6", "xh7"]
    last = d["steps"][-1]["view"]
    assert last["game"] == "nymbat" and last["actions"] == []
    assert "board" in d["steps"][0]["view"] and "board" not in last, "the same cells are sent once"
    assert {p["cell"] for p in last["pieces"]} == {"i5"}
    assert d["focus"] == ["f5", "f6", "h5", "h6", "h7", "i5"], "a detail of the big board: its pieces and outlines"
    assert {x["id"]: x for x in r.json()["diagrams"]}["nymbat-board"]["focus"] == [], "the whole board"
    one = client.get("/api/learn/diagrams/nymbat-breakthrough").json()
    assert one == d


def test_a_lesson_answer_is_judged_by_the_engine(client: TestClient) -> None:
    url = "/api/learn/nymbat/lessons/nymbat-break-through"
    going = client.post(url, json={"moves": ["f6-h6"]}).json()
    assert going["done"] is False and {a.get("move") for a in going["view"]["actions"]} >= {"xh5", "xh7"}
    right = client.post(url, json={"moves": ["f6-h6", "xh5"]}).json()
    assert right["done"] and right["correct"] and right["explanation"] == ""
    wrong = client.post(url, json={"moves": ["f6-h5"]}).json()
    assert wrong["done"] and not wrong["correct"]
    assert wrong["explanation"].startswith("Taking the end of the line") and wrong["explanation_key"] == "explain.0"


def test_a_simultaneous_lesson_takes_one_order(client: TestClient) -> None:
    url = "/api/learn/nelaxtam/lessons/nelaxtam-dodge"
    lessons = client.get("/api/learn/nelaxtam/lessons").json()["lessons"]
    start = {x["id"]: x for x in lessons}["nelaxtam-dodge"]["view"]
    assert start["order"]["player"] == 1 and start["order"]["units"]
    assert client.post(url, json={"moves": ["1>e5 2="]}).json()["correct"]
    assert not client.post(url, json={"moves": ["1xf7 2="]}).json()["correct"]


def test_bad_requests_get_clear_refusals(client: TestClient) -> None:
    assert client.get("/api/learn/chess/diagrams").status_code == 404
    assert (
        "known: nymbat-break-through"
        in client.post("/api/learn/nymbat/lessons/nope", json={"moves": []}).json()["detail"]
    )
    assert client.post("/api/learn/nymbat/lessons/nymbat-break-through", json={"moves": 3}).status_code == 422
    r = client.post("/api/learn/ikabegama/lessons/ikabegama-enter-nest", json={"moves": ["4,0>6,0", "5,0"]})
    assert r.status_code == 400 and "after the player's turn is over" in r.json()["detail"]
    assert client.get("/api/learn/diagrams/../../etc").status_code == 404


def test_rules_come_in_the_readers_language_with_english_as_fallback(client: TestClient) -> None:
    en = client.get("/api/learn/nume/rules").json()
    assert en["lang"] == "en" and en["markdown"].startswith("# Nume")
    assert client.get("/api/learn/nume/rules?lang=xx").json()["lang"] == "en"
    for lang in ("ko", "es", "de", "fr"):
        r = client.get(f"/api/learn/nume/rules?lang={lang}-ZZ").json()
        assert r["lang"] == lang and r["markdown"] != en["markdown"]


def test_the_app_serves_the_learn_routes_and_pages() -> None:
    from tessera.server.http.app import create_app

    with TestClient(create_app("sqlite://", ai_mode="thread")) as c:
        assert c.get("/api/learn/nibble/diagrams").status_code == 200
        page = c.get("/learn/nibble")
        assert page.status_code == 200 and "learn-start.js" in page.text
