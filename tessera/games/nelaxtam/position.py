"""Nelaxtam's position dictionary read back: ``state_from_dict`` checks every field and names the problem
(``ValueError``); :meth:`NelaxtamState.to_dict` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tessera.core.game import (
    IllegalMove,
)
from tessera.core.geometry import diagonal_flood
from tessera.games.nelaxtam.game import (
    BATTLE,
    BLACK,
    HIDDEN,
    INVASION,
    NAMES,
    OVER,
    PHASES,
    WHITE,
    NelaxtamGame,
    NelaxtamState,
)


def state_from_dict(game: NelaxtamGame, d: Mapping[str, Any]) -> NelaxtamState:
    """Build and check a state from a position dictionary."""
    if not isinstance(d, Mapping):
        raise ValueError("a nelaxtam position must be a dict")
    where = "nelaxtam position"
    unknown = set(d) - {"size", "phase", "turn", "idle", "board", "troops", "pending"}
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    size = d.get("size", game.size)
    if size != game.size:
        raise ValueError(f"{where}: size is {size!r} but this game's board is {game.size}")
    phase = d.get("phase", BATTLE)
    if phase not in (INVASION, BATTLE, OVER):
        raise ValueError(f"{where}: phase must be 'invasion', 'battle' or 'over', not {phase!r}")
    turn = d.get("turn", 1 if phase == INVASION else 2)
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
        raise ValueError(f"{where}: turn must be a whole number >= 1, not {turn!r}")
    idle = d.get("idle", 0)
    limit = game._params["max_idle_turns"]
    if not isinstance(idle, int) or isinstance(idle, bool) or not 0 <= idle <= limit:
        raise ValueError(f"{where}: idle must be 0…{limit}, not {idle!r}")
    board = d.get("board")
    if not isinstance(board, list) or len(board) != game.size or not all(isinstance(r, str) for r in board):
        raise ValueError(f"{where}: board must be a list of {game.size} strings (rank {game.size} first)")
    terr = [0, 0]
    for i, row in enumerate(board):
        y = game.size - 1 - i
        if len(row) != game.size:
            raise ValueError(f"{where}: board row for rank {y + 1} has {len(row)} squares, expected {game.size}")
        for x, ch in enumerate(row):
            c = game.cell_of_sq[y * game.size + x]
            if ch == ".":
                continue
            if ch not in "xo":
                raise ValueError(f"{where}: square {game.labels[c]} is {ch!r}; expected 'x', 'o' or '.'")
            owner = BLACK if ch == "x" else WHITE
            if game.color[c] != owner:
                raise ValueError(
                    f"{where}: square {game.labels[c]} is a {NAMES[game.color[c]]} square and cannot hold "
                    f"{NAMES[owner]} territory"
                )
            terr[owner] |= 1 << c
    troops_in = d.get("troops", [{}, {}])
    if not isinstance(troops_in, list) or len(troops_in) != 2 or not all(isinstance(t, Mapping) for t in troops_in):
        raise ValueError(f"{where}: troops must be a list of two dicts {{troop: square}} (Black's, White's)")
    st = NelaxtamState(game)
    pos = [[-1] * game.ntroops, [-1] * game.ntroops]
    seen: dict[int, str] = {}
    for p in (0, 1):
        for key, sq in troops_in[p].items():
            try:
                k = int(str(key))
            except ValueError:
                raise ValueError(f"{where}: {NAMES[p]} troop {key!r} is not a troop number") from None
            if not 1 <= k <= game.ntroops or str(k) != str(key):
                raise ValueError(f"{where}: {NAMES[p]} troop {key!r}: troops are numbered 1 to {game.ntroops}")
            if not isinstance(sq, str) or not game.grid.has_label(sq.strip().lower()):
                raise ValueError(f"{where}: {NAMES[p]} troop {k} stands on {sq!r}, which is not a square")
            c = game.grid.cell(sq)
            if not terr[p] >> c & 1:
                raise ValueError(
                    f"{where}: {NAMES[p]} troop {k} stands on {game.labels[c]}, which is not {NAMES[p]} territory"
                )
            if c in seen:
                raise ValueError(f"{where}: two troops stand on {game.labels[c]} ({seen[c]} and {NAMES[p]} {k})")
            seen[c] = f"{NAMES[p]} {k}"
            pos[p][k - 1] = c
    nsq, sq_of = game.num_squares, game.sq_of_cell
    st.a[:nsq] = [terr[game.sq_color[q]] >> game.cell_of_sq[q] & 1 for q in range(nsq)]
    st.a[nsq : nsq + 2 * game.ntroops] = [sq_of[c] if c >= 0 else -1 for c in pos[0] + pos[1]]
    st.a[st._h : st._h + 4] = (PHASES.index(phase), turn, idle, -1)
    st._sync()
    if phase == INVASION:
        if turn != 1 or idle != 0:
            raise ValueError(f"{where}: the invasion is turn 1 with idle 0")
        if seen:
            raise ValueError(f"{where}: no troop stands on the island before the invasion")
        if terr[0] != game.color_mask[0] or terr[1] != game.color_mask[1]:
            raise ValueError(f"{where}: before the invasion every square holds its territory piece")
    else:
        if turn < 2:
            raise ValueError(f"{where}: battle turns are numbered from 2 (the invasion is turn 1)")
        for p in (0, 1):
            troops = sum(1 << c for c in pos[p] if c >= 0)
            controlled = diagonal_flood(game.grid, troops, terr[p]) if troops else 0
            loose = terr[p] & ~controlled
            if loose:
                low = game.labels[(loose & -loose).bit_length() - 1]
                raise ValueError(
                    f"{where}: {NAMES[p]} territory at {low} is not controlled by a {NAMES[p]} troop; "
                    "uncontrolled groups are removed at the end of every turn"
                )
        ended = not st.can_destroy() or idle >= limit
        if ended != (phase == OVER):
            raise ValueError(
                f"{where}: phase {phase!r} does not match the position: "
                + (
                    "the game is over (nobody can destroy again, or the idle safeguard is reached)"
                    if ended
                    else "the game is not over"
                )
            )
        if ended:
            st._check_end()
    pending_in = d.get("pending")
    if pending_in is not None:
        if phase == OVER:
            raise ValueError(f"{where}: a finished game has no pending orders")
        if not isinstance(pending_in, list) or len(pending_in) != 2:
            raise ValueError(f"{where}: pending must be a list of two entries (an order, '?' or null)")
        for p, o in enumerate(pending_in):
            if o is None or o == HIDDEN:
                st._pending[p] = o
            elif isinstance(o, str):
                try:
                    st._pending[p] = st.normalize(o, p)
                except IllegalMove as e:
                    raise ValueError(f"{where}: {NAMES[p]}'s pending order {o!r} is illegal: {e}") from None
            else:
                raise ValueError(f"{where}: pending order {o!r} must be a string, '?' or null")
        if st._pending[0] is not None and st._pending[1] is not None and HIDDEN not in st._pending:
            raise ValueError(f"{where}: both orders are sealed, so the turn should have been resolved")
    return st
