"""Worker processes that end with their parent: no orphan outlives a killed server.

A server killed outright (``kill -9``, an out-of-memory kill) runs none of its clean-up, so the
AI pool's worker processes it started would live on, and with them multiprocessing's resource
tracker (which waits for every holder of its pipe, the workers included, to close it).  Each
worker process therefore runs :func:`watch_parent` as it starts: a daemon thread looks at the
parent's process id every :data:`WATCH_SECONDS` and ends the process once it changed (the parent
died and the worker was re-parented).  The resource tracker then sees its pipe close and exits
by itself.

Linux's ``prctl(PR_SET_PDEATHSIG)`` is not used: it fires when the *thread* that started the
process ends, and the pool starts (and replaces) its processes from short-lived threads (the
warm-up, the request thread pool), whose end would kill healthy workers.
"""

from __future__ import annotations

import os
import threading
import time

WATCH_SECONDS = 0.5
"""How often a worker looks at its parent's process id."""


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(0)  # the parent is gone: nobody will read this process's answers
        time.sleep(WATCH_SECONDS)


def watch_parent(parent: int) -> None:
    """Run in a worker process as it starts (a ``ProcessPoolExecutor`` initializer): end it when the
    process ``parent`` (the server) dies."""
    if os.getppid() != parent:  # the parent died before the watch was set
        os._exit(0)
    threading.Thread(target=_watch, args=(parent,), name="tessera-parent-watch", daemon=True).start()
