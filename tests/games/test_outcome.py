"""``State.outcome()``: every finished game says why, naming the rule that decided (issue 15).

"Results carry a machine-readable ``reason`` and a sentence naming the rule that decided
(``result.text``, e.g. "Second took all 9 red blocks")."  Checked over random playouts of
every game: the reason is one the game's rules know, the sentence names the winner (or says
draw), and the facts it states hold in the final position.
"""

from __future__ import annotations

import random
import re

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS, State
from tessera.games.nibble import PALETTE

SMALL = {
    "ikabegama": {"distance": 2, "board": "hexhex:3", "max_plies": 24},
    "nibble": {},
    "nymbat": {"reserve": 4, "first_limit": 4, "max_turns": 30},
    "nume": {"size": 2},
    "nelaxtam": {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 2},
}

REASONS = {
    "ikabegama": {"nest", "passes", "safeguard"},
    "nibble": {"colour", "neighbours", "majority"},
    "nymbat": {"home_row", "empty_board", "safeguard", "resign"},
    "nume": {"score"},
    "nelaxtam": {"territory", "safeguard"},
}


def playout(state: State, rng: random.Random) -> State:
    while not state.is_terminal():
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
        else:
            state.play(state.random_move(rng))
        assert state.is_terminal() or state.outcome() is None, "a game in progress has no outcome"
    return state


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_finished_game_says_which_rule_decided(name: str) -> None:
    """The reason is one of the game's ending rules; the sentence names the winner, or says draw."""
    g = tessera.load_game(name, **SMALL[name])
    names = g.info.player_names
    for seed in range(15):
        st = playout(g.new_initial_state(seed=seed), random.Random(seed))
        out = st.outcome()
        assert out is not None
        assert out["reason"] in REASONS[name]
        w = st.winner()
        if w is None:
            assert "draw" in out["text"].lower()
        elif name == "nume":
            assert f"{st.colors()[w].capitalize()} has the lower score" in out["text"]  # type: ignore[attr-defined]
        else:
            assert names[w] in out["text"]
        assert st.render()["result"]["reason"] == out["reason"]


def test_nibble_names_the_whole_colour_that_won() -> None:
    """Nibble: "A player wins at once when he holds all ``colors`` blocks of one colour" — the
    sentence names that colour, and the winner really holds all its blocks."""
    g = tessera.load_game("nibble")
    seen = 0
    for seed in range(60):
        st = playout(g.new_initial_state(seed=seed), random.Random(seed))
        out = st.outcome()
        assert out is not None
        if out["reason"] != "colour":
            continue
        m = re.fullmatch(r"(First|Second) took all 9 (\w+) blocks", out["text"])
        assert m, out["text"]
        w = ("First", "Second").index(m.group(1))
        colour = [n for n, _ in PALETTE].index(m.group(2))
        assert w == st.winner() and st.taken[w][colour] == 9  # type: ignore[attr-defined]
        seen += 1
    assert seen, "some random Nibble game is won by a whole colour"


def test_nibble_majority_ending_counts_the_colours() -> None:
    """Nibble: "When the board is empty the player holding the majority ... in a majority of the
    colours wins" — the sentence gives both players' colour counts."""
    g = tessera.load_game("nibble")
    for seed in range(40):
        st = playout(g.new_initial_state(seed=seed), random.Random(seed))
        out = st.outcome()
        assert out is not None
        if out["reason"] == "majority":
            s = st.majorities()  # type: ignore[attr-defined]
            w = st.winner()
            assert w is not None
            assert f"in {s[w]} of 9 colours" in out["text"] and f": {s[1 - w]})" in out["text"]
            return
    pytest.fail("no random Nibble game ended by majorities")


def test_four_player_nymbat_names_the_winner_by_his_colour() -> None:
    """Nymbat for four players: the sentence names the winner among the four (or says draw)."""
    g = tessera.load_game("nymbat", players=4, reserve=4, first_limit=4, max_turns=40)
    for seed in range(6):
        st = playout(g.new_initial_state(seed=seed), random.Random(seed))
        out = st.outcome()
        assert out is not None and out["reason"] in REASONS["nymbat"]
        w = st.winner()
        assert ("draw" in out["text"].lower()) if w is None else (st.L.names[w] in out["text"])  # type: ignore[attr-defined]
