"""Texts that carry their translation key: what the games and the server write for people.

A :class:`Text` is the English sentence itself (a ``str``: records, the terminal and the
API's English fields read it unchanged) that also knows its catalogue key and the
arguments the sentence was built from, so that a client can write it in the reader's
language.  The keys live in the client's ``engine`` catalogue (one per language); an
argument is a number, a plain string (a cell label, a move), another :class:`Text`
(a player's or a colour's name, a nested sentence) or a list of those.

>>> t = Text("status.to_move", "Red to move", name=name_text("Red"))
>>> t, t.key
('Red to move', 'status.to_move')
>>> t.as_json()["args"]
{'name': {'key': 'names.red', 'args': {}, 'text': 'Red'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any


class Text(str):
    """An English text with its catalogue ``key`` and ``args`` (see the module)."""

    key: str
    args: dict[str, Any]
    _json: dict[str, Any] | None

    def __new__(cls, key: str, english: str, /, **args: Any) -> Text:
        self = super().__new__(cls, english)
        self.key = key
        self.args = args
        self._json = None
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, str, dict[str, Any]]]:
        return (_rebuild, (self.key, str(self), self.args))  # sent between processes (a worker's refusal)

    def as_json(self) -> dict[str, Any]:
        """``{"key", "args", "text"}`` with every argument JSON-able (nested texts the same way).

        Built once per text and shared (a player's name appears in many places of a render):
        callers do not change it."""
        if self._json is None:
            self._json = {"key": self.key, "args": json_args(self.args), "text": str(self)}
        return self._json


def _rebuild(key: str, english: str, args: dict[str, Any]) -> Text:
    return Text(key, english, **args)


def json_value(v: Any) -> Any:
    """An argument as JSON: a nested text as ``{"key", "args", "text"}``, a list item by item."""
    if isinstance(v, Text):
        return v.as_json()
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, str):
        return str(v)
    return v


def json_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of a text as JSON (:func:`json_value` of each)."""
    return {k: json_value(v) for k, v in args.items()}


@lru_cache(maxsize=256)
def name_text(name: str) -> Text:
    """A player's name (``"Red"``, ``"Black"``, ``"First"`` …) with its key ``names.<name>``
    (``"Player 1"``: ``names.player_n`` with ``n``)."""
    head, _, number = name.partition(" ")
    if head == "Player" and number.isdigit():
        return Text("names.player_n", name, n=int(number))
    return Text(f"names.{name.lower()}", name)


@lru_cache(maxsize=256)
def colour_text(word: str) -> Text:
    """A colour word (Nibble's ``"cyan"`` …) with its key ``colours.<word>``."""
    return Text(f"colours.{word.lower()}", word)


def keyed(text: str) -> dict[str, Any]:
    """``{"key", "args"}`` of a :class:`Text` (``{}`` for a plain string): merged into a JSON object."""
    if isinstance(text, Text):
        return {"key": text.key, "args": text.as_json()["args"]}
    return {}


def outcome(reason: str, text: str) -> dict[str, Any]:
    """A game's :meth:`~tessera.core.game.State.outcome`: ``reason``, the English ``text`` and its key and args."""
    return {"reason": reason, "text": str(text), **keyed(text)}


def expand(d: dict[str, Any], field: str) -> None:
    """Where ``d[field]`` is a :class:`Text`: a plain string there, and its key and args beside it
    (``<field>_key``, ``<field>_args``), as render descriptions carry them (docs/render.md)."""
    v = d.get(field)
    if isinstance(v, Text):
        d[field] = str(v)
        d[f"{field}_key"] = v.key
        d[f"{field}_args"] = v.as_json()["args"]
