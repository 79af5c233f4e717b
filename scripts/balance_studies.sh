#!/usr/bin/env bash
# The studies of docs/balance.md (results in studies/balance/), in order, each resumable (rerun to continue).
# Budgets fit a shared 2-core machine: one process, fast agents, few games.
set -uo pipefail
cd "$(dirname "$0")/.."
T="${TESSERA:-python -m tessera}"
R="${RUNS:-studies/balance}"   # the results shipped in studies/balance/: rerunning continues them
run() {
  local name="$1"; shift; echo "== $name: $*"; local t0=$SECONDS
  mkdir -p "$R/$name"
  $T "$@" --out "$R/$name" --no-progress > "$R/$name/report.txt" 2> "$R/$name/errors.log"
  local rc=$?
  [ -s "$R/$name/errors.log" ] || rm -f "$R/$name/errors.log"   # keep the log only when something went wrong
  echo "   exit $rc in $((SECONDS - t0)) s"
}
mkdir -p "$R"

# Nymbat: first-move advantage (self-play), and restricted armies (nontransitivity).
run nymbat-first balance nymbat --agent greedy --games 200 --seed 1
run nymbat-first-mcts balance nymbat --agent mcts --iterations 50 --games 40 --seed 1
run nymbat-armies tournament nymbat "greedy(army=1)" "greedy(army=3)" "greedy(army=5)" "greedy(army=6)" \
    "greedy(army=1+4)" "greedy(army=2+5)" --games 10 --seed 1
run nymbat-armies-mcts tournament nymbat "mcts(army=1)" "mcts(army=3)" "mcts(army=5)" "mcts(army=6)" \
    --iterations 50 --games 6 --seed 1
# Nelaxtam: wild vs quiet by size, and the by-sea split.
run nelaxtam-quiet balance "nelaxtam(variant=quiet)" --vary size=8,10,12,14 --agent greedy --games 20 --seed 1
run nelaxtam-wild balance "nelaxtam(variant=wild)" --vary size=10,12,14 --agent greedy --games 20 --seed 1
run nelaxtam-sea balance "nelaxtam(variant=wild,size=12)" --vary by_sea=0,1,3,5 --agent greedy --games 20 --seed 1
# Nibble: first-player rate per board, colour table shuffled or not.
run nibble-square balance "nibble(board=square)" --vary colors=9,13 --vary shuffle_table=true,false \
    --agent mcts --iterations 100 --games 64 --seed 1
run nibble-hex balance "nibble(board=hex,colors=13)" --vary shuffle_table=true,false \
    --agent mcts --iterations 100 --games 64 --seed 1
# Ikabegamá: first-player rate and length vs nest distance.
run ikabegama balance ikabegama --vary distance=2,4,6,8,10,12 --agent mcts --iterations 50 --games 40 --seed 1
run ikabegama-bounded balance "ikabegama(distance=6)" --vary board=plane,hexhex:7,hexhex:10 --agent mcts --iterations 50 \
    --games 12 --seed 1
# Nume: fair komi (to Black) per size.
NUME="mcts(c=0.7,rollout_cutoff=0,sample=8)"
run nume-komi-3 balance "nume(size=3)" --find komi=0:6 --agent "$NUME" --iterations 100 --games 24 --rounds 3 --seed 1
run nume-komi-4 balance "nume(size=4)" --find komi=0:6 --agent "$NUME" --iterations 100 --games 12 --rounds 7 --seed 1
run nume-komi-5 balance "nume(size=5)" --find komi=0:8 --agent "$NUME" --iterations 100 --games 12 --rounds 7 --seed 1
run nume-komi-6 balance "nume(size=6)" --find komi=0:8 --agent "$NUME" --iterations 100 --games 8 --rounds 7 --points 4 --seed 1
