"""Game knowledge lives in the games: "The protocol carries what the server needs to know about a game
(draws, hidden information, resign) — never ``if game.name == …`` outside the game."

Read from the code's syntax trees: no module outside ``tessera/games`` compares a name with the name of
a registered game (``x.name == "nibble"``, ``name in ("nume", …)``), except modules of one game in a
layer above the games (``games/nibble/learned.py``), which check that they were given their game.
``tests/test_one_folder.py`` holds the stricter rule (imports and dictionary keys too, and the client).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tessera.core.registry import list_games

ROOT = Path(__file__).resolve().parent.parent / "tessera"


def _names_compared(tree: ast.AST, games: set[str]) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        texts = set()
        for side in sides:
            consts = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
            texts |= {c.value for c in consts if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        hit = texts & games
        if hit:
            found.append((node.lineno, sorted(hit)[0]))
    return found


def test_no_module_outside_the_games_asks_a_game_by_its_name() -> None:
    games = set(list_games())
    assert {"nume", "nibble", "ikabegama", "nymbat", "nelaxtam"} <= games
    offences = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] == "games" or path.stem.lstrip("_") in games:
            continue  # a game's own package, or a module of one game in a layer above (its learned value)
        for line, name in _names_compared(ast.parse(path.read_text(encoding="utf-8")), games):
            offences.append(f"tessera/{rel}:{line} compares with {name!r}")
    assert not offences, "\n".join(offences)


def test_the_check_sees_a_comparison_with_a_game_name() -> None:
    """The check above can fail: it finds the forms it looks for."""
    games = {"nibble", "nume"}
    tree = ast.parse(
        'if game.name == "nibble":\n    pass\nif name in ("nume", "x"):\n    pass\nif a == "b":\n    pass\n'
    )
    assert _names_compared(tree, games) == [(1, "nibble"), (3, "nume")]
