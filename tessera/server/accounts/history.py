"""Ratings, rating histories, leaderboards, the accounts of a game, an account's games and its
profile: the reading part of :class:`~tessera.server.accounts.store.AccountStore` about play."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2
from tessera.server.accounts.model import (
    DELETED_NAME,
    PAGE,
    StoreBase,
    User,
    rating_public,
    seat_result,
)
from tessera.server.accounts.queries import account_seats, name_and_deletion, rated_among, seat_holders_of
from tessera.server.accounts.rating import AI_ACCOUNTS, current, starting_rating
from tessera.server.accounts.security import Refused
from tessera.server.accounts.tables import (
    account_games_table,
    history_table,
    ratings_table,
    seat_accounts_table,
    users_table,
)
from tessera.server.match.queries import seat_games, seat_rows
from tessera.server.moderation.guards import engine_marked
from tessera.server.store.storage import Transaction


class HistoryQueries(StoreBase):
    """Ratings and histories (a part of :class:`~tessera.server.accounts.store.AccountStore`)."""

    # -- ratings and history -----------------------------------------------------------------
    def ratings(self, user: User, *, last_rated: bool = False) -> dict[str, dict[str, Any]]:
        """The account's rating per pool (game): rating, rd (grown by the idle time since the last
        rated game of the pool), provisional, games; with ``last_rated``, when that game was rated."""
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(sa.select(ratings_table).where(ratings_table.c.user_id == user.id)).mappings()
            return {
                r["pool"]: {
                    **rating_public(
                        current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"]), r["games"]
                    ),
                    **({"last_rated": r["updated_at"]} if last_rated else {}),
                }
                for r in sorted(rows, key=lambda r: r["pool"])
            }

    def rating_history(self, user: User, pool: str | None = None) -> list[dict[str, Any]]:
        """The account's rating after each rated game, oldest first (for the graph)."""
        q = sa.select(history_table).where(history_table.c.user_id == user.id)
        if pool is not None:
            q = q.where(history_table.c.pool == pool)
        with self.storage.transaction() as tx:
            return [
                {
                    "pool": r["pool"],
                    "game_id": r["game_id"],
                    "before": round(r["before"]),
                    "rating": round(r["rating"]),
                    "rd": round(r["rd"], 1),
                    "at": r["created_at"],
                }
                for r in tx.conn.execute(q.order_by(history_table.c.created_at)).mappings()
            ]

    def leaderboard(self, pool: str, limit: int = 100) -> list[dict[str, Any]]:
        """Players of a pool with a non-provisional rating, best first (deleted accounts left out); the
        deviation as it stands now (grown by idle time), so a player idle long enough drops out until
        he plays again."""
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(ratings_table, users_table.c.username, users_table.c.is_bot)
                .join(users_table, users_table.c.id == ratings_table.c.user_id)
                .where(
                    ratings_table.c.pool == pool,
                    ratings_table.c.rd < glicko2.PROVISIONAL_RD,
                    users_table.c.deleted_at.is_(None),
                    users_table.c.id.not_in(engine_marked()),
                )
                .order_by(ratings_table.c.rating.desc(), users_table.c.username_key)
            ).mappings()
            now = [(r, current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"])) for r in rows]
        shown = [(r, g) for r, g in now if not g.provisional][:limit]
        return [
            {
                "rank": i + 1,
                "username": r["username"],
                "is_bot": bool(r["is_bot"]),
                **rating_public(g, r["games"]),
            }
            for i, (r, g) in enumerate(shown)
        ]

    def game_accounts(self, game_id: str) -> dict[str, Any]:
        """Who holds the seats of a game (usernames; a deleted account as ``None``), whether it is
        rated, each seat's rating in the game's pool now (``current``: ``{"rating", "provisional"}``,
        an AI account's measured starting rating before its first game there), whether the account is
        a bot (``bot``: a bot-API account) or an AI level (``ai``: its level), and each seat's rating
        change once the game was rated."""
        with self.storage.transaction() as tx:
            meta = (
                tx.conn.execute(sa.select(account_games_table).where(account_games_table.c.game_id == game_id))
                .mappings()
                .first()
            )
            seats = tx.conn.execute(
                sa.select(
                    seat_accounts_table.c.seat,
                    users_table.c.id,
                    users_table.c.username,
                    users_table.c.deleted_at,
                    users_table.c.is_bot,
                )
                .join(users_table, users_table.c.id == seat_accounts_table.c.user_id)
                .where(seat_accounts_table.c.game_id == game_id)
                .order_by(seat_accounts_table.c.seat)
            ).all()
            changes = {
                r["user_id"]: r
                for r in tx.conn.execute(sa.select(history_table).where(history_table.c.game_id == game_id)).mappings()
            }
            pool = meta["pool"] if meta else None
            now_ratings: dict[str, glicko2.Rating] = {}
            if pool is not None:
                for uid in {row[1] for row in seats}:
                    r = (
                        tx.conn.execute(
                            sa.select(ratings_table).where(ratings_table.c.user_id == uid, ratings_table.c.pool == pool)
                        )
                        .mappings()
                        .first()
                    )
                    now_ratings[uid] = (
                        current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"])
                        if r is not None
                        else starting_rating(tx, uid, pool)
                    )
        out: dict[str, Any] = {
            "rated": bool(meta["rated"]) if meta else False,
            "pool": meta["pool"] if meta else None,
            "seats": {},
        }
        for seat, uid, name, deleted, is_bot in seats:
            entry: dict[str, Any] = {"username": None if deleted is not None else name}
            level = AI_ACCOUNTS.get(str(name))
            entry["ai"] = level
            entry["bot"] = bool(is_bot) and level is None
            if uid in now_ratings:
                r_now = now_ratings[uid]
                entry["current"] = {"rating": round(r_now.rating), "provisional": r_now.provisional}
            h = changes.get(uid)
            if h is not None:
                entry["rating"] = {
                    "before": round(h["before"]),
                    "after": round(h["rating"]),
                    "change": round(h["rating"]) - round(h["before"]),
                    "rd": round(h["rd"], 1),
                    "provisional": h["rd"] >= glicko2.PROVISIONAL_RD,
                }
            out["seats"][str(seat)] = entry
        return out

    def games(
        self,
        user: User,
        *,
        game: str | None = None,
        result: str | None = None,
        page: int | None = 1,
    ) -> dict[str, Any]:
        """The account's games, newest first: ``game`` filters by game name, ``result`` by ``win``,
        ``loss``, ``draw``, ``aborted`` or ``playing``; ``page`` counts from 1 (None: every game)."""
        if result is not None and result not in ("win", "loss", "draw", "aborted", "playing"):
            raise Refused(
                422, "result is one of win, loss, draw, aborted, playing", key="refusal.history.result_filter"
            )
        if page is not None and (not isinstance(page, int) or page < 1 or page > 10_000):
            raise Refused(422, "page counts from 1", key="refusal.history.page_from_one")
        with self.storage.transaction() as tx:
            rows = seat_games(tx, account_seats(user.id), game=game)
            rated = rated_among(tx, sorted({r.game_id for r in rows}))
            found: list[dict[str, Any]] = []
            seen: set[str] = set()
            for r in rows:
                if r.game_id in seen:  # two seats of one game (a hot-seat game claimed whole)
                    continue
                seen.add(r.game_id)
                outcome = "playing" if r.status != "finished" else seat_result(r.result, r.seat)
                if result is not None and outcome != result:
                    continue
                found.append(
                    {
                        "id": r.game_id,
                        "game": r.game,
                        "spec": r.spec,
                        "seat": r.seat,
                        "status": r.status,
                        "result": outcome,
                        "text": (r.result or {}).get("text"),
                        "rated": r.game_id in rated,
                        "created_at": r.created_at,
                        "updated_at": r.updated_at,
                    }
                )
            shown = found if page is None else found[(page - 1) * PAGE : page * PAGE]
            for g in shown:
                g["players"] = self._players(tx, g["id"])
        return {"games": shown, "page": page, "total": len(found), "per_page": PAGE}

    @staticmethod
    def _players(tx: Transaction, game_id: str) -> list[dict[str, Any]]:
        seats = seat_rows(tx, game_id)
        holders = seat_holders_of(tx, game_id, [s.seat for s in seats])
        accounts = name_and_deletion(tx, holders.values())
        out = []
        for s in seats:
            username, deleted = accounts.get(holders.get(s.seat, ""), (None, None))
            out.append(
                {
                    "seat": s.seat,
                    "name": DELETED_NAME if deleted is not None else (username or s.name),
                    "kind": s.kind,
                    "username": None if deleted is not None else username,
                }
            )
        return out

    def profile(self, user: User) -> dict[str, Any]:
        """The public profile: ratings per game, counts, joined, recent games."""
        every = self.games(user, page=None)["games"]
        counts = {k: sum(1 for g in every if g["result"] == k) for k in ("win", "loss", "draw", "aborted", "playing")}
        return {
            "username": user.username,
            "is_bot": user.is_bot,
            "joined": user.created_at,
            "ratings": self.ratings(user, last_rated=True),
            "counts": {"games": len(every), **counts},
            "recent": self.games(user, page=1)["games"][:10],
        }
