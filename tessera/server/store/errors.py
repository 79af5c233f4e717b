"""The storage layer's own refusal: a write that lost a race.

Apart from :mod:`tessera.server.store.storage` so that the PostgreSQL writer on the event loop
(:mod:`tessera.server.store.pg_loop`, which the storage starts) raises the same exception without
importing the storage back.
"""

from __future__ import annotations


class Conflict(Exception):
    """A write lost a race (the move index or sealed order already exists)."""
