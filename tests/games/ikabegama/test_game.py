"""Ikabegamá rule tests, named after the rules of seed 002 and docs/rules/ikabegama.md)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import tessera
from tessera import TERMINAL, IllegalMove


def position(tokens: dict[str, int], to_move: int = 0, **params: object) -> tessera.State:
    game = tessera.load_game("ikabegama", **params)
    return game.state_from_dict({"to_move": to_move, "tokens": tokens})


def test_initial_position_has_one_token_on_each_nest() -> None:
    """'The game starts with only two tokens on the board -- a Light token in the Light nest
    and a Dark token in the Dark nest.'"""
    d = tessera.load_game("ikabegama").new_initial_state().to_dict()
    assert d["tokens"] == {"0,0": 0, "6,0": 1}
    assert d["light_nest"] == "0,0" and d["dark_nest"] == "6,0" and d["to_move"] == 0


def test_first_position_has_6_growths_and_12_jumps() -> None:
    """Growth onto any of the 6 adjacent hexes, or a jump to any of the twelve hexes two away."""
    s = tessera.load_game("ikabegama").new_initial_state()
    moves = s.legal_moves()
    assert len(moves) == 18
    assert sum(">" in m for m in moves) == 12


def test_growth_needs_an_adjacent_friendly_token() -> None:
    """'Light fills in some empty tile ... provided at least one of the 6 adjacent tiles is
    already occupied by a Light token.'"""
    s = tessera.load_game("ikabegama").new_initial_state()
    with pytest.raises(IllegalMove, match="adjacent"):
        s.play("2,0")
    s.play("1,0")
    assert s.to_dict()["tokens"]["1,0"] == 0


def test_jump_goes_exactly_two_away_and_empties_the_source() -> None:
    """'a jump -- Light moves some Light token ... two tiles away ... provided the destination is
    empty'; 'Except for the source and destination, it doesn't matter whether any other tiles are
    empty or not.'"""
    s = position({"0,0": 0, "1,0": 1, "9,0": 1})
    s.play("0,0>2,0")  # jumps over the Dark token at 1,0
    tokens = s.to_dict()["tokens"]
    assert "0,0" not in tokens and tokens["2,0"] == 0
    with pytest.raises(IllegalMove, match="distance exactly 2"):
        s.play("9,0>12,0")


def test_destination_must_be_empty() -> None:
    """A growth or a jump lands on an empty hex only."""
    s = position({"0,0": 0, "1,0": 0, "2,0": 1}, distance=9)
    before = s.to_dict()
    with pytest.raises(IllegalMove, match="not empty"):
        s.play("0,0>2,0")
    with pytest.raises(IllegalMove, match="not empty"):
        s.play("1,0")
    assert s.to_dict() == before


def test_adjacent_enemy_tokens_flip_after_a_move() -> None:
    """'any Dark token adjacent to the newly occupied tile is turned into a Light token'."""
    s = position({"0,0": 0, "2,-1": 1, "1,1": 1, "3,0": 1}, distance=9)
    s.play("1,0")
    tokens = s.to_dict()["tokens"]
    assert tokens["2,-1"] == 0 and tokens["1,1"] == 0  # both adjacent to 1,0
    assert tokens["3,0"] == 1  # two away: unchanged


def test_a_flip_onto_the_nest_wins() -> None:
    """'It doesn't matter whether the nest is newly occupied from growing, jumping or automatic
    flipping.'"""
    s = position({"0,0": 0, "1,0": 0, "3,0": 1}, distance=3)
    s.play("2,0")  # flips the Dark token on the Dark nest 3,0
    assert s.is_terminal() and s.winner() == 0 and s.returns() == [1.0, -1.0]
    assert s.current_player() == TERMINAL


def test_dark_wins_by_entering_the_light_nest() -> None:
    """'some Dark token occupies Light's nest, in which case Dark has won the game'."""
    s = position({"2,0": 1, "5,0": 0, "6,0": 1}, to_move=1)
    s.play("2,0>0,0")
    assert s.winner() == 1


def test_a_player_without_moves_must_pass() -> None:
    """'If they can't because they don't have any token left on the board ... they pass'."""
    s = position({"0,0": 0, "1,0": 0}, to_move=1)
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert s.current_player() == 0
    with pytest.raises(IllegalMove, match="only allowed when no"):
        s.play("pass")


