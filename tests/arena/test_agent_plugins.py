"""Agent kinds offered by installed packages (entry-point group ``tessera.agents``): the arena makes them
by name, and imports nothing of a package until one of its agents is asked for."""

from __future__ import annotations

from importlib import metadata

import pytest

from tessera.agents import Agent, RandomAgent
from tessera.arena import play
from tessera.core import registry

made: list[str] = []


def factory(spec: str) -> Agent:
    """A package's agent factory: the agent of its spec string."""
    made.append(spec)
    agent = RandomAgent()
    agent.name = spec
    return agent


def not_an_agent(spec: str) -> object:
    return spec


def _offer(monkeypatch: pytest.MonkeyPatch, **entries: str) -> None:
    offered = {name: metadata.EntryPoint(name, value, play.AGENT_ENTRY_POINTS) for name, value in entries.items()}
    real = registry.plugins

    def plugins(group: str) -> dict[str, metadata.EntryPoint]:
        return offered if group == play.AGENT_ENTRY_POINTS else real(group)

    monkeypatch.setattr(play, "plugins", plugins)


def test_an_offered_agent_kind_is_made_by_its_packages_factory_with_the_whole_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _offer(monkeypatch, **{"my-bot": f"{__name__}:factory"})
    made.clear()
    agent = play.make("My_Bot(depth=3)")
    assert made == ["My_Bot(depth=3)"] and agent.name == "My_Bot(depth=3)"
    assert play.make("random").name == "random"  # the built-in kinds are unchanged
    assert made == ["My_Bot(depth=3)"]


def test_an_offered_kind_that_cannot_be_imported_says_which_extra_brings_it(monkeypatch: pytest.MonkeyPatch) -> None:
    _offer(monkeypatch, **{"far-bot": "tessera_no_such_module.bots:make [far]"})
    with pytest.raises(ValueError, match=r"agent 'far-bot' needs: pip install 'tessera_no_such_module\[far\]'"):
        play.make("far-bot")


def test_a_factory_that_makes_no_agent_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _offer(monkeypatch, **{"odd": f"{__name__}:not_an_agent"})
    with pytest.raises(ValueError, match="made str, not an Agent"):
        play.make("odd")


def test_openspiel_mcts_is_offered_by_tesseras_own_entry_point() -> None:
    """The research adapters' agent reaches the arena through the package's metadata, not an import."""
    registry.refresh_plugins()
    ep = registry.plugins(play.AGENT_ENTRY_POINTS)["openspiel-mcts"]
    assert ep.value == "tessera.adapters.openspiel_agents:make_openspiel_agent [openspiel]"
    pytest.importorskip("pyspiel")
    assert type(play.make("openspiel_mcts(seed=1)")).__name__ == "OpenSpielMCTSAgent"
