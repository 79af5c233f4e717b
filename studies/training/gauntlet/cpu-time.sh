#!/bin/sh
# Nume (default size 5, hex), seats alternated, 0.1 s of CPU a step on both sides (a thirtieth of level 5's 3 s),
# the learned agent (level 5's search with the shipped learned evaluation) against level 5.
nice -n 10 python -m tessera match nume "learned(game=nume)" level5 --games 40 --seconds 0.1 --clock cpu --seed 21 --jobs 2 --no-progress --out studies/training/gauntlet/learned-vs-level5-0.1s-cpu --json > studies/training/gauntlet/learned-vs-level5-0.1s-cpu.json
