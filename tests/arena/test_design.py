"""The designer's lab: design metrics on constructed games of known value, score and wins apart, fair-value
warnings, example games, and one question asked at several strengths."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tessera.arena.balance import format_find, run_balance
from tessera.arena.cli import main
from tessera.arena.fair import find_flags
from tessera.arena.metrics import (
    example_games,
    histogram,
    lead_changes,
    outcome_uniformity,
    repetition,
    stability,
    summarize,
    uncertainty,
)
from tessera.arena.play import GameResult, Task, play_task
from tessera.arena.robust import agreement, format_robust, intervals_agree, run_robust, split_agents, verdict
from tessera.core.records import replay_text_record


def _result(key: str, returns: list[float], plies: int, **kw: object) -> GameResult:
    return GameResult(key, "", "nume(size=2)", ["a", "b"], returns, plies, 0.0, 0, **kw)  # type: ignore[arg-type]


def test_lead_changes_count_each_change_of_the_strict_leader_per_ply() -> None:
    """ "Lead changes: the leader at t differs from the last leader before t" — a tie has no leader."""
    seesaw = [[0, 0], [0.2, -0.2], [-0.2, 0.2], [0.2, -0.2], [-0.2, 0.2]]
    assert lead_changes(seesaw) == 3 / 4
    assert lead_changes([[0, 0], [0.5, -0.5], [0, 0], [0.7, -0.7]]) == 0.0  # a tie between keeps the lead
    assert lead_changes([[0, 0]]) is None


def test_stability_is_the_mean_variance_of_each_players_evaluation() -> None:
    """ "Stability: the mean over players of the variance of e_p(t)": a swing of ±1 every ply has variance 1."""
    assert stability([[0.3, -0.3]] * 5) == 0.0
    assert stability([[1, -1], [-1, 1]] * 3) == pytest.approx(1.0)


def test_uncertainty_is_one_while_the_leading_two_are_level_and_zero_when_one_is_won() -> None:
    """ "Uncertainty: the mean of 1 − (highest − second highest) / 2"."""
    assert uncertainty([[0, 0, 0]] * 4) == 1.0
    assert uncertainty([[1, -1]] * 4) == 0.0
    assert uncertainty([[0.5, -0.5], [0.5, -0.5]]) == pytest.approx(0.5)


def test_repetition_counts_plies_after_which_the_position_had_occurred() -> None:
    """ "Repetition: the share of plies after which the position had already occurred"."""
    assert repetition(["s", "a", "s", "a", "b"]) == pytest.approx(2 / 4)
    assert repetition(["s", "a", "b"]) == 0.0


def test_outcome_uniformity_is_the_normalised_entropy_of_the_outcomes() -> None:
    """ "1 when every outcome is equally likely, 0 when one always happens"."""
    assert outcome_uniformity([4, 4, 4]) == pytest.approx(1.0)
    assert outcome_uniformity([9, 0, 0]) == 0.0
    p = [0.5, 0.5, 0.0]
    assert outcome_uniformity([5, 5, 0]) == pytest.approx(-sum(x * math.log(x) for x in p if x) / math.log(3))


def test_length_histogram_counts_every_game_once() -> None:
    """The length distribution is a histogram whose counts add up to the games."""
    h = histogram([10, 12, 12, 30, 31, 50], bins=4)
    assert sum(h["counts"]) == 6 and h["edges"][0] == 10 and h["edges"][-1] == 50


def test_a_nume_game_fills_its_board_and_never_repeats_a_position() -> None:
    """Known values on a real game: Nume only adds stones, so no position repeats, and the board ends full."""
    r = play_task(Task("0", "nume(size=2)", seats=("greedy", "greedy"), trace=True, deal_seed=3))
    assert r.metrics["repetition"] == 0.0
    assert r.metrics["coverage"] == 1.0
    assert 0.0 <= r.metrics["uncertainty"] <= 1.0 and r.metrics["stability"] >= 0.0


def test_coverage_is_none_on_an_unbounded_board() -> None:
    """Ikabegamá's plane has no cell count: coverage is not defined there."""
    r = play_task(Task("0", "ikabegama(distance=2)", seats=("greedy", "random"), trace=True))
    assert r.metrics["coverage"] is None


