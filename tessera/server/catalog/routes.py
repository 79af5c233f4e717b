"""The games offered (with their parameters), their rules pages, and the server's status."""

from __future__ import annotations

import functools
import logging
from typing import Any

from fastapi import APIRouter

import tessera
from tessera.core.registry import game_class
from tessera.server.ai import levels as ai_levels
from tessera.server.ai import ratings as ai_ratings
from tessera.server.ai.thinking import AGENTS_AVAILABLE
from tessera.server.ai.warmup import Warmup
from tessera.server.http.deps import WarmupDep
from tessera.server.http.errors import ServiceError

log = logging.getLogger("tessera.server")

router = APIRouter(tags=["catalog"])


@functools.cache
def client_module_url(name: str) -> str | None:
    """Where the browser loads game ``name``'s client module (``Game.client_module``, served from its
    folder), or ``None``; looked up once per process (a file check costs about 0.08 ms here, five of them
    in every catalogue request before)."""
    return f"/games/{name}/client.js" if game_class(name).client_module_path() else None


def catalog(warmup: Warmup | None = None) -> list[dict[str, Any]]:
    """Every game with its declared parameters (the create form is built from this)."""
    from tessera.server.ai.warmup import seats_by_players

    out = []
    for name in tessera.list_games():
        try:
            cls = game_class(name)
            info = cls.info
        except Exception as e:  # a game being written may not import yet
            log.warning("game %s does not load: %s", name, e)
            continue
        out.append(
            {
                "name": name,
                "title": info.title,
                "players": info.num_players,
                "player_names": list(info.player_names),
                "seats_by_players": warmup.seats_by_players(name) if warmup else seats_by_players(name),
                "dynamics": info.dynamics,
                "board_kind": info.board_kind,
                "designer": info.designer,
                "examples": list(info.examples),
                # how the AI levels were measured (Game.level_tuning()), and which are offered (level 6 where
                # its stored SPRT accepted it: tessera.server.ai.levels)
                "levels": ai_levels.public(name),
                "ai_ratings": ai_ratings.public(name),  # each AI level's starting rating (tessera.server.ai.ratings)
                # the game's own client module (Game.client_module), served from its folder
                "client_module": client_module_url(name),
                "params": [
                    {
                        "name": p.name,
                        "default": p.default,
                        "kind": p.kind.__name__,
                        "doc": p.doc,
                        "min": p.min,
                        "max": p.max,
                        "choices": list(p.choices) if p.choices is not None else None,
                        "step": p.step,
                        "expert": p.expert,
                    }
                    for p in info.params
                ],
                "param_rules": [  # how parameters follow each other: the form applies them live
                    {
                        "param": r.param,
                        "when": r.when,
                        "equals": r.equals,
                        "default": r.default,
                        "min": r.min,
                        "max": r.max,
                        "choices": list(r.choices) if r.choices is not None else None,
                        "fixed": r.fixed,
                        "max_from": r.max_from,
                    }
                    for r in info.param_rules
                ],
            }
        )
    return out


def rules_text(name: str) -> dict[str, str]:
    """The players' rules page of a game (``Game.rules_page()``: ``rules/en.md`` in its folder, else its summary)."""
    try:
        cls = game_class(name)
    except ValueError as e:
        raise ServiceError(404, str(e)) from None
    info = cls.info
    text = cls.rules_page() or f"# {info.title}\n\n```\n{info.summary}\n```\n"
    return {"game": name, "title": info.title, "markdown": text}


@router.get("/api/catalog")
def get_catalog(warmup: WarmupDep) -> dict[str, Any]:
    """The games, their parameters, and whether real AI agents are installed (answered at once,
    also while the kernels still compile: see ``/api/status``)."""
    return {"games": catalog(warmup), "ai_agents": AGENTS_AVAILABLE, "version": tessera.__version__}


@router.get("/api/status")
def get_status(warmup: WarmupDep) -> dict[str, Any]:
    """Whether the games' kernels are compiled: ``{"ready": bool, "warming": [game names still compiling]}``."""
    return warmup.status()


@router.get("/api/rules/{name}")
def get_rules(name: str) -> dict[str, str]:
    """A game's rules for players, as Markdown."""
    return rules_text(name)
