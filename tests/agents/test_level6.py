"""Level 6 is offered only where a stored SPRT (studies/sprt/) accepted the game's level-6 agent against
level 5 (issue 43): the check re-reads a results file, here from fixture directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.agents.evidence import (
    SPRT_DIR_ENV,
    check_level,
    level6_evidence,
    offered_levels,
    read_sprt,
    top_level,
)
from tessera.agents.spec import check_offered, level, make_agent
from tessera.arena.match import play_seats
from tests.agents.sprt_runs import AGENT, FOLDER, write_run


def test_level6_is_offered_where_the_stored_sprt_accepted_h1(tmp_path: Path) -> None:
    """ "it is offered ... only for games whose stored SPRT result ... says it beats level 5": ten won pairs
    (LLR above 2.94) offer level 6 in Nymbat; the game's level 6 is its own agent at level 5's time."""
    write_run(tmp_path, [(1.0, 1.0)] * 10)
    ev = level6_evidence("nymbat", tmp_path)
    assert ev is not None and ev.verdict == "H1" and ev.llr >= ev.test.upper and ev.counts == (0, 0, 0, 0, 10)
    assert top_level("nymbat", 2, tmp_path) == 6 and offered_levels("nymbat", 2, tmp_path) == [1, 2, 3, 4, 5, 6]
    check_level(6, "nymbat", 2, tmp_path)


def test_a_run_between_its_bounds_or_accepting_h0_keeps_level_5_on_top(tmp_path: Path) -> None:
    """ "A game without it keeps level 5 as top": six won pairs (LLR 2.05 < 2.94) are not yet enough, and a
    run of even pairs accepts H0."""
    write_run(tmp_path, [(1.0, 1.0)] * 6)
    assert read_sprt(tmp_path / FOLDER / "results.jsonl").verdict is None
    assert level6_evidence("nymbat", tmp_path) is None and top_level("nymbat", 2, tmp_path) == 5
    with pytest.raises(ValueError, match="level 6 is not offered in nymbat"):
        check_level(6, "nymbat", 2, tmp_path)
    write_run(tmp_path, [(1.0, 0.0)] * 40)
    assert read_sprt(tmp_path / FOLDER / "results.jsonl").verdict == "H0"
    assert top_level("nymbat", 2, tmp_path) == 5


@pytest.mark.parametrize(
    ("agents", "game", "sprt"),
    [
        (("greedy", "level5"), "nymbat", (0.0, 150.0)),  # another agent than the declared level 6
        ((AGENT, "level4"), "nymbat", (0.0, 150.0)),  # against level 4, not level 5
        ((AGENT, "level5(tree=compiled)"), "nymbat", (0.0, 150.0)),  # level 5 on another tree
        ((AGENT, "level5"), "nymbat(reserve=12)", (0.0, 150.0)),  # another variant
        ((AGENT, "level5"), "nymbat", (-200.0, -50.0)),  # H1 does not say "stronger than level 5"
    ],
)
def test_evidence_of_another_pair_game_or_hypothesis_does_not_count(
    tmp_path: Path, agents: tuple[str, str], game: str, sprt: tuple[float, float]
) -> None:
    """ "the results' final verdict H1 accepted" counts only for the declared agent against level 5 in the
    game's default variant, with H1 above level 5."""
    write_run(tmp_path, [(1.0, 1.0)] * 10, agents=agents, game=game, sprt=sprt)
    assert read_sprt(tmp_path / FOLDER / "results.jsonl").verdict == "H1"
    assert level6_evidence("nymbat", tmp_path) is None


def test_level6_scaled_level5_and_spelling_count(tmp_path: Path) -> None:
    """Level 5 at a tenth of its time (``level5(scale=0.1)``) or spelled ``level(5)`` is still level 5."""
    for b in ("level5(scale=0.1)", "level(5)", "level5(game=nymbat)"):
        write_run(tmp_path, [(1.0, 1.0)] * 10, agents=(AGENT, b))
        assert top_level("nymbat", 2, tmp_path) == 6, b


def test_no_level6_in_a_game_that_declares_none_or_with_more_players(tmp_path: Path) -> None:
    """ "asking level 6 there gives a clear ... ValueError": Nibble declares no level-6 agent, four-player
    Nymbat's evidence is two-player only; a missing or broken file offers nothing."""
    write_run(tmp_path, [(1.0, 1.0)] * 10)
    assert top_level("nibble", 2, tmp_path) == 5 and top_level("nymbat", 4, tmp_path) == 5
    with pytest.raises(ValueError, match="not offered in nymbat with 4 players"):
        check_level(6, "nymbat", 4, tmp_path)
    (tmp_path / FOLDER / "results.jsonl").write_text("not json\n", encoding="utf-8")
    assert top_level("nymbat", 2, tmp_path) == 5
    assert top_level("nymbat", 2, tmp_path / "nowhere") == 5


def test_level6_spec_follows_the_evidence_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``level(6, game)``, ``make_agent("level6", game=...)`` and the arena's check read the directory named
    by TESSERA_SPRT_DIR: without evidence a ValueError names the top level, with it level 6 is Nymbat's
    declared agent at level 5's 3 s."""
    monkeypatch.setenv(SPRT_DIR_ENV, str(tmp_path))
    with pytest.raises(ValueError, match="its top level is 5"):
        level(6, "nymbat")
    with pytest.raises(ValueError, match="its top level is 5"):
        make_agent("level6", game="nymbat")
    with pytest.raises(ValueError, match="its top level is 5"):
        play_seats("nymbat", ["level6", "random"], games=1)
    with pytest.raises(ValueError, match="not offered in nibble"):
        check_offered(make_agent("level6"), "nibble")
    write_run(tmp_path, [(1.0, 1.0)] * 10)
    assert level(6, "nymbat") == level(6, "nymbat") and level(6, "nymbat").spec == AGENT
    assert level(6, "nymbat").seconds == level(5, "nymbat").seconds == 3.0
    check_offered(make_agent("level6"), "nymbat")
    with pytest.raises(ValueError, match="1 to 6"):
        level(7, "nymbat")
    with pytest.raises(ValueError, match="no compiled-tree form"):
        make_agent("level6(tree=compiled)")


def test_the_sessions_of_a_run_are_not_games_of_its_test(tmp_path: Path) -> None:
    """docs/balance.md, Reproducible: a results file holds a session line (which code played) before each
    session's games; the SPRT read from the file counts the games only."""
    path = write_run(tmp_path, [(1.0, 1.0)] * 10)
    plain = read_sprt(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    session = json.dumps({"session": {"tessera": "0.1.0", "commit": None, "changed": None, "python": "3.11.7"}})
    path.write_text("\n".join([lines[0], session, *lines[1:8], session, *lines[8:]]) + "\n", encoding="utf-8")
    again = read_sprt(path)
    assert again.counts == plain.counts and again.llr == plain.llr and again.verdict == "H1"
