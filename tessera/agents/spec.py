"""Agent specs: ``make_agent("mcts(c=1.4,rollout_cutoff=20)")`` and the strength levels 1–6.

A spec is a name with optional keyword options in parentheses:

==============  ==============================================================
``random``      uniformly random legal moves
``greedy``      one-step lookahead with ``evaluate`` (``noise=p``: random move with probability p)
``mcts``        UCT (``c``, ``rollout_cutoff``, ``widen``, ``wide``, ``pw_k``, ``pw_alpha``,
                ``reuse``, ``sample``); at simultaneous nodes it runs ``smmcts`` with its ``c`` and cut-off
``smmcts``      decoupled simultaneous-move UCT (``c``, ``rollout_cutoff``, ``pw_k``, ``pw_alpha``)
``alphabeta``   negamax alpha-beta with iterative deepening (``max_depth``, ``width``, ``sample``)
``turns``       UCB over whole turns with rollouts (``width``, ``rounds``, ``noise``, ``c``, ``reply``, ``cap``,
                ``limit``: at most that many iterations per turn)
``mcts_compiled`` UCT with the tree in arrays inside compiled code, on the game's kernel contract
                (``c``, ``rollout_cutoff``, ``widen``, ``wide``, ``pw_k``, ``pw_alpha``, ``reuse``, ``endgame``:
                the exact solver first, as levels 4–5; ``solve=N``: the game's compiled solver at each new
                leaf, ``N`` nodes; :mod:`tessera.agents.compiled_mcts`)
``learned``     level 5's UCT with an evaluation learned by self-play (``game``, ``weights``: a weights
                file, default the package's; ``c``, ``sample``, …; Nibble: ``reach``; Nymbat: level 5's
                alpha-beta, ``max_depth``, ``width``, ``sample``, or ``search=turns`` (``width``, ``c``,
                ``limit``); ``endgame=true``:
                the exact endgame solver first, as levels 4–5; :mod:`tessera.agents.learned`)
``level1``…     the web app's strength levels (``level(3)`` too), tuned per game; ``tree=compiled`` (or
                ``level5c``): the level's UCT on the compiled tree (``mcts_compiled``); ``level6`` only in a
                game whose stored SPRT accepted its level-6 agent against level 5
                (:mod:`tessera.agents.evidence`), else ``ValueError``
==============  ==============================================================

Every agent also takes ``seed=K`` (its own random generator); ``random``, ``greedy``,
``mcts`` and ``alphabeta`` take ``army=3`` / ``army=1+4`` (Nymbat: bring in only these
numbers, :mod:`tessera.agents.army`).  Values are
integers, floats, ``true``/``false`` or bare words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tessera.agents.alphabeta import AlphaBetaAgent
from tessera.agents.army import ArmyAgent, parse_army
from tessera.agents.base import Agent, Budget
from tessera.agents.endgame.agent import EndgameAgent, with_endgame
from tessera.agents.evidence import EVIDENCE_LEVEL, check_level
from tessera.agents.mcts import MCTSAgent
from tessera.agents.simple import GreedyAgent, RandomAgent
from tessera.agents.sm_mcts import SMMCTSAgent
from tessera.agents.turns import TurnAgent
from tessera.core.game import Action, State
from tessera.core.kits.levels import LevelTuning
from tessera.core.registry import game_class

_SPEC = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.IGNORECASE)

AGENT_OPTIONS: dict[str, tuple[str, ...]] = {
    "random": ("seed", "army"),
    "greedy": ("noise", "orders", "replies", "seed", "army"),
    "mcts": ("c", "rollout_cutoff", "widen", "wide", "pw_k", "pw_alpha", "reuse", "sample", "seed", "army"),
    "mcts_compiled": (
        "c",
        "rollout_cutoff",
        "widen",
        "wide",
        "pw_k",
        "pw_alpha",
        "reuse",
        "mast",
        "gibbs",
        "solve",
        "endgame",
        "seed",
    ),
    "smmcts": ("c", "rollout_cutoff", "pw_k", "pw_alpha", "seed"),
    "alphabeta": ("max_depth", "width", "sample", "seed", "army"),
    "turns": ("width", "rounds", "noise", "c", "reply", "cap", "limit", "seed"),
    "learned": (
        "game",
        "weights",
        "c",
        "rollout_cutoff",
        "sample",
        "widen",
        "wide",
        "pw_k",
        "pw_alpha",
        "reuse",
        "prior",
        "reach",
        "guide",
        "endgame",
        "max_depth",
        "width",
        "search",
        "limit",
        "seed",
    ),
    "level": ("n", "game", "scale", "tree", "seed"),
}
"""The options each agent name accepts."""


def _value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t.strip("'\"")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """An agent spec's name and options.

    >>> parse_spec("mcts(c=1.4)")
    ('mcts', {'c': 1.4})
    >>> parse_spec("level3") == parse_spec("level(3)") == ("level", {"n": 3})
    True
    """
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec must be a string, not {type(spec).__name__}")
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"malformed agent spec {spec!r}: expected 'name' or 'name(key=value,...)'")
    name = m.group(1).lower()
    opts: dict[str, Any] = {}
    inner = m.group(2)
    if inner is not None and inner.strip():
        pieces = [p for p in inner.split(",")]
        for piece in pieces:
            if name == "level" and "=" not in piece and "n" not in opts:
                opts["n"] = _value(piece)
                continue
            key, eq, val = piece.partition("=")
            key = key.strip().lower()
            if not eq or not key:
                raise ValueError(f"malformed agent spec {spec!r}: {piece.strip()!r} is not 'key=value'")
            if key in opts:
                raise ValueError(f"malformed agent spec {spec!r}: option {key!r} given twice")
            opts[key] = _value(val)
    lv = re.fullmatch(r"level([0-9]+)(c?)", name)
    if lv:
        if lv.group(2):  # level5c: the level on the compiled tree
            if "tree" in opts:
                raise ValueError(f"agent spec {spec!r} gives the tree twice")
            opts["tree"] = "compiled"
        name = "level"
        if "n" in opts:
            raise ValueError(f"agent spec {spec!r} gives the level twice")
        opts["n"] = int(lv.group(1))
    if name in ("sm_mcts", "sm-mcts"):
        name = "smmcts"
    if name == "ab":
        name = "alphabeta"
    if name not in AGENT_OPTIONS:
        raise ValueError(
            f"unknown agent {name!r} in {spec!r}; known agents: {', '.join(AGENT_OPTIONS)}, level1..level6"
        )
    bad = sorted(set(opts) - set(AGENT_OPTIONS[name]))
    if bad:
        raise ValueError(
            f"agent {name!r} has no option {bad[0]!r}; accepted options: {', '.join(AGENT_OPTIONS[name]) or 'none'}"
        )
    return name, opts


def make_agent(spec: str | Agent, *, game: str | None = None) -> Agent:
    """An agent from its spec string (see the module docstring); an ``Agent`` is returned as is.

    ``game`` (a game name) picks the per-game tuning of the ``level`` agents
    up front; without it a level agent picks it from the first state it sees.

    >>> make_agent("mcts(c=1.4)").name
    'mcts(c=1.4)'
    >>> make_agent("level3", game="nume").name
    'level3(game=nume)'
    """
    if isinstance(spec, Agent):
        return spec
    name, opts = parse_spec(spec)
    canonical = _canonical(name, opts)
    army = opts.pop("army", None)  # a restricted army (tessera.agents.army): wraps the agent below
    if army is not None:
        parse_army(army)
    try:
        if name == "random":
            agent: Agent = RandomAgent(**opts)
        elif name == "greedy":
            agent = GreedyAgent(**opts)
        elif name == "mcts":
            agent = MCTSAgent(**opts, name=canonical)
        elif name == "mcts_compiled":
            from tessera.agents.compiled_mcts import CompiledMCTSAgent

            endgame = opts.pop("endgame", False)
            agent = CompiledMCTSAgent(**opts, name=canonical)
            if endgame is True:  # the exact solver first near the end, as levels 4 and up (at the root)
                agent = EndgameAgent(agent)  # per position: only where its game declares a solver
            elif endgame is not False:
                raise ValueError(f"mcts_compiled: endgame must be true or false, not {endgame!r}")
        elif name == "smmcts":
            agent = SMMCTSAgent(**opts, name=canonical)
        elif name == "alphabeta":
            agent = AlphaBetaAgent(**opts, name=canonical)
        elif name == "turns":
            agent = TurnAgent(**opts, name=canonical)
        elif name == "learned":
            from tessera.agents.learned.agent import learned_agent

            endgame = opts.pop("endgame", False)
            agent = learned_agent(**opts, name=canonical)
            if endgame is True:  # the exact solver first near the end, as levels 4 and up
                agent = with_endgame(agent, opts.get("game", "nume"))
            elif endgame is not False:
                raise ValueError(f"learned: endgame must be true or false, not {endgame!r}")
        else:
            if "game" not in opts and game is not None:
                opts["game"] = game
            agent = LevelAgent(**opts)
    except TypeError as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None
    if name != "level":
        agent.name = canonical
    if army is not None:
        agent = ArmyAgent(agent, army, name=canonical)
    return agent


def _canonical(name: str, opts: dict[str, Any]) -> str:
    if name == "level":
        rest = {k: v for k, v in opts.items() if k != "n"}
        base = f"level{opts.get('n')}"
        return base + (f"({','.join(f'{k}={_fmt(v)}' for k, v in rest.items())})" if rest else "")
    if not opts:
        return name
    return f"{name}({','.join(f'{k}={_fmt(v)}' for k, v in opts.items())})"


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


# -- strength levels ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One strength level for one game: which agent, with how much time per move."""

    spec: str
    """Agent spec for :func:`make_agent`."""
    seconds: float | None
    """Default thinking time per move (``None``: the agent needs no budget)."""


