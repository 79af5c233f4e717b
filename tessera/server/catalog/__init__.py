"""What the server offers: the games catalogue and status (:mod:`.routes`), the rules pages,
diagrams and lessons (:mod:`.lessons`).
"""