def test_both_players_passing_ends_the_game_by_token_count() -> None:
    """Ruling: if both players pass in a row, the player with more tokens wins, equal is a draw."""
    g = tessera.load_game("ikabegama", board="hexhex:2", distance=2)
    # hexhex:2 centred on 1,0: seven hexes; Dark fills what Light cannot reach
    cells = ["1,0", "0,0", "2,0", "1,-1", "2,-1", "0,1", "1,1"]
    s = g.state_from_dict({"to_move": 0, "tokens": {c: 0 for c in cells[:2]} | {c: 1 for c in cells[2:]}})
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert s.legal_moves() == ["pass"]
    s.play("pass")
    assert s.is_terminal() and s.winner() == 1  # 5 Dark tokens against 2


def test_max_plies_safeguard_ends_in_a_draw() -> None:
    """Safeguard max_plies (default 400) ends the game in a draw."""
    g = tessera.load_game("ikabegama", max_plies=3)
    s = g.new_initial_state()
    for m in ("0,0>-2,0", "6,0>8,0", "-2,0>-4,0"):
        s.play(m)
    assert s.is_terminal() and s.winner() is None and s.returns() == [0.0, 0.0]


def test_dark_nest_parameter_overrides_distance() -> None:
    """Parameter dark_nest (e.g. "4,3") overrides distance."""
    g = tessera.load_game("ikabegama(dark_nest=4,3)")
    assert g.new_initial_state().to_dict()["tokens"] == {"0,0": 0, "4,3": 1}
    assert str(g) == "ikabegama(dark_nest=4,3)"
    with pytest.raises(ValueError, match="dark_nest"):
        tessera.load_game("ikabegama", dark_nest="0,0")
    with pytest.raises(ValueError, match="dark_nest"):
        tessera.load_game("ikabegama", dark_nest="four")


def test_hexhex_board_limits_play_to_a_hexagon_around_the_midpoint() -> None:
    """board="hexhex:N" limits play to a regular hexagon of side N centred on the midpoint hex."""
    g = tessera.load_game("ikabegama", board="hexhex:4", distance=6)
    s = g.new_initial_state()
    cells = {c["id"] for c in s.render()["board"]["cells"]}
    assert len(cells) == 37 and "3,0" in cells and "0,0" in cells and "-1,0" not in cells
    # from 0,0 only hexes inside the hexagon are offered
    assert "-1,0" not in s.legal_moves() and "0,0>-2,0" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="off the board"):
        s.play("-1,0")
    with pytest.raises(ValueError, match="too small"):
        tessera.load_game("ikabegama", board="hexhex:3", distance=6)
    with pytest.raises(ValueError, match="hexhex"):
        tessera.load_game("ikabegama", board="square:4")


@pytest.mark.parametrize(
    ("params", "centre"),
    [
        ({"distance": 6}, "3,0"),
        ({"distance": 5}, "2,0"),
        ({"distance": 7}, "3,0"),
        ({"dark_nest": "3,2"}, "1,1"),
        ({"dark_nest": "4,2"}, "2,1"),
    ],
)
def test_hexhex_centre_when_no_hex_lies_midway(params: dict[str, object], centre: str) -> None:
    """Ruling (module docstring; docs/rules/ikabegama.md says only "centred on the midpoint hex"): the hex whose larger
    distance to the nests is smallest; with no hex exactly midway, the one nearer the Light nest."""
    g = tessera.load_game("ikabegama", board="hexhex:5", **params)
    cells = {c["id"] for c in g.new_initial_state().render()["board"]["cells"]}
    q, r = (int(v) for v in centre.split(","))
    ring = {f"{q + dq},{r + dr}" for dq in range(-4, 5) for dr in range(-4, 5) if abs(dq + dr) <= 4}
    assert cells == ring


@pytest.mark.parametrize(
    ("tokens", "to_move", "expected"),
    [
        ({"0,0": 0, "6,0": 1}, 0, 18),
        # a domino: 8 hexes around it; 12 jumps per token (a jump is per source)
        ({"0,0": 0, "1,0": 0, "6,0": 1}, 0, 8 + 24),
        # two of the six neighbours taken by Dark; the ring of twelve is empty
        ({"0,0": 0, "1,0": 1, "0,1": 1, "6,0": 1}, 0, 4 + 12),
        # a line of three: 10 hexes around it; the end tokens each see the other end at distance 2
        ({"0,0": 0, "6,0": 1, "5,0": 1, "7,0": 1}, 1, 10 + 11 + 12 + 11),
    ],
)
def test_golden_legal_move_counts(tokens: dict[str, int], to_move: int, expected: int) -> None:
    """Perft-style counts from fixed positions (hand-checked)."""
    s = position(tokens, to_move)
    moves = s.legal_moves()
    assert len(moves) == expected, moves


