"""Every text the games write for people, collected from random games of every game and variant.

Shared by the key tests (``tests/games/test_text_keys.py``: every text has a key) and the
catalogue test (``tests/browser/test_i18n_catalogues.py``: every key a game can emit exists in
every language).  A collected text is ``(key, args, english)``; the arguments' nested texts
(a player's name, a colour, a nested sentence) are collected too.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import tessera
from tessera.core.game import SIMULTANEOUS, TERMINAL, IllegalMove, State

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("ikabegama", {"distance": 2, "board": "hexhex:3", "max_plies": 30}),
    ("ikabegama", {"distance": 2, "max_plies": 24}),
    ("nibble", {}),
    ("nibble", {"colors": 13}),
    ("nibble", {"board": "hex"}),
    ("nymbat", {"reserve": 8, "first_limit": 6, "max_turns": 40}),
    ("nymbat", {"players": 4, "reserve": 8, "first_limit": 6, "max_turns": 40}),
    ("nume", {"size": 2}),
    ("nume", {"size": 3, "variant": "square", "komi_to": "white"}),
    ("nume", {"size": 2, "komi_bidding": True}),
    ("nelaxtam", {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 3}),
    ("nelaxtam", {"size": 10, "troops": 3, "by_sea": 2, "max_idle_turns": 4, "variant": "quiet"}),
]
"""Every game, and each variant that writes other texts (board shapes, four players, bidding, quiet)."""

TEXT_FIELDS = ("label", "title", "hint", "status")
"""Fields that hold words for people wherever they appear in a render description."""

BAD_MOVES = ("zz", "a1=9", "q9", "3>q99", "9=", "komi x black", "komi 0.7 white", "1,0>9,9", "x", "lose a1", "")
"""Malformed moves every game is asked about (each game refuses most of them in its own words)."""


@dataclass
class Emitted:
    """What random games wrote: keyed texts, and texts written without a key (with where)."""

    texts: dict[tuple[str, str], tuple[str, dict[str, Any], str]] = field(default_factory=dict)
    unkeyed: list[str] = field(default_factory=list)

    @property
    def keys(self) -> set[str]:
        return {k for k, _, _ in self.texts.values()}

    def add(self, key: str | None, args: Any, english: str, where: str) -> None:
        if not key:
            self.unkeyed.append(f"{where} -> {english!r}")
            return
        assert isinstance(args, dict), f"{where}: args of {key} is not an object: {args!r}"
        self.texts.setdefault((key, json.dumps(args, sort_keys=True) + english), (key, args, english))
        for name, v in args.items():
            for item in v if isinstance(v, list) else [v]:
                if isinstance(item, dict):
                    self.add(item.get("key"), item.get("args", {}), item.get("text", ""), f"{where}.{name}")

    def render(self, desc: dict[str, Any], where: str) -> None:
        """Every text of a render description (its objects' text fields, panel values, the result);
        the game's own name (``title`` of the description) is a name, not a text."""
        self._walk({k: v for k, v in desc.items() if k != "title"}, where)
        res = desc.get("result")
        if res is not None:
            self.add(res.get("key"), res.get("args", {}), res["text"], f"{where}.result")

    def _walk(self, obj: Any, where: str) -> None:
        if isinstance(obj, list):
            for i, x in enumerate(obj):
                self._walk(x, f"{where}[{i}]")
            return
        if not isinstance(obj, dict):
            return
        for f in TEXT_FIELDS:
            v = obj.get(f)
            if isinstance(v, str) and v:
                self.add(obj.get(f"{f}_key"), obj.get(f"{f}_args", {}), v, f"{where}.{f}")
        values = obj.get("values")
        if isinstance(values, list) and "label" in obj:
            keys = obj.get("value_keys") or [None] * len(values)
            for v, k in zip(values, keys, strict=True):
                if isinstance(v, str):
                    self.add(k and k["key"], k and k["args"], v, f"{where}.values")
                else:
                    assert k is None, f"{where}: a number with a key"
        for k, v in obj.items():
            if k not in ("result", "params", "board") and isinstance(v, (list, dict)):
                self._walk(v, f"{where}.{k}")
        board = obj.get("board")
        if isinstance(board, dict):
            self._walk(board.get("cells", []), f"{where}.board.cells")

    def refusal(self, e: IllegalMove, where: str) -> None:
        self.add(e.key, e.key_args, str(e), where)

    def outcome(self, out: dict[str, Any], where: str) -> None:
        self.add(out.get("key"), out.get("args", {}), out["text"], where)


def _refusals(state: State, rng: random.Random, em: Emitted, where: str) -> None:
    """Ask the state about a few random actions and malformed moves: each refusal is collected."""
    cp = state.current_player()
    if cp == SIMULTANEOUS:
        g = state.game
        tokens = list(g.tokens)  # type: ignore[attr-defined]
        for p in range(g.num_players):
            for n in (1, 2, 3):
                order = " ".join(rng.choice(tokens) for _ in range(n))
                why = state.why_illegal(order, p)
                if why is not None:
                    try:
                        state.clone().play_joint([order, state.random_move(rng, 1 - p)][:: 1 if p == 0 else -1])
                    except IllegalMove as e:
                        em.refusal(e, f"{where} joint order {order!r}")
            for bad in BAD_MOVES:
                try:
                    state.parse_order(bad)  # type: ignore[attr-defined]
                except IllegalMove as e:
                    em.refusal(e, f"{where} order {bad!r}")
        return
    n = state.game.num_distinct_actions()
    for a in rng.sample(range(n), min(n, 12)):
        try:
            state.clone().apply_action(a)
        except IllegalMove as e:
            em.refusal(e, f"{where} action {a}")
    for bad in BAD_MOVES:
        try:
            state.clone().play(bad)
        except IllegalMove as e:
            em.refusal(e, f"{where} move {bad!r}")
    if cp >= 0 and state.game.num_players == 2:
        try:
            state.clone()._check_move(state.random_move(rng), 1 - cp)
        except IllegalMove as e:
            em.refusal(e, f"{where} out of turn")


def _views(state: State, rng: random.Random) -> Iterator[tuple[str, dict[str, Any]]]:
    """The render descriptions of every seat and a spectator (Nelaxtam: also with a sealed order)."""
    yield "spectator", state.render(None)
    for p in range(state.game.num_players):
        yield f"seat {p}", state.render(p)
    if state.current_player() == SIMULTANEOUS:
        p = rng.randrange(state.game.num_players)
        sealed = {p: state.random_move(rng, p)}
        yield f"seat {p} sealed", state.view(p, sealed).render(p)
        yield f"seat {1 - p} opponent sealed", state.view(1 - p, sealed).render(1 - p)


def collect(games: int = 3, seed: int = 0) -> Emitted:
    """Play ``games`` random games of every variant and collect everything written for people."""
    em = Emitted()
    for name, params in VARIANTS:
        g = tessera.load_game(name, **params)
        for i in range(games):
            rng = random.Random(f"{seed}-{name}-{params}-{i}")
            state = g.new_initial_state(seed=rng.randrange(1 << 30))
            step = 0
            while True:
                where = f"{name}{params} game {i} step {step}"
                if step % 3 == 0 or state.is_terminal():
                    for who, desc in _views(state, rng):
                        em.render(desc, f"{where} {who}")
                    _refusals(state, rng, em, where)
                cp = state.current_player()
                if cp == TERMINAL:
                    out = state.outcome()
                    assert out is not None
                    em.outcome(out, f"{where} outcome")
                    break
                if cp == SIMULTANEOUS:
                    state.play_joint([state.random_move(rng, p) for p in range(g.num_players)])
                elif state.resign_plays_on() and rng.random() < 0.01:
                    state.resign(rng.choice([p for p in range(g.num_players) if not state.resigned[p]]))  # type: ignore[attr-defined]
                else:
                    state.play(state.random_move(rng))
                step += 1
            if state.resign_plays_on():
                try:
                    state.resign(0)
                except IllegalMove as e:
                    em.refusal(e, f"{name} resign after the end")
    return em
