"""The full crash drill (issue 35): a real ``tessera serve`` process killed with ``SIGKILL`` in the
middle of each multi-step write — challenge accept, seek pairing, a rated game's end and rating,
account deletion, token revocation, rematch, a four-seat challenge's accepts, tournament pairing —
``--kills`` times per operation, on SQLite and on PostgreSQL (a throwaway cluster, or
``TESSERA_TEST_POSTGRES_URL``), restarted each time and its invariants checked
(tests/server/crash_drill.py).  By default every kill cuts through all the operations at once
(their writes sent together: ``--kills`` kills per operation for ``--kills`` restarts);
``--apart`` drills each operation alone (a restart per kill and operation: eight times longer).
Prints one line per operation and database; exits 1 on a violation.

    python benchmarks/fault_drill.py                 # 30 kills per operation, both databases
    python benchmarks/fault_drill.py --kills 5 --db sqlite --seed 7
    python benchmarks/fault_drill.py --apart --op tournament --kills 30
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.crash_drill import OPERATIONS, Drill  # noqa: E402
from tests.server.pg import postgres_cluster  # noqa: E402


def fresh_postgres(base: str) -> str:
    import sqlalchemy as sa

    name = "drill_" + uuid.uuid4().hex[:10]
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return base.rsplit("/", 1)[0] + "/" + name


def progress(d: Drill) -> None:
    """One line per kill: the tallies so far (acknowledged/cut per operation, violations)."""
    tallies = " ".join(f"{op} {a}/{c}" for op, (a, c) in d.per_op.items())
    print(f"  kill {d.kills}: {tallies}; seeks paired {d.paired}; violations {len(d.violations)}", flush=True)
    for v in d.violations[PRINTED.get(id(d), 0) :]:
        print("     ", v, flush=True)
    PRINTED[id(d)] = len(d.violations)


PRINTED: dict[int, int] = {}
"""Violations printed so far, per drill."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=30, help="kills per operation and database (default 30)")
    ap.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--op", choices=OPERATIONS, action="append", help="only these operations (repeatable)")
    ap.add_argument("--logs", type=Path, default=None, help="keep the servers' logs in this folder")
    ap.add_argument("--apart", action="store_true", help="one operation per kill (a restart each)")
    args = ap.parse_args()
    ops = args.op or list(OPERATIONS)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tessera-drill-") as tmp:
        dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
        print(
            f"{'database':10} {'operation':10} {'kills':>5} {'acked':>6} {'cut':>5} {'violations':>10} {'seconds':>8}"
        )
        for db in dbs:
            with postgres_cluster() if db == "postgres" else contextlib.nullcontext("") as pg:
                groups = [(op,) for op in ops] if args.apart else [tuple(ops)]
                for i, group in enumerate(groups):
                    name = group[0] if len(group) == 1 else "all"
                    url = fresh_postgres(pg) if db == "postgres" else f"sqlite:///{Path(tmp) / f'{name}.db'}"
                    t0 = time.monotonic()
                    logs = args.logs or Path(tmp)
                    logs.mkdir(parents=True, exist_ok=True)
                    d = Drill(url, group, args.seed + i, logs / f"{db}-{name}.log", progress=progress).run(args.kills)
                    seconds = time.monotonic() - t0
                    for op in group:
                        acked, cut = d.per_op.get(op, [0, 0])
                        if op == "seek":
                            acked = d.paired
                        bad = "-" if len(group) > 1 else str(len(d.violations))
                        print(f"{db:10} {op:10} {d.kills:5d} {acked:6d} {cut:5d} {bad:>10} {seconds:8.0f}", flush=True)
                    if len(group) > 1:
                        print(f"{db:10} {'(all)':10} {d.kills:5d} {'':6} {'':5} {len(d.violations):10d}", flush=True)
                    for v in d.violations:
                        print("   ", v)
                    failed += len(d.violations)
                    print(
                        f"{db:10} {'(seconds)':10} " + " ".join(f"{k} {v:.0f}" for k, v in d.seconds.items()),
                        flush=True,
                    )
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        print(f"machine: {platform.node()} {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; {when}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
