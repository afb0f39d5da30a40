"""The collect stage: sources.yaml entries -> upstream over HTTP -> Events saved in the store.

``http`` is the one HTTP session (retries, timeouts, rate limits, conditional requests, paging);
``sources`` holds one module per source kind and the kind registry; ``runner`` runs each source,
derives its cursor from the events' own timestamps and saves events and state in one
transaction; ``ci`` is what the CI collectors share; ``cassettes`` dates recorded replays.
"""
