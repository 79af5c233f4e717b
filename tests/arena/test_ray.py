"""`--ray`: the same tasks played on a local Ray instance give the same results as the local run."""

from __future__ import annotations

import pytest

from tessera.arena.tournament import run_tournament

ray = pytest.importorskip("ray")


def test_a_small_tournament_on_ray_equals_the_local_run() -> None:
    """Seeded per game: a Ray run (ray.init(num_cpus=2)) plays exactly the local run's games."""
    game, agents = "nume(size=2)", ["random", "greedy", "mcts"]
    local = run_tournament(game, agents, games=2, iterations=30, seed=7)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = run_tournament(game, agents, games=2, iterations=30, seed=7, ray_address="auto")
    finally:
        ray.shutdown()
    assert [(r.key, r.seats, r.returns, r.plies) for r in remote.results] == [
        (r.key, r.seats, r.returns, r.plies) for r in local.results
    ]
    assert remote.to_dict()["ratings"] == local.to_dict()["ratings"]
