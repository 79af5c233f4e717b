#!/bin/sh
# The level-6 candidate (level 5's search with the learned leaf, stages 18 and 36, and the exact endgame solver
# first, as level 5) against level 5, a tenth of level 5's time per move (0.3 s), CPU clock, seats alternated.
nice -n 10 python -m tessera match nibble \
  "learned(game=nibble,weights=studies/training/nibble/weights-36.json,endgame=true)" level5 \
  --games "${1:-40}" --seconds 0.3 --clock cpu --jobs 1 --no-progress \
  --out studies/training/nibble/candidate-vs-level5-0.3s-cpu > studies/training/nibble/candidate-vs-level5-0.3s-cpu.log 2>&1
