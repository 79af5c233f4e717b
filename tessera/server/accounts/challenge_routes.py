"""The challenges of the accounts HTTP API (``router``, included by :mod:`tessera.server.accounts.routes`):
a challenge made (to one account, or the seats of a larger game), accepted, declined or cancelled, the
challenges listed, and a rematch of a finished game between accounts.

Every refusal is a 4xx with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts import auth as A
from tessera.server.accounts import rematch as seat_rematch
from tessera.server.accounts import rematch_once
from tessera.server.accounts.challenge_store import invitees_all_accepted, settle_in
from tessera.server.accounts.live import announce
from tessera.server.accounts.rematch import SeatTokenIn
from tessera.server.accounts.security import Refused, state_text
from tessera.server.accounts.store import AI_LEVELS, User, ai_username, bind_seats
from tessera.server.ai.levels import check_ai_level
from tessera.server.bot.store import decline_reason
from tessera.server.match.clocks import clock_from
from tessera.server.match.service import Created, ServiceError, Within, load_checked
from tessera.server.store.storage import Transaction

router = APIRouter()


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClockIn(_Body):
    initial: float | None = None
    increment: float = 0.0
    days: int | None = None
    """Correspondence: days per move (1, 2, 3, 5, 7 or 14) instead of a time per game."""

    def settings(self) -> dict[str, Any]:
        if self.days is not None:
            return {"days": self.days}
        return {"initial": self.initial, "increment": self.increment}


class ChallengeIn(_Body):
    to: str | list[str | None] = Field(max_length=100)
    """The player asked; for a game of more than two seats (four-player Nymbat) a list of up to one
    fewer than its seats: account names, ``ai-levelN``, or null for an open seat (any list shorter
    than that leaves the rest open)."""
    game: str = Field(max_length=500)
    rated: bool = False
    clock: ClockIn | None = None
    seat: int | None = None
    """The challenger's seat (0 first); None: drawn at random when accepted."""


class DeclineIn(_Body):
    reason: str | None = Field(default=None, max_length=200)


def _create_game(request: Request, spec: str, seat_kinds: list[dict[str, Any]], clock: Any, within: Within) -> Any:
    """A challenge's private game; ``within``: the challenge's own writes, stored in the game's transaction."""
    service = request.app.state.service
    try:
        return service.create(
            spec,
            seat_kinds=seat_kinds,
            clock=clock,  # {"initial", "increment"} or {"days"} (tessera.server.match.clocks.clock_from)
            public=False,
            bound=True,  # both seats are the accounts': first moves are counted down from now
            within=within,
        )
    except ServiceError as e:
        raise Refused(e.status, e.detail, key=e.key, args=e.args_) from None


def _ai_offered(level: int, g: Any) -> None:
    """Refuse (422, keyed) a challenge to AI account ``level`` in game ``g`` when the game does not offer that
    level (level 6 where no stored SPRT accepted it, :mod:`tessera.server.ai.levels`)."""
    try:
        check_ai_level(level, g.name, g.num_players, field=ai_username(level))
    except ServiceError as e:
        raise Refused(e.status, e.detail, key=e.key, args=e.args_) from None


@router.post("/api/challenges", status_code=201)
def challenge(body: ChallengeIn, request: Request) -> dict[str, Any]:
    """Challenge a player to a two-player game.  A challenge to an AI account (``ai-level1`` …
    ``ai-level6``; level 6 only in a game that offers it) is accepted at once: the answer then holds the game
    and the challenger's seat token."""
    me = A.require(request, A.CHALLENGE).user
    clock = None if body.clock is None else body.clock.settings()
    if isinstance(body.to, list):
        return _challenge_many(request, me, body.to, body.game, rated=body.rated, clock=clock, seat=body.seat)
    return _challenge(request, me, body.to, body.game, rated=body.rated, clock=clock, seat=body.seat)


def _checked_game(game: str) -> Any:
    try:
        return load_checked(game)
    except ValueError as e:
        raise Refused(422, str(e)[:500]) from None


def _check_clock(clock: dict[str, float] | None) -> None:
    if clock is not None and (not (0 < clock["initial"] <= 24 * 3600) or not (0 <= clock["increment"] <= 3600)):
        raise Refused(
            422,
            "clock: time per game must be 1 s to 24 h and increment 0 to 3600 s",
            key="refusal.challenge.clock_range",
        )


