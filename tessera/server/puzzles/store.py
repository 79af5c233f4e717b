"""The puzzle bank (the shipped puzzles in memory) and the puzzle tables' only queries.

:class:`PuzzleBank` holds every puzzle the server plays: those shipped with tessera
(``tessera/puzzles/data``) and, when ``TESSERA_PUZZLES_DIR`` names a directory, the ``*.jsonl``
files in it (an operator's own, made with ``tessera puzzles make``; an id found twice is the
directory's).  :class:`PuzzleStore` rates: a finished attempt of an account is one Glicko-2
rating period for the account against the puzzle and for the puzzle against the account (the
server's :mod:`~tessera.server.accounts.glicko2`); only an account's first finished attempt at a
puzzle counts, and guests play unrated.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.puzzles.model import Puzzle, read_puzzles, shipped
from tessera.server.accounts import glicko2
from tessera.server.http.errors import ServiceError
from tessera.server.puzzles.tables import puzzle_attempts_table, puzzle_players_table, puzzle_ratings_table
from tessera.server.store.storage import Storage

PUZZLE_START_RD = 300.0
"""A puzzle's first deviation: its starting rating is the finder's guess (docs/puzzles.md)."""

NEAREST = 5
"""``next`` picks at random among this many unplayed puzzles nearest the player's rating."""

HISTORY = 30
"""Attempts listed by ``GET /api/puzzles/me``."""


class PuzzleBank:
    """Every puzzle the server plays, by id and by game."""

    def __init__(self, puzzles: Iterable[Puzzle]) -> None:
        self.by_id: dict[str, Puzzle] = {}
        for p in puzzles:
            self.by_id[p.id] = p
        self.by_game: dict[str, list[Puzzle]] = {}
        for p in sorted(self.by_id.values(), key=lambda p: p.id):
            self.by_game.setdefault(p.game, []).append(p)

    @classmethod
    def load(cls, directory: str | None = None) -> PuzzleBank:
        """The shipped puzzles, plus those of ``directory`` (default ``TESSERA_PUZZLES_DIR``)."""
        directory = directory if directory is not None else os.environ.get("TESSERA_PUZZLES_DIR")
        puzzles = shipped()
        if directory:
            path = Path(directory)
            if not path.is_dir():
                raise ValueError(f"TESSERA_PUZZLES_DIR: no such directory: {directory!r}")
            for f in sorted(path.glob("*.jsonl")):
                puzzles.extend(read_puzzles(f))
        return cls(puzzles)

    def get(self, puzzle_id: str) -> Puzzle:
        """The puzzle ``puzzle_id`` (404 if there is none)."""
        p = self.by_id.get(puzzle_id)
        if p is None:
            raise ServiceError(404, f"no puzzle {puzzle_id!r}", key="refusal.puzzles.unknown", args={"id": puzzle_id})
        return p

    def of_game(self, game: str) -> list[Puzzle]:
        """The puzzles of ``game`` (404 naming the games that have puzzles if it has none)."""
        out = self.by_game.get(game)
        if not out:
            known = ", ".join(sorted(self.by_game)) or "none"
            raise ServiceError(
                404,
                f"no puzzles of the game {game!r}; games with puzzles: {known}",
                key="refusal.puzzles.no_game",
                args={"game": game, "known": known},
            )
        return out

    def daily(self, game: str, day: dt.date) -> Puzzle:
        """The puzzle of the day for ``game``: the same for everyone on one (UTC) day."""
        puzzles = self.of_game(game)
        digest = hashlib.sha256(f"{game}/{day.isoformat()}".encode()).hexdigest()
        return puzzles[int(digest, 16) % len(puzzles)]


