# mypy: disable-error-code="no-untyped-call, assignment"
"""Array rows and arrays inside kernels without numba's reference counts.

A row of a batch array (``obs[b]``) is a view that numba counts: an atomic increment of the parent's
count when it is made and a decrement when it is dropped, and every array a called (not inlined) kernel
receives is counted the same way.  In a vector engine's loop over ``B`` games these counts were most of
a step: ``perf`` put 60 % of the CPU time of Nelaxtam's engine in ``NRT_incref``/``NRT_decref``
(2026-11-30; engine 1,319 → 795 ns a game-step without them).  :func:`row` and :func:`unowned` give the
same memory as views whose *meminfo* is NULL, which numba neither counts nor frees.

They are valid only while the array they come from is alive: use them on a kernel's arguments (alive
for the whole call) or on arrays the kernel holds in a counted variable, and never return them or
keep them past the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


@intrinsic
def _row_view(typingctx: Any, arr: Any, i: Any) -> Any:
    """``arr[i]`` (a view, ``arr`` of 2 or more dimensions) without a reference count (its meminfo NULL):
    valid while ``arr`` is."""
    if not isinstance(arr, types.Array) or arr.ndim < 2:
        return None
    rty = arr.copy(ndim=arr.ndim - 1, layout="C" if arr.layout == "C" else "A")
    sig = rty(arr, types.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aty = signature.args[0]
        ary = make_array(aty)(context, builder, args[0])
        shapes = cgutils.unpack_tuple(builder, ary.shape)
        strides = cgutils.unpack_tuple(builder, ary.strides)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer2(
            context, builder, ary.data, shapes, strides, aty.layout, [args[1]] + [zero] * (aty.ndim - 1)
        )
        out = make_array(rty)(context, builder)
        context.populate_array(
            out,
            data=ptr,
            shape=cgutils.pack_array(builder, shapes[1:]),
            strides=cgutils.pack_array(builder, strides[1:]),
            itemsize=ary.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return sig, codegen


@intrinsic
def _unowned_view(typingctx: Any, arr: Any) -> Any:
    """``arr`` itself without a reference count (its meminfo NULL): valid while ``arr`` is."""
    if not isinstance(arr, types.Array):
        return None
    sig = arr(arr)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = make_array(arr)(context, builder, args[0])
        out = make_array(arr)(context, builder)
        context.populate_array(
            out, data=ary.data, shape=ary.shape, strides=ary.strides, itemsize=ary.itemsize, meminfo=None
        )
        return out._getvalue()

    return sig, codegen


row: Callable[[np.ndarray, int], np.ndarray] = _row_view  # typed for mypy as plain functions (called in kernels)
unowned: Callable[[np.ndarray], np.ndarray] = _unowned_view

__all__ = ["row", "unowned"]
