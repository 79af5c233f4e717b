"""The FastAPI application: JSON API (docs/http-api.md), WebSocket, and the static web client.

``create_app(database_url)`` assembles the pieces and nothing else: storage → match service
(tessera.server.match.service) → the event interface (tessera.server.events) to which the hub, the
AI worker and the clock timers subscribe; the routers, one per resource (tessera.server.http.routes);
the kernel warm-up (tessera.server.ai.warmup).  Endpoints are plain functions run in the thread pool
(storage is synchronous), except the move: the move pipeline runs on the event loop and only
what must wait goes to a thread.  Views are answered as ``FastJSONResponse`` (encoded once by
orjson).  Every refusal is a 4xx with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket, WebSocketState

import tessera
from tessera.server.accounts.live import install as install_accounts
from tessera.server.accounts.live import repair_at_start
from tessera.server.accounts.rematch import install as install_rematch
from tessera.server.accounts.routes import router as accounts_router
from tessera.server.accounts.security import Refused
from tessera.server.ai.scheduler import FairPool, PoolBusy, SearchTimeout
from tessera.server.ai.warmup import Warmup
from tessera.server.ai.worker import AIWorker
from tessera.server.bot.guard import BotGuard, BotLimits
from tessera.server.bot.lichess_routes import router as lichess_router
from tessera.server.bot.routes import router as bot_router
from tessera.server.bot.streams import BotStreams
from tessera.server.catalog import lessons as lesson_routes
from tessera.server.catalog.routes import catalog, rules_text
from tessera.server.chat.rooms import Chat
from tessera.server.design.routes import router as design_router
from tessera.server.design.studies import DesignStudies
from tessera.server.events import AccountChanged, Changed, ChatPosted, Events, Presence, Resync, StreamOpened
from tessera.server.http.edge import Edge, Limits
from tessera.server.http.errors import ServiceError
from tessera.server.http.headers import api_docs
from tessera.server.http.limits import BODY_READ_TIMEOUT, Rate, rates_from_env
from tessera.server.http.pages import WEB
from tessera.server.http.routes import ROUTERS
from tessera.server.http.storage_errors import STORAGE_ERRORS, storage_trouble
from tessera.server.match.clocks import ClockTimers
from tessera.server.match.inputs import load_checked
from tessera.server.match.queries import games_in_play
from tessera.server.match.service import MatchService
from tessera.server.moderation.routes import router as moderation_router
from tessera.server.notify import install as install_notify
from tessera.server.notify import router as notify_router
from tessera.server.push.hub import MAX_SOCKETS_PER_CLIENT, MAX_SOCKETS_PER_GAME, Hub
from tessera.server.puzzles.routes import router as puzzles_router
from tessera.server.seeks.pool import SeekPool, pool_settings_from_env
from tessera.server.seeks.routes import router as seeks_router
from tessera.server.store.bus import ChangeListener
from tessera.server.store.storage import Storage
from tessera.server.tournaments.director import Director
from tessera.server.tournaments.routes import router as tournaments_router
from tessera.server.tournaments.waves import schedules_from_env, stuck_seconds_from_env, wave_seconds_from_env

__all__ = ["catalog", "create_app", "rules_text", "validation_message"]

log = logging.getLogger("tessera.server")


def validation_fields(errors: Any) -> str:
    """The fields pydantic found wrong, for the translated summary (``game, params.size``; ``body``
    when the body is not JSON at all)."""
    fields: list[str] = []
    for err in errors if isinstance(errors, list | tuple) else [errors]:
        if not isinstance(err, dict):
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        if err.get("type") == "json_invalid":
            loc = "body"
        if loc and loc not in fields:
            fields.append(loc)
    text = ", ".join(fields) or "body"
    return text if len(text) <= 200 else text[:200] + "…"


def validation_message(errors: Any) -> str:
    """Pydantic's list of errors as one readable sentence: ``body.game: Input should be a valid string``."""
    parts = []
    for err in errors if isinstance(errors, list | tuple) else [errors]:
        if not isinstance(err, dict):
            parts.append(str(err))
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "the request"
        msg = str(err.get("msg", "is not valid"))
        if err.get("type") == "json_invalid":
            msg = f"the body is not valid JSON ({err.get('ctx', {}).get('error', msg)})"
            loc = "body"
        parts.append(f"{loc}: {msg}")
    text = "; ".join(parts) or "the request is not valid"
    return text if len(text) <= 1000 else text[:1000] + "…"


