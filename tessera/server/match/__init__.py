"""The match domain: games in play and their records (docs/architecture.md).

Its tables are ``games``, ``seats``, ``moves``, ``sealed_orders`` (defined with the storage engine in
:mod:`tessera.server.store.storage`), ``game_creators`` and the declines; its routes are in
:mod:`.game_routes`, :mod:`.move_routes` and :mod:`.record_routes`.  The pipeline (prepare → commit
→ publish) is :mod:`.moves`; :mod:`.service` is the facade other domains and the tests call.
"""
