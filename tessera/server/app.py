"""The FastAPI application: JSON API (docs/http-api.md), WebSocket, and the static web client.

``create_app(database_url)`` wires storage → match service → hub and AI worker.
Endpoints are plain functions run in the thread pool (storage is synchronous),
except the move: it is checked and answered on the event loop and only its
transaction goes to a thread.  Views are answered as ``FastJSONResponse``
(encoded once by orjson, not walked field by field by FastAPI: a view holds the
whole render description).  Every refusal is a 4xx with
``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

import tessera
from tessera.core.registry import game_class
from tessera.server import analysis
from tessera.server import learn as learn_routes
from tessera.server.accounts.routes import router as accounts_router
from tessera.server.ai import AGENTS_AVAILABLE
from tessera.server.bus import ChangeListener
from tessera.server.encoding import FastJSONResponse
from tessera.server.hub import MAX_SOCKETS_PER_CLIENT, MAX_SOCKETS_PER_GAME, Connection, Hub
from tessera.server.limits import BODY_READ_TIMEOUT, BodyLimits
from tessera.server.service import MatchService, ServiceError, check_seed
from tessera.server.storage import Storage
from tessera.server.worker import AIWorker

log = logging.getLogger("tessera.server")

WEB = Path(__file__).resolve().parent.parent / "web"
RULES = Path(__file__).resolve().parent.parent / "rules"


class ClockIn(BaseModel):
    """Optional clock: seconds per game and increment per turn."""

    initial: float = Field(gt=0, le=86400, description="seconds per player for the whole game")
    increment: float = Field(0, ge=0, le=3600, description="seconds added after each turn")


class CreateIn(BaseModel):
    """``POST /api/games``."""

    game: str = Field(description="game name or one-string form, e.g. 'nume(size=3)'")
    params: dict[str, Any] = Field(default_factory=dict)
    mode: str = "hotseat"
    seat: int = 0
    ai_level: int = 2
    clock: ClockIn | None = None
    seed: int | None = None
    names: list[str] | None = None
    public: bool = True
    seats: list[Any] | None = Field(
        None,
        description="every seat at once, any mix: {'kind': 'here'|'invite'|'ai', 'level': 1-5 (AI), 'name': ...}",
    )


class AnalysisIn(BaseModel):
    """``POST /api/analysis/…``: a position as a game spec, a seed and the moves played."""

    game: str = Field(max_length=500, description="game spec, e.g. 'nume(size=3)'")
    seed: int = 0
    moves: list[tuple[int, str]] = Field(default_factory=list, max_length=5000)
    seconds: float = 0.5
    mode: str = "hotseat"
    seat: int = 0
    ai_level: int = 3


class MoveIn(BaseModel):
    """``POST /api/games/{id}/moves``."""

    token: str | None = None
    move: str
    expected: int | None = None
    view: bool = True
    """False: answer the acknowledgement alone (version, move number, who is to move, status,
    result, the last move), for a client that gets the new view by its WebSocket."""


class TokenIn(BaseModel):
    """A request that only needs the seat token."""

    token: str | None = None


SeatHeader = Annotated[str | None, Header()]


def _token(body_token: str | None, header: str | None, query: str | None = None) -> str | None:
    """The seat token from the JSON body, the ``X-Seat-Token`` header or ``?token=`` (in that order)."""
    return body_token or header or query


def seat_token(
    body: Annotated[TokenIn | None, Body()] = None,
    x_seat_token: Annotated[str | None, Header()] = None,
    token: str | None = None,
) -> str | None:
    """The seat token of a request whose body is only ``{"token": ...}`` (or empty): see :func:`_token`."""
    return _token(body.token if body else None, x_seat_token, token)


SeatToken = Annotated[str | None, Depends(seat_token)]
"""The shared dependency of the seat's own actions (resign, undo, draw offers and their answers)."""


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


def _seats_by_players(name: str, info: Any) -> dict[str, list[str]]:
    """Seat names for each choice of a ``players`` parameter (four-player Nymbat), ``{"4": [...]}``."""
    out: dict[str, list[str]] = {}
    for p in info.params:
        if p.name == "players" and p.choices:
            for k in p.choices:
                out[str(k)] = list(tessera.load_game(name, players=k).player_names)
    return out


