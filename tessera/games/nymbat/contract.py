# mypy: disable-error-code="arg-type, return-value, no-any-return"
"""Nymbat's kernel contract (:mod:`tessera.core.kits.contract`): the verbs on Nymbat's own kernels.

Position ``s``: the position array of :mod:`tessera.games.nymbat.kernels` (``SIZE`` entries,
``int32``); two and four players share the verbs.  Tables ``g``: ``(geo, start, pos, board)`` —
the board and parameters, the position of a new game, and the observation layout
(:func:`~tessera.games.nymbat.observation.layout_tables`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import kernel
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import Factoring, fresh_cache
from tessera.games.nymbat import kernels as yk
from tessera.games.nymbat.observation import write_planes

if TYPE_CHECKING:
    from tessera.games.nymbat.game import NymbatGame

fresh_cache(__file__, "tessera.games.nymbat.kernels", "tessera.games.nymbat.observation", "tessera.core.kits.stepper")

_H, _TO_MOVE, _OVER, _WINNER = yk.H, yk.TO_MOVE, yk.OVER, yk.WINNER


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """An empty board, every reserve full, Red (player 0) to bring in first."""
    start = g[1]
    for i in range(s.shape[0]):
        s[i] = start[i]


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    return TERMINAL if s[_H + _OVER] else np.int64(s[_H + _TO_MOVE])


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """The legal steps of the player to move (moves, placements, removals, losses, end, pass), in the order the
    game lists them (:func:`tessera.games.nymbat.kernels.legal`)."""
    if s[_H + _OVER]:
        return 0
    steps = yk.legal(s, g[0])
    for j in range(steps.shape[0]):
        out[j] = steps[j]
    return steps.shape[0]


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    if s[_H + _OVER] or action < 0 or action >= yk.NUM_ACTIONS:
        return REFUSED
    if yk.apply(s, g[0], action, True) < 0:
        return REFUSED
    return OVER if s[_H + _OVER] else ONGOING


@kernel
def random_action(s: np.ndarray, g: Tables, rs: np.ndarray) -> int:
    """A random legal step drawn from ``rs`` as ``State.random_action`` draws it (the kernels' draw,
    without listing the steps), or -1 once the game is over.  Not one of the six verbs: the compiled
    search tree (:mod:`tessera.agents.compiled_mcts`) uses it where a game has it."""
    if s[_H + _OVER]:
        return -1
    return yk._random_step(s, g[0], rs, np.zeros(yk.WS_SIZE, np.int32))


@kernel
def rollout(s: np.ndarray, g: Tables, rs: np.ndarray, max_plies: int, out: np.ndarray) -> int:
    """Random steps (:func:`random_action`'s draw) on ``s`` (changed) until the game ends or ``max_plies``
    were played (``< 0``: no limit), as the kernels' rollouts; each player's return into ``out``
    (``returns``) and the steps played.  Not one of the six verbs: the compiled search tree's rollout."""
    geo = g[0]
    ws = np.zeros(yk.WS_SIZE, np.int32)
    steps = 0
    while not s[_H + _OVER] and (max_plies < 0 or steps < max_plies):
        yk._apply(s, geo, yk._random_step(s, geo, rs, ws), ws)
        steps += 1
    returns(s, g, out)
    return steps


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    write_planes(s, g[0], g[2], g[3], player, s[_H + _OVER] == 0 and s[_H + _TO_MOVE] == player, out, 1.0)


@kernel
def observe_bytes(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    """``observe`` as the vector engine's ``uint8`` planes (``out``: ``uint8``), written directly: the
    generic engine calls it instead of packing ``observe``'s ``float32`` (:mod:`tessera.core.kits.stepper`).
    Measured: ``uint8`` 10,164 ns packed → 9,139 ns direct a game-step at B = 1,024 (random legal actions
    included, medians of 7 interleaved rounds, 2026-11-29; ``float32`` 10,359 and 9,936 in the same runs):
    6,525 plane cells a position."""
    write_planes(s, g[0], g[2], g[3], player, s[_H + _OVER] == 0 and s[_H + _TO_MOVE] == player, out, 255.0)


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to the winner and −1/(players − 1) to every other player; 0 each for a draw or a game going on."""
    n = out.shape[0]
    w = s[_H + _WINNER]
    won = s[_H + _OVER] and w >= 0
    for p in range(n):
        out[p] = 0.0 if not won else 1.0 if p == w else -1.0 / (n - 1)


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def build(game: NymbatGame) -> KernelContract:
    """Nymbat's contract (2 or 4 players)."""
    from tessera.games.nymbat.game import _start
    from tessera.games.nymbat.observation import layout_tables

    spec = game.observation_spec()
    pos, board = layout_tables(spec.layout)
    return KernelContract(
        game=game,
        tables=(game.geo, _start(game.players, game.reserve), pos, board),
        state_size=yk.SIZE,
        num_actions=yk.NUM_ACTIONS,
        num_players=game.players,
        obs_shape=spec.shape,
        init=init,
        current=current,
        legal=legal,
        apply=apply,
        observe=observe,
        returns=returns,
    )


FACTORED_HEADS = ("source cell 0 … 168", "piece 1 … 6 to bring in", "remove", "lose", "end", "pass")
"""Nymbat's first decisions (``actions="factored"``), in order: ``N`` source cells, six pieces, then
``remove``, ``lose``, ``end`` and ``pass`` (heads ``N + 6 … N + 9``)."""


def _split(a: int) -> tuple[int, int]:
    n = yk.N
    if a < yk.PLACE_BASE:  # a move: the piece (its cell), then the destination
        return a // n, a % n
    if a < yk.REMOVE_BASE:  # bring in: the piece (its number), then the cell
        c, k = divmod(a - yk.PLACE_BASE, 6)
        return n + k, c
    if a < yk.LOSE_BASE:
        return n + 6, a - yk.REMOVE_BASE
    if a < yk.END:
        return n + 7, a - yk.LOSE_BASE
    return (n + 8, 0) if a == yk.END else (n + 9, 0)


def factoring(adapted: Any) -> Factoring:
    """Nymbat's factored actions (``tessera.vector.make(actions="factored")``): the piece or group, then
    the destination — a move is its piece's cell then the cell it goes to; a piece brought in is its
    number (1 … 6) then its cell; a breakthrough removal or a loss is ``remove`` / ``lose`` then the
    cell; ``end`` and ``pass`` are one decision.  ``N + 10`` first decisions, ``N`` second ones
    (``N = 169`` cells), where the flat numbering has 29,915 actions."""
    n = yk.N
    return Factoring.build(yk.NUM_ACTIONS, n + 10, n, _split, lambda h: h >= n + 8, ("piece", "destination"))
