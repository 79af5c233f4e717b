#!/bin/sh
# The learned leaf (stages 18 and 36) with a smaller exploration constant, against level 5's search, equal iterations
# (CS="0.5" screen-c.sh for other values; SEED=40 for other deals).
for C in ${CS:-0.3 0.15}; do
  nice -n 10 python -m tessera match nibble "learned(game=nibble,weights=studies/training/nibble/weights-36.json,c=$C)" \
    "mcts(c=0.7,rollout_cutoff=-1)" --games 40 --iterations 500 --jobs 1 --no-progress \
    --seed "${SEED:-0}" --out "studies/training/nibble/screen-w36-c$C-500it${SEED:+-seed$SEED}" \
    > "studies/training/nibble/screen-w36-c$C-500it${SEED:+-seed$SEED}.log" 2>&1
done
