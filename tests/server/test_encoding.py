"""What the server writes as JSON (tessera/server/encoding.py) is what the standard library would write."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import tessera
from tessera.server.ai.warmup import random_walk
from tessera.server.http.encoding import dumps

_keys = st.one_of(st.text(max_size=8), st.integers(-5, 5))
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=20,
)


def _standard(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(_values)
def test_any_json_value_is_written_as_the_standard_library_reads_it(value: Any) -> None:
    """'a value orjson refuses (an integer beyond 64 bits) falls back to json': keys that are not strings
    (written as strings, as the standard library does), integers past 64 bits, any text — the bytes
    read back equal the standard library's own writing read back."""
    assert json.loads(dumps(value)) == _standard(value)


def test_a_game_view_is_written_exactly_as_the_standard_library_writes_it() -> None:
    """The common case (a render description, string keys only) comes out byte for byte as
    ``json.dumps(..., separators=(",", ":"), ensure_ascii=False)`` would write it."""
    for spec in ("nume(size=8)", "nibble", "nymbat", "ikabegama", "nelaxtam"):
        state = random_walk(tessera.load_game(spec).new_initial_state(seed=1), random.Random(1), 12)
        render = state.render(0)
        assert dumps(render) == json.dumps(render, ensure_ascii=False, separators=(",", ":")).encode()
