"""Bytes per move on the wire, whole views against light moves (issue 42; docs/render.md, "Light moves").

Starts ``tessera serve`` (SQLite file) and a byte-counting TCP proxy in front of it; every
connection of the client goes through the proxy, which counts the bytes the server sends on it
(HTTP headers, WebSocket frames, compressed or not: what the network carries).  For each game
(default: Nume, Nymbat and Nibble with their default parameters) two hot-seat games with the same
seed get the same ``--moves`` (30) random moves:

* **whole**: each move answered by the mover's whole view (``POST /moves``, the API's default),
  the viewers' sockets opened without ``?changes=1`` (a whole view per move: before light moves);
* **light**: each move answered by its acknowledgement and change (``"change": true``), the
  viewers' sockets opened with ``?changes=1``.

Each game has three viewers (both seats and a spectator), each twice: with permessage-deflate
offered (as browsers do; uvicorn accepts it) and without.  Per move it reports the median bytes
one viewer's socket received for that move, and the median bytes of the move's answer (on the
wire: the client accepts gzip, as browsers do, and the server compresses answers of 1 KB or more;
with what gzip at level 6 would make of the body), and the server's CPU per move in each mode
(the same run, the two modes in turns game after game).

    python benchmarks/move_bytes.py                    # nume, nymbat, nibble; 30 moves
    python benchmarks/move_bytes.py --games "nume(size=8)" --moves 30 --rounds 3
    git worktree add ../tessera-before <commit>
    python benchmarks/move_bytes.py --rounds 6 --before ../tessera-before   # before/after, one run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import ROOT, Servers, free_port

sys.path.insert(0, str(ROOT))
import tessera


class Counter:
    """Bytes the server sent on one proxied connection."""

    def __init__(self) -> None:
        self.down = 0


class Proxy:
    """A TCP proxy to ``target`` that counts, per connection, the bytes coming back.  The
    connections are taken in order by :meth:`next_counter` (each client connection is opened
    after asking for its counter)."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self.pending: list[Counter] = []
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    def next_counter(self) -> Counter:
        c = Counter()
        self.pending.append(c)
        return c

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        counter = self.pending.pop(0) if self.pending else Counter()
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, count: Counter | None) -> None:
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                while data := await src.read(65536):
                    if count is not None:
                        count.down += len(data)
                    dst.write(data)
                    await dst.drain()
            with contextlib.suppress(Exception):
                dst.close()

        with contextlib.suppress(asyncio.CancelledError):  # (the benchmark ends with connections open)
            await asyncio.gather(pipe(reader, up_w, None), pipe(up_r, writer, counter))


class Viewer:
    """One game socket through the proxy: follows the versions it is told of."""

    def __init__(self, name: str, counter: Counter, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.name = name
        self.counter = counter
        self.ws = ws
        self.version = -1
        self.per_move: list[int] = []
        self._mark = 0
        self.task = asyncio.ensure_future(self._listen())

    async def _listen(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            if data["type"] == "state":
                self.version = max(self.version, data["view"]["version"])
            elif data["type"] == "change":
                self.version = max(self.version, data["version"])

    def mark(self) -> None:
        self._mark = self.counter.down

    def record(self) -> None:
        self.per_move.append(self.counter.down - self._mark)


async def open_viewer(
    proxy: Proxy, gid: str, token: str | None, name: str, light: bool, deflate: bool
) -> tuple[Viewer, aiohttp.ClientSession]:
    counter = proxy.next_counter()
    session = aiohttp.ClientSession()
    url = f"ws://127.0.0.1:{proxy.port}/api/games/{gid}/ws" + ("?changes=1" if light else "")
    protocols = ("tessera.seat", f"seat.{token}") if token else ()
    ws = await session.ws_connect(url, protocols=protocols, compress=15 if deflate else 0, max_msg_size=0)
    return Viewer(name, counter, ws), session


async def play(proxy: Proxy, servers: Servers, spec: str, seed: int, moves: int, light: bool) -> dict[str, Any]:
    """One game of ``moves`` random moves in one mode; bytes per move per viewer and answer, CPU."""
    base = f"http://127.0.0.1:{proxy.port}"
    answer_counter = proxy.next_counter()
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1))
    sessions = [http]
    try:
        async with http.post(base + "/api/games", json={"game": spec, "seed": seed}) as r:
            body = await r.json()
        gid, tokens = body["id"], body["tokens"]
        viewers: list[Viewer] = []
        for deflate in (False, True):
            for who in ("0", "1", None):
                v, s = await open_viewer(proxy, gid, tokens.get(who) if who else None, f"{who}", light, deflate)
                v.name = f"{'seat ' + who if who else 'spectator'}{' deflate' if deflate else ''}"
                viewers.append(v)
                sessions.append(s)
        state = tessera.load_game(spec).new_initial_state(seed=seed)
        rng = random.Random(seed)
        answers: list[int] = []
        gzipped: list[int] = []
        cpu = 0.0
        deadline_missed = 0
        for _ in range(moves):
            if state.is_terminal():
                break
            await asyncio.sleep(0.05)  # the previous pushes are out (their bytes counted)
            for v in viewers:
                v.mark()
            mark = answer_counter.down
            mv = state.random_move(rng)
            seat = str(state.current_player())
            payload: dict[str, Any] = {"token": tokens[seat], "move": mv, "expected": state.move_number()}
            if light:
                payload["change"] = True
            cpu0 = servers.cpu()
            async with http.post(f"{base}/api/games/{gid}/moves", json=payload) as r:
                raw = await r.read()
                if r.status != 200:
                    raise RuntimeError(f"move refused: {r.status} {raw[:200]!r}")
            version = json.loads(raw)["version"]
            end = time.time() + 5
            while any(v.version < version for v in viewers) and time.time() < end:
                await asyncio.sleep(0.002)
            deadline_missed += any(v.version < version for v in viewers)
            cpu += servers.cpu() - cpu0
            answers.append(answer_counter.down - mark)
            gzipped.append(len(gzip.compress(raw)))
            for v in viewers:
                v.record()
            state.play(mv)
        n = len(answers)
        plain = [b for v in viewers if "deflate" not in v.name for b in v.per_move]
        packed = [b for v in viewers if "deflate" in v.name for b in v.per_move]
        return {
            "moves": n,
            "viewer_bytes_median": int(statistics.median(plain)),
            "viewer_bytes_median_deflate": int(statistics.median(packed)),
            "viewer_bytes_max": max(plain),
            "by_viewer_median": {v.name: int(statistics.median(v.per_move)) for v in viewers},
            "answer_bytes_median": int(statistics.median(answers)),
            "answer_body_gzip_median": int(statistics.median(gzipped)),
            "server_cpu_s": cpu,
            "viewers_late": deadline_missed,
        }
    finally:
        for s in sessions:
            await s.close()


