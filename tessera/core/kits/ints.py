"""Legal-action lists made of Python ints built once.

``ndarray.tolist()`` makes a new Python ``int`` for every element above 256 (CPython keeps only
-5…256): a 300-action Ikabegamá list is 300 allocations, about 4.8 µs on the reference machine.
:func:`action_list` takes the same numbers from a table of the game's action ids made once
(``numpy`` object array, :func:`int_table`), so a list is references to existing ints: about
1.9 µs for the same list (``docs/research.md``, "Ikabegamá's list without new ints").  Below
:data:`SHORT` actions, or from an index array narrower than ``int64`` (``take`` converts it
first), ``tolist()`` is as cheap or cheaper: Nymbat's short ``int16`` lists stay with it.
"""

from __future__ import annotations

import functools

import numpy as np

SHORT = 48
"""Lists shorter than this are made by ``tolist()`` (measured: equal at 32–64 ``int64`` actions)."""


@functools.cache
def int_table(n: int) -> np.ndarray:
    """The Python ints ``0 … n-1`` as a read-only object array (shape ``(n,)``), made once per ``n``."""
    table = np.empty(n, dtype=object)
    table[:] = range(n)
    table.flags.writeable = False
    return table


def action_list(table: np.ndarray, actions: np.ndarray) -> list[int]:
    """``actions.tolist()`` with the ints taken from ``table`` (:func:`int_table`), not made anew.

    ``actions``: any integer array of ids in ``[0, len(table))`` (raises ``IndexError`` otherwise).
    Returns a new list (the caller may change it)."""
    if actions.shape[0] < SHORT:
        return actions.tolist()
    return table.take(actions).tolist()
