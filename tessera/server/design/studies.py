"""Self-play studies asked from the designer's page, played on the fair AI pool and stored game by game.

:class:`DesignStudies` checks a request (a signed-in account, a known game, at most
:data:`MAX_VARIANTS` variants that load, an agent of :data:`AGENTS`, at most :data:`MAX_GAMES`
games per variant, at most :data:`MAX_OPEN` unfinished studies per account), stores the study and
plays its games one at a time as jobs of the AI pool (kind ``analysis``: studies and analysis
share their slots, so the AI seats of people's games keep the rest of the pool).  Each finished
game is appended to the study's row in its own transaction before the next one starts, so a
study stopped by a restart goes on where it was (:meth:`DesignStudies.sweep`, at start and every
minute, takes over open studies whose process's lease ran out; a clean stop gives its leases up);
a cancelled study keeps the games it played.  The summary of a study is the balance lab's, per
variant (:class:`tessera.arena.balance.SettingStats`): seat score and wins apart with their
intervals, draws, length and its histogram, the design metrics and the example games.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import sqlalchemy as sa

from tessera.arena.balance import SettingStats
from tessera.arena.play import GameResult, Task, play_task
from tessera.server.accounts.security import Refused
from tessera.server.ai.scheduler import ANALYSIS, FairPool
from tessera.server.design.tables import design_studies_table as T
from tessera.server.store.storage import Storage

log = logging.getLogger("tessera.server.design")

MAX_VARIANTS = 4
"""Variants one study compares at most."""

MAX_GAMES = 200
"""Games per variant one study plays at most."""

MAX_OPEN = 2
"""Unfinished (queued or running) studies one account may have."""

AGENTS = ("level1", "level2", "level3")
"""The agents a study may use: the cheap levels, so a study's cost stays bounded."""

GAME_BUDGET = 900.0
"""Seconds one self-play game may take on the pool before it is stopped (a level 3 game of the longest
game takes a few minutes on one core)."""

OPEN = ("queued", "running")

LEASE = GAME_BUDGET + 60.0
"""Seconds a process's claim on a study holds after it submitted a game: another process (or this one
after a crash) takes an open study over once its lease has run out (:meth:`DesignStudies.sweep`)."""


def _now() -> float:
    return time.time()


