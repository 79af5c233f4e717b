"""The engine-use signal: how often an account's moves in its rated games are the top move of a
fixed-budget engine search (docs/moderation.md).

For each of the account's latest :data:`GAMES` finished rated games, the game is replayed from its
stored seed and moves; at every position where the account's seat is to move alone with more than
one legal move, a UCT search (:class:`tessera.agents.mcts.MCTSAgent`) with a fixed number of
iterations and a fixed seed names its top move.  The signal is the share of the account's moves equal
to it.  A strong honest player matches often too, so the share is shown beside its distribution among
ordinary players (:meth:`tessera.server.moderation.store.ModerationStore.distribution`) for a
moderator to weigh: it flags an account for review and never acts by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from tessera.agents.mcts import MCTSAgent
from tessera.core.game import SIMULTANEOUS, IllegalMove
from tessera.server.accounts.queries import account_seats
from tessera.server.match.inputs import load_checked
from tessera.server.match.queries import ended_seats, stored_game
from tessera.server.store.storage import Storage

ITERATIONS = 200
"""The search's budget per position (iterations of UCT), the same for every account."""

GAMES = 20
"""How many of the account's latest finished rated games are examined."""

SEED = 20261129
"""The search's seed: the same position always gets the same top move."""


@dataclass(frozen=True)
class Signal:
    """One account's count."""

    moves: int
    """Moves of the account examined (positions with a choice)."""
    matches: int
    """Of those, moves equal to the search's top move."""
    games: int
    """Rated games examined."""
    iterations: int
    """The search's budget per position."""

    @property
    def share(self) -> float:
        return self.matches / self.moves if self.moves else 0.0


def rated_games(storage: Storage, user_id: str, limit: int = GAMES) -> list[tuple[str, int]]:
    """The account's latest finished rated games: ``(game_id, seat)`` pairs, newest first."""
    with storage.transaction() as tx:
        return ended_seats(tx, account_seats(user_id, rated=True), limit)


def compute(storage: Storage, user_id: str, *, iterations: int = ITERATIONS, games: int = GAMES) -> Signal:
    """Count the account's moves that match the search's top move (see the module's text)."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    moves = matches = examined = 0
    for game_id, seat in rated_games(storage, user_id, games):
        found = stored_game(storage, game_id)
        if found is None:
            continue
        row, stored = found
        state = load_checked(row.spec).new_initial_state(seed=row.seed)
        examined += 1
        agent = MCTSAgent(seed=SEED)
        try:
            for m in stored:
                if m.player == SIMULTANEOUS or state.current_player() == SIMULTANEOUS:
                    state.play_joint([part.strip() for part in m.move.split("|")])
                    continue
                if state.current_player() == seat and len(state.legal_moves()) > 1:
                    agent.reset()
                    top = agent.choose_move(state, iterations=iterations, rng=SEED)
                    moves += 1
                    matches += int(top == m.move)
                state.play(m.move)
        except IllegalMove:  # a record that no longer replays (a rules version changed): what was counted stays
            continue
    return Signal(moves, matches, examined, iterations)
