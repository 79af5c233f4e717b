"""Nymbat's position dictionary read back: ``state_from_dict`` checks every field and names the problem
(``ValueError``); :meth:`NymbatState.to_dict` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.core.geometry import bits
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.board import _H, BRING, GRID, INDEX, LAST_ROW, MOVE, NAMES, PENALTY
from tessera.games.nymbat.game import NymbatGame
from tessera.games.nymbat.state import NymbatState


def state_from_dict(game: NymbatGame, d: Mapping[str, Any]) -> NymbatState:
    where = "nymbat position"
    if not isinstance(d, Mapping):
        raise ValueError(f"a {where} must be a dict")
    known = {"to_move", "pieces", "reserves", "delays", "first_turn_done", "turn", "last_mover", "in_turn", "resigned"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; accepted keys: {', '.join(sorted(known))}")
    for key in ("to_move", "pieces", "reserves"):
        if key not in d:
            raise ValueError(f"{where}: missing key {key!r}")
    st = NymbatState(game)
    players = game.players
    names = game.layout.names
    s = st.s
    st.to_move = _player(d["to_move"], f"{where}: to_move", names)
    s[_H + _k.TO_MOVE] = st.to_move
    pieces = d["pieces"]
    if not isinstance(pieces, Mapping):
        raise ValueError(f"{where}: 'pieces' must map a hex to [owner, number]")
    for key, val in pieces.items():
        if not isinstance(key, str) or not GRID.has_label(key):
            raise ValueError(f"{where}: piece hex {key!r} is not a hex of the board (rows a–o, side 8)")
        if not isinstance(val, list | tuple) or len(val) != 2:
            raise ValueError(f"{where}: piece {key}: expected [owner, number], got {val!r}")
        owner = _player(val[0], f"{where}: piece {key} owner", names)
        n = val[1]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 6:
            raise ValueError(f"{where}: piece {key}: the number must be 1–6, not {n!r}")
        i = INDEX[GRID.cell(key)]
        s[_k.OWNER + i] = owner
        s[_k.NUM + i] = n
    s[_H + _k.RES : _H + _k.RES + players] = _pair(d["reserves"], f"{where}: reserves", 0, 10**6, players)
    s[_H + _k.DEL : _H + _k.DEL + players] = _pair(
        d.get("delays", [0] * players), f"{where}: delays", 0, 10**9, players
    )
    fd = d.get("first_turn_done", [False] * players)
    if not isinstance(fd, list | tuple) or len(fd) != players or not all(isinstance(x, bool) for x in fd):
        raise ValueError(f"{where}: first_turn_done must be {players} booleans, not {fd!r}")
    s[_H + _k.FIRST : _H + _k.FIRST + players] = fd
    rs = d.get("resigned", [False] * players)
    if not isinstance(rs, list | tuple) or len(rs) != players or not all(isinstance(x, bool) for x in rs):
        raise ValueError(f"{where}: resigned must be {players} booleans, not {rs!r}")
    for q in range(players):
        if rs[q] and (st.own[q] or st.reserves[q]):
            raise ValueError(f"{where}: {names[q]} has resigned, so he has no piece on the board and reserve 0")
    if rs.count(False) == 0:
        raise ValueError(f"{where}: at least one player has not resigned")
    s[_H + _k.RESIGNED : _H + _k.RESIGNED + players] = rs
    turn = d.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= game.max_turns:
        raise ValueError(f"{where}: turn must be a whole number 0–{game.max_turns}, not {turn!r}")
    s[_H + _k.TURN] = turn
    lm = d.get("last_mover")
    s[_H + _k.LAST] = -1 if lm is None else _player(lm, f"{where}: last_mover", names)
    it = d.get("in_turn")
    if it is None:
        st._settle()
    if st.resigned[st.to_move] and not st._over:  # (a game can end at a resigned player's turn)
        raise ValueError(f"{where}: {names[st.to_move]} has resigned, so he is never to move")
    if it is None:
        return st
    if not isinstance(it, Mapping) or it.get("phase") not in ("bring", "move", "penalty"):
        raise ValueError(f"{where}: in_turn must be a dict whose phase is 'bring', 'move' or 'penalty'")
    p = st.to_move
    phase = it["phase"]
    allowed = {"bring": {"phase", "placed"}, "penalty": {"phase"}}.get(
        phase, {"phase", "speed", "unmoved", "group", "start_distance", "captured", "breakthrough"}
    )
    extra = sorted(set(it) - allowed)
    if extra:
        raise ValueError(f"{where}: in_turn key {extra[0]!r} does not belong to phase {phase!r}")
    if phase == "penalty":
        if st.reserves[p] != 0 or not st.own[p]:
            raise ValueError(f"{where}: a penalty step needs reserve 0 and a piece of {names[p]} on the board")
        s[_H + _k.PHASE] = PENALTY
        return st
    if phase == "bring":
        placed = it.get("placed")
        if not isinstance(placed, int) or isinstance(placed, bool) or not 1 <= placed <= 10**6:
            raise ValueError(f"{where}: in_turn placed must be a whole number >= 1 (at most 10**6), not {placed!r}")
        if not st.first_done[p] and placed > game.first_limit:
            raise ValueError(f"{where}: {placed} placed on a first turn exceeds first_limit={game.first_limit}")
        s[_H + _k.PHASE] = BRING
        s[_H + _k.PLACED] = placed
        if not st._has_step():
            raise ValueError(f"{where}: nothing more can be brought in, so the turn would already have ended")
        return st
    if not st.first_done[p]:
        raise ValueError(f"{where}: {names[p]} cannot move a group on his first turn")
    speed = it.get("speed")
    if not isinstance(speed, int) or isinstance(speed, bool) or not 1 <= speed <= 6:
        raise ValueError(f"{where}: in_turn speed must be 1–6, not {speed!r}")
    unmoved = _cells(it.get("unmoved"), f"{where}: in_turn unmoved")
    tracked = _cells(it.get("group"), f"{where}: in_turn group")
    if unmoved & ~st.own[p] or tracked & ~st.own[p]:
        raise ValueError(f"{where}: in_turn unmoved/group must be hexes holding {names[p]} pieces")
    if unmoved & ~tracked:
        raise ValueError(f"{where}: in_turn unmoved pieces must also be listed in group")
    sd = it.get("start_distance")
    if not isinstance(sd, int) or isinstance(sd, bool) or not 0 <= sd <= LAST_ROW:
        raise ValueError(f"{where}: in_turn start_distance must be 0–{LAST_ROW}, not {sd!r}")
    cap = it.get("captured")
    if not isinstance(cap, bool):
        raise ValueError(f"{where}: in_turn captured must be true or false, not {cap!r}")
    s[_H + _k.PHASE] = MOVE
    s[_H + _k.SPEED] = speed
    s[_H + _k.START_DIST] = sd
    s[_H + _k.CAPTURED] = cap
    for c in bits(tracked):
        s[_k.FLAG + INDEX[c]] = _k.TRACKED | (_k.UNMOVED if unmoved >> c & 1 else 0)
    brk = it.get("breakthrough")
    if brk is not None:
        keys = {"hex", "budget"} if players == 2 else {"hex", "budget", "defender"}
        if not isinstance(brk, Mapping) or set(brk) != keys:
            form = ", ".join(f"'{k}': ..." for k in sorted(keys))
            raise ValueError(f"{where}: in_turn breakthrough must be {{{form}}}")
        h = brk["hex"]
        if not isinstance(h, str) or not GRID.has_label(h):
            raise ValueError(f"{where}: breakthrough hex {h!r} is not a hex of the board")
        b = brk["budget"]
        if not isinstance(b, int) or isinstance(b, bool) or not 1 <= b <= 6:
            raise ValueError(f"{where}: breakthrough budget must be 1–6, not {b!r}")
        owner = 1 - p if players == 2 else _player(brk["defender"], f"{where}: breakthrough defender", names)
        if owner == p:
            raise ValueError(f"{where}: the breakthrough defender cannot be the player to move")
        s[_H + _k.BRK_CELL] = INDEX[GRID.cell(h)]
        s[_H + _k.BRK_BUDGET] = b
        s[_H + _k.BRK_OWNER] = owner
        if not st._removable():
            raise ValueError(f"{where}: the breakthrough at {h} has nothing left to remove")
    if not st._has_step():
        raise ValueError(f"{where}: no group piece can move any more, so the turn would already have ended")
    return st


def _player(v: Any, where: str, names: tuple[str, ...] = NAMES) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < len(names):
        seats = " or ".join(f"{i} ({name})" for i, name in enumerate(names))
        if len(names) > 2:
            seats = ", ".join(f"{i} ({name})" for i, name in enumerate(names))
        raise ValueError(f"{where} must be {seats}, not {v!r}")
    return int(v)


def _pair(v: Any, where: str, lo: int, hi: int, count: int = 2) -> list[int]:
    if (
        not isinstance(v, list | tuple)
        or len(v) != count
        or not all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi for x in v)
    ):
        words = "two" if count == 2 else str(count)
        raise ValueError(f"{where} must be {words} whole numbers from {lo} to {hi}, not {v!r}")
    return [int(x) for x in v]


def _cells(v: Any, where: str) -> int:
    if not isinstance(v, list | tuple):
        raise ValueError(f"{where} must be a list of hexes, not {v!r}")
    m = 0
    for h in v:
        if not isinstance(h, str) or not GRID.has_label(h):
            raise ValueError(f"{where}: {h!r} is not a hex of the board")
        m |= 1 << GRID.cell(h)
    return m
