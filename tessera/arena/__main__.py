"""``python -m tessera.arena match GAME AGENT_A AGENT_B ...`` (same as ``tessera match``)."""

import sys

from tessera.arena.cli import main

sys.exit(main())
