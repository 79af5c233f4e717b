"""Pushes to connected clients: the hub that runs each game socket and sends every viewer his own view
(:mod:`.hub`, a subscriber of tessera.server.events), and the socket's route (:mod:`.routes`).
"""
