"""Level 6 where the evidence says so: a game's stored SPRT of its level-6 agent against level 5.

A game may declare a level-6 agent beside its rules (``LevelTuning.level6``, e.g. Nymbat's
``learned(game=nymbat)``) and the directory of the sequential test that measured it against level 5
(``LevelTuning.level6_sprt``: a folder of ``studies/sprt/`` holding the ``results.jsonl`` that
``tessera match A level5 --sprt ELO0,ELO1 --out DIR`` writes).  Level 6 is **offered** — by
:func:`tessera.agents.spec.level`, ``tessera play``/``match``, the server's AI seats and accounts, the
lobby — only when that file, re-read here, says so:

* its header is an SPRT (``"kind": "sprt"``) of this game's default variant between the declared
  agent (A) and level 5 (B), with ``elo0 >= 0`` (H1 then says A is stronger than level 5);
* the test recomputed from its games (:class:`tessera.core.kits.sprt.SPRT` on the pentanomial counts of
  the pairs, or the trinomial counts of single games where the run was not paired) accepts **H1**.

Nothing here stores a verdict: a results file that has not reached H1 yet (or reached H0) leaves the
game at level 5.  The directory searched is ``studies/sprt`` of the source tree, or the one named by
the environment variable :data:`SPRT_DIR_ENV` (tests point it at a fixture directory); every function
also takes ``directory``.  Files are re-read when they change (modification time and size).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from tessera.core.kits.levels import LevelTuning
from tessera.core.kits.sprt import PENTANOMIAL, SPRT, TRINOMIAL, score_to_elo
from tessera.core.registry import game_class

SPRT_DIR_ENV = "TESSERA_SPRT_DIR"
"""Environment variable naming the directory of stored SPRT runs (default: ``studies/sprt`` of the source tree)."""

RESULTS_FILE = "results.jsonl"
"""The file of an SPRT run's directory (as ``tessera.arena.runner.RESULTS_FILE``)."""

TOP_WITHOUT_EVIDENCE = 5
"""The top level of a game whose level 6 is not (yet) shown stronger than level 5."""

EVIDENCE_LEVEL = 6
"""The level that needs evidence to be offered."""


def sprt_dir(directory: str | os.PathLike[str] | None = None) -> Path:
    """The directory of stored SPRT runs: ``directory``, else ``$TESSERA_SPRT_DIR``, else the source
    tree's ``studies/sprt`` (which an installed package without the studies does not have: no level 6)."""
    if directory is not None:
        return Path(directory)
    env = os.environ.get(SPRT_DIR_ENV)
    if env:
        return Path(env)
    return _SOURCE_SPRT_DIR


_SOURCE_SPRT_DIR = Path(__file__).resolve().parents[2] / "studies" / "sprt"
"""The source tree's ``studies/sprt``, resolved once (resolving the path touches every folder of it:
about 0.7 ms a call on this machine, twice in every catalogue request before)."""


@dataclass(frozen=True)
class Evidence:
    """A stored SPRT of agent A against agent B in one game, re-read from its games."""

    path: Path
    """The ``results.jsonl`` read."""
    game: str
    """The game spec of the run (``nymbat``)."""
    agents: tuple[str, str]
    """A's and B's specs as the run's header gives them."""
    test: SPRT
    """The hypotheses and error rates of the run."""
    model: str
    """``pentanomial`` (pairs, seats swapped) or ``trinomial`` (single games)."""
    counts: tuple[int, ...]
    """A's pair scores 0, ½, 1, 1½, 2 (pentanomial) or loss/draw/win counts (trinomial)."""
    llr: float
    """The log-likelihood ratio of H1 to H0 after these games."""
    verdict: str | None
    """``H1``, ``H0``, or ``None`` (still between the bounds)."""
    wins: int
    draws: int
    losses: int
    seconds: float | None
    """Seconds per move the run gave each agent (``None``: iterations)."""
    clock: str
    """``cpu`` or ``wall``."""

    @property
    def games(self) -> int:
        """Games read (both games of an incomplete last pair included)."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's mean score over the games (½ with none)."""
        return 0.5 if not self.games else (self.wins + 0.5 * self.draws) / self.games

    def public(self) -> dict[str, object]:
        """What the catalogue shows of it: ``{"games", "wins", "draws", "losses", "llr", "bounds",
        "elo0", "elo1", "verdict", "seconds", "clock", "elo"}`` (``elo``: the logistic Elo of A's mean
        score, ``None`` when infinite, e.g. every game won)."""
        e = score_to_elo(self.score)
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "llr": round(self.llr, 2),
            "bounds": [round(self.test.lower, 2), round(self.test.upper, 2)],
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "verdict": self.verdict,
            "seconds": self.seconds,
            "clock": self.clock,
            "elo": round(e) if math.isfinite(e) else None,
        }


