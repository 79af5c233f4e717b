"""The puzzles' HTTP API (``router``, included by ``create_app``; docs/http-api.md, docs/puzzles.md).

A puzzle as the player sees it never carries its line: the answer comes back one step at a time
from ``POST /api/puzzles/{id}/attempt``, and whole only once the attempt is over (solved, wrong,
or the solution viewed — which scores a loss).  Accounts (a session, or a token with the ``play``
scope) are rated; guests play unrated.  Every refusal is a 4xx with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from tessera.core.game import IllegalMove
from tessera.puzzles.model import Judgement, Puzzle, judge, public_view
from tessera.server.accounts import auth as A
from tessera.server.accounts.model import User
from tessera.server.accounts.security import Refused
from tessera.server.http.errors import ServiceError
from tessera.server.http.pages import WEB
from tessera.server.puzzles.store import PuzzleBank, PuzzleStore

router = APIRouter(tags=["puzzles"])

MAX_STEPS = 64
"""Most steps one attempt may send."""


class AttemptIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    moves: list[str] = Field(
        max_length=MAX_STEPS, description="the player's own steps so far, in order, in the game's notation"
    )


def store_of(request: Request) -> PuzzleStore:
    """The app's puzzle store (made on first use, with the bank of puzzles)."""
    state = request.app.state
    store: PuzzleStore | None = getattr(state, "puzzles", None)
    if store is None:
        store = state.puzzles = PuzzleStore(state.storage, PuzzleBank.load())
    return store


def account(request: Request) -> User | None:
    """The asker's account (a session, or a token with the ``play`` scope), or ``None`` for a guest."""
    auth = A.optional_auth(request)
    if auth is None:
        return None
    if not auth.allows("play"):
        raise Refused(
            403, "this API token lacks the scope 'play'", key="refusal.auth.scope_missing", args={"scope": "play"}
        )
    return auth.user


def _view(store: PuzzleStore, puzzle: Puzzle) -> dict[str, Any]:
    state = puzzle.state()
    return {
        **public_view(puzzle, store.puzzle_rating(puzzle).rating),
        "render": state.render(puzzle.to_move),
    }


@router.get("/puzzles", include_in_schema=False)
def puzzles_page() -> FileResponse:
    """The puzzles page (tessera/web/puzzles.html)."""
    return FileResponse(WEB / "puzzles.html")


@router.get("/api/puzzles")
def games(request: Request) -> dict[str, Any]:
    """The games with puzzles: how many, proved or found by search, their themes."""
    bank = store_of(request).bank
    out = []
    for game, puzzles in sorted(bank.by_game.items()):
        themes = sorted({t for p in puzzles for t in p.themes})
        proofs = sorted({p.proof for p in puzzles})
        out.append({"game": game, "count": len(puzzles), "proof": proofs, "themes": themes})
    return {"games": out}


@router.get("/api/puzzles/next")
def next_puzzle(
    request: Request,
    game: str = Query(max_length=32, description="the game's name"),
    theme: str | None = Query(None, max_length=64, description="only puzzles with this theme"),
) -> dict[str, Any]:
    """A puzzle near the player's puzzle rating that he has not finished (a guest: near 1500)."""
    store = store_of(request)
    user = account(request)
    puzzle = store.next_for(None if user is None else user.id, game, theme, random.Random())
    return _view(store, puzzle)


@router.get("/api/puzzles/daily")
def daily(request: Request, game: str = Query(max_length=32, description="the game's name")) -> dict[str, Any]:
    """The puzzle of the day for ``game`` (the same for everyone on one UTC day)."""
    store = store_of(request)
    today = dt.datetime.now(dt.UTC).date()
    return {**_view(store, store.bank.daily(game, today)), "daily": today.isoformat()}


@router.get("/api/puzzles/me")
def me(request: Request) -> dict[str, Any]:
    """The account's puzzle ratings and streaks per game, and its latest finished puzzles (401 for a guest)."""
    user = account(request)
    if user is None:
        raise Refused(401, "log in first", key="refusal.auth.log_in_first")
    store = store_of(request)
    return {"ratings": store.summary(user.id), "history": store.history(user.id)}


