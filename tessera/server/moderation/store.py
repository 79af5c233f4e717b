"""The moderation tables' only queries: reports, blocks, the admin role, moderators' actions and their
log, and the stored engine-use signals (docs/moderation.md).

Every action of a moderator is written to ``moderation_log`` in the same transaction as its effect
(closing an account: right after the account store's transaction that closes it).  Nothing here
acts by itself: the engine-use signal is shown to a moderator for review, and only a moderator
marks an account.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.model import User
from tessera.server.accounts.queries import (
    account_seats,
    holds_seat,
    names,
    names_in_key_order,
    people,
    rated_among,
)
from tessera.server.accounts.security import Refused
from tessera.server.chat.queries import message as chat_message
from tessera.server.chat.queries import messages_by
from tessera.server.match.queries import game_exists, seat_games
from tessera.server.moderation.tables import (
    blocks_table,
    engine_signals_table,
    moderation_accounts_table,
    moderation_log_table,
    reports_table,
)
from tessera.server.store.storage import Storage, Transaction

REASONS = ("abuse", "cheating", "spam", "boosting", "username", "other")
"""Why a player reports: insults or harassment, engine use, spam, rating manipulation, an offensive
name, something else (the free text says what)."""

ACTIONS = ("warn", "mute", "unmute", "close", "engine", "clear_engine")
"""What a moderator does to an account (each one logged)."""

MAX_TEXT = 1000
"""The longest free text of a report or a moderator's note, in characters."""

MAX_BLOCKS = 500
"""The most accounts one account may block."""

MIN_SIGNAL_MOVES = 20
"""An account's signal counts in the distribution among ordinary players from this many moves."""


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Refused(400, f"{what} must be a string", key="refusal.moderation.text_not_string", args={"what": what})
    value = value.strip()
    if len(value) > MAX_TEXT:
        raise Refused(
            400,
            f"{what} is too long: at most {MAX_TEXT} characters",
            key="refusal.moderation.text_too_long",
            args={"what": what, "max": MAX_TEXT},
        )
    return value


def _standing(tx: Transaction, user_id: str) -> dict[str, Any]:
    m = moderation_accounts_table
    r = tx.conn.execute(sa.select(m).where(m.c.user_id == user_id)).mappings().first()
    if r is None:
        return {"is_admin": False, "chat_muted": False, "engine": False, "warnings": 0}
    return {
        "is_admin": bool(r["is_admin"]),
        "chat_muted": bool(r["chat_muted"]),
        "engine": bool(r["engine"]),
        "warnings": int(r["warnings"]),
    }


def _set(tx: Transaction, user_id: str, **values: Any) -> None:
    m = moderation_accounts_table
    now = time.time()
    exists = tx.conn.execute(sa.select(m.c.user_id).where(m.c.user_id == user_id)).first() is not None
    if exists:
        tx.conn.execute(m.update().where(m.c.user_id == user_id).values(updated_at=now, **values))
    else:
        row = {"is_admin": False, "chat_muted": False, "engine": False, "warnings": 0, **values}
        tx.conn.execute(m.insert().values(user_id=user_id, updated_at=now, **row))


def _log(
    tx: Transaction, moderator: str | None, target: str, action: str, note: str, report_id: int | None = None
) -> None:
    tx.conn.execute(
        moderation_log_table.insert().values(
            at=time.time(), moderator_id=moderator, target_id=target, action=action, note=note, report_id=report_id
        )
    )


def _names(tx: Transaction, ids: set[str]) -> dict[str, str]:
    ids.discard("")
    if not ids:
        return {}
    return {uid: str(name) for uid, (name, _) in names(tx, ids).items()}


def percentile(values: list[float], share: float) -> float:
    """The share (0 to 1) of ``values`` strictly below ``share``, plus half of those equal to it."""
    if not values:
        return 0.0
    below = sum(1 for v in values if v < share)
    equal = sum(1 for v in values if v == share)
    return (below + equal / 2) / len(values)


def quantiles(values: list[float]) -> dict[str, float]:
    """The 10th, 50th and 90th percentiles of ``values`` (nearest rank)."""
    if not values:
        return {}
    s = sorted(values)
    return {f"p{q}": round(s[min(len(s) - 1, int(q / 100 * len(s)))], 4) for q in (10, 50, 90)}