def summary(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """One mode's games summed up: medians of the per-game medians, CPU per move over all its moves."""
    moves = sum(x["moves"] for x in rs)
    return {
        "viewer_bytes_median": int(statistics.median(x["viewer_bytes_median"] for x in rs)),
        "viewer_bytes_median_deflate": int(statistics.median(x["viewer_bytes_median_deflate"] for x in rs)),
        "answer_bytes_median": int(statistics.median(x["answer_bytes_median"] for x in rs)),
        "answer_body_gzip_median": int(statistics.median(x["answer_body_gzip_median"] for x in rs)),
        "server_cpu_ms_per_move": round(1000 * sum(x["server_cpu_s"] for x in rs) / moves, 2),
        "server_cpu_ms_per_move_median_game": round(
            statistics.median(1000 * x["server_cpu_s"] / x["moves"] for x in rs), 2
        ),
        "viewers_late": sum(x["viewers_late"] for x in rs),
        "by_viewer_median_first_round": rs[0]["by_viewer_median"],
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"moves": args.moves, "rounds": args.rounds, "games": {}}
    with tempfile.TemporaryDirectory(prefix="tessera-bytes-") as d:
        sides: dict[str, Servers] = {}
        try:
            if args.before:  # the other checkout's server first (it may compile its kernels meanwhile)
                sides["before"] = Servers(f"sqlite:///{d}/before.db", 1, root=Path(args.before).resolve())
            sides["after" if args.before else "this"] = Servers(f"sqlite:///{d}/bytes.db", 1)
            proxies: dict[str, Proxy] = {}
            async with aiohttp.ClientSession() as s:
                for side, servers in sides.items():
                    await servers.wait_ready(s)
                    proxies[side] = Proxy(int(servers.bases[0].rsplit(":", 1)[1]))
                    await proxies[side].start()
            for spec in args.games.split(";"):
                runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
                for side, servers in sides.items():  # warm-up: the game's kernels compile
                    await play(proxies[side], servers, spec, 999, 3, True)
                    await play(proxies[side], servers, spec, 998, 3, False)
                turns = [(side, mode) for side in sides for mode in ("whole", "light")]
                for r in range(args.rounds):  # in turns, the order reversed every other round
                    for side, mode in turns if r % 2 == 0 else turns[::-1]:
                        got = await play(proxies[side], sides[side], spec, 1000 + r, args.moves, mode == "light")
                        runs.setdefault((side, mode), []).append(got)
                if args.before:
                    game: dict[str, Any] = {
                        side: {m: summary(runs[(side, m)]) for m in ("whole", "light")} for side in sides
                    }
                else:
                    game = {m: summary(runs[("this", m)]) for m in ("whole", "light")}
                out["games"][spec] = game
                print(json.dumps({spec: game}), file=sys.stderr, flush=True)
        finally:
            for servers in sides.values():
                servers.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="nume;nymbat;nibble", help="game specs separated by ';'")
    ap.add_argument("--moves", type=int, default=30, help="moves per game (from the start)")
    ap.add_argument("--rounds", type=int, default=2, help="games per mode and spec (different seeds)")
    ap.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="another checkout of tessera (e.g. a `git worktree` of an earlier commit): a server of its code "
        "plays the same games in turns with this one's, and each figure is given for both (before/after)",
    )
    args = ap.parse_args()
    print(json.dumps(asyncio.run(main_async(args)), indent=2))


if __name__ == "__main__":
    main()
