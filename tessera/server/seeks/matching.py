"""The matching of seeks, as plain functions: what a seek may ask for, which open seeks pair,
and which AI level a seek that found no opponent is offered.  No storage, no events:
:mod:`.pool` stores the seeks (:meth:`Seek.from_row` reads one of its rows), runs the waves
and tells the seekers.

**What a seek asks for** (:func:`seek_terms`): a two-player game and a clock, real time or
correspondence.  Its *kind* (:func:`seek_kind`) is what another seek must share to pair with
it: the same spec, rated or casual, the same clock (:func:`clock_kind`).

**Pairing** (:func:`pair_up`).  Among the open seeks of one kind the oldest seek first takes
the closest rating within the allowed gap of both (ties: the older); :func:`allowed_gap` widens
the longer a seek waits — :data:`BASE_GAP` at first, :data:`GAP_PER_SECOND` more each second,
at most :data:`MAX_GAP` — as lichess's pool does.  Two seeks of one client never pair, nor two
accounts one of which blocks the other.

**The AI instead** (:func:`ai_level_for`).  A seek that waited long enough is offered the AI level
whose rating is closest to the seeker's, among the levels its game offers for its number of
seats (:func:`players_of`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from tessera.core.game import Game
from tessera.server.accounts.security import Refused
from tessera.server.http.errors import ServiceError
from tessera.server.match.clocks import clock_from, clock_settings
from tessera.server.match.inputs import load_checked

BASE_GAP = 100.0
"""The rating gap allowed to a seek made just now."""

GAP_PER_SECOND = 10.0
"""How much the allowed gap widens per second of waiting."""

MAX_GAP = 1000.0
"""The widest gap ever allowed."""


def seek_terms(game: str, clock: Any) -> tuple[Game, dict[str, Any]]:
    """What a seek asks for, checked: its game (a two-player one: the pool pairs no other) and its
    clock's settings (a seek needs a clock); refused (422) otherwise."""
    try:
        g = load_checked(game)
    except ValueError as e:
        raise Refused(
            422, f"game: {str(e)[:500]}", key="refusal.seek.bad_game", args={"reason": str(e)[:500]}
        ) from None
    if g.num_players != 2:
        raise Refused(
            422,
            f"game: the seek pool pairs two-player games; {g} has {g.num_players} players",
            key="refusal.seek.two_players",
            args={"game": str(g), "n": g.num_players},
        )
    if clock is None:
        raise Refused(
            422,
            "clock: a seek needs a time control (seconds and increment, or days per move)",
            key="refusal.seek.clock_needed",
        )
    try:
        made = clock_from(clock, 2)
    except ValueError as e:
        raise Refused(422, str(e)) from None
    settings = clock_settings(made)
    assert settings is not None
    return g, settings


def seek_kind(spec: str, rated: bool, settings: dict[str, Any]) -> str:
    """What two seeks must share to pair: the spec, rated or casual, the clock (:func:`clock_kind`)."""
    return f"{spec}|{'rated' if rated else 'casual'}|{clock_kind(settings)}"


def clock_kind(settings: dict[str, Any]) -> str:
    """A clock's settings as a key: ``d3`` (3 days per move) or ``300+2`` (seconds + increment)."""
    if settings.get("kind") == "correspondence":
        return f"d{settings['days']}"
    return f"{settings['initial']:g}+{settings['increment']:g}"


def creation_clock(settings: dict[str, Any]) -> dict[str, Any]:
    """A seek's stored clock settings as a new game takes them."""
    if settings.get("kind") == "correspondence":
        return {"days": settings["days"]}
    return {"initial": settings["initial"], "increment": settings["increment"]}


@dataclass
class Seek:
    """One stored seek."""

    id: str
    user_id: str | None
    client: str
    spec: str
    pool: str
    rated: bool
    clock: dict[str, Any]
    kind: str
    rating: float
    rd: float
    status: str
    created_at: float
    seen_at: float
    secret_hash: str = ""
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None
    username: str | None = None

    @classmethod
    def from_row(cls, r: Any) -> Seek:
        """A seek from its row of the ``seeks`` table (``username``: its seeker's name, where the row has it)."""
        return cls(
            id=r["id"],
            user_id=r["user_id"],
            client=r["client"],
            spec=r["spec"],
            pool=r["pool"],
            rated=bool(r["rated"]),
            clock=json.loads(r["clock"]),
            kind=r["kind"],
            rating=float(r["rating"]),
            rd=float(r["rd"]),
            status=r["status"],
            created_at=float(r["created_at"]),
            seen_at=float(r["seen_at"]),
            secret_hash=r["secret_hash"],
            game_id=r["game_id"],
            seat=r["seat"],
            token=r["token"],
            username=r.get("username"),
        )


def allowed_gap(waited: float) -> float:
    """The rating gap a seek accepts after waiting ``waited`` seconds (widening, as lichess's pool)."""
    return min(MAX_GAP, BASE_GAP + GAP_PER_SECOND * max(0.0, waited))


def pair_up(seeks: list[Seek], now: float, apart: set[frozenset[str]] | None = None) -> list[tuple[Seek, Seek]]:
    """Pairs among open seeks: within a kind, the oldest seek first takes the closest rating whose
    difference both seeks' :func:`allowed_gap` accept (ties: the older); a client never meets itself,
    nor an account one it blocks or is blocked by (``apart``: those pairs of account ids)."""
    pairs: list[tuple[Seek, Seek]] = []
    taken: set[str] = set()
    ordered = sorted(seeks, key=lambda s: (s.created_at, s.id))
    for a in ordered:
        if a.id in taken:
            continue
        best: Seek | None = None
        for b in ordered:
            if b.id in taken or b.id == a.id or b.kind != a.kind or b.client == a.client:
                continue
            if apart and frozenset((a.user_id, b.user_id)) in apart:
                continue
            gap = abs(a.rating - b.rating)
            if gap > min(allowed_gap(now - a.created_at), allowed_gap(now - b.created_at)):
                continue
            if best is None or gap < abs(a.rating - best.rating):
                best = b
        if best is not None:
            taken.update((a.id, best.id))
            pairs.append((a, best))
    return pairs


@functools.lru_cache(maxsize=256)
def players_of(spec: str) -> int:
    """The number of seats of a seek's game spec (2 for a spec that no longer loads)."""
    try:
        return load_checked(spec).num_players
    except (ValueError, ServiceError):
        return 2


def ai_level_for(ratings: dict[int, float], rating: float) -> int:
    """The AI level whose rating (``ratings``: per level) is closest to ``rating`` (ties: the lower level)."""
    return min(ratings, key=lambda lv: (abs(ratings[lv] - rating), lv))
