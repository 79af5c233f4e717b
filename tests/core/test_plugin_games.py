"""Games from other packages: the entry-point group ``tessera.games``.

The example package of docs/games.md (examples/tessera-nim) is pip-installed into a
temporary directory; the registry, the CLI, the lab, the arena and the web app's
catalogue then offer its game, and the lab finds the answer its theory predicts; what it
declares from its own folder (rules page, exact solver, level tuning) reaches the generic parts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tessera
from tessera.cli import main
from tessera.core import registry

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tessera-nim"


def test_without_the_package_its_game_is_unknown() -> None:
    """Without the package the game is unknown (a clear error naming the known games)."""
    registry.refresh_plugins()
    with pytest.raises(ValueError, match="unknown game 'nim'"):
        tessera.load_game("nim")


def install_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install`` the example package into a fresh folder (its path: put it on ``sys.path`` or
    ``PYTHONPATH``), the way a user installs a game package."""
    target = tmp_path_factory.mktemp("site")
    # build from a copy: pip's in-tree build writes build/ and *.egg-info/ next to the sources
    source = tmp_path_factory.mktemp("src") / EXAMPLE.name
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--disable-pip-version-check",
        "--target",
        str(target),
        str(source),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return target


@pytest.fixture(scope="module")
def nim_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    target = install_example(tmp_path_factory)
    sys.path.insert(0, str(target))
    registry.refresh_plugins()
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        registry.refresh_plugins()
        for mod in [m for m in sys.modules if m == "tessera_nim" or m.startswith("tessera_nim.")]:
            del sys.modules[mod]


