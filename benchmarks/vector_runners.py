"""The runners the vector benchmarks share (``vector_bench.py``, ``vector_targets.py``): tessera's vector
engine, and pgx here or in a worker process of another interpreter.

* :func:`tessera_vector` — ``batch`` games of a tessera game in one format (``obs_dtype``, ``actions``),
  one random legal decision per game drawn from the mask (``random_legal``) inside the timed loop, then
  ``env.step``; its runner returns ``[decisions, moves]`` per CPU second.

* :func:`pgx_env` — ``batch`` games of pgx's ``name`` (``hex``, ``go_9x9``, ``chess``, ``othello`` …)
  stepped by a jitted ``lax.scan`` of 8 steps of ``vmap(auto_reset(step))``, each action drawn by
  ``pgx.experimental.act_randomly`` from ``state.legal_action_mask``; the observation and the mask are
  made ready after each chunk (``block_until_ready``).  Returns a runner: given CPU seconds, it steps
  about that long and returns ``[steps per CPU second]`` (CPU time of the process, JAX's threads
  included).
* :class:`RemotePgx` — the same runners served by this file run as a worker
  (``PYTHON benchmarks/pgx_runner.py``) by another interpreter: pgx and JAX are no dependencies of
  tessera, so they live in a scratch venv (``python3 -m venv PGXENV && PGXENV/bin/pip install pgx jax``,
  PGXENV any directory outside the repository).  The worker needs only pgx, JAX and numpy.
* :func:`pgx_runners` — the pgx runners of a run: in that worker, else here when pgx imports, else none
  (with the message saying so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

Timed = Callable[[float], list[float]]
"""Runs for about the given CPU seconds; returns rates per CPU second (the first is the main one)."""


def timed(chunk: Callable[[], tuple[int, ...]], seconds: float) -> list[float]:
    """Call ``chunk`` (it returns counts of work done) until ``seconds`` of CPU time; the counts per CPU second."""
    totals: list[int] = []
    t0 = time.process_time()
    while True:
        got = chunk()
        totals = [a + b for a, b in zip(totals, got, strict=True)] if totals else list(got)
        dt = time.process_time() - t0
        if dt >= seconds:
            return [x / dt for x in totals]


def tessera_vector(spec: str, batch: int, obs_dtype: str = "uint8", actions: str = "flat") -> Timed:
    """The runner of ``batch`` games of ``spec`` (compiled and warmed up): ``[decisions, moves]`` per CPU
    second (a move is one decision with ``actions="flat"``)."""
    import numpy as np

    from tessera.core.kernels import rng_state
    from tessera.vector import make, random_legal

    env = make(spec, batch=batch, seed=0, obs_dtype=obs_dtype, actions=actions)
    state = {"batch": env.reset()}
    rs = rng_state(1)
    acts = np.empty(batch, np.int64)
    reps = max(1, 256 // batch)
    moves = env.last_moves

    def chunk() -> tuple[int, int]:
        bt = state["batch"]
        done = 0
        for _ in range(reps):
            random_legal(bt.mask, rs, acts)
            bt = env.step(acts)
            done += int(np.count_nonzero(moves >= 0))
        state["batch"] = bt
        return reps * batch, done

    chunk()  # compile (numba's cache) and warm up
    return lambda seconds: timed(chunk, seconds)


def pgx_env(name: str, batch: int) -> Timed:
    """The runner of ``batch`` pgx ``name`` games (compiled and warmed up before it is returned)."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import act_randomly, auto_reset

    env = pgx.make(name)
    step = jax.vmap(auto_reset(env.step, env.init))
    length = 8

    def body(carry: Any, _: Any) -> tuple[Any, None]:
        st, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, st.legal_action_mask)
        st = step(st, action, jax.random.split(k_step, batch))
        return (st, key), None

    @jax.jit
    def run(st: Any, key: Any) -> Any:
        (st, key), _ = jax.lax.scan(body, (st, key), None, length=length)
        return st, key

    key = jax.random.PRNGKey(0)
    st = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    state = {"st": st, "key": key}

    def chunk() -> tuple[int]:
        st, key = run(state["st"], state["key"])
        jnp.asarray(st.observation).block_until_ready()
        st.legal_action_mask.block_until_ready()
        state["st"], state["key"] = st, key
        return (length * batch,)

    chunk()
    return lambda seconds: timed(chunk, seconds)


def worker() -> None:
    """Serve measurements (``{"env", "batch", "seconds"}`` JSON lines on stdin, the rates as a JSON line)."""
    runners: dict[tuple[str, int], Timed] = {}
    for line in sys.stdin:
        req = json.loads(line)
        key = (req["env"], int(req["batch"]))
        if key not in runners:
            runners[key] = pgx_env(*key)
        print(json.dumps(runners[key](float(req["seconds"]))), flush=True)


class RemotePgx:
    """pgx measured by a worker process of interpreter ``python`` (this file), one request at a time."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, JAX_PLATFORMS="cpu"),
        )

    def runner(self, name: str, batch: int) -> Timed:
        """The worker's runner of ``batch`` pgx ``name`` games (compiled before it is returned);
        ``RuntimeError`` if the worker stops."""

        def run(seconds: float) -> list[float]:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps({"env": name, "batch": batch, "seconds": seconds}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the pgx worker stopped (pgx {name}, B = {batch})")
            return list(json.loads(line))

        run(0.05)  # compile outside the rounds
        return run

    def close(self) -> None:
        """End the worker (it ends when its input closes)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def pgx_runners(
    names: list[str], batches: list[int], python: str | None
) -> tuple[dict[tuple[str, int], Timed], RemotePgx | None, str]:
    """Runners for every ``(name, batch)``: in the worker of ``python`` when given, else here if pgx imports;
    with the worker (to close) and a note saying why the pgx figures are skipped (``""`` if they are not)."""
    if python:
        remote = RemotePgx(python)
        return {(n, b): remote.runner(n, b) for n in names for b in batches}, remote, ""
    try:
        import pgx  # noqa: F401
    except ImportError:
        return {}, None, "pgx is not installed here and no --pgx-python was given: the pgx figures are skipped"
    return {(n, b): pgx_env(n, b) for n in names for b in batches}, None, ""


if __name__ == "__main__":
    worker()