@dataclass(frozen=True)
class PlayerRating:
    """An account's puzzle rating and streaks in one game."""

    rating: glicko2.Rating
    streak: int
    best_streak: int
    solved: int
    failed: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``rating`` (rounded), ``rd``, ``provisional``, streaks and counts."""
        return {
            "rating": round(self.rating.rating),
            "rd": round(self.rating.rd),
            "provisional": self.rating.provisional,
            "streak": self.streak,
            "best_streak": self.best_streak,
            "solved": self.solved,
            "failed": self.failed,
        }


NEW_PLAYER = PlayerRating(glicko2.Rating(), 0, 0, 0, 0)


class PuzzleStore:
    """Puzzle ratings, players' puzzle ratings and rated attempts (module docstring)."""

    def __init__(self, storage: Storage, bank: PuzzleBank, now: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.bank = bank
        self.now = now

    # -- reading ---------------------------------------------------------------------------
    def puzzle_rating(self, puzzle: Puzzle, conn: Any = None) -> glicko2.Rating:
        """The puzzle's rating now (its starting rating until it is first played rated)."""
        if conn is None:
            with self.storage.transaction() as tx:
                return self.puzzle_rating(puzzle, tx.conn)
        t = puzzle_ratings_table
        row = conn.execute(sa.select(t.c.rating, t.c.rd, t.c.vol).where(t.c.puzzle_id == puzzle.id)).first()
        if row is None:
            return glicko2.Rating(puzzle.rating, PUZZLE_START_RD)
        return glicko2.Rating(float(row[0]), float(row[1]), float(row[2]))

    def ratings_of(self, game: str) -> dict[str, float]:
        """The current rating of every puzzle of ``game`` that has been played rated."""
        t = puzzle_ratings_table
        with self.storage.transaction() as tx:
            return {
                pid: float(r)
                for pid, r in tx.conn.execute(sa.select(t.c.puzzle_id, t.c.rating).where(t.c.game == game))
            }

    def player(self, user_id: str, game: str, conn: Any = None, *, lock: bool = False) -> PlayerRating:
        """The account's puzzle rating in ``game`` (a new player's if it has none); ``lock``: its row is
        locked until the transaction ends (PostgreSQL; SQLite's writers take turns anyway)."""
        if conn is None:
            with self.storage.transaction() as tx:
                return self.player(user_id, game, tx.conn)
        t = puzzle_players_table
        q = sa.select(t.c.rating, t.c.rd, t.c.vol, t.c.streak, t.c.best_streak, t.c.solved, t.c.failed).where(
            t.c.user_id == user_id, t.c.game == game
        )
        row = conn.execute(q.with_for_update() if lock else q).first()
        if row is None:
            return NEW_PLAYER
        return PlayerRating(glicko2.Rating(row[0], row[1], row[2]), int(row[3]), int(row[4]), int(row[5]), int(row[6]))

    def played(self, user_id: str, game: str) -> set[str]:
        """The puzzles of ``game`` the account has finished."""
        t = puzzle_attempts_table
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(sa.select(t.c.puzzle_id).where(t.c.user_id == user_id, t.c.game == game))
            return {r[0] for r in rows}

    def finished(self, user_id: str, puzzle_id: str) -> bool:
        """Whether the account has finished ``puzzle_id`` (its rated attempt is stored)."""
        t = puzzle_attempts_table
        with self.storage.transaction() as tx:
            row = tx.conn.execute(sa.select(t.c.won).where(t.c.user_id == user_id, t.c.puzzle_id == puzzle_id)).first()
            return row is not None

    def next_for(self, user_id: str | None, game: str, theme: str | None, rng: random.Random) -> Puzzle:
        """A puzzle of ``game`` near the player's rating (a guest: the start rating) that he has not finished."""
        puzzles = self.bank.of_game(game)
        if theme is not None:
            puzzles = [p for p in puzzles if theme in p.themes]
            if not puzzles:
                raise ServiceError(
                    404,
                    f"no puzzles of {game} with the theme {theme!r}",
                    key="refusal.puzzles.no_theme",
                    args={"game": game, "theme": theme},
                )
        target = glicko2.START_RATING if user_id is None else self.player(user_id, game).rating.rating
        done = set() if user_id is None else self.played(user_id, game)
        fresh = [p for p in puzzles if p.id not in done] or puzzles  # all finished: start again
        current = self.ratings_of(game)
        fresh.sort(key=lambda p: (abs(current.get(p.id, p.rating) - target), p.id))
        return rng.choice(fresh[:NEAREST])

    def history(self, user_id: str, limit: int = HISTORY) -> list[dict[str, Any]]:
        """The account's finished puzzles, newest first."""
        t = puzzle_attempts_table
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(t.c.puzzle_id, t.c.game, t.c.won, t.c.viewed, t.c.rating_before, t.c.rating_after, t.c.at)
                .where(t.c.user_id == user_id)
                .order_by(t.c.at.desc(), t.c.puzzle_id)
                .limit(limit)
            ).all()
        return [
            {
                "id": r[0],
                "game": r[1],
                "won": bool(r[2]),
                "viewed": bool(r[3]),
                "rating_before": round(r[4]),
                "rating_after": round(r[5]),
                "at": r[6],
            }
            for r in rows
        ]

    def summary(self, user_id: str) -> dict[str, Any]:
        """The account's puzzle rating and streaks in each game it has played puzzles of."""
        t = puzzle_players_table
        with self.storage.transaction() as tx:
            games = [r[0] for r in tx.conn.execute(sa.select(t.c.game).where(t.c.user_id == user_id))]
            return {g: self.player(user_id, g, tx.conn).as_dict() for g in sorted(games)}

    # -- rating ----------------------------------------------------------------------------
    def finish(self, user_id: str, puzzle: Puzzle, *, won: bool, viewed: bool) -> dict[str, Any] | None:
        """Rate the account's first finished attempt at ``puzzle``: both ratings move, in one transaction.

        ``None`` when the account had already finished it (only the first attempt counts).  A first
        row written at the same moment by another request (the account's row in the game, the
        puzzle's rating) makes the transaction fail as a whole; it is then run once more.
        """
        for _ in range(2):
            try:
                return self._finish(user_id, puzzle, won=won, viewed=viewed)
            except IntegrityError:
                if self.finished(user_id, puzzle.id):
                    return None  # finished already (by another request at the same time)
        return self._finish(user_id, puzzle, won=won, viewed=viewed)

    def _finish(self, user_id: str, puzzle: Puzzle, *, won: bool, viewed: bool) -> dict[str, Any]:
        now = self.now()
        with self.storage.transaction(write=True) as tx:
            conn = tx.conn
            before = self.player(user_id, puzzle.game, conn, lock=True)
            mine = before.rating
            theirs = self.puzzle_rating(puzzle, conn)
            score = 1.0 if won else 0.0
            after = glicko2.update(mine, [(theirs, score)])
            puzzle_after = glicko2.update(theirs, [(mine, 1.0 - score)])
            conn.execute(
                puzzle_attempts_table.insert().values(
                    user_id=user_id,
                    puzzle_id=puzzle.id,
                    game=puzzle.game,
                    won=won,
                    viewed=viewed,
                    rating_before=mine.rating,
                    rating_after=after.rating,
                    at=now,
                )
            )
            streak = before.streak + 1 if won else 0
            player = PlayerRating(
                after,
                streak,
                max(before.best_streak, streak),
                before.solved + int(won),
                before.failed + int(not won),
            )
            self._put_player(conn, user_id, puzzle.game, player, now, new=before is NEW_PLAYER)
            self._put_puzzle(conn, puzzle, puzzle_after, won)
        return {
            **player.as_dict(),
            "rating_before": round(mine.rating),
            "change": round(after.rating - mine.rating),
            "puzzle_rating": round(puzzle_after.rating),
        }

    def _put_player(self, conn: Any, user_id: str, game: str, p: PlayerRating, now: float, *, new: bool) -> None:
        t = puzzle_players_table
        values = {
            "rating": p.rating.rating,
            "rd": p.rating.rd,
            "vol": p.rating.vol,
            "streak": p.streak,
            "best_streak": p.best_streak,
            "solved": p.solved,
            "failed": p.failed,
            "updated_at": now,
        }
        if new:
            conn.execute(t.insert().values(user_id=user_id, game=game, **values))
        else:
            conn.execute(t.update().where(t.c.user_id == user_id, t.c.game == game).values(**values))

    def _put_puzzle(self, conn: Any, puzzle: Puzzle, r: glicko2.Rating, won: bool) -> None:
        t = puzzle_ratings_table
        # the player's win is the puzzle's loss
        changed = conn.execute(
            t.update()
            .where(t.c.puzzle_id == puzzle.id)
            .values(rating=r.rating, rd=r.rd, vol=r.vol, plays=t.c.plays + 1, wins=t.c.wins + int(not won))
        ).rowcount
        if not changed:
            conn.execute(
                t.insert().values(
                    puzzle_id=puzzle.id,
                    game=puzzle.game,
                    rating=r.rating,
                    rd=r.rd,
                    vol=r.vol,
                    plays=1,
                    wins=int(not won),
                )
            )


__all__ = ["HISTORY", "NEAREST", "PUZZLE_START_RD", "PlayerRating", "PuzzleBank", "PuzzleStore"]
