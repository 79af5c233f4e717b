"""What the bot API reads and writes: the upgrade, the bots' presence, and the facts its streams
send (an account's ongoing games and pending challenges, a game's players).

Synchronous, like :mod:`tessera.server.accounts.store` (the routes run it in the thread pool);
the accounts' tables are only read here, except ``users.is_bot`` which the upgrade sets.
"""

from __future__ import annotations

import re
import time
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2
from tessera.server.accounts.queries import (
    account_seats,
    game_pool,
    has_seats,
    make_bot,
    name_bot_deletion,
    names_among,
    names_in_key_order,
    rating_rows,
    seat_holders_of,
)
from tessera.server.accounts.security import Refused
from tessera.server.accounts.store import AccountStore, User
from tessera.server.bot.tables import bots_table
from tessera.server.match.queries import game_row, seat_games, seat_rows

ONLINE_SECONDS = 20.0
"""A bot whose event stream was seen open within this many seconds is online."""

AI_NAME = re.compile(r"^ai-level\d+$")
"""The AI levels' accounts: ``is_bot`` too, but played by the server, not through the bot API."""

DECLINE_REASONS = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "tooFast": "This time control is too fast for me, please challenge again with a slower game.",
    "tooSlow": "This time control is too slow for me, please challenge again with a faster game.",
    "timeControl": "I'm not accepting challenges with this time control.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "variant": "I'm not willing to play this game or variant right now.",
    "noBot": "I'm not accepting challenges from bots.",
    "onlyBot": "I'm only accepting challenges from bots.",
}
"""The decline reasons a challenged player (a bot, or a person) may give by key, and what the
challenger is told (the web client shows them in the player's language)."""


def decline_reason(reason: str | None) -> str | None:
    """The reason to store for a decline: a key of :data:`DECLINE_REASONS` as it is (any case),
    other text (a person's own words) as it is, nothing as None."""
    text = (reason or "").strip()
    if not text:
        return None
    for key in DECLINE_REASONS:
        if text.lower() == key.lower():
            return key
    return text


def is_api_bot(user: User) -> bool:
    """Whether ``user`` is a bot of the bot API (not an AI level's account)."""
    return user.is_bot and not AI_NAME.match(user.username)