def _score(returns: list[float], seat: int, offender: int | None) -> float:
    """A seat's score in one game: 1 a win (return above every other), 0 a loss or the offender, else ½
    (as ``tessera.arena.play.GameResult.score``)."""
    if offender is not None and seat == offender:
        return 0.0
    best = max(returns)
    winners = [i for i, r in enumerate(returns) if r == best]
    if len(winners) != 1:
        return 0.5
    return 1.0 if winners[0] == seat else 0.0


def read_sprt(path: str | os.PathLike[str]) -> Evidence:
    """The SPRT run of ``path`` (a ``results.jsonl``) recomputed from its games.

    Agent A sits in seat ``key % 2`` of game ``key`` (the arena's alternation); a pair is games ``2k``
    and ``2k + 1``.  Raises ``ValueError`` for a file that is not an SPRT results file (no header,
    another kind, a malformed line) and ``OSError`` when it cannot be read.
    """
    p = Path(path)
    lines = p.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0])["header"]
        if header.get("kind") != "sprt":
            raise ValueError(f"{p} is not an SPRT run (kind {header.get('kind')!r})")
        elo0, elo1, alpha, beta = (float(x) for x in header["sprt"])
        agents = (str(header["agents"][0]), str(header["agents"][1]))
        game = str(header["game"])
        paired = bool(header.get("paired", True))
    except (IndexError, KeyError, TypeError, json.JSONDecodeError) as e:
        raise ValueError(f"{p} is not an SPRT results file: {e!r}") from None
    test = SPRT(elo0, elo1, alpha, beta)
    scores: dict[int, float] = {}
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if d.get("error") or "session" in d:
                continue  # a game that failed is not a result (the arena plays it again on resuming); nor is
                # a session line (which code played the games after it)
            key = int(d["key"])
            scores[key] = _score([float(x) for x in d["returns"]], key % 2, d.get("offender"))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{p}:{n}: not a game record: {e!r}") from None
    values = list(scores.values())
    wins, draws, losses = values.count(1.0), values.count(0.5), values.count(0.0)
    outcomes: tuple[float, ...]
    if paired:
        counts = [0] * len(PENTANOMIAL)
        for k in sorted(scores):
            if k % 2 == 0 and k + 1 in scores:
                counts[round((scores[k] + scores[k + 1]) * 2)] += 1
        model, outcomes = "pentanomial", PENTANOMIAL
    else:  # single games
        counts = [losses, draws, wins]
        model, outcomes = "trinomial", TRINOMIAL
    llr = test.llr(counts, outcomes)
    verdict = test.verdict(counts, outcomes)
    seconds = header.get("seconds")
    return Evidence(
        p,
        game,
        agents,
        test,
        model,
        tuple(counts),
        llr,
        verdict,
        wins,
        draws,
        losses,
        None if seconds is None else float(seconds),
        str(header.get("clock", "wall")),
    )


_CACHE: dict[Path, tuple[tuple[int, int], Evidence]] = {}
_LOCK = threading.Lock()


