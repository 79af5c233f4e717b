"""``python -m tessera.arena match|tournament|balance ...`` (the same as ``tessera match`` and the rest)."""

import sys

from tessera.arena.cli import main

sys.exit(main())
