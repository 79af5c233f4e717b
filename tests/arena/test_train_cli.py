"""``tessera train GAME``: the command runs a seeded, resumable self-play training and refuses other games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
    assert "no learned evaluation for 'ikabegama' (only nume, nibble)" in capsys.readouterr().out


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
