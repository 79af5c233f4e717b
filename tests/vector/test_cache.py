"""The vector kernels' numba cache is dropped when the games' kernels they call change.

numba keys a kernel's cache by its own source file only (tessera.core.kernels, *Cache caveat*):
a change in a game's kernels must not leave the engine running machine code of the old rules."""

from __future__ import annotations

from pathlib import Path

from tessera.vector._cache import STAMP, drop_stale, kernel_sources


def test_the_cache_is_dropped_when_a_called_kernel_source_changes(tmp_path: Path):
    source = tmp_path / "kernels.py"
    source.write_text("rules = 1\n")
    cache = tmp_path / "__pycache__"
    assert drop_stale(cache, [source])  # no stamp yet: nothing cached can be trusted
    cached = cache / "_nume._step-96.py311.nbi"
    cached.write_text("machine code")
    assert not drop_stale(cache, [source]) and cached.exists()  # unchanged sources keep the cache
    source.write_text("rules = 2\n")
    assert drop_stale(cache, [source]) and not cached.exists()
    assert (cache / STAMP).is_file()


def test_every_game_kernel_source_is_watched():
    names = {p.parent.name for p in kernel_sources()}
    assert {"nume", "nibble", "ikabegama", "nymbat", "nelaxtam", "core"} <= names
