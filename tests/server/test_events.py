"""The event interface (``server/events.py``): each subscriber hears the events it subscribed to."""

from __future__ import annotations

import pytest

from tessera.server.events import AccountChanged, Changed, Events, Resync, Thinking


def test_a_subscriber_is_called_only_for_the_kinds_and_field_values_it_subscribed_to() -> None:
    """``subscribe``: "only for events of the classes ``kinds`` … and only for events whose fields have
    the values ``where`` gives" — a hot-seat move (no AI seat, not finished) calls neither the AI
    worker's kind of subscriber nor the rating of ended games'; an unfiltered one hears everything."""
    events = Events()
    heard: dict[str, list[object]] = {"all": [], "ai": [], "ended": [], "accounts": []}
    events.subscribe(heard["all"].append)
    events.subscribe(heard["ai"].append, Changed, where={"local": True, "ai": True})
    events.subscribe(heard["ended"].append, Changed, where={"local": True, "finished": True})
    events.subscribe(heard["accounts"].append, AccountChanged, Resync)
    hotseat_move = Changed("g", local=True, ai=False, clock=False, finished=False)
    ai_move = Changed("g", local=True, ai=True, clock=False, finished=False)
    remote_end = Changed("g", local=False)
    last_move = Changed("g", local=True, ai=False, finished=True)
    sent = [hotseat_move, ai_move, remote_end, last_move, AccountChanged("u"), Resync(), Thinking("g", None)]
    for e in sent:
        events.publish(e)
    assert heard["all"] == sent
    assert heard["ai"] == [ai_move]
    assert heard["ended"] == [last_move]
    assert heard["accounts"] == [AccountChanged("u"), Resync()]


def test_a_filter_on_a_field_the_events_do_not_have_is_refused() -> None:
    """A ``where`` no event of the kinds can match would silence its subscriber: refused at once."""
    events = Events()
    with pytest.raises(ValueError, match="finished"):
        events.subscribe(print, AccountChanged, where={"finished": True})
    with pytest.raises(ValueError, match="local"):
        events.subscribe(print, where={"local": True})


def test_a_failing_subscriber_costs_the_others_nothing() -> None:
    """ "one subscriber's failure must not cost the others their notice"."""
    events = Events()
    heard: list[object] = []

    def broken(_: object) -> None:
        raise RuntimeError("boom")

    events.subscribe(broken, Changed)
    events.subscribe(heard.append, Changed)
    events.publish(Changed("g"))
    assert heard == [Changed("g")]
