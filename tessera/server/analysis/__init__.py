"""The analysis board: positions off any move list and the AI's view of them (:mod:`.board`), its
routes (:mod:`.routes`).
"""
