"""The match domain: games in play and their records (docs/architecture.md).

Its tables are ``games``, ``seats``, ``moves``, ``sealed_orders`` (:mod:`.tables`), ``game_creators``
(:mod:`.creators`) and the declines (:mod:`.declines`); other domains read them through :mod:`.queries`.
Its routes are in :mod:`.game_routes`, :mod:`.move_routes` and :mod:`.record_routes`.  The pipeline
(prepare → commit → publish) is :mod:`.moves`; :mod:`.service` is the facade other domains and the
tests call.
"""
