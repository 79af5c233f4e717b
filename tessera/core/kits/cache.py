"""The freshness of the numba cache of modules whose kernels call kernels of other files.

numba keys the on-disk cache of a kernel by its own source file only, so a change in a game's
kernels would leave its vector engine's (or contract's) cached machine code calling the old rules.
Such a module calls :func:`fresh_cache` first: it keeps a hash of the sources whose kernels the
module calls beside the cache and deletes that module's cached kernels when the hash changes,
before any of them is loaded.  (Re-exported by :mod:`tessera.core.kits.vector`, where it began.)
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

WATCHED: dict[str, list[Path]] = {}
"""The kernel sources each engine module watches (its path -> the sources), as :func:`fresh_cache` set them."""


def kernel_sources(*modules: str) -> list[Path]:
    """The source files of the dotted ``modules`` (those that exist), and always the shared kernels, the
    vector kit (the planes' packing) and the rows without reference counts (:mod:`tessera.core.kits.rows`)."""
    paths = []
    for name in ["tessera.core.kernels", "tessera.core.kits.vector", "tessera.core.kits.rows", *modules]:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            paths.append(Path(spec.origin))
    return paths


def drop_stale(cache: Path, sources: list[Path], stem: str) -> bool:
    """Delete the cached kernels of the module ``stem`` (``stem.*.nbi``, ``stem.*.nbc``) in ``cache`` if
    ``sources`` changed since the hash kept there; return whether they were deleted.  A cache that
    cannot be written is left alone."""
    try:
        digest = hashlib.sha256()
        for path in sources:
            digest.update(path.read_bytes())
        stamp = digest.hexdigest()
        mark = cache / f"{stem}.called-kernels.sha256"
        if mark.is_file() and mark.read_text() == stamp:
            return False
        cache.mkdir(exist_ok=True)
        for path in [*cache.glob(f"{stem}.*.nbi"), *cache.glob(f"{stem}.*.nbc")]:
            path.unlink(missing_ok=True)
        mark.write_text(stamp)
        return True
    except OSError:
        return False


def fresh_cache(module_file: str, *modules: str) -> None:
    """Keep the numba cache of the module at ``module_file`` in step with the kernels of ``modules``
    (dotted names; the shared kernels are always watched).  Call it before the module defines a kernel."""
    path = Path(module_file).resolve()
    sources = kernel_sources(*modules)
    WATCHED[str(path)] = sources
    drop_stale(path.parent / "__pycache__", sources, path.stem)


__all__ = ["WATCHED", "drop_stale", "fresh_cache", "kernel_sources"]
