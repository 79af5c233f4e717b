#!/usr/bin/env bash
# The matches behind each game's AI level ratings (tessera/games/<game>/levels.json, docs/agents.md):
# each pair of neighbouring levels (1-2, 2-3, 3-4, 4-5) plays GAMES games per game, seats
# alternated, time budgets on the CPU clock (the figures do not depend on the machine's load).
# Levels 3-5 think SCALE of their usual time per move (a shared 2-core machine: the whole run takes
# about half an hour of CPU). JOBS runs that many matches at once. Resumable: rerun to continue (one
# results.jsonl per match; a larger GAMES adds games). Then fit and store:
#   python studies/ai_ratings/fit.py            # writes tessera/games/<game>/levels.json
set -uo pipefail
cd "$(dirname "$0")/../.."
T="${TESSERA:-python -m tessera}"
R="${RUNS:-studies/ai_ratings}"
GAMES="${GAMES:-4}"
SCALE="${SCALE:-0.1}"
JOBS="${JOBS:-1}"
agent() { if [ "$1" -le 2 ]; then echo "level$1"; else echo "level$1(scale=$SCALE)"; fi; }
run() {
  local game="$1" a="$2" b="$3" dir="$R/$1/level$2-level$3"
  mkdir -p "$dir"
  $T match "$game" "$(agent "$a")" "$(agent "$b")" --games "$GAMES" --seed 1 --clock cpu --out "$dir" \
    --no-progress > "$dir/report.txt" 2> "$dir/errors.log"
  echo "$game level$a-level$b: exit $?"
  [ -s "$dir/errors.log" ] || rm -f "$dir/errors.log"
}
for pair in "1 2" "2 3" "3 4" "4 5"; do
  for game in ${ONLY:-nume ikabegama nibble nelaxtam nymbat}; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run "$game" $pair &
  done
done
wait
