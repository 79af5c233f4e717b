# mypy: disable-error-code="arg-type, assignment"
"""UCT with the whole tree in preallocated arrays, searched inside compiled code (``mcts_compiled``).

One file because the tree's kernels call one another and are compiled into each game's contract
module from this file's source (:func:`tree_kernel`), numba's cache following a kernel's own file
only: split, a changed helper would leave a game's cached search calling the old one.

Level 5's search (:mod:`tessera.agents.mcts`) keeps a Python object per node; this one keeps the
tree in flat numpy arrays (one row per node: visits, the mover's total reward, the action that led
there, first child, next sibling, number of children, number of legal actions) and runs whole
batches of simulations in one numba call, on the game's kernel contract
(:mod:`tessera.core.kits.contract`: ``current``, ``legal``, ``apply``, ``returns`` with ``rs``), so
the same search works for every game that declares a contract, the plugin example included.

One simulation, as level 5 does it:

* **Selection** by UCB1, ``Q + c·sqrt(ln N / n)``, each node's ``Q`` the mean reward of the player
  who moved into it (max-n: with two zero-sum players this is level 5's negamax).
* **Expansion** of one child per simulation: an untried legal action drawn uniformly (level 5
  shuffles them and pops); with progressive widening (``widen``: ``auto`` when the root has more
  than ``wide`` legal actions) a node with ``n`` visits has at most ``ceil(pw_k · (n+1)^pw_alpha)``
  children, a new candidate being a random action that is not a child yet (four draws at most).
* **Rollout**: uniformly random legal actions (``legal``, one draw, ``apply``) to the end of the game,
  or for ``rollout_cutoff`` steps (a cut-off game scores the contract's ``returns``: 0 — the contract
  has no evaluation).  Two optional verbs beside the contract's six make it faster where a game's
  contract module defines them: ``random_action(s, g, rs)`` (one random legal action without listing
  them: Nume's draws a cell, then a number, as ``State.random_action`` — also the candidates of a
  widened node) and ``rollout(s, g, rs, max_plies, out)`` (the same random game in the game's own loop:
  Nume, and Nibble's corner-list rollout, the level's ``State.rollouts``).  ``mast=ε`` (ε-greedy) or
  ``gibbs=τ`` (Gibbs sampling at temperature τ): MAST rollouts instead (:data:`MAST`).
* **Back-up** of the rollout's returns along the path; **decision**: the most visited root child
  (ties: the higher mean).
* **Tree reuse** (``reuse``): the next search starts from the subtree of the moves played since,
  when the new position's history extends the stored one.

The compiled loop (:data:`SOURCE`) is compiled into the game's contract module, where the verbs
are globals, so numba inlines them and caches the machine code beside the game's kernels (as the
generic stepper, :mod:`tessera.core.kits.stepper`); a hash of :data:`SOURCE` kept beside that cache
drops it when this module's loop changes.

A position the contract cannot hold (Nume's komi bidding, a simultaneous node, a deal the contract
cannot make) is searched by level 5's Python tree instead, with the same options: ``stats["compiled"]``
says which one ran.  As in level 5 the exact endgame solvers run at the root, through
:func:`tessera.agents.endgame.agent.with_endgame` (``mcts_compiled(endgame=true)``, and the ``level5c``
spec).  **Solvers at the leaves** (``solve=N``, off by default): where the game's contract module
defines a compiled ``solve(s, g, limit, out, zob, tkey, tval, tflag, taux, tmove)`` verb (Nibble: its
endgame solver's compiled alpha-beta, :func:`tessera.games.nibble.contract.solve`; Ikabegamá on a
bounded board: its race solver's, :func:`tessera.games.ikabegama.contract.solve`; the Nim plugin: the
heap modulo ``take + 1``), each new leaf is first given to it with a budget of ``N`` nodes; a leaf it
decides keeps its exact return (``Tree.pv``) instead of a rollout, now and on every later visit, and
the search's transposition table (``LEAF_TABLE_BITS``) carries its results from leaf to leaf.  A game
without the verb searches as without the option.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np

from tessera.agents.base import DEFAULT_SECONDS, Agent, Budget
from tessera.core.game import TERMINAL, Action, State
from tessera.core.kernels import rand_below, rng_state
from tessera.core.kits.contract import REFUSED, KernelContract

SOURCE = '''
@kernel
def tree_simulate(
    root, s0, g, rs, sims, c, cutoff, wide, pw_k, pw_alpha,
    t_n, t_w, t_mover, t_action, t_child, t_sib, t_nchild, t_nlegal, t_size,
    s, buf, mark, ret, path, mast, tau, msum, mcnt, tr_p, tr_a, wbuf,
    t_pv, lim, zob, tkey, tval, tflag, taux, tmove,
):
    """``sims`` simulations from node ``root`` (position ``s0``) on the tree arrays; returns the number
    done (fewer only when the arrays are full and ``t_size`` reached their length).  With ``lim > 0`` each
    new leaf is first given to the game's solver (``tree_solve``, ``lim`` nodes): a decided leaf keeps its
    exact return for player 0 in ``t_pv`` (``SOLVED_NONE`` = not decided) and is never rolled out again."""
    cap = t_n.shape[0]
    for it in range(sims):
        for i in range(s0.shape[0]):
            s[i] = s0[i]
        node = root
        depth = 0
        path[0] = root
        while True:
            cp = current(s, g)
            if cp == TERMINAL:
                break
            if depth > 0 and t_pv[node] < 5.0:  # a solved node: its exact value, no deeper
                break
            k = t_nchild[node]
            expand = -1
            if wide:
                limit = math.ceil(pw_k * (t_n[node] + 1.0) ** pw_alpha)
                if k < limit:
                    for _ in range(4):
                        a = tree_draw(s, g, rs, buf)
                        if a < 0:
                            break
                        ch = t_child[node]
                        while ch >= 0 and t_action[ch] != a:
                            ch = t_sib[ch]
                        if ch < 0:
                            expand = a
                            break
            else:
                if t_nlegal[node] < 0:
                    t_nlegal[node] = legal(s, g, buf)
                m = t_nlegal[node]
                if k < m:
                    m = legal(s, g, buf)
                    ch = t_child[node]
                    while ch >= 0:
                        mark[t_action[ch]] = 1
                        ch = t_sib[ch]
                    r = rand_below(rs, m - k)
                    for j in range(m):
                        if mark[buf[j]] == 0:
                            if r == 0:
                                expand = buf[j]
                                break
                            r -= 1
                    ch = t_child[node]
                    while ch >= 0:
                        mark[t_action[ch]] = 0
                        ch = t_sib[ch]
            if expand >= 0 and t_size[0] < cap and depth + 2 < path.shape[0]:
                apply(s, g, expand, rs)
                x = t_size[0]
                t_size[0] = x + 1
                t_n[x] = 0
                t_w[x] = 0.0
                t_mover[x] = cp
                t_action[x] = expand
                t_child[x] = -1
                t_nchild[x] = 0
                t_nlegal[x] = -1
                t_pv[x] = 9.0
                if lim > 0 and current(s, g) != TERMINAL:
                    if tree_solve(s, g, lim, ret, zob, tkey, tval, tflag, taux, tmove):
                        t_pv[x] = ret[0]
                t_sib[x] = t_child[node]
                t_child[node] = x
                t_nchild[node] = k + 1
                depth += 1
                path[depth] = x
                break
            if k == 0 or depth + 2 >= path.shape[0]:
                break
            nn = t_n[node]
            cs = c * math.sqrt(math.log(nn)) if nn > 1 else 0.0
            best = -1
            best_u = -math.inf
            ch = t_child[node]
            while ch >= 0:
                n = t_n[ch]
                u = t_w[ch] / n + cs / math.sqrt(n) if n > 0 else math.inf
                if u >= best_u:
                    best_u = u
                    best = ch
                ch = t_sib[ch]
            apply(s, g, t_action[best], rs)
            node = best
            depth += 1
            path[depth] = node
        if depth > 0 and t_pv[path[depth]] < 5.0:  # solved (two players, zero-sum): the exact returns
            ret[0] = t_pv[path[depth]]
            ret[1] = -ret[0]
        elif mast > 0.0 or tau > 0.0:
            nr = tree_rollout_mast(s, g, rs, cutoff, buf, ret, mast, tau, msum, mcnt, tr_p, tr_a, wbuf)
            for d in range(1, depth + 1):
                x = path[d]
                p = t_mover[x]
                msum[p, t_action[x]] += ret[p]
                mcnt[p, t_action[x]] += 1.0
            for j in range(nr):
                p = tr_p[j]
                msum[p, tr_a[j]] += ret[p]
                mcnt[p, tr_a[j]] += 1.0
        else:
            tree_rollout(s, g, rs, cutoff, buf, ret)
        for d in range(depth + 1):
            x = path[d]
            t_n[x] += 1
            if t_mover[x] >= 0:
                t_w[x] += ret[t_mover[x]]
        if t_size[0] >= cap:
            return it + 1
    return sims
'''
MAST = '''
@kernel
def tree_rollout_mast(s, g, rs, cutoff, buf, ret, eps, tau, msum, mcnt, tr_p, tr_a, wbuf):
    """A MAST rollout on the mean returns ``msum / mcnt`` of the player to move (unseen actions count 1):
    with ``tau > 0`` Gibbs sampling, each legal action drawn with weight ``exp(mean / tau)``; else
    ε-greedy: with probability ``eps`` a random action (``tree_draw``), otherwise the best mean (ties at
    random).  The returns into ``ret``, the (player, action) pairs played into ``tr_p``/``tr_a`` (as many
    as they hold); returns how many were written."""
    steps = 0
    nr = 0
    while True:
        p = current(s, g)
        if p == TERMINAL or (cutoff >= 0 and steps >= cutoff):
            break
        if tau > 0.0:
            m = legal(s, g, buf)
            a = -1
            total = 0.0
            for j in range(m):
                b = buf[j]
                cnt = mcnt[p, b]
                w = math.exp((msum[p, b] / cnt if cnt > 0.0 else 1.0) / tau)
                wbuf[j] = w
                total += w
            r = rand_below(rs, 1 << 30) * (total / (1 << 30))
            for j in range(m):
                a = buf[j]
                r -= wbuf[j]
                if r < 0.0:
                    break
        elif eps >= 1.0 or rand_below(rs, 1 << 30) < eps * (1 << 30):
            a = tree_draw(s, g, rs, buf)
        else:
            m = legal(s, g, buf)
            a = -1
            if m > 0:
                start = rand_below(rs, m)
                best = -math.inf
                for j in range(m):
                    b = buf[(start + j) % m]
                    cnt = mcnt[p, b]
                    q = msum[p, b] / cnt if cnt > 0.0 else 1.0
                    if q > best:
                        best = q
                        a = b
        if a < 0:
            break
        if nr < tr_a.shape[0]:
            tr_p[nr] = p
            tr_a[nr] = a
            nr += 1
        apply(s, g, a, rs)
        steps += 1
    returns(s, g, ret)
    return nr
'''
"""Move-average sampling (MAST, Finnsson and Björnsson): rollouts that prefer the actions whose
simulations went best for their player, the statistics gathered over the whole search."""

"""The compiled simulations, written once against the contract's verbs (compiled into each game's
contract module by :func:`tree_kernel`)."""

DRAW_LEGAL = '''
@kernel
def tree_draw(s, g, rs, buf):
    """A uniformly random legal action (``legal`` then one draw), or -1 when there is none."""
    n = legal(s, g, buf)
    if n == 0:
        return -1
    return buf[rand_below(rs, n)]
'''

ROLLOUT_LEGAL = '''
@kernel
def tree_rollout(s, g, rs, cutoff, buf, ret):
    """Random actions (``tree_draw``) on ``s`` to the end or for ``cutoff`` steps; the returns into ``ret``."""
    steps = 0
    while current(s, g) != TERMINAL and (cutoff < 0 or steps < cutoff):
        a = tree_draw(s, g, rs, buf)
        if a < 0:
            break
        apply(s, g, a, rs)
        steps += 1
    returns(s, g, ret)
    return steps
'''

ROLLOUT_OWN = '''
@kernel
def tree_rollout(s, g, rs, cutoff, buf, ret):
    """The game's own ``rollout(s, g, rs, max_plies, out)`` verb (the same draws in one loop)."""
    return rollout(s, g, rs, cutoff, ret)
