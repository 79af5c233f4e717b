"""The full crash drill (issue 35): a real ``tessera serve`` process killed with ``SIGKILL`` in the
middle of each multi-step write — challenge accept, seek pairing, a rated game's end and rating —
``--kills`` times per operation, on SQLite and on PostgreSQL (a throwaway cluster, or
``TESSERA_TEST_POSTGRES_URL``), restarted each time and its invariants checked
(tests/server/crash_drill.py).  Prints one line per operation and database; exits 1 on a violation.

    python benchmarks/fault_drill.py                 # 30 kills per operation, both databases
    python benchmarks/fault_drill.py --kills 5 --db sqlite --seed 7
"""

from __future__ import annotations

import argparse
import contextlib
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=30, help="kills per operation and database (default 30)")
    ap.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--op", choices=OPERATIONS, action="append", help="only these operations (repeatable)")
    ap.add_argument("--logs", type=Path, default=None, help="keep the servers' logs in this folder")
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
                for i, op in enumerate(ops):
                    url = fresh_postgres(pg) if db == "postgres" else f"sqlite:///{Path(tmp) / f'{op}.db'}"
                    t0 = time.monotonic()
                    logs = args.logs or Path(tmp)
                    logs.mkdir(parents=True, exist_ok=True)
                    d = Drill(url, op, args.seed + i, logs / f"{db}-{op}.log").run(args.kills)
                    seconds = time.monotonic() - t0
                    print(
                        f"{db:10} {op:10} {d.kills:5d} {d.acknowledged:6d} {d.cut:5d} {len(d.violations):10d} "
                        f"{seconds:8.0f}",
                        flush=True,
                    )
                    for v in d.violations:
                        print("   ", v)
                    failed += len(d.violations)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
