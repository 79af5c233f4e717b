"""The progress display of every run: a bar with ETA on stderr, or one plain line a game.

On a terminal: rich when installed, else tqdm; otherwise (a log file, or neither package)
one line a game, ``[done/total] what happened; status; ETA``.  What a line says about a
game (by default :func:`result_line`) and the running status (a match's score so far)
come from the command.

>>> import io, sys
>>> err, sys.stderr = sys.stderr, io.StringIO()
>>> bar = ProgressDisplay(2, "demo", line=lambda r: f"game {r}", status=lambda r: "")
>>> bar("a", 1, 2); bar("b", 2, 2); bar.close()
>>> lines, sys.stderr = sys.stderr.getvalue().splitlines(), err
>>> [line.split(";")[0] for line in lines]
['[1/2] game a', '[2/2] game b']
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from tessera.arena.play import GameResult


def result_line(r: GameResult) -> str:
    """A game in the plain progress lines: its group (table, setting), key and winner.

    >>> result_line(GameResult("0/3", "random vs greedy", "nume", ["random", "greedy"], [-1.0, 1.0], 9, 0.25, 0))
    'random vs greedy 0/3: seat 1 wins, 9 plies, 0.2 s'
    """
    w = r.winner
    return f"{r.group} {r.key}: {'draw' if w is None else f'seat {w} wins'}, {r.plies} plies, {r.seconds:.1f} s"


class ProgressDisplay:
    """Called as ``display(result, done, total)`` after every game; ``close()`` at the end.

    ``line(result)`` says what happened in a game (plain lines); ``status(result)`` is the
    running status shown beside the bar (called after every game, in order of arrival).
    With ``enabled=False`` it shows nothing.
    """

    def __init__(
        self,
        total: int,
        label: str,
        *,
        line: Callable[[Any], str] | None = None,
        status: Callable[[Any], str] | None = None,
        enabled: bool = True,
    ) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self._line = line or result_line
        self._status = status or (lambda r: "")
        self._start = time.perf_counter()
        self._first: int | None = None
        self._update: Callable[[int, str], None] | None = None
        self._close: Callable[[], None] = lambda: None
        if enabled and sys.stderr.isatty():
            self._update = self._rich(label, total) or self._tqdm(label, total)

    def _rich(self, label: str, total: int) -> Callable[[int, str], None] | None:
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError:
            return None
        prog = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        prog.start()
        task = prog.add_task(label, total=total, status="")
        self._close = prog.stop
        return lambda done, status: prog.update(task, completed=done, status=status)

    def _tqdm(self, label: str, total: int) -> Callable[[int, str], None] | None:
        try:
            from tqdm import tqdm  # type: ignore[import-untyped]
        except ImportError:
            return None
        bar = tqdm(total=total, desc=label, file=sys.stderr)
        self._close = bar.close

        def update(done: int, status: str) -> None:
            bar.set_postfix_str(status)
            bar.update(done - bar.n)

        return update

    def __call__(self, result: Any, done: int, total: int) -> None:
        if not self.enabled:
            return
        status = self._status(result)
        if self._first is None:
            self._first = done - 1  # games found in a results file are not timed
        if self._update is not None:
            self._update(done, status)
            return
        played = done - self._first
        elapsed = time.perf_counter() - self._start
        eta = elapsed / played * (total - done) if played else 0.0
        parts = [f"[{done}/{total}] {self._line(result)}", *([status] if status else []), f"ETA {eta:.0f} s"]
        print("; ".join(parts), file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop the bar."""
        self._close()


__all__ = ["ProgressDisplay", "result_line"]
