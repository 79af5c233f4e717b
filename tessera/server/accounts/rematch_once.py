"""One rematch per finished game between two accounts (the ``rematch_challenges`` table,
migration ``0016_declines``).

Between two accounts a rematch is a challenge (``routes.py``).  The game's row here names that
challenge, so that asking again never makes a second one: the asker's own pending ask is answered
again, the opponent's pending ask is accepted (two crossing asks are one agreement), and once the
rematch was accepted the game takes no other.  As between guests (:mod:`.rematch`), a player whose
ask was declined may not ask again in that game; the one who declined may ask, and so may one who
withdrew his own ask.  The row's primary key is the
game: of two asks at the same instant (two server processes) one stores its challenge, the other
finds it.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts.tables import rematch_challenges_table
from tessera.server.store.storage import Storage, Transaction


def challenge_of(storage: Storage, game_id: str) -> str | None:
    """The id of the rematch challenge of ``game_id`` (None: nobody has asked yet)."""
    t = rematch_challenges_table
    with storage.transaction() as tx:
        cid = tx.conn.execute(sa.select(t.c.challenge_id).where(t.c.game_id == game_id)).scalar()
    return None if cid is None else str(cid)


def link_in(tx: Transaction, game_id: str, challenge_id: str, *, replacing: str | None = None) -> bool:
    """:func:`link` in the caller's transaction (the one that stores the challenge, so that a crash
    leaves the rematch challenge stored and named, or neither); False when another ask was stored
    first.  A unique-key conflict (two asks at the same instant) raises ``IntegrityError``: the
    caller's transaction is then rolled back."""
    t = rematch_challenges_table
    if replacing is None:
        tx.conn.execute(t.insert().values(game_id=game_id, challenge_id=challenge_id))
        return True
    done = tx.conn.execute(
        t.update().where(t.c.game_id == game_id, t.c.challenge_id == replacing).values(challenge_id=challenge_id)
    )
    return bool(done.rowcount == 1)


def link(storage: Storage, game_id: str, challenge_id: str, *, replacing: str | None = None) -> bool:
    """Name ``challenge_id`` the rematch of ``game_id`` (in place of the settled ``replacing``);
    False when another ask was stored first."""
    t = rematch_challenges_table
    try:
        with storage.transaction(write=True) as tx:
            if replacing is None:
                tx.conn.execute(t.insert().values(game_id=game_id, challenge_id=challenge_id))
                return True
            done = tx.conn.execute(
                t.update()
                .where(t.c.game_id == game_id, t.c.challenge_id == replacing)
                .values(challenge_id=challenge_id)
            )
            return bool(done.rowcount == 1)
    except IntegrityError:
        return False
