"""Where puzzle positions come from: played games, as ``(label, game string, seed, stored moves)``.

* a server's database (``sqlite:///tessera.db``, ``postgresql://…``): every finished game of the
  asked game, read-only from its ``games`` and ``moves`` tables;
* record files (docs/records.md): a JSON record (``tessera-record``), a text record, or an arena
  results file (``results.jsonl`` written by ``tessera match … --json --moves --out DIR``); a
  directory is read file by file;
* self-play: games played here by two agents through the arena's runner (:func:`selfplay`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tessera.core.records import StoredMove, parse_text_record, play_stored, play_turn, replay_text_record
from tessera.core.registry import load_game


@dataclass(frozen=True)
class PlayedGame:
    """One played game: enough to replay every position of it."""

    label: str
    """Where it came from (a file and line, a database game id, a self-play seed)."""
    spec: str
    """The game string."""
    seed: int
    """The deal's seed."""
    moves: list[StoredMove]
    """The stored moves, ``(player, move)``."""


def _is_database(source: str) -> bool:
    return "://" in source and source.split("://", 1)[0].split("+", 1)[0] in ("sqlite", "postgresql", "postgres")


def read_source(source: str, game: str) -> Iterator[PlayedGame]:
    """Every played game of ``game`` (a name) in ``source``: a database URL, a file or a directory."""
    if _is_database(source):
        yield from read_database(source, game)
        return
    path = Path(source)
    if not path.exists():
        raise ValueError(f"no such file, directory or database URL: {source!r}")
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        if f.suffix in (".json", ".jsonl", ".txt", ".tessera"):
            yield from read_file(f, game)


def read_file(path: Path, game: str) -> Iterator[PlayedGame]:
    """The games of ``game`` in one record file (JSON record, text record or arena results)."""
    text = path.read_text(encoding="utf-8")
    head = text.lstrip()[:1]
    if head == "[":
        state = replay_text_record(text)
        if state.game.name == game:
            seed = parse_text_record(text)[1]
            yield PlayedGame(str(path), str(state.game), seed, list(state.history()))
        return
    if head != "{":
        return
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    rows = [whole] if isinstance(whole, dict) else [json.loads(line) for line in text.splitlines() if line.strip()]
    for n, row in enumerate(rows, 1):
        label = f"{path}:{n}" if len(rows) > 1 else str(path)
        if row.get("format") == "tessera-record":
            if row.get("game") != game:
                continue
            state = load_game(row["spec"]).new_initial_state(seed=int(row.get("seed", 0)))
            for i, turn in enumerate(row.get("turns", []), 1):
                play_turn(state, turn, i)
            yield PlayedGame(label, row["spec"], int(row.get("seed", 0)), list(state.history()))
        elif "moves" in row and "deal_seed" in row:  # an arena results line
            spec = str(row["game"])
            if load_game(spec).name != game or not row["moves"] or row.get("error"):
                continue
            state = load_game(spec).new_initial_state(seed=int(row["deal_seed"]))
            for move in row["moves"]:
                state.play(move)
            yield PlayedGame(label, spec, int(row["deal_seed"]), list(state.history()))


def read_database(url: str, game: str) -> Iterator[PlayedGame]:
    """The finished games of ``game`` in a tessera server's database (read only, newest first)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT id, spec, seed FROM games WHERE game = :g AND status = 'finished' ORDER BY updated_at DESC"
                ),
                {"g": game},
            ).all()
            for gid, spec, seed in rows:
                moves = conn.execute(
                    sa.text("SELECT player, move FROM moves WHERE game_id = :id ORDER BY move_index"), {"id": gid}
                ).all()
                yield PlayedGame(f"game {gid}", str(spec), int(seed), [(int(p), str(m)) for p, m in moves])
    finally:
        engine.dispose()


def selfplay(
    spec: str, games: int, agents: tuple[str, str], seed: int = 0, *, stop: int | None = None
) -> Iterator[PlayedGame]:
    """``games`` self-play games of ``spec`` between ``agents`` (seats alternated), by the arena's runner.

    ``stop``: each game is played for that many plies at most, by :func:`play_on` (where a game's
    puzzles come early — Ikabegamá's races in the opening — the rest of a long game is not played).
    ``ValueError`` for a ``stop`` below 1.
    """
    from tessera.arena.play import Task, play_task

    if stop is not None and stop < 1:
        raise ValueError(f"stop must be 1 or more plies, not {stop!r}")
    for i in range(games):
        seats = agents if i % 2 == 0 else (agents[1], agents[0])
        label = f"self-play {seats[0]} vs {seats[1]}, seed {seed + i}"
        if stop is not None:
            moves = play_on(PlayedGame(label, spec, seed + i, []), 0, seats, f"puzzles/{seed + i}", stop=stop)
            if moves is not None:
                yield PlayedGame(f"{label}, {stop} plies at most", spec, seed + i, moves)
            continue
        task = Task(str(i), spec, seats=seats, deal_seed=seed + i, agent_seed=f"puzzles/{seed + i}", moves=True)
        result = play_task(task)
        if result.error:
            continue
        state = load_game(spec).new_initial_state(seed=seed + i)
        for move in result.moves:
            state.play(move)
        yield PlayedGame(label, spec, seed + i, list(state.history()))


def play_on(
    played: PlayedGame, start: int, seats: tuple[str, str], agent_seed: str, *, stop: int | None = None
) -> list[StoredMove] | None:
    """The moves of a game that plays ``played`` up to ply ``start`` and goes on with ``seats``' agents.

    The agents (by seat) choose with generators seeded from ``agent_seed``, until the game ends or
    (``stop``) has that many plies; ``None`` when the game does not end within the game's length
    limit or an agent fails (the game is left out, as the arena's runner leaves out a failed game).
    """
    import random

    from tessera.agents import make_agent

    state = load_game(played.spec).new_initial_state(seed=played.seed)
    for player, move in played.moves[:start]:
        play_stored(state, player, move)
    agents = [make_agent(s) for s in seats]
    rngs = [random.Random(f"{agent_seed}/{p}") for p in range(len(seats))]
    for _ in range(state.game.max_game_length() + 10):
        if state.is_terminal() or (stop is not None and len(state.history()) >= stop):
            return list(state.history())
        p = state.current_player()
        if not 0 <= p < len(agents):
            return None  # a simultaneous or chance node: this is for turn-based games
        try:
            move = agents[p].choose(state, rng=rngs[p])
            if isinstance(move, str):
                state.play(move)
            else:
                state.apply_action(move)
        except Exception:  # an agent's failure leaves the game out, as the arena's runner does
            return None
    return None


__all__ = ["PlayedGame", "play_on", "read_database", "read_file", "read_source", "selfplay"]
