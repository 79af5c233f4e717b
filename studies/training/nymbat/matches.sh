#!/bin/sh
# The matches of docs/training.md ("Nymbat"), run from the repository root with the tree on PYTHONPATH,
# one at a time: nice -n 10 sh studies/training/nymbat/matches.sh NAME [GAMES]
# --out keeps every game in DIR/results.jsonl: the same command again continues an interrupted run.
set -e
D=studies/training/nymbat
case "$1" in
  depth2)  # equal depth: both sides alpha-beta to depth 2, the learned value against the hand evaluation
    tessera match nymbat 'learned(game=nymbat)' alphabeta --games 40 --iterations 2 --seed 0 --clock cpu --jobs 1 --json --no-progress > $D/depth2.json ;;
  level5)  # level 5 at a tenth of its time (0.3 s of CPU a move) on both sides
    tessera match nymbat 'learned(game=nymbat)' 'level5(scale=0.1)' --games "${2:-20}" --seed 100 --clock cpu --jobs 1 --json --no-progress --out $D/level5-0.1 > $D/level5-0.1.json ;;
  level5-0.02)  # level 5 at a fiftieth of its time (0.06 s of CPU a move): what the session's CPU allowed
    tessera match nymbat 'learned(game=nymbat)' 'level5(scale=0.02)' --games "${2:-20}" --seed 200 --clock cpu --jobs 1 --json --no-progress --out $D/level5-0.02 > $D/level5-0.02.json ;;
esac
