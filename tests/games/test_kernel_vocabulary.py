"""One shape per game: every game is a package with the same entry points, and its kernels speak
one vocabulary (the same entry names; refusal codes as named constants, never bare numbers)."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

import tessera

GAMES = ["ikabegama", "nelaxtam", "nibble", "nume", "nymbat"]
KERNEL_ENTRIES = ("legal", "apply", "random_step", "evaluate", "rollouts")


@pytest.mark.parametrize("name", GAMES)
def test_every_game_is_a_package_of_the_same_shape(name: str) -> None:
    """Each game a small package: ``game`` (the state), ``position`` (parsing), ``render``, ``kernels``,
    ``observation``, with the same entry-point names."""
    pkg = importlib.import_module(f"tessera.games.{name}")
    assert pkg.__file__ is not None and pkg.__file__.endswith("__init__.py")
    for module in ("game", "kernels", "observation"):
        importlib.import_module(f"tessera.games.{name}.{module}")
    assert callable(importlib.import_module(f"tessera.games.{name}.position").state_from_dict)
    assert callable(importlib.import_module(f"tessera.games.{name}.render").render)
    cls = tessera.core.game_class(name)
    assert cls.__module__ == f"tessera.games.{name}.game"
    assert getattr(pkg, cls.__name__) is cls
    assert pkg.Game is cls and pkg.State is type(cls().new_initial_state(seed=0))
    assert pkg.kernels.__name__ == f"tessera.games.{name}.kernels"


@pytest.mark.parametrize("name", GAMES)
def test_kernels_share_the_entry_names(name: str) -> None:
    """'the same entry names (legal, apply, random_step, evaluate, …)'."""
    kernels = importlib.import_module(f"tessera.games.{name}.kernels")
    missing = [e for e in KERNEL_ENTRIES if not callable(getattr(kernels, e, None))]
    assert missing == []


@pytest.mark.parametrize("name", GAMES)
def test_the_int64_alias_and_the_bounded_draw_come_from_core(name: str) -> None:
    """'I64, _below, _load_kernels, warm-up ... once in tessera/core'."""
    kernels = importlib.import_module(f"tessera.games.{name}.kernels")
    tree = ast.parse(inspect.getsource(kernels))
    defined = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign) for t in _targets(node)}
    defined |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert not defined & {"I64", "_below", "_load_kernels"}
    game = importlib.import_module(f"tessera.games.{name}.game")
    assert "_kernels_loaded" not in vars(game)


@pytest.mark.parametrize("name", GAMES)
def test_refusal_codes_are_matched_by_name_not_by_number(name: str) -> None:
    """'refusal codes as NAMED constants shared by the kernel and its sentence table (never bare integers
    matched by number)': no ``code == 8`` in the game, no ``return 8`` from a kernel's check."""
    game = importlib.import_module(f"tessera.games.{name}.game")
    for node in ast.walk(ast.parse(inspect.getsource(game))):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in ("code", "kind"):
            bare = [
                c.value
                for c in node.comparators
                if isinstance(c, ast.Constant) and type(c.value) is int and c.value != 0
            ]
            assert bare == [], f"{name}: {ast.unparse(node)}"
    kernels = importlib.import_module(f"tessera.games.{name}.kernels")
    codes = {k: v for k, v in vars(kernels).items() if k.startswith("R_") and isinstance(v, int)}
    assert len(set(codes.values())) == len(codes), "two refusals share a code"
    assert 0 not in codes.values(), "0 means legal"
    if "check" in vars(kernels) and name in ("nymbat", "nelaxtam"):
        assert codes, f"{name}: its check returns codes, which must be named"
        src = inspect.getsource(kernels)
        for fn in ast.walk(ast.parse(src)):
            if isinstance(fn, ast.FunctionDef) and fn.name in ("check", "_check"):
                for ret in ast.walk(fn):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Constant):
                        assert ret.value.value == 0, f"{name}.{fn.name}: return {ret.value.value}"


def test_nymbat_refusal_names_the_rule_through_the_named_code() -> None:
    """'a piece may not end its move on another own piece' comes from R_ONTO_OWN_PIECE at both ends."""
    from tessera.games.nymbat import kernels

    state = tessera.load_game("nymbat").new_initial_state()
    sentence = state._reason(kernels.R_ONTO_OWN_PIECE, 0)
    assert sentence.endswith("a piece may not end its move on another own piece")


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.Name]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [t for t in targets if isinstance(t, ast.Name)]
