"""The analysis board's exact endgames: "forced win in N" / "lost with best play" when the solver proves it.

Issue 28: "The analysis board says 'forced win in N' / 'lost with best play' when the solver
proves it."  ``POST /api/analysis/evaluate`` on a Nibble position within the solver's reach
answers with ``exact`` (winner, steps, a best step) and the proved value; out of reach, or in
a game without a solver, the answer is our AI's estimate as before, with no ``exact``.
"""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

import tessera
from tessera.games.ikabegama.solver import IkabegamaSolver
from tessera.games.nibble.solver import NibbleSolver

NIBBLE = tessera.load_game("nibble")


def nibble_line(seed: int, blocks: int) -> tuple[tessera.State, list[list[Any]], int]:
    """A seeded random Nibble game played until at most ``blocks`` blocks are left, its move list and seed."""
    while True:
        rng = random.Random(seed)
        state = NIBBLE.new_initial_state(seed)
        while not state.is_terminal() and len(state.to_dict()["cells"]) > blocks:
            state.apply_action(state.random_action(rng))
        if not state.is_terminal():
            return state, [[p, m] for p, m in state.history()], seed
        seed += 1


def evaluate(client: TestClient, moves: list[list[Any]], seed: int, seconds: float = 5.0) -> dict[str, Any]:
    r = client.post("/api/analysis/evaluate", json={"game": "nibble", "seed": seed, "moves": moves, "seconds": seconds})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_an_endgame_within_reach_is_answered_with_the_proved_result_and_a_best_step(client: TestClient) -> None:
    """The answer's ``exact`` equals the solver's own result without a time limit; the value is +1 for
    a forced win of the side to move and −1 for a loss; the best step keeps the proved result."""
    seen = set()
    for seed in range(6):
        state, moves, seed_used = nibble_line(100 + 10 * seed, 12)
        out = evaluate(client, moves, seed_used)
        exact = out.get("exact")
        assert exact is not None, out
        truth = NibbleSolver(16).solve(state, None)
        assert truth is not None
        cp = state.current_player()
        winner = None if truth.value == 0 else cp if truth.value > 0 else 1 - cp
        assert (exact["winner"], exact["to_move"], exact["plies"]) == (winner, cp, truth.plies)
        assert out["value"] == (0.0 if winner is None else 1.0 if winner == cp else -1.0)
        assert out["best"] == exact["best_move"] and out["best"] in [
            state.action_to_string(a) for a in state.legal_actions()
        ]
        # the best step keeps the result: after it the same player wins (or the game is over, won)
        after = state.clone()
        after.play(out["best"])
        if after.is_terminal():
            assert winner is not None and after.returns()[winner] > 0
        else:
            follow = evaluate(client, [*moves, [cp, out["best"]]], seed_used)
            assert follow["exact"]["winner"] == winner
        seen.add("win" if winner == cp else "draw" if winner is None else "loss")
        assert state.game.info.player_names[winner if winner is not None else cp] in exact["text"] or winner is None
    assert "win" in seen or "loss" in seen, seen


def test_out_of_reach_or_without_a_solver_the_answer_has_no_exact_verdict(client: TestClient) -> None:
    """The opening of Nibble (far more blocks than the solver takes), the opening of Nume (far more empty
    cells) and a Nymbat position (no solver) are estimates."""
    out = evaluate(client, [], 0, seconds=0.2)
    assert "exact" not in out and -1 <= out["value"] <= 1
    r = client.post("/api/analysis/evaluate", json={"game": "nume(size=3)", "seed": 0, "moves": [], "seconds": 0.2})
    assert r.status_code == 200 and "exact" not in r.json()
    r = client.post("/api/analysis/evaluate", json={"game": "nymbat", "seed": 0, "moves": [], "seconds": 0.2})
    assert r.status_code == 200 and "exact" not in r.json()


def test_an_ikabegama_race_within_reach_is_answered_with_the_proved_win(client: TestClient) -> None:
    """Ikabegamá's short races: a forced win within the solver's horizon comes back as ``exact`` with the
    plies of the fastest win, and its best move keeps the win (a position after it is lost for the other)."""
    game = tessera.load_game("ikabegama(distance=4)")
    rng = random.Random(5)
    found = 0
    for _ in range(60):
        state = game.new_initial_state()
        for _ in range(rng.randint(2, 7)):
            if state.is_terminal():
                break
            state.apply_action(state.random_action(rng))
        if state.is_terminal():
            continue
        truth = IkabegamaSolver(16).solve(state, horizon=5)
        if truth is None or truth.value < 0 or truth.plies is None or truth.plies < 3:
            continue
        moves = [[p, m] for p, m in state.history()]
        r = client.post(
            "/api/analysis/evaluate",
            json={"game": "ikabegama(distance=4)", "seed": 0, "moves": moves, "seconds": 2.0},
        )
        assert r.status_code == 200, r.text
        out = r.json()
        cp = state.current_player()
        assert out["exact"]["winner"] == cp and out["exact"]["plies"] == truth.plies, out
        assert out["value"] == 1.0 and out["exact"]["text"].startswith(f"Forced win in {truth.plies} steps")
        after = state.clone()
        after.play(out["best"])
        lost = IkabegamaSolver(16).solve(after, horizon=truth.plies)
        assert lost is not None and lost.value == -1
        found += 1
        if found == 3:
            break
    assert found == 3