def test_position_dict_rejects_inconsistent_input() -> None:
    """state_from_dict: inconsistent input raises ValueError naming the problem."""
    g = tessera.load_game("ikabegama")
    with pytest.raises(ValueError, match="tokens"):
        g.state_from_dict({"to_move": 0})
    with pytest.raises(ValueError, match="owner"):
        g.state_from_dict({"to_move": 0, "tokens": {"0,0": 2}})
    with pytest.raises(ValueError, match="dark_nest"):
        g.state_from_dict({"to_move": 0, "dark_nest": "5,0", "tokens": {}})
    with pytest.raises(ValueError, match="to_move"):
        g.state_from_dict({"to_move": 3, "tokens": {}})
    with pytest.raises(ValueError, match="both nests"):
        g.state_from_dict({"to_move": 0, "tokens": {"0,0": 1, "6,0": 0}})
    with pytest.raises(ValueError, match="not a hex"):
        g.state_from_dict({"to_move": 0, "tokens": {"a1": 0}})


def test_malformed_moves_say_what_a_move_looks_like() -> None:
    s = tessera.load_game("ikabegama").new_initial_state()
    for bad in ("", "1", "1,0,0", "0,0>", ">1,0", "x"):
        with pytest.raises(IllegalMove, match=r"not a move|distance"):
            s.play(bad)
    assert s.move_number() == 0


def test_moves_are_normalised() -> None:
    """Notation: moves are lower case without spaces; equal moves are equal strings."""
    s = tessera.load_game("ikabegama").new_initial_state()
    s.play(" 0, 0 > 2, -1 ")
    assert s.history() == [(0, "0,0>2,-1")]
    s.play("PASS" if s.legal_moves() == ["pass"] else "6,0>8,0")
    assert s.history()[-1] == (1, "6,0>8,0")


def test_evaluation_prefers_the_nest_race_leader() -> None:
    """Evaluation (agents): closer to the enemy nest and more tokens is better."""
    ahead = position({"0,0": 0, "4,0": 0, "6,0": 1, "9,0": 1})
    assert ahead.evaluate(0) > 0 > ahead.evaluate(1)
    s = tessera.load_game("ikabegama").new_initial_state()
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply_action(s.random_action(rng))
        assert -1.0 <= s.evaluate(0) <= 1.0
    assert s.evaluate(0) == s.returns()[0]


def test_positions_must_stay_inside_the_playing_window() -> None:
    """Engine note: a loaded position whose tokens could leave the window before max_plies is refused."""
    g = tessera.load_game("ikabegama", max_plies=50)
    assert g.state_from_dict({"to_move": 0, "tokens": {"-30,0": 0, "6,0": 1}}).legal_moves()
    with pytest.raises(ValueError, match="too far out"):
        g.state_from_dict({"to_move": 0, "tokens": {"-80,0": 0, "6,0": 1}})


def test_random_action_is_uniform_over_legal_moves() -> None:
    """The rollout sampler draws every legal move about equally often (chi-square bound)."""
    s = position({"0,0": 0, "1,0": 0, "0,1": 0, "3,0": 1, "6,0": 1})
    legal = s.legal_actions()
    rng = random.Random(1)
    n = 200 * len(legal)
    counts = dict.fromkeys(legal, 0)
    for _ in range(n):
        a = s.random_action(rng)
        assert a in counts
        counts[a] += 1
    expected = n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 2 * len(legal)  # df = len(legal) - 1; a biased sampler lands far above


# -- every ply against a second reading of the rules ------------------------------------------

SIX = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
TWELVE = {(a + c, b + d) for a, b in SIX for c, d in SIX} - {(0, 0), *SIX}


def _hex(s: str) -> tuple[int, int]:
    q, r = s.split(",")
    return int(q), int(r)


