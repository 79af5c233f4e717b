"""``tessera serve``: run the web app (registered into the main CLI by ``register``)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``serve`` command to the ``tessera`` CLI."""
    p = subparsers.add_parser(
        "serve",
        help="run the web app: play in a browser (hot-seat, against the AI, online)",
        description=(
            "Serve the web app. The database is TESSERA_DATABASE_URL or --db (SQLite or PostgreSQL, "
            "e.g. postgresql+psycopg://user:pw@host/db); by default an SQLite file "
            "$XDG_DATA_HOME/tessera/tessera.db (~/.local/share/tessera/tessera.db)."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--db", default=None, help="database URL (overrides TESSERA_DATABASE_URL)")
    p.add_argument(
        "--ai-seconds", type=float, default=None, help="cap on the AI's thinking time per move (default: per level)"
    )
    p.add_argument("--ai-threads", action="store_true", help="think in a thread instead of a worker process")
    p.add_argument(
        "--max-sockets-per-client",
        type=int,
        default=None,
        help="open WebSockets one client address may hold (default 50; raise it behind a proxy or for load tests)",
    )
    p.add_argument("--metrics", action="store_true", help="serve Prometheus metrics at /metrics (docs/deploy.md)")
    p.add_argument(
        "--ai-processes", type=int, default=None, help="AI worker processes (default: one per core, at least 2)"
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=None,
        help="seconds a connection may take to send a request's head (default 10; 0: no limit)",
    )
    p.add_argument(
        "--max-connections-per-address",
        type=int,
        default=None,
        help="open connections one address may hold (default 200; 0: no limit; raise it behind a proxy)",
    )
    p.add_argument(
        "--limit-concurrency",
        type=int,
        default=None,
        help="connections and requests at once before new ones are answered 503 (default 2000)",
    )
    p.add_argument("--log-level", default="info", help="debug, info, warning or error (default info)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port and the database (more than 1 needs PostgreSQL; docs/deploy.md)",
    )
    p.set_defaults(func=serve)
    register_admin(subparsers)


def register_admin(subparsers: Any) -> None:
    """Add ``tessera admin`` (an operator's commands on the database) to the CLI."""
    admin = subparsers.add_parser(
        "admin", help="operate a server's database: back up, restore, admins, engine signals (docs/deploy.md)"
    )
    verbs = admin.add_subparsers(dest="admin_command", metavar="COMMAND", required=True)
    db_help = "database URL (default TESSERA_DATABASE_URL, else the default SQLite file)"
    p = verbs.add_parser(
        "backup",
        help="copy the database to FILE while the server runs (SQLite's backup API, pg_dump)",
        description="Write a consistent copy of the database to FILE (a new file); the server may keep running.",
    )
    p.add_argument("file", help="the backup file to write")
    p.add_argument("--db", default=None, help=db_help)
    p.set_defaults(func=admin_backup)
    p = verbs.add_parser(
        "restore",
        help="load a backup FILE into a new, empty database (pg_restore for PostgreSQL)",
        description="Load FILE into an empty database: a new SQLite file, or a database made by createdb.",
    )
    p.add_argument("file", help="the backup file to read")
    p.add_argument("--db", default=None, help=db_help)
    p.set_defaults(func=admin_restore)
    for verb, what in (("grant", "give NAME the admin role (the moderation page /mod)"), ("revoke", "take it back")):
        p = verbs.add_parser(verb, help=what, description=f"{what[0].upper()}{what[1:]} (docs/moderation.md).")
        p.add_argument("name", help="the account's name")
        p.add_argument("--db", default=None, help=db_help)
        p.set_defaults(func=admin_role, grant=verb == "grant")
    p = verbs.add_parser(
        "engine-signal",
        help="compute the engine-use signal of accounts, for the moderators to review (docs/moderation.md)",
        description="Count how often each account's moves in its rated games are the top move of a fixed-budget "
        "search; stored and shown on the moderation page beside the distribution among ordinary players.",
    )
    p.add_argument("names", nargs="*", help="the accounts (default: every account with a finished rated game)")
    p.add_argument("--iterations", type=int, default=None, help="the search's budget per position (default 200)")
    p.add_argument("--db", default=None, help=db_help)
    p.set_defaults(func=admin_engine_signal)


def _admin_url(args: argparse.Namespace) -> str:
    from tessera.server.store.storage import default_database_url

    return str(args.db or os.environ.get("TESSERA_DATABASE_URL") or default_database_url())


def admin_backup(args: argparse.Namespace) -> int:
    """``tessera admin backup FILE``."""
    from tessera.server.store.backup import BackupError, backup

    url = _admin_url(args)
    try:
        made = backup(url, args.file)
    except BackupError as e:
        print(f"tessera admin backup: {e}", file=sys.stderr)
        return 2
    print(f"tessera: backed up {_safe(url)} to {made.path} ({made.kind}, {made.size:,} bytes)")
    return 0


def admin_restore(args: argparse.Namespace) -> int:
    """``tessera admin restore FILE``."""
    from tessera.server.store.backup import BackupError, restore

    url = _admin_url(args)
    try:
        made = restore(args.file, url)
    except BackupError as e:
        print(f"tessera admin restore: {e}", file=sys.stderr)
        return 2
    print(
        f"tessera: restored {made.path} into {_safe(url)} ({made.kind}); start the server on it to upgrade its schema"
    )
    return 0


def admin_role(args: argparse.Namespace) -> int:
    """``tessera admin grant NAME`` / ``tessera admin revoke NAME``."""
    from tessera.server.accounts.store import AccountStore
    from tessera.server.moderation.store import ModerationStore
    from tessera.server.store.storage import Storage

    storage = Storage(_admin_url(args))
    try:
        user = AccountStore(storage).user(args.name)
        if user is None:
            print(f"tessera admin: there is no account named {args.name!r}", file=sys.stderr)
            return 2
        changed = ModerationStore(storage).set_admin(user, args.grant)
    finally:
        storage.dispose()
    role = "is an admin" if args.grant else "is not an admin"
    print(f"tessera: {user.username} {role}{'' if changed else ' (unchanged)'}")
    return 0


def admin_engine_signal(args: argparse.Namespace) -> int:
    """``tessera admin engine-signal [NAME ...]``."""
    from tessera.server.accounts.queries import rated_players
    from tessera.server.accounts.store import AccountStore
    from tessera.server.moderation import signal
    from tessera.server.moderation.store import ModerationStore
    from tessera.server.store.storage import Storage

    iterations = signal.ITERATIONS if args.iterations is None else args.iterations
    if iterations < 1:
        print("tessera admin engine-signal: --iterations must be at least 1", file=sys.stderr)
        return 2
    storage = Storage(_admin_url(args))
    try:
        accounts = AccountStore(storage)
        if args.names:
            users = []
            for name in args.names:
                u = accounts.user(name, deleted=True)
                if u is None:
                    print(f"tessera admin engine-signal: there is no account named {name!r}", file=sys.stderr)
                    return 2
                users.append(u)
        else:
            with storage.transaction() as tx:
                ids = rated_players(tx)
            users = [x for x in (accounts.user_by_id(i) for i in sorted(ids)) if x is not None]
        mod = ModerationStore(storage)
        for user in users:
            got = signal.compute(storage, user.id, iterations=iterations)
            mod.save_signal(user.id, got.moves, got.matches, got.games, got.iterations)
            print(f"{user.username}: {got.matches}/{got.moves} moves match ({got.share:.1%}) in {got.games} games")
        dist = mod.distribution()
        dist.pop("_shares")
        print(f"ordinary players: {dist}")
    finally:
        storage.dispose()
    return 0


def serve(args: argparse.Namespace) -> int:
    """Run uvicorn until interrupted."""
    import socket

    import uvicorn

    from tessera.server.http import logs
    from tessera.server.http.app import create_app
    from tessera.server.store.storage import default_database_url

    logs.configure(args.log_level)
    os.environ["TESSERA_LOG_LEVEL"] = args.log_level
    url = args.db or os.environ.get("TESSERA_DATABASE_URL") or default_database_url()
    _guard(args)
    if args.workers != 1:
        return _serve_workers(args, url)
    try:
        extra = {} if args.max_sockets_per_client is None else {"sockets_per_client": args.max_sockets_per_client}
        app = create_app(
            url,
            ai_mode="thread" if args.ai_threads else "process",
            ai_seconds=args.ai_seconds,
            ai_processes=args.ai_processes,
            metrics=args.metrics,
            **extra,
        )
    except Exception as e:
        print(f"tessera serve: cannot open the database {url!r}: {e}", file=sys.stderr)
        return 2
    port = args.port
    sock = None
    if port == 0:
        sock = socket.socket()
        sock.bind((args.host, 0))
        port = sock.getsockname()[1]
        sock.close()
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"tessera: serving on http://{shown}:{port}/  (database: {_safe(url)})", flush=True)
    uvicorn.run(app, host=args.host, port=port, log_config=None, **uvicorn_limits(args))
    return 0


WS_MAX_SIZE = 64 * 1024
"""The largest WebSocket frame read (a game message is at most 10,000 characters): uvicorn refuses a
larger frame from its header, before reading it."""

H11_MAX_INCOMPLETE = 16 * 1024
"""The largest request head (request line and headers) buffered."""

KEEP_ALIVE = 5
"""Seconds an idle keep-alive connection stays open."""

LIMIT_CONCURRENCY = 2000
"""Connections and tasks at once beyond which uvicorn answers 503 (keep it under the descriptor limit)."""

SHUTDOWN_GRACE = 5.0
"""Seconds a stopping server waits for open requests before it cancels them.  Event and game streams
never end by themselves (their clients open them again on another process), so without a bound a
stop waits for ever; ``TESSERA_SHUTDOWN_GRACE`` sets it (the tests use a shorter one)."""


def shutdown_grace() -> float:
    """:data:`SHUTDOWN_GRACE`, or ``TESSERA_SHUTDOWN_GRACE`` seconds when set.

    Raises ValueError when the variable is not a non-negative number."""
    raw = os.environ.get("TESSERA_SHUTDOWN_GRACE")
    if raw is None or raw == "":
        return SHUTDOWN_GRACE
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"TESSERA_SHUTDOWN_GRACE must be a number of seconds, not {raw!r}") from None
    if not value >= 0:
        raise ValueError(f"TESSERA_SHUTDOWN_GRACE must be 0 or more seconds, not {raw!r}")
    return value


