"""A game's chat: rooms and who may read or write them (:mod:`.rooms`), its tables (:mod:`.tables`),
its routes (:mod:`.routes`).
"""
