"""The crash-fault suite (issue 35, marker ``faults``): a real server killed with ``SIGKILL`` in the
middle of its multi-step writes — challenge accept, seek pairing, a rated game's end and rating,
account deletion, token revocation, rematch, a four-seat challenge's accepts, tournament pairing —
then started again on the same database; :mod:`tests.server.crash_drill` checks that nothing is
half-made, nothing stuck, every acknowledged action kept, and every seat token opens its own seat.

A small seeded sample runs here: on each database one kill cuts through every operation at once
(two server starts per database); ``python benchmarks/fault_drill.py`` runs the full drill.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.server.crash_drill import OPERATIONS, Drill, kill, start

pytestmark = pytest.mark.faults

KILLS = 1
"""Kills in the suite's sample, per database (each cuts through every operation)."""


def test_a_server_killed_mid_write_leaves_nothing_half_made_stuck_or_lost(db_url: str) -> None:
    """'for every multi-step write — challenge accept, seek pairing, rematch, tournament pairing,
    game end + rating, account deletion, token revocation — kill -9 at random points, restart, and
    check the invariants: nothing half-made, nothing stuck, every acknowledged action kept, nobody
    able to reach a seat that is not theirs' (the kill point drawn from the seed)."""
    drill = Drill(db_url, OPERATIONS, seed=35).run(KILLS)
    assert drill.kills == KILLS
    assert set(drill.per_op) == set(OPERATIONS)
    assert not drill.violations, "\n".join(drill.violations)


def children_of(pid: int) -> set[int]:
    """Every live descendant of process ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat[0] != "Z":
            parents[int(entry.name)] = int(stat[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
def test_ai_worker_processes_and_their_resource_tracker_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    """'AI worker processes (and multiprocessing's resource tracker) exit when their parent server
    dies (kill -9)': a server with its worker pool started is killed; within seconds none of the
    processes it started is left."""
    server = start(f"sqlite:///{tmp_path / 'w.db'}", ai_processes=True)
    try:
        deadline = time.time() + 120
        while len(children_of(server.proc.pid)) < 2:  # the warm-up starts the pool's processes
            assert time.time() < deadline, "the AI worker processes did not start"
            time.sleep(0.5)
        time.sleep(1.0)
        children = children_of(server.proc.pid)
        assert httpx.get(server.base + "/api/games?status=all").status_code == 200
    finally:
        kill(server)
    deadline = time.time() + 15
    while any(alive(p) for p in children) and time.time() < deadline:
        time.sleep(0.2)
    left = [p for p in children if alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"{len(left)} of the {len(children)} processes the killed server started are still running"
