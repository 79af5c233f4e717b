"""Matches: seats alternate, counts add up, Wilson intervals, the ``match`` command's table and JSON."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

from tessera.agents import Budget, RandomAgent
from tessera.arena import play_match, play_seats, wilson_interval
from tessera.arena.cli import main, register
from tessera.arena.match import seat_of
from tessera.arena.play import GameResult, Task
from tessera.arena.runner import RESULTS_FILE
from tessera.core.game import Action, State

TINY = "ikabegama(distance=2)"


def test_wilson_interval_matches_known_values() -> None:
    """The 95% Wilson score interval: 95/100 gives 0.888–0.978; 0/10 and 10/10 stay inside [0, 1]."""
    lo, hi = wilson_interval(95, 100)
    assert round(lo, 3) == 0.888 and round(hi, 3) == 0.978
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    lo, hi = wilson_interval(10, 10)
    assert hi == pytest.approx(1.0) and 0.72 < lo < 0.73
    assert wilson_interval(5, 0) == (0.0, 1.0)


def test_match_alternates_seats_and_counts_add_up() -> None:
    """Seats alternated: agent A is player 0 in even games and player 1 in odd ones."""
    res = play_match(TINY, "greedy", "random", games=6, seed=3)
    assert [seat_of(0, r) for r in res.records] == [0, 1, 0, 1, 0, 1]
    assert [r.seats for r in res.records] == [["greedy", "random"], ["random", "greedy"]] * 3
    assert res.wins + res.draws + res.losses == res.games == 6
    assert sum(row["games"] for row in res.by_seat()) == 6
    for r in res.records:
        assert r.error is None
        mine = r.returns[seat_of(0, r)]
        assert r.score(seat_of(0, r)) == {1.0: 1.0, 0.0: 0.5, -1.0: 0.0}[mine]
    lo, hi = res.score_ci
    assert lo <= res.score <= hi
    lo, hi = res.win_ci
    assert lo <= res.win_rate <= hi


def test_match_with_iteration_budgets_is_reproducible() -> None:
    """Seeded matches with iteration budgets give the same games."""
    a = play_match(TINY, "mcts", "greedy", games=2, iterations=20, seed=5, keep_moves=True)
    b = play_match(TINY, "mcts", "greedy", games=2, iterations=20, seed=5, keep_moves=True)
    assert [r.moves for r in a.records] == [r.moves for r in b.records]
    assert all(r.moves for r in a.records)


def test_match_rejects_bad_input() -> None:
    """Bad input gets a clear error naming what was wrong."""
    with pytest.raises(ValueError, match="unknown game"):
        play_match("chess", "random", "random", games=1)
    with pytest.raises(ValueError, match="unknown agent"):
        play_match(TINY, "stockfish", "random", games=1)
    with pytest.raises(ValueError, match="games"):
        play_match(TINY, "random", "random", games=0)


def test_match_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`tessera match GAME A B --games N --seconds S` prints a win/draw/loss table with the 95% CI."""
    code = main(["match", TINY, "greedy", "random", "--games", "4", "--seconds", "0.05", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "wins" in out and "draws" in out and "losses" in out and "95% CI" in out
    assert "A as player 0" in out and "A as player 1" in out
    total = next(line for line in out.splitlines() if line.startswith("total")).split()
    assert int(total[1]) == 4 and int(total[2]) + int(total[3]) + int(total[4]) == 4


def test_match_command_json_and_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the result as JSON; --jobs plays games in parallel with the same totals."""
    code = main(["match", TINY, "mcts", "random", "--games", "4", "--iterations", "10", "--json", "--jobs", "2"])
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    assert d["games"] == 4 and d["wins"] + d["draws"] + d["losses"] == 4
    assert d["agent_a"] == "mcts" and d["agent_b"] == "random" and d["iterations"] == 10
    assert len(d["score_ci95"]) == 2 and 0 <= d["score_ci95"][0] <= d["score"] <= d["score_ci95"][1] <= 1
    assert [g["seat_a"] for g in d["records"]] == [0, 1, 0, 1]  # each game from A's side, as before
    assert sum(g["score_a"] for g in d["records"]) == d["wins"] + d["draws"] / 2


def test_match_command_reports_bad_agents(capsys: pytest.CaptureFixture[str]) -> None:
    """A bad agent spec gives exit code 2 and a message naming it."""
    code = main(["match", TINY, "nonsense", "random", "--games", "1", "--no-progress"])
    assert code == 2
    assert "nonsense" in capsys.readouterr().err


def test_register_sets_func_on_a_subparsers_object() -> None:
    """The lead's CLI calls register(subparsers); the command's func returns an exit code."""
    parser = argparse.ArgumentParser(prog="tessera")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    args = parser.parse_args(["match", TINY, "random", "random", "--games", "2", "--no-progress", "--json"])
    assert callable(args.func) and args.games == 2 and args.json


FOUR = "nymbat(players=4,reserve=16,first_limit=10,max_turns=300)"


def test_seats_match_rotates_every_agent_over_every_seat() -> None:
    """Issue 16: games of any number of players, agents listed per seat, seats rotated."""
    res = play_seats(FOUR, ["greedy", "random", "random(seed=1)", "random(seed=2)"], games=4, seed=2)
    rotation = [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]
    assert [[seat_of(k, r) for k in range(4)] for r in res.records] == rotation
    assert res.records[1].seats == ["random(seed=2)", "greedy", "random", "random(seed=1)"]
    for k in range(4):
        assert [row["games"] for row in res.by_seat(k)] == [1, 1, 1, 1]
    for r in res.records:
        assert r.error is None and sum(r.returns) == pytest.approx(0.0)
        scores = [r.score(s) for s in range(4)]
        assert sorted(scores) in ([0.0, 0.0, 0.0, 1.0], [0.5] * 4)
        w = [s for s in range(4) if scores[s] == 1.0]
        assert not w or r.returns[w[0]] == 1.0
    total = [res.counts(k) for k in range(4)]
    assert sum(c["wins"] for c in total) + sum(c["draws"] for c in total) // 4 == 4
    d = json.loads(json.dumps(res.to_dict()))
    assert d["results"][0]["by_seat"] == res.by_seat(0)
    assert [g["seats"] for g in d["records"]] == rotation  # each game by listed agent, as before


def test_seats_match_needs_one_agent_per_seat() -> None:
    """A four-player game needs four agents; a two-agent match of it is refused with the reason."""
    with pytest.raises(ValueError, match="4 seats: list 4 agents"):
        play_seats(FOUR, ["random", "random"], games=1)
    with pytest.raises(ValueError, match="list one agent per seat"):
        play_match(FOUR, "random", "random", games=1)


def test_match_command_with_four_agents_prints_win_draw_loss_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    """`tessera match 'nymbat(players=4)' A B C D` prints each agent's W/D/L in total and by seat."""
    assert main(["match", FOUR, "greedy", "random", "random", "random", "--games", "4", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "4 seats, rotated" in out and "W/D/L by seat" in out
    assert out.count("0: ") == 4
    assert main(["match", FOUR, "greedy", "random", "--games", "1"]) == 2
    assert "list 4 agents" in capsys.readouterr().err


def test_clock_cpu_counts_budgets_in_the_searching_threads_cpu_time() -> None:
    """'--clock cpu': budgets count the CPU time of the searching thread, not the time waited."""
    import time

    from tessera.agents import Budget, clock, set_clock, using_clock

    assert set_clock("wall") == "wall"
    with using_clock("cpu"):
        budget = Budget.make(0.05, None, None)
        time.sleep(0.1)  # sleeping uses no CPU: a CPU-time budget is not spent by waiting
        assert not budget.out_of_time()
        spin = clock()
        while clock() - spin < 0.06:  # burning CPU spends it
            pass
        assert budget.out_of_time()
    budget = Budget.make(0.05, None, None)  # back on the wall clock: waiting spends it
    time.sleep(0.06)
    assert budget.out_of_time()
    with pytest.raises(ValueError, match="clock must be one of wall, cpu"):
        set_clock("sundial")


def test_match_on_the_cpu_clock_records_it_and_plays_legally() -> None:
    """A match with clock='cpu' plays every game to the end and says which clock it used."""
    from tessera.agents import clock_name

    res = play_match("nume(size=3)", "mcts", "greedy", games=2, seconds=0.02, clock="cpu", seed=1)
    assert res.clock == "cpu" and res.to_dict()["clock"] == "cpu"
    assert res.games == 2 and not any(r.error for r in res.records)
    assert clock_name() == "wall"  # the match restores the process's clock
    with pytest.raises(ValueError, match="clock must be one of"):
        play_match("nume(size=3)", "random", "random", games=1, clock="gpu")


class _Stuck(RandomAgent):
    """An agent that raises at its first sequential move."""

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        raise RuntimeError("no idea")


class _Cheat(RandomAgent):
    """An agent that answers with an action that is not legal."""

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        return -1


def test_an_agent_that_raises_or_cheats_forfeits_and_the_others_share_the_win() -> None:
    """The forfeit rule, the same in every run: 'an agent that returns an illegal move (or raises) forfeits
    that game' — −1 to it, 1/(n−1) to each other player; the others score a draw (½), the offender a loss."""
    res = play_seats(FOUR, ["random", _Stuck(), "random(seed=1)", "random(seed=2)"], games=4, seed=1)
    for r in res.records:
        seat = seat_of(1, r)
        assert r.offender == seat and r.error is not None and "raised RuntimeError: no idea" in r.error
        assert r.returns == [-1.0 if s == seat else pytest.approx(1 / 3) for s in range(4)]
        assert [r.score(s) for s in range(4)] == [0.0 if s == seat else 0.5 for s in range(4)]
    assert res.counts(1) == {"games": 4, "wins": 0, "draws": 0, "losses": 4}
    assert res.counts(0) == {"games": 4, "wins": 0, "draws": 4, "losses": 0}
    two = play_match("nume(size=3)", "greedy", _Cheat(), games=2)
    assert [r.returns for r in two.records] == [[1.0, -1.0], [-1.0, 1.0]]
    assert all("played an illegal move" in (r.error or "") for r in two.records)
    assert two.wins == 2 and two.to_dict()["forfeits"] == 2


def test_a_match_kept_in_a_results_file_continues_where_it_stopped(tmp_path: Path) -> None:
    """Resumable matches: with out=DIR every game is appended as it ends; the same call again plays only the
    missing games and gives the result of an uninterrupted match; a different match in DIR is refused."""
    import tessera.arena.runner as runner

    real, calls = runner.play_task, {"n": 0}

    def stop_after_three(task: Task) -> GameResult:
        if calls["n"] == 3:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(task)

    runner.play_task = stop_after_three  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            play_match(TINY, "mcts", "greedy", games=6, iterations=10, seed=4, out=str(tmp_path))
    finally:
        runner.play_task = real  # type: ignore[assignment]
    assert len((tmp_path / RESULTS_FILE).read_text().splitlines()) == 1 + 1 + 3  # header, session, games
    resumed = play_match(TINY, "mcts", "greedy", games=6, iterations=10, seed=4, out=str(tmp_path))
    fresh = play_match(TINY, "mcts", "greedy", games=6, iterations=10, seed=4)
    assert resumed.to_dict(with_games=False) == fresh.to_dict(with_games=False)
    assert [r.returns for r in resumed.records] == [r.returns for r in fresh.records]
    assert len((tmp_path / RESULTS_FILE).read_text().splitlines()) == 1 + 2 + 6  # two sessions played
    with pytest.raises(ValueError, match="another run"):
        play_match(TINY, "mcts", "greedy", games=6, iterations=10, seed=5, out=str(tmp_path))


def test_match_command_out_writes_the_summary_and_a_second_run_plays_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tessera match ... --out DIR`: the results file and summary.json; the same command again plays no game."""
    argv = ["match", TINY, "greedy", "random", "--games", "4", "--out", str(tmp_path), "--no-progress", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    lines = (tmp_path / RESULTS_FILE).read_text()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 4 and "records" not in summary and summary["wins"] == first["wins"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert (tmp_path / RESULTS_FILE).read_text() == lines  # nothing played, nothing appended


@pytest.mark.parametrize("command", ["match", "tournament", "balance"])
def test_every_command_takes_the_run_options(command: str) -> None:
    """One runner: resume (--out), Ray, processes, the clock and the budgets are the same options everywhere."""
    parser = argparse.ArgumentParser(prog="tessera")
    register(parser.add_subparsers(dest="command"))
    head = {"match": [TINY, "a", "b"], "tournament": [TINY, "a", "b"], "balance": [TINY, "--agent", "a"]}[command]
    args = parser.parse_args(
        [command, *head, "--out", "d", "--ray", "auto", "--jobs", "2", "--clock", "cpu", "-i", "5", "--seed", "3"]
    )
    assert (args.out, args.ray, args.jobs, args.clock, args.iterations, args.seed) == ("d", "auto", 2, "cpu", 5, 3)


def test_openspiel_mcts_plays_a_four_player_match() -> None:
    """Every agent kind in every run: OpenSpiel's MCTS plays four-player Nymbat with seats rotated, legally."""
    pytest.importorskip("pyspiel")
    game = "nymbat(players=4,reserve=8,first_limit=6,max_turns=60)"
    res = play_seats(game, ["openspiel-mcts(seed=1)", "random", "random", "random"], games=2, iterations=5, seed=1)
    assert [r.error for r in res.records] == [None, None]
    assert [r.seats[seat_of(0, r)] for r in res.records] == ["openspiel-mcts(seed=1)"] * 2
    assert all(r.think[seat_of(0, r)] > 0 for r in res.records)
