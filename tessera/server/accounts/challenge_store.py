"""Challenges (and the rematch between two accounts, which is one): made, read, answered, settled
— the part of :class:`~tessera.server.accounts.store.AccountStore` about challenges."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.history import HistoryQueries
from tessera.server.accounts.model import (
    CHALLENGE_STATUSES,
    User,
)
from tessera.server.accounts.security import Refused
from tessera.server.accounts.tables import (
    account_games_table,
    challenge_invitees_table,
    challenges_table,
    rematch_challenges_table,
    seat_accounts_table,
    users_table,
)
from tessera.server.match.queries import free_human_seats, game_row
from tessera.server.moderation.guards import refuse_blocked_challenge
from tessera.server.store.storage import Transaction


class ChallengeQueries(HistoryQueries):
    """Challenges (a part of :class:`~tessera.server.accounts.store.AccountStore`)."""

    # -- challenges --------------------------------------------------------------------------
    def _challenge_public(self, tx: Transaction, r: Any) -> dict[str, Any]:
        invitees = (
            tx.conn.execute(
                sa.select(challenge_invitees_table)
                .where(challenge_invitees_table.c.challenge_id == r["id"])
                .order_by(challenge_invitees_table.c.position)
            )
            .mappings()
            .all()
        )
        ids = {r["from_user"], r["to_user"], *(i["user_id"] for i in invitees if i["user_id"])}
        names = dict(
            tx.conn.execute(sa.select(users_table.c.id, users_table.c.username).where(users_table.c.id.in_(ids))).all()
        )
        extra: dict[str, Any] = {}
        if invitees:  # a challenge to a game of more than two seats
            extra["players"] = [
                {"username": names.get(i["user_id"]) if i["user_id"] else None, "status": i["status"]} for i in invitees
            ]
            declined = next((i for i in invitees if i["status"] == "declined"), None)
            extra["declined_by"] = names.get(declined["user_id"]) if declined else None
        rematch_of = tx.conn.execute(
            sa.select(rematch_challenges_table.c.game_id).where(rematch_challenges_table.c.challenge_id == r["id"])
        ).scalar()
        if rematch_of is not None:  # the rematch of a finished game between the two accounts
            extra["rematch_of"] = str(rematch_of)
        return {
            **extra,
            "id": r["id"],
            "from": names.get(r["from_user"]),
            "to": names.get(r["to_user"]),
            "game": r["spec"],
            "rated": bool(r["rated"]),
            "clock": json.loads(r["clock"]) if r["clock"] else None,
            "seat": r["seat"],
            "status": r["status"],
            "reason": r["reason"],
            "game_id": r["game_id"],
            "created_at": r["created_at"],
        }

    def new_challenge(
        self,
        user: User,
        to: User,
        spec: str,
        *,
        rated: bool,
        clock: dict[str, Any] | None,
        seat: int | None,
        invitees: list[User | None] | None = None,
        within: Callable[[Transaction, dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Store a pending challenge from ``user`` to ``to`` (checked by the caller).  ``invitees``: for a
        game of more than two seats, everyone asked in order (None: an open seat; an AI account has
        accepted already); ``to`` is the first account among them.  ``within``: writes stored in the
        same transaction as the challenge (given the transaction and the challenge; an exception it
        raises stores nothing)."""
        with self.storage.transaction(write=True) as tx:
            pending = tx.conn.execute(
                sa.select(sa.func.count())
                .select_from(challenges_table)
                .where(challenges_table.c.from_user == user.id, challenges_table.c.status == "pending")
            ).scalar()
            refuse_blocked_challenge(tx, user.id, [to.id, *(u.id for u in invitees or [] if u is not None)])
            if int(pending or 0) >= 50:
                raise Refused(
                    429,
                    "at most 50 challenges may wait for an answer at once; cancel some first",
                    key="refusal.challenge.too_many",
                )
            made = self.insert_challenge(
                tx, user, to, spec, rated=rated, clock=clock, seat=seat, invitees=invitees, status="pending"
            )
            if within is not None:
                within(tx, made)
            return made

    def insert_challenge(
        self,
        tx: Transaction,
        user: User,
        to: User,
        spec: str,
        *,
        rated: bool,
        clock: dict[str, Any] | None,
        seat: int | None,
        status: str,
        invitees: list[User | None] | None = None,
        game_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a challenge in the caller's transaction (``status`` accepted with its ``game_id``: a
        challenge to an AI account, stored with the game it makes); its public form."""
        now = time.time()
        cid = secrets.token_hex(8)
        tx.conn.execute(
            challenges_table.insert().values(
                id=cid,
                from_user=user.id,
                to_user=to.id,
                spec=spec,
                rated=rated,
                clock=None if clock is None else json.dumps(clock),
                seat=seat,
                status=status,
                game_id=game_id,
                created_at=now,
                updated_at=now,
            )
        )
        for position, u in enumerate(invitees or []):
            tx.conn.execute(
                challenge_invitees_table.insert().values(
                    challenge_id=cid,
                    position=position,
                    user_id=None if u is None else u.id,
                    status="accepted" if u is None or u.is_bot else "pending",
                    updated_at=now,
                )
            )
        r = tx.conn.execute(sa.select(challenges_table).where(challenges_table.c.id == cid)).mappings().one()
        return self._challenge_public(tx, r)

    def challenge(self, cid: str) -> dict[str, Any] | None:
        """A challenge, with the account ids ``_from``, ``_to`` and ``_invitees`` (position, user id or
        None, status: the players asked to a game of more than two seats)."""
        if not isinstance(cid, str) or len(cid) > 64:
            return None
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(challenges_table).where(challenges_table.c.id == cid)).mappings().first()
            if r is None:
                return None
            invitees = [
                (i.position, i.user_id, i.status)
                for i in tx.conn.execute(
                    sa.select(challenge_invitees_table)
                    .where(challenge_invitees_table.c.challenge_id == cid)
                    .order_by(challenge_invitees_table.c.position)
                )
            ]
            return {
                **self._challenge_public(tx, r),
                "_from": r["from_user"],
                "_to": r["to_user"],
                "_invitees": invitees,
            }

    def answer_invitation(self, cid: str, user: User, status: str) -> bool:
        """An invitee of a challenge to a game of more than two seats accepts or declines (False: he
        answered already, or the challenge is no longer pending)."""
        assert status in ("accepted", "declined")
        with self.storage.transaction(write=True) as tx:
            pending = tx.conn.execute(sa.select(challenges_table.c.status).where(challenges_table.c.id == cid)).scalar()
            if pending != "pending":
                return False
            res = tx.conn.execute(
                challenge_invitees_table.update()
                .where(
                    challenge_invitees_table.c.challenge_id == cid,
                    challenge_invitees_table.c.user_id == user.id,
                    challenge_invitees_table.c.status == "pending",
                )
                .values(status=status, updated_at=time.time())
            )
        return res.rowcount == 1

    def challenges(self, user: User, *, pending_only: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The account's challenges: ``incoming`` and ``outgoing``, newest first."""
        out: dict[str, list[dict[str, Any]]] = {"incoming": [], "outgoing": []}
        with self.storage.transaction() as tx:
            invited = sa.select(challenge_invitees_table.c.challenge_id).where(
                challenge_invitees_table.c.user_id == user.id
            )
            for key, cond in (
                ("incoming", sa.or_(challenges_table.c.to_user == user.id, challenges_table.c.id.in_(invited))),
                ("outgoing", challenges_table.c.from_user == user.id),
            ):
                q = sa.select(challenges_table).where(cond)
                if pending_only:
                    q = q.where(challenges_table.c.status == "pending")
                for r in tx.conn.execute(q.order_by(challenges_table.c.created_at.desc()).limit(200)).mappings():
                    c = self._challenge_public(tx, r)
                    if key == "outgoing" and c.get("players") and c["game_id"]:
                        c["open_links"] = self._open_links(tx, c["game_id"])
                    out[key].append(c)
        return out

    @staticmethod
    def _open_links(tx: Transaction, game_id: str) -> list[str]:
        """The invite links of a game's open seats (human seats bound to no account, not yet taken):
        for the challenger who left them open, to hand on."""
        bound = set(
            tx.conn.execute(
                sa.select(seat_accounts_table.c.seat).where(seat_accounts_table.c.game_id == game_id)
            ).scalars()
        )
        rows = [(seat, token) for seat, token in free_human_seats(tx, game_id) if seat not in bound]
        return [f"/g/{game_id}#seat={seat}&t={token}" for seat, token in rows]

    def challenges_settled_since(self, user: User, since: float) -> list[dict[str, Any]]:
        """The account's challenges (either side) answered or withdrawn at or after ``since``, newest first."""
        with self.storage.transaction() as tx:
            q = (
                sa.select(challenges_table)
                .where(
                    sa.or_(
                        challenges_table.c.to_user == user.id,
                        challenges_table.c.from_user == user.id,
                        challenges_table.c.id.in_(
                            sa.select(challenge_invitees_table.c.challenge_id).where(
                                challenge_invitees_table.c.user_id == user.id
                            )
                        ),
                    ),
                    challenges_table.c.status != "pending",
                    challenges_table.c.updated_at >= since,
                )
                .order_by(challenges_table.c.updated_at.desc())
                .limit(50)
            )
            out = []
            for r in tx.conn.execute(q).mappings():
                c = self._challenge_public(tx, r)
                if r["from_user"] == user.id and c.get("players") and c["game_id"]:
                    c["open_links"] = self._open_links(tx, c["game_id"])
                out.append(c)
            return out

    def settle_challenge(
        self, cid: str, status: str, *, reason: str | None = None, game_id: str | None = None, expect: str = "pending"
    ) -> bool:
        """Move a challenge from ``expect`` to ``status`` (False: it was not ``expect`` any more)."""
        with self.storage.transaction(write=True) as tx:
            return settle_in(tx, cid, status, reason=reason, game_id=game_id, expect=expect)

    def rematch_terms(self, user: User, game_id: str) -> tuple[User, str, bool, dict[str, Any] | None, int]:
        """What a rematch of a finished two-player game asks for: the opponent's account, the spec,
        rated or not, the clock settings, and the seat ``user`` takes (the other one: seats swap).
        ``Refused``: not his game (404), not over (409), or not between two accounts (422)."""
        with self.storage.transaction() as tx:
            g = game_row(tx, game_id)
            bound = dict(
                tx.conn.execute(
                    sa.select(seat_accounts_table.c.seat, seat_accounts_table.c.user_id).where(
                        seat_accounts_table.c.game_id == game_id
                    )
                ).all()
            )
            rated = tx.conn.execute(
                sa.select(account_games_table.c.rated).where(account_games_table.c.game_id == game_id)
            ).scalar()
        mine = [seat for seat, uid in bound.items() if uid == user.id]
        if g is None or not mine:
            raise Refused(404, "you hold no seat in this game", key="refusal.game.no_seat")
        if g.status != "finished":
            raise Refused(409, "the game is not over: a rematch follows its end", key="refusal.rematch.not_over")
        others = {seat: uid for seat, uid in bound.items() if uid != user.id}
        if len(mine) != 1 or len(others) != 1:
            raise Refused(
                422,
                "a rematch through accounts is between two accounts, one seat each",
                key="refusal.rematch.two_accounts",
            )
        (other_uid,) = others.values()
        opponent = self._user_by_id_checked(other_uid)
        clock = g.clock
        settings = None if clock is None else {"initial": clock["initial"], "increment": clock["increment"]}
        if clock is not None and clock.get("kind") == "correspondence":
            settings = {"days": clock["days"]}
        return opponent, g.spec, bool(rated), settings, next(iter(others))

    def _user_by_id_checked(self, user_id: str) -> User:
        u = self.user_by_id(user_id)
        if u is None or u.deleted_at is not None:
            raise Refused(409, "the opponent's account was deleted", key="refusal.rematch.opponent_deleted")
        return u


def settle_in(
    tx: Transaction,
    cid: str,
    status: str,
    *,
    reason: str | None = None,
    game_id: str | None = None,
    expect: str = "pending",
) -> bool:
    """:meth:`ChallengeQueries.settle_challenge` in the caller's transaction: an accept is stored in
    the transaction that stores its game (:data:`tessera.server.match.seats.Within`), so a crash leaves
    the challenge pending with no game, or accepted with its game, never one without the other."""
    assert status in CHALLENGE_STATUSES
    res = tx.conn.execute(
        challenges_table.update()
        .where(challenges_table.c.id == cid, challenges_table.c.status == expect)
        .values(status=status, reason=reason, game_id=game_id, updated_at=time.time())
    )
    return res.rowcount == 1


def invitees_all_accepted(tx: Transaction, cid: str) -> bool:
    """Whether every invitee of a challenge to more than two seats has accepted (read in ``tx``)."""
    statuses = tx.conn.execute(
        sa.select(challenge_invitees_table.c.status).where(challenge_invitees_table.c.challenge_id == cid)
    ).all()
    return bool(statuses) and all(s == "accepted" for (s,) in statuses)