class BotStore:
    """The bot API's reads and writes on one database."""

    def __init__(self, accounts: AccountStore) -> None:
        self.accounts = accounts
        self.storage = accounts.storage

    # -- the upgrade ------------------------------------------------------------------------
    def upgrade(self, user: User) -> User:
        """Make ``user`` a bot, for good: refused (409) if it is one already or has played or been
        seated in any game (a bot's rating and history are a bot's from the first game)."""
        if user.is_bot:
            raise Refused(
                409,
                "this account is a bot already" if is_api_bot(user) else "an AI account is not upgraded",
                key="refusal.bot.already" if is_api_bot(user) else "refusal.bot.ai_account",
            )
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            if has_seats(tx, user.id):
                raise Refused(
                    409, "only an account that has played no game can become a bot", key="refusal.bot.played_games"
                )
            if not make_bot(tx, user.id):
                raise Refused(409, "this account is a bot already", key="refusal.bot.already")
            tx.conn.execute(bots_table.insert().values(user_id=user.id, upgraded_at=now, seen_at=0.0))
        return User(user.id, user.username, True, user.created_at, user.deleted_at)

    # -- presence ---------------------------------------------------------------------------
    def seen(self, user: User, *, gone: bool = False) -> None:
        """The bot's event stream is open now (``gone``: it just closed)."""
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                bots_table.update().where(bots_table.c.user_id == user.id).values(seen_at=0.0 if gone else time.time())
            )

    def announce_stream(self, token_key: str, opened: float) -> None:
        """Tell the other server processes (PostgreSQL) that an event stream of ``token_key`` opened at
        ``opened``: theirs of the same token, if older, ends (:class:`~tessera.server.events.StreamOpened`)."""
        if self.storage.engine.dialect.name != "postgresql":
            return
        from tessera.server.store.bus import CHANNEL, stream_notice

        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(sa.select(sa.func.pg_notify(CHANNEL, stream_notice(token_key, opened))))

    def online(self, limit: int = 100) -> list[dict[str, Any]]:
        """The bots whose event stream is open (seen within :data:`ONLINE_SECONDS`), by name, with
        their ratings."""
        since = time.time() - ONLINE_SECONDS
        with self.storage.transaction() as tx:
            b = bots_table.c
            rows = names_in_key_order(tx, sa.select(b.user_id).where(b.seen_at >= since), open_only=True, limit=limit)
            ratings: dict[str, dict[str, Any]] = {}
            for r in rating_rows(tx, [uid for uid, _ in rows]):
                ratings.setdefault(r["user_id"], {})[r["pool"]] = _rating(r)
        return [{"username": name, "bot": True, "ratings": ratings.get(uid, {})} for uid, name in rows]

    # -- what the event stream sends ---------------------------------------------------------
    def ongoing(self, user: User) -> dict[str, dict[str, Any]]:
        """The account's games that are not over, by id: ``{"id", "game", "spec", "seat", "status"}``."""
        with self.storage.transaction() as tx:
            rows = seat_games(tx, account_seats(user.id), unfinished=True, oldest_first=True)
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            out.setdefault(
                r.game_id, {"id": r.game_id, "game": r.game, "spec": r.spec, "seat": r.seat, "status": r.status}
            )
        return out

    def game_summary(self, game_id: str, seat: int | None = None) -> dict[str, Any] | None:
        """A game as the event stream names it: id, game, spec, status, result, rated, clock
        settings, players, and the account's ``seat``."""
        with self.storage.transaction() as tx:
            g = game_row(tx, game_id)
        if g is None:
            return None
        clock = g.clock
        players, rated = self.players(game_id)
        return {
            "id": g.id,
            "game": g.game,
            "spec": g.spec,
            "seat": seat,
            "status": g.status,
            "result": g.result,
            "rated": rated,
            "clock": None if clock is None else {"initial": clock["initial"], "increment": clock["increment"]},
            "players": players,
        }

    def players(self, game_id: str) -> tuple[list[dict[str, Any]], bool]:
        """Each seat's player (``name``, ``account`` or None, ``rating`` in the game's pool or None,
        ``provisional``, ``bot``, ``ai``: an AI seat) and whether the game is rated."""
        with self.storage.transaction() as tx:
            meta = game_pool(tx, game_id)
            seats = seat_rows(tx, game_id)
            holders = seat_holders_of(tx, game_id, [x.seat for x in seats])
            accounts = name_bot_deletion(tx, holders.values())
            pool = meta[1] if meta else None
            ratings = {}
            if pool is not None:
                for m in rating_rows(tx, sorted(set(holders.values())), pool):
                    ratings[m["user_id"]] = _rating(m)
        players = []
        for r in seats:
            uid = holders.get(r.seat)
            username, is_bot, deleted_at = accounts.get(uid or "", (None, False, None))
            uid = uid if uid in accounts else None  # an account since removed: as if none held the seat
            named = username if username is not None and deleted_at is None else None
            rating = ratings.get(uid) if uid is not None else None
            if rating is None and uid is not None and pool is not None:
                rating = _rating(None)
            players.append(
                {
                    "seat": r.seat,
                    "name": named or r.name,
                    "account": named,
                    "rating": None if rating is None else rating["rating"],
                    "provisional": None if rating is None else rating["provisional"],
                    "bot": is_bot and named is not None and not AI_NAME.match(named),
                    "ai": r.kind == "ai",
                    "level": r.level,
                }
            )
        return players, meta[0] if meta else False

    def pending_challenges(self, user: User) -> dict[str, dict[str, Any]]:
        """The account's pending challenges both ways, by id, each with its ``direction`` (``in``:
        to the account) and whether the other side is a bot."""
        found = self.accounts.challenges(user, pending_only=True)
        out: dict[str, dict[str, Any]] = {}
        for direction, key in (("in", "incoming"), ("out", "outgoing")):
            for c in found[key]:
                out[c["id"]] = {**c, "direction": direction}
        bots = self._bots({c["from"] for c in out.values()} | {c["to"] for c in out.values()})
        for c in out.values():
            c["from_bot"], c["to_bot"] = c["from"] in bots, c["to"] in bots
        return out

    def challenge_now(self, cid: str) -> dict[str, Any] | None:
        """A challenge as it is now (its status and reason once settled), with the reason's text."""
        c = self.accounts.challenge(cid)
        if c is None:
            return None
        public = {k: v for k, v in c.items() if not k.startswith("_")}
        reason = public.get("reason")
        public["reason_text"] = DECLINE_REASONS.get(reason, reason) if reason else None
        return public

    def _bots(self, names: set[str | None]) -> set[str]:
        wanted = [n for n in names if n]
        if not wanted:
            return set()
        with self.storage.transaction() as tx:
            return names_among(tx, sa.select(bots_table.c.user_id), wanted)


def _rating(r: Any) -> dict[str, Any]:
    rating = glicko2.Rating() if r is None else glicko2.Rating(r["rating"], r["rd"], r["vol"])
    return {
        "rating": round(rating.rating),
        "rd": round(rating.rd, 1),
        "provisional": rating.provisional,
        "games": 0 if r is None else r["games"],
    }
