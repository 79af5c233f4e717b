"""An arena of many accounts and bots playing quick games through two real server processes on
PostgreSQL, with ``kill -9`` of a process in the middle.

Two ``tessera serve`` processes share a throwaway PostgreSQL cluster (tests/server/pg.py).
``--players`` accounts sign up (on either process), ``--bots`` of them as bots (upgraded through the
bot API), and all join one arena of ``--minutes`` of ``--game`` (a quick small variant).

- **People** play through the game API with a ``play`` token: the driver keeps every running game
  of a person in a round robin of ``--movers`` threads; each step reads the game as the seat to
  move (``GET /api/games/{id}``), draws one of its legal moves at random and posts it
  (``POST /api/games/{id}/moves``), each request to a process drawn at random (the other one when
  it does not answer).  Now and then an idle person berserks his next game.
- **Bots** are the reference bot client (tessera.botclient, a random agent): their games arrive as
  ``gameStart`` on their event stream and they play them through the bot API; when their process
  is killed they reconnect and resume.
- **Kills**: ``--kills`` times, evenly spread over the playing time, one process (the two in turn)
  is killed with ``kill -9`` and a new one started on the same address and database.
- **The end**: after the arena's end (or, with ``--play-seconds``, once everyone withdrew after that
  long and the games in progress are over) the driver checks, from the database and from both
  processes:

  - **identical standings**: ``GET /api/tournaments/{id}`` answers the same standings and pairings
    on both processes;
  - **no result lost**: every game that ended is recorded (``done``) with the places of its stored
    result, no pairing is left ``creating`` and no game exists without its pairing (nothing half
    made);
  - **no one paired twice**: no account is in two pairings whose times overlap, and every game's
    seats belong to the accounts of its pairing.

It prints one JSON object: the figures (games, results, moves, time, pairings checked, kills,
latencies, the checks).  The full run and a reduced one::

    python benchmarks/tournament_load.py --players 200 --bots 20 --minutes 6 --kills 2
    python benchmarks/tournament_load.py --players 12 --bots 2 --minutes 1 --play-seconds 20 --kills 1

A small seeded version of it runs in the test suite (tests/server/tournaments/test_tournament_load.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One ``tessera serve`` process on the database (``port``: the address of one it replaces)."""

    def __init__(self, url: str, wave: float, port: int | None = None) -> None:
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, "TESSERA_TOURNAMENT_WAVE": str(wave)}
        env.update({"TESSERA_SIGNUPS_PER_ADDRESS": "100000", "TESSERA_SEEK_WAVE": "3600", "TESSERA_RATE_BOT": "0"})
        env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE", "ANALYSIS", "IMPORT")})
        cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(self.port), "--db", url, "--ai-threads"]
        cmd += ["--max-connections-per-address", "0", "--log-level", "warning"]
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=self.log)

    def wait(self) -> None:
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"the server exited: {self.log.read()[-2000:].decode(errors='replace')}")
            try:
                if httpx.get(self.base + "/api/catalog", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()


def sign_up(base: str, name: str, bot: bool) -> str:
    """A new account and a token of it (``play``; a bot's: ``bot:play``, the account upgraded)."""
    with httpx.Client(base_url=base, headers={"Origin": base}, timeout=60) as c:
        r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        r.raise_for_status()
        r = c.post("/api/account/tokens", json={"scopes": ["bot:play"] if bot else ["play"]})
        r.raise_for_status()
        token = str(r.json()["token"])
    if bot:
        httpx.post(base + "/api/bot/account/upgrade", headers=bearer(token), timeout=60).raise_for_status()
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Cluster:
    """The two processes; requests go to one drawn at random, or the other when it does not answer."""

    def __init__(self, url: str, wave: float, rng: random.Random) -> None:
        self.url, self.wave, self.rng = url, wave, rng
        self.servers = [Server(url, wave), Server(url, wave)]
        for s in self.servers:
            s.wait()
        self.client = httpx.Client(timeout=30, limits=httpx.Limits(max_connections=64))
        self.failures = 0
        """Requests a process did not answer (sent again to the other)."""
        self._guard = threading.Lock()

    def call(self, method: str, path: str, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        with self._guard:
            first = self.rng.randrange(2)
        last: Exception | None = None
        for k in (first, 1 - first, first, 1 - first):
            try:
                return self.client.request(method, self.servers[k].base + path, headers=headers, **kw)
            except httpx.HTTPError as e:  # that process is down (killed): the other answers
                with self._guard:
                    self.failures += 1
                last = e
                time.sleep(0.2)
        assert last is not None
        raise last

    def kill_and_restart(self, k: int, record: dict[str, Any]) -> threading.Thread:
        """``kill -9`` of process ``k`` and a new one started on its address; a thread waiting until it
        answers sets ``record["restart_seconds"]`` (the driver goes on meanwhile: the other process
        answers)."""
        old = self.servers[k]
        old.kill9()
        a = time.time()
        self.servers[k] = new = Server(self.url, self.wave, port=old.port)

        def wait() -> None:
            new.wait()
            record["restart_seconds"] = round(time.time() - a, 1)

        th = threading.Thread(target=wait, daemon=True)
        th.start()
        return th

    def stop(self) -> None:
        self.client.close()
        for s in self.servers:  # both asked at once, then waited for
            if s.proc.poll() is None:
                s.proc.send_signal(signal.SIGINT)
        for s in self.servers:
            s.stop()


@dataclass
class Game:
    """A running game with at least one person's seat."""

    id: str
    seats: list[str]
    """The players' names in seat order."""
    people: dict[int, str]
    """The seats played by people (the others: bots)."""
    next: int | None = None
    """The seat to move, when known from the last answer."""


@dataclass
class Movers:
    """The people's moves: a round robin of the running games over a few threads."""

    cluster: Cluster
    auth: dict[str, dict[str, str]]
    threads: int
    seed: int
    tid: str = ""
    """The tournament (a person whose game ended may berserk his next one)."""
    berserk: float = 0.0
    """The chance that a person whose game ended berserks his next one."""
    queue: deque[Game] = field(default_factory=deque)
    moves: int = 0
    refused: int = 0
    berserks: int = 0
    move_seconds: list[float] = field(default_factory=list)
    done: set[str] = field(default_factory=set)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._guard = threading.Lock()
        self._workers = [
            threading.Thread(target=self._work, args=(random.Random(self.seed + i),), daemon=True)
            for i in range(self.threads)
        ]
        for w in self._workers:
            w.start()

    def add(self, g: Game) -> None:
        with self._guard:
            self.queue.append(g)

    def _work(self, rng: random.Random) -> None:
        while not self.stop.is_set():
            with self._guard:
                g = self.queue.popleft() if self.queue else None
            if g is None:
                time.sleep(0.05)
                continue
            try:
                going = self._step(g, rng)
            except httpx.HTTPError:
                going = True
            except RuntimeError:  # the client was closed: the run is over
                return
            if going:
                self.add(g)
                continue
            with self._guard:
                self.done.add(g.id)
            for name in g.people.values():
                if self.tid and rng.random() < self.berserk:
                    with contextlib.suppress(httpx.HTTPError, RuntimeError):
                        r = self.cluster.call("POST", f"/api/tournaments/{self.tid}/berserk", self.auth[name])
                        with self._guard:
                            self.berserks += r.status_code == 200

    def join(self) -> None:
        self.stop.set()
        for w in self._workers:
            w.join(10)

    def _step(self, g: Game, rng: random.Random) -> bool:
        """One move of a person in ``g`` if one is to move; whether the game goes on."""
        seat = g.next if g.next in g.people else next(iter(g.people))
        v = self.cluster.call("GET", f"/api/games/{g.id}", self.auth[g.people[seat]]).json()
        if v.get("status") != "active":
            return False
        to_move = v.get("to_move")
        if to_move not in g.people:  # a bot's turn
            g.next = None
            time.sleep(0.02)
            return True
        if to_move != seat:
            v = self.cluster.call("GET", f"/api/games/{g.id}", self.auth[g.people[to_move]]).json()
            if v.get("status") != "active" or v.get("to_move") != to_move:
                return v.get("status") == "active"
        actions = v["render"]["actions"]
        if not actions:
            return True
        a = rng.choice(actions)
        if "move" in a:
            mv = a["move"]
        elif a.get("choices"):
            mv = a["template"].replace("{n}", str(rng.choice(a["choices"])))
        else:
            lo, hi = a["number"]
            mv = a["template"].replace("{n}", str(rng.randint(lo, hi)))
        t = time.perf_counter()
        r = self.cluster.call(
            "POST",
            f"/api/games/{g.id}/moves",
            self.auth[g.people[to_move]],
            json={"move": mv, "expected": v["move_number"]},
        )
        if r.status_code != 200:
            with self._guard:
                self.refused += 1
            g.next = None
            return True
        with self._guard:
            self.moves += 1
            self.move_seconds.append(time.perf_counter() - t)
        ack = r.json()
        g.next = ack.get("to_move")
        return bool(ack.get("status") == "active")


def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    from tessera.botclient import Api, BotClient, load_player

    rng = random.Random(args.seed)
    t_start = time.time()
    cluster = Cluster(url, args.wave, rng)
    started = time.time() - t_start
    out: dict[str, Any] = {
        "players": args.players,
        "bots": args.bots,
        "game": args.game,
        "minutes": args.minutes,
        "play_seconds": args.play_seconds,
        "wave_seconds": args.wave,
        "seed": args.seed,
        "startup_seconds": round(started, 1),
    }
    bots_running: list[BotClient] = []
    movers: Movers | None = None
    try:
        t0 = time.time()
        people = [f"p{i:03d}" for i in range(args.players - args.bots)]
        bots = [f"b{i:03d}" for i in range(args.bots)]
        names = people + bots
        with ThreadPoolExecutor(4) as pool:
            made = pool.map(
                lambda i: sign_up(cluster.servers[i % 2].base, names[i], names[i] in bots), range(len(names))
            )
            tokens = dict(zip(names, made, strict=True))
        out["signup_seconds"] = round(time.time() - t0, 1)
        auth = {n: bearer(tok) for n, tok in tokens.items()}
        body = {
            "kind": "arena",
            "game": args.game,
            "clock": {"initial": args.initial, "increment": args.increment},
            "minutes": args.minutes,
            "rated": True,
            "name": "Load arena",
        }
        r = cluster.call("POST", "/api/tournaments", auth[people[0]], json=body)
        r.raise_for_status()
        tid, ends = r.json()["id"], float(r.json()["ends_at"])
        with ThreadPoolExecutor(4) as pool:
            list(
                pool.map(
                    lambda n: cluster.call("POST", f"/api/tournaments/{tid}/join", auth[n]).raise_for_status(), names
                )
            )
        for i, b in enumerate(bots):
            home = cluster.servers[(i + 1) % 2].base  # the first bot on the process killed second
            bot = BotClient(Api(home, tokens[b]), load_player(f"random(seed={args.seed + i})"))
            bot.start()
            bots_running.append(bot)
        movers = Movers(cluster, auth, args.movers, args.seed, tid, args.berserk)
        playing_from = time.time()
        play_until = playing_from + args.play_seconds if args.play_seconds else ends
        kill_at = [playing_from + (play_until - playing_from) * (k + 1) / (args.kills + 1) for k in range(args.kills)]
        kills: list[dict[str, Any]] = []
        restarts: list[threading.Thread] = []
        reads: list[float] = []
        seen: set[str] = set()
        rejoined = 0
        withdrawn = False
        v: dict[str, Any] = {}
        deadline = max(ends, play_until) + 120
        while time.time() < deadline:
            if kill_at and time.time() >= kill_at[0]:
                kill_at.pop(0)
                k = len(kills) % 2
                at = round(time.time() - playing_from, 1)
                kills.append({"process": k, "at_seconds": at})
                restarts.append(cluster.kill_and_restart(k, kills[-1]))
            a = time.perf_counter()
            try:
                v = cluster.call("GET", f"/api/tournaments/{tid}").json()
            except httpx.HTTPError:
                time.sleep(args.step)
                continue
            reads.append(time.perf_counter() - a)
            if v["status"] == "finished":
                break
            busy = set()
            for p in v["pairings"]:
                if p["status"] != "playing":
                    continue
                busy.update(p["players"])
                if p["game_id"] in seen:
                    continue
                seen.add(p["game_id"])
                mine = {s: n for s, n in enumerate(p["players"]) if n in people}
                if mine:
                    movers.add(Game(p["game_id"], p["players"], mine))
            if args.play_seconds and not withdrawn and time.time() >= play_until:
                with ThreadPoolExecutor(4) as pool:
                    list(pool.map(lambda n: cluster.call("POST", f"/api/tournaments/{tid}/withdraw", auth[n]), names))
                withdrawn = True
            if withdrawn and not busy and not kill_at:
                break
            if not withdrawn and time.time() < ends - 30:
                # a player withdrawn for missing his first move (as on lichess) joins again to play on
                for row in v["standings"]:
                    if row["withdrawn"]:
                        r = cluster.call("POST", f"/api/tournaments/{tid}/join", auth[row["username"]])
                        rejoined += r.status_code == 200
            time.sleep(args.step)
        for th in restarts:
            th.join(240)
        out["finished"] = v.get("status") == "finished"
        out["wait_after_play_seconds"] = round(time.time() - play_until, 1)
        time.sleep(2 * args.wave + 0.5)  # the last games recorded
        out["play_seconds_measured"] = round(time.time() - playing_from, 1)
        views = [cluster.client.get(s.base + f"/api/tournaments/{tid}").json() for s in cluster.servers]
        out["identical_standings"] = views[0]["standings"] == views[1]["standings"]
        out["identical_pairings"] = views[0]["pairings"] == views[1]["pairings"]
        out.update(check_database(url, tid))
        out["kills"] = kills
        out["moves_by_people"] = movers.moves
        out["moves_refused"] = movers.refused
        out["berserks_asked"] = movers.berserks
        out["joined_again_after_a_missed_first_move"] = rejoined
        out["bot_games"] = sum(len(b.games) for b in bots_running)
        out["bot_reconnects"] = sum(b.reconnects for b in bots_running)
        out["requests_retried_on_the_other_process"] = cluster.failures
        out["move_ms"] = _spread(movers.move_seconds)
        out["tournament_read_ms"] = _spread(reads)
        out["points_total"] = sum(r["points"] for r in views[0]["standings"])
        out["top"] = [
            {k: r[k] for k in ("username", "points", "games", "wins", "berserks")} for r in views[0]["standings"][:3]
        ]
    finally:
        if movers is not None:
            movers.join()
        for bot in bots_running:
            bot.stop(timeout=5)
        cluster.stop()
    out["seconds"] = round(time.time() - t_start, 1)
    return out


def _spread(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"n": 0}
    s = sorted(xs)
    return {
        "median": round(1000 * statistics.median(s), 1),
        "p95": round(1000 * s[int(0.95 * (len(s) - 1))], 1),
        "n": len(s),
    }


def check_database(url: str, tid: str) -> dict[str, Any]:
    """The checks on the stored rows: results, pairings made whole, no one in two games at once."""
    from tessera.server.accounts.tables import seat_accounts_table
    from tessera.server.match.tables import games_table
    from tessera.server.tournaments.places import places
    from tessera.server.tournaments.tables import tournament_pairings_table as tp
    from tessera.server.tournaments.tables import tournaments_table

    engine = sa.create_engine(url)
    with engine.connect() as c:
        rows = (
            c.execute(
                sa.select(tp, games_table.c.status.label("game_status"), games_table.c.result.label("game_result"))
                .select_from(tp.outerjoin(games_table, games_table.c.id == tp.c.game_id))
                .where(tp.c.tournament_id == tid)
            )
            .mappings()
            .all()
        )
        all_games = set(c.execute(sa.select(games_table.c.id)).scalars())
        seat_rows = c.execute(
            sa.select(seat_accounts_table.c.game_id, seat_accounts_table.c.seat, seat_accounts_table.c.user_id)
        ).all()
        finished_at = c.execute(
            sa.select(tournaments_table.c.finished_at).where(tournaments_table.c.id == tid)
        ).scalar()
    engine.dispose()
    seated: dict[str, dict[int, str]] = {}
    for gid, seat, uid in seat_rows:
        seated.setdefault(gid, {})[int(seat)] = uid
    statuses: dict[str, int] = {}
    lost = wrong = seats_wrong = results = 0
    spans: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        users = json.loads(r["users"])
        if r["game_id"] is not None and seated.get(r["game_id"]) != dict(enumerate(users)):
            seats_wrong += 1
        if r["game_status"] == "finished" and r["status"] != "unfinished":
            returns = (json.loads(r["game_result"] or "{}") or {}).get("returns")
            if r["status"] != "done":
                lost += 1
            elif returns:
                results += 1
                wrong += json.loads(r["result"]).get("places") != places(returns)
        if r["status"] in ("done", "unfinished", "playing"):
            for u in users:
                spans.setdefault(u, []).append((r["created_at"], r["ended_at"] or float("inf")))
    twice = 0
    for s in spans.values():
        s.sort()
        busy_until = float("-inf")
        for start, end in s:  # a pairing that starts before an earlier one of the same player ended
            twice += start < busy_until
            busy_until = max(busy_until, end)
    referenced = {r["game_id"] for r in rows if r["game_id"] is not None}
    return {
        "pairings": statuses,
        "pairings_checked": len(rows),
        "games_with_results": results,
        "results_lost": lost,
        "results_wrong": wrong,
        "paired_twice_at_once": twice,
        "seats_not_the_pairings": seats_wrong,
        "left_creating": statuses.get("creating", 0),
        "games_without_pairing": len(all_games - referenced),
        "tournament_finished": finished_at is not None,
    }


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--players", type=int, default=200, help="accounts in the arena, bots included")
    ap.add_argument("--bots", type=int, default=20, help="how many of them are bots")
    ap.add_argument("--minutes", type=int, default=6)
    ap.add_argument(
        "--play-seconds", type=float, default=0.0, help="withdraw everyone after this long (0: play to the end)"
    )
    ap.add_argument("--game", default="nume(size=2)")
    ap.add_argument("--initial", type=float, default=120.0, help="the clock's seconds per player")
    ap.add_argument("--increment", type=float, default=0.0)
    ap.add_argument("--kills", type=int, default=2, help="kill -9 of a process, this many times")
    ap.add_argument("--movers", type=int, default=12, help="threads playing the people's moves")
    ap.add_argument("--berserk", type=float, default=0.2, help="the chance that a person whose game ended berserks")
    ap.add_argument("--wave", type=float, default=1.0, help="seconds between the director's waves")
    ap.add_argument("--step", type=float, default=1.0, help="seconds between the driver's looks")
    ap.add_argument("--seed", type=int, default=1)
    return ap


def main(argv: list[str] | None = None, emit: Callable[[str], None] = print) -> dict[str, Any]:
    args = parser().parse_args(argv)
    if args.players < 2 or not 0 <= args.bots < args.players:
        raise SystemExit("--players at least 2, --bots fewer than the players")
    from tests.server.pg import postgres_cluster

    with postgres_cluster() as url:
        out = run(args, url)
    emit(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
