"""Faults the server must survive (issue 29): a search that never ends, storage that turns read-only
or full, and a PostgreSQL restart under a running server.

- 'an AI search or analysis in the worker pool that runs past its budget (plus grace) is
  terminated (the worker process killed and replaced), the client told, the pool healthy afterwards'
- 'storage that is unavailable, full or read-only answers 503 JSON with Retry-After (never a plain
  500)'; 'nothing acknowledged is lost'; the server recovers by itself when storage comes back.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tessera.server.scheduler import AI, ANALYSIS, FairPool, SearchTimeout


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_search_past_its_budget_is_stopped_its_process_replaced_and_the_pool_goes_on() -> None:
    """'An AI search … that runs past its budget (plus grace) is terminated (the worker process killed
    and replaced), the client told, the pool healthy afterwards.'"""
    pool = FairPool(mode="process", size=2, per_client=1, grace=0.5)
    try:
        before = {pool.submit(f"probe{i}", AI, os.getpid).result(60) for i in range(4)}
        stuck = pool.submit("flooder", ANALYSIS, time.sleep, 3600, budget=0.5)
        time.sleep(0.3)  # the stuck search holds one process; a bystander's search takes the other
        bystander = pool.submit("bystander", AI, time.sleep, 2.0)
        with pytest.raises(SearchTimeout, match="ran past its time"):
            stuck.result(60)
        assert pool.stopped == 1
        assert bystander.result(60) is None, "the bystander's search, running when the processes were killed, ran again"
        after = {pool.submit(f"again{i}", AI, os.getpid).result(60) for i in range(4)}
        assert not after & before, "the worker processes were replaced"
        assert not any(alive(pid) for pid in before), "the killed worker processes are gone"
        assert pool.running() == 0 and pool.queued() == 0
        assert pool.submit("flooder", ANALYSIS, sum, [1, 2, 3]).result(60) == 6, "the stopped client may search again"
    finally:
        pool.close()


def test_a_search_within_its_budget_and_grace_is_never_stopped() -> None:
    """Only searches past budget + grace are stopped: one that finishes in time keeps its result."""
    pool = FairPool(mode="process", size=2, grace=1.0)
    try:
        assert pool.submit("c", AI, time.sleep, 0.6, budget=0.5).result(60) is None
        assert pool.stopped == 0
    finally:
        pool.close()
