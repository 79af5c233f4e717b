"""Rematch asked by a seat: for guests (and any game that is not between two accounts, four-player
Nymbat included), the friend is taken along.

One seat of a finished online game asks (``POST /api/games/{id}/rematch`` with its seat token, or
the account that holds the seat); every other human seat is told at once through the game's
WebSocket and answers (``…/rematch/accept``, ``…/rematch/decline``); the asker may withdraw
(``DELETE …/rematch``).  A seat that asks while another seat's offer waits accepts it.  When every
human seat has said yes the new game is made — private, same game, parameters and clock, AI seats
kept at their level, **seats rotated** (the player of seat ``s`` takes seat ``s + 1``, so two
players swap) — and **each seat is pushed its own new seat token** through the hub
(:meth:`tessera.server.push.hub.Hub.push_seats`): a message for one seat never reaches another seat or a
spectator.  Seats bound to accounts stay bound (a rated game's rematch is rated: every seat of a
rated game is an account's).  A decline ends the offer for everyone and names who declined.

Between two accounts the rematch is a challenge instead (``routes.py``): it reaches every page of
the opponent's account, not only the game's.

Offers are stored (``rematch_offers``), so a page that reconnects, or opens later, reads its state
(``GET /api/games/{id}/rematch``); each change is announced like a challenge (:func:`announce`
with the subject ``rematch:<game id>``, by ``NOTIFY`` to the other server processes), and
:class:`RematchPush` in each process pushes it to the game's sockets held there.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict

from tessera.server.accounts import auth as A
from tessera.server.accounts.live import announce
from tessera.server.accounts.security import Refused, state_text
from tessera.server.accounts.store import bind_seats
from tessera.server.accounts.tables import account_games_table, rematch_offers_table, seat_accounts_table
from tessera.server.events import AccountChanged, Event
from tessera.server.match.queries import game_row, seat_of_token, seat_rows, seat_token
from tessera.server.match.service import Created, ServiceError
from tessera.server.store.storage import Storage, Transaction

log = logging.getLogger("tessera.server.accounts.rematch")

router = APIRouter()

SUBJECT = "rematch:"
"""The announce subject of a game's rematch offer (``rematch:<game id>``): never an account id."""


class SeatTokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str | None = None


def rotated(seat: int, n: int) -> int:
    """The seat the player of ``seat`` takes in the rematch: the next one (two players swap)."""
    return (seat + 1) % n


# -- reading -------------------------------------------------------------------------------------
def offer_state(storage: Storage, game_id: str, seat: int | None) -> dict[str, Any] | None:
    """The rematch offer of ``game_id`` as ``seat`` sees it (None: a spectator), or None if there is
    none.  Only the seat's own new seat token is in it."""
    with storage.transaction() as tx:
        r = (
            tx.conn.execute(sa.select(rematch_offers_table).where(rematch_offers_table.c.game_id == game_id))
            .mappings()
            .first()
        )
        if r is None:
            return None
        seats = seat_rows(tx, game_id)
        new_token = None
        if r["new_game_id"] is not None and seat is not None:
            new_token = seat_token(tx, r["new_game_id"], rotated(seat, len(seats)))
    names = {s.seat: s.name for s in seats}
    humans = [s.seat for s in seats if s.kind == "human"]
    accepted = json.loads(r["accepted"])
    out: dict[str, Any] = {
        "status": r["status"],
        "from": r["from_seat"],
        "from_name": names.get(r["from_seat"]),
        "accepted": accepted,
        "waiting": [s for s in humans if s not in accepted] if r["status"] == "pending" else [],
        "declined_by": r["declined_by"],
        "declined_name": names.get(r["declined_by"]) if r["declined_by"] is not None else None,
        "game_id": r["new_game_id"],
        "you": seat,
    }
    if new_token is not None and seat is not None:
        out["seat"] = rotated(seat, len(seats))
        out["token"] = new_token
    return out