def test_a_draw_by_the_safeguard_is_counted_apart_from_a_draw_by_the_rules() -> None:
    """ "Draws by cause (rule vs move cap)": Nymbat's 2-turn safeguard ends in a draw counted as a safeguard."""
    r = play_task(Task("0", "nymbat(max_turns=2)", seats=("random", "random"), trace=True, deal_seed=1))
    assert r.winner is None and r.metrics["draw_cause"] == "safeguard"
    s = summarize([r.metrics], [r.plies], [r.winner], 2)
    assert s["draws_by_cause"] == {"rule": 0, "safeguard": 1}


def test_tracing_leaves_the_agents_games_unchanged() -> None:
    """The metrics sample moves with their own generator: a traced game is the same game as an untraced one."""
    a = play_task(Task("0", "nume(size=3)", seats=("mcts", "mcts"), iterations=20, agent_seed="x", moves=True))
    b = play_task(
        Task("0", "nume(size=3)", seats=("mcts", "mcts"), iterations=20, agent_seed="x", moves=True, trace=True)
    )
    assert a.moves == b.moves


def test_balance_reports_score_and_wins_apart() -> None:
    """Score counts a draw as ½, wins only won games: with draws the two differ."""
    run = run_balance("nymbat(max_turns=2)", "random", games=4, seed=1)
    d = run.settings[0].to_dict()
    assert d["draw_rate"] == 1.0
    assert d["seat_win_rate"] == [0.0, 0.0]
    assert d["seat_score"] == [0.5, 0.5]
    assert d["ludii"]["draws_by_cause"] == {"rule": 0, "safeguard": 4}
    assert d["ludii"]["outcome_uniformity"] == 0.0


def test_examples_pick_the_shortest_longest_and_a_typical_game_per_outcome() -> None:
    """Shortest, longest, a safeguard game and the median-length game of each outcome, each once."""
    rs = [
        _result("0", [1, -1], 10, moves=["x"]),
        _result("1", [1, -1], 20, moves=["x"]),
        _result("2", [-1, 1], 30, moves=["x"]),
        _result("3", [0, 0], 40, moves=["x"], metrics={"draw_cause": "safeguard"}),
        _result("4", [1, -1], 15, moves=["x"]),
    ]
    kinds = {kind: r.key for kind, r in example_games(rs)}
    assert kinds["shortest"] == "0" and kinds["longest"] == "3"
    assert kinds["typical win of seat 0"] == "4" and kinds["typical win of seat 1"] == "2"
    assert "safeguard" not in kinds  # already listed as the longest


def test_example_games_are_written_as_records_that_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every study keeps example games: the files are text records the analysis board imports and that replay."""
    assert main(["balance", "nume(size=2)", "--agent", "greedy", "--games", "4", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    files = sorted((tmp_path / "examples").glob("*.txt"))
    assert files
    for f in files:
        state = replay_text_record(f.read_text())
        assert state.is_terminal()


def test_a_tournament_keeps_example_games_of_every_table_that_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'Every study keeps the moves of a sample (shortest, longest, capped, a typical one per outcome)':
    a tournament too, per table, a typical win named by the agent that won (the agents change seats)."""
    assert (
        main(
            ["tournament", "nume(size=2)", "greedy", "random", "--games", "4", "--out", str(tmp_path), "--no-progress"]
        )
        == 0
    )
    printed = capsys.readouterr().out
    files = sorted((tmp_path / "examples").glob("*.txt"))
    assert files and all(f.name.startswith("greedy-vs-random-") for f in files)
    assert any("shortest" in f.name for f in files) and any("typical-win-of-" in f.name for f in files)
    assert all(str(f) in printed for f in files)  # the CLI's output names them
    for f in files:
        assert replay_text_record(f.read_text()).is_terminal()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {e["table"] for e in summary["examples"]} == {"greedy vs random"}


