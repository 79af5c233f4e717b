"""No oversized file without its reason: a Python module or a JavaScript file of ``tessera/`` longer than
:data:`LIMIT` lines says at its top why it is one file.

The rule (issue 36): "No Python module above ~600 lines and no JS file above ~600 lines without a reason
written at its top". The reason is a line among the file's first :data:`HEAD` lines that starts (after
the comment or docstring marks ``#``, ``//``, ``*``, ``\"\"\"`` and spaces) with :data:`MARK` — e.g.

    \"\"\"The compiled rules of Nymbat (numba).

    One file because ... (what would be lost in two)
    \"\"\"

A long file not split yet stands in :data:`LONG_LEFT` with what is to be done; an entry whose file is
short again (or gone, or gives its reason) fails, so the list only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tessera

PACKAGE = Path(tessera.__file__).resolve().parent
ROOT = PACKAGE.parent

LIMIT = 600
"""Lines (as :meth:`str.splitlines` counts them) a file may have without saying why it is one file."""

HEAD = 15
"""How many first lines the reason is looked for in."""

MARK = "One file because"
"""The words that open the reason."""

LONG_LEFT: dict[str, str] = {}
"""Files still above :data:`LIMIT` without a reason, each with the split that is to come."""


def _sources() -> list[Path]:
    return sorted(p for ext in ("*.py", "*.js") for p in PACKAGE.rglob(ext) if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


_OPENING = re.compile(r'^\s*(?:#+|//+|/?\*+|[rbuRBU]?"""|[rbuRBU]?\'\'\')?\s*')


def gives_reason(lines: list[str]) -> bool:
    """Whether one of the first :data:`HEAD` lines opens with :data:`MARK` (after comment marks)."""
    return any(_OPENING.sub("", line, count=1).startswith(MARK) for line in lines[:HEAD])


def test_the_reason_is_read_after_any_comment_mark() -> None:
    """The reader finds the mark in a docstring, a ``#`` or ``//`` comment and a block comment, and
    not further down than :data:`HEAD` lines nor in the middle of a line."""
    for opening in ('"""', "# ", "// ", " * ", "/* ", ""):
        assert gives_reason(["first line", f"{opening}{MARK} the kernels call each other."])
    assert not gives_reason(["x = 1"] * HEAD + [f"# {MARK} too late."])
    assert not gives_reason([f"# a line that mentions '{MARK}' in its middle"])


@pytest.mark.parametrize("path", _sources(), ids=_rel)
def test_a_long_file_says_why_it_is_one_file(path: Path) -> None:
    """ "No Python module above ~600 lines and no JS file above ~600 lines without a reason written at
    its top": a file longer than LIMIT lines opens with "One file because …"."""
    lines = _lines(path)
    rel = _rel(path)
    if rel in LONG_LEFT:
        assert len(lines) > LIMIT and not gives_reason(lines), (
            f"{rel} is {len(lines)} lines{' with its reason' if gives_reason(lines) else ''}: remove it from LONG_LEFT"
        )
        return
    assert len(lines) <= LIMIT or gives_reason(lines), (
        f"{rel} has {len(lines)} lines (more than {LIMIT}): split it into cohesive modules, or write at its top "
        f"a line starting '{MARK} …' saying what would be lost in two files"
    )


def test_each_long_file_left_still_exists() -> None:
    gone = [entry for entry in sorted(LONG_LEFT) if not (ROOT / entry).is_file()]
    assert not gone, f"{gone} are gone: remove them from LONG_LEFT"
