"""The puzzle file format and the judging of an attempt (tessera.puzzles.model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.core.game import IllegalMove
from tessera.puzzles.model import Puzzle, judge, public_view, read_puzzles, shipped, write_puzzles


def two_steps() -> Puzzle:
    for p in shipped("nibble"):
        if len(p.player_steps()) >= 2:
            return p
    raise AssertionError("no shipped Nibble puzzle of two steps")


def test_a_puzzle_file_round_trips(tmp_path: Path) -> None:
    puzzles = shipped("nibble")[:5]
    path = tmp_path / "p.jsonl"
    assert write_puzzles(path, reversed(puzzles)) == 5
    assert read_puzzles(path) == sorted(puzzles, key=lambda p: p.id)


def test_a_bad_line_is_refused_with_its_place(tmp_path: Path) -> None:
    good = shipped("nibble")[0]
    row = json.loads(good.to_json())
    row["colour"] = 1
    path = tmp_path / "p.jsonl"
    path.write_text(good.to_json() + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"p\.jsonl:2: puzzle: unknown field\(s\) colour"):
        read_puzzles(path)
    del row["colour"]
    row["proof"] = "hunch"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="proof is one of solver, search"):
        read_puzzles(path)


def test_the_line_is_judged_step_by_step() -> None:
    p = two_steps()
    steps = [p.line[i] for i in p.player_steps()]
    assert judge(p, []).status == "correct"
    first = judge(p, steps[:1])
    assert first.status == "correct" and first.steps[0].verdict == "correct"
    assert judge(p, steps).status == "solved"
    wrong = sorted(p.refutations[0])[0]
    j = judge(p, [wrong])
    assert j.status == "wrong" and j.steps[0].refutation == p.refutations[0][wrong]
    with pytest.raises(IllegalMove, match="step 1"):
        judge(p, ["nowhere"])
    with pytest.raises(ValueError, match="one too many"):
        judge(p, [*steps, steps[0]])


def test_the_public_view_carries_no_answer() -> None:
    p = two_steps()
    view = public_view(p)
    assert "line" not in view and "refutations" not in view
    text = json.dumps(view)
    for i in p.player_steps():
        assert json.dumps(p.line[i]) not in text.replace(json.dumps(p.position), "")