LEVEL_SECONDS = {1: None, 2: None, 3: 0.3, 4: 1.0, 5: 3.0, 6: 3.0}
"""Default time per move of each level (level 6: level 5's time, another agent)."""

ENDGAME_LEVEL = 4
"""Levels from this one up ask the exact endgame solver first where the game declares one (``Game.solver()``)."""

DEFAULT_SEARCH = "mcts(c=0.7,rollout_cutoff=10)"
"""The search agent of levels 3–5 in a game that tunes none (``Game.level_tuning()``), and with more than
two players where the game has no ladder of its own."""


def _tuning(game: str | None) -> LevelTuning:
    """The level tuning game ``game`` declares (the default for ``None`` or a name that is no game)."""
    if game is None:
        return LevelTuning()
    try:
        return game_class(game).level_tuning()
    except ValueError:
        return LevelTuning()


def level(n: int, game: str | None = None, players: int = 2) -> Level:
    """The agent spec and default seconds per move of strength level ``n`` (1–6) in ``game``.

    1: greedy that plays a random move half of the time; 2: greedy;
    3: the game's search agent at 0.3 s; 4: the same at 1 s; 5: the game's best
    agent at about 3 s (each game's choice: ``Game.level_tuning()``, declared beside its
    rules).  6: the game's level-6 agent (``LevelTuning.level6``) at level 5's time, only where the
    game's stored SPRT accepted it against level 5 (:func:`tessera.agents.evidence.check_level`; else
    ``ValueError``, as for any other ``n``).  With more than two ``players`` a game may have a ladder of
    its own (four-player Nymbat: random, noisy greedy, greedy, then ``turns`` at 8 and 40 iterations per turn,
    with the level's time as an upper bound); else levels 3–5 there use the default search.

    >>> level(3, "nume")
    Level(spec='mcts(c=0.7,rollout_cutoff=0,sample=8)', seconds=0.3)
    >>> level(5, "nymbat", players=4)
    Level(spec='turns(limit=40)', seconds=3.0)
    """
    check_level(n, game, players)
    tuning = _tuning(game)
    if n == EVIDENCE_LEVEL:
        assert tuning.level6 is not None  # check_level offers level 6 only where it is declared
        return Level(tuning.level6, LEVEL_SECONDS[n])
    if players > 2 and tuning.many_players:
        spec = tuning.many_players[n]
        search = not spec.startswith(("random", "greedy"))
        return Level(spec, LEVEL_SECONDS[n] if search else None)
    if n == 1:
        return Level("greedy(noise=0.5)", None)
    if n == 2:
        return Level("greedy", None)
    spec = tuning.search or DEFAULT_SEARCH
    if n == 5:
        spec = tuning.level5 or spec
    if players > 2:
        spec = DEFAULT_SEARCH
    return Level(spec, LEVEL_SECONDS[n])


