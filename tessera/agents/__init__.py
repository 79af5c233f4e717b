"""AI players: one interface, ``Agent.choose(state, *, seconds, iterations, rng, player)``.

>>> import tessera
>>> from tessera.agents import make_agent
>>> state = tessera.load_game("ikabegama(distance=3)").new_initial_state()
>>> agent = make_agent("mcts(seed=1)")
>>> a = agent.choose(state, iterations=50)
>>> a in state.legal_actions()
True

Agents: ``random``, ``greedy`` (one-step lookahead with the game's
``evaluate``), ``mcts`` (UCT with rollout cut-off, progressive widening, tree
reuse; decoupled UCT at simultaneous nodes), ``mcts_compiled`` (the same UCT with the tree in arrays
inside compiled code, on the game's kernel contract), ``smmcts``, ``alphabeta``
(negamax, iterative deepening), ``turns`` (search over whole turns with greedy
rollouts, for games of more than two players) and the strength levels ``level1``–``level6``
(:func:`level`; level 6 only where a stored SPRT accepted it, :mod:`tessera.agents.evidence`).  See
docs/agents.md.
"""

from tessera.agents.alphabeta import AlphaBetaAgent
from tessera.agents.base import CLOCKS, DEFAULT_SECONDS, Agent, Budget, clock, clock_name, set_clock, using_clock
from tessera.agents.mcts import MCTSAgent
from tessera.agents.simple import GreedyAgent, RandomAgent
from tessera.agents.sm_mcts import SMMCTSAgent
from tessera.agents.spec import LEVEL_SECONDS, Level, LevelAgent, level, make_agent, parse_spec
from tessera.agents.turns import TurnAgent

__all__ = [
    "CLOCKS",
    "DEFAULT_SECONDS",
    "LEVEL_SECONDS",
    "Agent",
    "AlphaBetaAgent",
    "Budget",
    "GreedyAgent",
    "Level",
    "LevelAgent",
    "MCTSAgent",
    "RandomAgent",
    "SMMCTSAgent",
    "TurnAgent",
    "clock",
    "clock_name",
    "level",
    "make_agent",
    "parse_spec",
    "set_clock",
    "using_clock",
]
