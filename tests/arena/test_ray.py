"""`--ray`: the same tasks played on a local Ray instance give the same results as the local run."""

from __future__ import annotations

import pytest

from tessera.arena import play_seats
from tessera.arena.tournament import run_tournament

ray = pytest.importorskip("ray")


@pytest.mark.timeout(300)  # a local Ray instance that dies under us (another job's `ray stop`) would hang it
def test_a_small_tournament_on_ray_equals_the_local_run() -> None:
    """Seeded per game: a Ray run (ray.init(num_cpus=2)) plays exactly the local run's games — a tournament and a
    match alike."""
    game, agents = "nume(size=2)", ["random", "greedy", "mcts"]
    four = "nymbat(players=4,reserve=8,first_limit=6,max_turns=60)"
    local = run_tournament(game, agents, games=2, iterations=30, seed=7)
    local_match = play_seats(four, ["mcts", "greedy", "random", "random"], games=4, iterations=10, seed=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_tournament(game, agents, games=2, iterations=30, seed=7, ray_address="auto")
        remote_match = play_seats(
            four, ["mcts", "greedy", "random", "random"], games=4, iterations=10, seed=2, ray_address="auto"
        )
    finally:
        ray.shutdown()
    # Matches run on the same runner: a four-player match on Ray plays the local match's games.
    assert [(r.key, r.seats, r.returns, r.plies) for r in remote_match.records] == [
        (r.key, r.seats, r.returns, r.plies) for r in local_match.records
    ]
    assert [(r.key, r.seats, r.returns, r.plies) for r in remote.results] == [
        (r.key, r.seats, r.returns, r.plies) for r in local.results
    ]
    assert remote.to_dict()["ratings"] == local.to_dict()["ratings"]
