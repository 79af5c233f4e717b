#!/bin/sh
# The shipped puzzles (docs/puzzles.md "The shipped set"): one process at a time, games one after another,
# each from self-play games of greedy against greedy(noise=0.5). Every run adds to the file and never repeats
# a puzzle; its figures are in runs-2026-11-29.jsonl (one line per run, with its game and seed).
set -e
D=tessera/puzzles/data
# the first set
tessera puzzles make nibble --selfplay 5000 --seed 1000 --reach 16 --limit 300 --minutes 10 --out $D/nibble.jsonl
# (this Ikabegamá run and a second one were made before the safeguard rule of docs/puzzles.md: of their 212
# puzzles, the 13 that keep it are shipped; the same command today skips the positions near ply 400)
tessera puzzles make ikabegama --selfplay 20000 --seed 1000 --reach 2 --horizon 7 --last 12 --limit 250 --minutes 14 --out $D/ikabegama.jsonl
tessera puzzles make nume --spec "nume(size=3)" --selfplay 5000 --seed 1000 --reach 9 --limit 250 --minutes 8 --out $D/nume.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 1000 --depth 2 --limit 80 --minutes 10 --out $D/nymbat.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 2000 --depth 2 --limit 80 --minutes 5 --out $D/nymbat.jsonl
# the second set (the counts: 200 per game with a solver, 50 for Nymbat)
tessera puzzles make nume --spec "nume(size=3)" --selfplay 5000 --seed 10000 --reach 9 --limit 110 --minutes 15 --out $D/nume.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 3000 --depth 2 --limit 30 --minutes 14 --out $D/nymbat.jsonl
# Ikabegamá's races are in the opening: games of 40 plies (stopped by hand after 6.5 minutes), then of 8
tessera puzzles make ikabegama --selfplay 20000 --stop 40 --seed 100000 --reach 2 --horizon 7 --limit 200 --minutes 22 --out $D/ikabegama.jsonl  # stopped by hand after 6.5 minutes
tessera puzzles make ikabegama --selfplay 40000 --stop 8 --seed 200000 --reach 2 --horizon 7 --limit 170 --minutes 28 --out $D/ikabegama.jsonl  # stopped by hand after 15 minutes
# two noisy players find other openings (this run was made on a copy of the file and merged by id; then the
# races that fail the check with an empty table at every solve were dropped, docs/puzzles.md "Proof")
tessera puzzles make ikabegama --agents "greedy(noise=0.5),greedy(noise=0.5)" --selfplay 40000 --stop 8 --seed 300000 --reach 2 --horizon 7 --limit 120 --minutes 18 --out $D/ikabegama.jsonl
# (here the 15 races that failed tessera puzzles check were taken out of the file)
tessera puzzles make ikabegama --agents "greedy(noise=0.5),greedy(noise=0.5)" --selfplay 40000 --stop 8 --seed 400000 --reach 2 --horizon 7 --limit 25 --minutes 9 --out $D/ikabegama.jsonl
# (then the level-1 agent was measured again on the stored positions: 3 races above one half were taken out)