def test_an_installed_package_offers_its_game(nim_installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Entry point group 'tessera.games': the game is listed, loads with parameters, and plays by the rules."""
    assert "nim" in tessera.list_games()
    assert {"ikabegama", "nume"} <= set(tessera.list_games())
    game = tessera.load_game("nim(stones=5,take=2)")
    st = game.new_initial_state()
    assert st.legal_moves() == ["1", "2"]
    st.play("2")
    st.play("2")
    st.play("1")
    assert st.is_terminal() and st.winner() == 0
    assert main(["list"]) == 0
    assert "nim" in capsys.readouterr().out
    assert main(["rules", "nim"]) == 0
    assert "Who takes the last stone wins" in capsys.readouterr().out


def test_the_lab_finds_the_known_answer_of_an_installed_game(nim_installed: Path) -> None:
    """Theory: with take=3 the first player loses exactly when stones is a multiple of 4 — perfect play
    (alpha-beta, a short game) shows seat 0 winning every game at 13 stones and none at 12."""
    from tessera.arena import run_balance

    res = run_balance("nim", "alphabeta", vary=["stones=12,13"], games=2, iterations=400)
    rates = [s.to_dict()["seat_win_rate"][0] for s in res.settings]
    assert rates == [0.0, 1.0]


def test_arena_and_web_catalogue_offer_the_installed_game(nim_installed: Path) -> None:
    from tessera.arena import play_match

    res = play_match("nim(stones=9)", "greedy", "random", games=2, seed=1)
    assert res.games == 2 and all(r.error is None for r in res.records)
    app = pytest.importorskip("tessera.server.http.app")
    assert "nim" in [g["name"] for g in app.catalog()]


# PettingZoo's api_test advises Box/Discrete observations; ours is the classic environments' Dict of the
# planes and the action mask (as tests/adapters/test_pettingzoo.py): its advisory warnings are expected
@pytest.mark.filterwarnings("ignore::UserWarning:pettingzoo")
def test_the_adapters_offer_the_installed_game(nim_installed: Path) -> None:
    """The adapters offer a package's game too: OpenSpiel loads ``tessera_nim`` and plays it to the end,
    PettingZoo passes its API test; the observation planes are read off the render description
    (one plane per player's pieces, one for pieces of nobody — Nim's stones — and who is to move)."""
    pyspiel = pytest.importorskip("pyspiel")
    from tessera.adapters import openspiel as ad_openspiel

    ad_openspiel.register_new_games()
    game = pyspiel.load_game("tessera_nim(stones=7)")
    assert game.observation_tensor_shape() == [4, 1, 7]
    state = game.new_initial_state()
    assert sum(state.observation_tensor(0)[14:21]) == 7  # plane 2: the seven stones, owned by nobody
    assert state.observation_tensor(0)[21:] == [1.0] * 7 and state.observation_tensor(1)[21:] == [0.0] * 7
    state.apply_action(2)  # take 3
    assert sum(state.observation_tensor(0)[14:21]) == 4
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert sorted(state.returns()) == [-1.0, 1.0]
    pettingzoo_test = pytest.importorskip("pettingzoo.test")
    from tessera.adapters.pettingzoo import env

    pettingzoo_test.api_test(env("nim(stones=6)"), num_cycles=20)


def test_the_installed_game_brings_its_capabilities_from_its_own_folder(nim_installed: Path) -> None:
    """One game, one folder (issue 36): the example declares its rules page, its exact solver and its level
    tuning in its own package, and the generic parts find them through the game object: the rules routes,
    the levels (4 and up ask the solver), the analysis board's verdict."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from tessera.agents.endgame import EndgameAgent, endgame_verdict, games_with_solver, with_endgame
    from tessera.agents.spec import level, make_agent
    from tessera.server.catalog import lessons as learn_routes
    from tessera.server.catalog.routes import rules_text

    cls = registry.game_class("nim")
    page = cls.rules_page("en")
    assert page is not None and page.startswith("# Nim") and rules_text("nim")["markdown"] == page
    app = FastAPI()
    app.include_router(learn_routes.router)
    r = TestClient(app).get("/api/learn/nim/rules", params={"lang": "ko"})
    assert r.status_code == 200 and r.json()["lang"] == "en" and r.json()["markdown"] == page
    assert "nim" in games_with_solver()
    assert level(4, "nim").spec == "alphabeta"
    assert isinstance(with_endgame(make_agent("alphabeta"), "nim"), EndgameAgent)
    state = tessera.load_game("nim(stones=9,take=3)").new_initial_state()
    verdict = endgame_verdict(state, 1.0)
    assert verdict is not None and verdict.winner == 0 and verdict.best_move == "1" and verdict.plies == 5
    state.play("1")  # 8 stones: the player to move is lost
    verdict = endgame_verdict(state, 1.0)
    assert verdict is not None and verdict.winner == 0 and verdict.plies == 4


def test_the_installed_games_diagrams_and_lessons_come_from_its_folder(nim_installed: Path) -> None:
    """'its lessons and rule diagrams' in its own folder (issue 36): the package's ``lessons()`` gives the
    rules page's diagrams and a lesson; the engine proves every diagram's checks, the lesson judges its
    solution right and its wrong answer with the sentence written for it, and the learn routes serve
    them (English texts from the package, where the site's catalogue has no key for them)."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from tessera import lessons
    from tessera.server.catalog import lessons as learn_routes

    assert [d.id for d in lessons.diagrams("nim")] == ["nim-take", "nim-last"]
    for d in lessons.diagrams("nim"):
        assert lessons.diagram_failures(d) == [], d.id
    page = registry.game_class("nim").rules_page("en")
    assert page is not None and "::diagram nim-take" in page and "::diagram nim-last" in page
    lesson = lessons.lesson("nim", "nim-leave-four")
    assert lessons.judge(lesson, ["2"]).correct
    wrong = lessons.judge(lesson, ["1"])
    assert not wrong.correct and "Four stones must be left" in wrong.explanation
    client = TestClient(FastAPI())
    client.app.include_router(learn_routes.router)  # type: ignore[attr-defined]
    diagrams = client.get("/api/learn/nim/diagrams").json()["diagrams"]
    assert [d["id"] for d in diagrams] == ["nim-take", "nim-last"] and diagrams[0]["title"] == "Taking stones"
    lessons = client.get("/api/learn/nim/lessons").json()["lessons"]
    assert [x["id"] for x in lessons] == ["nim-leave-four"] and lessons[0]["view"]["board"]
    r = client.post("/api/learn/nim/lessons/nim-leave-four", json={"moves": ["2"]})
    assert r.status_code == 200 and r.json()["correct"] is True, r.text


def test_the_installed_game_plays_a_tournament_from_the_command_line(
    nim_installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'in tessera tournament' (issue 36): the round robin of the command line runs the package's game
    (its AI levels included) with nothing of it outside its folder."""
    args = ["tournament", "nim(stones=9)", "random", "greedy", "level4", "--games", "2", "--seed", "1"]
    assert main([*args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "level4" in out and "greedy" in out
