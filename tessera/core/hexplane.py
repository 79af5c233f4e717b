"""The unbounded hex plane (Ikabegamá): axial ``q,r`` notation and a fast window.

Hexes are written ``q,r`` (docs/rules/README.md): integers, may be negative, no spaces.
Neighbours of ``(q, r)`` are ``(q±1, r)``, ``(q, r±1)``, ``(q+1, r−1)`` and
``(q−1, r+1)`` — the same axial system as :mod:`tessera.core.geometry`.

For speed a game numbers hexes inside a :class:`PlaneWindow`: a square of axial
coordinates ``|q|, |r| <= bound`` padded by two columns, so a hex is one ``int``
and a neighbour (or a hex two steps away) is a fixed offset.
"""

from __future__ import annotations

import re

from tessera.core.geometry import HEX_DIRECTIONS, HEX_RING2, hex_center, hex_distance

__all__ = [
    "HEX_DIRECTIONS",
    "HEX_RING2",
    "PlaneWindow",
    "format_axial",
    "hex_center",
    "hex_distance",
    "hex_round",
    "parse_axial",
]

_AXIAL = re.compile(r"^\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*$")


def parse_axial(text: str) -> tuple[int, int]:
    """``"3,-1"`` → ``(3, -1)``; ``ValueError`` says what is wrong."""
    m = _AXIAL.match(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"{text!r} is not a hex: expected 'q,r' with two integers, e.g. '3,-1'")
    return int(m.group(1)), int(m.group(2))


def format_axial(q: int, r: int) -> str:
    """``(3, -1)`` → ``"3,-1"``."""
    return f"{q},{r}"


def hex_round(q: float, r: float) -> tuple[int, int]:
    """The hex containing fractional axial coordinates (cube rounding)."""
    x, z = q, r
    y = -x - z
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy <= dz:
        rz = -rx - ry
    return int(rx), int(rz)


class PlaneWindow:
    """Hexes with ``|q|, |r| <= bound`` numbered as ints with fixed neighbour offsets."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.stride = 2 * bound + 3
        self.size = self.stride * (2 * bound + 1)
        """Hex ids are ``0 <= id < size``."""
        s = self.stride
        self.neighbor_offsets: tuple[int, ...] = tuple(dq + dr * s for dq, dr in HEX_DIRECTIONS)
        self.ring2_offsets: tuple[int, ...] = tuple(dq + dr * s for dq, dr in HEX_RING2)

    def contains(self, q: int, r: int) -> bool:
        """Whether ``(q, r)`` lies in the window."""
        b = self.bound
        return -b <= q <= b and -b <= r <= b

    def id(self, q: int, r: int) -> int:
        """The id of ``(q, r)``; ``ValueError`` outside the window."""
        if not self.contains(q, r):
            raise ValueError(f"hex {q},{r} is outside the playing window |q|,|r| <= {self.bound}")
        return (r + self.bound) * self.stride + (q + self.bound + 1)

    def id_of(self, text: str) -> int:
        """The id of a ``q,r`` string."""
        return self.id(*parse_axial(text))

    def axial(self, hid: int) -> tuple[int, int]:
        """``(q, r)`` of a hex id."""
        row, col = divmod(hid, self.stride)
        return col - 1 - self.bound, row - self.bound

    def inside(self, hid: int) -> bool:
        """Whether an id computed by offsets is a real hex of the window."""
        if not 0 <= hid < self.size:
            return False
        col = hid % self.stride
        return 1 <= col <= self.stride - 2

    def label(self, hid: int) -> str:
        """The ``q,r`` string of a hex id."""
        q, r = self.axial(hid)
        return f"{q},{r}"

    def distance(self, a: int, b: int) -> int:
        """Steps between two hex ids."""
        qa, ra = self.axial(a)
        qb, rb = self.axial(b)
        return hex_distance(qa, ra, qb, rb)