class DesignStudies:
    """The studies of every account: create, read, cancel; their games on the AI pool."""

    def __init__(self, storage: Storage, pool: FairPool, *, load: Callable[[str], Any]) -> None:
        self.storage = storage
        self.pool = pool
        self.load = load
        """Loads a game string (``ValueError`` with the reason when it is refused)."""
        self._lock = threading.Lock()
        self._inflight: dict[str, Future[Any]] = {}
        self._closed = False
        self.me = secrets.token_hex(8)
        """This process's name in the studies' ``holder`` column."""

    # -- asking ---------------------------------------------------------------------------------
    def create(self, user_id: str, game: str, variants: list[str], agent: str, games: int) -> dict[str, Any]:
        """Store a new study and start it; 4xx :class:`Refused` with the reason on a bad request."""
        if not variants:
            raise Refused(422, "name at least one variant", key="refusal.design.no_variant")
        if len(variants) > MAX_VARIANTS:
            raise Refused(
                422,
                f"a study compares at most {MAX_VARIANTS} variants (got {len(variants)})",
                key="refusal.design.too_many_variants",
                args={"max": MAX_VARIANTS, "got": len(variants)},
            )
        if agent not in AGENTS:
            raise Refused(
                422,
                f"agent {agent[:40]!r} is not offered here: choose one of {', '.join(AGENTS)}",
                key="refusal.design.agent",
                args={"agent": agent[:40], "agents": ", ".join(AGENTS)},
            )
        if not 1 <= games <= MAX_GAMES:
            raise Refused(
                422,
                f"games per variant must lie between 1 and {MAX_GAMES} (got {games})",
                key="refusal.design.games",
                args={"max": MAX_GAMES, "got": games},
            )
        specs: list[str] = []
        for v in variants:
            try:
                g = self.load(v)
            except ValueError as e:
                raise Refused(
                    422,
                    f"variant {v[:80]!r}: {e}",
                    key="refusal.design.variant",
                    args={"variant": v[:80], "reason": str(e)},
                ) from None
            if g.name != game:
                raise Refused(
                    422,
                    f"variant {v[:80]!r} is not a variant of {game}",
                    key="refusal.design.other_game",
                    args={"variant": v[:80], "game": game},
                )
            specs.append(str(g))
        if len(set(specs)) != len(specs):
            raise Refused(422, "a variant is listed twice", key="refusal.design.duplicate")
        sid = secrets.token_hex(8)
        now = _now()
        with self.storage.transaction(write=True) as tx:
            open_count = tx.conn.execute(
                sa.select(sa.func.count()).where(T.c.user_id == user_id, T.c.status.in_(OPEN))
            ).scalar_one()
            if open_count >= MAX_OPEN:
                raise Refused(
                    429,
                    f"at most {MAX_OPEN} unfinished studies at once: wait for one or cancel it",
                    key="refusal.design.busy",
                    args={"max": MAX_OPEN},
                )
            tx.conn.execute(
                T.insert().values(
                    id=sid,
                    user_id=user_id,
                    game=game,
                    variants=json.dumps(specs),
                    agent=agent,
                    games=games,
                    status="queued",
                    results="[]",
                    error=None,
                    holder=None,
                    lease_until=0.0,
                    created_at=now,
                    updated_at=now,
                )
            )
        self._next(sid)
        return self.get(user_id, sid)

    def cancel(self, user_id: str, sid: str) -> dict[str, Any]:
        """Stop a study (its games so far are kept); a finished one is left as it is."""
        with self.storage.transaction(write=True) as tx:
            row = self._row(tx, user_id, sid)
            if row.status in OPEN:
                tx.conn.execute(T.update().where(T.c.id == sid).values(status="cancelled", updated_at=_now()))
        # a game already on the pool plays out (the pool owns its future); its result is not stored
        return self.get(user_id, sid)

    # -- reading --------------------------------------------------------------------------------
    def _row(self, tx: Any, user_id: str, sid: str) -> Any:
        row = tx.conn.execute(sa.select(T).where(T.c.id == sid)).first()
        if row is None or row.user_id != user_id:  # another account's study is not disclosed
            raise Refused(404, "no such study", key="refusal.design.unknown")
        return row

    def get(self, user_id: str, sid: str) -> dict[str, Any]:
        """A study: its request, status, progress and the figures of each variant so far."""
        with self.storage.transaction() as tx:
            row = self._row(tx, user_id, sid)
        return summary(row)

    def list(self, user_id: str, game: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The account's studies, newest first (progress only, no figures)."""
        q = sa.select(T).where(T.c.user_id == user_id)
        if game is not None:
            q = q.where(T.c.game == game)
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(q.order_by(T.c.created_at.desc()).limit(limit)).all()
        return [head(r) for r in rows]

    def record(self, user_id: str, sid: str, key: str) -> str:
        """One game of a study as a text record (docs/records.md), for the analysis board."""
        with self.storage.transaction() as tx:
            row = self._row(tx, user_id, sid)
        for d in json.loads(row.results):
            if d["key"] == key:
                r = GameResult.from_dict(d)
                variants = json.loads(row.variants)
                stats = SettingStats({"variant": variants[int(key.split("/")[0])]}, r.game, [r], len(r.seats))
                for _, text in stats.example_records(all_games=True):
                    return text
        raise Refused(404, f"no game {key[:20]!r} in this study", key="refusal.design.no_game", args={"key": key[:20]})

    # -- playing --------------------------------------------------------------------------------
    def sweep(self) -> int:
        """Take over every open study whose lease has run out (at start, then now and then); how many."""
        with self.storage.transaction() as tx:
            ids = [
                r.id for r in tx.conn.execute(sa.select(T.c.id).where(T.c.status.in_(OPEN), T.c.lease_until < _now()))
            ]
        for sid in ids:
            self._next(sid)
        return len(ids)

    def _next(self, sid: str) -> None:
        """Submit the study's next game (none when it is complete, cancelled or already in flight)."""
        with self._lock:
            if self._closed or sid in self._inflight:
                return
        with self.storage.transaction(write=True) as tx:
            row = tx.conn.execute(sa.select(T).where(T.c.id == sid).with_for_update()).first()
            if row is None or row.status not in OPEN:
                return
            now = _now()
            if row.holder not in (None, self.me) and row.lease_until >= now:
                return  # another process plays it
            task = next_task(row)
            if task is None:
                tx.conn.execute(
                    T.update().where(T.c.id == sid).values(status="done", holder=None, lease_until=0.0, updated_at=now)
                )
                return
            tx.conn.execute(
                T.update()
                .where(T.c.id == sid)
                .values(status="running", holder=self.me, lease_until=now + LEASE, updated_at=now)
            )
        with self._lock:
            closing = self._closed
        if closing:  # the server began to stop while the claim was written (close() may have released first)
            self._release(sid)
            return
        fut = self.pool.submit(f"design:{row.user_id}", ANALYSIS, play_task, task, budget=GAME_BUDGET)
        with self._lock:
            self._inflight[sid] = fut
        fut.add_done_callback(lambda f: self._finished(sid, task, f))

    def _finished(self, sid: str, task: Task, fut: Future[Any]) -> None:
        with self._lock:
            if self._inflight.get(sid) is fut:
                del self._inflight[sid]
        if fut.cancelled() or self._closed:
            return
        exc = fut.exception()
        try:
            with self.storage.transaction(write=True) as tx:
                # locked: a stop releasing the leases meanwhile is seen here (or waits for this write)
                row = tx.conn.execute(sa.select(T).where(T.c.id == sid).with_for_update()).first()
                if row is None or row.status not in OPEN:
                    return
                if exc is not None:
                    log.warning("design study %s: game %s failed: %s", sid, task.key, exc)
                    tx.conn.execute(
                        T.update()
                        .where(T.c.id == sid)
                        .values(status="failed", error=f"game {task.key}: {exc}"[:500], updated_at=_now())
                    )
                    return
                results = json.loads(row.results)
                if all(d["key"] != task.key for d in results):
                    results.append(json.loads(fut.result().to_json()))
                # the game is kept whatever happens; the lease is renewed only while this process still
                # holds it: a stop that released it first must not leave a lease no one holds (the next
                # start's sweep would wait it out)
                lease = {"lease_until": _now() + LEASE} if row.holder == self.me else {}
                tx.conn.execute(
                    T.update().where(T.c.id == sid).values(results=json.dumps(results), updated_at=_now(), **lease)
                )
        except Exception:  # the storage went away (shutdown): the study resumes at the next start
            log.exception("design study %s: storing game %s", sid, task.key)
            return
        self._next(sid)

    def _release(self, sid: str) -> None:
        """Give up this process's claim on study ``sid`` (another process, or the next start, plays it on)."""
        try:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    T.update().where(T.c.id == sid, T.c.holder == self.me).values(holder=None, lease_until=0.0)
                )
        except Exception:  # the storage is gone already: the lease runs out by itself
            log.exception("design study %s: releasing its lease", sid)

    def close(self) -> None:
        """Stop submitting (the server is stopping) and give up this process's claims: unfinished studies go
        on at the next start, or at once in another process."""
        with self._lock:
            self._closed = True  # games on the pool play out; their results are not stored (_finished)
            self._inflight.clear()
        try:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    T.update().where(T.c.holder == self.me, T.c.status.in_(OPEN)).values(holder=None, lease_until=0.0)
                )
        except Exception:  # the storage is gone already: the leases run out by themselves
            log.exception("design studies: releasing leases")


