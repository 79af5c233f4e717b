#!/bin/sh
# The learned leaf (stages 18 and 36) with c = 0.5 and guided random steps (GUIDE = 3), against level 5's search,
# equal iterations.
nice -n 10 python -m tessera match nibble "learned(game=nibble,weights=studies/training/nibble/weights-36.json,c=0.5,guide=3)" \
  "mcts(c=0.7,rollout_cutoff=-1)" --games "${1:-40}" --iterations 500 --jobs 1 --no-progress \
  --out "studies/training/nibble/screen-w36-c0.5-guide3-500it" > "studies/training/nibble/screen-w36-c0.5-guide3-500it.log" 2>&1