def _reference_moves(d: dict[str, Any], on_board: Callable[[tuple[int, int]], bool]) -> list[str]:
    """Growths onto empty hexes next to a friendly token, jumps onto empty hexes two away; else pass."""
    tokens = {_hex(k): v for k, v in d["tokens"].items()}
    out: set[str] = set()
    for (q, r), owner in tokens.items():
        if owner != d["to_move"]:
            continue
        for (dq, dr), jump in [(o, False) for o in SIX] + [(o, True) for o in TWELVE]:
            t = (q + dq, r + dr)
            if t not in tokens and on_board(t):
                out.add(f"{q},{r}>{t[0]},{t[1]}" if jump else f"{t[0]},{t[1]}")
    return sorted(out) or ["pass"]


def _reference_play(d: dict[str, Any], move: str) -> dict[str, Any]:
    """The move, then every enemy token next to the destination flips to the mover's colour."""
    p = d["to_move"]
    tokens = {_hex(k): v for k, v in d["tokens"].items()}
    passes = d["passes"] + 1 if move == "pass" else 0
    if move != "pass":
        if ">" in move:
            src, move = move.split(">")
            del tokens[_hex(src)]
        q, r = _hex(move)
        tokens[(q, r)] = p
        for dq, dr in SIX:
            if tokens.get((q + dq, r + dr)) == 1 - p:
                tokens[(q + dq, r + dr)] = p
    return {
        **d,
        "to_move": 1 - p,
        "tokens": {f"{q},{r}": v for (q, r), v in sorted(tokens.items())},
        "ply": d["ply"] + 1,
        "passes": passes,
    }


@pytest.mark.parametrize(
    "spec", ["ikabegama", "ikabegama(board=hexhex:4)", "ikabegama(dark_nest=3,2,board=hexhex:5,max_plies=120)"]
)
def test_every_ply_matches_a_second_reading_of_the_rules(spec: str) -> None:
    """Growth, jump, flipping, the nest wins ("a flip onto a nest counts"), pass, the both-pass count and the
    max_plies draw, checked against a second, plain implementation of docs/rules/ikabegama.md along random games;
    the legal actions come sorted, each once (``State.legal_actions``: "sorted", as OpenSpiel's)."""
    game = tessera.load_game(spec)
    light, dark = (0, 0), _hex(game.params["dark_nest"] or f"{game.params['distance']},0")
    side = int(game.params["board"].split(":")[1]) if game.params["board"] != "plane" else 0
    cq, cr = getattr(game, "center", (0, 0))

    def on_board(h: tuple[int, int]) -> bool:
        dq, dr = h[0] - cq, h[1] - cr
        return not side or (abs(dq) + abs(dr) + abs(dq + dr)) // 2 < side

    rng = random.Random(8)
    for _ in range(6):
        st = game.new_initial_state()
        while True:
            d = st.to_dict()
            tokens = {_hex(k): v for k, v in d["tokens"].items()}
            count = [list(tokens.values()).count(i) for i in (0, 1)]
            over, winner = (
                (True, 0) if tokens.get(dark) == 0 else (True, 1) if tokens.get(light) == 1 else (False, None)
            )
            if not over and d["passes"] >= 2:
                over, winner = True, 0 if count[0] > count[1] else 1 if count[1] > count[0] else None
            if not over and d["ply"] >= game.params["max_plies"]:
                over = True
            assert (st.is_terminal(), st.winner()) == (over, winner), d
            if over:
                break
            legal = st.legal_moves()
            assert legal == _reference_moves(d, on_board), d
            acts = st.legal_actions()  # the kernel lists them in increasing order, each once
            assert acts == sorted(set(acts)) and st.legal_actions_array().tolist() == acts, d
            move = rng.choice(legal) if rng.random() < 0.5 else st.random_move(rng)
            st.play(move)
            got = st.to_dict()
            assert {**got, "tokens": dict(sorted(got["tokens"].items()))} == _reference_play(d, move), (d, move)


def test_random_action_refuses_a_player_not_to_move_and_a_finished_game() -> None:
    """API: bad input gets a clear error (IllegalMove), like play: a player not to move, a game that is over."""
    st = position({"0,0": 0, "6,0": 1}, to_move=0)
    with pytest.raises(IllegalMove, match="player 0's turn, not player 1's"):
        st.random_action(random.Random(0), 1)
    over = position({"0,0": 0, "6,0": 0}, to_move=1)
    assert over.is_terminal()
    with pytest.raises(IllegalMove, match="game is over"):
        over.random_action(random.Random(0))


RING1 = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
RING2 = [(dq, dr) for dq in range(-2, 3) for dr in range(-2, 3) if max(abs(dq), abs(dr), abs(dq + dr)) == 2]


