#!/bin/sh
# The number prior alone: the hand-written evaluation with run 3's learned number prior, in level 5's search, against level 5;
# 60 games, 200 simulations a step on both sides.
nice -n 10 python -m tessera match nume "learned(game=nume,weights=studies/training/tuning/hand-with-run3-prior.json)" level5 --games 60 --iterations 200 --seed 13 --jobs 1 --no-progress --json > studies/training/tuning/hand-prior-vs-level5-200it.json