def catalog() -> list[dict[str, Any]]:
    """Every game with its declared parameters (the create form is built from this)."""
    out = []
    for name in tessera.list_games():
        try:
            info = game_class(name).info
        except Exception as e:  # a game being written may not import yet
            log.warning("game %s does not load: %s", name, e)
            continue
        out.append(
            {
                "name": name,
                "title": info.title,
                "players": info.num_players,
                "player_names": list(info.player_names),
                "seats_by_players": _seats_by_players(name, info),
                "dynamics": info.dynamics,
                "board_kind": info.board_kind,
                "designer": info.designer,
                "examples": list(info.examples),
                "params": [
                    {
                        "name": p.name,
                        "default": p.default,
                        "kind": p.kind.__name__,
                        "doc": p.doc,
                        "min": p.min,
                        "max": p.max,
                        "choices": list(p.choices) if p.choices is not None else None,
                        "step": p.step,
                    }
                    for p in info.params
                ],
                "param_rules": [  # how parameters follow each other: the form applies them live
                    {
                        "param": r.param,
                        "when": r.when,
                        "equals": r.equals,
                        "default": r.default,
                        "min": r.min,
                        "max": r.max,
                        "choices": list(r.choices) if r.choices is not None else None,
                        "fixed": r.fixed,
                        "max_from": r.max_from,
                    }
                    for r in info.param_rules
                ],
            }
        )
    return out


def rules_text(name: str) -> dict[str, str]:
    """The players' rules page of a game (tessera/rules/<name>.md, else the module docstring)."""
    try:
        info = game_class(name).info
    except ValueError as e:
        raise ServiceError(404, str(e)) from None
    path = RULES / f"{name}.md"
    text = path.read_text(encoding="utf-8") if path.exists() else f"# {info.title}\n\n```\n{info.summary}\n```\n"
    return {"game": name, "title": info.title, "markdown": text}


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


def app_from_env() -> FastAPI:
    """The app as ``tessera serve --workers N`` starts it in each worker process (settings from the
    environment: ``TESSERA_DATABASE_URL``, ``TESSERA_AI_MODE``, ``TESSERA_AI_SECONDS``,
    ``TESSERA_SOCKETS_PER_CLIENT``)."""
    import os

    seconds = os.environ.get("TESSERA_AI_SECONDS")
    per_client = os.environ.get("TESSERA_SOCKETS_PER_CLIENT")
    return create_app(
        os.environ.get("TESSERA_DATABASE_URL"),
        ai_mode=os.environ.get("TESSERA_AI_MODE", "process"),
        ai_seconds=float(seconds) if seconds else None,
        sockets_per_client=int(per_client) if per_client else MAX_SOCKETS_PER_CLIENT,
    )