def uvicorn_limits(args: argparse.Namespace) -> dict[str, Any]:
    """uvicorn's settings that drop slow or greedy clients (docs/deploy.md)."""
    from tessera.server.http.protocol import GuardedHTTP

    return {
        "http": GuardedHTTP,
        "timeout_keep_alive": KEEP_ALIVE,
        "h11_max_incomplete_event_size": H11_MAX_INCOMPLETE,
        "ws_max_size": WS_MAX_SIZE,
        "limit_concurrency": args.limit_concurrency or LIMIT_CONCURRENCY,
        "timeout_graceful_shutdown": shutdown_grace(),
        "log_level": args.log_level.lower(),
    }


def _guard(args: argparse.Namespace) -> None:
    """Set the connection limits of :class:`tessera.server.http.protocol.GuardedHTTP` from the options."""
    from tessera.server.http import protocol

    if args.header_timeout is not None:
        protocol.GuardedHTTP.header_timeout = args.header_timeout
        os.environ["TESSERA_HEADER_TIMEOUT"] = str(args.header_timeout)
    if args.max_connections_per_address is not None:
        protocol.GuardedHTTP.max_per_address = args.max_connections_per_address
        os.environ["TESSERA_CONNECTIONS_PER_ADDRESS"] = str(args.max_connections_per_address)