def _cached(path: Path) -> Evidence | None:
    """:func:`read_sprt` of ``path``, re-read when it changes; ``None`` when it is missing or unreadable."""
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    with _LOCK:
        hit = _CACHE.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    try:
        ev = read_sprt(path)
    except (OSError, ValueError):
        return None
    with _LOCK:
        _CACHE[path] = (stamp, ev)
    return ev


def _tuning(game: str) -> LevelTuning:
    return game_class(game).level_tuning()


def _is_level5(spec: str) -> bool:
    """Whether an agent spec names level 5 on its own tree (``level5``, ``level(5)``, ``level5(game=nymbat)``,
    ``level5(scale=0.1)``: at full time or scaled, the run's seconds say which)."""
    key = _agent_key(spec)
    return bool(re.fullmatch(r"level5(\(.*\))?|level\((n=)?5(,.*)?\)", key)) and "tree=" not in key


def _agent_key(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower()


def level6_evidence(game: str, directory: str | os.PathLike[str] | None = None) -> Evidence | None:
    """The stored SPRT that offers level 6 in ``game`` (a game name), or ``None`` when there is none.

    ``None`` when the game declares no level-6 agent or test directory, the file is missing or
    unreadable, its header is another game's or another pair's (A must be the declared agent, B level
    5), its ``elo0`` is below 0, or its verdict recomputed from the games is not H1.  ``ValueError`` for a
    name that is no game.
    """
    tuning = _tuning(game)
    if not tuning.level6 or not tuning.level6_sprt:
        return None
    ev = _cached(sprt_dir(directory) / tuning.level6_sprt / RESULTS_FILE)
    if ev is None:
        return None
    if ev.game.split("(")[0].strip().lower() != game or "(" in ev.game:
        return None
    if _agent_key(ev.agents[0]) != _agent_key(tuning.level6) or not _is_level5(ev.agents[1]):
        return None
    if ev.test.elo0 < 0 or ev.verdict != "H1":
        return None
    return ev


def top_level(game: str | None, players: int = 2, directory: str | os.PathLike[str] | None = None) -> int:
    """The highest strength level offered in ``game`` with ``players`` seats: 6 where its stored SPRT
    accepted the level-6 agent against level 5 (two players only), else 5.  ``None`` or a name that is no
    game: 5."""
    if game is None or players != 2:
        return TOP_WITHOUT_EVIDENCE
    try:
        found = level6_evidence(game, directory)
    except ValueError:
        return TOP_WITHOUT_EVIDENCE
    return EVIDENCE_LEVEL if found is not None else TOP_WITHOUT_EVIDENCE


def offered_levels(game: str | None, players: int = 2, directory: str | os.PathLike[str] | None = None) -> list[int]:
    """The strength levels offered in ``game`` with ``players`` seats: ``[1, …, top_level(...)]``."""
    return list(range(1, top_level(game, players, directory) + 1))


def check_level(n: int, game: str | None, players: int = 2, directory: str | os.PathLike[str] | None = None) -> None:
    """Raise ``ValueError`` (with the reason) unless strength level ``n`` is offered in ``game``."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= EVIDENCE_LEVEL:
        raise ValueError(f"strength level must be an integer from 1 to {EVIDENCE_LEVEL}, not {n!r}")
    if n < EVIDENCE_LEVEL:
        return
    if game is None:
        raise ValueError("level 6 exists only per game: name the game (level 6 is offered where an SPRT shows it)")
    top = top_level(game, players, directory)
    if n > top:
        where = f"{game}" if players == 2 else f"{game} with {players} players"
        raise ValueError(
            f"level 6 is not offered in {where}: its top level is 5 (level 6 is offered only where a stored "
            "sequential test, studies/sprt/, accepted it against level 5)"
        )


__all__ = [
    "EVIDENCE_LEVEL",
    "RESULTS_FILE",
    "SPRT_DIR_ENV",
    "TOP_WITHOUT_EVIDENCE",
    "Evidence",
    "check_level",
    "level6_evidence",
    "offered_levels",
    "read_sprt",
    "sprt_dir",
    "top_level",
]
