#!/bin/sh
# The learned leaf (stages 18 and 36) with guided random steps (each turn's first block the best of GUIDE random
# legal blocks by the learned value), against level 5's search, equal iterations.  GS="2 3" screen-guide.sh
for G in ${GS:-3 2}; do
  nice -n 10 python -m tessera match nibble "learned(game=nibble,weights=studies/training/nibble/weights-36.json,guide=$G)" \
    "mcts(c=0.7,rollout_cutoff=-1)" --games 40 --iterations 500 --jobs 1 --no-progress \
    --out "studies/training/nibble/screen-w36-guide$G-500it" > "studies/training/nibble/screen-w36-guide$G-500it.log" 2>&1
done
