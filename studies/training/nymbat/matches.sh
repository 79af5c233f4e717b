#!/bin/sh
# The matches of docs/training.md ("Nymbat"), run from the repository root with the tree on PYTHONPATH,
# one at a time: nice -n 10 sh studies/training/nymbat/matches.sh NAME [GAMES]
# --out keeps every game in DIR/results.jsonl: the same command again continues an interrupted run.
set -e
D=studies/training/nymbat
case "$1" in
  depth2)  # equal depth: both sides alpha-beta to depth 2, the learned value against the hand evaluation
    tessera match nymbat 'learned(game=nymbat)' alphabeta --games 40 --iterations 2 --seed 0 --clock cpu --jobs 1 --json --no-progress > $D/depth2.json ;;
  level5-0.06)  # level 5's search (alphabeta) at 0.06 s of CPU a move on both sides (--seconds binds both:
    # level 5 is 3 s, so a fiftieth: what this session's CPU allowed); without --seconds the learned agent
    # would take alphabeta's own default (1 s)
    tessera match nymbat 'learned(game=nymbat)' level5 --seconds 0.06 --games "${2:-20}" --seed 200 --clock cpu --jobs 1 --json --no-progress --out $D/level5-0.06 > $D/level5-0.06.json ;;
esac
