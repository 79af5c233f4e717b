"""What the analysis board shows about an endgame: "forced win in N" or "lost with best play"."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from tessera.agents.endgame.agent import within_reach
from tessera.core.game import State


@dataclass(frozen=True)
class Verdict:
    """The solver's proof about a position."""

    winner: int | None
    """The player who wins with best play (``None``: a draw)."""
    to_move: int
    """The player to move in the position."""
    plies: int | None
    """Steps to the end with best play (the winner's fastest win, the loser's longest resistance); ``None``
    if the time only sufficed to prove the result."""
    best_move: str
    """A best step for the player to move (winning, or the longest loss), in the game's notation."""
    text: str
    """One line for the board, e.g. ``"Forced win in 7 steps for First"``."""

    def as_dict(self) -> dict[str, Any]:
        """The verdict as JSON-ready data (``winner``, ``to_move``, ``plies``, ``best_move``, ``text``)."""
        return asdict(self)


_LOCAL = threading.local()


def endgame_verdict(state: State, seconds: float = 1.0, *, reach: int | None = None) -> Verdict | None:
    """The exact result of ``state`` with best play, or ``None`` when unknown within ``seconds``.

    ``None`` as well for games without a solver and positions out of reach (``reach``: the game's
    analysis reach, :attr:`~tessera.core.kits.solver.EndgameSolver.analysis_reach`: more than the
    levels' reach, as the analysis board may think longer, and a position out of time gives ``None``).
    Each thread keeps one solver per game (its table speeds up the positions of one game that follow).
    """
    spec = state.game.solver()
    if spec is None or not within_reach(state, spec.analysis_reach if reach is None else reach):
        return None
    solvers: dict[str, Any] = _LOCAL.__dict__.setdefault("solvers", {})
    solver = solvers.get(state.game.name)
    if solver is None:
        solver = solvers[state.game.name] = spec.make(20)
    out = solver.solve(state, seconds)
    if out is None:
        return None
    p = state.current_player()
    names = state.game.info.player_names
    move = state.action_to_string(out.best_move)
    steps = "" if out.plies is None else f" in {out.plies} step{'s' if out.plies != 1 else ''}"
    if out.value == 0:
        return Verdict(None, p, out.plies, move, f"Draw with best play ({move})")
    winner = p if out.value > 0 else 1 - p
    if out.value > 0:
        text = f"Forced win{steps} for {names[winner]} ({move})"
    else:
        text = f"{names[p]} is lost with best play: {names[winner]} wins{steps}"
    return Verdict(winner, p, out.plies, move, text)


__all__ = ["Verdict", "endgame_verdict"]