async def validation_error_handler(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A request pydantic refused: 422 with one readable sentence, its catalogue key and the fields."""
    errors = exc.errors()
    body = {"detail": validation_message(errors), "key": "refusal.invalid_request"}
    return JSONResponse(with_error({**body, "args": {"fields": validation_fields(errors)}}), status_code=422)


async def answer(
    conn: HTTPConnection, body: dict[str, Any], status: int, headers: Mapping[str, str] | None = None
) -> JSONResponse | None:
    """A refusal's answer: JSON (:func:`with_error`) with ``status`` and ``headers``.

    On a WebSocket whose handler raised: before it was accepted, the same JSON as the handshake's
    answer (ASGI's WebSocket denial response); once accepted, an ``{"type": "error", "detail": …}``
    message and the close code ``4000 + status`` (as the hub closes its own refusals), then None.
    Never a half-open socket dropped without a close frame."""
    if isinstance(conn, WebSocket) and conn.application_state is not WebSocketState.CONNECTING:
        with contextlib.suppress(Exception):  # the client may be gone already
            if conn.application_state is WebSocketState.CONNECTED:
                await conn.send_json({"type": "error", "detail": body["detail"]})
                await conn.close(code=4000 + status)
        return None
    return JSONResponse(with_error(body), status_code=status, headers=headers)


def with_error(body: dict[str, Any]) -> dict[str, Any]:
    """A refusal's JSON with ``error`` beside ``detail`` (the same reason): ``error`` is the field
    lichess's clients (berserk, lichess-bot) read, ``detail`` the one tessera's read."""
    return {**body, "error": body["detail"]}


async def http_error_handler(conn: HTTPConnection, exc: StarletteHTTPException) -> JSONResponse | None:
    """Starlette's and FastAPI's own refusals (an unknown route, a method not allowed), with ``error``."""
    return await answer(conn, {"detail": exc.detail}, exc.status_code, exc.headers)


WORKER_THREADS = 16
"""Threads that run the synchronous request handlers (AnyIO's default is 40; ``TESSERA_THREADS``).
More threads do not add throughput (the work holds the GIL) but make each one wait longer for it."""

SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits for it (Python's default is 0.005;
``TESSERA_SWITCH_INTERVAL``).  A thread coming back from the database must wait that long behind
one busy with a view, once per statement: shorter turns keep the SQLite writer moving."""


GC_THRESHOLD = 20_000
"""Allocations between two collections of the garbage collector's youngest generation (Python's
default is 700).  A view's render is about 540 tracked objects: with the default, objects that
live a few milliseconds (a render being encoded, a request's objects) were collected young and
promoted, and the oldest generation — every game, socket and cached render of the process —
was walked about once a second, a pause of 300-570 ms each time under the crowd load (measured
with ``gc.callbacks``); with 20,000 such objects die before a collection sees them (2 full
collections in a 20 s crowd run instead of dozens)."""


def tune_threads() -> None:
    """Size the worker thread pool of the running event loop, shorten the GIL's switch interval and
    space out the garbage collector's young collections (:data:`GC_THRESHOLD`)."""
    import os

    import anyio.to_thread

    threads = int(os.environ.get("TESSERA_THREADS") or WORKER_THREADS)
    anyio.to_thread.current_default_thread_limiter().total_tokens = threads
    sys.setswitchinterval(float(os.environ.get("TESSERA_SWITCH_INTERVAL") or SWITCH_INTERVAL))
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, gen1, gen2)


def freeze() -> None:
    """Collect, then freeze: start-up objects (modules, compiled kernels) are never traversed by later
    collections."""
    gc.collect()
    gc.freeze()


DESCRIPTOR_WARNING = 0.8
"""Share of the process's file-descriptor limit in use above which a warning is logged."""


def descriptors() -> tuple[int, int] | None:
    """Open file descriptors of this process and its soft limit (None where the system does not tell)."""
    import os
    import resource

    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError:
        return None
    return used, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def watch_descriptors(every: float = 5.0) -> None:
    """Log (once per crossing) when the process's open descriptors near their limit: beyond it new
    connections fail, which nothing else would report."""
    warned = False
    while True:
        await asyncio.sleep(every)
        found = descriptors()
        if found is None:
            return
        used, limit = found
        high = used >= DESCRIPTOR_WARNING * limit
        if high and not warned:
            log.error("open file descriptors %d of a limit of %d: new connections will soon fail", used, limit)
        elif warned and not high:
            log.warning("open file descriptors back to %d of %d", used, limit)
        warned = high


async def sweep_studies(design: DesignStudies, every: float = 60.0) -> None:
    """Take over the designer's studies whose process's lease ran out (at start: those a crash left), each minute."""
    while True:
        try:
            await run_in_threadpool(design.sweep)
        except Exception:  # a storage hiccup: the next sweep tries again
            log.exception("design studies: sweep")
        await asyncio.sleep(every)


def app_from_env() -> FastAPI:
    """The app as ``tessera serve --workers N`` starts it in each worker process (settings from the
    environment: ``TESSERA_DATABASE_URL``, ``TESSERA_AI_MODE``, ``TESSERA_AI_SECONDS``,
    ``TESSERA_SOCKETS_PER_CLIENT``)."""
    import os

    if os.environ.get("TESSERA_LOG_LEVEL"):
        from tessera.server.http import logs

        logs.configure(os.environ["TESSERA_LOG_LEVEL"])
    seconds = os.environ.get("TESSERA_AI_SECONDS")
    per_client = os.environ.get("TESSERA_SOCKETS_PER_CLIENT")
    return create_app(
        os.environ.get("TESSERA_DATABASE_URL"),
        ai_mode=os.environ.get("TESSERA_AI_MODE", "process"),
        ai_seconds=float(seconds) if seconds else None,
        sockets_per_client=int(per_client) if per_client else MAX_SOCKETS_PER_CLIENT,
        metrics=os.environ.get("TESSERA_METRICS", "") in ("1", "true", "yes"),
    )


def create_app(
    database_url: str | None = None,
    *,
    ai_mode: str = "process",
    ai_seconds: float | None = None,
    sockets_per_game: int = MAX_SOCKETS_PER_GAME,
    sockets_per_client: int = MAX_SOCKETS_PER_CLIENT,
    body_timeout: float = BODY_READ_TIMEOUT,
    warm: bool = True,
    rates: dict[str, Rate] | None = None,
    ai_processes: int | None = None,
    metrics: bool = False,
) -> FastAPI:
    """The web application on the database at ``database_url`` (default: see storage.default_database_url).

    ``sockets_per_game`` and ``sockets_per_client`` cap open WebSockets; ``body_timeout`` is how
    long a request body may stall before the request is answered 408 (tessera.server.http.limits);
    ``warm``: compile the games' kernels in the background at start-up (tessera.server.ai.warmup);
    ``rates``: request rate limits per client (default: tessera.server.http.limits.RATE_LIMITS with the
    environment's overrides); ``ai_processes``: size of the fair AI pool (default: the machine's cores);
    ``metrics``: serve Prometheus metrics at ``/metrics`` (tessera.server.http.metrics).
    """
    storage = Storage(database_url)
    events = Events()
    service = MatchService(storage, events, Presence())
    account_streams = install_accounts(events, storage, service.games)  # before the hub: ratings precede the push
    bot_streams = BotStreams()
    # the bot API's streams (tessera.server.bot)
    events.subscribe(bot_streams.on_event, Changed, ChatPosted, AccountChanged, StreamOpened, Resync)
    # games waiting for you, Web Push, e-mail digests (another process's change read only for pages open here)
    notifications = install_notify(service, (account_streams, bot_streams))
    hub = Hub(service, per_game=sockets_per_game, per_client=sockets_per_client)
    hub.chat = chat = Chat(service)  # the chat's pushes go out through the hub
    install_rematch(events, storage, hub)  # a rematch's offer and new seat tokens pushed per seat
    pool = FairPool(mode=ai_mode, size=ai_processes)
    worker = AIWorker(service, mode=ai_mode, seconds=ai_seconds, pool=pool)
    timers = ClockTimers(service.check_clock)
    seeks = SeekPool(service, **pool_settings_from_env())  # "Play now": seeks paired in waves
    design = DesignStudies(storage, pool, load=load_checked)  # the designer's self-play studies
    tournaments = Director(  # arenas and Swiss events, run in waves
        service, wave_seconds=wave_seconds_from_env(), stuck_seconds=stuck_seconds_from_env()
    )
    tournaments.waves.schedules = schedules_from_env()
    warmup = Warmup(first=lambda: games_in_play(storage))

    events.subscribe(timers.on_event, Changed, where={"local": True})
    listener: ChangeListener | None = None
    if storage.engine.dialect.name == "postgresql":  # other processes may share the database
        listener = ChangeListener(storage.url, events)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.loop = timers.loop = account_streams.loop = bot_streams.loop = asyncio.get_running_loop()
        tune_threads()
        if warm:  # answers start at once; the AI's processes start once the kernels are loaded here

            def after_warmup() -> None:
                pool.warm()
                freeze()

            warmup.start(then=after_warmup)
        else:
            freeze()
        if listener is not None:
            await run_in_threadpool(listener.start)
        try:  # what a crash left half done (docs/security.md)
            await run_in_threadpool(repair_at_start, storage)
        except Exception:  # (an in-memory test database has no tables in another thread): logged, start anyway
            log.exception("the repair at start failed; the server starts all the same")
        watch = asyncio.create_task(watch_descriptors())
        sweep = asyncio.create_task(timers.sweep(storage))  # deadlines from storage (days-long, restarts)
        waves = asyncio.create_task(seeks.run())
        studies = asyncio.create_task(sweep_studies(design))
        directing = asyncio.create_task(tournaments.waves.run())
        notifications.start()
        yield
        watch.cancel()
        sweep.cancel()
        waves.cancel()
        studies.cancel()
        await run_in_threadpool(design.close)
        directing.cancel()
        await notifications.stop()
        if listener is not None:
            await run_in_threadpool(listener.close)
        timers.close()
        worker.close()
        storage.dispose()

    docs = api_docs()  # /docs, /redoc, /openapi.json only when asked (TESSERA_API_DOCS=1)
    app = FastAPI(
        title="tessera",
        version=tessera.__version__,
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
    )
    # innermost: the bot API's two (refusals of bot tokens only), then the edge's limits: request rates
    # (429), body caps (413) and the body's read time (408) — right inside the edge, so that a request
    # runs the edge module's code in one stretch on its way in (docs/architecture.md, "One move")
    app.add_middleware(BotGuard)  # bots play their challenges' games only
    app.add_middleware(BotLimits)  # one request at a time per token on the bot routes
    app.add_middleware(Limits, rates=rates_from_env() if rates is None else rates, read_timeout=body_timeout)
    if metrics:
        from fastapi.responses import Response

        from tessera.server.http.metrics import Metrics, MetricsMiddleware

        collected = Metrics(pool, hub)
        app.add_middleware(MetricsMiddleware, metrics=collected)

        @app.get("/metrics", include_in_schema=False)
        def metrics_page() -> Response:
            return Response(collected.render(), media_type="text/plain; version=0.0.4")

    # outermost: security headers on every answer (the limits' refusals included), the request id and
    # log line, ?token= refused before any route or limit reads the request, gzip (http/edge.py)
    app.add_middleware(Edge)
    app.state.service = service
    app.state.hub = hub
    app.state.chat = chat
    app.state.account_streams = account_streams
    app.state.bot_streams = bot_streams
    app.state.notify = notifications
    app.state.worker = worker
    app.state.pool = pool
    app.state.storage = storage
    app.state.warmup = warmup
    app.state.seeks = seeks
    app.state.design = design
    app.state.tournaments = tournaments

    app.add_exception_handler(RequestValidationError, validation_error_handler)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error_handler)  # type: ignore[arg-type]

    @app.exception_handler(ServiceError)
    async def service_error(conn: HTTPConnection, exc: ServiceError) -> JSONResponse | None:
        return await answer(conn, exc.body(), exc.status)  # key and args where it has them

    @app.exception_handler(Refused)
    async def refused(conn: HTTPConnection, exc: Refused) -> JSONResponse | None:
        return await answer(conn, exc.body(), exc.status_code, exc.headers)  # key, args

    @app.exception_handler(PoolBusy)
    async def pool_busy(conn: HTTPConnection, exc: PoolBusy) -> JSONResponse | None:
        return await answer(conn, {"detail": exc.detail}, 429, {"Retry-After": str(max(1, round(exc.retry_after)))})

    @app.exception_handler(SearchTimeout)
    async def search_stopped(conn: HTTPConnection, exc: SearchTimeout) -> JSONResponse | None:
        return await answer(conn, {"detail": exc.detail}, 503, {"Retry-After": "1"})

    for kind in STORAGE_ERRORS:

        @app.exception_handler(kind)
        async def storage_error(conn: HTTPConnection, exc: Exception) -> JSONResponse | None:
            detail, retry = storage_trouble(exc)
            method = conn.scope.get("method", "WEBSOCKET")
            log.error("storage unavailable on %s %s: %s", method, conn.url.path, detail)
            return await answer(conn, {"detail": detail}, 503, {"Retry-After": str(retry)})

    for router in ROUTERS:  # the game's own routes first: the most asked (a request tries them in order)
        app.include_router(router)
    app.include_router(accounts_router)  # accounts, ratings, challenges (tessera.server.accounts)
    app.include_router(bot_router)  # the bot API (tessera.server.bot, docs/bot-api.md)
    app.include_router(lichess_router)  # lichess's paths of the same bot API (berserk works unchanged)
    app.include_router(seeks_router)  # the seek pool (tessera.server.seeks)
    app.include_router(design_router)  # the designer's self-play studies (tessera.server.design)
    app.include_router(tournaments_router)  # arenas and Swiss events (tessera.server.tournaments)
    app.include_router(puzzles_router)  # puzzles, their ratings and the daily puzzle (tessera.server.puzzles)
    app.include_router(moderation_router)  # reports, blocks, the moderators' page and log (tessera.server.moderation)
    app.include_router(notify_router)  # games waiting, push subscriptions, e-mail (tessera.server.notify)
    app.include_router(lesson_routes.router)  # rules in the player's language, diagrams, lessons
    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app
