"""The tessera command: list, rules, play, bench."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from tessera.cli import main


def test_list_shows_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    import tessera

    assert [r["name"] for r in rows] == tessera.list_games()


def test_rules_prints_the_summary_and_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "ikabegama"]) == 0
    out = capsys.readouterr().out
    assert "Growth" in out and "max_plies" in out and "Ruling" in out


def test_bench_reports_figures_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ikabegama(distance=2)", "--seconds", "0.2", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    for mode in ("list", "rollout", "batch"):
        assert r[mode]["games"] >= 1 and r[mode]["plies_per_s"] > 0
        assert r[mode]["seconds"] >= 0.2  # CPU seconds, the rates' clock
        assert r[mode]["wall_seconds"] > 0 and r[mode]["wall_plies_per_s"] > 0
    assert r["clock"] == "cpu"


def test_bad_game_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "nosuchgame"]) == 2
    assert "unknown game 'nosuchgame'" in capsys.readouterr().err
    assert main(["rules", "ikabegama(distance=99)"]) == 2
    assert "distance=99" in capsys.readouterr().err


def test_play_two_humans_in_the_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Illegal input is refused with the reason; the game goes on until it ends."""
    # 5,0 is not adjacent to Light; Dark leaves its nest and Light walks in
    moves = "moves\n5,0\n1,0\n3,0>5,0\n2,0\n5,0>7,0\n3,0\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(moves))
    assert main(["play", "ikabegama(distance=3)"]) == 0
    out = capsys.readouterr().out
    assert "illegal: 5,0: a growth must be adjacent" in out
    assert "Result: Light wins" in out


def test_play_against_random_finishes() -> None:
    """`tessera play GAME --vs random`: a human against the random bot (here the human quits)."""
    r = subprocess.run(
        [sys.executable, "-m", "tessera.cli", "play", "ikabegama", "--vs", "random", "--as", "1", "--seed", "3"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "Light plays" in r.stdout


def test_play_against_an_agent_at_simultaneous_turns() -> None:
    """`tessera play nelaxtam --vs level1`: the agent answers each order with its own (secret) order."""
    r = subprocess.run(
        [sys.executable, "-m", "tessera", "play", "nelaxtam(size=10)", "--vs", "level1", "--seed", "1"],
        input="1@b1 2@d1 3@a2 4@c2 5@e4\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "illegal" not in r.stdout and "Turn: 2 (battle)" in r.stdout


def test_play_four_player_nymbat_against_three_bots_names_every_seat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tessera play 'nymbat(players=4)' --vs random`: seats 1–3 are bots named Green, Blue and Yellow."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("o4=3\nend\n" + "pass\n" * 10))
    assert main(["play", "nymbat(players=4,reserve=6,first_limit=6,max_turns=12)", "--vs", "random"]) == 0
    out = capsys.readouterr().out
    assert "Green plays" in out and "Blue plays" in out and "Yellow plays" in out
