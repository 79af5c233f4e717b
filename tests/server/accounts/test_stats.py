"""Designers' figures from people's rated games (GET /api/stats/{game})."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from scipy.stats import binomtest

from tessera.server.accounts.stats import STUDIES, self_play, strengths, wilson
from tessera.server.match.service import load_checked
from tests.server.accounts.test_challenges_ratings import challenge, my_seat, play_challenge

User = Callable[[str], TestClient]


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (55, 160), (1, 1)])
def test_wilson_interval_matches_scipy(k: int, n: int) -> None:
    """The 95 % interval of the first seat's win rate is Wilson's score interval."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-9) and high == pytest.approx(ci.high, abs=1e-9)


def test_stats_count_rated_games_between_people_only(user: User) -> None:
    """'per game, from finished rated human games … first-seat win rate with a 95 % interval, draw
    rate, length, abandon and time-out rate, by rating band and by variant'."""
    alice, bob = user("Alice"), user("Bob")
    # three rated games between people: the first seat wins two (Bob resigns twice from seat 1),
    # and loses one (Alice resigns from seat 0)
    for loser_is_bob in (True, True, False):
        got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
        gid = got["game_id"]
        token = got["token"] if loser_is_bob else my_seat(alice, gid)["token"]
        assert (bob if loser_is_bob else alice).post(
            f"/api/games/{gid}/resign", json={"token": token}
        ).status_code == 200
    # not counted: a casual game, a game against the AI, an unfinished rated game
    casual = play_challenge(alice, bob, "Bob", rated=False, seat=0)
    bob.post(f"/api/games/{casual['game_id']}/resign", json={"token": casual["token"]})
    ai = challenge(alice, "ai-level1", rated=True, seat=0)
    alice.post(f"/api/games/{ai['game_id']}/resign", json={"token": ai["token"]})
    play_challenge(alice, bob, "Bob", rated=True, seat=0)
    s = alice.get("/api/stats/nibble").json()
    assert s["games"] == 3
    assert s["first_seat"]["wins"] == 2 and s["first_seat"]["of"] == 3
    low, high = wilson(2, 3)
    assert s["first_seat"]["low"] == round(low, 4) and s["first_seat"]["high"] == round(high, 4)
    assert s["draw_rate"] == 0 and s["resign_rate"] == 1 and s["timeout_rate"] == 0 and s["aborted_rate"] == 0
    assert s["length"]["median"] >= 2  # a move by each seat (before that a resignation aborts), then resigned
    assert list(s["by_variant"]) == ["nibble"] and s["by_variant"]["nibble"]["games"] == 3
    assert sum(b["games"] for b in s["by_band"].values()) == 3
    assert alice.get("/api/stats/chess").status_code == 404