def level_key(state: State) -> str:
    """The key a :class:`LevelAgent` files its per-game agent under (``nymbat``, ``nymbat/4``)."""
    n = state.game.num_players
    return state.game.name if n == 2 else f"{state.game.name}/{n}"


COMPILED_OPTIONS = ("c", "widen", "wide", "pw_k", "pw_alpha", "reuse", "seed")
"""The options of a level's ``mcts`` spec that its compiled tree takes over (``sample`` and a rollout
cut-off need the game's ``evaluate``, which the kernel contract does not have)."""


def compiled_spec(spec: str) -> str:
    """A level's search on the compiled tree: ``mcts(...)``'s UCT options with random rollouts to the end
    (``rollout_cutoff=-1``); any other search (alpha-beta, whole turns) becomes ``mcts_compiled`` with
    the default search's ``c``.

    >>> compiled_spec("mcts(c=0.7,rollout_cutoff=0,sample=8)")
    'mcts_compiled(c=0.7,rollout_cutoff=-1)'
    >>> compiled_spec("alphabeta")
    'mcts_compiled(c=0.7,rollout_cutoff=-1)'
    """
    name, opts = parse_spec(spec)
    if name != "mcts":
        name, opts = parse_spec(DEFAULT_SEARCH)
    kept = {k: v for k, v in opts.items() if k in COMPILED_OPTIONS}
    kept["rollout_cutoff"] = -1
    return _canonical("mcts_compiled", kept)


