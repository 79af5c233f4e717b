"""Nume's position dictionary read back: ``state_from_dict`` checks every field and names the problem
(``ValueError``); :meth:`NumeState.to_dict` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.core.game import TERMINAL
from tessera.games.nume.constants import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_LETTERS,
    COLOUR_WORDS,
    PLAY,
    WHITE,
    _fmt_komi,
)
from tessera.games.nume.game import NumeGame
from tessera.games.nume.state import NumeState


def state_from_dict(game: NumeGame, d: Mapping[str, Any]) -> NumeState:
    """A state from the position dict (the module docstring); ``ValueError`` names any inconsistency."""
    if not isinstance(d, Mapping):
        raise ValueError("a nume position must be a dict")
    known = {"size", "variant", "to_move", "stones", "komi", "komi_to", "colors"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"nume position: unknown key {unknown[0]!r}; expected keys {sorted(known)}")
    p = game.params
    n = game.cells
    for key in ("size", "variant"):
        if key in d and d[key] != p[key]:
            raise ValueError(f"nume position: {key} is {d[key]!r} but this game's {key} is {p[key]!r}")
    bidding = p["komi_bidding"]
    colors_in = d.get("colors", None if bidding else ["black", "white"])
    komi_in = d.get("komi", None if bidding else p["komi"])
    komi_to_in = d.get("komi_to", None if bidding else p["komi_to"])
    # colours
    colors: list[int] | None
    if colors_in is None:
        if not bidding:
            raise ValueError("nume position: colors may only be null in a game with komi_bidding=true")
        colors = None
    else:
        if not isinstance(colors_in, list | tuple) or sorted(map(str, colors_in)) != ["black", "white"]:
            raise ValueError(
                f"nume position: colors must be ['black', 'white'] or ['white', 'black'], not {colors_in!r}"
            )
        colors = [COLOUR_WORDS.index(str(c)) for c in colors_in]
        if not bidding and colors != [BLACK, WHITE]:
            raise ValueError("nume position: without komi bidding player 0 is Black: colors must be ['black', 'white']")
    # komi
    komi: float | None
    komi_to: int | None
    if komi_in is None or komi_to_in is None:
        if komi_in is not None or komi_to_in is not None:
            raise ValueError("nume position: komi and komi_to must both be given or both be null")
        if not bidding:
            raise ValueError("nume position: komi may only be null in a game with komi_bidding=true")
        if colors is not None:
            raise ValueError("nume position: the colours are chosen after the komi bid, so komi cannot be null here")
        komi, komi_to = None, None
    else:
        if isinstance(komi_in, bool) or not isinstance(komi_in, int | float):
            raise ValueError(f"nume position: komi must be a number, not {komi_in!r}")
        if komi_to_in not in COLOUR_WORDS:
            raise ValueError(f"nume position: komi_to must be 'black' or 'white', not {komi_to_in!r}")
        komi, komi_to = float(komi_in), COLOUR_WORDS.index(komi_to_in)
        if bidding:
            if not (komi - 0.5).is_integer() or not 0.5 <= komi <= n + 0.5:
                raise ValueError(f"nume position: a bid komi is n+0.5 from 0.5 to {n}.5, not {_fmt_komi(komi_in)}")
        elif komi != p["komi"] or komi_to_in != p["komi_to"]:
            raise ValueError(
                f"nume position: komi {_fmt_komi(komi)} to {komi_to_in} differs from this game's "
                f"komi={_fmt_komi(p['komi'])}, komi_to={p['komi_to']!r}"
            )
    # stones
    stones_in = d.get("stones", {})
    if not isinstance(stones_in, Mapping):
        raise ValueError("nume position: 'stones' must map a cell to [colour, number or null]")
    stones: list[tuple[int, int, int]] = []
    seen: set[int] = set()
    for key, val in stones_in.items():
        lab = str(key)
        c = game.label_index.get(lab)
        if c is None:
            raise ValueError(f"nume position: stone {lab!r} is not a cell of the {game.grid.shape} board")
        if c in seen:
            raise ValueError(f"nume position: cell {lab!r} is given twice")
        seen.add(c)
        if not isinstance(val, list | tuple) or len(val) != 2 or val[0] not in COLOUR_LETTERS:
            raise ValueError(f"nume position: stone {lab!r} must be ['b' or 'w', number or null], not {val!r}")
        num = val[1]
        if num is None:
            k = -1
        elif isinstance(num, int) and not isinstance(num, bool) and 0 <= num <= n:
            k = num
        else:
            raise ValueError(f"nume position: stone {lab!r} has number {num!r}; expected null or 0…{n}")
        stones.append((c, COLOUR_LETTERS.index(val[0]), k))
    if stones and colors is None:
        raise ValueError("nume position: stones are placed only after komi bidding, but colors is null")
    state = NumeState(game)
    if komi is None:
        phase = BID
    elif colors is None:
        phase = CHOOSE
    else:
        phase = PLAY
    # numbered stones must found distinct groups; others join them
    board = [-1] * n
    numbers = [-1] * n
    for c, col, k in stones:
        board[c] = col
        numbers[c] = k
    for c, col, k in stones:
        if k >= 0:
            for m in game.nbrs[c]:
                if board[m] == col and numbers[m] >= 0:
                    raise ValueError(
                        f"nume position: numbered {COLOUR_WORDS[col]} stones {game.labels[c]} and "
                        f"{game.labels[m]} touch; a stone placed next to a friendly stone carries no number"
                    )
    counts = [board.count(BLACK), board.count(WHITE)]
    state._setup(phase, komi, komi_to, colors)
    # place numbered stones first, then the others breadth-first from them
    for c, col, k in stones:
        if k >= 0:
            state._col = col
            state._place(c, k + 1)
    pending = {c for c, _, k in stones if k < 0}
    while pending:
        ready = [c for c in sorted(pending) if any(board[m] == board[c] and m not in pending for m in game.nbrs[c])]
        if not ready:
            c = min(pending)
            raise ValueError(
                f"nume position: the {COLOUR_WORDS[board[c]]} group at {game.labels[c]} has no numbered stone; "
                "every group starts with a numbered stone"
            )
        for c in ready:
            state._col = board[c]
            state._place(c, 0)
            pending.discard(c)
    to_move = d.get("to_move")
    if to_move is not None and (type(to_move) is not int or to_move not in (0, 1, TERMINAL)):
        raise ValueError(f"nume position: to_move must be 0, 1 or {TERMINAL} (board full), not {to_move!r}")
    if phase == PLAY:
        assert colors is not None
        if not state._nempty():
            if to_move not in (None, TERMINAL):
                raise ValueError(f"nume position: the board is full, so to_move must be {TERMINAL}, not {to_move}")
            state._over = True
            state._placing = False
        elif to_move is None:
            # Black moves first: Black to move when he has no more stones than White
            state._col = BLACK if counts[BLACK] <= counts[WHITE] else WHITE
            state._to_move = colors.index(state._col)
        elif to_move == TERMINAL:
            raise ValueError(f"nume position: to_move is {TERMINAL} (game over) but the board has empty cells")
        else:
            state._to_move = to_move
            state._col = colors[to_move]
    elif to_move is not None and to_move != state._to_move:
        step = "bid the komi" if phase == BID else "choose a colour"
        raise ValueError(f"nume position: player {state._to_move} is to {step} here, but to_move is {to_move}")
    return state
