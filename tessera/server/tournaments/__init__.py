"""Tournaments for people and bots: arenas and Swiss events (docs/tournaments.md).

``tables`` (its tables), ``places`` (a finished game as places and points), ``arena`` and
``swiss`` (each format's pairing and scoring, plain functions), ``store`` (reading and writing the
tables, the standings), ``director`` (announcing, joining, withdrawing, berserking, the view),
``waves`` (the waves that start, pair, record and finish), ``routes`` (the HTTP API and pages).
"""
