"""Storage: the engine, transactions, the PostgreSQL writer on the event loop, LISTEN/NOTIFY between
processes, backups and the Alembic migrations.  It imports no domain (tests/test_layers.py).
"""
