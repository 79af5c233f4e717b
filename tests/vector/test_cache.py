"""The vector kernels' numba cache is dropped when the games' kernels they call change.

numba keys a kernel's cache by its own source file only (tessera.core.kernels, *Cache caveat*):
a change in a game's kernels must not leave the engine running machine code of the old rules."""

from __future__ import annotations

from pathlib import Path

import tessera
from tessera.core.kits.stepper import ContractVector
from tessera.core.kits.vector import WATCHED, drop_stale


def test_the_cache_is_dropped_when_a_called_kernel_source_changes(tmp_path: Path):
    source = tmp_path / "kernels.py"
    source.write_text("rules = 1\n")
    cache = tmp_path / "__pycache__"
    assert drop_stale(cache, [source], "vector")  # no stamp yet: nothing cached can be trusted
    cached = cache / "vector._step-96.py311.nbi"
    other = cache / "kernels.apply-12.py311.nbi"
    cached.write_text("machine code")
    other.write_text("machine code of the rules")
    assert not drop_stale(cache, [source], "vector") and cached.exists()  # unchanged sources keep the cache
    source.write_text("rules = 2\n")
    assert drop_stale(cache, [source], "vector") and not cached.exists()
    assert other.exists()  # only the watching module's kernels are dropped
    assert (cache / "vector.called-kernels.sha256").is_file()


def test_every_game_vector_engine_watches_its_own_kernels_and_the_shared_ones():
    """The generic engine's loop is compiled into the game's contract module: that module watches
    the game's kernels, the shared ones and the loop's source (tessera/core/kits/stepper.py)."""
    for name in tessera.list_games():
        game = tessera.load_game(name)
        engine = game.vector_engine()
        if engine is None:
            continue
        generic = issubclass(engine, ContractVector)
        owner = game.bounded(0)[0].kernel_contract().init.py_func.__module__ if generic else engine.__module__
        module = Path(__import__(owner, fromlist=["_"]).__file__).resolve()
        watched = {(p.parent.name, p.name) for p in WATCHED[str(module)]}
        assert {(name, "kernels.py"), ("core", "kernels.py")} <= watched, (name, watched)
        if generic:
            assert ("kits", "stepper.py") in watched, (name, watched)


def test_every_kernel_contract_watches_the_generic_loop():
    """Each game's contract module (where the generic loop is compiled) watches the loop's source."""
    for name in tessera.list_games():
        contract = tessera.load_game(name).bounded(0)[0].kernel_contract()
        module = Path(__import__(contract.init.py_func.__module__, fromlist=["_"]).__file__).resolve()
        watched = {(p.parent.name, p.name) for p in WATCHED[str(module)]}
        assert {(name, "kernels.py"), ("core", "kernels.py"), ("kits", "stepper.py")} <= watched, (name, watched)