class LevelAgent(Agent):
    """Strength level ``n`` (1–6): the per-game agent of :func:`level` with its default time (level 6:
    ``ValueError`` for a game that does not offer it, when the game is known: at once with ``game``,
    else at the first position of such a game).

    An explicit ``seconds``/``iterations`` passed to ``choose`` overrides the
    level's default time; ``scale`` multiplies it (``level5(scale=0.1)``: the
    level's agent at a tenth of its time, for quick ladder checks).
    """

    def __init__(
        self, n: int, game: str | None = None, seed: int | None = None, scale: float = 1.0, tree: str = "python"
    ) -> None:
        super().__init__(seed)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= EVIDENCE_LEVEL:
            raise ValueError(f"strength level must be an integer from 1 to {EVIDENCE_LEVEL}, not {n!r}")
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0 < scale <= 100:
            raise ValueError(f"level: scale must be a number above 0 and at most 100, not {scale!r}")
        if tree not in ("python", "compiled"):
            raise ValueError(f"level: tree must be 'python' or 'compiled', not {tree!r}")
        if tree == "compiled" and n == EVIDENCE_LEVEL:
            raise ValueError("level 6 is its game's own agent (LevelTuning.level6): it has no compiled-tree form")
        self.tree = tree
        self.scale = float(scale)
        self.n = n
        self.game = game
        self.seed = seed
        opts = (
            ([f"game={game}"] if game is not None else [])
            + ([f"scale={scale:g}"] if scale != 1.0 else [])
            + ([f"tree={tree}"] if tree != "python" else [])
        )
        self.name = f"level{n}" + (f"({','.join(opts)})" if opts else "")
        self._inner: dict[str, Agent] = {}
        if game is not None:
            self._agent_for(game)

    def _agent_for(self, game: str, players: int = 2) -> Agent:
        key = game if players == 2 else f"{game}/{players}"
        if key not in self._inner:
            lv = level(self.n, game, players)
            agent = make_agent(compiled_spec(lv.spec) if self.tree == "compiled" else lv.spec)
            agent.default_seconds = None if lv.seconds is None else lv.seconds * self.scale
            agent.rng = self.rng
            if self.n >= ENDGAME_LEVEL and players == 2:
                agent = with_endgame(agent, game)  # the exact solver first near the end (tessera.agents.endgame)
            self._inner[key] = agent
        return self._inner[key]

    @property
    def default_seconds(self) -> float | None:  # type: ignore[override]
        s = LEVEL_SECONDS[self.n]
        return None if s is None else s * self.scale

    @default_seconds.setter
    def default_seconds(self, value: float | None) -> None:
        pass

    def _choose(self, state: State, budget: Budget, rng: Any) -> Action:
        inner = self._agent_for(state.game.name, state.game.num_players)
        out = inner._choose(state, budget, rng)
        self.stats = inner.stats
        return out

    def _choose_order(self, state: State, player: int, budget: Budget, rng: Any) -> str:
        inner = self._agent_for(state.game.name, state.game.num_players)
        out = inner._choose_order(state, player, budget, rng)
        self.stats = inner.stats
        return out

    def reset(self) -> None:
        for a in self._inner.values():
            a.reset()


def check_offered(agent: Agent, game: str, players: int = 2) -> None:
    """Raise ``ValueError`` when ``agent`` is a strength level not offered in ``game`` with ``players``
    seats (level 6 without its evidence, :func:`tessera.agents.evidence.check_level`); other agents pass.
    ``tessera match`` and ``tessera play`` call it before the first game."""
    inner = getattr(agent, "inner", None)  # an army wrapper (tessera.agents.army) holds its agent here
    target = inner if isinstance(inner, LevelAgent) else agent
    if isinstance(target, LevelAgent):
        check_level(target.n, game, players)


__all__ = [
    "AGENT_OPTIONS",
    "LEVEL_SECONDS",
    "Level",
    "LevelAgent",
    "check_offered",
    "compiled_spec",
    "level",
    "level_key",
    "make_agent",
    "parse_spec",
]
