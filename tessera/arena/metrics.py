"""The game-design metrics of a self-play study, after Browne's and Ludii's evaluation metrics.

Per game (from the trace a balance run records ply by ply, :class:`GameTrace`), with
``e_p(t)`` player ``p``'s evaluation (``State.evaluate``, in [−1, 1]) after ``t`` plies,
``t = 0 … T``:

* **lead changes** — ``#{t : the leader at t differs from the last leader before t} / T``,
  the leader being the player with the strictly highest evaluation (a tie has none);
* **stability** — the mean over players of the variance of ``e_p(t)`` over the game (lower
  is steadier);
* **uncertainty** — the mean over plies of ``1 − (e₍₁₎(t) − e₍₂₎(t)) / 2``, the gap between
  the highest and second-highest evaluation turned into [0, 1]: 1 when the leading two
  stay level throughout, lower the earlier one player pulls away;
* **clarity** — the mean over sequential plies of the variance of the mover's evaluation
  after each of up to :data:`CLARITY_SAMPLE` legal moves (all of them when fewer, else a
  seeded sample): high when moves differ clearly, near 0 when every move looks alike;
* **coverage** — the share of the board's cells whose drawn content ever changed from the
  start or that ever held a player's piece (from the render description, so every game
  is measured alike); ``None`` on an unbounded board;
* **repetition** — the share of plies after which the position (``State.to_dict()``) had
  already occurred earlier in the game;
* **draw cause** — ``"rule"`` for a draw the rules reach, ``"safeguard"`` for one reached
  by a game's move cap (the outcome's ``reason`` is ``safeguard``) or the arena's limit.

Over the games of a setting (:func:`summarize`): each per-game metric's mean; the length
distribution as a histogram; **outcome uniformity**, the normalised entropy
``−Σ p_k ln p_k / ln K`` of the outcomes (each seat's win and the draw, ``K`` of them):
1 when every outcome is equally likely, 0 when one always happens; draws by cause.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from typing import Any

from tessera.core.game import SIMULTANEOUS, State
from tessera.core.records import play_stored, text_record
from tessera.core.registry import load_game

CLARITY_SAMPLE = 8
"""Legal moves whose evaluation is sampled at each ply for clarity."""

PER_GAME = ("lead_changes", "stability", "uncertainty", "clarity", "coverage", "repetition")
"""The metrics measured on each game, averaged over a setting's games."""


def leader(row: Sequence[float]) -> int | None:
    """The player with the strictly highest evaluation, or ``None`` on a tie at the top.

    >>> leader([0.2, -0.2]), leader([0.0, 0.0]), leader([0.1, 0.3, 0.3])
    (0, None, None)
    """
    best = max(row)
    top = [p for p, v in enumerate(row) if v == best]
    return top[0] if len(top) == 1 else None


def lead_changes(evals: Sequence[Sequence[float]]) -> float | None:
    """Changes of leader per ply (see the module docstring); ``None`` for a game of no ply.

    >>> lead_changes([[0, 0], [0.1, -0.1], [0, 0], [-0.1, 0.1], [0.2, -0.2]])
    0.5
    """
    plies = len(evals) - 1
    if plies <= 0:
        return None
    last: int | None = None
    changes = 0
    for row in evals:
        now = leader(row)
        if now is None:
            continue
        if last is not None and now != last:
            changes += 1
        last = now
    return changes / plies


def stability(evals: Sequence[Sequence[float]]) -> float | None:
    """The mean over players of the variance of their evaluation over the game.

    >>> stability([[1, -1], [1, -1]]), stability([[1, -1], [-1, 1]])
    (0.0, 1.0)
    """
    if not evals:
        return None
    n = len(evals[0])
    total = 0.0
    for p in range(n):
        xs = [row[p] for row in evals]
        m = sum(xs) / len(xs)
        total += sum((x - m) ** 2 for x in xs) / len(xs)
    return total / n


def uncertainty(evals: Sequence[Sequence[float]]) -> float | None:
    """The mean of ``1 − (highest − second highest) / 2`` over the game's evaluations.

    >>> uncertainty([[0, 0], [0, 0]]), uncertainty([[1, -1], [1, -1]]), uncertainty([[0, 0], [1, -1]])
    (1.0, 0.0, 0.5)
    """
    if not evals:
        return None
    total = 0.0
    for row in evals:
        a, b = sorted(row, reverse=True)[:2]
        total += 1.0 - min(1.0, (a - b) / 2.0)
    return total / len(evals)


