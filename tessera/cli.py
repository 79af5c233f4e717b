"""The ``tessera`` command: list, rules, play, bench — plus match, serve, tournament and balance.

``match``, ``tournament`` and ``balance`` come from :mod:`tessera.arena.cli`,
``serve`` from :mod:`tessera.server.cli`; each registers its own sub-commands, so
this module stays small and the core CLI needs no optional dependency.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import tessera
from tessera.arena.cli import joined_negative_values
from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.registry import game_class

PLUGINS = ("tessera.arena.cli", "tessera.server.cli", "tessera.arena.train", "tessera.puzzles.cli")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tessera`` command."""
    parser = build_parser()
    args = parser.parse_args(joined_negative_values(sys.argv[1:] if argv is None else list(argv)))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except ValueError as e:  # bad game names or parameters: say what was wrong
        print(f"tessera: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(prog="tessera", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tessera {tessera.__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    p = sub.add_parser("list", help="list the games and their parameters")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("rules", help="print the rules of a game")
    p.add_argument("game", help="game name, e.g. nume")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("play", help="play in the terminal: two humans, or against a bot")
    p.add_argument("game", help='game, e.g. ikabegama or "nume(size=3)"')
    p.add_argument("--vs", default=None, help="opponent: random, or an agent spec (greedy, mcts, level3 …)")
    p.add_argument("--as", dest="seat", type=int, default=0, help="your seat against a bot (default 0)")
    p.add_argument("--seed", type=int, default=None, help="seed for the deal and the bot")
    p.add_argument("--seconds", type=float, default=1.0, help="bot thinking time per move")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("bench", help="random-playout throughput of a game")
    p.add_argument("game", help='game, e.g. ikabegama or "nume(size=6)"')
    p.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per mode (default 5)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("bot", help="play on a tessera server through its bot API (docs/bot-api.md)")
    p.add_argument("--server", required=True, help="the server's address, e.g. https://tessera.example")
    p.add_argument("--token", required=True, help="a personal API token of a bot account (scopes bot:play, challenge)")
    p.add_argument("--agent", default="greedy", help="an agent spec (greedy, mcts, level3 …) or module:function")
    p.add_argument("--seconds", type=float, default=None, help="thinking time per move (default: the agent's)")
    p.add_argument("--accept", default="all", help="games to accept challenges for, e.g. nume,nibble (default all)")
    p.add_argument("--rated", choices=("any", "rated", "casual"), default="any", help="rated or casual challenges")
    p.add_argument("--opponents", choices=("any", "bots", "people"), default="any", help="who may challenge")
    p.add_argument("--min-initial", type=float, default=None, help="least clock time per game (s) accepted")
    p.add_argument("--max-initial", type=float, default=None, help="most clock time per game (s) accepted")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--log-dir", default=None, help="write each game as JSON into this directory")
    p.add_argument("--log-level", default="info", help="debug, info (default), warning")
    p.set_defaults(func=cmd_bot)

    for name in PLUGINS:
        _load_plugin(sub, name)
    return parser


def cmd_bot(args: argparse.Namespace) -> int:
    """``tessera bot``: the bot API's reference client (tessera.botclient)."""
    import logging

    try:
        from tessera.botclient.client import main as bot_main
    except ModuleNotFoundError as e:
        print(f"tessera bot: the Python package {e.name!r} is missing: pip install 'tessera[bot]'", file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    if args.concurrency < 1:
        raise ValueError("--concurrency is 1 or more")
    return bot_main(args)


def _load_plugin(sub: Any, module: str) -> None:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (e.name == module or module.startswith(e.name + ".")):
            return  # not part of this installation
        missing = e.name
        commands = {"tessera.arena.cli": ["match", "tournament", "balance"]}.get(module, ["serve", "admin"])
        extra = "lab" if module == "tessera.arena.cli" else "server"
        for command in commands:
            p = sub.add_parser(command, help=f"(needs {missing}: pip install 'tessera[{extra}]')")

            def explain(args: argparse.Namespace, command: str = command) -> int:
                print(
                    f"tessera {command}: the Python package {missing!r} is missing; "
                    f"install the extras: pip install -e '.[{extra}]'",
                    file=sys.stderr,
                )
                return 2

            p.set_defaults(func=explain)
        return
    mod.register(sub)


# -- list / rules -------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = []
    for name in tessera.list_games():
        info = game_class(name).info
        rows.append(
            {
                "name": name,
                "title": info.title,
                "players": info.num_players,
                "dynamics": info.dynamics,
                "params": {p.name: p.default for p in info.params},
                "examples": list(info.examples),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        params = ", ".join(f"{k}={v!r}" for k, v in r["params"].items())
        print(f"{r['name']:<10} {r['title']:<10} {r['dynamics']:<12} {params}")
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    game = tessera.load_game(args.game)
    info = game.info
    print(f"{info.title} (tessera game {info.name!r}, rules version {info.version})")
    if info.designer:
        print(f"Designer/source: {info.designer}")
    print()
    print(_dedent(info.summary).strip())
    print("\nParameters:")
    for p in info.params:
        print(f"  {p.name:<14} default {p.default!r:<10} {p.accepted():<28} {p.doc}")
    return 0


def _dedent(text: str) -> str:
    import textwrap

    first, _, rest = text.partition("\n")
    return first + "\n" + textwrap.dedent(rest)


# -- play ---------------------------------------------------------------------------------


def _bot(spec: str, seconds: float, game: Game) -> Callable[[State, random.Random, int], str]:
    """A move chooser for ``spec`` in ``game``: ``random`` or any tessera.agents spec (``ValueError`` for a
    bad spec, or a strength level the game does not offer, e.g. level 6 without its SPRT)."""
    if spec == "random":
        return lambda state, rng, player: state.random_move(rng, player)
    from tessera.agents import make_agent  # optional: the agents package
    from tessera.agents.spec import check_offered

    agent = make_agent(spec)
    check_offered(agent, game.name, game.num_players)

    def choose(state: State, rng: random.Random, player: int) -> str:
        simultaneous = state.current_player() == SIMULTANEOUS
        return agent.choose_move(state, seconds=seconds, rng=rng, player=player if simultaneous else None)

    return choose


def cmd_play(args: argparse.Namespace) -> int:
    game = tessera.load_game(args.game)
    state = game.new_initial_state(seed=args.seed)
    rng = random.Random(args.seed)
    bot = _bot(args.vs, args.seconds, game) if args.vs else None
    names = game.player_names
    print(f"{game.info.title}: type a move, 'moves' to list the legal ones, 'quit' to stop.")
    while not state.is_terminal():
        print()
        print(state)
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            orders = []
            for p in range(game.num_players):
                if bot and p != args.seat:
                    orders.append(bot(state, rng, p))
                else:
                    orders.append(_ask(state, f"{names[p]}'s order (hidden from the other)", p))
            try:
                state.play_joint(orders)
            except IllegalMove as e:
                print(f"illegal: {e}")
            continue
        if bot and cp != args.seat:
            move = bot(state, rng, cp)
            print(f"{names[cp]} plays {move}")
            state.play(move)
            continue
        move = _ask(state, f"{names[cp]} to move", cp)
        try:
            state.play(move)
        except IllegalMove as e:
            print(f"illegal: {e}")
    print()
    print(state)
    w = state.winner()
    print("Result:", "draw" if w is None else f"{names[w]} wins", "| scores:", state.scores())
    return 0


def _ask(state: State, prompt: str, player: int) -> str:
    while True:
        try:
            text = input(f"{prompt}> ").strip()
        except EOFError:
            raise SystemExit(0) from None
        if text == "quit":
            raise SystemExit(0)
        if text == "moves":
            moves = state.legal_moves(player)
            print(" ".join(moves[:400]) + (f" … ({len(moves)} in all)" if len(moves) > 400 else ""))
            if not moves and hasattr(state, "troop_options"):
                print(state.troop_options(player))
            continue
        if text:
            return text


# -- bench --------------------------------------------------------------------------------


def bench(game: Game, seconds: float, seed: int, mode: str) -> dict[str, float]:
    """Random playouts for ``seconds`` of this process's CPU time: ``list`` picks from
    ``legal_actions()``, ``rollout`` uses the game's ``random_action`` sampler, both one
    checked ``apply_action`` per ply; ``batch`` plays 64 games a call with ``State.rollouts``
    (the game's rollout kernel, what MCTS leaves use).

    Rates are per CPU second (``time.process_time``: time other processes take on a
    loaded machine is not counted); the wall-clock rates are given beside them.
    """
    rng = random.Random(seed)
    games = plies = 0
    start_cpu = time.process_time()
    start_wall = time.perf_counter()
    deadline = start_cpu + seconds
    while time.process_time() < deadline or games == 0:
        state = game.new_initial_state(seed=rng.randrange(2**31))
        if mode == "batch":
            res = state.rollouts(64, rng.getrandbits(63))
            games += res.n
            plies += res.plies
            continue
        while True:
            cp = state.current_player()
            if cp == TERMINAL:
                break
            if cp == SIMULTANEOUS:
                state.play_joint([state.random_move(rng, p) for p in range(game.num_players)])
            elif mode == "list":
                state.apply_action(rng.choice(state.legal_actions()))
            else:
                state.apply_action(state.random_action(rng))
            plies += 1
        games += 1
    cpu = max(time.process_time() - start_cpu, 1e-9)
    wall = max(time.perf_counter() - start_wall, 1e-9)
    return {
        "games": games,
        "plies": plies,
        "seconds": round(cpu, 3),
        "wall_seconds": round(wall, 3),
        "games_per_s": round(games / cpu, 2),
        "plies_per_s": round(plies / cpu, 1),
        "wall_games_per_s": round(games / wall, 2),
        "wall_plies_per_s": round(plies / wall, 1),
        "mean_length": round(plies / games, 1),
    }


def cmd_bench(args: argparse.Namespace) -> int:
    game = tessera.load_game(args.game)
    result: dict[str, Any] = {
        "game": str(game),
        "python": sys.version.split()[0],
        "clock": "cpu",
        "list": bench(game, args.seconds, args.seed, "list"),
        "rollout": bench(game, args.seconds, args.seed, "rollout"),
        "batch": bench(game, args.seconds, args.seed, "batch"),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['game']} — random playouts, {args.seconds:g} CPU s per mode, Python {result['python']} "
        "(per CPU second; wall clock in brackets)"
    )
    for mode in ("list", "rollout", "batch"):
        r = result[mode]
        print(
            f"  {mode:<8} {r['games_per_s']:>9.2f} games/s ({r['wall_games_per_s']:.2f})"
            f"  {r['plies_per_s']:>11.1f} plies/s ({r['wall_plies_per_s']:.1f})"
            f"  ({r['games']} games, mean length {r['mean_length']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
