"""The balance lab: tournaments with ratings, self-play balance figures and fair parameter values.

``tessera tournament`` and ``tessera balance`` (:mod:`tessera.lab.cli`) run on
:mod:`tessera.lab.runner` (resumable results file, local processes or Ray); the
statistics are in :mod:`tessera.lab.stats`, the plots in :mod:`tessera.lab.plots`.
Needs numpy and scipy (``pip install 'tessera[lab]'``; matplotlib for PNG plots).
"""

from tessera.lab.balance import find_fair, run_balance
from tessera.lab.tournament import run_tournament

__all__ = ["find_fair", "run_balance", "run_tournament"]
