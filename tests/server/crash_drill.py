"""The crash drill: a real ``tessera serve`` process is killed with ``SIGKILL`` in the middle of a
multi-step write, started again on the same database, and the invariants are checked.

Operations (:data:`OPERATIONS`):

- ``accept``: challenges accepted (several at once) while the server is killed;
- ``seek``: two accounts' seeks paired by the pool's waves while the server is killed;
- ``rating``: rated games resigned while the server is killed (game end, then rating);
- ``delete``: an account with a session, an API token and a pending challenge deleted while the
  server is killed;
- ``revoke``: API tokens revoked while the server is killed;
- ``rematch``: both players of a finished rated game ask for its rematch at once (crossing asks:
  one agreement) while the server is killed;
- ``accept4``: the three invitees of a four-seat challenge (Nymbat, ``players=4``) accept at once
  while the server is killed;
- ``tournament``: an arena's players join, or a Swiss event starts, and the director's wave pairs
  them while the server is killed; a game of the previous round is resigned at the same time.

A drill runs one operation per kill, or several (``Drill(url, ("accept", "seek", ...))``): their
writes are then sent together and one kill cuts through all of them (the suite's sample: one
server start per database and kill for every operation).

Invariants after each restart (:func:`check`), read straight from the database:

- nothing half-made: a challenge is pending without a game or accepted with its game, whose two
  seats are bound to the challenger and the challenged; a seek is paired with its game, and its
  game holds exactly the two paired seeks; no private game exists that no challenge or seek made;
- every acknowledged action kept: an accept answered 200 is stored with the game it named; a
  resignation answered 200 has its game finished;
- nothing stuck: every finished rated game is rated exactly once (before any request reads a
  rating: its ``rated_at`` mark, one history row per seat, and each rating's game count equal to
  its history rows); a challenge still pending is accepted when asked again (a four-seat one by
  its invitees, the last to accept asking again); a rematch asked again by both is played;
- rematch: a game has at most one rematch challenge, and every pending challenge between its
  players is the one the game names (never an ask stored unnamed);
- tournament pairing: no pairing left ``creating`` once the repair has run; no account in two live
  pairings of one tournament at once, and a player's claimed pairing is live; every live or
  finished pairing names its game, whose seats are bound to the pairing's players in order; every
  private game is named by a challenge, a seek or a pairing; a tournament game whose resignation
  was answered has its result stored on its pairing;
- nobody reaches a seat that is not his: each account's seat token of a game opens his seat;
- an account is deleted whole (sessions and tokens refused, its pending challenges cancelled) or
  not at all; a token whose revocation was answered is refused, and a token is refused exactly
  when it is stored revoked.

``benchmarks/fault_drill.py`` runs many kills per operation on SQLite and PostgreSQL;
``tests/server/test_crash_faults.py`` (marker ``faults``) runs a small seeded sample.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple 7"
OPERATIONS = ("accept", "seek", "rating", "delete", "revoke", "rematch", "accept4", "tournament")
FOUR = "nymbat(players=4,reserve=6,first_limit=6,max_turns=60)"
"""The four-seat game of the ``accept4`` drill."""


@dataclass
class Server:
    """One running server process on ``url`` (its base address, the process)."""

    url: str
    base: str
    proc: subprocess.Popen[bytes]


def start(url: str, log_path: Path | None = None, *, ai_processes: bool = False, log_level: str = "warning") -> Server:
    """Start ``tessera serve`` on ``url`` and wait until it answers (its start-up repair done);
    ``ai_processes``: with the AI's worker processes (else it thinks in threads)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE")})
    env["TESSERA_SEEK_WAVE"] = "0.05"
    env["TESSERA_TOURNAMENT_WAVE"] = "0.2"
    env["TESSERA_TOURNAMENT_STUCK"] = "1"  # a pairing a killed process left half made is repaired 1 s later
    env["TESSERA_SIGNUPS_PER_ADDRESS"] = "1000"
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url]
    cmd += [] if ai_processes else ["--ai-threads"]
    cmd += ["--log-level", log_level]
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 240  # a busy machine: imports and migrations take a while
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}{_tail(log_path)}")
        try:
            if httpx.get(base + "/api/games?status=all", timeout=2).status_code == 200:
                return Server(url, base, proc)
        except httpx.HTTPError:
            pass
        if time.time() > deadline:
            proc.kill()
            raise RuntimeError(f"the server did not start{_tail(log_path)}")
        time.sleep(0.1)


def _tail(log_path: Path | None) -> str:
    return f": {log_path.read_text()[-3000:]}" if log_path and log_path.exists() else ""