def create_app(
    database_url: str | None = None,
    *,
    ai_mode: str = "process",
    ai_seconds: float | None = None,
    sockets_per_game: int = MAX_SOCKETS_PER_GAME,
    sockets_per_client: int = MAX_SOCKETS_PER_CLIENT,
    body_timeout: float = BODY_READ_TIMEOUT,
) -> FastAPI:
    """The web application on the database at ``database_url`` (default: see storage.default_database_url).

    ``sockets_per_game`` and ``sockets_per_client`` cap open WebSockets; ``body_timeout`` is how
    long a request body may stall before the request is answered 408 (tessera.server.limits).
    """
    storage = Storage(database_url)
    service = MatchService(storage)
    hub = Hub(service, per_game=sockets_per_game, per_client=sockets_per_client)
    worker = AIWorker(service, mode=ai_mode, seconds=ai_seconds)
    timers: dict[str, asyncio.TimerHandle] = {}

    def arm_clock(game_id: str) -> None:
        loop = hub.loop
        if loop is None or loop.is_closed():
            return

        async def check() -> None:
            wait = await run_in_threadpool(service.check_clock, game_id)
            old = timers.pop(game_id, None)
            if old is not None:
                old.cancel()
            if wait is not None:
                timers[game_id] = loop.call_later(max(0.05, wait + 0.02), lambda: asyncio.ensure_future(check()))

        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(check()))

    def on_change(game_id: str) -> None:
        hub.notify(game_id)
        ai, clock = service.needs(game_id)
        if ai:
            worker.schedule(game_id)
        if clock or game_id in timers:
            arm_clock(game_id)

    service.on_change = on_change
    worker.on_progress = lambda game_id, info: hub.push(game_id, {"type": "ai", "thinking": info})
    service.presence = hub.presence

    listener: ChangeListener | None = None
    if storage.engine.dialect.name == "postgresql":  # other processes may share the database
        listener = ChangeListener(
            storage.url,
            on_remote=lambda game_id: hub.notify(game_id, fresh=False),
            on_reconnect=lambda: hub.notify_all(fresh=False),
        )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.loop = asyncio.get_running_loop()
        tune_threads()
        gc.collect()
        gc.freeze()  # start-up objects (modules, compiled kernels) are never traversed by later collections
        if listener is not None:
            await run_in_threadpool(listener.start)
        yield
        if listener is not None:
            await run_in_threadpool(listener.close)
        for t in timers.values():
            t.cancel()
        worker.close()
        storage.dispose()

    app = FastAPI(title="tessera", version=tessera.__version__, lifespan=lifespan)
    app.add_middleware(BodyLimits, read_timeout=body_timeout)
    app.state.service = service
    app.state.hub = hub
    app.state.worker = worker
    app.state.storage = storage
    app.include_router(accounts_router)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(exc.errors())}, status_code=422)

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    # -- catalogue -----------------------------------------------------------------------
    @app.get("/api/catalog")
    def get_catalog() -> dict[str, Any]:
        """The games, their parameters, and whether real AI agents are installed."""
        return {"games": catalog(), "ai_agents": AGENTS_AVAILABLE, "version": tessera.__version__}

    @app.get("/api/rules/{name}")
    def get_rules(name: str) -> dict[str, str]:
        """A game's rules for players, as Markdown."""
        return rules_text(name)

    # -- games ---------------------------------------------------------------------------
    @app.post("/api/games", status_code=201)
    def create_game(body: CreateIn) -> dict[str, Any]:
        """Create a game; the answer holds the creator's seat tokens and invite links."""
        created = service.create(
            body.game,
            body.params,
            mode=body.mode,
            seat=body.seat,
            ai_level=body.ai_level,
            clock=(body.clock.initial, body.clock.increment) if body.clock else None,
            seed=body.seed,
            names=body.names,
            public=body.public,
            seat_kinds=body.seats,
        )
        return _created(created)

    def _created(created: Any) -> dict[str, Any]:
        gid = created.game_id
        return {
            "id": gid,
            "url": f"/g/{gid}",
            "tokens": {str(k): v for k, v in created.tokens.items()},
            "links": {str(k): f"/g/{gid}#seat={k}&t={v}" for k, v in created.tokens.items()},
            "invites": {str(k): f"/g/{gid}#seat={k}&t={v}" for k, v in created.invites.items()},
            "watch": f"/g/{gid}",
        }

    @app.get("/api/games")
    def list_games(status: Annotated[str, Query(pattern="^(open|active|finished|all)$")] = "open") -> dict[str, Any]:
        """The lobby: open online games (``status=open``), or public games by status."""
        return {"games": service.list_games(None if status == "all" else status)}

    @app.get("/api/games/{game_id}")
    def get_game(
        game_id: str,
        token: str | None = None,
        x_seat_token: Annotated[str | None, Header()] = None,
    ) -> FastJSONResponse:
        """The game as the token's seat sees it (no token: a spectator)."""
        return FastJSONResponse(service.view(game_id, _token(token, x_seat_token)))

    @app.post("/api/games/{game_id}/join")
    def join_game(game_id: str) -> dict[str, Any]:
        """Take the free seat of an open public online game (a private game's seats go by invite link only)."""
        seat, token = service.join(game_id)
        return {"id": game_id, "seat": seat, "token": token, "link": f"/g/{game_id}#seat={seat}&t={token}"}

    @app.post("/api/games/{game_id}/moves")
    async def post_move(
        game_id: str,
        body: MoveIn,
        x_seat_token: Annotated[str | None, Header()] = None,
        token: str | None = None,
    ) -> FastJSONResponse:
        """Play a move (a Nelaxtam order is sealed until both are in).

        Asynchronous: the move is checked and answered on the event loop against the game in
        memory; only its database transaction runs in a worker thread (MatchService.play_async).
        """
        seat_token = _token(body.token, x_seat_token, token)
        return FastJSONResponse(await service.play_async(game_id, seat_token, body.move, body.expected, view=body.view))

    @app.post("/api/games/{game_id}/resign")
    def resign(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Give up the game."""
        return FastJSONResponse(service.resign(game_id, seat_token))

    @app.post("/api/games/{game_id}/undo")
    def undo(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Take back your last move (online: ask the opponent)."""
        return FastJSONResponse(service.undo(game_id, seat_token))

    @app.post("/api/games/{game_id}/undo/accept")
    def undo_accept(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Accept the opponent's request to take back a move."""
        return FastJSONResponse(service.answer_undo(game_id, seat_token, True))

    @app.post("/api/games/{game_id}/undo/decline")
    def undo_decline(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Refuse the opponent's request to take back a move."""
        return FastJSONResponse(service.answer_undo(game_id, seat_token, False))

    @app.post("/api/games/{game_id}/draw")
    def offer_draw(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Offer a draw (a game whose rules allow one); an AI opponent answers at once."""
        return FastJSONResponse(service.offer_draw(game_id, seat_token))

    @app.post("/api/games/{game_id}/draw/accept")
    def draw_accept(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Accept the opponent's draw offer: the game ends drawn (reason "agreement")."""
        return FastJSONResponse(service.answer_draw(game_id, seat_token, True))

    @app.post("/api/games/{game_id}/draw/decline")
    def draw_decline(
        game_id: str,
        seat_token: SeatToken,
    ) -> FastJSONResponse:
        """Decline the opponent's draw offer."""
        return FastJSONResponse(service.answer_draw(game_id, seat_token, False))

    @app.get("/api/games/{game_id}/positions/{n}")
    def position(game_id: str, n: int) -> dict[str, Any]:
        """The board after the first ``n`` moves, as a spectator sees it (replay)."""
        return service.position(game_id, n)

    # -- analysis board ------------------------------------------------------------------
    @app.get("/api/games/{game_id}/analysis")
    def analysis_source(
        game_id: str, token: str | None = None, x_seat_token: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """A game's resolved moves for the analysis board (refused to a player of it while it goes on)."""
        return service.analysis_source(game_id, _token(token, x_seat_token))

    @app.post("/api/analysis/position")
    def analysis_position(body: AnalysisIn) -> dict[str, Any]:
        """The node's picture, with the legal moves of the player to move."""
        return analysis.position(body.game, check_seed(body.seed), [list(m) for m in body.moves])

    @app.post("/api/analysis/evaluate")
    def analysis_evaluate(body: AnalysisIn) -> dict[str, Any]:
        """Our AI on the node: value for the side to move and its best move (``seconds`` of thought)."""
        return analysis.evaluate(body.game, check_seed(body.seed), [list(m) for m in body.moves], body.seconds)

    @app.post("/api/analysis/continue", status_code=201)
    def analysis_continue(body: AnalysisIn) -> dict[str, Any]:
        """A new game from the node: hot-seat, or against the AI (``seat``, ``ai_level``)."""
        state = analysis.replay_list(body.game, check_seed(body.seed), [list(m) for m in body.moves])
        created = service.continue_from(
            str(state.game), body.seed, state.history(), mode=body.mode, seat=body.seat, ai_level=body.ai_level
        )
        return _created(created)

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> dict[str, Any]:
        """The JSON game record (docs/records.md)."""
        return service.record(game_id)

    @app.get("/api/games/{game_id}/record.txt")
    def record_text(game_id: str) -> PlainTextResponse:
        """The plain-text move list (docs/records.md)."""
        return PlainTextResponse(service.text(game_id))

    @app.post("/api/records", status_code=201)
    async def import_record(request: Request) -> dict[str, Any]:
        """Import a JSON record (application/json) or a text record (text/plain) as a new hot-seat game."""
        created = await run_in_threadpool(service.import_record, await _record_body(request))
        return _created(created)

    @app.post("/api/analysis/record")
    async def analysis_record(request: Request) -> dict[str, Any]:
        """A record (JSON or text, as for ``POST /api/records``) read for the analysis board: no game is created."""
        return dict(await run_in_threadpool(service.analysis_record, await _record_body(request)))

    async def _record_body(request: Request) -> Any:
        """A record body: JSON (application/json) or UTF-8 text."""
        raw = await request.body()  # BodyLimits caps it at MAX_RECORD_BYTES (413) before it is read whole
        ctype = request.headers.get("content-type", "")
        data: Any
        if "json" in ctype:
            import json

            try:
                data = json.loads(raw or b"null")
            except ValueError as e:
                raise ServiceError(422, f"the record is not valid JSON: {e}") from None
            except RecursionError:
                raise ServiceError(422, "the record is not valid JSON: nested too deeply") from None
        else:
            try:
                data = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ServiceError(422, "a text record must be UTF-8") from None
        return data

    # -- WebSocket -----------------------------------------------------------------------
    @app.websocket("/api/games/{game_id}/ws")
    async def ws_game(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
        """Live views of a game: a ``state`` message now and after every change."""
        await websocket.accept()
        client = websocket.client.host if websocket.client else ""
        refused = hub.admit(game_id, client)
        if refused is not None:
            await websocket.send_json({"type": "error", "detail": refused})
            await websocket.close(code=4429)
            return
        try:
            view = await run_in_threadpool(service.view, game_id, token)
        except ServiceError as e:
            await websocket.send_json({"type": "error", "detail": e.detail})
            await websocket.close(code=4000 + e.status)
            return
        conn = Connection(websocket, game_id, view["you"], token, client)
        hub.add(conn)  # the others get a small presence message if a seat's flag changed
        await hub._send(conn, {"type": "state", "view": view})
        if await run_in_threadpool(service.version, game_id) != view["version"]:
            await hub.send_view(conn)  # a change landed between the view and joining the hub
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                msg = _ws_message(frame)
                if isinstance(msg, str):
                    await hub._send(conn, {"type": "error", "detail": msg})
                elif msg["type"] == "ping":
                    await hub._send(conn, {"type": "pong"})
                else:
                    await hub.send_view(conn)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.remove(conn)

    def _ws_message(frame: Any) -> dict[str, Any] | str:
        """A client's message (``ping`` or ``refresh``), or what is wrong with it."""
        import json

        text = frame.get("text")
        if text is None:
            return 'messages are JSON text: {"type": "ping"} or {"type": "refresh"}; binary frames are not read'
        if len(text) > 10_000:
            return "the message is too long"
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            return "the message is not valid JSON"
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind not in ("ping", "refresh"):
            return (
                f"unknown message {str(kind if kind is not None else msg)[:40]!r}: the socket only reads "
                '{"type": "ping"} and {"type": "refresh"}; moves are POSTed to /api/games/{id}/moves'
            )
        return {"type": kind}

    # -- web client ----------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB / "index.html")

    @app.get("/analysis", include_in_schema=False)
    def analysis_page() -> FileResponse:
        return FileResponse(WEB / "analysis.html")

    @app.get("/g/{game_id}", include_in_schema=False)
    def game_page(game_id: str) -> FileResponse:
        return FileResponse(WEB / "game.html")

    @app.get("/rules/{name}", include_in_schema=False)
    def rules_page(name: str) -> FileResponse:
        return FileResponse(WEB / "rules.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    app.include_router(learn_routes.router)  # rules in the player's language, diagrams, lessons
    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app
