"""The HTTP application: create_app (the composition root), middleware (body and rate limits, security
headers, the request log, metrics), uvicorn protocol, shared dependencies, errors, the JSON encoding,
health checks and the web client's pages; :mod:`.routes` lists the routers in the order they are tried.
"""
