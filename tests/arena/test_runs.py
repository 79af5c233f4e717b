"""Tournaments and balance runs: schedules, resumption, bad input (errors before any game), the commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tessera.arena.balance import run_balance
from tessera.arena.play import GameResult, decided_ply
from tessera.arena.runner import RESULTS_FILE, ResultsFile, provenance
from tessera.arena.tournament import run_tournament, schedule
from tessera.cli import main

TINY = "nume(size=2)"
AGENTS = ["random", "greedy", "greedy(noise=0.5)"]


def _games(d: Path) -> list[dict[str, Any]]:
    out = []
    for line in (d / RESULTS_FILE).read_text().splitlines()[1:]:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if "session" not in row:
            out.append(row)
    return out


def test_round_robin_alternates_seats_and_shares_deals() -> None:
    """Round robin: every pair plays, seats alternate, both seatings of a pair see the same deal seed."""
    tasks = schedule(TINY, AGENTS, games=4, seconds=None, iterations=None, seed=10)
    assert len(tasks) == 3 * 4
    pairs = {frozenset(t.seats) for t in tasks}
    assert len(pairs) == 3
    first = [t for t in tasks if t.key.startswith("0/")]
    assert [t.seats for t in first] == [("random", "greedy"), ("greedy", "random")] * 2
    assert [t.deal_seed for t in first] == [10, 10, 11, 11]


def test_gauntlet_plays_only_against_the_gauntlet_agent() -> None:
    tasks = schedule(
        TINY, ["random", "greedy(noise=0.5)"], games=2, seconds=None, iterations=None, seed=0, gauntlet="greedy"
    )
    assert all("greedy" in t.seats for t in tasks) and len(tasks) == 4


def test_tournament_counts_add_up_and_rates_the_stronger_agent_higher() -> None:
    res = run_tournament(TINY, AGENTS, games=6, seed=1)
    assert len(res.results) == 18
    for p in res.pairs:
        assert p.games == 6
        back = next(q for q in res.pairs if q.a == p.b and q.b == p.a)
        assert (p.wins, p.draws, p.losses) == (back.losses, back.draws, back.wins)
    assert res.ratings is not None and res.ratings.seat_advantage is not None
    d = res.to_dict()
    assert {x["name"] for x in d["ratings"]["agents"]} == set(AGENTS)


def test_an_interrupted_tournament_continues_where_it_stopped(tmp_path: Path) -> None:
    """Resumable: games are appended as they finish; the same call again plays only the missing ones,
    and the final result equals an uninterrupted run's."""
    out = tmp_path / "run"
    calls = {"n": 0}

    import tessera.arena.runner as runner

    real = runner.play_task

    def stop_after_five(task: Any) -> GameResult:
        if calls["n"] == 5:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(task)

    runner.play_task = stop_after_five  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament(TINY, AGENTS, games=4, seed=2, out=str(out))
    finally:
        runner.play_task = real  # type: ignore[assignment]
    assert len(_games(out)) == 5
    # A line cut short by the kill is ignored (that game is played again).
    with (out / RESULTS_FILE).open("a") as f:
        f.write('{"key": "2/3", "gro')
    resumed = run_tournament(TINY, AGENTS, games=4, seed=2, out=str(out))
    assert resumed.played_now == 12 - 5
    fresh = run_tournament(TINY, AGENTS, games=4, seed=2)
    assert [(r.key, r.seats, r.returns) for r in resumed.results] == [
        (r.key, r.seats, r.returns) for r in fresh.results
    ]
    assert len(_games(out)) == 12  # 5 + 7 complete lines (the cut line is not a game)
    # Running again plays nothing; more games per table extend the run.
    again = run_tournament(TINY, AGENTS, games=4, seed=2, out=str(out))
    assert again.played_now == 0
    more = run_tournament(TINY, AGENTS, games=6, seed=2, out=str(out))
    assert more.played_now == 6 and len(more.results) == 18


def test_a_results_directory_of_another_run_is_refused(tmp_path: Path) -> None:
    run_tournament(TINY, AGENTS[:2], games=1, seed=0, out=str(tmp_path))
    with pytest.raises(ValueError, match=r"another run.*seed"):
        run_tournament(TINY, AGENTS[:2], games=1, seed=1, out=str(tmp_path))