def next_task(row: Any) -> Task | None:
    """The first game of the study not played yet (variant by variant interleaved: game k of each
    variant before game k + 1 of any, so a cancelled study still compares its variants)."""
    variants = json.loads(row.variants)
    done = {d["key"] for d in json.loads(row.results)}
    for k in range(row.games):
        for i, spec in enumerate(variants):
            key = f"{i}/{k}"
            if key not in done:
                return Task(
                    key=key,
                    game=spec,
                    seats=tuple(row.agent for _ in range(_players(spec))),
                    deal_seed=k,
                    agent_seed=f"design/{row.id}/{k}",
                    trace=True,
                    moves=True,
                    group=str(i),
                )
    return None


def _players(spec: str) -> int:
    from tessera.core.registry import load_game

    return load_game(spec).num_players


def head(row: Any) -> dict[str, Any]:
    """A study's request and progress."""
    variants = json.loads(row.variants)
    played = len(json.loads(row.results))
    return {
        "id": row.id,
        "game": row.game,
        "variants": variants,
        "agent": row.agent,
        "games": row.games,
        "status": row.status,
        "error": row.error,
        "played": played,
        "total": row.games * len(variants),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def summary(row: Any) -> dict[str, Any]:
    """:func:`head` and, per variant, the balance lab's figures of the games played so far."""
    out = head(row)
    results = [GameResult.from_dict(d) for d in json.loads(row.results)]
    per: list[dict[str, Any]] = []
    for i, spec in enumerate(out["variants"]):
        rs = sorted((r for r in results if r.key.split("/")[0] == str(i)), key=lambda r: int(r.key.split("/")[1]))
        n = len(rs[0].seats) if rs else _players(spec)
        d = SettingStats({"variant": spec}, spec, rs, n).to_dict()
        d.pop("forfeits", None)
        per.append(d)
    out["figures"] = per
    return out


__all__ = ["AGENTS", "MAX_GAMES", "MAX_OPEN", "MAX_VARIANTS", "DesignStudies", "head", "next_task", "summary"]
