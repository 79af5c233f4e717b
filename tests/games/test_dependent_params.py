"""Dependent parameter defaults (issue 15): ``load_game("nibble", board="hex")`` alone works."""

from __future__ import annotations

import pytest

import tessera


def test_the_hex_nibble_board_takes_13_colours_by_itself() -> None:
    """Nibble: "``board="hex"`` (13 colours only)" — the colour count follows the board unless given."""
    assert tessera.load_game("nibble", board="hex").params["colors"] == 13
    assert tessera.load_game("nibble(board=hex)").params["colors"] == 13
    assert tessera.load_game("nibble").params["colors"] == 9
    assert tessera.load_game("nibble", colors=13).params["board"] == "square"


def test_a_contradiction_is_still_refused_with_the_reason() -> None:
    """An explicit colors=9 on the hex board is refused, naming both parameters."""
    with pytest.raises(ValueError, match="board='hex' needs colors=13"):
        tessera.load_game("nibble", board="hex", colors=9)
