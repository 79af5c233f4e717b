"""Puzzles on the server: the shipped puzzles played one step at a time, Glicko-2 puzzle ratings of
accounts and of puzzles, a daily puzzle per game, history and streaks (docs/puzzles.md)."""
