#!/bin/sh
# run2 generation 1 (fit on 300 games of level 5's search at 100 simulations) at c=0.15 against the hand evaluation at c=0.15, equal iterations.
nice -n 10 python -m tessera match nume "learned(game=nume,c=0.15,weights=studies/training/nume-run2/gen-001.json)" "mcts(c=0.15,rollout_cutoff=0,sample=8)" --games 30 --iterations 200 --seed 3 --jobs 1 --no-progress --json > studies/training/tuning/run2gen1-c0.15-vs-hand-c0.15-200it.json
