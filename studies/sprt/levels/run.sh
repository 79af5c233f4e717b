#!/usr/bin/env bash
# Sequential tests of each pair of neighbouring AI levels (2 vs 1, 3 vs 2, 4 vs 3, 5 vs 4) in each
# game's default variant, two players (docs/agents.md, "Evidence per level"): the higher level is A,
# SPRT(ELO0, ELO1) = (0, +100) by default, pentanomial on pairs of games with seats swapped, alpha =
# beta = 0.05, budgets on the CPU clock, levels 3-5 at SCALE of their time per move (a shared 2-core
# machine). A run stops at a verdict or at CAP games (then it has none, and says so). Resumable: the
# same command continues each results.jsonl; a larger CAP adds games. JOBS tests run at once.
#   studies/sprt/levels/run.sh                 # every game and pair
#   ONLY=nume PAIRS=4-5 studies/sprt/levels/run.sh
#   python studies/sprt/levels/table.py        # the table of docs/agents.md, from the results files
set -uo pipefail
cd "$(dirname "$0")/../../.."
T="${TESSERA:-python -m tessera}"
R="${RUNS:-studies/sprt/levels}"
CAP="${CAP:-40}"
SCALE="${SCALE:-0.1}"
JOBS="${JOBS:-1}"
BOUNDS="${BOUNDS:-0,100}"
agent() { if [ "$1" -le 2 ]; then echo "level$1"; else echo "level$1(scale=$SCALE)"; fi; }
run() {
  local game="$1" lo="$2" hi="$3" dir="$R/$1/level$3-vs-level$2"
  mkdir -p "$dir"
  $T match "$game" "$(agent "$hi")" "$(agent "$lo")" --sprt "$BOUNDS" --games "$CAP" --seed 1 --clock cpu \
    --out "$dir" --no-progress > "$dir/report.txt" 2> "$dir/errors.log"
  echo "$game level$hi-vs-level$lo: exit $?"
  [ -s "$dir/errors.log" ] || rm -f "$dir/errors.log"
}
for pair in ${PAIRS:-1-2 2-3 3-4 4-5}; do
  for game in ${ONLY:-ikabegama nume nibble nelaxtam nymbat}; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run "$game" "${pair%-*}" "${pair#*-}" &
  done
done
wait
