"""Chat in a game: two rooms, who may read and write each, mutes, limits, and the live push.

Every door to the chat (the HTTP routes of :mod:`tessera.server.chat.routes`, the bot API)
calls this module: it finds who is speaking (:meth:`Chat.speaker`), then :meth:`Chat.post`,
:meth:`Chat.history` or :meth:`Chat.mute`; the hub asks :meth:`Chat.readers` which of a game's
sockets a new message reaches.

The rules
=========

``player`` room
    between the seated players: only a seat's holder writes or reads it (his seat proven as for a
    move: the seat token, or the session or bearer token of the account that holds the seat).
    Spectators never read it, during the game or after (as on lichess: the players talk
    privately).
``spectator`` room
    among everyone else (guests and accounts without a seat).  A player of a game in progress
    never receives it (neither its history nor its pushes), so nobody can whisper him hints;
    once the game is over the players may read it too (they still write only in their own room).
Messages
    at most :data:`MAX_CHARS` characters after trimming the spaces around them; empty messages,
    control characters (line breaks included) and the invisible direction overrides are refused
    (400, saying why).  Each author may post :data:`CHAT_RATE` (a token bucket: a burst, then a
    steady rate; ``TESSERA_RATE_CHAT=RATE/BURST``); beyond it 429 with ``Retry-After``.  The author
    is keyed by account, else by seat, else (a guest spectator) by address.
Authors
    a player is shown by his seat's name (an account's seat is named after the account), a
    spectator by his account's name or ``Guest``; a deleted account as the neutral name.
Blocks
    an account's blocks (tessera.server.moderation) hold in every game's chat: the blocked
    account's messages are left out of the blocker's history and pushes, whether the blocker
    plays the game or watches it signed in (as on lichess, the blocked account may still watch
    and write; only the blocker stops reading him).
Mutes
    a player mutes a seat of his game, or an account (a spectator with an account, seen after
    the end): its messages are left out of his history and of his pushes.  Mutes are kept on the
    server for the muting seat of that game, for guests as for accounts (the seat token proves a
    guest's seat as a session proves an account's), so they hold on every device that opens the
    seat.  Spectators cannot mute (a guest spectator has nothing to tie a mute to).
Storage
    messages are stored with the game (tables in :mod:`tessera.server.chat.tables`, deleted with
    it), never in its record or any export of the game.

Across processes on PostgreSQL a message travels with its transaction's ``NOTIFY``
(:func:`tessera.server.store.bus.chat_notice`) and is published there as :class:`ChatPosted` with
``local`` False.
"""

from __future__ import annotations

import os
import time
import unicodedata
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from tessera.server.accounts.queries import account_named, name_and_deletion, usernames_sorted
from tessera.server.accounts.security import Refused, username_key
from tessera.server.accounts.store import DELETED_NAME, User
from tessera.server.chat.tables import chat_messages_table, chat_mutes_table
from tessera.server.events import ChatPosted
from tessera.server.http.edge import Buckets
from tessera.server.http.limits import Rate
from tessera.server.moderation.guards import blocked_at_seats, blocked_by, blockers_of, refuse_muted_chat

if TYPE_CHECKING:
    from tessera.server.match.service import MatchService

ROOMS = ("player", "spectator")
"""The rooms of a game's chat."""

MAX_CHARS = 200
"""The longest message, in characters, after trimming."""

CHAT_RATE = Rate(0.5, 5)
"""Messages per author: five at once, then one every two seconds (``TESSERA_RATE_CHAT`` overrides)."""

HISTORY_LIMIT = 500
"""The most messages one history answer holds (the newest)."""

GUEST = "Guest"
"""The name of a spectator without an account."""