def _challenge_many(
    request: Request,
    me: User,
    names: list[str | None],
    game: str,
    *,
    rated: bool,
    clock: dict[str, float] | None,
    seat: int | None,
) -> dict[str, Any]:
    """A challenge to a game of more than two seats: the players named (accounts, AI accounts) and open
    seats.  The game starts once every person named has accepted; one decline ends it for all."""
    g = _checked_game(game)
    n = g.num_players
    if n == 2:
        if len(names) != 1 or names[0] is None:
            raise Refused(422, "a two-player game's challenge names one player", key="refusal.challenge.one_player")
        return _challenge(request, me, names[0], game, rated=rated, clock=clock, seat=seat)
    if not 1 <= len(names) <= n - 1:
        raise Refused(
            422,
            f"{g} has {n} seats: name 1 to {n - 1} players (null: an open seat)",
            key="refusal.challenge.seats_count",
            args={"game": str(g), "n": n, "most": n - 1},
        )
    if seat is not None and not 0 <= seat < n:
        raise Refused(
            422,
            f"seat is 0 to {n - 1} or null (drawn when the game starts)",
            key="refusal.challenge.seat_range",
            args={"most": n - 1},
        )
    _check_clock(clock)
    store = A.accounts(request)
    invitees: list[User | None] = []
    for name in [*names, *[None] * (n - 1 - len(names))]:
        if name is None:
            invitees.append(None)
            continue
        level = next((lv for lv in AI_LEVELS if name.lower() == ai_username(lv)), None)
        if level is not None:
            _ai_offered(level, g)
        u = store.ai_user(level) if level is not None else store.user(name)
        if u is None:
            raise Refused(
                404, f"no such player: {name[:40]!r}", key="refusal.player.unknown_named", args={"name": name[:40]}
            )
        if u.id == me.id:
            raise Refused(422, "you cannot challenge yourself", key="refusal.challenge.yourself")
        if u.is_bot and level is None:
            raise Refused(
                422,
                f"{u.username} does not take challenges",
                key="refusal.challenge.not_taken",
                args={"name": u.username},
            )
        if any(x is not None and x.id == u.id for x in invitees):
            raise Refused(
                422, f"{u.username} is named twice", key="refusal.challenge.named_twice", args={"name": u.username}
            )
        invitees.append(u)
    people = [u for u in invitees if u is not None and not u.is_bot]
    if not people:
        raise Refused(
            422,
            "name at least one player (an account); for open seats only, make a game and share its links",
            key="refusal.challenge.no_player",
        )
    if rated and any(u is None for u in invitees):
        raise Refused(
            422,
            "a rated game needs an account on every seat: name every player (no open seat)",
            key="refusal.challenge.rated_open_seat",
        )
    c = store.new_challenge(me, people[0], str(g), rated=rated, clock=clock, seat=seat, invitees=invitees)
    _announce(request, me.id, *(u.id for u in people))
    return c


def _start_many(request: Request, c: dict[str, Any]) -> dict[str, Any] | None:
    """Make the game of a challenge to more than two seats once every person named has accepted, in one
    transaction with the challenge's pending → accepted and the seats' accounts (made once: the
    conditional update fails for a second caller, whose game is then not stored).  ``{seat: user id
    or None}`` of the game made, with its ``game_id`` and invite tokens, or None if it is not time yet
    (or made meanwhile)."""
    store = A.accounts(request)
    fresh = store.challenge(c["id"])
    if fresh is None or fresh["status"] != "pending":
        return None
    if any(status != "accepted" for _, _, status in fresh["_invitees"]):
        return None
    g = load_checked(c["game"])
    n = g.num_players
    order: list[str | None] = [c["_from"], *(uid for _, uid, _ in fresh["_invitees"])]
    if c["seat"] is None:
        shuffled = order[:]
        for i in range(n - 1, 0, -1):  # Fisher-Yates with the secrets module
            j = secrets.randbelow(i + 1)
            shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
        by_seat = shuffled
    else:
        rest = order[1:]
        by_seat = [order[0] if s == c["seat"] else rest.pop(0) for s in range(n)]
    users = {uid: store.user_by_id(uid) for uid in order if uid is not None}
    kinds: list[dict[str, Any]] = []
    for uid in by_seat:
        u = users.get(uid) if uid is not None else None
        if u is not None and u.is_bot:
            level = int(u.username.removeprefix("ai-level"))
            kinds.append({"kind": "ai", "level": level, "name": u.username})
        else:
            kinds.append({"kind": "invite", "name": u.username} if u is not None else {"kind": "invite"})
    bound = {s: u for s, uid in enumerate(by_seat) if uid is not None and (u := users.get(uid)) is not None}

    def within(tx: Transaction, created: Created) -> None:
        if not invitees_all_accepted(tx, c["id"]) or not settle_in(tx, c["id"], "accepted", game_id=created.game_id):
            raise _MadeMeanwhile
        bind_seats(tx, created.game_id, bound, rated=c["rated"], pool=g.name)

    try:
        created = _create_game(request, c["game"], kinds, c["clock"], within)
    except _MadeMeanwhile:
        return None
    return {"game_id": created.game_id, "seats": by_seat, "invites": created.invites}


