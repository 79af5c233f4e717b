#!/bin/sh
# Screening matches of the learned Nibble leaf against level 5's search (both without the endgame solver),
# equal iterations.  Usage: screen.sh WEIGHTS ITERATIONS GAMES NAME [REACH]
W=$1; I=$2; N=$3; NAME=$4
if [ -n "$5" ]; then A="learned(game=nibble,weights=$W,reach=$5)"; else A="learned(game=nibble,weights=$W)"; fi
nice -n 10 python -m tessera match nibble "$A" "mcts(c=0.7,rollout_cutoff=-1)" \
  --games "$N" --iterations "$I" --jobs 1 --no-progress --out "studies/training/nibble/$NAME" > "studies/training/nibble/$NAME.log" 2>&1
