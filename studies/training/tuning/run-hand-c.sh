#!/bin/sh
# Control: the hand-written evaluation with a lower c (level 5's search otherwise) against level 5, equal iterations.
for c in 0.3 0.15 0.07; do
  nice -n 10 python -m tessera match nume "mcts(c=$c,rollout_cutoff=0,sample=8)" level5 --games 30 --iterations 200 --seed 3 --jobs 1 --no-progress --json > studies/training/tuning/hand-c$c-vs-level5-200it.json
done
