"""Kernel warm-up at start-up, in the background: the server answers at once while the games'
numba kernels compile (on a fresh install, about 20 s for all games; from numba's on-disk cache,
a few seconds).

``GET /api/status`` says how far it is: ``{"ready": bool, "warming": [games still compiling],
"done": games warm, "total": games}`` (the lobby's "New game" button shows it as progress).
Until a game is warm its first move waits for the compilation, and its catalogue entry has no
``seats_by_players`` yet (building a four-player game compiles its tables).

Compiled at install: ``python -m tessera.server.ai.warmup`` (:func:`prepare`) compiles every game's
rule kernels and what each AI level's first move uses, into numba's on-disk cache;
``scripts/serve.py`` runs it before it starts the server, so the first game of a fresh
checkout waits for no compilation (benchmarks/startup.py ``--cold`` measures it).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import tessera
from tessera.core.game import SIMULTANEOUS, State
from tessera.core.registry import game_class

log = logging.getLogger("tessera.server.ai.warmup")

WARM_STEPS = 12
"""Random moves played per game to compile the kernels a game's first moves use."""


def seats_by_players(name: str) -> dict[str, list[str]]:
    """Seat names for each choice of a ``players`` parameter (four-player Nymbat), ``{"4": [...]}``."""
    out: dict[str, list[str]] = {}
    for p in game_class(name).info.params:
        if p.name == "players" and p.choices:
            for k in p.choices:
                out[str(k)] = list(tessera.load_game(name, players=k).player_names)
    return out


def warm(name: str) -> dict[str, list[str]]:
    """Compile ``name``'s kernels: build the game (every player count), play a few random moves and
    render; its ``seats_by_players``."""
    seats = seats_by_players(name)
    state = tessera.load_game(name).new_initial_state(seed=0)
    rng = random.Random(0)
    state.render(None)
    random_walk(state, rng, WARM_STEPS)
    state.render(0)
    return seats


def random_walk(state: State, rng: random.Random, steps: int) -> State:
    """Play up to ``steps`` random moves on ``state`` (every player's order at a simultaneous node),
    stopping at the end of the game; ``state``."""
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
        else:
            state.play(state.random_move(rng))
    return state


class Warmup:
    """Warms every game's kernels in a background thread (:meth:`start`); :meth:`status` says how far."""

    def __init__(self, first: Callable[[], list[str]] | None = None) -> None:
        self._first = first
        """Names of the games to warm first (those being played: their next request waits for them)."""
        self._pending: list[str] = list(tessera.list_games())
        self._seats: dict[str, dict[str, list[str]]] = {}
        self._guard = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="tessera-warmup", daemon=True)
        self._then: Callable[[], Any] | None = None

    def start(self, then: Callable[[], Any] | None = None) -> None:
        """Begin warming (once); ``then()`` runs in the warm-up thread when every game is warm.

        Whatever must wait for the kernels goes in ``then`` (the AI pool's processes, a full garbage
        collection): started with the server, they took the CPU from its first answers (on two
        cores, three processes importing and loading kernels at once)."""
        self._then = then
        if not self._thread.is_alive() and self._pending:
            self._thread.start()
        elif then is not None and not self._pending:
            then()

    def _run(self) -> None:
        order = list(self._pending)
        if self._first is not None:
            try:
                wanted = [g for g in self._first() if g in order]
            except Exception:  # the database may not answer yet: the default order
                log.warning("the games in play could not be read; warming in the default order")
                wanted = []
            order = wanted + [g for g in order if g not in wanted]
        for name in order:
            try:
                seats = warm(name)
            except Exception:  # a game being written may not load yet: the catalogue says so
                log.exception("warming game %s failed", name)
                seats = {}
            with self._guard:
                self._seats[name] = seats
                self._pending.remove(name)
        if self._then is not None:
            try:
                self._then()
            except Exception:
                log.exception("the work after the warm-up failed")

    def status(self) -> dict[str, Any]:
        """``{"ready": bool, "warming": [game names still compiling], "done": int, "total": int}``
        (``done`` of the ``total`` games are warm)."""
        with self._guard:
            warming, done = list(self._pending), len(self._seats)
        return {"ready": not warming, "warming": warming, "done": done, "total": done + len(warming)}

    def seats_by_players(self, name: str) -> dict[str, list[str]]:
        """The game's ``seats_by_players`` once it is warm (``{}`` while it compiles)."""
        with self._guard:
            if name in self._seats:
                return self._seats[name]
            if name in self._pending:
                return {}
        return seats_by_players(name)  # not warmed here (a game added later): built now


def warm_ai(spec: str, seconds: float = 0.02) -> None:
    """Compile what each AI level's first move in game ``spec`` uses (its search, the endgame solver):
    one short search per level the game offers from the initial position (``seconds`` each, CPU-light;
    level 6 where its SPRT accepted it, :mod:`tessera.server.ai.levels`)."""
    from tessera.server.ai.levels import offered_levels
    from tessera.server.ai.thinking import think_step

    game = tessera.load_game(spec)
    for lv in offered_levels(game.name, game.num_players):
        think_step(spec, 0, [], 0, lv, seconds, seconds, 1)


def ai_specs(name: str) -> list[str]:
    """The game specs whose AI is warmed for ``name``: the default game and each other player count."""
    specs = [name]
    for p in game_class(name).info.params:
        if p.name == "players" and p.choices:
            default = tessera.load_game(name).num_players
            specs += [f"{name}(players={k})" for k in p.choices if k != default]
    return specs


def prepare(games: Sequence[str] | None = None, report: Callable[[str, int, int, float], Any] | None = None) -> float:
    """Compile every game's rule kernels and its AI levels' first moves into numba's on-disk cache
    (run once per install by ``scripts/serve.py``; later runs load the cache in a few seconds).

    ``report(game, done, total, seconds)`` is called after each game; returns the seconds taken.
    Raises what a game's warm-up raised (an install that cannot play a game should say so)."""
    names = list(games) if games is not None else list(tessera.list_games())
    started = time.perf_counter()
    for i, name in enumerate(names, 1):
        t0 = time.perf_counter()
        warm(name)
        for spec in ai_specs(name):
            warm_ai(spec)
        if report is not None:
            report(name, i, len(names), time.perf_counter() - t0)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tessera.server.ai.warmup [GAME …]``: :func:`prepare`, printing each game as it is done."""
    ap = argparse.ArgumentParser(prog="python -m tessera.server.ai.warmup", description=prepare.__doc__)
    ap.add_argument("games", nargs="*", help="the games to prepare (default: all)")
    args = ap.parse_args(argv)

    def report(name: str, done: int, total: int, seconds: float) -> None:
        print(f"   {name} ready ({done}/{total}, {seconds:.1f} s)", flush=True)

    seconds = prepare(args.games or None, report)
    print(f"   every game prepared in {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
