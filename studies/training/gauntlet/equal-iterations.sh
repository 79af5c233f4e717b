#!/bin/sh
# Nume (default size 5, hex), 100 games each, seats alternated, 200 simulations a step on both sides.
# 1: the learning effect alone (same search, same c, learned vs hand-written evaluation);
# 2: the level-6 candidate against level 5.
nice -n 10 python -m tessera match nume "learned(game=nume,c=0.15)" "mcts(c=0.15,rollout_cutoff=0,sample=8)" --games 100 --iterations 200 --seed 11 --jobs 1 --no-progress --json > studies/training/gauntlet/learned-vs-hand-c0.15-200it.json &
nice -n 10 python -m tessera match nume "learned(game=nume,c=0.15)" level5 --games 100 --iterations 200 --seed 11 --jobs 1 --no-progress --json > studies/training/gauntlet/learned-c0.15-vs-level5-200it.json &
wait