class ModerationStore:
    """Reports, blocks, roles, actions and signals; one per app (``app.state.moderation``)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # -- roles -------------------------------------------------------------------------------------
    def standing(self, user_id: str) -> dict[str, Any]:
        """The account's admin role, chat mute, engine mark and warning count."""
        with self.storage.transaction() as tx:
            return _standing(tx, user_id)

    def is_admin(self, user_id: str) -> bool:
        return bool(self.standing(user_id)["is_admin"])

    def set_admin(self, user: User, on: bool, moderator: str | None = None) -> bool:
        """Grant (``on``) or revoke the admin role; whether it changed (logged when it did)."""
        with self.storage.transaction(write=True) as tx:
            if _standing(tx, user.id)["is_admin"] == on:
                return False
            _set(tx, user.id, is_admin=on)
            _log(tx, moderator, user.id, "grant" if on else "revoke", "")
        return True

    # -- blocks ------------------------------------------------------------------------------------
    def block(self, user: User, other: User) -> list[str]:
        """``user`` blocks ``other``; the names he blocks after."""
        if other.id == user.id:
            raise Refused(400, "you cannot block yourself", key="refusal.moderation.block_yourself")
        b = blocks_table
        with self.storage.transaction(write=True) as tx:
            exists = tx.conn.execute(
                sa.select(b.c.user_id).where(b.c.user_id == user.id, b.c.blocked_id == other.id)
            ).first()
            if exists is None:
                count = tx.conn.execute(sa.select(sa.func.count()).where(b.c.user_id == user.id)).scalar()
                if int(count or 0) >= MAX_BLOCKS:
                    raise Refused(
                        429,
                        f"you block {MAX_BLOCKS} accounts already: unblock some first",
                        key="refusal.moderation.too_many_blocks",
                        args={"max": MAX_BLOCKS},
                    )
                tx.conn.execute(b.insert().values(user_id=user.id, blocked_id=other.id, created_at=time.time()))
        return self.blocks(user)

    def unblock(self, user: User, other: User) -> list[str]:
        b = blocks_table
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(b.delete().where(b.c.user_id == user.id, b.c.blocked_id == other.id))
        return self.blocks(user)

    def blocks(self, user: User) -> list[str]:
        """The names of the accounts ``user`` blocks, in alphabetical order."""
        b = blocks_table.c
        with self.storage.transaction() as tx:
            return [name for _, name in names_in_key_order(tx, sa.select(b.blocked_id).where(b.user_id == user.id))]

    # -- reports -----------------------------------------------------------------------------------
    def report(
        self,
        reporter: User,
        *,
        reason: Any,
        text: Any,
        target: User | None = None,
        game_id: Any = None,
        message_id: Any = None,
    ) -> dict[str, Any]:
        """Store a report of an account (``target``) or of a chat line (``game_id`` and
        ``message_id``), with its evidence as it is now; the report as stored."""
        if reason not in REASONS:
            raise Refused(
                400,
                f"reason must be one of {', '.join(REASONS)}",
                key="refusal.moderation.bad_reason",
                args={"reasons": ", ".join(REASONS)},
            )
        text = _text(text, "text")
        if (target is None) == (message_id is None):
            raise Refused(
                400,
                'say what you report: {"username": NAME} or {"game_id": ID, "message_id": N}',
                key="refusal.moderation.report_what",
            )
        if game_id is not None and not isinstance(game_id, str):
            raise Refused(400, "game_id must be a string", key="refusal.moderation.game_id_not_string")
        with self.storage.transaction(write=True) as tx:
            if message_id is not None:
                if not isinstance(message_id, int) or isinstance(message_id, bool) or game_id is None:
                    raise Refused(
                        400,
                        "a chat line is reported by its game_id and its message_id (a number)",
                        key="refusal.moderation.message_form",
                    )
                line = chat_message(tx, game_id, message_id)
                private = line is not None and line["room"] == "player"  # only the players report it
                if private and not holds_seat(tx, game_id, reporter.id):
                    line = None
                if line is None:
                    raise Refused(404, "there is no such chat line in this game", key="refusal.moderation.no_such_line")
                if line["user_id"] is None:
                    raise Refused(
                        400,
                        "this chat line was written without an account: there is no account to report",
                        key="refusal.moderation.line_of_guest",
                    )
                target_id = str(line["user_id"])
                evidence: dict[str, Any] = {
                    "kind": "chat",
                    "game_id": game_id,
                    "message_id": message_id,
                    "room": line["room"],
                    "author": line["name"],
                    "text": line["text"],
                    "at": round(float(line["created_at"]), 3),
                }
            else:
                assert target is not None
                target_id = target.id
                if game_id is not None and not game_exists(tx, game_id):
                    raise Refused(
                        404,
                        f"there is no game {game_id[:32]!r}",
                        key="refusal.moderation.no_such_game",
                        args={"game": game_id[:32]},
                    )
                evidence = {
                    "kind": "profile",
                    "username": target.username,
                    "created_at": target.created_at,
                    "game_id": game_id,
                }
            if target_id == reporter.id:
                raise Refused(400, "you cannot report yourself", key="refusal.moderation.report_yourself")
            res = tx.conn.execute(
                reports_table.insert().values(
                    reporter_id=reporter.id,
                    target_id=target_id,
                    reason=reason,
                    text=text,
                    game_id=game_id,
                    message_id=message_id,
                    evidence=json.dumps(evidence),
                    status="open",
                    created_at=time.time(),
                )
            )
            key = res.inserted_primary_key
            assert key is not None
            rid = int(key[0])
        return {"id": rid, "reason": reason, "status": "open"}

    def _reports(self, tx: Transaction, where: Any, limit: int = 200) -> list[dict[str, Any]]:
        r = reports_table
        rows = tx.conn.execute(sa.select(r).where(where).order_by(r.c.created_at.desc()).limit(limit)).mappings().all()
        names = _names(tx, {x["reporter_id"] for x in rows} | {x["target_id"] for x in rows})
        names.update(_names(tx, {x["closed_by"] for x in rows if x["closed_by"]}))
        return [
            {
                "id": int(x["id"]),
                "reporter": names.get(x["reporter_id"]),
                "target": names.get(x["target_id"]),
                "reason": x["reason"],
                "text": x["text"],
                "evidence": json.loads(x["evidence"]),
                "status": x["status"],
                "created_at": round(float(x["created_at"]), 3),
                "closed_at": x["closed_at"],
                "closed_by": names.get(x["closed_by"]) if x["closed_by"] else None,
            }
            for x in rows
        ]

    def queue(self, status: str = "open") -> list[dict[str, Any]]:
        """The reports of ``status`` (open or closed), newest first; the number of open reports
        against each target beside it (``against``)."""
        if status not in ("open", "closed"):
            raise Refused(400, "status must be 'open' or 'closed'", key="refusal.moderation.bad_status")
        r = reports_table
        with self.storage.transaction() as tx:
            reports = self._reports(tx, r.c.status == status)
            opened = sa.select(r.c.target_id, sa.func.count()).where(r.c.status == "open").group_by(r.c.target_id)
            by_target = {str(uid): int(n) for uid, n in tx.conn.execute(opened)}
            counts: dict[str, int] = {}
            for uid, (name, _) in names(tx, by_target).items():
                counts[name] = counts.get(name, 0) + by_target[uid]
        for x in reports:
            x["against"] = int(counts.get(x["target"], 0))
        return reports

    def close_report(self, moderator: User, report_id: int, note: Any) -> dict[str, Any]:
        """Close an open report (logged as ``close_report`` against its target)."""
        note = _text(note, "note")
        r = reports_table
        with self.storage.transaction(write=True) as tx:
            row = tx.conn.execute(sa.select(r.c.target_id, r.c.status).where(r.c.id == report_id)).first()
            if row is None:
                raise Refused(
                    404,
                    f"there is no report {report_id}",
                    key="refusal.moderation.no_such_report",
                    args={"id": report_id},
                )
            if row.status != "open":
                raise Refused(
                    409,
                    f"report {report_id} is closed already",
                    key="refusal.moderation.report_closed",
                    args={"id": report_id},
                )
            tx.conn.execute(
                r.update()
                .where(r.c.id == report_id)
                .values(status="closed", closed_at=time.time(), closed_by=moderator.id)
            )
            _log(tx, moderator.id, row.target_id, "close_report", note, report_id)
        return {"id": report_id, "status": "closed"}

    # -- actions -----------------------------------------------------------------------------------
    def act(
        self, moderator: User, target: User, action: Any, note: Any, close: Callable[[str], None] | None = None
    ) -> dict[str, Any]:
        """Apply ``action`` (one of :data:`ACTIONS`) to ``target`` and log it; ``close``: the account
        store's closing of an account (sessions and tokens revoked, challenges cancelled)."""
        if action not in ACTIONS:
            raise Refused(
                400,
                f"action must be one of {', '.join(ACTIONS)}",
                key="refusal.moderation.bad_action",
                args={"actions": ", ".join(ACTIONS)},
            )
        note = _text(note, "note")
        if action == "close":
            if target.deleted_at is not None:
                raise Refused(409, "this account is closed already", key="refusal.moderation.closed_already")
            if close is None:
                raise RuntimeError("closing an account needs the account store's close")
            close(target.id)
        with self.storage.transaction(write=True) as tx:
            now = _standing(tx, target.id)
            if action == "warn":
                _set(tx, target.id, warnings=now["warnings"] + 1)
            elif action in ("mute", "unmute"):
                _set(tx, target.id, chat_muted=action == "mute")
            elif action in ("engine", "clear_engine"):
                _set(tx, target.id, engine=action == "engine")
            _log(tx, moderator.id, target.id, action, note)
            return _standing(tx, target.id)

    def warnings(self, user: User) -> list[dict[str, Any]]:
        """The warnings ``user`` received (their notes and times), newest first."""
        g = moderation_log_table
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(g.c.note, g.c.at)
                .where(g.c.target_id == user.id, g.c.action == "warn")
                .order_by(g.c.at.desc())
            )
            return [{"note": note, "at": round(float(at), 3)} for note, at in rows]

    def log(self, target_id: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The moderators' log, newest first (of one account, with ``target_id``)."""
        g = moderation_log_table
        q = sa.select(g).order_by(g.c.id.desc()).limit(limit)
        if target_id is not None:
            q = q.where(g.c.target_id == target_id)
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(q).mappings().all()
            names = _names(tx, {x["target_id"] for x in rows} | {x["moderator_id"] for x in rows if x["moderator_id"]})
        return [
            {
                "id": int(x["id"]),
                "at": round(float(x["at"]), 3),
                "moderator": names.get(x["moderator_id"]) if x["moderator_id"] else None,
                "target": names.get(x["target_id"]),
                "action": x["action"],
                "note": x["note"],
                "report_id": x["report_id"],
            }
            for x in rows
        ]

    # -- an account as a moderator sees it ---------------------------------------------------------
    def account(self, target: User) -> dict[str, Any]:
        """An account's standing, latest games, chat lines, reports against and by it, its log and
        its engine-use signal."""
        r = reports_table
        with self.storage.transaction() as tx:
            standing = _standing(tx, target.id)
            seats = seat_games(tx, account_seats(target.id), limit=50)
            rated = rated_among(tx, sorted({x.game_id for x in seats}))
            games = [
                {
                    "id": x.game_id,
                    "game": x.game,
                    "seat": x.seat,
                    "status": x.status,
                    "rated": x.game_id in rated,
                    "created_at": round(x.created_at, 3),
                }
                for x in seats
            ]
            chat = [
                {
                    "id": int(x["id"]),
                    "game_id": x["game_id"],
                    "room": x["room"],
                    "text": x["text"],
                    "at": round(float(x["created_at"]), 3),
                }
                for x in messages_by(tx, target.id, 100)
            ]
            against = self._reports(tx, r.c.target_id == target.id)
            by = self._reports(tx, r.c.reporter_id == target.id)
        return {
            "username": target.username,
            "created_at": target.created_at,
            "closed": target.deleted_at is not None,
            "is_bot": target.is_bot,
            **standing,
            "games": games,
            "chat": chat,
            "reports": against,
            "reported": by,
            "log": self.log(target.id),
            "signal": self.signal(target.id),
        }

    # -- engine-use signals ------------------------------------------------------------------------
    def save_signal(self, user_id: str, moves: int, matches: int, games: int, iterations: int) -> None:
        e = engine_signals_table
        row = {
            "moves": moves,
            "matches": matches,
            "share": matches / moves if moves else 0.0,
            "games": games,
            "iterations": iterations,
            "computed_at": time.time(),
        }
        with self.storage.transaction(write=True) as tx:
            if tx.conn.execute(sa.select(e.c.user_id).where(e.c.user_id == user_id)).first() is None:
                tx.conn.execute(e.insert().values(user_id=user_id, **row))
            else:
                tx.conn.execute(e.update().where(e.c.user_id == user_id).values(**row))

    def distribution(self, exclude: str | None = None) -> dict[str, Any]:
        """The shares of ordinary players (not bots, not marked, with at least
        :data:`MIN_SIGNAL_MOVES` moves examined; ``exclude``: an account left out)."""
        e, m = engine_signals_table, moderation_accounts_table
        with self.storage.transaction() as tx:
            q = (
                sa.select(e.c.share)
                .outerjoin(m, m.c.user_id == e.c.user_id)
                .where(
                    e.c.moves >= MIN_SIGNAL_MOVES,
                    e.c.user_id.in_(people()),
                    sa.or_(m.c.engine.is_(None), m.c.engine.is_(False)),
                )
            )
            if exclude is not None:
                q = q.where(e.c.user_id != exclude)
            shares = [float(x[0]) for x in tx.conn.execute(q)]
        return {"players": len(shares), "min_moves": MIN_SIGNAL_MOVES, **quantiles(shares), "_shares": shares}

    def signal(self, user_id: str) -> dict[str, Any] | None:
        """The account's stored signal beside the distribution among ordinary players (its
        ``percentile`` there), or None if none was computed."""
        e = engine_signals_table
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(e).where(e.c.user_id == user_id)).mappings().first()
        if r is None:
            return None
        dist = self.distribution(exclude=user_id)
        shares = dist.pop("_shares")
        return {
            "moves": int(r["moves"]),
            "matches": int(r["matches"]),
            "share": round(float(r["share"]), 4),
            "games": int(r["games"]),
            "iterations": int(r["iterations"]),
            "computed_at": round(float(r["computed_at"]), 3),
            "percentile": round(percentile(shares, float(r["share"])), 4) if shares else None,
            "distribution": dist,
        }