def test_stats_do_not_count_an_aborted_game_as_rated(user: User) -> None:
    """'/stats counts an aborted game as rated' (issue 39): a rated game aborted before both seats
    moved has no result and changes no rating — it is counted among the aborted games (and in their
    rate), never among the rated games, their first-seat figures or a rating band."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
    assert bob.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]}).status_code == 200
    aborted = play_challenge(alice, bob, "Bob", rated=True, seat=0, moved=False)
    mine = my_seat(alice, aborted["game_id"])["token"]
    assert alice.post(f"/api/games/{aborted['game_id']}/resign", json={"token": mine}).status_code == 200
    assert alice.get(f"/api/games/{aborted['game_id']}").json()["result"]["reason"] == "abort"
    s = alice.get("/api/stats/nibble").json()
    assert s["games"] == 1 and s["aborted"] == 1 and s["aborted_rate"] == 0.5
    assert s["first_seat"]["of"] == 1
    assert sum(b["games"] for b in s["by_band"].values()) == 1 and "unrated" not in s["by_band"]
    assert s["by_variant"]["nibble"]["games"] == 1 and s["by_variant"]["nibble"]["aborted"] == 1


def _study(folder: Path, name: str, game: str, settings: list[dict[str, Any]], kind: str = "balance") -> None:
    (folder / name).mkdir()
    data = {"kind": kind, "game": game, "agent": "mcts", "settings": settings}
    (folder / name / "summary.json").write_text(json.dumps(data), encoding="utf-8")


def _setting(game: str, games: int, rate0: float, ci0: tuple[float, float], draws: float) -> dict[str, Any]:
    return {
        "game": game,
        "games": games,
        "seat_win_rate": [rate0, 1 - rate0 - draws],
        "seat_win_ci95": [list(ci0), [0.1, 0.5]],
        "draw_rate": draws,
        "length": {"median": 40.0, "mean": 41.5},
    }


def test_self_play_figures_are_read_from_the_stored_balance_studies(tmp_path: Path) -> None:
    """'beside the balance lab's self-play figures for the same variant': the figures of the stored
    studies of that game, variants written as the server writes game strings; other games, other
    kinds of study and broken files are left out."""
    _study(tmp_path, "nume-a", "nume(size=4)", [_setting("nume(size=4,komi=0.5)", 72, 0.6, (0.48, 0.71), 0.1)])
    _study(tmp_path, "nibble-a", "nibble", [_setting("nibble", 10, 0.5, (0.2, 0.8), 0.0)])
    _study(tmp_path, "nume-match", "nume", [_setting("nume", 10, 0.5, (0.2, 0.8), 0.0)], kind="match")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "summary.json").write_text("{not json", encoding="utf-8")
    got = self_play("nume", tmp_path)
    assert got == [
        {
            "study": "nume-a",
            "agent": "mcts",
            "budget": "default budget",
            "variant": str(load_checked("nume(size=4,komi=0.5)")),
            "games": 72,
            "first_seat": {"rate": 0.6, "low": 0.48, "high": 0.71},
            "first_seat_score": None,
            "draw_rate": 0.1,
            "length": {"median": 40.0, "mean": 41.5},
        }
    ]
    assert self_play("nelaxtam", tmp_path) == [] and self_play("nume", tmp_path / "nowhere") == []


def test_the_stats_answer_holds_the_labs_figures_for_the_game(
    user: User, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _study(tmp_path, "nume-b", "nume", [_setting("nume", 100, 0.55, (0.45, 0.64), 0.05)])
    monkeypatch.setenv("TESSERA_BALANCE_STUDIES", str(tmp_path))
    s = user("Alice").get("/api/stats/nume").json()
    assert s["self_play"][0]["variant"] == "nume" and s["self_play"][0]["first_seat"]["rate"] == 0.55
    assert s["games"] == 0 and s["first_seat"]["rate"] is None
    page = user("Bob").get("/stats/nume")
    assert page.status_code == 200 and 'id="variants"' in page.text


def test_the_repositorys_balance_studies_are_found() -> None:
    """The studies kept in the repository are the default source; each setting's figures are the
    stored ones (read, not played again)."""
    got = self_play("nume")
    assert got, "no stored nume balance study found"
    stored = json.loads((STUDIES / got[0]["study"] / "summary.json").read_text(encoding="utf-8"))
    first = stored["settings"][0]
    assert got[0]["games"] == first["games"] and got[0]["first_seat"]["rate"] == first["seat_win_rate"][0]


def _robust(root: Path, name: str, game: str, questions: list[dict[str, Any]]) -> None:
    runs = [
        {"kind": "balance", "agent": a, "seconds": 0.05, "iterations": None, "clock": "cpu"} for a in ("greedy", "mcts")
    ]
    folder = root / name
    folder.mkdir()
    summary = {"kind": "robust", "game": game, "agents": ["greedy", "mcts"], "questions": questions, "runs": runs}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")


def _row(agent: str, score: float, ci: tuple[float, float], verdict: str) -> dict[str, Any]:
    return {
        "agent": agent,
        "games": 40,
        "seat0_wins": score,
        "seat0_score": score,
        "seat0_score_ci95": list(ci),
        "draw_rate": 0.0,
        "verdict": verdict,
    }


def test_verdicts_at_several_strengths_are_shown_with_each_agents_budget_and_what_they_say_together(
    tmp_path: Path,
) -> None:
    """Issue 44: "reports the verdict per strength with its interval and whether they agree ('decided and
    stable', 'decided only at strength X', 'not decided') … every row labelled with the agent's full spec
    and budget" — on /stats too, so that a designer reading a weak agent's figure sees the others."""
    _robust(
        tmp_path,
        "nume-4-strengths",
        "nume(size=4)",
        [
            {
                "question": "seat 0's score at komi=1.5",
                "setting": {"komi": "1.5"},
                "rows": [
                    _row("greedy", 0.3, (0.18, 0.45), "seat 0 disfavoured"),
                    _row("mcts", 0.55, (0.4, 0.69), "not decided"),
                ],
                "agreement": "decided only at greedy",
            },
            {
                "question": "seat 0's score at komi=0.5",
                "setting": {"komi": "0.5"},
                "rows": [
                    _row("greedy", 0.5, (0.35, 0.65), "even within ±100 Elo"),
                    _row("mcts", 0.7, (0.55, 0.82), "seat 0 favoured"),
                ],
                "agreement": "differs with strength",
            },
            {"question": "fair komi", "find": {"param": "komi"}, "agreement": "stable"},  # a fair value: left out
        ],
    )
    _study(tmp_path, "nume-a", "nume(size=4)", [_setting("nume(size=4,komi=0.5)", 72, 0.6, (0.48, 0.71), 0.1)])
    got = strengths("nume", tmp_path)
    assert [s["study"] for s in got] == ["nume-4-strengths"]  # the plain balance study is not a strengths study
    first, second = got[0]["questions"]
    assert first["variant"] == str(load_checked("nume(size=4,komi=1.5)"))
    assert [(r["agent"], r["budget"], r["verdict"]) for r in first["rows"]] == [
        ("greedy", "0.05 s/move (cpu)", "disfavoured"),
        ("mcts", "0.05 s/move (cpu)", "undecided"),
    ]
    assert first["rows"][0]["score"] == {"rate": 0.3, "low": 0.18, "high": 0.45}
    assert first["agreement"] == {"code": "only_at", "agents": ["greedy"]}
    assert [(r["verdict"], r["elo"]) for r in second["rows"]] == [("even", 100.0), ("favoured", None)]
    assert second["agreement"] == {"code": "differs", "agents": []}
    assert strengths("nibble", tmp_path) == []


def test_the_repositorys_strength_studies_reach_the_stats_page() -> None:
    """Every game's stored strength studies are read (the 13×13 Nibble board's among them)."""
    studies = {s["study"] for s in strengths("nibble")}
    assert {"nibble-hex-strengths", "nibble-square-strengths", "nibble-square-13-strengths"} <= studies
    for game in ("nume", "ikabegama", "nelaxtam", "nymbat"):
        assert strengths(game), f"no strength study of {game}"