def test_a_game_stopped_at_the_cap_is_an_example_even_without_the_metrics() -> None:
    """'capped': an untraced game (a tournament's) still says why a draw was one, so the capped example is found."""
    capped = play_task(Task("0", "nymbat(max_turns=2)", seats=("random", "random"), moves=True))
    assert capped.winner is None and capped.metrics == {"draw_cause": "safeguard"}
    won = play_task(Task("1", "nume(size=2)", seats=("greedy", "random"), moves=True))
    assert won.metrics == {}
    short, long = _result("3", [1, -1], 0, moves=["x"]), _result("2", [1, -1], 999, moves=["x"])
    kinds = {kind: r.key for kind, r in example_games([short, won, capped, long], by_agent=True)}
    assert kinds["safeguard"] == "0" and kinds["longest"] == "2" and kinds["shortest"] == "3"
    assert f"typical win of {won.seats[won.winner]}" in kinds


def test_a_fair_value_interval_beyond_the_tested_values_is_flagged() -> None:
    """An interval that reaches past the tested range is an extrapolation and says so."""
    rs = {0.0: [_result("a", [1, -1], 3)], 1.0: [_result("b", [-1, 1], 3)]}
    flags = find_flags({"ci95": [-0.5, 0.7], "logistic": {"b": -1.0}}, rs)
    assert flags["outside_range"] and flags["range_tested"] == [0.0, 1.0]
    lines = format_find({"param": "komi", "estimate": 0.4, "ci95": [-0.5, 0.7], "bracket": [0, 1], **flags})
    assert any("outside the tested values" in line for line in lines)


def test_an_effect_that_reverses_beyond_the_noise_is_flagged_non_monotonic() -> None:
    """The fit assumes a monotonic effect: a clear reversal against its slope is reported."""
    win, loss = [1.0, -1.0], [-1.0, 1.0]
    rs = {
        2.0: [_result(str(i), win, 3) for i in range(30)],
        4.0: [_result(str(i), loss, 3) for i in range(30)],
        6.0: [_result(str(i), win, 3) for i in range(30)],
    }
    flags = find_flags({"ci95": None, "logistic": {"b": -0.1}}, rs)
    assert flags["non_monotonic"] == "4 scores clearly below 6"
    lines = format_find({"param": "distance", "estimate": 4.0, "ci95": None, "bracket": [2, 6], **flags})
    assert any("not decided" in line for line in lines) and any("monotonically" in line for line in lines)


def test_verdicts_per_strength_and_their_agreement() -> None:
    """ "decided and stable", "decided only at strength X", "not decided" — and a flip is named."""
    assert verdict([0.6, 0.8]) == "seat 0 favoured" and verdict([0.3, 0.6]) == "not decided"
    assert agreement(["seat 0 favoured", "seat 0 favoured"], ["a", "b"]) == "decided and stable"
    assert agreement(["not decided", "seat 0 disfavoured"], ["a", "b"]) == "decided only at b"
    assert agreement(["seat 0 favoured", "seat 0 disfavoured"], ["a", "b"]) == "flips with strength"
    assert agreement(["seat 0 disfavoured", "even within ±100 Elo"], ["a", "b"]) == "differs with strength"
    assert intervals_agree([[0, 1], [2, 3]]) == "differs with strength"
    assert split_agents("level3(scale=0.1),mcts(c=0.7,rollout_cutoff=20)") == [
        "level3(scale=0.1)",
        "mcts(c=0.7,rollout_cutoff=20)",
    ]