def test_bad_input_fails_before_any_game(tmp_path: Path) -> None:
    """Unknown agent, empty parameter list, a value the game refuses: a clear error, and no game is played."""
    with pytest.raises(ValueError, match="unknown agent 'stockfish'"):
        run_tournament(TINY, ["random", "stockfish"], games=1, out=str(tmp_path / "a"))
    assert not (tmp_path / "a").exists()
    with pytest.raises(ValueError, match="unknown agent"):
        run_balance(TINY, "stockfish", games=1, out=str(tmp_path / "b"))
    with pytest.raises(ValueError, match="list of values of 'komi' is empty"):
        run_balance(TINY, "random", vary=["komi="], games=1, out=str(tmp_path / "c"))
    with pytest.raises(ValueError, match=r"komi=.?0\.3.*step|multiple"):
        run_balance(TINY, "random", vary=["komi=0.5,0.3"], games=1, out=str(tmp_path / "d"))
    with pytest.raises(ValueError, match="at least 2 agents"):
        run_tournament(TINY, ["random"], games=1)
    with pytest.raises(ValueError, match="listed twice"):
        run_tournament(TINY, ["random", "random"], games=1)
    for d in "bcd":
        assert not (tmp_path / d).exists()


def test_balance_reports_seat_rates_length_and_ludii_metrics() -> None:
    res = run_balance("nume(size=3)", "greedy(noise=0.3)", vary=["komi=0,3"], games=6, seed=4)
    assert [s.setting for s in res.settings] == [{"komi": "0"}, {"komi": "3"}]
    for s in res.settings:
        d = s.to_dict()
        assert d["games"] == 6
        assert sum(d["seat_win_rate"]) + d["draw_rate"] == pytest.approx(1.0)
        lo, hi = d["seat_win_ci95"][0]
        assert lo <= d["seat_win_rate"][0] <= hi
        assert d["length"]["q1"] <= d["length"]["median"] <= d["length"]["q3"]
        m = d["ludii"]
        assert 0 <= m["balance"] <= 1 and m["completion"] + m["drawishness"] == pytest.approx(1.0)
        assert m["branching_factor"] > 1 and len(m["branching_by_third"]) == 3
        if d["decided"]["games"]:
            assert 0 <= d["decided"]["mean_share"] <= 1


def test_decided_ply_is_where_the_winner_stops_trailing() -> None:
    """'How early the result is decided': the first ply after which the winner's evaluation never trails."""
    evals: list[list[float]] = [[0, 0], [0.3, -0.3], [-0.1, 0.1], [0.2, -0.2], [0.5, -0.5], [1, -1]]
    assert decided_ply(evals, 0) == 3
    assert decided_ply([[0, 0], [0.3, -0.3], [-0.4, 0.4], [0.2, -0.2], [-1, 1]], 1) == 4
    assert decided_ply([[0, 0], [1, -1]], 0) == 0


