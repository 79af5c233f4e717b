"""``tessera train GAME``: a seeded, resumable self-play training (local processes or Ray) with a learning curve."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tessera.agents.learned.model import hand_weights
from tessera.arena.train import TrainConfig, run_games
from tessera.cli import main


def test_tessera_train_writes_a_generation_and_the_best_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["train", "nume(size=2)", "--games", "4", "--gate", "2", "--generations", "1", "--iterations", "10"]
    assert main([*argv, "--seed", "3", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "generation 1:" in text and "best weights:" in text
    gen = json.loads((out / "gen-001.json").read_text())
    assert gen["format"] == "tessera-weights" and gen["training"]["spec"] == "nume(size=2)"
    assert [json.loads(line)["generation"] for line in (out / "history.jsonl").read_text().splitlines()] == [1]


def test_tessera_train_refuses_a_game_without_a_learned_evaluation(capsys: pytest.CaptureFixture[str]) -> None:
    """Only Nume and Nibble have features to learn from: another game is refused with the list, nothing is written."""
    assert main(["train", "ikabegama", "--out", "/nonexistent/never"]) == 2
    assert "no learned evaluation for 'ikabegama' (only nibble, nume)" in capsys.readouterr().out


def test_tessera_train_nibble_writes_its_stages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nib"
    argv = ["train", "nibble", "--positions", "10", "--stages", "12,24", "--iterations", "20", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "stage 1 (reach 12)" in text and "stage 2 (reach 24)" in text and "weights:" in text
    best = json.loads((out / "best.json").read_text())
    assert best["game"] == "nibble" and best["reach"] == 12 and best["stages"][0]["reach"] == 24
    assert main(["train", "nibble", "--stages", "24,12", "--out", str(tmp_path / "bad")]) == 2
    assert "increasing" in capsys.readouterr().out


def test_each_game_is_trained_the_way_its_learned_kit_declares() -> None:
    """``tessera train`` reaches a game only through ``LearnedKit.training``: the games it trains are those
    whose kit says how, and each trainer refuses a game its kit gives to the other one."""
    from tessera.arena.stages import train_stages
    from tessera.arena.train import train, trainable
    from tessera.core.registry import game_class

    ways = {name: game_class(name).learned().training for name in trainable()}  # type: ignore[union-attr]
    assert ways == {"nibble": "stages", "nume": "generations"}
    with pytest.raises(ValueError, match="not trained stage by stage"):
        train_stages("nume(size=2)", Path("/nonexistent/never"))
    with pytest.raises(ValueError, match="not trained by self-play generations"):
        train(TrainConfig(game="nibble", spec="nibble", out=Path("/nonexistent/never")))


def test_the_training_games_are_the_same_in_one_process_or_several() -> None:
    """``--jobs``: every game is seeded by its own seed, so processes change the speed, never the games."""
    cfg = TrainConfig(game="nume", spec="nume(size=2)", iterations=0, seed=2)
    pair = (hand_weights(), hand_weights())
    seeds, seats = list(range(100, 108)), [i % 2 for i in range(8)]
    here = run_games(cfg, pair, seeds, seats, True)
    cfg.jobs = 2
    there = run_games(cfg, pair, seeds, seats, True)
    assert [(z, sizes) for z, _, sizes in here] == [(z, sizes) for z, _, sizes in there]
    for (_, ka, _), (_, kb, _) in zip(here, there, strict=True):
        assert len(ka) == len(kb) > 0 and all(np.array_equal(a, b) for a, b in zip(ka, kb, strict=True))


def test_tessera_train_draws_a_learning_curve_against_the_hand_evaluation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each generation's best plays the hand-written evaluation; the points (Elo with a 95 % interval) are
    kept in ``curve.jsonl`` and drawn in ``curve.json`` (and ``curve.png`` with matplotlib)."""
    out = tmp_path / "run"
    argv = ["train", "nume(size=2)", "--games", "6", "--gate", "2", "--generations", "2", "--iterations", "0"]
    assert main([*argv, "--curve-games", "4", "--jobs", "2", "--hours", "0.5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(2 processes)" in text and "curve: the best scores" in text
    points = [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]
    assert [p["generation"] for p in points] == [1, 2]
    for p in points:
        assert p["games"] == 4 and 0 <= p["score"] <= 1 and p["elo_lo"] <= p["elo"] <= p["elo_hi"]
    plot = json.loads((out / "curve.json").read_text())
    assert plot["series"][0]["x"] == [1, 2] and plot["series"][0]["y"] == [p["elo"] for p in points]


def test_tessera_train_refuses_both_minutes_and_hours_and_bad_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "nume", "--minutes", "5", "--hours", "1", "--out", "/nonexistent/never"]) == 2
    assert "--minutes or --hours, not both" in capsys.readouterr().out
    assert main(["train", "nume", "--jobs", "0", "--out", "/nonexistent/never"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().out