def repetition(keys: Sequence[str]) -> float | None:
    """The share of plies after which the position had already occurred (``keys[0]`` is the start).

    >>> repetition(["a", "b", "a", "c", "b"])
    0.5
    """
    if len(keys) <= 1:
        return None
    seen = {keys[0]}
    repeats = 0
    for k in keys[1:]:
        repeats += k in seen
        seen.add(k)
    return repeats / (len(keys) - 1)


def outcome_uniformity(counts: Sequence[int]) -> float | None:
    """The normalised entropy of outcome counts (each seat's wins, then draws): 1 uniform, 0 one outcome.

    >>> outcome_uniformity([5, 5, 5]), outcome_uniformity([10, 0, 0]), round(outcome_uniformity([3, 1, 0]), 3)
    (1.0, 0.0, 0.512)
    """
    n = sum(counts)
    if n == 0 or len(counts) < 2:
        return None
    h = -sum(c / n * math.log(c / n) for c in counts if c)
    return max(0.0, min(1.0, round(h / math.log(len(counts)), 12)))


def histogram(values: Sequence[float], bins: int = 10) -> dict[str, list[Any]]:
    """``{"edges": [...], "counts": [...]}``: ``bins`` equal bins from the least to the largest value.

    >>> histogram([1, 2, 2, 3, 10], bins=3)
    {'edges': [1.0, 4.0, 7.0, 10.0], 'counts': [4, 0, 1]}
    """
    if not values:
        return {"edges": [], "counts": []}
    lo, hi = float(min(values)), float(max(values))
    if hi == lo:
        return {"edges": [lo, hi], "counts": [len(values)]}
    width = (hi - lo) / bins
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / width))] += 1
    return {"edges": [lo + i * width for i in range(bins)] + [hi], "counts": counts}


def _cells(state: State) -> tuple[dict[str, tuple[Any, ...]], int | None]:
    """What the render description draws on each cell, and the board's cell count (``None``: unbounded)."""
    r = state.render()
    board = r.get("board", {})
    drawn: dict[str, tuple[Any, ...]] = {}
    for piece in r.get("pieces", []):
        key = (piece.get("owner"), piece.get("symbol"), piece.get("shape"), piece.get("color"), piece.get("text"))
        drawn[str(piece.get("cell"))] = drawn.get(str(piece.get("cell")), ()) + key
    size = None if board.get("unbounded") else len(board.get("cells", []))
    return drawn, size


class GameTrace:
    """What one traced game records ply by ply, summed up as the per-game metrics."""

    def __init__(self, state: State, rng: random.Random) -> None:
        self.n = state.game.num_players
        self.rng = rng
        self.evals: list[list[float]] = []
        self.keys: list[str] = []
        self.clarity: list[float] = []
        self.start, self.cells = _cells(state)
        self.touched: set[str] = {c for c, d in self.start.items() if any(x is not None for x in d[::5])}
        self.observe(state)

    def observe(self, state: State) -> None:
        """Record the position after a ply (and the start)."""
        self.evals.append([state.evaluate(p) for p in range(self.n)])
        self.keys.append(json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":")))
        if self.cells is not None:
            drawn, _ = _cells(state)
            for cell in set(drawn) | set(self.start):
                d = drawn.get(cell)
                if d != self.start.get(cell) or (d is not None and any(x is not None for x in d[::5])):
                    self.touched.add(cell)

    def sample_clarity(self, state: State) -> None:
        """Before a sequential ply: the variance of the mover's evaluation after sampled legal moves."""
        player = state.current_player()
        if player == SIMULTANEOUS or player < 0:
            return
        actions = state.legal_actions()
        if len(actions) < 2:
            return
        chosen = actions if len(actions) <= CLARITY_SAMPLE else self.rng.sample(actions, CLARITY_SAMPLE)
        values = []
        for a in chosen:
            child = state.clone()
            child.apply_action(a)
            values.append(child.evaluate(player))
        m = sum(values) / len(values)
        self.clarity.append(sum((v - m) ** 2 for v in values) / len(values))

    def summary(self, final: State, *, capped: bool) -> dict[str, Any]:
        """The per-game metrics (module docstring); ``capped`` when the arena stopped the game at its limit."""
        return {
            "lead_changes": lead_changes(self.evals),
            "stability": stability(self.evals),
            "uncertainty": uncertainty(self.evals),
            "clarity": sum(self.clarity) / len(self.clarity) if self.clarity else None,
            "coverage": None if not self.cells else len(self.touched) / self.cells,
            "repetition": repetition(self.keys),
            "draw_cause": draw_cause(final, capped=capped),
        }