_DIRECTION_MARKS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Invisible characters that reverse how the text after them is drawn (refused with the controls)."""


@dataclass(frozen=True)
class Speaker:
    """Who is reading or writing a game's chat: his seat (None: a spectator), his account (None: a
    guest) and the key his messages are counted under."""

    seat: int | None
    user: User | None
    key: str


def rate_from_env() -> Rate:
    """:data:`CHAT_RATE`, or ``TESSERA_RATE_CHAT`` (``RATE/BURST``; ``0``: no limit)."""
    text = os.environ.get("TESSERA_RATE_CHAT")
    return Rate.parse(text) if text else CHAT_RATE


def check_text(text: Any) -> str:
    """The message as stored (trimmed), or ``Refused`` 400 saying what is wrong with it."""
    if not isinstance(text, str):
        raise Refused(400, "text: the message must be a string", key="refusal.chat.not_string")
    text = text.strip()
    if not text or all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text):  # nothing visible
        raise Refused(400, "the message is empty", key="refusal.chat.empty")
    if len(text) > MAX_CHARS:
        raise Refused(
            400,
            f"the message is too long: at most {MAX_CHARS} characters (this one has {len(text)})",
            key="refusal.chat.too_long",
            args={"max": MAX_CHARS, "length": len(text)},
        )
    for ch in text:
        if ch in _DIRECTION_MARKS or unicodedata.category(ch) in ("Cc", "Cs"):
            raise Refused(
                400,
                f"the message holds a control character (U+{ord(ch):04X}): send plain text on one line",
                key="refusal.chat.control",
                args={"code": f"{ord(ch):04X}"},
            )
    return text


def check_room(room: Any) -> str:
    """``room`` if it is one of :data:`ROOMS` (else 400)."""
    if room not in ROOMS:
        shown = str(room)[:20] if room is not None else "none"
        raise Refused(
            400,
            f"room {shown!r} is not a room of the chat: expected 'player' or 'spectator'",
            key="refusal.chat.unknown_room",
            args={"room": shown},
        )
    return str(room)


def readable(room: str, seat: int | None, finished: bool) -> bool:
    """Whether the holder of ``seat`` (None: a spectator) may read ``room`` (the rules above)."""
    if seat is None:
        return room == "spectator"
    return room == "player" or finished


def rooms_of(seat: int | None, finished: bool) -> list[str]:
    """The rooms the holder of ``seat`` may read."""
    return [r for r in ROOMS if readable(r, seat, finished)]


def writable(seat: int | None) -> str:
    """The one room the holder of ``seat`` writes in."""
    return "spectator" if seat is None else "player"


def muted_by(message: dict[str, Any], targets: set[str]) -> bool:
    """Whether a message's author is among a player's muted ``targets``."""
    if message.get("seat") is not None and f"seat:{message['seat']}" in targets:
        return True
    return bool(message.get("_user")) and f"user:{message['_user']}" in targets


def public(message: dict[str, Any]) -> dict[str, Any]:
    """A message as clients see it (without the author's account id)."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


class Chat:
    """The chat of every game (see the module's text); one per app (``app.state.chat``)."""

    def __init__(self, service: MatchService, *, rate: Rate | None = None) -> None:
        self.service = service
        self.storage = service.storage
        self.events = service.events
        self._buckets = Buckets({"chat": rate_from_env() if rate is None else rate})

    # -- who -------------------------------------------------------------------------------------
    def speaker(self, game_id: str, token: str | None, user: User | None, address: str) -> Speaker:
        """Who is at the chat of ``game_id``: the seat ``token`` holds (403 if it holds none of this
        game; 404 if there is no such game), or a spectator; ``user``: his account, if any."""
        _live, seat = self.service.seats.arrive(game_id, token)
        if user is not None:
            key = f"user:{user.id}"
        elif seat is not None:
            key = f"seat:{game_id}:{seat}"
        else:
            key = f"address:{address}"
        return Speaker(seat, user, key)

    def _game(self, game_id: str) -> tuple[bool, list[str]]:
        """Whether the game is over, and its seats' names."""
        row = self.service.games.reload(game_id).row
        return row.status != "active", [s.name for s in row.seats]

    # -- writing ---------------------------------------------------------------------------------
    def post(self, game_id: str, who: Speaker, room: Any, text: Any) -> dict[str, Any]:
        """Store a message of ``who`` in ``room`` and push it to its readers; the message as shown."""
        room = check_room(room)
        own = writable(who.seat)
        if room != own:
            if who.seat is None:
                raise Refused(
                    403,
                    "the player room is for the game's players: spectators write in the spectator room",
                    key="refusal.chat.player_room_players",
                )
            raise Refused(
                403,
                "players write in the player room: the spectator room is for the spectators",
                key="refusal.chat.spectator_room_spectators",
            )
        text = check_text(text)
        wait = self._buckets.take("chat", who.key)
        if wait > 0:
            raise Refused(
                429,
                f"too many messages: wait {wait:.0f} s before the next one",
                headers={"Retry-After": str(max(1, round(wait + 0.49)))},
                key="refusal.chat.too_many",
                args={"seconds": f"{wait:.0f}"},
            )
        finished, names = self._game(game_id)
        if who.seat is not None:
            name = names[who.seat]
        elif who.user is not None:
            name = who.user.username
        else:
            name = GUEST
        now = time.time()
        message: dict[str, Any] = {
            "room": room,
            "seat": who.seat,
            "author": name,
            "account": who.user.username if who.user is not None and who.seat is None else None,
            "text": text,
            "at": round(now, 3),
        }
        with self.storage.transaction(write=True) as tx:
            if who.user is not None:
                refuse_muted_chat(tx, who.user.id)
            res = tx.conn.execute(
                chat_messages_table.insert().values(
                    game_id=game_id,
                    room=room,
                    seat=who.seat,
                    user_id=who.user.id if who.user is not None else None,
                    name=name[:80],
                    text=text,
                    created_at=now,
                )
            )
            key = res.inserted_primary_key
            assert key is not None
            message = {"id": int(key[0]), **message}
            if who.user is not None:
                message["_user"] = who.user.id
            if tx.conn.dialect.name == "postgresql":
                from tessera.server.store.bus import CHANNEL, chat_notice

                event = ChatPosted(game_id, message, finished)
                tx.conn.execute(sa.select(sa.func.pg_notify(CHANNEL, chat_notice(event.notice()))))
        self.events.publish(ChatPosted(game_id, message, finished))
        return public(message)

    # -- reading ---------------------------------------------------------------------------------
    def history(self, game_id: str, who: Speaker, room: str | None = None, after: int | None = None) -> dict[str, Any]:
        """The messages ``who`` may read (of ``room`` only, if given: 403 if he may not read it),
        oldest first, the newest :data:`HISTORY_LIMIT` (after the message id ``after``, if given);
        with his seat (None: a spectator), the rooms he reads, the room he writes in and his mutes."""
        finished, names = self._game(game_id)
        rooms = rooms_of(who.seat, finished)
        if room is not None:
            room = check_room(room)
            if room not in rooms:
                if who.seat is None:
                    raise Refused(
                        403, "the player room is private to the game's players", key="refusal.chat.player_room_private"
                    )
                raise Refused(
                    403,
                    "the spectator room is hidden from the players until the game is over",
                    key="refusal.chat.spectator_room_hidden",
                )
            rooms = [room]
        m = chat_messages_table
        q = (
            sa.select(m.c.id, m.c.room, m.c.seat, m.c.user_id, m.c.name, m.c.text, m.c.created_at)
            .where(m.c.game_id == game_id, m.c.room.in_(rooms))
            .order_by(m.c.id.desc())
            .limit(HISTORY_LIMIT)
        )
        if after is not None:
            q = q.where(m.c.id > after)
        with self.storage.transaction() as tx:
            stored = tx.conn.execute(q).all()
            authors = name_and_deletion(tx, (r.user_id for r in stored if r.user_id is not None))
            rows = [
                SimpleNamespace(**r._asdict(), username=a[0], deleted_at=a[1])
                for r in stored
                for a in [authors.get(r.user_id, (None, None))]
            ]
            seats = [who.seat] if who.seat is not None else []
            targets = self._targets(tx, game_id, seats).get(who.seat, set())
            if who.seat is None and who.user is not None:  # a spectator's blocks hold as a player's
                targets = {f"user:{uid}" for uid in blocked_by(tx, [who.user.id]).get(who.user.id, set())}
            muted = self._muted_public(tx, self._targets(tx, game_id, seats, blocks=False).get(who.seat, set()))
        messages = []
        for r in reversed(rows):
            msg = self._shown(r, names)
            if not muted_by(msg, targets):
                messages.append(public(msg))
        return {
            "you": who.seat,
            "rooms": rooms_of(who.seat, finished),
            "writes": writable(who.seat),
            "messages": messages,
            "muted": muted,
        }

    @staticmethod
    def _shown(r: Any, names: list[str]) -> dict[str, Any]:
        deleted = r.user_id is not None and r.deleted_at is not None
        if r.seat is not None and 0 <= r.seat < len(names):
            author = names[r.seat]
        elif deleted:
            author = DELETED_NAME
        else:
            author = r.username if r.username is not None else r.name
        account = r.username if r.seat is None and r.username is not None and not deleted else None
        msg: dict[str, Any] = {
            "id": int(r.id),
            "room": r.room,
            "seat": r.seat,
            "author": author,
            "account": account,
            "text": r.text,
            "at": round(float(r.created_at), 3),
        }
        if r.user_id is not None:
            msg["_user"] = r.user_id
        return msg

    # -- mutes -----------------------------------------------------------------------------------
    def mute(
        self, game_id: str, who: Speaker, *, seat: Any = None, account: Any = None, on: bool = True
    ) -> dict[str, Any]:
        """Mute (``on``) or unmute a seat or an account for the player ``who``; his mutes after."""
        if who.seat is None:
            raise Refused(
                403,
                "only the game's players can mute (a spectator holds no seat of this game)",
                key="refusal.chat.mute_spectator",
            )
        if (seat is None) == (account is None):
            raise Refused(400, 'say whom to mute: {"seat": N} or {"account": "name"}', key="refusal.chat.mute_whom")
        _finished, names = self._game(game_id)
        if seat is not None:
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(names):
                raise Refused(
                    400,
                    f"seat {str(seat)[:20]!r} is not a seat of this game (0 to {len(names) - 1})",
                    key="refusal.chat.mute_bad_seat",
                    args={"seat": str(seat)[:20], "most": len(names) - 1},
                )
            if seat == who.seat:
                raise Refused(400, "you cannot mute your own seat", key="refusal.chat.mute_own_seat")
            target = f"seat:{seat}"
        else:
            with self.storage.transaction() as tx:
                uid = account_named(tx, username_key(str(account)[:64]))
            if uid is None:
                raise Refused(
                    404,
                    f"there is no account named {str(account)[:32]!r}",
                    key="refusal.chat.mute_unknown_account",
                    args={"name": str(account)[:32]},
                )
            if who.user is not None and uid == who.user.id:
                raise Refused(400, "you cannot mute yourself", key="refusal.chat.mute_yourself")
            target = f"user:{uid}"
        t = chat_mutes_table
        with self.storage.transaction(write=True) as tx:
            where = (t.c.game_id == game_id, t.c.seat == who.seat, t.c.target == target)
            exists = tx.conn.execute(sa.select(t.c.target).where(*where)).first() is not None
            if on and not exists:
                tx.conn.execute(
                    t.insert().values(game_id=game_id, seat=who.seat, target=target, created_at=time.time())
                )
            elif not on and exists:
                tx.conn.execute(t.delete().where(*where))
            muted = self._muted_public(tx, self._targets(tx, game_id, [who.seat], blocks=False).get(who.seat, set()))
        return {"muted": muted}

    @staticmethod
    def _targets(tx: Any, game_id: str, seats: list[int], *, blocks: bool = True) -> dict[int | None, set[str]]:
        """The muted targets of each of ``seats`` in the game; with ``blocks``, also the accounts the
        seat's account blocks (their lines never reach him; they are not listed as his mutes)."""
        if not seats:
            return {}
        t = chat_mutes_table
        out: dict[int | None, set[str]] = {}
        for seat, target in tx.conn.execute(
            sa.select(t.c.seat, t.c.target).where(t.c.game_id == game_id, t.c.seat.in_(seats))
        ):
            out.setdefault(seat, set()).add(target)
        if blocks:
            for seat, blocked in blocked_at_seats(tx, game_id, seats).items():
                out.setdefault(seat, set()).update(f"user:{uid}" for uid in blocked)
        return out

    @staticmethod
    def _muted_public(tx: Any, targets: set[str]) -> list[dict[str, Any]]:
        """Mutes as clients see them: ``{"seat": N}`` or ``{"account": name}``."""
        out: list[dict[str, Any]] = []
        uids = []
        for target in sorted(targets):
            kind, _, value = target.partition(":")
            if kind == "seat":
                out.append({"seat": int(value)})
            else:
                uids.append(value)
        if uids:
            out += [{"account": name} for name in usernames_sorted(tx, uids)]
        return out

    # -- the push --------------------------------------------------------------------------------
    def readers(self, event: ChatPosted, seats: set[int | None]) -> set[int | None]:
        """Which of ``seats`` (the seats of a game's open sockets; None: spectators) receive the
        message of ``event`` (their room's rule, their mutes; run in a worker thread)."""
        allowed = {s for s in seats if readable(event.message["room"], s, event.finished)}
        players = sorted(s for s in allowed if s is not None)
        if players:
            with self.storage.transaction() as tx:
                targets = self._targets(tx, event.game_id, players)
            allowed = {s for s in allowed if s is None or not muted_by(event.message, targets.get(s, set()))}
        return allowed

    def blockers(self, event: ChatPosted, user_ids: set[str]) -> set[str]:
        """Those of ``user_ids`` (the accounts of a game's spectator sockets) who block the author
        of ``event``'s message: it is not pushed to them (run in a worker thread)."""
        author = event.message.get("_user")
        if not author or not user_ids:
            return set()
        with self.storage.transaction() as tx:
            return blockers_of(tx, str(author), user_ids)

    def visible(self, event: ChatPosted, seat: int | None) -> bool:
        """Whether the holder of ``seat`` (None: a spectator) receives the message of ``event`` (its
        room's rule and his mutes): what a stream of one seat (the bot API's) asks."""
        return seat in self.readers(event, {seat})

    def line(self, event: ChatPosted) -> dict[str, Any]:
        """The socket's message for ``event``: ``{"type": "chat", "message": ...}``."""
        return {"type": "chat", "message": public(event.message)}


def chat_line(message: dict[str, Any]) -> dict[str, Any]:
    """A message as a line of a game stream (the bot API's ``chatLine``): room, author, text."""
    return {"type": "chatLine", "room": message["room"], "username": message["author"], "text": message["text"]}
