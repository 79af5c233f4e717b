"""Light moves: a view sent as its change against the viewer's previous view (docs/render.md).

A change is a list of operations that turns one JSON document (a view: plain dicts, lists,
strings, numbers, booleans and None) into another.  Each operation is a JSON array whose first
item is a *path* (an array of dict keys and list indices from the document's root):

* ``[path, value]`` — set: the item at ``path`` becomes ``value`` (``path`` ``[]``: the whole document);
* ``[path]`` — delete the dict key at ``path``;
* ``[path, start, count, items]`` — splice the list at ``path``: remove ``count`` items from
  index ``start`` and insert ``items`` there.

The operations are applied in order; the indices of each are those of the list as it is when
the operation comes (the diff lists a list's operations from its end to its start, so each
index is also the index in the old list).  The change knows nothing of any game: it is computed
from two views *of the same viewer* (a seat's or the spectators'), so it carries nothing the
viewer's own new view does not (a hidden hand, a sealed order stays where it was).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from tessera.server.http.encoding import dumps

Op = list[Any]

ALIGN_LIMIT = 400
"""Longest changed stretch of a list that is aligned item by item (longer ones are replaced whole:
the alignment's cost grows with the square of its length)."""


def diff(old: Any, new: Any) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (``[]`` when they are equal).

    ``old``, ``new``: JSON-able values (dicts with string keys, lists, scalars).  The result is
    JSON-able; :func:`apply` on a deep copy of ``old`` gives a value equal to ``new``."""
    out: list[Op] = []
    both_dicts = type(old) is dict and type(new) is dict  # (then compared key by key: no deep comparison first)
    if both_dicts or (old is not new and old != new):
        _value(old, new, [], out)
    return out


RENDER = "render"
"""The field of a view holding its render description (:func:`diff_views`)."""

Shared = dict[str, tuple[Any, Any, list[Op]]]
"""The changes of a render's fields already computed (:func:`diff_views`): by field, the old
value, the new value and the operations (kept with them: the same objects, never their copies)."""


def diff_views(old: Any, new: Any, shared: Shared) -> list[Op]:
    """:func:`diff` of two views, the operations of each field of their render taken from
    ``shared`` when that field's old and new values are the very objects a change was computed
    for (then filled in with what is computed here).

    The viewers of a game share most of their render's objects (the part every viewer sees
    alike is rendered once per version: :meth:`tessera.server.match.views.Views.render`), so the
    change of that part is computed once a move, not once per viewer.  The operations are those
    :func:`diff` gives, in its order (a field's operations depend only on its two values and its
    path, the same in every view).  The lists in ``shared`` and the result's operations are
    shared: read them, never change them."""
    if type(old) is not dict or type(new) is not dict:
        return diff(old, new)
    out: list[Op] = []
    for k in old:
        if k not in new:
            out.append([[k]])
    for k, v in new.items():
        if k not in old:
            out.append([[k], v])
            continue
        w = old[k]
        if w is v:
            continue
        if k == RENDER and type(w) is dict and type(v) is dict:
            _render(w, v, shared, out)
        elif (type(w) is dict and type(v) is dict) or not (type(w) is type(v) and w == v):
            _value(w, v, [k], out)
    return out


def _render(a: dict[str, Any], b: dict[str, Any], shared: Shared, out: list[Op]) -> None:
    """:func:`_value` of two renders (``a`` to ``b``), field by field through ``shared``."""
    for k in a:
        if k not in b:
            out.append([[RENDER, k]])
    for k, v in b.items():
        if k not in a:
            out.append([[RENDER, k], v])
            continue
        w = a[k]
        if w is v:
            continue
        kept = shared.get(k)
        if kept is not None and kept[0] is w and kept[1] is v:
            out.extend(kept[2])
            continue
        sub: list[Op] = []
        if (type(w) is dict and type(v) is dict) or not (type(w) is type(v) and w == v):
            _value(w, v, [RENDER, k], sub)
        shared[k] = (w, v, sub)
        out.extend(sub)


def _value(a: Any, b: Any, path: list[Any], out: list[Op]) -> None:
    """Append the operations turning ``a`` into ``b`` (known to differ) at ``path``."""
    ta, tb = type(a), type(b)
    if ta is dict and tb is dict:
        for k in a:
            if k not in b:
                out.append([[*path, k]])
        for k, v in b.items():
            if k not in a:
                out.append([[*path, k], v])
                continue
            w = a[k]
            if w is v:
                continue
            if (type(w) is dict and type(v) is dict) or not (type(w) is type(v) and w == v):
                _value(w, v, [*path, k], out)  # (two dicts: key by key, no deep comparison first)
    elif ta is list and tb is list:
        _list(a, b, path, out)
    else:
        out.append([path, b])


def _item(a: Any, b: Any, path: list[Any], out: list[Op]) -> None:
    """Operations for one changed list item: its own change, or the item set whole if that is shorter."""
    if type(a) is not type(b) or type(a) not in (dict, list):
        out.append([path, b])
        return
    sub: list[Op] = []
    _value(a, b, path, sub)
    if len(sub) > 1 and len(dumps(sub)) > len(dumps(b)) + 8 * len(path) + 4:
        out.append([path, b])
    else:
        out.extend(sub)


def _same(x: Any, y: Any) -> bool:
    return x is y or (type(x) is type(y) and x == y)


def _list(a: list[Any], b: list[Any], path: list[Any], out: list[Op]) -> None:
    n, m = len(a), len(b)
    lim = min(n, m)
    i = 0
    while i < lim and _same(a[i], b[i]):
        i += 1
    j = 0
    while j < lim - i and _same(a[n - 1 - j], b[m - 1 - j]):
        j += 1
    old, new = a[i : n - j], b[i : m - j]
    if len(old) == len(new):
        for k in range(len(old) - 1, -1, -1):
            if not _same(old[k], new[k]):
                _item(old[k], new[k], [*path, i + k], out)
        return
    if not old or not new or len(old) + len(new) > ALIGN_LIMIT:
        out.append([path, i, len(old), new])
        return
    keys_old = [_key(x) for x in old]
    keys_new = [_key(x) for x in new]
    ops = SequenceMatcher(None, keys_old, keys_new, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in reversed(ops):
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1 - 1, -1, -1):
                _item(old[i1 + k], new[j1 + k], [*path, i + i1 + k], out)
        else:
            out.append([path, i + i1, i2 - i1, new[j1:j2]])


def _key(x: Any) -> Any:
    """A hashable stand-in for a list item (equal items, equal keys)."""
    if type(x) in (dict, list):
        return dumps(x)
    return (type(x).__name__, x)


def apply(doc: Any, ops: list[Op]) -> Any:
    """``doc`` changed by ``ops`` (changed in place where it can be; the result is returned: a set of
    the whole document replaces it).  ``ValueError`` if an operation does not fit the document
    (a path that leads nowhere, a splice of something that is not a list)."""
    for op in ops:
        if not isinstance(op, list) or not op or not isinstance(op[0], list) or len(op) not in (1, 2, 4):
            raise ValueError(f"not a change operation: {str(op)[:80]}")
        path = op[0]
        if not path:
            if len(op) != 2:
                raise ValueError("only a set may name the whole document")
            doc = op[1]
            continue
        try:
            if len(op) == 4:
                target = doc
                for k in path:
                    target = target[k]
                if not isinstance(target, list):
                    raise ValueError(f"a splice of something that is not a list at {path}")
                target[op[1] : op[1] + op[2]] = op[3]
                continue
            parent = doc
            for k in path[:-1]:
                parent = parent[k]
            if len(op) == 1:
                del parent[path[-1]]
            else:
                parent[path[-1]] = op[1]
        except (KeyError, IndexError, TypeError) as e:
            raise ValueError(f"the operation's path {path} does not fit the document") from e
    return doc
