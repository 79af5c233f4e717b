"""Observation planes: a game's position as ``float32`` arrays of shape ``(C, H, W)``, seen by one player.

Each game declares its planes beside its rules (``tessera/games/<name>/observation.py``)
and hands them out through :meth:`Game.observation_spec`; the research adapters
(OpenSpiel, PettingZoo, Gymnasium) only call it.  A game that declares none gets
:func:`render_spec`, planes read off its render description.

An encoder reads :meth:`State.view` of the observing player (so it can never see a
hidden order) and, where a turn is split into several decisions (the adapters play
Nelaxtam's simultaneous orders one troop at a time), the observer's own decisions
of the turn so far (:class:`Decisions`).

This module holds what every game's planes share: where a board's cells sit in a
plane (:class:`Layout`, :class:`AxialLayout`, :class:`FlatLayout`), :func:`mark`,
and :class:`ObservationSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tessera.core.game import Action, Game, State
from tessera.core.geometry import Grid

Planes = np.ndarray
"""A ``float32`` array of shape ``(C, H, W)``: one ``H × W`` plane per named feature."""


@dataclass(frozen=True)
class Decisions:
    """The observer's decisions of a turn that is played one decision at a time (not yet applied)."""

    pending: tuple[Action, ...] = ()
    """His decisions taken so far this turn, in order (Nelaxtam: one token per troop)."""
    unit: int | None = None
    """The unit he is deciding for now (Nelaxtam: a troop number), ``None`` when he is not deciding."""


NO_DECISIONS = Decisions()
"""A sequential turn, or a player not deciding."""


Encoder = Callable[[State, int, Decisions], Planes]
"""``encode(view, player, decisions)``: the planes ``player`` sees in ``view`` (his own view)."""


class Layout:
    """Where each cell label of a board sits in an ``H × W`` plane.

    Hex boards use the axial embedding (``row = r``, ``column = q − q_min``), in
    which hex neighbours are plane neighbours along three directions; square
    boards are drawn with rank 1 at the bottom (the last row).
    """

    index: dict[str, tuple[int, int]]
    """Row and column of each cell label."""
    height: int
    width: int
    mask: np.ndarray
    """1.0 on the board's cells, 0.0 elsewhere (``H × W``)."""
    cells: int
    """Number of cells."""

    def __init__(self, grid: Grid) -> None:
        coords = [grid.coords[c] for c in grid.cells]
        labels = [grid.label(c) for c in grid.cells]
        xs = [xy[0] for xy in coords if xy is not None]
        ys = [xy[1] for xy in coords if xy is not None]
        x0, y0, y1 = min(xs), min(ys), max(ys)
        self.width = max(xs) - x0 + 1
        self.height = y1 - y0 + 1
        self.index = {}
        for xy, lab in zip(coords, labels, strict=True):
            assert xy is not None
            x, y = xy
            row = (y - y0) if grid.kind == "hex" else (y1 - y)
            self.index[lab] = (row, x - x0)
        self.mask = _mask(self.height, self.width, self.index.values())
        self.cells = len(self.index)

    def rows_cols(self, labels: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """Row and column arrays of the given labels."""
        rc = [self.index[lab] for lab in labels]
        if not rc:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        a = np.asarray(rc, dtype=np.intp)
        return a[:, 0], a[:, 1]


class AxialLayout(Layout):
    """A regular hexagon of hexes ``(q, r)`` within ``side − 1`` of ``centre`` (Ikabegamá's window on
    the unbounded plane); cell labels are ``"q,r"``."""

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
        self.index = {f"{q},{r}": (r - mr + n, q - mq + n) for q, r in self.hexes}
        self.hex_number: dict[tuple[int, int], int] = {h: i for i, h in enumerate(self.hexes)}
        self.mask = _mask(self.height, self.width, self.index.values())
        self.cells = len(self.hexes)


class FlatLayout(Layout):
    """The cells of a render description in one row (``1 × cells``), in the order the game lists
    them: the layout of :func:`render_spec`."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.index = {lab: (0, i) for i, lab in enumerate(labels)}
        self.height, self.width = 1, len(labels)
        self.mask = np.ones((1, len(labels)), dtype=np.float32)
        self.cells = len(labels)


def _mask(height: int, width: int, cells: Iterable[tuple[int, int]]) -> np.ndarray:
    mask = np.zeros((height, width), dtype=np.float32)
    for rc in cells:
        mask[rc] = 1.0
    return mask


def mark(plane: np.ndarray, layout: Layout, labels: Iterable[str], value: Any = 1.0) -> None:
    """Set the cells ``labels`` of one plane to ``value`` (a number, or one number per label)."""
    r, c = layout.rows_cols(labels)
    plane[r, c] = value


class ObservationSpec:
    """A game's observation planes: names (one per plane), layout, shape and the encoder."""

    def __init__(self, planes: list[str], layout: Layout, encode: Encoder, game: Game | None = None) -> None:
        self.planes = planes
        """One name per plane, in order (docs/research.md lists them per game)."""
        self.layout = layout
        self.encode = encode
        self.shape = (len(planes), layout.height, layout.width)
        self.game = game
        """The game whose states these planes read (:meth:`observe` refuses a state of any other)."""

    def observe(self, state: State, player: int, decisions: Decisions = NO_DECISIONS) -> Planes:
        """``player``'s planes of ``state``, read off his :meth:`State.view` only.

        ``ValueError`` for a state of another game (the encoders' compiled kernels index the
        state with this game's tables) or a player who is not one of the game's.
        """
        if not isinstance(state, State):
            raise ValueError(f"expected a tessera State, not {type(state).__name__}")
        if self.game is not None and state.game is not self.game and state.game != self.game:
            raise ValueError(f"these observation planes are for {self.game}, not a state of {state.game}")
        n = state.game.num_players
        if not isinstance(player, int | np.integer) or isinstance(player, bool) or not 0 <= player < n:
            raise ValueError(f"player must be a player index 0 … {n - 1}, not {player!r}")
        if not isinstance(decisions, Decisions):
            raise ValueError(f"decisions must be a Decisions, not {type(decisions).__name__}")
        return self.encode(state.view(player), int(player), decisions)


def render_spec(game: Game) -> ObservationSpec:
    """Planes read off the render description, for a game that declares none (a game from
    another package, docs/games.md): over the board's cells in the game's order, one plane
    per player (his pieces), one for pieces of nobody, and one that is all 1 when the
    observer is to move.  ``render(player)`` is the player's own view, so nothing hidden is read."""
    board = game.new_initial_state(seed=0).render()["board"]
    if board.get("unbounded"):
        raise ValueError(f"{game.name}: the adapters have no observation planes for it and its board is unbounded")
    layout = FlatLayout([c["id"] for c in board["cells"]])
    n = game.num_players
    planes = [f"pieces of player {k}" for k in range(n)] + ["pieces of nobody", "the observer is to move"]

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
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

    return ObservationSpec(planes, layout, encode, game)


__all__ = [
    "NO_DECISIONS",
    "AxialLayout",
    "Decisions",
    "Encoder",
    "FlatLayout",
    "Layout",
    "ObservationSpec",
    "Planes",
    "mark",
    "render_spec",
]
