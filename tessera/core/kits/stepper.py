# mypy: disable-error-code="arg-type, assignment"
"""The vector engine built once on the kernel contract: one batched loop that calls a game's verbs.

:data:`SOURCE` is the batched loop (``contract_reset`` and ``contract_step``), written once
against the six verbs of :mod:`tessera.core.kits.contract`.  A game's ``contract.py`` calls
:func:`define_stepper` after its verbs: that compiles the loop *in the game's module*, where the
names ``init``, ``current``, ``legal``, ``apply``, ``observe`` and ``returns`` are the game's
verbs, so numba inlines them and caches the loop beside the game's kernels (a loop that took
the verbs as arguments would be recompiled in every process: numba's cache keys a function
argument by its identity).  :class:`ContractVector` is the engine on that loop; a game's
``vector_engine()`` returns it unless a measurement keeps its own engine (docs/engine.md).

``contract_rollouts`` plays random games from a position on the same verbs (a rollout any
game gets from its contract).  The loop, per game ``b`` and step: ``apply`` the (adapter →
game) action; if the game ended, its ``returns`` are the rewards and ``init`` starts the next
one; then ``current``, ``observe`` and ``legal`` (game → adapter actions) write the player,
planes and mask of the position now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import rand_below
from tessera.core.kits.contract import KernelContract
from tessera.core.kits.vector import Factoring, VectorGame, obs_row, pack_row

PLANES_PACKED = """
@kernel
def _contract_planes(s, g, p, obs, packed, mult, b):
    observe(s, g, p, obs_row(obs, b))
    pack_row(obs, packed, mult, b)
"""
"""How the loop writes game ``b``'s planes: ``observe`` (``float32``), then packed into bytes if wanted."""

PLANES_BYTES = """
@kernel
def _contract_planes(s, g, p, obs, packed, mult, b):
    if packed.shape[0] > 0:
        observe_bytes(s, g, p, packed[b])
    else:
        observe(s, g, p, obs[b])
"""
"""The same for a contract module that defines ``observe_bytes(s, g, player, out)`` (``uint8`` planes
written directly, where a measurement found it cheaper than packing)."""

SOURCE = '''
@kernel
def _contract_write(s, g, to_adapter, obs, packed, mult, b, mask, words, buf, remembered):
    p = current(s, g)
    _contract_planes(s, g, p, obs, packed, mult, b)
    m = remembered[0]
    if m < 0:  # unknown: clear the whole row, eight actions at a time
        for i in range(words.shape[0]):
            words[i] = 0
    else:  # clear only what the last write set
        for j in range(m):
            mask[remembered[1 + j]] = False
    n = legal(s, g, buf)
    cap = remembered.shape[0] - 1
    remembered[0] = n if n <= cap else -1
    for j in range(n):
        x = to_adapter[buf[j]]
        mask[x] = True
        if j < cap:
            remembered[1 + j] = x
    return p


@kernel
def contract_reset(states, g, rs, to_adapter, obs, packed, mult, mask, words, player, buf, remembered):
    """Every game to a new game (``init``), its player, planes and mask written."""
    for b in range(states.shape[0]):
        s = states[b]
        init(s, g, rs)
        remembered[b, 0] = -1
        player[b] = _contract_write(s, g, to_adapter, obs, packed, mult, b, mask[b], words[b], buf, remembered[b])


@kernel
def contract_step(
    states, g, rs, actions, to_game, to_adapter, obs, packed, mult, mask, words, player, rewards, terminated, buf, ret,
    remembered,
):
    """One action per game (legal, adapter numbering; ``-1``: that game does not step)."""
    for b in range(states.shape[0]):
        for q in range(rewards.shape[1]):
            rewards[b, q] = 0.0
        terminated[b] = False
        if actions[b] < 0:
            continue
        s = states[b]
        if apply(s, g, to_game[actions[b]], rs) == OVER:
            returns(s, g, ret)
            for q in range(rewards.shape[1]):
                rewards[b, q] = ret[q]
            terminated[b] = True
            init(s, g, rs)
        player[b] = _contract_write(s, g, to_adapter, obs, packed, mult, b, mask[b], words[b], buf, remembered[b])


@kernel
def contract_rollouts(s, g, n, rs, max_plies, totals, work, buf, ret):
    """``n`` uniformly random games from ``s`` (left unchanged) on scratch ``work``: each player's summed
    returns added to ``totals`` (a game cut off after ``max_plies`` steps adds 0; ``< 0``: no cut-off);
    returns the steps played."""
    plies = 0
    for _ in range(n):
        for i in range(s.shape[0]):
            work[i] = s[i]
        steps = 0
        while current(work, g) != TERMINAL and (max_plies < 0 or steps < max_plies):
            m = legal(work, g, buf)
            apply(work, g, buf[rand_below(rs, m)], rs)
            steps += 1
        plies += steps
        returns(work, g, ret)
        for q in range(totals.shape[0]):
            totals[q] += ret[q]
    return plies
'''

