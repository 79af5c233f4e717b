#!/bin/sh
# A candidate for a level 6 (level 5's search and exact endgame solver with the learned leaf, stages 18 and 36)
# against level 5, a tenth of level 5's time per move (0.3 s), CPU clock, seats alternated.
# cpu-time.sh GAMES NAME OPTIONS: OPTIONS are added to the learned agent's spec (e.g. ",c=0.5").
nice -n 10 python -m tessera match nibble \
  "learned(game=nibble,weights=studies/training/nibble/weights-36.json,endgame=true$3)" level5 \
  --games "${1:-40}" --seconds 0.3 --clock cpu --jobs 1 --no-progress \
  --out "studies/training/nibble/$2" > "studies/training/nibble/$2.log" 2>&1