def _my_seat(request: Request, game_id: str, token: str | None) -> int:
    """The seat of the requester in ``game_id``: by its seat token, else by the account holding it."""
    if not token:
        token = A.seat_token_for(request, game_id)
    if not token:
        raise Refused(
            404, "you hold no seat in this game (a player sends his seat token)", key="refusal.rematch.no_seat"
        )
    if len(token) > 200:
        raise Refused(403, "this seat token is not one of this game's", key="refusal.rematch.token_not_here")
    with A.accounts(request).storage.transaction() as tx:
        seat = seat_of_token(tx, game_id, token)
    if seat is None:
        raise Refused(403, "this seat token is not one of this game's", key="refusal.rematch.token_not_here")
    return int(seat)


# -- writing -------------------------------------------------------------------------------------
def offer(request: Request, game_id: str, token: str | None) -> dict[str, Any]:
    """A seat asks for a rematch (or, if another seat's offer waits, accepts it)."""
    storage = A.accounts(request).storage
    seat = _my_seat(request, game_id, token)
    with storage.transaction() as tx:
        g = game_row(tx, game_id)
        seats = seat_rows(tx, game_id)
        current = (
            tx.conn.execute(sa.select(rematch_offers_table).where(rematch_offers_table.c.game_id == game_id))
            .mappings()
            .first()
        )
    assert g is not None  # the seat token was found in it
    if g.status != "finished":
        raise Refused(409, "the game is not over: a rematch follows its end", key="refusal.rematch.not_over")
    if g.mode == "hotseat":
        raise Refused(
            422,
            "a hot-seat game's rematch is a new game at the same screen: nobody else to ask",
            key="refusal.rematch.hotseat",
        )
    others = [s.seat for s in seats if s.kind == "human" and s.seat != seat]
    if not others:
        raise Refused(
            422,
            "no other player to ask: against the computer a rematch is a new game of your own",
            key="refusal.rematch.against_ai",
        )
    if current is not None and current["status"] == "pending":
        return answer(request, game_id, token, accept=True)
    if current is not None and current["status"] == "accepted":
        raise Refused(409, "the rematch was already made", key="refusal.rematch.made")
    if current is not None and current["status"] == "declined" and current["from_seat"] == seat:
        raise Refused(
            409, "your rematch offer was declined: ask for a new game instead", key="refusal.rematch.declined_again"
        )
    now = time.time()
    values = {
        "from_seat": seat,
        "accepted": json.dumps([seat]),
        "status": "pending",
        "declined_by": None,
        "new_game_id": None,
        "created_at": now,
        "updated_at": now,
    }
    with storage.transaction(write=True) as tx:
        if current is None:
            try:
                tx.conn.execute(rematch_offers_table.insert().values(game_id=game_id, **values))
            except sa.exc.IntegrityError:
                raise Refused(
                    409, "another seat asked at the same moment: answer its offer", key="refusal.rematch.crossed"
                ) from None
        else:
            done = tx.conn.execute(
                rematch_offers_table.update()
                .where(rematch_offers_table.c.game_id == game_id, rematch_offers_table.c.status == current["status"])
                .values(**values)
            )
            if done.rowcount != 1:
                raise Refused(409, "the rematch offer changed meanwhile: look again", key="refusal.rematch.changed")
    _announce(request, game_id)
    return {"rematch": offer_state(storage, game_id, seat)}