'''

DRAW_OWN = '''
@kernel
def tree_draw(s, g, rs, buf):
    """The game's own ``random_action(s, g, rs)`` verb (-1 when there is no legal action)."""
    return random_action(s, g, rs)
'''

SOLVE_NONE = '''
@kernel
def tree_solve(s, g, lim, ret, zob, tkey, tval, tflag, taux, tmove):
    """No solver in this game's contract module: never decided."""
    return 0
'''

SOLVE_OWN = '''
@kernel
def tree_solve(s, g, lim, ret, zob, tkey, tval, tflag, taux, tmove):
    """The game's own ``solve(s, g, limit, out, zob, tkey, tval, tflag, taux, tmove)`` verb: 1 and the
    exact returns in ``ret`` when it decides ``s`` within ``lim`` nodes, else 0."""
    return solve(s, g, lim, ret, zob, tkey, tval, tflag, taux, tmove)
'''

SOLVED_NONE = 9.0
"""``Tree.pv`` of a node no solver decided (a decided one holds player 0's exact return, −1 … 1)."""

LEAF_TABLE_BITS = 16
"""Slots (a power of two) of the transposition table a search hands its game's leaf solver (~1 MB)."""

_LOCK = threading.Lock()
_KERNELS: dict[str, Any] = {}


def _stale_mark(module_file: str, stem: str, text: str) -> None:
    """Drop the cached ``tree_*`` kernels of a contract module when :data:`SOURCE` changed."""
    cache = Path(module_file).resolve().parent / "__pycache__"
    stamp = hashlib.sha256(text.encode()).hexdigest()
    mark = cache / f"{stem}.tree-source.sha256"
    try:
        if mark.is_file() and mark.read_text() == stamp:
            return
        cache.mkdir(exist_ok=True)
        for path in [*cache.glob(f"{stem}.tree_*.nbi"), *cache.glob(f"{stem}.tree_*.nbc")]:
            path.unlink(missing_ok=True)
        mark.write_text(stamp)
    except OSError:  # a cache that cannot be written: numba compiles in memory
        pass


def has_leaf_solver(ns: dict[str, Any]) -> bool:
    """Whether a contract module's namespace defines the leaf solver verb ``solve`` (a kernel)."""
    return hasattr(ns.get("solve"), "py_func")


def tree_kernel(contract: KernelContract) -> Any:
    """The compiled ``tree_simulate`` of ``contract``'s game (compiled into its contract module once)."""
    module_name = contract.init.py_func.__module__
    with _LOCK:
        fn = _KERNELS.get(module_name)
        if fn is not None:
            return fn
        module = __import__(module_name, fromlist=["init"])
        ns = module.__dict__
        fn = ns.get("tree_simulate")
        if fn is None:
            own_draw = hasattr(ns.get("random_action"), "py_func")
            own_rollout = hasattr(ns.get("rollout"), "py_func")
            own_solve = has_leaf_solver(ns)
            text = (
                (DRAW_OWN if own_draw else DRAW_LEGAL)
                + (ROLLOUT_OWN if own_rollout else ROLLOUT_LEGAL)
                + (SOLVE_OWN if own_solve else SOLVE_NONE)
                + MAST
                + SOURCE
            )
            path = ns["__file__"]
            _stale_mark(path, Path(path).stem, text)
            try:
                lines = Path(path).read_text(encoding="utf-8").count("\n") + 1
            except OSError:
                lines = 100_000
            code = compile("\n" * (lines + 2000) + text, path, "exec")  # past the module's and the stepper's lines
            ns.setdefault("rand_below", rand_below)
            ns.setdefault("TERMINAL", TERMINAL)
            ns.setdefault("math", math)
            exec(code, ns)  # a fixed source (this module's), compiled into the game's contract module
            fn = ns["tree_simulate"]
        _KERNELS[module_name] = fn
        return fn


class Tree:
    """The arrays of one search tree (row 0 the first root), grown by doubling when full.

    ``n`` (``int64``) visits, ``w`` (``float64``) the total return of ``mover`` (``int32``: the player
    who moved into the node, −1 at the first root), ``action`` (``int64``) the action from the parent,
    ``child``/``sib`` (``int32``) the first child and the next sibling (−1: none), ``nchild`` (``int32``),
    ``nlegal`` (``int32``, −1 until counted), ``pv`` (``float64``) player 0's exact return where the game's
    leaf solver decided the node (:data:`SOLVED_NONE` elsewhere), ``size`` (``int64[1]``) the rows used.
    """

    def __init__(self, capacity: int = 1 << 14) -> None:
        self.n = np.zeros(capacity, np.int64)
        self.w = np.zeros(capacity, np.float64)
        self.mover = np.full(capacity, -1, np.int32)
        self.action = np.full(capacity, -1, np.int64)
        self.child = np.full(capacity, -1, np.int32)
        self.sib = np.full(capacity, -1, np.int32)
        self.nchild = np.zeros(capacity, np.int32)
        self.nlegal = np.full(capacity, -1, np.int32)
        self.pv = np.full(capacity, SOLVED_NONE, np.float64)
        self.size = np.ones(1, np.int64)

    @property
    def capacity(self) -> int:
        return int(self.n.shape[0])

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` more nodes (doubling)."""
        need = int(self.size[0]) + rows
        if need <= self.capacity:
            return
        new = self.capacity
        while new < need:
            new *= 2
        for name, fill in (
            ("n", 0),
            ("w", 0.0),
            ("mover", -1),
            ("action", -1),
            ("child", -1),
            ("sib", -1),
            ("nchild", 0),
            ("nlegal", -1),
            ("pv", SOLVED_NONE),
        ):
            old = getattr(self, name)
            grown = np.full(new, fill, old.dtype)
            grown[: old.shape[0]] = old
            setattr(self, name, grown)

    def children(self, node: int) -> list[int]:
        """The rows of ``node``'s children."""
        out = []
        ch = int(self.child[node])
        while ch >= 0:
            out.append(ch)
            ch = int(self.sib[ch])
        return out

    def find(self, node: int, action: int) -> int:
        """``node``'s child by ``action``, or −1."""
        ch = int(self.child[node])
        while ch >= 0 and int(self.action[ch]) != action:
            ch = int(self.sib[ch])
        return ch


def contract_for(state: State) -> KernelContract | None:
    """The kernel contract that can hold ``state``'s game, or ``None`` (no contract, or a dealt game whose
    contract cannot deal this state's deal)."""
    game = state.game
    try:
        contract = game.kernel_contract()
    except (NotImplementedError, ValueError):
        return None
    if contract is None:
        return None
    if contract.initial_seed is not None:  # a dealt game: a contract that deals exactly this state's deal
        seed = getattr(state, "seed", None)
        module = __import__(contract.init.py_func.__module__, fromlist=["build"])
        build = getattr(module, "build", None)
        if seed is None or build is None or "seeds" not in inspect.signature(build).parameters:
            return None
        contract = build(game, seeds=(int(seed),))
    return contract


def contract_position(contract: KernelContract, state: State) -> np.ndarray | None:
    """``state`` as the contract's position ``s`` (``int32[state_size]``): ``init``, then the state's history
    replayed through ``apply``; ``None`` when the contract deals another game, a step is refused or the
    result is not ``state`` (its player to move and legal actions differ)."""
    s = contract.new_position()
    rs = rng_state(0)
    contract.init(s, contract.tables, rs)
    if contract.initial_seed is not None and contract.initial_seed(s) != getattr(state, "seed", None):
        return None  # the contract deals another game
    for _player, action in state._history:
        if not isinstance(action, int | np.integer):
            return None
        if contract.apply(s, contract.tables, int(action), rs) == REFUSED:
            return None
    if int(contract.current(s, contract.tables)) != state.current_player():
        return None
    buf = np.zeros(max(1, contract.num_actions), np.int64)
    n = int(contract.legal(s, contract.tables, buf))
    if buf[:n].tolist() != state.legal_actions():
        return None
    return s


class CompiledSearch:
    """One game's compiled search: the tree arrays and the scratch the loop needs.

    :meth:`run` adds simulations from ``root`` (a row of :attr:`tree`) at position ``s0``; Python reads
    the tree between calls (a time budget is checked between batches of simulations).
    """

    MAX_DEPTH = 4096
    """Nodes on one simulation's path at most (deeper, the simulation rolls out from there)."""

    def __init__(self, contract: KernelContract, capacity: int = 1 << 14, mast: bool = False, solve: int = 0) -> None:
        self.contract = contract
        module = __import__(contract.init.py_func.__module__, fromlist=["init"])
        leaf = solve > 0 and has_leaf_solver(module.__dict__)
        self.solve = int(solve) if leaf else 0
        """Nodes the game's leaf solver may spend on each new leaf (0: none, or the game has no solver)."""
        size = 1 << LEAF_TABLE_BITS if leaf else 1
        keys = getattr(module, "solver_keys", None)
        self.zob = keys(contract) if leaf and keys is not None else np.zeros(1, np.uint64)
        self.tkey = np.zeros(size, np.uint64)
        self.tval = np.zeros(size, np.int32)
        self.tflag = np.zeros(size, np.int8)
        self.taux = np.zeros(size, np.int8)
        self.tmove = np.zeros(size, np.int64)
        shape = (contract.num_players, max(1, contract.num_actions)) if mast else (1, 1)
        self.msum = np.zeros(shape, np.float64)
        """MAST: each player's summed returns of the simulations in which he played each action."""
        self.mcnt = np.zeros(shape, np.float64)
        """MAST: how many simulations each player played each action in."""
        self.tr_p = np.zeros(self.MAX_DEPTH if mast else 1, np.int32)
        self.tr_a = np.zeros(self.MAX_DEPTH if mast else 1, np.int64)
        self.wbuf = np.zeros(max(1, contract.num_actions) if mast else 1, np.float64)
        self.kernel = tree_kernel(contract)
        self.tree = Tree(capacity)
        self.s = contract.new_position()
        self.buf = np.zeros(max(1, contract.num_actions), np.int64)
        self.mark = np.zeros(max(1, contract.num_actions), np.uint8)
        self.ret = np.zeros(contract.num_players, np.float64)
        self.path = np.zeros(self.MAX_DEPTH, np.int32)

    def run(
        self,
        root: int,
        s0: np.ndarray,
        rs: np.ndarray,
        sims: int,
        *,
        c: float,
        cutoff: int,
        wide: bool,
        pw_k: float,
        pw_alpha: float,
        mast: float = 0.0,
        tau: float = 0.0,
    ) -> int:
        """``sims`` simulations from node ``root`` at position ``s0`` (``int32``), drawing from ``rs``
        (``uint64[1]``); returns the simulations done (all of them: the tree grows first).  MAST rollouts (the
        search made with ``mast=True``): ``tau > 0`` Gibbs sampling at that temperature, else ``mast > 0``
        ε-greedy with that share of random actions."""
        if (mast > 0 or tau > 0) and self.mcnt.shape[1] < max(1, self.contract.num_actions):
            raise ValueError("this search keeps no MAST statistics: make it with mast=True")
        t = self.tree
        t.reserve(sims)
        return int(
            self.kernel(
                np.int64(root), s0, self.contract.tables, rs, np.int64(sims), float(c), np.int64(cutoff),
                bool(wide), float(pw_k), float(pw_alpha),
                t.n, t.w, t.mover, t.action, t.child, t.sib, t.nchild, t.nlegal, t.size,
                self.s, self.buf, self.mark, self.ret, self.path,
                float(mast), float(tau), self.msum, self.mcnt, self.tr_p, self.tr_a, self.wbuf,
                t.pv, np.int64(self.solve), self.zob, self.tkey, self.tval, self.tflag, self.taux, self.tmove,
            )
        )  # fmt: skip


class CompiledMCTSAgent(Agent):
    """UCT on the compiled tree (module docstring); level 5's options and the same decisions."""

    default_seconds = DEFAULT_SECONDS

    def __init__(
        self,
        c: float = 1.0,
        rollout_cutoff: int = -1,
        widen: str | bool = "auto",
        wide: int = 400,
        pw_k: float = 2.0,
        pw_alpha: float = 0.5,
        reuse: bool = True,
        mast: float = 0.0,
        gibbs: float = 0.0,
        solve: int = 0,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        if isinstance(solve, bool) or not isinstance(solve, int) or not 0 <= solve <= 10_000_000:
            raise ValueError(f"mcts_compiled: solve must be a number of nodes from 0 (off) to 10000000, not {solve!r}")
        self.solve = solve
        if c < 0:
            raise ValueError(f"mcts_compiled: c must be >= 0, not {c!r}")
        if isinstance(mast, bool) or not isinstance(mast, int | float) or not 0 <= mast <= 1:
            raise ValueError(f"mcts_compiled: mast must be a number from 0 (off) to 1, not {mast!r}")
        self.mast = float(mast)
        if isinstance(gibbs, bool) or not isinstance(gibbs, int | float) or not 0 <= gibbs <= 100:
            raise ValueError(f"mcts_compiled: gibbs must be a temperature from 0 (off) to 100, not {gibbs!r}")
        self.gibbs = float(gibbs)
        if isinstance(widen, bool):
            widen = "on" if widen else "off"
        if widen not in ("auto", "on", "off"):
            raise ValueError(f"mcts_compiled: widen must be 'auto', 'on' or 'off', not {widen!r}")
        if pw_k <= 0 or not 0 <= pw_alpha <= 1:
            raise ValueError(
                f"mcts_compiled: need pw_k > 0 and 0 <= pw_alpha <= 1, got pw_k={pw_k!r}, pw_alpha={pw_alpha!r}"
            )
        self.c = float(c)
        self.rollout_cutoff = int(rollout_cutoff)
        self.widen = widen
        self.wide = int(wide)
        self.pw_k = float(pw_k)
        self.pw_alpha = float(pw_alpha)
        self.reuse = bool(reuse)
        self.name = name or "mcts_compiled"
        self._search: CompiledSearch | None = None
        self._root = 0
        self._root_state: State | None = None
        self._wide = False
        self._fallback: Agent | None = None

    def reset(self) -> None:
        self._search = None
        self._root_state = None
        self.stats = {}

    def _python_tree(self) -> Agent:
        """Level 5's Python tree with these options (for positions the contract cannot hold)."""
        if self._fallback is None:
            from tessera.agents.mcts import MCTSAgent

            self._fallback = MCTSAgent(
                c=self.c, rollout_cutoff=self.rollout_cutoff, widen=self.widen, wide=self.wide,
                pw_k=self.pw_k, pw_alpha=self.pw_alpha, reuse=self.reuse,
            )  # fmt: skip
        return self._fallback

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        """At a simultaneous node: level 5's decoupled UCT (the contract steps one decision at a time)."""
        inner = self._python_tree()
        order = inner._choose_order(state, player, budget, rng)
        self.stats = {**inner.stats, "compiled": False}
        return order

    def _reused_root(self, state: State, s0: np.ndarray) -> int:
        """The row of the stored tree for ``state`` (its history extends the stored root's), or −1."""
        search, old = self._search, self._root_state
        if not self.reuse or search is None or old is None or old.game != state.game:
            return -1
        if getattr(old, "seed", None) != getattr(state, "seed", None):  # another deal
            return -1
        h_old, h_new = old._history, state._history
        if len(h_new) < len(h_old) or h_new[: len(h_old)] != h_old:
            return -1
        node = self._root
        for _, a in h_new[len(h_old) :]:
            node = search.tree.find(node, int(a))
            if node < 0:
                return -1
        return node

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            self.stats = {"iterations": 0, "seconds": 0.0, "reused": 0, "compiled": True}
            self.reset()
            return actions[0]
        contract = contract_for(state)
        s0 = None if contract is None else contract_position(contract, state)
        if contract is None or s0 is None:
            inner = self._python_tree()
            out = inner._choose(state, budget, rng)
            self.stats = {**inner.stats, "compiled": False}
            return out
        root = self._reused_root(state, s0) if self._search is not None else -1
        if root < 0 or self._search is None:
            self._search = CompiledSearch(contract, mast=self.mast > 0 or self.gibbs > 0, solve=self.solve)
            self._wide = self.widen == "on" or (self.widen == "auto" and len(actions) > self.wide)
            root = 0
        search = self._search
        tree = search.tree
        if tree.size[0] > 1 << 20:  # a reused tree past ~1M rows (44 bytes each): start afresh
            search.tree = tree = Tree()
            root = 0
        if root != 0:
            tree.mover[root] = -1  # the new root's own value is never read
        reused = int(tree.n[root])
        rs = rng_state(rng.getrandbits(63))
        done = 0
        batch = 16
        opts = {
            "c": self.c,
            "cutoff": self.rollout_cutoff,
            "wide": self._wide,
            "pw_k": self.pw_k,
            "pw_alpha": self.pw_alpha,
            "mast": self.mast,
            "tau": self.gibbs,
        }
        while done == 0 or not budget.exhausted(done):
            n = batch if budget.iterations is None else min(batch, budget.iterations - done)
            t0 = budget.elapsed()
            done += search.run(root, s0, rs, n, **opts)
            dt = budget.elapsed() - t0
            if budget.deadline is not None:  # batches of about 5 ms, or a tenth of the time left
                left = max(0.0, budget.deadline - budget.start - budget.elapsed())
                target = min(0.005, left / 10) if left > 0 else 0.0
                per = dt / n if dt > 0 else 1e-6
                batch = max(1, min(1 << 16, int(target / per))) if target > 0 else 1
            else:
                batch = min(batch * 2, 1 << 16)
        kids = tree.children(root)
        if not kids:
            self.reset()
            return state.random_action(rng)
        best = max(kids, key=lambda ch: (int(tree.n[ch]), float(tree.w[ch]) / max(1, int(tree.n[ch]))))
        best_a = int(tree.action[best])
        self.stats = {
            "iterations": done,
            "seconds": budget.elapsed(),
            "reused": reused,
            "root_visits": int(tree.n[root]),
            "children": len(kids),
            "value": float(tree.w[best]) / max(1, int(tree.n[best])),
            "nodes": int(tree.size[0]),
            "compiled": True,
        }
        if search.solve:
            self.stats["solved"] = int(np.count_nonzero(tree.pv[: int(tree.size[0])] < 5.0))
        if self.reuse:
            self._root, self._root_state = root, state.clone()
        else:
            self._search, self._root_state = None, None
        return best_a


__all__ = ["SOURCE", "CompiledMCTSAgent", "CompiledSearch", "Tree", "contract_for", "contract_position", "tree_kernel"]
