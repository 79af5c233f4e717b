#!/bin/sh
# Control for screen-c.sh: level 5's own search (random games to the end) with c = 0.3, against c = 0.7.
nice -n 10 python -m tessera match nibble "mcts(c=0.3,rollout_cutoff=-1)" "mcts(c=0.7,rollout_cutoff=-1)" \
  --games 40 --iterations 500 --jobs 1 --no-progress \
  --out studies/training/nibble/control-c0.3-500it > studies/training/nibble/control-c0.3-500it.log 2>&1