def answer(request: Request, game_id: str, token: str | None, *, accept: bool) -> dict[str, Any]:
    """A seat accepts or declines the pending offer; the last acceptance makes the new game."""
    storage = A.accounts(request).storage
    seat = _my_seat(request, game_id, token)
    for _ in range(10):  # an optimistic update: two seats answering together both count
        with storage.transaction() as tx:
            r = (
                tx.conn.execute(sa.select(rematch_offers_table).where(rematch_offers_table.c.game_id == game_id))
                .mappings()
                .first()
            )
            seats = seat_rows(tx, game_id)
        if r is None or r["status"] != "pending":
            raise Refused(
                409,
                "no rematch offer waits for an answer" if r is None else f"the rematch offer is {r['status']}",
                key="refusal.rematch.no_offer" if r is None else "refusal.rematch.offer_is",
                args={} if r is None else {"status": state_text(r["status"])},
            )
        accepted = json.loads(r["accepted"])
        if accept and seat in accepted:
            return {"rematch": offer_state(storage, game_id, seat)}
        if not accept and seat == r["from_seat"]:
            raise Refused(409, "you asked for this rematch: withdraw it instead", key="refusal.rematch.own_offer")
        values: dict[str, Any] = {"updated_at": time.time()}
        if accept:
            values["accepted"] = json.dumps([*accepted, seat])
        else:
            values["status"] = "declined"
            values["declined_by"] = seat
        with storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                rematch_offers_table.update()
                .where(
                    rematch_offers_table.c.game_id == game_id,
                    rematch_offers_table.c.status == "pending",
                    rematch_offers_table.c.accepted == r["accepted"],
                )
                .values(**values)
            )
        if done.rowcount == 1:
            break
    else:
        raise Refused(409, "the rematch offer keeps changing: try again", key="refusal.rematch.keeps_changing")
    humans = {s.seat for s in seats if s.kind == "human"}
    if accept and humans <= {*accepted, seat}:
        _start(request, game_id)
    _announce(request, game_id)
    return {"rematch": offer_state(storage, game_id, seat)}


def withdraw(request: Request, game_id: str, token: str | None) -> dict[str, Any]:
    """The asker withdraws a pending offer."""
    storage = A.accounts(request).storage
    seat = _my_seat(request, game_id, token)
    with storage.transaction(write=True) as tx:
        done = tx.conn.execute(
            rematch_offers_table.update()
            .where(
                rematch_offers_table.c.game_id == game_id,
                rematch_offers_table.c.status == "pending",
                rematch_offers_table.c.from_seat == seat,
            )
            .values(status="cancelled", updated_at=time.time())
        )
    if done.rowcount != 1:
        raise Refused(409, "no rematch offer of yours waits for an answer", key="refusal.rematch.no_own_offer")
    _announce(request, game_id)
    return {"rematch": offer_state(storage, game_id, seat)}


def _start(request: Request, game_id: str) -> None:
    """Make the rematch: the offer's pending → accepted, the new game, its seats' accounts and the
    offer's ``new_game_id`` in one transaction (made once: a second caller's conditional update
    matches nothing and its game is not stored; a crash leaves the offer pending and no game, or all)."""
    storage = A.accounts(request).storage
    with storage.transaction() as tx:
        g = game_row(tx, game_id)
        seats = seat_rows(tx, game_id)
        bound = dict(
            tx.conn.execute(
                sa.select(seat_accounts_table.c.seat, seat_accounts_table.c.user_id).where(
                    seat_accounts_table.c.game_id == game_id
                )
            ).all()
        )
        meta = (
            tx.conn.execute(sa.select(account_games_table).where(account_games_table.c.game_id == game_id))
            .mappings()
            .first()
        )
    assert g is not None
    n = len(seats)
    kinds: list[dict[str, Any]] = [{} for _ in range(n)]
    for s in seats:
        kinds[rotated(s.seat, n)] = (
            {"kind": "ai", "level": s.level, "name": s.name} if s.kind == "ai" else {"kind": "invite", "name": s.name}
        )
    clock = g.clock
    store = A.accounts(request)
    users = {rotated(s, n): u for s, uid in bound.items() if (u := store.user_by_id(uid)) is not None}

    def within(tx: Transaction, created: Created) -> None:
        claimed = tx.conn.execute(
            rematch_offers_table.update()
            .where(rematch_offers_table.c.game_id == game_id, rematch_offers_table.c.status == "pending")
            .values(status="accepted", new_game_id=created.game_id, updated_at=time.time())
        )
        if claimed.rowcount != 1:
            raise _MadeMeanwhile
        if bound:
            rated = bool(meta and meta["rated"]) and len(bound) == n
            pool = meta["pool"] if meta else g.spec.partition("(")[0]
            bind_seats(tx, created.game_id, users, rated=rated, pool=pool)

    try:
        request.app.state.service.create(
            g.spec,
            seat_kinds=kinds,
            clock=None if clock is None else (clock["initial"], clock["increment"]),
            public=False,
            bound=len(bound) == n,  # every seat an account's: first moves are counted down from now
            within=within,
        )
    except _MadeMeanwhile:
        return  # made meanwhile by the other acceptor
    except ServiceError as e:
        raise Refused(e.status, e.detail, key=e.key, args=e.args_) from None


