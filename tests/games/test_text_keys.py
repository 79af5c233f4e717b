"""Every text the games write for people carries its catalogue key and arguments.

"Texts that the games and the server write" (render descriptions: status, panel labels and values,
labels, titles, hints; end sentences; refusals) are written as the English sentence with a key and
arguments beside it, so that a client can say them in the player's language; the English stays for
the API, records and the text UI.  Checked over random games of all five games, four-player Nymbat
and Nelaxtam with sealed orders (``tests/games/emitted_texts.py``).
"""

from __future__ import annotations

import json
import pickle
import random

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS, IllegalMove
from tessera.core.texts import Text, name_text
from tests.games.emitted_texts import VARIANTS, collect


@pytest.fixture(scope="module")
def emitted():  # type: ignore[no-untyped-def]
    return collect(games=3, seed=7)


def test_every_text_of_a_render_an_outcome_and_a_refusal_has_a_key(emitted) -> None:  # type: ignore[no-untyped-def]
    """No status, label, title, hint, panel value, end sentence or refusal is written without a key."""
    assert not emitted.unkeyed, "texts without a key:\n" + "\n".join(emitted.unkeyed[:40])


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=[f"{n}{p}" for n, p in VARIANTS])
def test_each_game_and_variant_writes_statuses_results_and_refusals_with_keys(name: str, params: dict) -> None:  # type: ignore[type-arg]
    """A game's status line has ``status_key``; its end has ``result.key``; a refused move has a ``refusal.*`` key."""
    g = tessera.load_game(name, **params)
    rng = random.Random(name)
    state = g.new_initial_state(seed=1)
    refusals = 0
    while not state.is_terminal():
        desc = state.render()
        assert desc["status_key"].startswith("status."), desc["status"]
        json.dumps(desc)  # keys and arguments are JSON
        if state.current_player() >= 0:
            for a in rng.sample(range(g.num_distinct_actions()), 5):
                try:
                    state.clone().apply_action(a)
                except IllegalMove as e:
                    refusals += 1
                    assert e.key is not None and e.key.startswith("refusal."), str(e)
                    assert e.key_args == json.loads(json.dumps(e.key_args))
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(g.num_players)])
        else:
            state.play(state.random_move(rng))
    out = state.outcome()
    assert out is not None and out["key"].startswith("result."), out
    res = state.render()["result"]
    assert (res["key"], res["args"], res["text"]) == (out["key"], out["args"], out["text"])
    if name != "nelaxtam":
        assert refusals, "no refusal was tried"


def test_a_refusal_keeps_its_english_and_gives_its_key_and_arguments() -> None:
    """``why_illegal`` and ``IllegalMove`` give the same English as before, and the key and arguments beside it."""
    state = tessera.load_game("nymbat").new_initial_state()
    why = state.why_illegal("h5-g7")
    assert why == "h5-g7: on his first turn Red must bring in reserves"
    assert isinstance(why, Text) and why.key == "refusal.nymbat.move_on_first_turn"
    with pytest.raises(IllegalMove) as info:
        state.play("h5-g7")
    assert str(info.value) == why
    assert info.value.key_args == {"move": "h5-g7", "name": {"key": "names.red", "args": {}, "text": "Red"}}


def test_nelaxtam_sealed_orders_show_keyed_words_and_a_keyed_refusal() -> None:
    """The sealed-order row says yes/no by key; sealing a second, different order is refused with a key."""
    state = tessera.load_game("nelaxtam", size=10, troops=2, by_sea=1).new_initial_state(seed=3)
    rng = random.Random(3)
    order = state.random_move(rng, 0)
    view = state.view(0, {0: order})
    row = next(r for r in view.render(0)["panel"] if r["label"] == "Order sealed")
    assert row["values"] == ["yes", "no"]
    assert [k["key"] for k in row["value_keys"]] == ["word.yes", "word.no"]
    state.submit(order, 0)
    other = next(o for o in (state.random_move(rng, 0) for _ in range(50)) if o != order)
    with pytest.raises(IllegalMove) as info:
        state.submit(other, 0)
    assert info.value.key == "refusal.nelaxtam.already_sealed"


def test_four_player_nymbat_names_each_seat_by_key() -> None:
    """Four-player Nymbat's statuses name Red, Green, Blue and Yellow by their keys."""
    state = tessera.load_game("nymbat", players=4).new_initial_state()
    seen = set()
    rng = random.Random(4)
    for _ in range(60):
        desc = state.render()
        seen.add(desc["status_args"]["name"]["key"])
        state.play(state.random_move(rng))
    assert seen == {"names.red", "names.green", "names.blue", "names.yellow"}


def test_a_text_survives_pickling_and_json() -> None:
    """A keyed text crosses processes (a worker's refusal) with its key and arguments, and is JSON."""
    t = Text("status.to_move", "Red to move", name=name_text("Red"))
    back = pickle.loads(pickle.dumps(t))
    assert (back, back.key, back.args) == (t, t.key, t.args)
    e = pickle.loads(pickle.dumps(IllegalMove(t)))
    assert e.key == "status.to_move" and str(e) == "Red to move"
    assert json.dumps(t) == '"Red to move"'
