"""A small seeded run of benchmarks/tournament_load.py: an arena of people and a bot playing quick
games through two real server processes on PostgreSQL, one of them killed with ``kill -9`` in the
middle (the full run, 200 accounts and bots, is the benchmark; its figures are in docs/tournaments.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("caissify_pairings", reason="the server extras are not installed: pip install -e '.[server]'")

ROOT = Path(__file__).resolve().parents[3]


def load_benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("tournament_load", ROOT / "benchmarks" / "tournament_load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tournament_load"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.postgres
def test_an_arena_through_two_processes_with_a_kill_loses_no_result_and_pairs_no_one_twice(db_url: str) -> None:
    """The issue: "a simulated arena … playing quick games through the real server (two processes on
    PostgreSQL) with the standings identical on both processes; kill -9 of a process mid-round loses
    no result and pairs no one twice" — here 6 accounts, one of them a bot, for 12 s of play."""
    if not db_url.startswith("postgresql"):
        pytest.skip("two server processes share one database through PostgreSQL only")
    bench = load_benchmark()
    argv = "--players 6 --bots 1 --minutes 1 --play-seconds 12 --kills 1 --wave 0.5 --step 0.5 --movers 3 --seed 7"
    args = bench.parser().parse_args(argv.split())
    out = bench.run(args, db_url)
    assert out["kills"] and out["kills"][0]["restart_seconds"] > 0
    assert out["identical_standings"] and out["identical_pairings"], out
    assert out["pairings"].get("done", 0) >= 3 and out["games_with_results"] >= 3, out
    assert out["results_lost"] == 0 and out["results_wrong"] == 0, out
    assert out["paired_twice_at_once"] == 0 and out["seats_not_the_pairings"] == 0, out
    assert out["left_creating"] == 0 and out["games_without_pairing"] == 0, out
    assert out["moves_by_people"] > 0 and out["bot_games"] > 0, out