REMEMBER = 512
"""Mask entries the engine remembers per game, to clear only those (a wider legal list clears the row)."""


def define_stepper(namespace: dict[str, Any]) -> None:
    """Compile :data:`SOURCE` into a game's contract module (``namespace`` is its ``globals()``, with the
    six verbs and ``kernel`` defined).  The loop's code is attributed to that module's file, past its
    last line, so numba caches it there; the module's ``fresh_cache`` must watch this module."""
    path = namespace["__file__"]
    missing = [
        n for n in ("init", "current", "legal", "apply", "observe", "returns", "kernel", "OVER") if n not in namespace
    ]
    if missing:
        raise ValueError(f"{path}: define the contract's verbs before the stepper (missing: {', '.join(missing)})")
    try:
        lines = Path(path).read_text(encoding="utf-8").count("\n") + 1
    except OSError:  # no source beside the module: any offset past a module's length will do
        lines = 100_000
    planes = PLANES_BYTES if "observe_bytes" in namespace else PLANES_PACKED
    code = compile(
        "\n" * lines + planes + SOURCE, path, "exec"
    )  # line numbers past the module's own: no clash in the cache
    namespace.setdefault("rand_below", rand_below)
    namespace.setdefault("TERMINAL", TERMINAL)
    namespace.setdefault("obs_row", obs_row)
    namespace.setdefault("pack_row", pack_row)
    exec(code, namespace)  # a fixed source (this module's), compiled into the game's module


def contract_factoring(contract: KernelContract, adapted: Any) -> Factoring | None:
    """The two decisions per move a game's ``contract.py`` declares (``factoring(adapted) -> Factoring``),
    or ``None`` (one decision is a move)."""
    module = __import__(contract.init.py_func.__module__, fromlist=["factoring"])
    fn = getattr(module, "factoring", None)
    return None if fn is None else fn(adapted)


class ContractVector(VectorGame):
    """``B`` games stepped by the generic loop on the game's kernel contract.

    ``states[b]`` is game ``b``'s position (the contract's ``s``).  Adapter actions are turned into
    the game's actions through the adapters' table where they differ (Ikabegamá's window).
    """

    def __init__(
        self, adapted: Any, batch: int, seed: int, contract: KernelContract | None = None, **formats: str
    ) -> None:
        c = contract if contract is not None else self.make_contract(adapted)
        self.contract = c
        super().__init__(adapted, batch, seed, **formats)
        module = __import__(c.init.py_func.__module__, fromlist=["contract_step"])
        self._reset_kernel = module.contract_reset
        self._step_kernel = module.contract_step
        a = self.num_flat_actions
        table = getattr(adapted, "_to_tessera", None)
        if table is None:
            self._to_game = np.arange(a, dtype=np.int64)
            self._to_adapter = np.arange(max(a, c.num_actions), dtype=np.int64)
        else:
            self._to_game = np.array(table, np.int64)
            self._to_adapter = np.full(c.num_actions, -1, np.int64)
            for i, t in enumerate(table):
                if t >= 0:
                    self._to_adapter[t] = i
        self.states = np.zeros((self.batch, c.state_size), np.int32)
        """Each game's position (the layout of the game's ``contract.py``)."""
        self._buf = np.zeros(max(1, c.num_actions), np.int64)
        self._ret = np.zeros(c.num_players, np.float64)
        self._words = self._mask_rows.view(np.uint64)
        """The mask rows as ``uint64`` words (each row is padded to whole words)."""
        self._remembered = np.full((self.batch, REMEMBER + 1), -1, np.int64)
        """Per game: how many mask entries the last write set (−1: unknown or more than ``REMEMBER``),
        then those entries, so the next write clears only them."""

    def make_contract(self, adapted: Any) -> KernelContract:
        """The contract for the adapted game (a subclass passes the adapters' options on)."""
        contract = adapted.game.kernel_contract()
        if contract is None:
            raise ValueError(f"{adapted.name}: the game declares no kernel contract")
        return contract

    def make_factoring(self) -> Factoring | None:
        """The game's contract module's ``factoring(adapted)``, if it defines one."""
        return contract_factoring(self.contract, self.adapted)

    def _legal_lists(self) -> np.ndarray:
        """The mask entries the loop remembers per game: its legal actions (up to ``REMEMBER``), in the
        adapter numbering; the factored masks read the first decisions from them."""
        return self._remembered

    def _reset_all(self) -> None:
        self._reset_kernel(
            self.states, self.contract.tables, self.rs, self._to_adapter,
            self._obs_w, self._packed, self._mult, self._mask_rows, self._words, self._player, self._buf,
            self._remembered,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        self._step_kernel(
            self.states, self.contract.tables, self.rs, actions, self._to_game, self._to_adapter,
            self._obs_w, self._packed, self._mult, self._mask_rows, self._words, self._player, self._rewards,
            self._terminated,
            self._buf, self._ret, self._remembered,
        )  # fmt: skip


__all__ = ["SOURCE", "ContractVector", "contract_factoring", "define_stepper"]
