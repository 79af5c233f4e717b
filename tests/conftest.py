"""Settings for every test: servers started by the tests stop within a second.

A stopping server waits for its open requests (``TESSERA_SHUTDOWN_GRACE``, 5 s by default); the
tests' bots and browsers keep event streams open until the end, so each stop would wait the whole
grace for nothing.
"""

import os

os.environ.setdefault("TESSERA_SHUTDOWN_GRACE", "1")
