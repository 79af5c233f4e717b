"""The search clock: how every search of this process (agents, exact solvers) counts its time budget.

:mod:`tessera.agents.base` hands these names on to the agents; a game's exact solver
(``games/<game>/solver.py``) reads the same clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
"""How search time is counted: ``wall`` (elapsed time, what a player waits) or ``cpu`` (CPU time of
the searching thread, so a match on a loaded machine gives every agent the search it would get alone)."""

_clock_name = "wall"
_clock: Callable[[], float] = time.perf_counter


def clock() -> float:
    """The current reading of the search clock (seconds; see :func:`set_clock`)."""
    return _clock()


def clock_name() -> str:
    """``"wall"`` or ``"cpu"``: how this process counts search budgets now."""
    return _clock_name


def set_clock(name: str) -> str:
    """Count every agent's time budget in this process on clock ``name`` (``wall`` or ``cpu``); returns the old one.

    ``wall`` (the default) is what a player waits for.  ``cpu`` counts the CPU time of the
    searching thread (``time.thread_time``): on a machine shared with other work a timed
    match then gives each agent the search its budget buys on an idle core, at the price
    of longer games.  Matches take it as ``clock="cpu"`` (``tessera match --clock cpu``).
    """
    global _clock, _clock_name
    if name not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {name!r}")
    old = _clock_name
    _clock_name, _clock = name, CLOCKS[name]
    return old


@contextmanager
def using_clock(name: str) -> Iterator[None]:
    """``set_clock(name)`` for the duration of a ``with`` block."""
    old = set_clock(name)
    try:
        yield
    finally:
        set_clock(old)


__all__ = ["CLOCKS", "clock", "clock_name", "set_clock", "using_clock"]
