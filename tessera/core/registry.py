"""The game registry: discovery of game modules, ``list_games`` and ``load_game``.

A game lives in ``tessera/games/<name>/`` (a package) or ``tessera/games/<name>.py`` and
registers its :class:`~tessera.core.game.Game` subclass with :func:`register`.
Modules are found without importing them and imported on first use, so one
game's import cost (or a broken module) never touches another game.

Games of other installed packages are found through the entry-point group
``tessera.games`` (``name = "package.module:GameClass"``, or a module that calls
:func:`register`); they are listed by name without being imported, and a
built-in game keeps its name if a package declares the same one.
See docs/games.md.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from importlib import metadata
from typing import Any, TypeVar

from tessera.core.game import Game

G = TypeVar("G", bound=type[Game])

_REGISTRY: dict[str, type[Game]] = {}


def register(cls: G) -> G:
    """Class decorator: make a game loadable by its declared name."""
    name = cls.info.name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"game {name!r} is registered twice")
    _REGISTRY[name] = cls
    return cls


ENTRY_POINT_GROUP = "tessera.games"
"""Entry-point group through which other packages offer games."""


@functools.cache
def _builtin_games() -> frozenset[str]:
    """The game modules of ``tessera.games``, listed once per process (the package's directory
    also holds numba's caches, hundreds of files, which a listing walks: ~3 ms a time)."""
    import tessera.games as pkg

    return frozenset(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


@functools.cache
def plugins(group: str) -> dict[str, metadata.EntryPoint]:
    """What installed packages offer in the entry-point group ``group``, by name (in lower case; the
    first package to declare a name keeps it).

    Read once per process and group; :func:`refresh_plugins` reads them again (after installing a
    package at run time).
    """
    out: dict[str, metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=group):
        name = ep.name.strip().lower()
        if name and name not in out:
            out[name] = ep
    return out


def plugin_games() -> dict[str, metadata.EntryPoint]:
    """Games offered by installed packages (entry-point group ``tessera.games``), by name."""
    return plugins(ENTRY_POINT_GROUP)


def refresh_plugins() -> None:
    """Forget the entry points read so far (the next lookup scans the installed packages again)."""
    importlib.invalidate_caches()
    plugins.cache_clear()


def list_games() -> list[str]:
    """Sorted names of every game: ``tessera.games`` and the ``tessera.games`` entry points."""
    return sorted(set(_builtin_games()) | set(plugin_games()))


def game_class(name: str) -> type[Game]:
    """The registered class of game ``name`` (imports its module on first use)."""
    if name in _builtin_games():
        if name not in _REGISTRY:
            importlib.import_module(f"tessera.games.{name}")
        if name not in _REGISTRY:
            raise ValueError(f"module tessera.games.{name} does not register a game called {name!r}")
        return _REGISTRY[name]
    ep = plugin_games().get(name)
    if ep is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}")
    if name not in _REGISTRY:
        try:
            obj = ep.load()
        except Exception as e:
            raise ValueError(f"game {name!r} (entry point {ep.value!r}) does not load: {e}") from e
        if isinstance(obj, type) and issubclass(obj, Game) and name not in _REGISTRY:
            if obj.info.name != name:
                raise ValueError(f"entry point {name!r} gives a game called {obj.info.name!r}")
            register(obj)
        if name not in _REGISTRY:
            raise ValueError(f"entry point {ep.value!r} does not give a game called {name!r}")
    return _REGISTRY[name]


def parse_game_string(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"nume(size=5,variant=square)"`` into a name and raw parameter strings.

    A comma inside a value is allowed when the next piece has no ``=``
    (``ikabegama(dark_nest=4,3)``); values may also be quoted.
    """
    spec = spec.strip()
    if "(" not in spec:
        if ")" in spec:
            raise ValueError(f"malformed game string {spec!r}: ')' without '('")
        return spec.lower(), {}
    if not spec.endswith(")"):
        raise ValueError(f"malformed game string {spec!r}: expected 'name(key=value,...)'")
    name, _, inner = spec[:-1].partition("(")
    params: dict[str, str] = {}
    last: str | None = None
    for piece in _split_outside_quotes(inner):
        if "=" in piece:
            key, _, value = piece.partition("=")
            key = key.strip().lower()
            if not key:
                raise ValueError(f"malformed game string {spec!r}: empty parameter name")
            if key in params:
                raise ValueError(f"malformed game string {spec!r}: parameter {key!r} given twice")
            params[key] = value.strip()
            last = key
        elif piece.strip() == "" and last is None:
            continue
        elif last is not None:
            params[last] += "," + piece.strip()
        else:
            raise ValueError(f"malformed game string {spec!r}: {piece!r} is not 'key=value'")
    return name.strip().lower(), {k: v.strip("'\"") for k, v in params.items()}


def _split_outside_quotes(text: str) -> list[str]:
    out, cur, quote = [], "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == ",":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if quote:
        raise ValueError(f"unbalanced quote in {text!r}")
    out.append(cur)
    return out


def load_game(spec: str, **params: Any) -> Game:
    """A game by name with keyword parameters, or from its one-string form.

    >>> load_game("ikabegama", distance=4) == load_game("ikabegama(distance=4)")
    True
    """
    if not isinstance(spec, str):
        raise ValueError(f"a game name must be a string, not {type(spec).__name__}")
    name, from_string = parse_game_string(spec)
    clash = sorted(set(from_string) & set(params))
    if clash:
        raise ValueError(f"parameter {clash[0]!r} is given both in {spec!r} and as a keyword")
    return game_class(name)(**from_string, **params)
