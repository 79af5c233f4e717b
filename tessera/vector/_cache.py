"""Numba's on-disk cache of the vector kernels, kept in step with the games' kernels they call.

numba keys the cache of a kernel by its own source file only, so a change in a game's kernels
(``tessera/games/<game>/kernels.py``) would leave the vector engine's cached machine code
calling the old rules.  :func:`drop_stale` keeps a hash of those sources beside the cache and
deletes the engine's cached kernels when it changes, before any of them is loaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

GAMES = ("nume", "nibble", "ikabegama", "nymbat", "nelaxtam")
STAMP = "games-kernels.sha256"


def kernel_sources() -> list[Path]:
    """The source files whose kernels the engine's kernels call: the shared ones and each game's."""
    paths = []
    for name in ["tessera.core.kernels", *(f"tessera.games.{g}.kernels" for g in GAMES)]:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            paths.append(Path(spec.origin))
    return paths


def drop_stale(cache: Path, sources: list[Path]) -> bool:
    """Delete the cached kernels (``_*.nbi``, ``_*.nbc``) in ``cache`` if ``sources`` changed since the
    hash kept there; return whether they were deleted.  A cache that cannot be written is left alone."""
    try:
        digest = hashlib.sha256()
        for path in sources:
            digest.update(path.read_bytes())
        stamp = digest.hexdigest()
        mark = cache / STAMP
        if mark.is_file() and mark.read_text() == stamp:
            return False
        cache.mkdir(exist_ok=True)
        for path in [*cache.glob("_*.nbi"), *cache.glob("_*.nbc")]:
            path.unlink(missing_ok=True)
        mark.write_text(stamp)
        return True
    except OSError:
        return False


__all__ = ["drop_stale", "kernel_sources"]