class _MadeMeanwhile(Exception):
    """The challenge was answered, cancelled or made into a game by another request meanwhile."""


@router.post("/api/games/{game_id}/rematch", status_code=201)
def rematch(
    game_id: str,
    request: Request,
    body: SeatTokenIn | None = None,
    x_seat_token: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """A rematch of a finished game.  Between two accounts (asked by one of them): a challenge to the
    same opponent, same game, clock and rating, with the seats swapped (private, like every
    challenge's game).  Otherwise (guests, a guest and an account, four players): an offer to the
    other seats through the game's socket (:mod:`tessera.server.accounts.rematch`)."""
    token = (body.token if body else None) or x_seat_token or None
    auth = A.optional_auth(request)
    if auth is not None and any(auth.allows(s) for s in A.CHALLENGE):
        try:
            opponent, spec, rated, clock, seat = A.accounts(request).rematch_terms(auth.user, game_id)
        except Refused as e:
            if e.status not in (404, 422):
                raise
        else:
            if token is None or token == A.seat_token_for(request, game_id):
                return _account_rematch(request, auth.user, game_id, opponent, spec, rated, clock, seat)
    return seat_rematch.offer(request, game_id, token)


def _account_rematch(
    request: Request,
    me: User,
    game_id: str,
    opponent: User,
    spec: str,
    rated: bool,
    clock: dict[str, Any] | None,
    seat: int,
) -> dict[str, Any]:
    """The one rematch challenge of a finished game between two accounts (:mod:`.rematch_once`):
    made by the first ask; asked again by its challenger, the same challenge; asked by the opponent
    while it waits, accepted (two crossing asks are one agreement); once played, refused; once
    declined, refused to the one declined (the one who declined, or withdrew, may ask anew)."""
    store = A.accounts(request)
    settled: str | None = None
    for _ in range(2):  # a second round only when another ask was stored first
        cid = rematch_once.challenge_of(store.storage, game_id)
        c = store.challenge(cid) if cid is not None else None
        if c is not None and c["status"] == "pending":
            if c["_from"] == me.id:
                return {k: v for k, v in c.items() if not k.startswith("_")}
            return accept(c["id"], request)
        if c is not None and c["status"] == "accepted":
            raise Refused(409, "the rematch of this game has been played already", key="refusal.rematch.played")
        if c is not None and c["status"] == "declined" and c["_from"] == me.id:
            raise Refused(
                409,
                "your rematch offer was declined: ask for a new game instead",
                key="refusal.rematch.declined_again",
            )
        settled = None if c is None else c["id"]

        def named(tx: Transaction, c: dict[str, Any], replacing: str | None = settled) -> None:
            # the challenge and its naming as this game's rematch: one transaction (a crash leaves both or none)
            try:
                ok = rematch_once.link_in(tx, game_id, c["id"], replacing=replacing)
            except IntegrityError:
                ok = False
            if not ok:
                raise _MadeMeanwhile

        try:
            made = _challenge(
                request, me, opponent.username, spec, rated=rated, clock=clock, seat=seat, with_challenge=named
            )
        except _MadeMeanwhile:  # another ask was stored first: it is the rematch (nothing of ours stored)
            continue
        _announce(request, me.id, opponent.id)  # the live lists again: now marked as the rematch of game_id
        return {**made, "rematch_of": game_id}
    raise Refused(409, "the rematch offer changed meanwhile: look again", key="refusal.rematch.changed")


def _challenge(
    request: Request,
    me: User,
    to_name: str,
    game: str,
    *,
    rated: bool,
    clock: dict[str, Any] | None,
    seat: int | None,
    with_challenge: Callable[[Transaction, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """A two-player challenge from ``me`` (an AI account's is accepted at once); ``with_challenge``:
    writes stored in the transaction of a pending challenge (``new_challenge``'s ``within``)."""
    store = A.accounts(request)
    level = next((lv for lv in AI_LEVELS if to_name.lower() == ai_username(lv)), None)
    to = store.ai_user(level) if level is not None else store.user(to_name)
    if to is None:
        raise Refused(404, "no such player", key="refusal.player.unknown")
    if to.id == me.id:
        raise Refused(422, "you cannot challenge yourself", key="refusal.challenge.yourself")
    try:
        g = load_checked(game)
    except ValueError as e:
        raise Refused(422, str(e)[:500]) from None
    if g.num_players != 2:
        raise Refused(
            422,
            f'{g} has {g.num_players} seats: name its players as a list ("to": [...], null for an open seat)',
            key="refusal.challenge.list_needed",
            args={"game": str(g), "n": g.num_players},
        )
    if level is not None:
        _ai_offered(level, g)
    if seat is not None and seat not in (0, 1):
        raise Refused(422, "seat is 0, 1 or null (drawn when accepted)", key="refusal.challenge.seat_two")
    try:
        clock_from(clock, 2)
    except ValueError as e:
        raise Refused(422, str(e)) from None
    if level is None:
        c = store.new_challenge(me, to, str(g), rated=rated, clock=clock, seat=seat, within=with_challenge)
        _announce(request, me.id, to.id)
        return c
    # a challenge to an AI account is accepted at once: stored with its game, in one transaction
    seat = seat if seat is not None else secrets.randbelow(2)
    kinds: list[dict[str, Any]] = [{}, {}]
    kinds[seat] = {"kind": "here", "name": me.username}
    kinds[1 - seat] = {"kind": "ai", "level": level, "name": to.username}
    made: dict[str, Any] = {}

    def within(tx: Transaction, created: Created) -> None:
        made.update(
            store.insert_challenge(
                tx, me, to, str(g), rated=rated, clock=clock, seat=seat, status="accepted", game_id=created.game_id
            )
        )
        bind_seats(tx, created.game_id, {seat: me, 1 - seat: to}, rated=rated, pool=g.name)

    created = _create_game(request, str(g), kinds, clock, within)
    return {**made, "status": "accepted", "game_id": created.game_id, "seat": seat, "token": created.tokens[seat]}


@router.get("/api/challenges")
def challenges(request: Request, pending: bool = True) -> dict[str, Any]:
    """``{"incoming": [...], "outgoing": [...]}``, newest first (``pending=false``: every one)."""
    me = A.require(request, A.CHALLENGE).user
    return A.accounts(request).challenges(me, pending_only=pending)


def _own_challenge(request: Request, cid: str, me: User, side: str) -> dict[str, Any]:
    c = A.accounts(request).challenge(cid)
    invited = {uid for _, uid, _ in c["_invitees"]} if c is not None else set()
    if c is None or (me.id not in (c["_from"], c["_to"]) and me.id not in invited):
        raise Refused(404, "no such challenge", key="refusal.challenge.unknown")
    if c[side] != me.id and not (side == "_to" and me.id in invited):
        raise Refused(
            403,
            "only the challenged player can answer" if side == "_to" else "only the challenger can cancel",
            key="refusal.challenge.only_challenged" if side == "_to" else "refusal.challenge.only_challenger",
        )
    if c["status"] != "pending":
        raise Refused(
            409,
            f"this challenge is {c['status']}",
            key="refusal.challenge.is_now",
            args={"status": state_text(c["status"])},
        )
    return c


@router.post("/api/challenges/{cid}/accept")
def accept(cid: str, request: Request) -> dict[str, Any]:
    """Accept: the game is made with both seats bound to the two accounts; the answer holds its id and
    the acceptor's seat and seat token (the challenger finds his through his account)."""
    me = A.require(request, A.CHALLENGE).user
    store = A.accounts(request)
    c = _own_challenge(request, cid, me, "_to")
    if c["_invitees"]:
        return _accept_many(request, c, me)
    challenger = store.user_by_id(c["_from"])
    if challenger is None or challenger.deleted_at is not None:
        store.settle_challenge(cid, "cancelled")
        raise Refused(409, "the challenger's account was deleted", key="refusal.challenge.challenger_deleted")
    seat = c["seat"] if c["seat"] is not None else secrets.randbelow(2)
    kinds: list[dict[str, Any]] = [{}, {}]
    kinds[seat] = {"kind": "invite", "name": challenger.username}
    kinds[1 - seat] = {"kind": "invite", "name": me.username}
    g = load_checked(c["game"])

    def within(tx: Transaction, created: Created) -> None:
        # the accept, the game and its seats' accounts: one transaction (a crash leaves all or none)
        if not settle_in(tx, cid, "accepted", game_id=created.game_id):
            raise Refused(
                409, "this challenge was answered or cancelled meanwhile", key="refusal.challenge.answered_meanwhile"
            )
        bind_seats(tx, created.game_id, {seat: challenger, 1 - seat: me}, rated=c["rated"], pool=g.name)

    created = _create_game(request, c["game"], kinds, c["clock"], within)
    _announce(request, challenger.id, me.id)  # the challenger's pages are taken to the game
    mine = 1 - seat
    return {
        **{k: v for k, v in c.items() if not k.startswith("_")},
        "status": "accepted",
        "game_id": created.game_id,
        "seat": mine,
        "token": created.invites[mine],
    }


def _accepted_by(c: dict[str, Any], me: User) -> bool:
    """Whether ``me`` accepted the pending challenge ``c`` already (read before this request's answer).
    Asked again, he gets the game made if everyone has accepted: a crash between the last answer and
    the game (two transactions) leaves nothing stuck, the last to accept asks again."""
    return any(uid == me.id and status == "accepted" for _, uid, status in c["_invitees"])


def _accept_many(request: Request, c: dict[str, Any], me: User) -> dict[str, Any]:
    store = A.accounts(request)
    if not store.answer_invitation(c["id"], me, "accepted") and not _accepted_by(c, me):
        raise Refused(
            409,
            "you answered this challenge already, or it was answered or cancelled meanwhile",
            key="refusal.challenge.answered_already",
        )
    made = _start_many(request, c)
    everyone = [c["_from"], *(uid for _, uid, _ in c["_invitees"] if uid is not None)]
    _announce(request, *everyone)
    public = {k: v for k, v in (store.challenge(c["id"]) or {}).items() if not k.startswith("_")}
    if made is None:
        return public  # pending: the others have not all accepted yet
    mine = made["seats"].index(me.id)
    return {**public, "status": "accepted", "game_id": made["game_id"], "seat": mine, "token": made["invites"][mine]}


@router.post("/api/challenges/{cid}/decline")
def decline(cid: str, request: Request, body: DeclineIn | None = None) -> dict[str, Any]:
    """Decline, with an optional reason the challenger sees: one of the keys of
    :data:`tessera.server.bot.store.DECLINE_REASONS` (``generic``, ``later``, ``tooFast`` …), or
    other words (at most 200 characters)."""
    me = A.require(request, A.CHALLENGE).user
    c = _own_challenge(request, cid, me, "_to")
    reason = decline_reason(body.reason) if body else None  # a key (tooFast, …) or a person's words
    if c["_invitees"] and not A.accounts(request).answer_invitation(cid, me, "declined"):
        raise Refused(
            409,
            "you answered this challenge already, or it was answered or cancelled meanwhile",
            key="refusal.challenge.answered_already",
        )
    if not A.accounts(request).settle_challenge(cid, "declined", reason=reason):
        raise Refused(
            409, "this challenge was answered or cancelled meanwhile", key="refusal.challenge.answered_meanwhile"
        )
    _announce(request, c["_from"], c["_to"], *(uid for _, uid, _ in c["_invitees"] if uid is not None))
    return {"ok": True}


@router.delete("/api/challenges/{cid}")
def cancel(cid: str, request: Request) -> dict[str, Any]:
    """The challenger withdraws a pending challenge."""
    me = A.require(request, A.CHALLENGE).user
    c = _own_challenge(request, cid, me, "_from")
    if not A.accounts(request).settle_challenge(cid, "cancelled"):
        raise Refused(409, "this challenge was answered meanwhile", key="refusal.challenge.answered")
    _announce(request, c["_from"], c["_to"], *(uid for _, uid, _ in c["_invitees"] if uid is not None))
    return {"ok": True}


def _announce(request: Request, *user_ids: str) -> None:
    """Tell these accounts' live pages (here and in the other processes) that their challenges changed."""
    announce(A.accounts(request).storage, request.app.state.service.events, user_ids)
