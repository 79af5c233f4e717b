"""What every game's kernels share (tessera.core.kernels): the seeded generator, the int64 draw,
the warm-up and the board as a neighbour table."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from tessera.core import kernels
from tessera.core.geometry import hexagon, square
from tessera.core.kernels import below, neighbour_table, rng_state, warm_up


def test_kernels_docstring_examples_run() -> None:
    result = doctest.testmod(kernels)
    assert result.attempted > 0 and result.failed == 0


def test_a_kernel_draw_is_reproducible_from_its_seed() -> None:
    """'a kernel call is reproducible from the integer seed it is given'."""
    a, b = rng_state(42), rng_state(42)
    first = [below(a, 7) for _ in range(50)]
    assert first == [below(b, 7) for _ in range(50)]
    assert set(first) <= set(range(7)) and len(set(first)) > 3
    assert all(isinstance(x, int | np.integer) and x >= 0 for x in first)


def test_the_warm_up_runs_once_per_process_even_from_within_itself() -> None:
    calls: list[str] = []

    @warm_up
    def load(game: str) -> None:
        calls.append(game)
        load(game)  # a warm-up may build states of the game, which warm up again

    load("a")
    load("b")
    assert calls == ["a"]


@pytest.mark.parametrize("grid", [hexagon(3), square(4)], ids=["hexagon", "square"])
def test_the_neighbour_table_lists_each_cells_neighbours_by_position(grid) -> None:  # type: ignore[no-untyped-def]
    table = neighbour_table(grid)
    assert table.dtype == np.int32 and table.shape == (len(grid.cells), 6)
    for i, c in enumerate(grid.cells):
        row = [grid.cells[j] for j in table[i] if j >= 0]
        assert row == list(grid.neighbors[c])
        assert all(j == -1 for j in table[i][len(row) :])


def test_a_neighbour_table_too_narrow_for_the_board_is_refused() -> None:
    with pytest.raises(ValueError, match="more than the table's 2 columns"):
        neighbour_table(hexagon(2), width=2)