def test_one_question_at_three_strengths_with_a_ladder(tmp_path: Path) -> None:
    """``--agents``: a run per agent, every row labelled with the agent's spec, and a ladder between them."""
    res = run_robust(
        "ikabegama(distance=3)", ["random", "greedy", "alphabeta(max_depth=2)"], games=6, ladder_games=2,
        iterations=1, out=str(tmp_path),
    )  # fmt: skip
    [q] = res.questions
    assert [row["agent"] for row in q["rows"]] == ["random", "greedy", "alphabeta(max_depth=2)"]
    assert all(row["games"] == 6 for row in q["rows"])
    assert q["agreement"] == agreement([row["verdict"] for row in q["rows"]], res.agents)
    assert res.ladder is not None and len(res.ladder.results) == 6
    assert json.loads(json.dumps(res.to_dict()))["kind"] == "robust"
    with pytest.raises(ValueError, match="at least two agents"):
        run_robust("nume(size=2)", ["greedy"], games=2)
    with pytest.raises(ValueError, match="twice"):
        run_robust("nume(size=2)", ["greedy", "greedy"], games=2)


def test_the_example_games_of_each_strength_are_named_by_its_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'every row labelled with the agent's full spec': the example games of ``--agents`` too, each file
    named by the agent that played it, and each replays."""
    argv = ["balance", "nume(size=2)", "--agents", "random,alphabeta(max_depth=1)", "--games", "2"]
    assert main([*argv, "--ladder-games", "2", "--iterations", "1", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    names = sorted(f.name for f in (tmp_path / "examples").glob("*.txt"))
    assert any(n.startswith("random-") for n in names) and any(n.startswith("alphabeta_max_depth1-") for n in names)
    assert all(n.startswith(("random-", "alphabeta_max_depth1-")) for n in names), names
    for f in (tmp_path / "examples").glob("*.txt"):
        assert replay_text_record(f.read_text()).is_terminal()


def test_balance_command_refuses_agent_with_agents(capsys: pytest.CaptureFixture[str]) -> None:
    """--agent and --agents ask different things: together they are exit code 2 with the reason."""
    assert main(["balance", "nume(size=2)", "--agent", "greedy", "--agents", "random,greedy"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def test_sequential_stopping_ends_a_clear_question_early_and_names_an_even_one() -> None:
    """ "SPRT-style stopping where a question is a comparison": greedy self-play of a two-hex race is decided for
    seat 0 within a few batches, far below the cap; random self-play of it is found even within the margin."""
    res = run_robust("ikabegama(distance=2)", ["greedy", "random"], games=200, sprt_elo=100, ladder_games=0)
    greedy, rnd = res.questions[0]["rows"]
    assert greedy["verdict"] == "seat 0 favoured" and greedy["games"] <= 30
    assert rnd["verdict"] == "even within ±100 Elo" and rnd["games"] < 200
    assert res.questions[0]["agreement"] == "differs with strength"  # favoured at one strength, even at the other
    with pytest.raises(ValueError, match="positive Elo margin"):
        run_robust("nume(size=2)", ["greedy", "random"], games=4, sprt_elo=-5)


def test_the_printed_table_labels_every_row_with_its_budget_and_flags_a_fair_value_outside_the_tested_values(
    tmp_path: Path,
) -> None:
    """'every row labelled with the agent's full spec and budget' and 'the interval flagged when it leaves the
    tested range' — in the printed table of ``--agents`` too, not only in its JSON."""
    res = run_robust(
        "ikabegama(distance=3)", ["random", "greedy"], games=4, ladder_games=2, iterations=1, out=str(tmp_path / "a")
    )
    text = format_robust(res)
    assert "  random, 1 it/move " in text and "  greedy, 1 it/move " in text
    fair = run_robust(
        "nume(size=3)", ["greedy", "random"], find=("komi", 0.0, 3.0), games=6, rounds=2, points=3, ladder_games=2,
        seed=1, out=str(tmp_path / "b"),
    )  # fmt: skip
    outside = [row for row in fair.questions[0]["rows"] if row["find"].get("outside_range")]
    assert outside, "the seeded run no longer gives an interval beyond the tested values"
    assert format_robust(fair).count("warning: the interval reaches outside the tested values") == len(outside)
