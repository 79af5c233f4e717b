"""Legal lists made of ints built once (``tessera/core/kits/ints.py``): the same list as ``tolist()``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tessera
from tessera.core.kits.ints import SHORT, action_list, int_table


@given(st.lists(st.integers(0, 4_999), max_size=300), st.sampled_from([np.int16, np.int32, np.int64]))
def test_an_action_list_is_the_arrays_tolist(ids: list[int], dtype: type) -> None:
    """'``legal_actions()`` stays a ``list[int]`` (OpenSpiel's shape)': whatever its length and the
    array's integer type, the list holds the same ints in the same order, as plain ``int``."""
    got = action_list(int_table(5_000), np.array(ids, dtype=dtype))
    assert got == ids and all(type(x) is int for x in got)


def test_an_action_list_is_new_and_the_table_is_not_changed_through_it() -> None:
    """A caller may change the list it got: the next list, and the table, are not changed."""
    table = int_table(1_000)
    ids = np.arange(SHORT * 2, dtype=np.int64)
    first = action_list(table, ids)
    first[0] = 999
    first.append(5)
    assert action_list(table, ids) == list(range(SHORT * 2)) and table[0] == 0
    with pytest.raises(ValueError):
        table[0] = 1  # read-only


def test_an_action_id_outside_the_table_raises() -> None:
    """An id the game does not have is an ``IndexError``, never another game's int."""
    with pytest.raises(IndexError):
        action_list(int_table(10), np.arange(SHORT + 1, dtype=np.int64))


def test_ikabegamas_legal_list_is_its_legal_array() -> None:
    """Ikabegamá's lists (hundreds of actions) come from the table: the same as its array's, every ply."""
    game = tessera.load_game("ikabegama")
    state = game.new_initial_state(seed=3)
    rng = np.random.default_rng(3)
    long_lists = 0
    while not state.is_terminal() and state.move_number() < 200:
        listed = state.legal_actions()
        assert listed == state.legal_actions_array().tolist()
        long_lists += len(listed) >= SHORT
        state.apply_action(listed[int(rng.integers(len(listed)))])
    assert long_lists > 10
