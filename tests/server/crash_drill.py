"""The crash drill: a real ``tessera serve`` process is killed with ``SIGKILL`` in the middle of a
multi-step write, started again on the same database, and the invariants are checked.

Operations (:data:`OPERATIONS`):

- ``accept``: challenges accepted (several at once) while the server is killed;
- ``seek``: two accounts' seeks paired by the pool's waves while the server is killed;
- ``rating``: rated games resigned while the server is killed (game end, then rating);
- ``delete``: an account with a session, an API token and a pending challenge deleted while the
  server is killed;
- ``revoke``: API tokens revoked while the server is killed.

Invariants after each restart (:func:`check`), read straight from the database:

- nothing half-made: a challenge is pending without a game or accepted with its game, whose two
  seats are bound to the challenger and the challenged; a seek is paired with its game, and its
  game holds exactly the two paired seeks; no private game exists that no challenge or seek made;
- every acknowledged action kept: an accept answered 200 is stored with the game it named; a
  resignation answered 200 has its game finished;
- nothing stuck: every finished rated game is rated (before any request reads a rating); a
  challenge still pending is accepted when asked again;
- nobody reaches a seat that is not his: each account's seat token of a game opens his seat;
- an account is deleted whole (sessions and tokens refused, its pending challenges cancelled) or
  not at all; a token whose revocation was answered is refused, and a token is refused exactly
  when it is stored revoked.

``benchmarks/fault_drill.py`` runs many kills per operation on SQLite and PostgreSQL;
``tests/server/test_crash_faults.py`` (marker ``faults``) runs a small seeded sample.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple 7"
OPERATIONS = ("accept", "seek", "rating", "delete", "revoke")


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
    return httpx.Client(base_url=server.base, headers={"Origin": server.base}, timeout=30)


@dataclass
class Drill:
    """One operation's drill on one database: kills made, actions acknowledged, violations found."""

    url: str
    operation: str
    seed: int
    log_path: Path | None = None
    kills: int = 0
    acknowledged: int = 0
    """Actions answered 200 (for ``seek``: the pairings found stored after the restarts)."""
    cut: int = 0
    """Actions whose request the kill cut off (no answer)."""
    violations: list[str] = field(default_factory=list)
    names: tuple[str, str] = ("", "")
    acks: dict[str, str] = field(default_factory=dict)
    """Accepts answered 200: challenge id → game id."""
    resigned: set[str] = field(default_factory=set)
    deleted: dict[str, tuple[httpx.Cookies, str, bool]] = field(default_factory=dict)
    """Accounts of the ``delete`` drill: name → (session cookies, API token, deletion answered 200)."""
    tokens: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """Tokens of the ``revoke`` drill: id → (secret, revocation answered 200)."""
    cookies: list[httpx.Cookies] = field(default_factory=list)
    pace: float = 0.0
    """Seconds a game's creation takes on the restarted server (:meth:`_warm`): the kill lands within
    a few of these (a busy machine answers slowly; a fixed window killed every action before it began)."""

    def run(self, kills: int) -> Drill:
        rng = random.Random(self.seed)
        tag = f"{self.operation[:2]}{self.seed % 10000}{rng.randrange(10**6)}"
        self.names = (f"ca{tag}", f"cb{tag}")
        server = start(self.url, self.log_path)
        try:
            cookies = self._accounts(server)
            for _ in range(kills):
                self._warm(server)
                getattr(self, "_" + self.operation)(server, cookies, rng)
                kill(server)
                self.kills += 1
                server = start(self.url, self.log_path)
                self.violations += check(self.url, self, server, cookies) + check_accounts(self.url, self, server)
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
        return out

    def _fire(
        self,
        server: Server,
        calls: list[tuple[int | httpx.Cookies, str, str, dict[str, Any]]],
        rng: random.Random,
        most: float = 0.5,
    ) -> list[Any]:
        """Send ``calls`` (account or its cookies, method, path, JSON) at once and kill the server
        after a random delay of up to ``most`` seconds, or four times :attr:`pace` per call if longer
        (measured: four accepts sent at once, each from a new client, are answered in about 0.3 s
        where one alone takes 0.02 s)."""
        results: list[Any] = [None] * len(calls)

        def send(i: int) -> None:
            who, method, path, body = calls[i]
            with browser(server) as b:
                b.cookies = self.cookies[who] if isinstance(who, int) else who
                try:
                    results[i] = b.request(method, path, json=body, headers=body.pop("_headers", {}))
                except httpx.HTTPError:
                    results[i] = None

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.0, max(most, 4.0 * self.pace * len(calls))))
        kill(server)
        for t in threads:
            t.join(30)
        return results

    def _accept(self, server: Server, cookies: list[httpx.Cookies], rng: random.Random) -> None:
        self.cookies = cookies
        made = []
        with browser(server) as a:
            a.cookies = cookies[0]
            for _ in range(5):
                r = a.post("/api/challenges", json={"to": self.names[1], "game": "nume(size=3)", "rated": True})
                assert r.status_code == 201, r.text
                made.append(r.json()["id"])
        with browser(server) as b:  # one accept alone: how long an accept takes here
            b.cookies = cookies[1]
            first = made.pop()
            t0 = time.monotonic()
            r = b.post(f"/api/challenges/{first}/accept")
            self.pace = time.monotonic() - t0
            assert r.status_code == 200, r.text
            self.acks[first] = r.json()["game_id"]
        results = self._fire(server, [(1, "POST", f"/api/challenges/{cid}/accept", {}) for cid in made], rng)
        for cid, r in zip(made, results, strict=True):
            if r is not None and r.status_code == 200:
                self.acks[cid] = r.json()["game_id"]
                self.acknowledged += 1
            elif r is None:
                self.cut += 1

    def _seek(self, server: Server, cookies: list[httpx.Cookies], rng: random.Random) -> None:
        self.cookies = cookies
        body = {"game": "nume(size=3)", "rated": True, "clock": {"initial": 600, "increment": 5}}
        calls: list[tuple[int | httpx.Cookies, str, str, dict[str, Any]]] = [
            (0, "POST", "/api/seeks", dict(body)),
            (1, "POST", "/api/seeks", dict(body)),
        ]
        results = self._fire(server, calls, rng, most=1.5)  # both seeks made, then paired by a wave
        self.cut += sum(r is None for r in results)  # (acknowledged: the pairings found stored, in check)

    def _rating(self, server: Server, cookies: list[httpx.Cookies], rng: random.Random) -> None:
        self.cookies = cookies
        calls = []
        for _ in range(3):
            with browser(server) as a:
                a.cookies = cookies[0]
                r = a.post("/api/challenges", json={"to": self.names[1], "game": "nume(size=3)", "rated": True})
                assert r.status_code == 201, r.text
            with browser(server) as b:
                b.cookies = cookies[1]
                t0 = time.monotonic()
                r = b.post(f"/api/challenges/{r.json()['id']}/accept")
                self.pace = time.monotonic() - t0
                assert r.status_code == 200, r.text
                got = r.json()
            calls.append(
                (1, "POST", f"/api/games/{got['game_id']}/resign", {"_headers": {"X-Seat-Token": got["token"]}})
            )
        games = [c[2].split("/")[3] for c in calls]
        results = self._fire(server, calls, rng)
        for gid, r in zip(games, results, strict=True):
            if r is not None and r.status_code == 200:
                self.resigned.add(gid)
                self.acknowledged += 1
            elif r is None:
                self.cut += 1

    def _delete(self, server: Server, cookies: list[httpx.Cookies], rng: random.Random) -> None:
        self.cookies = cookies
        name = f"cd{rng.randrange(10**9)}"
        with browser(server) as b:
            t0 = time.monotonic()
            r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
            self.pace = time.monotonic() - t0  # a password hashed: a deletion checks one
            assert r.status_code == 201, r.text
            token = b.post("/api/account/tokens", json={"scopes": ["read", "challenge"]}).json()["token"]
            r = b.post("/api/challenges", json={"to": self.names[1], "game": "nume(size=3)"})
            assert r.status_code == 201, r.text
            jar = b.cookies
        call = (jar, "DELETE", "/api/account", {"password": PASSWORD})
        (r,) = self._fire(server, [call], rng, most=0.6)  # the password is checked first (Argon2)
        ok = r is not None and r.status_code == 200
        self.acknowledged += ok
        self.cut += r is None
        self.deleted[name] = (jar, token, ok)

    def _revoke(self, server: Server, cookies: list[httpx.Cookies], rng: random.Random) -> None:
        self.cookies = cookies
        made = []
        with browser(server) as b:
            b.cookies = cookies[0]
            for t in b.get("/api/account/tokens").json()["tokens"]:  # an account holds at most 20 live ones
                if not t["revoked"]:
                    b.delete(f"/api/account/tokens/{t['id']}")
            for _ in range(4):
                t0 = time.monotonic()
                r = b.post("/api/account/tokens", json={"scopes": ["read"]})
                self.pace = time.monotonic() - t0
                assert r.status_code == 201, r.text
                made.append((r.json()["id"], r.json()["token"]))
        results = self._fire(server, [(0, "DELETE", f"/api/account/tokens/{tid}", {}) for tid, _ in made], rng)
        for (tid, secret), r in zip(made, results, strict=True):
            ok = r is not None and r.status_code in (200, 204)
            self.acknowledged += ok
            self.cut += r is None
            self.tokens[tid] = (secret, ok)


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
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            ids = dict(
                c.execute(
                    sa.text("SELECT username, id FROM users WHERE username IN (:a, :b)"),
                    {"a": drill.names[0], "b": drill.names[1]},
                ).all()
            )
            me, you = ids[drill.names[0]], ids[drill.names[1]]
            games = {
                r.id: r
                for r in c.execute(sa.text("SELECT id, status, public FROM games WHERE public = :f"), {"f": False})
            }
            bound: dict[str, dict[int, str]] = {}
            for r in c.execute(sa.text("SELECT game_id, seat, user_id FROM seat_accounts")):
                bound.setdefault(r.game_id, {})[r.seat] = r.user_id
            made_by: dict[str, str] = {}
            pending = []
            for r in c.execute(sa.text("SELECT id, status, game_id FROM challenges WHERE from_user = :a"), {"a": me}):
                if r.status == "accepted":
                    if r.game_id is None or r.game_id not in games:
                        bad.append(f"challenge {r.id} accepted with no game")
                        continue
                    if sorted(bound.get(r.game_id, {}).values()) != sorted([me, you]):
                        bad.append(f"challenge {r.id}: game {r.game_id} seats not bound to both accounts")
                    made_by[r.game_id] = r.id
                elif r.status == "pending":
                    if r.game_id is not None:
                        bad.append(f"challenge {r.id} pending with a game")
                    pending.append(r.id)
            for cid, gid in drill.acks.items():
                got = c.execute(sa.text("SELECT status, game_id FROM challenges WHERE id = :i"), {"i": cid}).first()
                if got is None or got.status != "accepted" or got.game_id != gid:
                    bad.append(f"acknowledged accept of {cid} (game {gid}) not kept: {got}")
            seeks_by_game: dict[str, list[Any]] = {}
            for r in c.execute(sa.text("SELECT id, status, game_id, seat, token FROM seeks")):
                if r.status == "paired":
                    if r.game_id is None or r.game_id not in games:
                        bad.append(f"seek {r.id} paired with no game")
                        continue
                    seeks_by_game.setdefault(r.game_id, []).append(r)
                elif r.status in ("open", "pairing") and r.game_id is not None:
                    bad.append(f"seek {r.id} {r.status} with a game")
            if drill.operation == "seek":
                drill.acknowledged = len(seeks_by_game)
            for gid, ss in seeks_by_game.items():
                if len(ss) != 2 or {s.seat for s in ss} != {0, 1}:
                    bad.append(f"game {gid} paired to {len(ss)} seeks")
                made_by.setdefault(gid, "seek")
            for gid in games:
                if gid not in made_by:
                    bad.append(f"game {gid} was made by no challenge or seek (an orphan)")
            for gid in drill.resigned:
                st = games.get(gid)
                if st is None or st.status != "finished":
                    bad.append(f"acknowledged resignation of {gid} not kept")
            unrated = c.execute(
                sa.text(
                    "SELECT a.game_id FROM account_games a JOIN games g ON g.id = a.game_id "
                    "WHERE a.rated = :t AND a.rated_at IS NULL AND g.status = 'finished'"
                ),
                {"t": True},
            ).all()
            bad += [f"finished rated game {gid} not rated after the restart" for (gid,) in unrated]
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
            view = b.get(f"/api/games/{got['game_id']}", params={"token": got["token"]}).json()
            if view.get("you") != got["seat"]:
                bad.append(f"the acceptor's token of game {got['game_id']} does not open his seat")
    if standing:  # a standing seek of the last round: cancelled so that the next round seeks again
        engine = sa.create_engine(url)
        with engine.begin() as c:
            c.execute(sa.text("UPDATE seeks SET status = 'cancelled' WHERE status IN ('open', 'pairing')"))
        engine.dispose()
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
