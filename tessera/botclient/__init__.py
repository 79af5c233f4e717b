"""The reference client of the bot API (docs/bot-api.md): ``tessera bot --server URL --token T
--agent SPEC``.

It plays any tessera agent spec (``greedy``, ``mcts(c=0.7)``, ``level3`` …) or a Python callable
``module:function`` that takes a position (a :class:`tessera.core.game.State`, and the seat when
it accepts two arguments) and returns a move string or an action — so a policy trained through
the OpenSpiel, PettingZoo or Gymnasium adapters plays on a server.  It answers challenges by
rule (:class:`AcceptRules`), plays several games at once, reconnects after a dropped stream and
resumes its games, obeys ``429`` / ``Retry-After``, sends one request at a time, and logs each
game.  A client of the server over HTTP (``httpx``): it imports no server code.
"""

from tessera.botclient.client import AcceptRules, Api, BotClient, GameRunner, load_player

__all__ = ["AcceptRules", "Api", "BotClient", "GameRunner", "load_player"]
