# mypy: disable-error-code="arg-type, return-value, no-any-return"
"""Nume's kernel contract (:mod:`tessera.core.kits.contract`): the verbs on Nume's own kernels.

Position ``s`` (``int32``): the board array of :mod:`tessera.games.nume.kernels` (``size(N)``
entries), then ``COL`` (the colour to place, which is the player to move: player 0 is Black)
and ``DONE`` (1 once the board is full).  Tables ``g``: ``(nbr, pos, board, komi)`` — the
neighbour table, the observation layout (:func:`~tessera.games.nume.observation.layout_tables`)
and ``komi = [komi_black, komi_white, receiver's colour, komi]`` (``float64``).

Komi bidding is not part of the contract (as in the vector engine): the komi is fixed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import kernel, rand_below
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import Factoring, fresh_cache
from tessera.games.nume import kernels as nk
from tessera.games.nume.observation import write_planes

if TYPE_CHECKING:
    from tessera.games.nume.game import NumeGame

fresh_cache(__file__, "tessera.games.nume.kernels", "tessera.games.nume.observation", "tessera.core.kits.stepper")

_HEAD, _PRICE_B, _PRICE_W = nk.HEAD, nk.PRICE_B, nk.PRICE_W


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """An empty board, Black (player 0) to place."""
    n = g[0].shape[0]
    m = s.shape[0] - 2
    for i in range(m):
        s[i] = 0
    for i in range(n):
        s[nk.STONE * n + i] = -1
        s[nk.NUM * n + i] = -1
        s[nk.GID * n + i] = -1
        s[nk.NEXT * n + i] = i
        s[nk.EMPTY * n + i] = i
        s[nk.EPOS * n + i] = i
    s[_HEAD * n + nk.NEMPTY] = n
    s[m] = 0
    s[m + 1] = 0


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    m = s.shape[0] - 2
    return TERMINAL if s[m + 1] else np.int64(s[m])


@kernel
def placements(a: np.ndarray, nbr: np.ndarray, col: int, out: np.ndarray) -> int:
    """The legal placements of ``col`` on board ``a`` as actions, ascending, into ``out`` (``int64``);
    how many: per empty cell ``c`` either ``c·K`` (the joining stone) or ``c·K + 1 … c·K + N + 1``
    (``K = N + 2``).  The State's ``legal_actions_array`` and the contract's ``legal``."""
    n = nbr.shape[0]
    k_actions = n + 2
    j = 0
    for c in range(n):
        st = nk.status(a, nbr, np.int64(c), col)
        if st == nk.JOINS:
            out[j] = c * k_actions
            j += 1
        elif st == nk.STARTS:
            first = c * k_actions + 1
            for x in range(first, first + n + 1):
                out[j] = x
                j += 1
    return j


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """:func:`placements` of the colour to place (none once the board is full)."""
    m = s.shape[0] - 2
    if s[m + 1]:
        return 0
    return placements(s, g[0], np.int64(s[m]), out)


@kernel
def random_action(s: np.ndarray, g: Tables, rs: np.ndarray) -> int:
    """A random legal action drawn from ``rs`` as ``State.random_action`` draws it (an empty cell uniformly,
    then a number if the stone starts a group), or -1 once the board is full.  Not one of the contract's
    six verbs: the compiled search tree (:mod:`tessera.agents.compiled_mcts`) uses it where a game has it."""
    m = s.shape[0] - 2
    if s[m + 1]:
        return -1
    nbr = g[0]
    n = nbr.shape[0]
    c = np.int64(s[nk.EMPTY * n + rand_below(rs, np.int64(s[_HEAD * n + nk.NEMPTY]))])
    if nk.status(s, nbr, c, np.int64(s[m])) == nk.JOINS:
        return c * (n + 2)
    return c * (n + 2) + 1 + rand_below(rs, n + 1)


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    nbr = g[0]
    n = nbr.shape[0]
    m = s.shape[0] - 2
    if s[m + 1] or action < 0 or action >= n * (n + 2):
        return REFUSED
    c = action // (n + 2)
    col = np.int64(s[m])
    left = nk.apply(s, nbr, np.int64(c), np.int64(action - c * (n + 2)), col)
    if left < 0:
        return REFUSED
    if left == 0:
        s[m + 1] = 1
        return OVER
    s[m] = 1 - col
    return ONGOING


@kernel
def rollout(s: np.ndarray, g: Tables, rs: np.ndarray, max_plies: int, out: np.ndarray) -> int:
    """Random placements drawn as :func:`random_action` draws them, played on ``s`` (changed) until the
    board is full or ``max_plies`` were played (``< 0``: no limit); each player's return into ``out``
    (``returns``) and the placements played.  Not one of the six verbs: the compiled search tree's
    rollout where a game has it (the same game as ``random_action`` then ``apply``, in one loop)."""
    m = s.shape[0] - 2
    nbr = g[0]
    n = nbr.shape[0]
    steps = 0
    if not s[m + 1]:
        col = np.int64(s[m])
        left = np.int64(s[_HEAD * n + nk.NEMPTY])
        while left > 0 and (max_plies < 0 or steps < max_plies):
            c = np.int64(s[nk.EMPTY * n + rand_below(rs, left)])
            k = 0 if nk.status(s, nbr, c, col) == nk.JOINS else 1 + rand_below(rs, n + 1)
            left = np.int64(nk.apply(s, nbr, c, k, col))
            col = 1 - col
            steps += 1
        if left == 0:  # as apply: the last placer stays in s[m], the game is over
            s[m + 1] = 1
            col = 1 - col
        s[m] = col
    returns(s, g, out)
    return steps


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    nbr, pos, board, komi = g
    n = nbr.shape[0]
    m = s.shape[0] - 2
    to_move = s[m + 1] == 0 and s[m] == player
    write_planes(s, n, pos, board, player, 6 if komi[2] == player else 7, komi[3], to_move, out, 1.0)


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to the lower score (prices plus komi), −1 to the higher; 0 each for equal scores or a game going on."""
    nbr, komi = g[0], g[3]
    n = nbr.shape[0]
    m = s.shape[0] - 2
    out[0] = 0.0
    out[1] = 0.0
    if s[m + 1]:
        sb = s[_HEAD * n + _PRICE_B] + komi[0]
        sw = s[_HEAD * n + _PRICE_W] + komi[1]
        r = 1.0 if sb < sw else -1.0 if sb > sw else 0.0
        out[0] = r
        out[1] = -r


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def build(game: NumeGame) -> KernelContract:
    """Nume's contract (``ValueError`` with komi bidding: the contract plays a fixed komi)."""
    from tessera.games.nume.observation import layout_tables

    p = game.params
    if p["komi_bidding"]:
        raise ValueError("nume: the kernel contract plays a fixed komi; komi_bidding=true is not supported")
    spec = game.observation_spec()
    pos, board = layout_tables(game, spec.layout)
    komi = float(p["komi"])
    komi_col = 0 if p["komi_to"] == "black" else 1
    fp = np.array([komi if komi_col == 0 else 0.0, komi if komi_col == 1 else 0.0, komi_col, komi], np.float64)
    return KernelContract(
        game=game,
        tables=(game.nbr, pos, board, fp),
        state_size=nk.size(game.cells) + 2,
        num_actions=game.cells * game.K,
        num_players=2,
        obs_shape=spec.shape,
        init=init,
        current=current,
        legal=legal,
        apply=apply,
        observe=observe,
        returns=returns,
    )


def factoring(adapted: Any) -> Factoring:
    """Nume's factored actions (``tessera.vector.make(actions="factored")``): the cell, then the number.

    Placement ``c·K + k`` (``K = cells + 2``) is the cell ``c`` (``cells`` choices), then ``k``: 0 the
    joining stone, ``1 … K−1`` the numbers of a new group.  The komi bids and colour choices are not
    played by the vector engine (it plays a fixed komi) and have no decision."""
    game = adapted.game
    cells, k = game.cells, game.K
    return Factoring.build(
        adapted.num_distinct_actions,
        cells,
        k,
        lambda a: divmod(a, k) if a < cells * k else (-1, -1),
        lambda h: False,
        ("cell", "number"),
    )
