"""A throwaway PostgreSQL cluster for tests (or ``TESSERA_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _bindir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    exe = shutil.which("initdb")
    return os.path.dirname(exe) if exe else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


CLUSTERS: dict[int, Callable[[str], object]] = {}
"""``pg_ctl stop`` / ``start`` of each cluster started here, by port (to restart one under a running server)."""


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start ``initdb`` + ``pg_ctl`` in a temp dir on a free port; yield a SQLAlchemy URL; stop it."""
    url = os.environ.get("TESSERA_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    bindir = _bindir()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL's initdb was not found (apt-get install postgresql)")
    root = tempfile.mkdtemp(prefix="tessera-pg-")
    os.chmod(root, 0o777)
    data = os.path.join(root, "data")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    run = lambda *args: subprocess.run(  # noqa: E731
        [*prefix, *args], check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        run(f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "tessera", "--no-sync", "-E", "UTF8")
        run(
            f"{bindir}/pg_ctl",
            "-D",
            data,
            "-w",
            "-t",
            "60",
            "-l",
            os.path.join(root, "log"),
            "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )
    except subprocess.CalledProcessError as e:
        log = os.path.join(root, "log")
        extra = ""
        if os.path.exists(log):
            with open(log) as f:
                extra = f.read()
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {e.stdout}\n{extra}") from e
    url = f"postgresql+psycopg://tessera@127.0.0.1:{port}/postgres"
    options = ["-l", os.path.join(root, "log"), "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"]
    CLUSTERS[port] = lambda action: run(
        f"{bindir}/pg_ctl", "-D", data, "-w", "-t", "60", *(["-m", "fast"] if action == "stop" else options), action
    )
    try:
        yield url
    finally:
        CLUSTERS.pop(port, None)
        subprocess.run([*prefix, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
