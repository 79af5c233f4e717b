"""Puzzles: positions of played games with one winning step, proved by the exact solvers (docs/puzzles.md).

* :mod:`tessera.puzzles.model` — :class:`Puzzle`, the JSON-lines files, judging an attempt;
* :mod:`tessera.puzzles.solve` — :func:`solver_for`, the one way to the exact solvers;
* :mod:`tessera.puzzles.make` — finding puzzles (``tessera puzzles make``);
* :mod:`tessera.puzzles.sources` — the played games: a server's database, record files, self-play;
* :mod:`tessera.puzzles.themes` — what a line is about;
* :mod:`tessera.puzzles.proof` — solving the shipped puzzles again (``tessera puzzles check``).
"""

from tessera.puzzles.model import Judgement, Puzzle, StepVerdict, judge, public_view, read_puzzles, shipped

__all__ = ["Judgement", "Puzzle", "StepVerdict", "judge", "public_view", "read_puzzles", "shipped"]