class _MadeMeanwhile(Exception):
    """The offer was no longer pending: another acceptor made the rematch (or it was withdrawn)."""


def _announce(request: Request, game_id: str) -> None:
    announce(A.accounts(request).storage, request.app.state.service.events, [SUBJECT + game_id])


# -- pushing -------------------------------------------------------------------------------------
class RematchPush:
    """Subscriber: a game's rematch offer changed (here or in another process) — each of its
    sockets held by this process's hub is pushed the offer as its seat sees it."""

    def __init__(self, storage: Storage, hub: Any) -> None:
        self.storage = storage
        self.hub = hub

    def on_event(self, event: Event) -> None:
        if not isinstance(event, AccountChanged) or not event.user_id.startswith(SUBJECT):
            return
        game_id = event.user_id[len(SUBJECT) :]

        def build(seats: set[int | None]) -> dict[int | None, dict[str, Any]]:
            return {s: {"type": "rematch", "rematch": offer_state(self.storage, game_id, s)} for s in seats}

        self.hub.push_seats(game_id, build)


def install(events: Any, storage: Storage, hub: Any) -> None:
    """Subscribe :class:`RematchPush` (after the hub exists)."""
    events.subscribe(RematchPush(storage, hub).on_event, AccountChanged)


# -- routes --------------------------------------------------------------------------------------
def _token(body: SeatTokenIn | None, header: str | None) -> str | None:
    return (body.token if body else None) or header or None


@router.get("/api/games/{game_id}/rematch")
def rematch_state(
    game_id: str, request: Request, token: str | None = None, x_seat_token: str | None = Header(None)
) -> dict[str, Any]:
    """The game's rematch offer as the requester's seat sees it (his new seat token once made);
    ``{"rematch": null}`` when none was asked."""
    given = token or x_seat_token or A.seat_token_for(request, game_id)
    seat = _my_seat(request, game_id, given) if given else None
    return {"rematch": offer_state(A.accounts(request).storage, game_id, seat)}


@router.post("/api/games/{game_id}/rematch/accept")
def rematch_accept(
    game_id: str, request: Request, body: SeatTokenIn | None = None, x_seat_token: str | None = Header(None)
) -> dict[str, Any]:
    """Accept the rematch offer; the last seat to accept makes the game (the answer then holds this
    seat's ``game_id``, ``seat`` and ``token``; the others get theirs through the game's socket)."""
    return answer(request, game_id, _token(body, x_seat_token), accept=True)


@router.post("/api/games/{game_id}/rematch/decline")
def rematch_decline(
    game_id: str, request: Request, body: SeatTokenIn | None = None, x_seat_token: str | None = Header(None)
) -> dict[str, Any]:
    """Decline the rematch offer: it ends for everyone, and everyone is told who declined."""
    return answer(request, game_id, _token(body, x_seat_token), accept=False)


@router.delete("/api/games/{game_id}/rematch")
def rematch_withdraw(
    game_id: str, request: Request, body: SeatTokenIn | None = None, x_seat_token: str | None = Header(None)
) -> dict[str, Any]:
    """The asker withdraws his offer."""
    return withdraw(request, game_id, _token(body, x_seat_token))
