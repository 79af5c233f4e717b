"""The bot API: any program plays on the server through newline-delimited JSON streams and POSTs
(docs/bot-api.md).  ``tables`` (the ``bots`` table), ``store`` (upgrade, presence, what the
streams read), ``streams`` (the streams' wake-ups on the event interface), ``guard`` (what a
bot may not do, and the bot routes' request limits), ``routes`` (the HTTP API)."""
