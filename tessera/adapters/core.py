"""The framework-neutral adapter layer: finite actions, masks, observation planes.

Every research adapter (OpenSpiel, PettingZoo, Gymnasium) drives an
:class:`AdaptedState`, which wraps a tessera :class:`~tessera.core.game.State`
and presents every game as a *sequential* game over a *finite, numbered*
action space, with an optional chance event for the deal:

* **Nume, Nymbat, Nibble**: the adapter action is the tessera integer action
  (``game.num_distinct_actions()`` of them).
* **Ikabegamá** is played on the unbounded plane, whose integer actions are
  numbered over a huge internal window (~10⁷).  The adapter plays it on a
  *declared window*: the regular hexagon of side ``window`` centred on the hex
  midway between the nests, i.e. the tessera game ``board="hexhex:window"``.
  ``window`` defaults to ``d // 2 + 4`` for nests ``d`` apart (side 7 at the
  default distance 6: 127 hexes).  A game given with ``board="hexhex:N"``
  keeps its board (``window = N``).  Action ``13·i + k`` is a growth (``k=0``) or a
  jump from direction ``k`` (``1…12``) onto the ``i``-th hex of the window
  (hexes sorted by row, then column), and ``13·cells`` is ``pass``.
* **Nelaxtam**'s turns are simultaneous and its full orders too many to
  number, so a turn becomes a sequence of *per-troop decisions*: Black decides
  for each of his living troops in increasing number, then White for his;
  each decision is one tessera token (``3>d5``, action = the tessera token
  action).  The tokens a player has chosen so far this turn are *pending*:
  they are hidden from the other player (they appear in neither his
  observation nor his information state) and the turn resolves when the last
  decision is made.  A token is offered only if the order can still be
  completed legally (distinct end squares; in the invasion distinct squares and
  at least ``by_sea`` troops on the edge), so every sequence of legal
  decisions is a legal order and every legal order is such a sequence.  In
  battle turns of ``variant="quiet"`` a whole order is one token: one
  decision per player.
* **Nibble**'s set-up is dealt from a seed.  With no fixed deal the initial
  state is a *chance node* whose ``deals`` outcomes (uniform) are the seeds
  ``0 … deals−1``; with ``deal=K`` the game starts from that deal.

Observations are AlphaZero-style planes, ``float32`` arrays of shape
``(C, H, W)``, seen from one player (``my`` / ``opponent`` planes), computed
from the public position (``to_dict``) so they never contain a hidden order;
docs/research.md lists every game's planes.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.geometry import HEX_RING2, Grid, alternating_hexagon, hexagon, square
from tessera.core.registry import load_game

CHANCE = -1
"""``current_player()`` of an :class:`AdaptedState` while the deal is pending (OpenSpiel's value)."""

DEFAULT_DEALS = 1000
"""Chance outcomes of the deal in dealt games (the seeds ``0 … DEFAULT_DEALS−1``)."""


# -- board layouts ----------------------------------------------------------------------------


class Layout:
    """Where each cell label of a board sits in an ``H × W`` plane.

    Hex boards use the axial embedding (``row = r``, ``column = q − q_min``), in
    which hex neighbours are plane neighbours along three directions; square
    boards are drawn with rank 1 at the bottom (the last row).
    """

    def __init__(self, grid: Grid) -> None:
        coords = [grid.coords[c] for c in grid.cells]
        labels = [grid.label(c) for c in grid.cells]
        xs = [xy[0] for xy in coords if xy is not None]
        ys = [xy[1] for xy in coords if xy is not None]
        x0, y0, y1 = min(xs), min(ys), max(ys)
        self.width = max(xs) - x0 + 1
        self.height = y1 - y0 + 1
        self.index: dict[str, tuple[int, int]] = {}
        for xy, lab in zip(coords, labels, strict=True):
            assert xy is not None
            x, y = xy
            row = (y - y0) if grid.kind == "hex" else (y1 - y)
            self.index[lab] = (row, x - x0)
        self.mask = np.zeros((self.height, self.width), dtype=np.float32)
        for rc in self.index.values():
            self.mask[rc] = 1.0
        self.cells = len(self.index)

    def rows_cols(self, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        """Row and column arrays of the given labels."""
        rc = [self.index[lab] for lab in labels]
        if not rc:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        a = np.asarray(rc, dtype=np.intp)
        return a[:, 0], a[:, 1]


class AxialLayout:
    """A regular hexagon of hexes ``(q, r)`` within ``side − 1`` of ``centre`` (Ikabegamá's window)."""

    def __init__(self, centre: tuple[int, int], side: int) -> None:
        n = side - 1
        self.centre = centre
        self.side = side
        self.height = self.width = 2 * n + 1
        mq, mr = centre
        self.hexes: list[tuple[int, int]] = [
            (mq + dq, mr + dr) for dr in range(-n, n + 1) for dq in range(-n, n + 1) if abs(dq + dr) <= n
        ]
        """The window's hexes, by row then column: hex ``i`` is the ``i``-th of this list."""
        self.index: dict[str, tuple[int, int]] = {
            f"{q},{r}": (r - mr + n, q - mq + n) for q, r in self.hexes
        }
        self.hex_number: dict[tuple[int, int], int] = {h: i for i, h in enumerate(self.hexes)}
        self.mask = np.zeros((self.height, self.width), dtype=np.float32)
        for rc in self.index.values():
            self.mask[rc] = 1.0
        self.cells = len(self.hexes)

    def rows_cols(self, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        rc = [self.index[lab] for lab in labels]
        if not rc:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        a = np.asarray(rc, dtype=np.intp)
        return a[:, 0], a[:, 1]


class FlatLayout(Layout):
    """The cells of a render description in one row (``1 × cells``), in the order the game lists
    them: the layout of a game the adapters have no planes for (:func:`_render_spec`)."""

    def __init__(self, labels: list[str]) -> None:
        self.index = {lab: (0, i) for i, lab in enumerate(labels)}
        self.height, self.width = 1, len(labels)
        self.mask = np.ones((1, len(labels)), dtype=np.float32)
        self.cells = len(labels)


def _set(plane: np.ndarray, layout: Layout | AxialLayout, labels: Any, value: Any = 1.0) -> None:
    r, c = layout.rows_cols(labels)
    plane[r, c] = value


# -- observation encoders ----------------------------------------------------------------------

Encoder = Callable[[State, int, "AdaptedState"], np.ndarray]


class ObservationSpec:
    """A game's observation planes: names (one per plane), shape and the encoder."""

    def __init__(self, planes: list[str], layout: Layout | AxialLayout, encode: Encoder) -> None:
        self.planes = planes
        self.layout = layout
        self.encode = encode
        self.shape = (len(planes), layout.height, layout.width)


def _nume_spec(game: Game) -> ObservationSpec:
    p = game.params
    grid = square(p["size"]) if p["variant"] == "square" else alternating_hexagon(p["size"])
    lay = Layout(grid)
    cells = float(lay.cells)
    planes = [
        "my stones",
        "opponent's stones",
        "written number / cells, on numbered stones",
        "numbered stones (either colour)",
        "empty cells",
        "on the board",
        "komi I receive / cells (constant)",
        "komi the opponent receives / cells (constant)",
        "I am to move (constant)",
        "komi bidding still going on (constant)",
    ]

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        colors = d.get("colors")
        mine = "b" if (colors[player] if colors else ("black", "white")[player]) == "black" else "w"
        own: list[str] = []
        opp: list[str] = []
        numbered: list[str] = []
        nums: list[float] = []
        for lab, (col, num) in d["stones"].items():
            (own if col == mine else opp).append(lab)
            if num is not None:
                numbered.append(lab)
                nums.append(num / cells)
        _set(out[0], lay, own)
        _set(out[1], lay, opp)
        _set(out[2], lay, numbered, np.asarray(nums, dtype=np.float32))
        _set(out[3], lay, numbered)
        out[4] = lay.mask - out[0] - out[1]
        out[5] = lay.mask
        if d.get("komi") is not None and colors:
            to = d["komi_to"]
            if to == colors[player]:
                out[6] = d["komi"] / cells
            else:
                out[7] = d["komi"] / cells
        else:
            out[9] = 1.0
        if st.current_player() == player:
            out[8] = 1.0
        return out

    return ObservationSpec(planes, lay, encode)


def _ikabegama_spec(game: Game, window: AxialLayout) -> ObservationSpec:
    lay = window
    max_plies = float(game.params["max_plies"])
    nests = getattr(game, "light_nest", (0, 0)), getattr(game, "dark_nest", (game.params["distance"], 0))
    nest_labels = [f"{q},{r}" for q, r in nests]
    planes = [
        "my tokens",
        "opponent's tokens",
        "my nest",
        "opponent's nest",
        "on the board (the window)",
        "I am to move (constant)",
        "plies played / max_plies (constant)",
        "the last ply was a pass (constant)",
    ]

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        own = [h for h, o in d["tokens"].items() if o == player]
        opp = [h for h, o in d["tokens"].items() if o != player]
        _set(out[0], lay, own)
        _set(out[1], lay, opp)
        _set(out[2], lay, [nest_labels[player]])
        _set(out[3], lay, [nest_labels[1 - player]])
        out[4] = lay.mask
        if st.current_player() == player:
            out[5] = 1.0
        out[6] = d.get("ply", 0) / max_plies
        out[7] = 1.0 if d.get("passes", 0) else 0.0
        return out

    return ObservationSpec(planes, lay, encode)


def _nymbat_spec(game: Game) -> ObservationSpec:
    lay = Layout(hexagon(8))
    n = game.num_players
    p = game.params
    reserve = float(p["reserve"])
    seats = ["me"] + (["the opponent"] if n == 2 else [f"the player {k} seat(s) after me" for k in range(1, n)])
    planes: list[str] = []
    for who in seats:
        planes += [f"pieces of {who} numbered {k}" for k in range(1, 7)]
    for who in seats:
        planes += [
            f"reserve of {who} / reserve parameter (constant)",
            f"delays of {who} mod delay_period / delay_period (constant)",
            f"{who}: first turn played (constant)",
        ]
    planes += [
        "turn phase: bringing in reserves (constant)",
        "turn phase: moving a group (constant)",
        "turn phase: paying a penalty by losing a piece (constant)",
        "move phase: pieces of the group still to move",
        "move phase: pieces of the group",
        "move phase: the group's speed / 6 (constant)",
        "move phase: breakthrough hex",
        "move phase: breakthrough budget / 6 (constant)",
        "bring phase: placed this turn / reserve parameter (constant)",
        "on the board",
        "I am to move (constant)",
    ]

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        by: dict[tuple[int, int], list[str]] = {}
        for lab, (owner, num) in d["pieces"].items():
            by.setdefault(((owner - player) % n, num), []).append(lab)
        for (rel, num), labs in by.items():
            _set(out[rel * 6 + num - 1], lay, labs)
        base = 6 * n
        for rel in range(n):
            q = (player + rel) % n
            out[base + 3 * rel] = d["reserves"][q] / reserve
            out[base + 3 * rel + 1] = (d["delays"][q] % p["delay_period"]) / p["delay_period"]
            out[base + 3 * rel + 2] = 1.0 if d["first_turn_done"][q] else 0.0
        k = base + 3 * n
        it = d.get("in_turn")
        if it:
            phase = it["phase"]
            if phase == "bring":
                out[k] = 1.0
                out[k + 8] = it.get("placed", 0) / reserve  # a later turn may place more than first_limit
            elif phase == "penalty":
                out[k + 2] = 1.0
            else:
                out[k + 1] = 1.0
                _set(out[k + 3], lay, it.get("unmoved", []))
                _set(out[k + 4], lay, it.get("group", []))
                out[k + 5] = it.get("speed", 0) / 6.0
                brk = it.get("breakthrough")
                if brk:
                    _set(out[k + 6], lay, [brk["hex"]])
                    out[k + 7] = brk["budget"] / 6.0
        out[k + 9] = lay.mask
        if st.current_player() == player:
            out[k + 10] = 1.0
        return out

    return ObservationSpec(planes, lay, encode)


def _nibble_spec(game: Game) -> ObservationSpec:
    p = game.params
    ncol = int(p["colors"])
    lay = Layout(hexagon(8) if p["board"] == "hex" else square(ncol))
    planes = [f"blocks of the colour at table position {i}" for i in range(ncol)]
    planes += [f"my blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [f"opponent's blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [
        "blocks of the colour being taken this turn",
        "empty cells",
        "on the board",
        "I am to move (constant)",
    ]

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        pos = {c: i for i, c in enumerate(d["table"])}
        by: dict[int, list[str]] = {}
        for lab, c in d["cells"].items():
            by.setdefault(c, []).append(lab)
        for c, labs in by.items():
            _set(out[pos[c]], lay, labs)
        for c in range(ncol):
            out[ncol + pos[c]] = d["taken"][player][c] / ncol
            out[2 * ncol + pos[c]] = d["taken"][1 - player][c] / ncol
        k = 3 * ncol
        taking = d.get("taking")
        if taking is not None:
            out[k] = out[pos[taking]]
        out[k + 1] = lay.mask - out[:ncol].sum(axis=0)
        out[k + 2] = lay.mask
        if st.current_player() == player:
            out[k + 3] = 1.0
        return out

    return ObservationSpec(planes, lay, encode)


def _nelaxtam_spec(game: Game) -> ObservationSpec:
    p = game.params
    size = int(p["size"])
    troops = int(p["troops"])
    lay = Layout(square(size))
    planes = ["my territory", "opponent's territory", "removed squares"]
    planes += [f"my troop {k}" for k in range(1, troops + 1)]
    planes += [f"opponent's troop {k}" for k in range(1, troops + 1)]
    planes += [
        "edge squares (where troops by sea land)",
        "invasion turn (constant)",
        "idle turns / max_idle_turns (constant)",
        "my troop deciding now",
        "end squares of my pending decisions this turn",
        "squares my pending decisions destroy this turn",
    ]
    edge = np.zeros((size, size), dtype=np.float32)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = 1.0
    idle_max = float(p["max_idle_turns"])

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        d = st.to_dict()
        out = np.zeros((len(planes), size, size), dtype=np.float32)
        mine, theirs = ("x", "o") if player == 0 else ("o", "x")
        for row, line in enumerate(d["board"]):
            for col, ch in enumerate(line):
                out[0 if ch == mine else 1 if ch == theirs else 2, row, col] = 1.0
        for who, k0 in ((player, 3), (1 - player, 3 + troops)):
            for k, lab in d["troops"][who].items():
                _set(out[k0 + int(k) - 1], lay, [lab])
        k = 3 + 2 * troops
        out[k] = edge
        out[k + 1] = 1.0 if d["phase"] == "invasion" else 0.0
        out[k + 2] = d.get("idle", 0) / idle_max
        troop = ad.deciding_troop_of(player)
        if troop is not None:
            lab = d["troops"][player].get(str(troop))
            if lab is not None:
                _set(out[k + 3], lay, [lab])
        ends, destroyed = ad.pending_squares(player)
        _set(out[k + 4], lay, ends)
        _set(out[k + 5], lay, destroyed)
        return out

    return ObservationSpec(planes, lay, encode)


# -- the adapted game ---------------------------------------------------------------------------


class AdaptedGame:
    """A tessera game as a sequential game with finite numbered actions (see the module docstring).

    ``window`` (Ikabegamá only) is the side of the declared window, 0 for the
    default; ``deal`` (dealt games only) fixes the deal, ``None`` makes the deal
    a chance event with ``deals`` outcomes.
    """

    def __init__(self, game: Game, *, window: int = 0, deal: int | None = None, deals: int = DEFAULT_DEALS) -> None:
        if not isinstance(game, Game):
            raise ValueError(f"expected a tessera Game, not {type(game).__name__}")
        self.window: AxialLayout | None = None
        if game.name == "ikabegama":
            game, self.window = _ikabegama_window(game, window)
        elif window:
            raise ValueError(f"{game.name}: window applies to ikabegama only")
        self.game = game
        self.name = game.name
        self.num_players = game.num_players
        self.dealt = bool(game.info.deal)
        if deal is not None and not self.dealt:
            raise ValueError(f"{game.name} has no deal: deal applies to dealt games (nibble) only")
        if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
            raise ValueError(f"deals must be a positive integer, not {deals!r}")
        self.deal = deal
        self.deals = deals
        self.chance = self.dealt and deal is None
        self.simultaneous = game.info.dynamics == "simultaneous"
        probe = game.new_initial_state(seed=0)
        self._probe = probe
        self._to_tessera: list[int] | None = None
        self._from_tessera: dict[int, int] = {}
        if self.window is not None:
            self._build_window_codec(probe)
            self.num_distinct_actions = 13 * self.window.cells + 1
        else:
            self.num_distinct_actions = game.num_distinct_actions()
        self.max_game_length = self._max_length()
        self.obs = _observation_spec(game, self.window)
        self.observation_shape = self.obs.shape

    def _build_window_codec(self, probe: State) -> None:
        assert self.window is not None
        table: list[int] = []
        for q, r in self.window.hexes:
            for k in range(13):
                if k == 0:
                    move = f"{q},{r}"
                else:
                    dq, dr = HEX_RING2[k - 1]
                    move = f"{q - dq},{r - dr}>{q},{r}"
                try:
                    a = probe.string_to_action(move)
                except (IllegalMove, ValueError):
                    a = -1
                table.append(a)
        table.append(probe.string_to_action("pass"))
        self._to_tessera = table
        self._from_tessera = {a: i for i, a in enumerate(table) if a >= 0}

    def _max_length(self) -> int:
        n = self.game.max_game_length()
        if self.simultaneous:
            # one decision per living troop per player per turn (quiet battle turns: one each)
            n *= self.num_players * int(self.game.params["troops"])
        return n + (1 if self.chance else 0)

    def __str__(self) -> str:
        return str(self.game)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its description (OpenSpiel pickles states while testing serialisation).
        return (_rebuild, (str(self.game), self.deal, self.deals))

    def new_initial_state(self, seed: int | None = None) -> AdaptedState:
        """A fresh state; for a dealt game ``seed`` (or the fixed ``deal``) deals at once, else a chance node."""
        deal = seed if seed is not None else self.deal
        if self.dealt and deal is None:
            return AdaptedState(self, None)
        return AdaptedState(self, self.game.new_initial_state(seed=deal))

    # -- action codec ---------------------------------------------------------------------
    def to_tessera(self, action: int) -> int:
        """The tessera integer action of an adapter action."""
        if self._to_tessera is None:
            return action
        if not 0 <= action < len(self._to_tessera) or self._to_tessera[action] < 0:
            raise IllegalMove(f"action {action} is not an action of {self.name} on this window")
        return self._to_tessera[action]

    def from_tessera(self, action: int) -> int:
        """The adapter action of a tessera integer action (``IllegalMove`` if outside the window)."""
        if self._to_tessera is None:
            return action
        try:
            return self._from_tessera[action]
        except KeyError:
            raise IllegalMove(f"tessera action {action} lies outside the adapter's window") from None


@functools.lru_cache(maxsize=64)
def _rebuild(spec: str, deal: int | None, deals: int) -> AdaptedGame:
    return AdaptedGame(load_game(spec), deal=deal, deals=deals)


def _ikabegama_window(game: Game, window: int) -> tuple[Game, AxialLayout]:
    params = game.params
    board = params["board"]
    if board != "plane":
        side = int(board.split(":")[1])
        if window and window != side:
            raise ValueError(f"ikabegama: window={window} differs from the board {board!r}")
    else:
        light = getattr(game, "light_nest", (0, 0))
        dark = getattr(game, "dark_nest", (params["distance"], 0))
        d = max(abs(dark[0] - light[0]), abs(dark[1] - light[1]), abs(dark[0] - light[0] + dark[1] - light[1]))
        side = window or d // 2 + 4
        params = dict(params, board=f"hexhex:{side}")
        game = load_game("ikabegama", **params)
    centre = game.center  # type: ignore[attr-defined]
    return game, AxialLayout(centre, side)


def _observation_spec(game: Game, window: AxialLayout | None) -> ObservationSpec:
    name = game.name
    if name == "nume":
        return _nume_spec(game)
    if name == "ikabegama":
        assert window is not None
        return _ikabegama_spec(game, window)
    if name == "nymbat":
        return _nymbat_spec(game)
    if name == "nibble":
        return _nibble_spec(game)
    if name == "nelaxtam":
        return _nelaxtam_spec(game)
    return _render_spec(game)


def _render_spec(game: Game) -> ObservationSpec:
    """Planes read off the render description, for a game the adapters know nothing of (a game
    from another package, docs/games.md): over the board's cells in the game's order, one plane
    per player (his pieces), one for pieces of nobody, and one that is all 1 when the observer
    is to move.  ``render(player)`` is the player's own view, so nothing hidden is read."""
    board = game.new_initial_state(seed=0).render()["board"]
    if board.get("unbounded"):
        raise ValueError(f"{game.name}: the adapters have no observation planes for it and its board is unbounded")
    layout = FlatLayout([c["id"] for c in board["cells"]])
    n = game.num_players
    planes = [f"pieces of player {k}" for k in range(n)] + ["pieces of nobody", "the observer is to move"]

    def encode(st: State, player: int, ad: AdaptedState) -> np.ndarray:
        out = np.zeros((n + 2, 1, layout.width), dtype=np.float32)
        for pc in st.render(player)["pieces"]:
            rc = layout.index.get(pc["cell"])
            if rc is None:
                raise ValueError(f"{game.name}: a piece on {pc['cell']!r}, a cell the initial board does not have")
            owner = pc.get("owner")
            out[n if owner is None else owner, rc[0], rc[1]] = 1.0
        if st.current_player() == player:
            out[n + 1] = 1.0
        return out

    return ObservationSpec(planes, layout, encode)


# -- the adapted state --------------------------------------------------------------------------


class AdaptedState:
    """A position of an :class:`AdaptedGame`: a tessera state plus, in Nelaxtam, the turn's pending decisions."""

    def __init__(self, game: AdaptedGame, state: State | None) -> None:
        self.game = game
        self.state = state
        """The tessera state (``None`` while the deal is pending)."""
        self.history: list[int] = []
        """Adapter actions played, chance outcomes included."""
        self.decision_history: list[tuple[int, int]] = []
        """``(player, action)`` of every decision (chance: player ``CHANCE``)."""
        self._queue: list[tuple[int, int | None]] = []
        self.rounds: dict[int, int | None] | None = None
        """Parallel play (PettingZoo's parallel env): the troop each player decides for now."""
        self._pending: list[list[int]] = [[] for _ in range(game.num_players)]
        if state is not None and game.simultaneous:
            self._start_turn()

    # -- Nelaxtam's decision queue ------------------------------------------------------------
    def _start_turn(self) -> None:
        st = self.state
        assert st is not None
        self._pending = [[] for _ in range(self.game.num_players)]
        self._queue = []
        if st.is_terminal():
            return
        quiet_battle = st.legal_moves(0) != [] or st.legal_moves(1) != []
        for p in range(self.game.num_players):
            if quiet_battle:
                if st.legal_actions(p):
                    self._queue.append((p, None))
            else:
                for troop in sorted(st.troop_actions(p)):  # type: ignore[attr-defined]
                    self._queue.append((p, troop))

    def deciding_troop(self) -> tuple[int, int | None] | None:
        """``(player, troop)`` of the decision to make now (Nelaxtam; troop ``None``: a whole quiet order)."""
        return self._queue[0] if self._queue else None

    def deciding_troop_of(self, player: int) -> int | None:
        """The troop ``player`` is deciding for now, if he is deciding (Nelaxtam)."""
        if self.rounds is not None:
            return self.rounds.get(player)
        head = self.deciding_troop()
        return head[1] if head is not None and head[0] == player else None

    def troop_choices(self, player: int, troop: int | None) -> list[int]:
        """``player``'s legal tokens for ``troop`` given his pending decisions (``None``: a whole quiet order)."""
        return sorted(self._troop_choices(player, troop))

    def decide(self, player: int, action: int) -> None:
        """Add a pending decision of ``player`` without the turn order (the parallel env's rounds); unchecked."""
        self._pending[player].append(action)
        self.decision_history.append((player, action))
        self.history.append(action)

    def pending_squares(self, player: int) -> tuple[list[str], list[str]]:
        """End squares and destroyed squares of ``player``'s pending tokens (Nelaxtam)."""
        ends: list[str] = []
        destroyed: list[str] = []
        if self.state is None or not self._pending[player]:
            return ends, destroyed
        cells = self.state.troop_cells(player)  # type: ignore[attr-defined]
        for a in self._pending[player]:
            troop, op, sq = _token(self.state.action_to_string(a))
            if op in (">", "@"):
                ends.append(sq)
            else:
                if troop in cells:
                    ends.append(cells[troop])
                if op == "x":
                    destroyed.append(sq)
        return ends, destroyed

    def pending(self, player: int) -> list[int]:
        """``player``'s pending tokens this turn (Nelaxtam), in troop order."""
        return list(self._pending[player])

    def _troop_choices(self, player: int, troop: int | None) -> list[int]:
        st = self.state
        assert st is not None
        if troop is None:
            return st.legal_actions(player)
        options = st.troop_actions(player)  # type: ignore[attr-defined]
        cells = st.troop_cells(player)  # type: ignore[attr-defined]
        invasion = getattr(st, "phase", None) == "invasion"
        claimed: set[str] = set()
        edges = 0
        size = int(self.game.game.params["size"])
        for a in self._pending[player]:
            t, op, sq = _token(st.action_to_string(a))
            end = sq if op in (">", "@") else cells[t]
            claimed.add(end)
            edges += _is_edge(end, size)
        later = [t for t in sorted(options) if t > troop]
        out = []
        if invasion:
            need = int(self.game.game.params["by_sea"])
            for a in options[troop]:
                _, _, sq = _token(st.action_to_string(a))
                if sq in claimed:
                    continue
                if edges + _is_edge(sq, size) + len(later) < need:
                    continue
                out.append(a)
            return out
        ends_of = {
            t: sorted({(sq if op == ">" else cells[t]) for _, op, sq in (_token(st.action_to_string(a)) for a in acts)})
            for t, acts in options.items()
        }
        for a in options[troop]:
            _, op, sq = _token(st.action_to_string(a))
            end = sq if op == ">" else cells[troop]
            if end in claimed:
                continue
            if _completable([ends_of[t] for t in later], claimed | {end}):
                out.append(a)
        return out

    # -- protocol -------------------------------------------------------------------------
    def current_player(self) -> int:
        """The player to decide, ``CHANCE`` while the deal is pending, or ``TERMINAL``."""
        if self.state is None:
            return CHANCE
        if self.game.simultaneous:
            return self._queue[0][0] if self._queue else TERMINAL
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    def returns(self) -> list[float]:
        if self.state is None:
            return [0.0] * self.game.num_players
        return list(self.state.returns())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(seed, probability)`` of each deal while the deal is pending."""
        if self.state is not None:
            return []
        n = self.game.deals
        return [(k, 1.0 / n) for k in range(n)]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal adapter actions of ``player`` (default: the player to decide); chance: the seeds."""
        cp = self.current_player()
        if cp == CHANCE:
            return list(range(self.game.deals)) if player in (None, CHANCE) else []
        if cp == TERMINAL or (player is not None and player != cp):
            return []
        st = self.state
        assert st is not None
        if self.game.simultaneous:
            _, troop = self._queue[0]
            return sorted(self._troop_choices(cp, troop))
        acts = st.legal_actions()
        if self.game._to_tessera is None:
            return sorted(acts)
        return sorted(self.game.from_tessera(a) for a in acts)

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        """``int8`` mask over all adapter actions: 1 where legal for ``player``."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        acts = self.legal_actions(player) if self.current_player() != CHANCE else []
        if acts:
            mask[np.asarray(acts, dtype=np.intp)] = 1
        return mask

    def apply(self, action: int) -> None:
        """Apply the decision (or chance outcome) ``action``; ``IllegalMove`` if it is not legal."""
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            raise IllegalMove(f"an action must be an integer, not {type(action).__name__}")
        action = int(action)
        cp = self.current_player()
        if cp == TERMINAL:
            raise IllegalMove("the game is over")
        if cp == CHANCE:
            if not 0 <= action < self.game.deals:
                raise IllegalMove(f"deal {action} is not one of 0…{self.game.deals - 1}")
            self.state = self.game.game.new_initial_state(seed=action)
        elif self.game.simultaneous:
            if action not in self.legal_actions():
                raise IllegalMove(f"{self._describe(action)} is not a legal decision here")
            self._pending[cp].append(action)
            self._queue.pop(0)
            if not self._queue:
                st = self.state
                assert st is not None
                st.apply_actions(self._pending)  # type: ignore[arg-type]
                self._start_turn()
        else:
            st = self.state
            assert st is not None
            st.apply_action(self.game.to_tessera(action))
        self.history.append(action)
        self.decision_history.append((cp, action))

    def _describe(self, action: int) -> str:
        try:
            return self.action_to_string(action)
        except (IllegalMove, ValueError, IndexError):
            return f"action {action}"

    def action_to_string(self, action: int) -> str:
        """The move string (a token in Nelaxtam, ``deal K`` for a chance outcome)."""
        if self.state is None:
            return f"deal {action}"
        return self.state.action_to_string(self.game.to_tessera(int(action)))

    def string_to_action(self, move: str) -> int:
        """The adapter action of a move string (``IllegalMove`` if malformed or outside the window)."""
        if self.state is None:
            parts = move.split()
            if len(parts) == 2 and parts[0] == "deal" and parts[1].isdigit():
                return int(parts[1])
            raise IllegalMove(f"{move!r}: expected 'deal K' at the deal")
        return self.game.from_tessera(self.state.string_to_action(move))

    def clone(self) -> AdaptedState:
        new = object.__new__(AdaptedState)
        new.game = self.game
        new.state = None if self.state is None else self.state.clone()
        new.history = list(self.history)
        new.decision_history = list(self.decision_history)
        new._queue = list(self._queue)
        new.rounds = None if self.rounds is None else dict(self.rounds)
        new._pending = [list(p) for p in self._pending]
        return new

    # -- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        """``player``'s observation planes, shape ``game.observation_shape`` (zeros before the deal)."""
        if self.state is None:
            return np.zeros(self.game.observation_shape, dtype=np.float32)
        return self.game.obs.encode(self.state, player, self)

    def observation_string(self, player: int) -> str:
        """The board as text; in Nelaxtam plus ``player``'s own pending tokens (never the opponent's)."""
        if self.state is None:
            return "the deal is pending"
        text = str(self.state)
        if self.game.simultaneous and self._pending[player]:
            text += "\nmy pending decisions: " + " ".join(self.state.action_to_string(a) for a in self._pending[player])
        return text

    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen: public moves and resolved orders, plus his own pending decisions."""
        if not self.game.simultaneous:
            return " ".join(str(a) for a in self.history)
        pending_start = len(self.decision_history) - sum(len(p) for p in self._pending)
        seen = [f"{p}:{a}" for p, a in self.decision_history[:pending_start]]
        mine = [str(a) for a in self._pending[player]]
        return " ".join(seen) + " | " + " ".join(mine)

    def __str__(self) -> str:
        return "the deal is pending" if self.state is None else str(self.state)


def _token(tok: str) -> tuple[int, str, str]:
    """``"3>d5"`` → ``(3, ">", "d5")``; ``"3="`` → ``(3, "=", "")``."""
    i = 0
    while tok[i].isdigit():
        i += 1
    return int(tok[:i]), tok[i], tok[i + 1 :]


def _is_edge(label: str, size: int) -> int:
    x = ord(label[0]) - ord("a")
    y = int(label[1:]) - 1
    return int(x in (0, size - 1) or y in (0, size - 1))


def _completable(options: list[list[str]], claimed: set[str]) -> bool:
    """Whether each remaining troop can pick an end square, all distinct and unclaimed."""
    if not options:
        return True
    first, rest = options[0], options[1:]
    return any(end not in claimed and _completable(rest, claimed | {end}) for end in first)


def adapt(spec: str | Game, *, window: int = 0, deal: int | None = None, deals: int = DEFAULT_DEALS) -> AdaptedGame:
    """An :class:`AdaptedGame` from a game string (``"nume(size=4)"``) or a tessera ``Game``."""
    game = load_game(spec) if isinstance(spec, str) else spec
    return AdaptedGame(game, window=window, deal=deal, deals=deals)


def random_playout(state: AdaptedState, rng: random.Random, max_steps: int | None = None) -> AdaptedState:
    """Play random legal decisions (and deals) until the end or ``max_steps``; returns ``state``."""
    steps = 0
    while not state.is_terminal() and (max_steps is None or steps < max_steps):
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return state


__all__ = [
    "CHANCE",
    "DEFAULT_DEALS",
    "SIMULTANEOUS",
    "TERMINAL",
    "AdaptedGame",
    "AdaptedState",
    "AxialLayout",
    "Layout",
    "ObservationSpec",
    "adapt",
    "random_playout",
]
