#!/bin/sh
# The first shipped set of puzzles (docs/puzzles.md): one process at a time, games one after another,
# each from self-play games of greedy against greedy(noise=0.5) played by the arena's runner.
set -e
D=tessera/puzzles/data
tessera puzzles make nibble --selfplay 5000 --seed 1000 --reach 16 --limit 300 --minutes 10 --out $D/nibble.jsonl
tessera puzzles make ikabegama --selfplay 20000 --seed 1000 --reach 2 --horizon 7 --last 12 --limit 250 --minutes 14 --out $D/ikabegama.jsonl
tessera puzzles make nume --spec "nume(size=3)" --selfplay 5000 --seed 1000 --reach 9 --limit 250 --minutes 8 --out $D/nume.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 1000 --depth 2 --limit 80 --minutes 10 --out $D/nymbat.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 2000 --depth 2 --limit 80 --minutes 5 --out $D/nymbat.jsonl
# The second run (the counts: 200 per game with a solver, 50 for Nymbat): Nume from other deals;
# Ikabegamá from self-play with six branches per game (each plays on from 24 plies before the game's end).
tessera puzzles make nume --spec "nume(size=3)" --selfplay 5000 --seed 10000 --reach 9 --limit 110 --minutes 15 --out $D/nume.jsonl
tessera puzzles make ikabegama --selfplay 3000 --branches 6 --branch-plies 24 --seed 30000 --reach 2 --horizon 7 --last 12 --limit 160 --minutes 22 --out $D/ikabegama.jsonl
tessera puzzles make nymbat --selfplay 5000 --seed 3000 --depth 2 --limit 30 --minutes 14 --out $D/nymbat.jsonl
