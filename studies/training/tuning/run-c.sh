#!/bin/sh
# Equal-iteration matches (200 simulations a step on both sides) of the learned agent, several c, against level 5, Nume default size.
for c in 0.7 0.3 0.15 0.07; do
  nice -n 10 python -m tessera match nume "learned(game=nume,c=$c)" level5 --games 30 --iterations 200 --seed 3 --jobs 1 --no-progress --json > studies/training/tuning/learned-c$c-vs-level5-200it.json
done