def draw_cause(final: State, *, capped: bool) -> str | None:
    """Why a game ended without a winner: ``"safeguard"`` (the arena's cap, ``capped``, or the game's own move
    limit: its outcome's reason), ``"rule"`` (a draw its rules give), or ``None`` (a win, or not over)."""
    if capped:
        return "safeguard"
    if final.is_terminal() and final.winner() is None:
        outcome = final.outcome() or {}
        return "safeguard" if outcome.get("reason") == "safeguard" else "rule"
    return None


def example_games(results: Sequence[Any], *, by_agent: bool = False) -> list[tuple[str, Any]]:
    """A sample of a setting's games worth opening: ``(kind, result)`` for the shortest, the longest, the first
    stopped by a safeguard (or the arena's cap), and a typical game (length nearest the median) per outcome:
    a win of each seat, or with ``by_agent`` (a tournament's table, where the agents change seats) a win of
    each agent ("typical win of greedy").

    Only games that kept their moves count; a game is listed once, under its first kind.
    """
    rs = [r for r in results if r.moves]
    if not rs:
        return []
    picks: list[tuple[str, Any]] = [
        ("shortest", min(rs, key=lambda r: r.plies)),
        ("longest", max(rs, key=lambda r: r.plies)),
    ]
    capped = [r for r in rs if r.metrics.get("draw_cause") == "safeguard"]
    if capped:
        picks.append(("safeguard", capped[0]))
    done = [r for r in rs if r.error is None]

    def outcome(r: Any) -> str | None:
        w = r.winner
        return None if w is None else r.seats[w] if by_agent else f"seat {w}"

    outcomes = sorted({outcome(r) for r in done}, key=lambda w: (w is None, w or ""))
    for w in outcomes:
        group = sorted((r for r in done if outcome(r) == w), key=lambda r: r.plies)
        typical = group[len(group) // 2]
        picks.append(("typical draw" if w is None else f"typical win of {w}", typical))
    seen: set[str] = set()
    out = []
    for kind, r in picks:
        if r.key not in seen:
            seen.add(r.key)
            out.append((kind, r))
    return out


def example_record_files(game_spec: str, picks: Sequence[tuple[str, Any]], label: str) -> list[tuple[str, str]]:
    """``picks`` (``(kind, result)``, as :func:`example_games` gives them) as ``(file name, text record)``
    (docs/records.md), each game replayed from its deal seed and stored moves: openable in the analysis
    board.  ``label`` (the setting, or the table of agents) begins each file name."""
    game = load_game(game_spec)
    out = []
    for kind, r in picks:
        state = game.new_initial_state(seed=r.deal_seed)
        stored = []
        for m in r.moves:
            p = state.current_player()
            stored.append((p, m))
            play_stored(state, p, m)
        name = f"{label}-{kind}-{r.key}".replace("/", "_").replace(" ", "-").replace("=", "")
        result = "draw" if r.winner is None else f"seat {r.winner} wins"
        text = text_record(game_spec, r.deal_seed, stored, players=r.seats, result=f"{result} ({kind})")
        out.append((name + ".txt", text))
    return out


def summarize(
    metrics: Sequence[dict[str, Any]], lengths: Sequence[float], outcomes: Sequence[int | None], num_players: int
) -> dict[str, Any]:
    """A setting's metrics: the mean of each per-game one, the length histogram, outcome uniformity, draws by cause.

    ``outcomes`` holds each game's winning seat (``None``: a draw).
    """
    out: dict[str, Any] = {}
    for name in PER_GAME:
        xs = [m[name] for m in metrics if m.get(name) is not None]
        out[name] = sum(xs) / len(xs) if xs else None
    counts = [sum(1 for o in outcomes if o == p) for p in range(num_players)] + [sum(o is None for o in outcomes)]
    out["outcome_uniformity"] = outcome_uniformity(counts)
    out["length_histogram"] = histogram(list(lengths))
    causes = [m.get("draw_cause") for m in metrics]
    out["draws_by_cause"] = {
        "rule": sum(c == "rule" for c in causes),
        "safeguard": sum(c == "safeguard" for c in causes),
    }
    return out


__all__ = [
    "CLARITY_SAMPLE",
    "PER_GAME",
    "GameTrace",
    "draw_cause",
    "example_games",
    "example_record_files",
    "histogram",
    "lead_changes",
    "leader",
    "outcome_uniformity",
    "repetition",
    "stability",
    "summarize",
    "uncertainty",
]
