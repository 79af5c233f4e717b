"""The designer's lab on the server: self-play studies of a game's variants, run on the fair AI pool.

A signed-in account asks for ``games`` self-play games of each of up to :data:`MAX_VARIANTS`
variants with one of the cheap levels (:data:`AGENTS`); the games run one at a time per study
on the AI pool beside the analysis jobs (so people's AI opponents keep their share), every
finished game is stored at once, and a study that was running when the server stopped goes on
at the next start.  ``routes`` is the HTTP API (docs/http-api.md), ``studies`` the service,
``tables`` the table.
"""