def _model_moves(tokens: dict[tuple[int, int], int], player: int) -> set[str]:
    """Growths and jumps of ``player`` straight from the rules, over a dict of tokens."""
    out: set[str] = set()
    for (q, r), o in tokens.items():
        if o != player:
            continue
        for dq, dr in RING1:
            if (q + dq, r + dr) not in tokens:
                out.add(f"{q + dq},{r + dr}")
        for dq, dr in RING2:
            if (q + dq, r + dr) not in tokens:
                out.add(f"{q},{r}>{q + dq},{r + dr}")
    return out


@pytest.mark.parametrize("seed", range(4))
def test_growth_jump_and_flips_match_a_model_of_the_rules_over_random_games(seed: int) -> None:
    """'Growth: a new token on an empty hex adjacent to a friendly token.  Jump: a friendly token
    moves to an empty hex at distance exactly 2; its source becomes empty.  After either, every
    enemy token adjacent to the destination flips.'  A dict model of these rules, played beside
    the engine through whole random games (many jumps: the engine's hex table must forget and
    re-find tokens), agrees on the tokens, the counts and the legal moves after every ply."""
    rng = random.Random(seed)
    s = tessera.load_game("ikabegama(distance=4,max_plies=160)").new_initial_state()
    model: dict[tuple[int, int], int] = {(0, 0): 0, (4, 0): 1}
    while not s.is_terminal():
        player = s.current_player()
        legal = s.legal_moves()
        assert set(legal) - {"pass"} == _model_moves(model, player)
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.5 else s.random_move(rng)
        s.play(move)
        if move != "pass":
            src, _, dst = move.rpartition(">")
            dq, dr = map(int, dst.split(","))
            if src:
                del model[tuple(map(int, src.split(",")))]  # type: ignore[arg-type]
            model[(dq, dr)] = player
            for oq, orr in RING1:
                if model.get((dq + oq, dr + orr)) == 1 - player:
                    model[(dq + oq, dr + orr)] = player
        got = {tuple(map(int, h.split(","))): o for h, o in s.to_dict()["tokens"].items()}
        assert got == model
        counts = [sum(o == p for o in model.values()) for p in (0, 1)]
        assert s.render()["panel"][0]["values"] == counts


def test_rollouts_draw_uniform_moves_and_score_a_taken_nest_as_a_win() -> None:
    """'As soon as a Light token occupies the Dark nest Light wins.'  With Light next to the Dark
    nest, one-ply rollouts average, over the uniformly drawn legal moves, +1 for each move that
    takes the nest and the evaluation of the position after each other move."""
    s = position({"0,0": 0, "3,0": 0, "4,0": 0, "-8,0": 1}, to_move=0, distance=5, max_plies=400)
    expected = []
    for a in s.legal_actions():
        t = s.clone()
        t.apply_action(a)
        expected.append(t.returns()[0] if t.is_terminal() else t.evaluate(0))
    assert 1.0 in expected and min(expected) < 1.0
    res = s.rollouts(20000, 3, max_plies=1)
    assert res.n == 20000 and res.plies == 20000
    mean = sum(expected) / len(expected)
    assert abs(res.totals[0] / res.n - mean) < 0.02
    assert res.totals[1] == -res.totals[0]


def test_growth_always_adds_a_token_however_many_the_board_holds() -> None:
    """'Growth: place a new token on an empty hex adjacent to one of your tokens' — also after the
    state's token list has had to grow (it starts small so that a clone stays cheap)."""
    game = tessera.load_game("ikabegama(distance=30)")
    state = game.new_initial_state()
    rng = random.Random(7)
    clones = []
    for _ in range(120):
        growths = [a for a in state.legal_actions() if ">" not in state.action_to_string(a)]
        if not growths or state.is_terminal():
            break
        before = sum(state.counts)
        clones.append((state.clone(), state.to_dict()))
        state.apply_action(rng.choice(growths))
        assert sum(state.counts) == before + 1
    assert sum(state.counts) >= 100
    assert len(state.tokens) == sum(state.counts)
    assert game.state_from_dict(state.to_dict()).to_dict() == state.to_dict()
    for clone, d in clones:  # the clones kept their positions while the original grew
        assert clone.to_dict() == d
    # rollouts from a grown position play on without running out of room
    assert state.rollouts(8, seed=1).n == 8