@router.get("/api/puzzles/{puzzle_id}")
def get_puzzle(puzzle_id: str, request: Request) -> dict[str, Any]:
    """One puzzle as the player sees it (never its answer)."""
    store = store_of(request)
    return _view(store, store.bank.get(puzzle_id))


def _rate(request: Request, store: PuzzleStore, puzzle: Puzzle, *, won: bool, viewed: bool) -> dict[str, Any]:
    user = account(request)
    if user is None:
        return {"rated": False, "why_unrated": "guest", "rating": None}
    rating = store.finish(user.id, puzzle, won=won, viewed=viewed)
    if rating is None:
        return {"rated": False, "why_unrated": "played before", "rating": store.player(user.id, puzzle.game).as_dict()}
    return {"rated": True, "rating": rating}


def _answer(j: Judgement, puzzle: Puzzle) -> dict[str, Any]:
    state = puzzle.state()
    for step in j.steps:
        state.play(step.move)
        for m in step.replies + step.refutation:
            state.play(m)
    cp = state.current_player()
    return {
        "status": j.status,
        "steps": [
            {"move": s.move, "verdict": s.verdict, "replies": s.replies, "refutation": s.refutation} for s in j.steps
        ],
        "position": j.position,
        "to_move": cp,
        "render": state.render(cp if cp >= 0 else None),
    }


@router.post("/api/puzzles/{puzzle_id}/attempt")
def attempt(puzzle_id: str, body: AttemptIn, request: Request) -> dict[str, Any]:
    """Judge the player's steps so far: each one ``correct`` (with the opponent's replies played for
    him), ``wrong`` (with the refutation; the attempt is over) or ``solved``.  An attempt that ends
    is rated (accounts, first finish only) and comes back with the whole ``solution``."""
    store = store_of(request)
    puzzle = store.bank.get(puzzle_id)
    try:
        j = judge(puzzle, body.moves)
    except IllegalMove as e:
        raise ServiceError(400, str(e), key="refusal.puzzles.illegal", args={"reason": str(e)}) from None
    except ValueError as e:
        raise ServiceError(400, str(e), key="refusal.puzzles.bad_attempt", args={"reason": str(e)}) from None
    out = _answer(j, puzzle)
    if j.status == "correct":
        return {**out, "rated": False, "rating": None}
    return {**out, **_rate(request, store, puzzle, won=j.status == "solved", viewed=False), "solution": puzzle.line}


def _hint_cell(render: dict[str, Any], move: str) -> str | None:
    """The first cell of ``move`` on the board (its action's path), or ``None`` for a button move."""
    for a in render.get("actions") or []:
        template = a.get("template")
        if a.get("move") == move or (template and "{n}" in template and move.startswith(template.split("{n}")[0])):
            path = a.get("path") or []
            return str(path[0]) if path else None
    return None


@router.post("/api/puzzles/{puzzle_id}/hint")
def hint(puzzle_id: str, body: AttemptIn, request: Request) -> dict[str, Any]:
    """Where the next step starts, after the player's correct steps so far: the ``cell`` it begins on
    (``null`` for a step made with a button, such as ``end``, then ``button`` is true)."""
    store = store_of(request)
    puzzle = store.bank.get(puzzle_id)
    try:
        j = judge(puzzle, body.moves)
    except (IllegalMove, ValueError) as e:
        raise ServiceError(400, str(e), key="refusal.puzzles.bad_attempt", args={"reason": str(e)}) from None
    if j.status != "correct":
        raise ServiceError(409, "the attempt is over: no hint", key="refusal.puzzles.over")
    state = puzzle.state()
    at = 0
    for step in j.steps:
        state.play(step.move)
        at += 1 + len(step.replies)
        for m in step.replies:
            state.play(m)
    cell = _hint_cell(state.render(puzzle.to_move), puzzle.line[at])
    return {"cell": cell, "button": cell is None}


@router.post("/api/puzzles/{puzzle_id}/solution")
def solution(puzzle_id: str, request: Request) -> dict[str, Any]:
    """The whole line, shown: the attempt is over and scored as a loss (accounts, first finish only)."""
    store = store_of(request)
    puzzle = store.bank.get(puzzle_id)
    return {"solution": puzzle.line, **_rate(request, store, puzzle, won=False, viewed=True)}


__all__ = ["router", "store_of"]
