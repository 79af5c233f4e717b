"""Accounts: users, sessions, personal API tokens, Glicko-2 ratings, history and challenges.

Optional: anonymous play works without them.  :mod:`.glicko2` rates (pure Python),
:mod:`.tables` declares the tables (migration ``0004_accounts``), :mod:`.security` hashes
passwords and secrets, checks names and throttles logins, :mod:`.store` reads and writes
the tables, :mod:`.rating` rates finished games and :mod:`.routes` is the HTTP API.
"""
