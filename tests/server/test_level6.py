"""The server offers AI level 6 only in a game whose stored SPRT accepted its level-6 agent against level 5
(issue 43): the catalogue's levels, the AI seats, the AI accounts' ratings and the seek pool's offer.

The evidence is read from a fixture directory (``TESSERA_SPRT_DIR``), never from a verdict written here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tessera.agents.evidence import SPRT_DIR_ENV
from tessera.server.ai import ratings as ai_ratings
from tessera.server.ai.levels import check_ai_level, offered_levels
from tessera.server.http.errors import ServiceError
from tessera.server.match.service import MatchService
from tessera.server.seeks.matching import ai_level_for
from tests.agents.sprt_runs import write_run


@pytest.fixture
def evidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty directory of SPRT runs the server reads (ratings re-read for each test)."""
    monkeypatch.setenv(SPRT_DIR_ENV, str(tmp_path))
    ai_ratings.level_ratings.cache_clear()
    yield tmp_path
    ai_ratings.level_ratings.cache_clear()


def test_the_catalogue_lists_level6_only_where_the_stored_sprt_accepted_it(evidence: Path, client: TestClient) -> None:
    """ "the lobby list read from the catalog ... only for games whose stored SPRT result ... says it beats
    level 5": six won pairs (LLR below its bound) leave Nymbat at 5; ten offer 6, with the test's figures."""
    write_run(evidence, [(1.0, 1.0)] * 6)
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert games["nymbat"]["levels"]["offered"] == [1, 2, 3, 4, 5] and games["nymbat"]["levels"]["top"] == 5
    assert games["nymbat"]["levels"]["level6"] is None and "6" not in games["nymbat"]["ai_ratings"]
    write_run(evidence, [(1.0, 1.0)] * 10)
    ai_ratings.level_ratings.cache_clear()
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    six = games["nymbat"]["levels"]
    assert six["offered"] == [1, 2, 3, 4, 5, 6] and six["top"] == 6
    assert six["level6"]["verdict"] == "H1" and six["level6"]["wins"] == 20 and six["level6"]["elo1"] == 150.0
    assert games["nibble"]["levels"]["offered"] == [1, 2, 3, 4, 5] and games["nibble"]["levels"]["level6"] is None
    r5, r6 = games["nymbat"]["ai_ratings"]["5"], games["nymbat"]["ai_ratings"]["6"]
    assert r6["rating"] == r5["rating"] + 150  # anchored on level 5 by the H1 the test accepted


def test_an_ai_seat_at_level6_is_refused_with_a_keyed_422_where_the_game_has_none(
    evidence: Path, services: tuple[MatchService, MatchService]
) -> None:
    """ "asking level 6 there gives a clear 4xx": Nibble (no level 6), four-player Nymbat, and Nymbat before
    its evidence; once the evidence is there a Nymbat game against level 6 is created."""
    service, _ = services
    for game, kwargs in (
        ("nibble", {"mode": "ai", "ai_level": 6}),
        ("nymbat", {"mode": "ai", "ai_level": 6}),
        ("nymbat(players=4)", {"seat_kinds": [{"kind": "here"}, *[{"kind": "ai", "level": 6}] * 3]}),
    ):
        with pytest.raises(ServiceError) as e:
            service.create(game, **kwargs)  # type: ignore[arg-type]
        assert e.value.status == 422 and e.value.key == "refusal.game.ai_level_top", e.value.detail
        assert "its top level is 5" in e.value.detail
    with pytest.raises(ServiceError, match="expected 1 to 6"):
        service.create("nymbat", mode="ai", ai_level=7)
    write_run(evidence, [(1.0, 1.0)] * 10)
    created = service.create("nymbat", mode="ai", seat=0, ai_level=6)
    assert [s.level for s in service.games.reload(created.game_id).row.seats] == [None, 6]
    with pytest.raises(ServiceError, match="top level is 5"):
        check_ai_level(6, "nymbat", 4)


def test_the_seek_pool_offers_level6_only_where_it_exists(evidence: Path) -> None:
    """ "the seek pool's AI offer ... offer level 6 where it exists": a strong seeker is offered the nearest
    level among those offered (level 5 without the evidence, level 6 with it)."""
    strong = 5000.0
    ratings = {lv: r.rating for lv, r in ai_ratings.level_ratings("nymbat").items()}
    assert 6 not in ratings and offered_levels("nymbat") == [1, 2, 3, 4, 5]
    assert ai_level_for(ratings, strong) in (3, 4, 5)  # Nymbat's levels 3-5 measured equal (levels.json)
    write_run(evidence, [(1.0, 1.0)] * 10)
    ai_ratings.level_ratings.cache_clear()
    ratings = {lv: r.rating for lv, r in ai_ratings.level_ratings("nymbat").items()}
    assert ratings[6] == ratings[5] + 150.0 and ai_level_for(ratings, strong) == 6
    assert 6 not in ai_ratings.level_ratings("nibble")