def kill(server: Server) -> None:
    """``kill -9`` the server and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(30)


def browser(server: Server) -> httpx.Client:
    """A client with the site's own ``Origin`` (as the site's pages send it)."""
    return httpx.Client(
        base_url=server.base, headers={"Origin": server.base}, timeout=120
    )  # a loaded machine compiling a game for the first time


Call = tuple[int | httpx.Cookies, str, str, dict[str, Any]]
"""One request of a drill: (the account by its index, or a cookie jar; method; path; JSON body, its
``_headers`` taken out as headers)."""

Done = Callable[[list[Any]], None]
"""What an operation does with the answers to its calls (None: cut off by the kill)."""


@dataclass
class Drill:
    """A drill on one database: ``operations`` (one, or several cut by the same kills), kills made,
    actions acknowledged, violations found."""

    url: str
    operations: tuple[str, ...] | str
    seed: int
    log_path: Path | None = None
    kills: int = 0
    acknowledged: int = 0
    """Actions answered 200 (for ``seek``: the pairings found stored after the restarts)."""
    paired: int = 0
    """Seek pairings found stored after the last restart."""
    cut: int = 0
    """Actions whose request the kill cut off (no answer)."""
    violations: list[str] = field(default_factory=list)
    names: tuple[str, ...] = ()
    ids: dict[str, str] = field(default_factory=dict)
    """Account name → id (read from the database after sign-up)."""
    acks: dict[str, str] = field(default_factory=dict)
    """Accepts answered 200: challenge id → game id."""
    resigned: set[str] = field(default_factory=set)
    deleted: dict[str, tuple[httpx.Cookies, str, bool]] = field(default_factory=dict)
    """Accounts of the ``delete`` drill: name → (session cookies, API token, deletion answered 200)."""
    tokens: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """Tokens of the ``revoke`` drill: id → (secret, revocation answered 200)."""
    rematches: dict[str, list[Any]] = field(default_factory=dict)
    """Finished games of the ``rematch`` drill whose rematch was asked: game id → answers."""
    tournaments: list[str] = field(default_factory=list)
    """The ``tournament`` drill's events, oldest first."""
    resigned_tournament: set[str] = field(default_factory=set)
    """Tournament games whose resignation was answered 200."""
    per_op: dict[str, list[int]] = field(default_factory=dict)
    """Operation → [acknowledged, cut]."""
    progress: Callable[[Drill], None] | None = None
    """Called after each kill's check (the full drill prints a line: a long run shows how it goes)."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Where the drill's time went: ``start`` (the servers' starts), ``setup``, ``fire``, ``check``."""
    cookies: list[httpx.Cookies] = field(default_factory=list)
    burst: float = 0.0
    """Seconds the last burst whose every request was answered took (0: none yet)."""
    pace: float = 0.0
    """Seconds a game's creation takes on the restarted server (:meth:`_warm`): the kill lands within
    a few of these (a busy machine answers slowly; a fixed window killed every action before it began)."""

    def __post_init__(self) -> None:
        if isinstance(self.operations, str):
            self.operations = (self.operations,)
        unknown = set(self.operations) - set(OPERATIONS)
        if unknown:
            raise ValueError(f"unknown operations: {sorted(unknown)}")
        self.operations = tuple(sorted(self.operations, key=OPERATIONS.index))  # (the tournament's set-up last)

    @property
    def operation(self) -> str:
        """The operations' names joined by ``+``."""
        return "+".join(self.operations)

    def run(self, kills: int) -> Drill:
        rng = random.Random(self.seed)
        tag = f"{self.operation[:2]}{self.seed % 10000}{rng.randrange(10**6)}"
        self.names = tuple(f"c{x}{tag}" for x in "abcd")
        clock = time.monotonic()

        def took(phase: str) -> None:
            nonlocal clock
            now = time.monotonic()
            self.seconds[phase] = self.seconds.get(phase, 0.0) + now - clock
            clock = now

        server = start(self.url, self.log_path)
        took("start")
        try:
            self.cookies = self._accounts(server)
            for _ in range(kills):
                self._warm(server)
                calls: list[Call] = []
                dones: list[tuple[str, Done, int, int]] = []
                window = floor = 0.0
                for op in self.operations:
                    self.pace = 0.0
                    mine, done, op_most = getattr(self, "_" + op)(server, rng)
                    dones.append((op, done, len(calls), len(calls) + len(mine)))
                    calls += mine
                    floor = max(floor, op_most)
                    window = max(window, op_most, 4.0 * self.pace * len(mine))
                if self.burst:  # the last burst's answers all came within this: the kill lands among them
                    window = max(floor, min(window, 1.5 * self.burst))
                took("setup")
                results = self._fire(server, calls, rng, window)
                took("fire")
                for op, done, a, b in dones:
                    before = (self.acknowledged, self.cut)
                    done(results[a:b])
                    tally = self.per_op.setdefault(op, [0, 0])
                    tally[0] += self.acknowledged - before[0]
                    tally[1] += self.cut - before[1]
                self.kills += 1
                server = start(self.url, self.log_path)
                took("start")
                self.violations += check(self.url, self, server, self.cookies) + check_accounts(self.url, self, server)
                took("check")
                if self.progress is not None:
                    self.progress(self)
        finally:
            kill(server)
        return self

    def _warm(self, server: Server) -> None:
        """Make two games on the fresh server (the first loads the game's code) and take the second's
        time as :attr:`pace`: the kill then lands while the drilled writes run, not before them."""
        with browser(server) as b:
            for _ in range(2):
                t0 = time.monotonic()
                body = {"game": "nume", "params": {"size": 3}, "mode": "hotseat", "public": True}
                r = b.post("/api/games", json=body)
                assert r.status_code == 201, r.text
            self.pace = max(0.02, time.monotonic() - t0)  # the operation's own set-up measures it closer

    def _accounts(self, server: Server) -> list[httpx.Cookies]:
        out = []
        for name in self.names:
            with browser(server) as b:
                r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
                assert r.status_code == 201, r.text
                out.append(b.cookies)
        engine = sa.create_engine(self.url)
        try:
            with engine.connect() as c:
                for name in self.names:
                    q = sa.text("SELECT id FROM users WHERE username = :n")
                    self.ids[name] = str(c.execute(q, {"n": name}).scalar())
        finally:
            engine.dispose()
        return out

    def _client(self, server: Server, who: int | httpx.Cookies) -> httpx.Client:
        b = browser(server)
        b.cookies = self.cookies[who] if isinstance(who, int) else who
        return b

    def _timed(self, server: Server, who: int, method: str, path: str, body: Any = None) -> httpx.Response:
        """One request of an operation's set-up, its time taken as the pace (the slowest so far)."""
        with self._client(server, who) as b:
            t0 = time.monotonic()
            r = b.request(method, path, json=body)
            self.pace = max(self.pace, time.monotonic() - t0)
        return r

    def _fire(self, server: Server, calls: list[Call], rng: random.Random, window: float) -> list[Any]:
        """Send ``calls`` at once and kill the server after a random delay of up to ``window``
        seconds: the longest of the operations' own windows (the waves that pair seeks and
        tournaments) and four times an operation's :attr:`pace` per call of it (measured: four
        accepts sent at once, each from a new client, are answered in about 0.3 s where one alone
        takes 0.02 s) — or, once a burst was answered whole, 1.5 times the time its last answer
        took (:attr:`burst`, grown by a quarter after each burst the kill cut; a busy machine's
        requests wait on each other), so that the kill cuts through the requests rather than after
        or before them all."""
        results: list[Any] = [None] * len(calls)
        ends: list[float] = [0.0] * len(calls)
        t0 = time.monotonic()

        def send(i: int) -> None:
            who, method, path, body = calls[i]
            with self._client(server, who) as b:
                try:
                    results[i] = b.request(method, path, json=body, headers=body.pop("_headers", {}))
                    ends[i] = time.monotonic() - t0
                except httpx.HTTPError:
                    results[i] = None

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.0, window))
        kill(server)
        for t in threads:
            t.join(30)
        if calls and all(r is not None for r in results):
            self.burst = max(ends)
        elif self.burst:  # cut: the burst takes longer than thought (else every later kill cuts all of it)
            self.burst = max(self.burst, *ends) * 1.25
        return results

    def _count(self, results: list[Any], ok: tuple[int, ...] = (200,)) -> list[bool]:
        """Tally the answers: acknowledged (status in ``ok``) or cut; whether each was acknowledged."""
        out = []
        for r in results:
            acked = r is not None and r.status_code in ok
            self.acknowledged += acked
            self.cut += r is None
            out.append(acked)
        return out

    def _finished_game(self, server: Server, a: int, b: int) -> str:
        """A rated game between accounts ``a`` and ``b``, finished (``b`` resigns): its id."""
        r = self._timed(
            server, a, "POST", "/api/challenges", {"to": self.names[b], "game": "nume(size=3)", "rated": True}
        )
        assert r.status_code == 201, r.text
        got = self._timed(server, b, "POST", f"/api/challenges/{r.json()['id']}/accept")
        assert got.status_code == 200, got.text
        gid = str(got.json()["game_id"])
        r = self._timed(server, b, "POST", f"/api/games/{gid}/resign")
        assert r.status_code == 200, r.text
        return gid

    # -- the operations: each returns its calls, what to do with their answers, and its window ----------
    def _accept(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        made = []
        for _ in range(5):
            r = self._timed(
                server, 0, "POST", "/api/challenges", {"to": self.names[1], "game": "nume(size=3)", "rated": True}
            )
            assert r.status_code == 201, r.text
            made.append(r.json()["id"])
        first = made.pop()  # one accept alone: how long an accept takes here
        r = self._timed(server, 1, "POST", f"/api/challenges/{first}/accept")
        assert r.status_code == 200, r.text
        self.acks[first] = r.json()["game_id"]

        def done(results: list[Any]) -> None:
            for cid, r, ok in zip(made, results, self._count(results), strict=True):
                if ok:
                    self.acks[cid] = r.json()["game_id"]

        return [(1, "POST", f"/api/challenges/{cid}/accept", {}) for cid in made], done, 0.5

    def _seek(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        body = {"game": "nume(size=3)", "rated": True, "clock": {"initial": 600, "increment": 5}}
        calls: list[Call] = [(0, "POST", "/api/seeks", dict(body)), (1, "POST", "/api/seeks", dict(body))]

        def done(results: list[Any]) -> None:  # (acknowledged: the pairings found stored, in check)
            self.cut += sum(r is None for r in results)

        return calls, done, 1.5  # both seeks made, then paired by a wave

    def _rating(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        calls: list[Call] = []
        for _ in range(3):
            r = self._timed(
                server, 0, "POST", "/api/challenges", {"to": self.names[1], "game": "nume(size=3)", "rated": True}
            )
            assert r.status_code == 201, r.text
            r = self._timed(server, 1, "POST", f"/api/challenges/{r.json()['id']}/accept")
            assert r.status_code == 200, r.text
            got = r.json()
            calls.append(
                (1, "POST", f"/api/games/{got['game_id']}/resign", {"_headers": {"X-Seat-Token": got["token"]}})
            )
        games = [c[2].split("/")[3] for c in calls]

        def done(results: list[Any]) -> None:
            self.resigned.update(g for g, ok in zip(games, self._count(results), strict=True) if ok)

        return calls, done, 0.5

    def _delete(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        name = f"cd{rng.randrange(10**9)}"
        with browser(server) as b:
            t0 = time.monotonic()
            r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
            self.pace = max(self.pace, time.monotonic() - t0)  # a password hashed: a deletion checks one
            assert r.status_code == 201, r.text
            token = b.post("/api/account/tokens", json={"scopes": ["read", "challenge"]}).json()["token"]
            r = b.post("/api/challenges", json={"to": self.names[1], "game": "nume(size=3)"})
            assert r.status_code == 201, r.text
            jar = b.cookies

        def done(results: list[Any]) -> None:
            (ok,) = self._count(results)
            self.deleted[name] = (jar, token, ok)

        return [(jar, "DELETE", "/api/account", {"password": PASSWORD})], done, 0.6  # (Argon2 first)

    def _revoke(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        made = []
        with self._client(server, 0) as b:
            for t in b.get("/api/account/tokens").json()["tokens"]:  # an account holds at most 20 live ones
                if not t["revoked"]:
                    b.delete(f"/api/account/tokens/{t['id']}")
        for _ in range(4):
            r = self._timed(server, 0, "POST", "/api/account/tokens", {"scopes": ["read"]})
            assert r.status_code == 201, r.text
            made.append((r.json()["id"], r.json()["token"]))

        def done(results: list[Any]) -> None:
            for (tid, secret), ok in zip(made, self._count(results, (200, 204)), strict=True):
                self.tokens[tid] = (secret, ok)

        return [(0, "DELETE", f"/api/account/tokens/{tid}", {}) for tid, _ in made], done, 0.5

    def _rematch(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        """Accounts 2 and 3 finish a rated game and both ask for its rematch at once."""
        gid = self._finished_game(server, 2, 3)
        calls: list[Call] = [(2, "POST", f"/api/games/{gid}/rematch", {}), (3, "POST", f"/api/games/{gid}/rematch", {})]

        def done(results: list[Any]) -> None:
            self._count(results, (200, 201))
            self.rematches[gid] = results

        return calls, done, 0.5

    def _accept4(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        """Account 0 challenges 1, 2 and 3 to four-player Nymbat; the three accept at once."""
        body = {"to": list(self.names[1:]), "game": FOUR, "rated": True}
        r = self._timed(server, 0, "POST", "/api/challenges", body)
        assert r.status_code == 201, r.text
        cid = r.json()["id"]

        def done(results: list[Any]) -> None:
            for r, ok in zip(results, self._count(results), strict=True):
                if ok and r.json().get("game_id"):
                    self.acks[cid] = r.json()["game_id"]

        return [(i, "POST", f"/api/challenges/{cid}/accept", {}) for i in (1, 2, 3)], done, 0.8

    def _tournament(self, server: Server, rng: random.Random) -> tuple[list[Call], Done, float]:
        """An arena whose four players join at once (the wave pairs them), or a Swiss event whose
        start pairs its first round; a game still played in the previous event is resigned."""
        calls: list[Call] = []
        resigning: list[str] = []
        if self.tournaments:  # a game of the previous event still played: one of its players resigns
            engine = sa.create_engine(self.url)
            try:
                with engine.connect() as c:
                    q = "SELECT game_id, users FROM tournament_pairings WHERE tournament_id = :t AND status = 'playing'"
                    row = c.execute(sa.text(q), {"t": self.tournaments[-1]}).first()
            finally:
                engine.dispose()
            by_id = {v: k for k, v in self.ids.items()}
            if row is not None and row.game_id:
                who = self.names.index(by_id[json.loads(row.users)[0]])
                calls.append((who, "POST", f"/api/games/{row.game_id}/resign", {}))
                resigning.append(row.game_id)
        swiss = rng.random() < 0.5
        clock = {"initial": 600, "increment": 5}
        body: dict[str, Any] = {"game": "nume(size=3)", "clock": clock, "rated": True}
        if swiss:
            body |= {"kind": "swiss", "rounds": 2, "starts_at": time.time() + 1.0 + 4 * self.pace}
        else:
            body |= {"kind": "arena", "minutes": 60}
        r = self._timed(server, 0, "POST", "/api/tournaments", body)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        self.tournaments.append(tid)
        joins: list[Call] = [(i, "POST", f"/api/tournaments/{tid}/join", {}) for i in range(4)]
        if swiss:  # joined before the start; the start's wave pairs them with the burst, while the kill comes
            for i in range(4):
                assert self._timed(server, i, "POST", f"/api/tournaments/{tid}/join").status_code == 200
            joins = []
            time.sleep(max(0.0, body["starts_at"] - 0.3 - time.time()))  # (the operation is set up last)

        def done(results: list[Any]) -> None:
            oks = self._count(results)
            self.resigned_tournament.update(g for g, ok in zip(resigning, oks, strict=False) if ok)

        return calls + joins, done, 1.5


def check_accounts(url: str, drill: Drill, server: Server) -> list[str]:
    """The ``delete`` and ``revoke`` invariants (the module's text)."""
    bad: list[str] = []
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            for name, (jar, token, acked) in drill.deleted.items():
                row = c.execute(sa.text("SELECT id, deleted_at FROM users WHERE username = :n"), {"n": name}).first()
                assert row is not None
                gone = row.deleted_at is not None
                if acked and not gone:
                    bad.append(f"acknowledged deletion of {name} not kept")
                live_tokens = c.execute(
                    sa.text("SELECT count(*) FROM api_tokens WHERE user_id = :u AND revoked_at IS NULL"), {"u": row.id}
                ).scalar()
                pending = c.execute(
                    sa.text("SELECT count(*) FROM challenges WHERE from_user = :u AND status = 'pending'"),
                    {"u": row.id},
                ).scalar()
                if gone and (live_tokens or pending):
                    bad.append(f"{name} deleted by half: {live_tokens} live tokens, {pending} pending challenges")
                with browser(server) as b:
                    b.cookies = jar
                    by_session = b.get("/api/account").status_code
                    by_token = b.get("/api/account", headers={"Authorization": f"Bearer {token}"}).status_code
                if gone and (by_session == 200 or by_token == 200):
                    bad.append(f"the deleted account {name} is still reached (session {by_session}, token {by_token})")
                if not gone and by_token != 200:
                    bad.append(f"the account {name}, not deleted, lost its token ({by_token})")
            for tid, (secret, acked) in drill.tokens.items():
                revoked = (
                    c.execute(sa.text("SELECT revoked_at FROM api_tokens WHERE id = :i"), {"i": tid}).scalar()
                    is not None
                )
                status = httpx.get(
                    f"{server.base}/api/account", headers={"Authorization": f"Bearer {secret}"}, timeout=30
                ).status_code
                if acked and not revoked:
                    bad.append(f"acknowledged revocation of token {tid} not kept")
                if revoked == (status == 200):
                    bad.append(f"token {tid}: stored revoked={revoked} but answered {status}")
    finally:
        engine.dispose()
    drill.deleted.clear()
    drill.tokens.clear()
    return bad


def check(url: str, drill: Drill, server: Server, cookies: list[httpx.Cookies]) -> list[str]:
    """The invariants after a restart (the module's text); a sentence per violation."""
    bad: list[str] = []
    bad += _settle_tournaments(url, drill)
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            mine = [drill.ids[n] for n in drill.names]
            me, you = mine[0], mine[1]
            games = {
                r.id: r
                for r in c.execute(sa.text("SELECT id, status, public FROM games WHERE public = :f"), {"f": False})
            }
            bound: dict[str, dict[int, str]] = {}
            for r in c.execute(sa.text("SELECT game_id, seat, user_id FROM seat_accounts")):
                bound.setdefault(r.game_id, {})[r.seat] = r.user_id
            invited: dict[str, list[Any]] = {}
            for r in c.execute(sa.text("SELECT challenge_id, user_id, status FROM challenge_invitees")):
                invited.setdefault(r.challenge_id, []).append(r)
            linked = {
                r.challenge_id: r.game_id
                for r in c.execute(sa.text("SELECT game_id, challenge_id FROM rematch_challenges"))
            }
            made_by: dict[str, str] = {}
            pending: list[str] = []
            pending4: list[str] = []
            rows = c.execute(
                sa.text(
                    "SELECT id, status, game_id, from_user, to_user FROM challenges WHERE from_user IN (:a, :b, :c, :d)"
                ),
                dict(zip("abcd", mine, strict=True)),
            ).all()
            for r in rows:
                many = r.id in invited
                players = sorted(
                    [r.from_user, *(i.user_id for i in invited[r.id])] if many else [r.from_user, r.to_user]
                )
                if r.status == "accepted":
                    if r.game_id is None or r.game_id not in games:
                        bad.append(f"challenge {r.id} accepted with no game")
                        continue
                    if sorted(bound.get(r.game_id, {}).values()) != players:
                        bad.append(f"challenge {r.id}: game {r.game_id} seats not bound to its {len(players)} accounts")
                    made_by[r.game_id] = r.id
                elif r.status == "pending":
                    if r.game_id is not None:
                        bad.append(f"challenge {r.id} pending with a game")
                    if many:
                        pending4.append(r.id)
                    elif r.from_user == me and r.to_user == you:
                        pending.append(r.id)
                    elif r.from_user in mine[2:] and r.id not in linked:
                        bad.append(f"challenge {r.id} between the rematch players pending but named by no game")
            for gid in drill.rematches:
                n = sum(1 for g in linked.values() if g == gid)
                if n > 1:
                    bad.append(f"game {gid} has {n} rematch challenges")
                for r in drill.rematches[gid]:
                    if r is not None and r.status_code in (200, 201) and r.json().get("game_id"):
                        drill.acks[r.json()["id"]] = r.json()["game_id"]
            for cid, gid in drill.acks.items():
                got = c.execute(sa.text("SELECT status, game_id FROM challenges WHERE id = :i"), {"i": cid}).first()
                if got is None or got.status != "accepted" or got.game_id != gid:
                    bad.append(f"acknowledged accept of {cid} (game {gid}) not kept: {got}")
            seeks_by_game: dict[str, list[Any]] = {}
            for r in c.execute(sa.text("SELECT id, status, game_id, seat, token FROM seeks")):
                if r.status == "paired":
                    if r.game_id is not None and r.game_id not in games:
                        made_now = c.execute(sa.text("SELECT 1 FROM games WHERE id = :g"), {"g": r.game_id}).first()
                        if made_now is not None:  # paired by the restarted server's wave after the games were read
                            continue
                    if r.game_id is None or r.game_id not in games:
                        bad.append(f"seek {r.id} paired with no game")
                        continue
                    seeks_by_game.setdefault(r.game_id, []).append(r)
                elif r.status in ("open", "pairing") and r.game_id is not None:
                    bad.append(f"seek {r.id} {r.status} with a game")
            drill.paired = len(seeks_by_game)
            if drill.operations == ("seek",):
                drill.acknowledged = drill.paired
            for gid, ss in seeks_by_game.items():
                if len(ss) != 2 or {s.seat for s in ss} != {0, 1}:
                    bad.append(f"game {gid} paired to {len(ss)} seeks")
                made_by.setdefault(gid, "seek")
            bad += _check_pairings(c, drill, games, bound, made_by)
            for gid in games:
                if gid not in made_by:
                    bad.append(f"game {gid} was made by no challenge, seek or pairing (an orphan)")
            for gid in drill.resigned:
                st = games.get(gid)
                if st is None or st.status != "finished":
                    bad.append(f"acknowledged resignation of {gid} not kept")
            bad += _check_ratings(c)
            standing = [r.id for r in c.execute(sa.text("SELECT id FROM seeks WHERE status IN ('open', 'pairing')"))]
    finally:
        engine.dispose()
    with browser(server) as b:
        b.cookies = cookies[1]
        for cid in pending[:2]:  # nothing stuck: a pending challenge can still be accepted
            r = b.post(f"/api/challenges/{cid}/accept")
            if r.status_code != 200:
                bad.append(f"pending challenge {cid} cannot be accepted after the restart: {r.status_code} {r.text}")
                continue
            got = r.json()
            view = b.get(f"/api/games/{got['game_id']}", headers={"X-Seat-Token": got["token"]}).json()
            if view.get("you") != got["seat"]:
                bad.append(f"the acceptor's token of game {got['game_id']} does not open his seat")
    for cid in pending4:  # a four-seat challenge: its invitees accept (again) until its game is made
        made = None
        for i in (1, 2, 3):
            with browser(server) as b:
                b.cookies = cookies[i]
                r = b.post(f"/api/challenges/{cid}/accept")
            if r.status_code != 200:
                bad.append(
                    f"four-seat challenge {cid}: accept by its invitee {i} after the restart: {r.status_code} {r.text}"
                )
                break
            if r.json().get("status") == "accepted" and r.json().get("game_id"):
                made = (i, r.json())  # (an acceptance stored before the kill: the game is made by this one)
                break
        if made is None:
            bad.append(f"four-seat challenge {cid} accepted by all three invitees is still pending (stuck)")
            continue
        i, got = made
        with browser(server) as b:
            b.cookies = cookies[i]
            view = b.get(f"/api/games/{got['game_id']}", headers={"X-Seat-Token": got["token"]}).json()
        if view.get("you") != got["seat"]:
            bad.append(f"the acceptor's token of the four-seat game {got['game_id']} does not open his seat")
    for gid in list(drill.rematches):  # nothing stuck: asked again by both, the rematch is played
        answers = []
        for i in (2, 3):
            with browser(server) as b:
                b.cookies = cookies[i]
                answers.append(b.post(f"/api/games/{gid}/rematch"))
        codes = [r.status_code for r in answers]
        played = any(r.status_code == 409 and "played" in r.text for r in answers)
        if not played and not (codes[1] in (200, 201) and answers[1].json().get("game_id")):
            bad.append(f"the rematch of {gid} asked again by both is not played: {codes} {answers[1].text[:200]}")
    drill.rematches.clear()
    if standing:  # a standing seek of the last round: cancelled so that the next round seeks again
        engine = sa.create_engine(url)
        with engine.begin() as c:
            c.execute(sa.text("UPDATE seeks SET status = 'cancelled' WHERE status IN ('open', 'pairing')"))
        engine.dispose()
    return bad


def _settle_tournaments(url: str, drill: Drill, within: float = 30.0) -> list[str]:
    """Wait (polling) until the restarted server's waves have repaired what the kill left: no pairing
    of the drill's events ``creating``, and every tournament game whose resignation was answered
    recorded on its pairing; a sentence if they are not within ``within`` seconds."""
    if not drill.tournaments:
        return []
    engine = sa.create_engine(url)
    deadline = time.monotonic() + within
    try:
        while True:
            with engine.connect() as c:
                creating = c.execute(
                    sa.text("SELECT id, tournament_id FROM tournament_pairings WHERE status = 'creating'")
                ).all()
                creating = [r for r in creating if r.tournament_id in drill.tournaments]
                unrecorded = [
                    gid
                    for gid in drill.resigned_tournament
                    if c.execute(
                        sa.text("SELECT status FROM tournament_pairings WHERE game_id = :g"), {"g": gid}
                    ).scalar()
                    == "playing"
                ]
            if not creating and not unrecorded:
                return []
            if time.monotonic() > deadline:
                return [f"pairing {r.id} still creating after the repair" for r in creating] + [
                    f"the result of the resigned tournament game {gid} not recorded" for gid in unrecorded
                ]
            time.sleep(0.2)
    finally:
        engine.dispose()


def _check_pairings(
    c: sa.Connection, drill: Drill, games: dict[str, Any], bound: dict[str, dict[int, str]], made_by: dict[str, str]
) -> list[str]:
    """The tournament invariants (the module's text); the pairings' games go in ``made_by``."""
    bad: list[str] = []
    for r in c.execute(sa.text("SELECT id, tournament_id, status, game_id, users, result FROM tournament_pairings")):
        if r.game_id is not None:
            made_by.setdefault(r.game_id, "pairing " + r.id)
        if r.tournament_id not in drill.tournaments:
            continue
        users = json.loads(r.users)
        if r.status in ("playing", "done"):
            if r.game_id is None or r.game_id not in games:
                bad.append(f"pairing {r.id} {r.status} with no game")
            elif bound.get(r.game_id) != dict(enumerate(users)):
                bad.append(f"pairing {r.id}: game {r.game_id} seats not bound to its players in order")
        if r.game_id in drill.resigned_tournament and (r.status != "done" or not r.result):
            bad.append(f"the resigned tournament game {r.game_id}: pairing {r.status}, result {r.result}")
    for tid in drill.tournaments:
        live: dict[str, list[str]] = {}
        statuses = {}
        for r in c.execute(
            sa.text("SELECT id, status, users FROM tournament_pairings WHERE tournament_id = :t"), {"t": tid}
        ):
            statuses[r.id] = r.status
            if r.status in ("creating", "playing"):
                for u in json.loads(r.users):
                    live.setdefault(u, []).append(r.id)
        for u, ps in live.items():
            if len(ps) > 1:
                bad.append(f"tournament {tid}: account {u} in {len(ps)} live pairings at once")
        for r in c.execute(
            sa.text("SELECT user_id, pairing_id FROM tournament_players WHERE tournament_id = :t"), {"t": tid}
        ):
            if r.pairing_id is not None and statuses.get(r.pairing_id) not in ("creating", "playing"):
                bad.append(f"tournament {tid}: account {r.user_id} claimed by pairing {r.pairing_id} that is not live")
            if r.pairing_id is None and r.user_id in live:
                bad.append(f"tournament {tid}: account {r.user_id} in a live pairing but free")
    # two events at most stay open (an account announces at most five): the older are finished here
    for tid in drill.tournaments[:-2]:
        c.execute(sa.text("UPDATE tournaments SET status = 'finished' WHERE id = :t"), {"t": tid})
    c.commit()
    drill.tournaments[:] = drill.tournaments[-2:]
    return bad


def _check_ratings(c: sa.Connection) -> list[str]:
    """Every finished rated game rated exactly once: marked, one history row per bound seat (a game
    with a result), and each rating's game count equal to its history rows."""
    bad: list[str] = []
    rows = c.execute(
        sa.text(
            "SELECT a.game_id, a.rated_at, g.result FROM account_games a JOIN games g ON g.id = a.game_id "
            "WHERE a.rated = :t AND g.status = 'finished'"
        ),
        {"t": True},
    ).all()
    history: dict[str, int] = {}
    for gid, n in c.execute(sa.text("SELECT game_id, count(*) FROM rating_history GROUP BY game_id")):
        history[gid] = n
    seats: dict[str, int] = {}
    for gid, n in c.execute(sa.text("SELECT game_id, count(*) FROM seat_accounts GROUP BY game_id")):
        seats[gid] = n
    for gid, rated_at, result in rows:
        if rated_at is None:  # (a game the restarted server ended this instant is rated right after its end)
            time.sleep(1.0)
            q = sa.text("SELECT rated_at FROM account_games WHERE game_id = :g")
            rated_at = c.execute(q, {"g": gid}).scalar()
        if rated_at is None:
            bad.append(f"finished rated game {gid} not rated after the restart")
        elif (json.loads(result) if result else {}).get("returns") and history.get(gid, 0) != seats.get(gid, 0):
            bad.append(f"finished rated game {gid}: {history.get(gid, 0)} rating changes for {seats.get(gid, 0)} seats")
    counts = c.execute(
        sa.text(
            "SELECT r.user_id, r.pool, r.games, (SELECT count(*) FROM rating_history h "
            "WHERE h.user_id = r.user_id AND h.pool = r.pool) AS n FROM ratings r"
        )
    ).all()
    bad += [f"rating of {u} in {p}: {g} games counted, {n} rating changes" for u, p, g, n in counts if g != n]
    return bad


def run_drills(urls: dict[str, str], kills: int, seed: int, log_dir: Path | None = None) -> list[Drill]:
    """Every operation on every database: ``kills`` kills each; the drills run one after another."""
    out = []
    for db, url in urls.items():
        for i, op in enumerate(OPERATIONS):
            log_path = log_dir / f"{db}-{op}.log" if log_dir else None
            out.append(Drill(url, op, seed + i, log_path).run(kills))
    return out


__all__ = ["OPERATIONS", "Drill", "check", "kill", "run_drills", "start"]
