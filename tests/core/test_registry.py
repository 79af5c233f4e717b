"""The public module-level API (docs/python-api.md): list_games, load_game, parameters."""

from __future__ import annotations

import pytest

import tessera
from tessera.core.game import Param
from tessera.core.registry import parse_game_string


def test_constants() -> None:
    """docs/python-api.md: SIMULTANEOUS == -2, TERMINAL == -4, IllegalMove subclasses ValueError."""
    assert tessera.SIMULTANEOUS == -2 and tessera.TERMINAL == -4
    assert issubclass(tessera.IllegalMove, ValueError)


def test_list_games_is_sorted_and_contains_ikabegama() -> None:
    names = tessera.list_games()
    assert names == sorted(names) and "ikabegama" in names


def test_load_game_keyword_and_string_forms_are_equal() -> None:
    """docs/python-api.md: load_game("nume", size=5) and load_game("nume(size=5,…)") are the same game."""
    a = tessera.load_game("ikabegama", distance=4, max_plies=100)
    b = tessera.load_game("ikabegama(distance=4,max_plies=100)")
    assert a == b and a.params == b.params and str(a) == str(b)
    assert a.params["distance"] == 4 and a.params["board"] == "plane"


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown game 'chess'.*ikabegama"):
        tessera.load_game("chess")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"distance": 1}, r"distance=1 is out of range: expected int from 2 to 30"),
        ({"distance": "far"}, r"distance='far' is not valid"),
        ({"distance": 2.5}, r"distance=2.5 is not valid"),
        ({"max_plies": True}, r"max_plies=True is not valid"),
        ({"colour": 3}, r"unknown parameter 'colour'; accepted parameters: distance, dark_nest"),
    ],
)
def test_bad_parameters_name_the_value_and_the_accepted_ones(kwargs: dict[str, object], match: str) -> None:
    """docs/python-api.md: the ValueError names the offending name/value and the accepted ones."""
    with pytest.raises(ValueError, match=match):
        tessera.load_game("ikabegama", **kwargs)


def test_game_string_parsing() -> None:
    assert parse_game_string("nume") == ("nume", {})
    assert parse_game_string(" Nume(size=5, variant=square) ") == ("nume", {"size": "5", "variant": "square"})
    assert parse_game_string("ikabegama(dark_nest=4,3,distance=2)") == (
        "ikabegama",
        {"dark_nest": "4,3", "distance": "2"},
    )
    assert parse_game_string('ikabegama(dark_nest="-1,3")')[1] == {"dark_nest": "-1,3"}
    for bad in ("nume(size=5", "nume)", "nume(5)", "nume(size=1,size=2)", "nume(=3)"):
        with pytest.raises(ValueError, match="malformed"):
            parse_game_string(bad)


def test_a_parameter_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="both"):
        tessera.load_game("ikabegama(distance=3)", distance=4)


def test_param_coercion() -> None:
    komi = Param("komi", 0.5, float, min=0, step=0.5)
    assert komi.coerce("g", "3.5") == 3.5 and komi.coerce("g", 2) == 2.0
    with pytest.raises(ValueError, match=r"steps of 0\.5"):
        komi.coerce("g", 0.3)
    flag = Param("flag", False, bool)
    assert flag.coerce("g", "true") is True and flag.coerce("g", "0") is False
    with pytest.raises(ValueError, match="flag"):
        flag.coerce("g", "maybe")
    variant = Param("variant", "hex", str, choices=("hex", "square"))
    assert variant.coerce("g", "Square") == "square"
    with pytest.raises(ValueError, match="one of 'hex', 'square'"):
        variant.coerce("g", "round")


def test_absurd_numbers_are_a_value_error() -> None:
    """docs/python-api.md: a parameter out of range raises ValueError (never OverflowError)."""
    komi = Param("komi", 0.5, float, min=0, step=0.5)
    for bad in (1e308, "1e308", "inf", "nan"):
        with pytest.raises(ValueError, match="komi"):
            komi.coerce("g", bad)
