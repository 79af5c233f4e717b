"""``tessera puzzles make`` and ``tessera puzzles check``: a shipped puzzle is found again from the
record of its game, from a server's database holding that game, and the check catches a broken file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.cli import main
from tessera.core.records import text_record
from tessera.puzzles.model import Puzzle, read_puzzles, shipped, write_puzzles
from tessera.puzzles.sources import PlayedGame, selfplay

SEED = 1304
"""A deal of the shipped set (studies/puzzles/generate.sh: self-play game ``SEED − 1000``, seats in this order)."""


def the_game() -> PlayedGame:
    (played,) = selfplay("nibble", 1, ("greedy", "greedy(noise=0.5)"), SEED)
    return played


def shipped_from_it() -> set[str]:
    return {
        p.id for p in shipped("nibble") if p.source.startswith(f"self-play greedy vs greedy(noise=0.5), seed {SEED},")
    }


def made(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> tuple[dict[str, object], list[Puzzle]]:
    code = main(["puzzles", "make", "nibble", *args, "--reach", "16", "--seed", "1000", "--out", str(out)])
    assert code == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return figures, read_puzzles(out)


def test_a_shipped_puzzle_is_found_again_from_its_game_s_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = shipped_from_it()
    assert expected, "the shipped set holds a puzzle of that game"
    played = the_game()
    record = tmp_path / "game.txt"
    record.write_text(text_record(played.spec, played.seed, played.moves), encoding="utf-8")
    out = tmp_path / "nibble.jsonl"
    figures, puzzles = made(capsys, out, "--from", str(record))
    assert figures["games"] == 1 and figures["added"] == len(puzzles)
    assert {p.id for p in puzzles} == expected
    # 'too easy' is measured at generation: the share of the new unique puzzles the level-1 agent solved
    too_easy, kept = int(str(figures["too_easy"])), int(str(figures["kept"]))
    assert figures["too_easy_share"] == too_easy / (too_easy + kept)
    # the same command again adds nothing: equal positions are one puzzle
    figures, again = made(capsys, out, "--from", str(record))
    assert figures["added"] == 0 and again == puzzles
    assert main(["puzzles", "check", str(out)]) == 0


def test_puzzles_are_found_in_a_server_s_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tessera.server.http.app import create_app

    played = the_game()
    url = f"sqlite:///{tmp_path / 'tessera.db'}"
    with TestClient(create_app(url, ai_mode="thread", ai_seconds=0.01, warm=False)) as c:
        r = c.post(
            "/api/records",
            content=text_record(played.spec, played.seed, played.moves),
            headers={"Content-Type": "text/plain"},
        )
        assert r.status_code == 201, r.text
    figures, puzzles = made(capsys, tmp_path / "db.jsonl", "--from", url)
    assert figures["games"] == 1
    assert {p.id for p in puzzles} == shipped_from_it()


def test_bad_input_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.jsonl")
    assert main(["puzzles", "make", "nibble", "--out", out]) == 2
    assert "--from SOURCE or --selfplay N" in capsys.readouterr().err
    assert main(["puzzles", "make", "nibble", "--from", str(tmp_path / "missing"), "--out", out]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["puzzles", "make", "chess", "--selfplay", "1", "--out", out]) == 2


def test_the_check_catches_a_puzzle_whose_line_is_not_the_only_win(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = shipped("nibble")[0]
    other = sorted(p.refutations[0])[0]
    refs = dict(p.refutations[0])
    refs[p.line[0]] = refs.pop(other)
    bad = Puzzle(**{**p.__dict__, "line": [other], "refutations": [refs]})
    path = tmp_path / "bad.jsonl"
    write_puzzles(path, [bad])
    assert main(["puzzles", "check", str(path)]) == 1
    assert bad.id in capsys.readouterr().out
