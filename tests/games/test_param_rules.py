"""Parameter rules (``GameInfo.param_rules``): the data the creation form follows live must say
exactly what each game's own checks accept ("parameters that depend on each other follow each
other in the form (Nibble hex ⇒ 13 colours)", issue 15)."""

from __future__ import annotations

from typing import Any

import pytest

import tessera
from tessera.core import ParamRule
from tessera.core.registry import game_class

RULES = [(name, r) for name in tessera.list_games() for r in game_class(name).info.param_rules]


def _loads(name: str, **params: Any) -> bool:
    try:
        tessera.load_game(name, **params)
    except ValueError:
        return False
    return True


def test_the_games_with_dependent_parameters_declare_them() -> None:
    """Nibble's colours follow its board, Nume's size its variant, Nelaxtam's size its variant."""
    declared = {(name, r.param, r.when) for name, r in RULES}
    assert {("nibble", "colors", "board"), ("nume", "size", "variant"), ("nelaxtam", "size", "variant")} <= declared
    assert ("nelaxtam", "by_sea", None) in declared


@pytest.mark.parametrize(("name", "rule"), RULES, ids=[f"{n}-{r.param}-{r.when}={r.equals}" for n, r in RULES])
def test_each_parameter_rule_agrees_with_the_games_checks(name: str, rule: ParamRule) -> None:
    """A rule's default is what the game picks, its bounds and choices are exactly what it accepts."""
    info = game_class(name).info
    base = info.param(rule.param)
    cond: dict[str, Any] = {} if rule.when is None else {rule.when: rule.equals}
    if rule.max_from is not None:
        limit = info.param(rule.max_from).default
        assert isinstance(limit, int)
        assert _loads(name, **cond, **{rule.param: limit})
        assert not _loads(name, **cond, **{rule.param: limit + 1})
    game = tessera.load_game(name, **cond)
    if rule.default is not None:
        assert game.params[rule.param] == rule.default
    if rule.fixed:
        assert _loads(name, **cond, **{rule.param: base.default})
        other = next(c for c in (base.choices or (1, 2)) if c != base.default)
        assert not _loads(name, **cond, **{rule.param: other})
    if rule.choices is not None:
        for c in base.choices or ():
            assert _loads(name, **cond, **{rule.param: c}) == (c in rule.choices), c
    step = base.step or 1
    if rule.min is not None:
        assert _loads(name, **cond, **{rule.param: int(rule.min)})
        if base.min is None or rule.min - step >= base.min:
            assert not _loads(name, **cond, **{rule.param: int(rule.min - step)})
    if rule.max is not None:
        assert _loads(name, **cond, **{rule.param: int(rule.max)})
        if base.max is None or rule.max + step <= base.max:
            assert not _loads(name, **cond, **{rule.param: int(rule.max + step)})
