"""Exact endgames: compiled solvers the levels consult when the end of the game is within reach."""