def _serve_workers(args: argparse.Namespace, url: str) -> int:
    """``--workers N``: N uvicorn worker processes, each with its own app, on one PostgreSQL database."""
    import uvicorn

    from tessera.server.store.storage import Storage

    if not 1 <= args.workers <= 64:
        print(f"tessera serve: --workers {args.workers} is not accepted: expected 1 to 64", file=sys.stderr)
        return 2
    if url.startswith("sqlite"):
        print(
            "tessera serve: --workers needs a PostgreSQL database (--db postgresql+psycopg://…): processes on one "
            "SQLite file cannot tell each other's WebSocket viewers about moves (docs/deploy.md)",
            file=sys.stderr,
        )
        return 2
    try:
        Storage(url).dispose()  # the schema is brought up to date once, before the workers start
    except Exception as e:
        print(f"tessera serve: cannot open the database {url!r}: {e}", file=sys.stderr)
        return 2
    os.environ["TESSERA_DATABASE_URL"] = url
    os.environ["TESSERA_AI_MODE"] = "thread" if args.ai_threads else "process"
    if args.ai_seconds is not None:
        os.environ["TESSERA_AI_SECONDS"] = str(args.ai_seconds)
    if args.max_sockets_per_client is not None:
        os.environ["TESSERA_SOCKETS_PER_CLIENT"] = str(args.max_sockets_per_client)
    if args.metrics:
        os.environ["TESSERA_METRICS"] = "1"
        if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # the processes' figures, summed by /metrics
            import tempfile

            os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="tessera-metrics-")
    if args.ai_processes is not None:
        os.environ["TESSERA_AI_PROCESSES"] = str(args.ai_processes)
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"tessera: serving on http://{shown}:{args.port}/ with {args.workers} processes (database: {_safe(url)})")
    sys.stdout.flush()
    try:
        uvicorn.run(
            "tessera.server.http.app:app_from_env",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_config=None,
            **uvicorn_limits(args),
        )
    finally:
        shared = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
        if args.metrics and os.path.basename(shared).startswith("tessera-metrics-"):
            import shutil

            shutil.rmtree(shared, ignore_errors=True)
    return 0


def _safe(url: str) -> str:
    """The URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        user = cred.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url