def test_tournament_command_writes_table_json_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`tessera tournament GAME A B --games N --out DIR`: a table on stdout; summary, plot JSON and PNG in DIR."""
    code = main(["tournament", TINY, "random", "greedy", "--games", "2", "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "Elo" in out and "win rate" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 2 and summary["kind"] == "tournament"
    plot = json.loads((tmp_path / "ratings.json").read_text())
    assert plot["kind"] == "intervals" and len(plot["series"][0]["x"]) == 2
    pytest.importorskip("matplotlib")
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_balance_command_json_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["balance", TINY, "--agent", "random", "--vary", "komi=0.5,1", "--games", "2", "--json", "--no-progress"]
    )
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and len(d["settings"]) == 2
    assert main(["balance", TINY, "--agent", "random", "--vary", "colour=red", "--no-progress"]) == 2
    assert "colour" in capsys.readouterr().err
    assert main(["balance", TINY, "--agent", "random", "--find", "komi=3:1", "--no-progress"]) == 2
    assert "range" in capsys.readouterr().err
    assert main(["tournament", TINY, "random", "nobody", "--no-progress"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_local_processes_give_the_same_results_as_one_process() -> None:
    """--jobs 2 plays the same games (seeded per game) in another order; the summary is the same."""
    a = run_tournament(TINY, AGENTS, games=2, seed=3, jobs=1, iterations=None)
    b = run_tournament(TINY, AGENTS, games=2, seed=3, jobs=2, iterations=None)
    assert [(r.key, r.returns, r.plies) for r in a.results] == [(r.key, r.returns, r.plies) for r in b.results]


def test_a_tournament_on_the_cpu_clock_says_so_and_keeps_its_clock_on_resume(tmp_path: Path) -> None:
    """'--clock cpu': time budgets count the searching thread's CPU time; a results directory of a
    wall-clock run is not continued on the CPU clock (another experiment)."""
    out = tmp_path / "cpu"
    res = run_tournament("nume(size=3)", ["greedy", "mcts"], games=2, seconds=0.01, out=str(out), clock="cpu")
    assert res.clock == "cpu" and res.to_dict()["clock"] == "cpu" and len(res.results) == 2
    header = json.loads((out / RESULTS_FILE).read_text().splitlines()[0])["header"]
    assert header["clock"] == "cpu"
    with pytest.raises(ValueError, match="clock"):
        run_tournament("nume(size=3)", ["greedy", "mcts"], games=2, seconds=0.01, out=str(out))
    with pytest.raises(ValueError, match="clock must be one of"):
        run_tournament("nume(size=3)", ["greedy", "mcts"], games=2, clock="sundial")
    tasks = schedule("nume(size=3)", ["greedy", "random"], games=2, seconds=1, iterations=None, seed=0, clock="cpu")
    assert [t.clock for t in tasks] == ["cpu", "cpu"]


def test_a_balance_run_on_the_cpu_clock_says_so_and_keeps_its_clock_on_resume(tmp_path: Path) -> None:
    """Every command takes --clock: a balance run on the CPU clock records it, in its header and summary."""
    out = tmp_path / "b"
    res = run_balance("nume(size=3)", "mcts", games=2, seconds=0.005, out=str(out), clock="cpu")
    assert res.clock == "cpu" and res.to_dict()["clock"] == "cpu" and res.to_dict()["games"] == 2
    assert json.loads((out / RESULTS_FILE).read_text().splitlines()[0])["header"]["clock"] == "cpu"
    with pytest.raises(ValueError, match="clock"):
        run_balance("nume(size=3)", "mcts", games=2, seconds=0.005, out=str(out))


def test_a_tournament_takes_every_agent_kind(tmp_path: Path) -> None:
    """One way to make agents for every run: OpenSpiel's MCTS plays in a tournament as in a match."""
    pytest.importorskip("pyspiel")
    res = run_tournament(TINY, ["greedy", "openspiel-mcts(seed=2)"], games=2, iterations=8, seed=1)
    assert [r.error for r in res.results] == [None, None]
    assert {p.a for p in res.pairs} == {"greedy", "openspiel-mcts(seed=2)"}


def test_a_results_file_says_which_code_played_each_session(tmp_path: Path) -> None:
    """docs/balance.md, Reproducible: "the results file records which code played its games: before the
    first game a session adds, a line with tessera's version, the git commit and whether tracked files
    differed from it, Python's and numba's versions"; a run continued later is a second session, a run
    already complete adds none, and summary.json lists the sessions."""
    args = ["tournament", TINY, "random", "greedy", "--out", str(tmp_path), "--no-progress"]
    assert main([*args, "--games", "2"]) == 0
    assert main([*args, "--games", "2"]) == 0  # complete: nothing played, no session
    assert main([*args, "--games", "4"]) == 0  # continued: a second session
    lines = [json.loads(x) for x in (tmp_path / RESULTS_FILE).read_text().splitlines()]
    sessions = [x["session"] for x in lines if "session" in x]
    assert len(sessions) == 2
    assert [i for i, x in enumerate(lines) if "session" in x] == [1, 4]  # each before its session's games
    here = provenance()
    for s in sessions:
        assert s["commit"] == here["commit"] and s["python"] == here["python"] and s["numba"] == here["numba"]
        assert s["commit"] is None or (len(s["commit"]) == 40 and int(s["commit"], 16) >= 0)
        assert s["changed"] in (True, False, None) and s["started"].endswith("Z")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 4 and [x["file"] for x in summary["sessions"]] == [RESULTS_FILE] * 2
    store = ResultsFile(tmp_path, lines[0]["header"])  # the session lines read back beside the games
    assert len(store.done) == 4 and store.sessions == sessions
