"""Computer players: the thinking (run in worker processes), the fair pool every search runs in, the
worker that plays AI seats, what it reads of a game, the kernels warmed at start-up, orphan watch.
"""
