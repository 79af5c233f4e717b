"""The seeded samples of heavy drills (tests/sampling.py): "heavy drills run a seeded sample in the suite and
in full as benchmark commands"."""

from __future__ import annotations

import pytest

from tests import sampling


def test_a_seed_draws_a_reproducible_share_of_the_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case is drawn with the given probability, the same way for the same seed, differently for another."""
    monkeypatch.setattr(sampling, "sample_seed", lambda: "seed-a")
    cases = [f"case{i}" for i in range(2000)]
    first = [c for c in cases if sampling.drawn(c, 0.25)]
    assert first == [c for c in cases if sampling.drawn(c, 0.25)]
    assert 400 < len(first) < 600
    monkeypatch.setattr(sampling, "sample_seed", lambda: "seed-b")
    assert first != [c for c in cases if sampling.drawn(c, 0.25)]


def test_the_seed_all_draws_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TESSERA_SAMPLE_SEED=all`` (the benchmark command's seed) runs every case, whatever its share."""
    monkeypatch.setattr(sampling, "sample_seed", lambda: "all")
    assert all(sampling.drawn(f"c{i}", 0.0) for i in range(50))


def test_the_full_drill_command_finds_the_sampled_files() -> None:
    """``benchmarks/drills.py`` runs the files that draw a sample, the compiled tree's among them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("drills", sampling.ROOT / "benchmarks" / "drills.py")
    assert spec and spec.loader
    drills = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(drills)
    assert "tests/agents/test_compiled_mcts.py" in drills.sampled_files()
