"""The measure stage: facts read from the store -> the numbers the tool exists for, drawing
nothing and writing nothing (wording, formats, the palette and the shared charts are
tracker.present's; pages and mail are tracker.report's and tracker.digest's).

By subject, each a package (import contract in pyproject.toml: figures > facts | headline >
artifact kinds | ci | perf | response | quality > stats > the lag engine):

- ``lag/``: the lag engine every artifact kind shares: ``coverage`` (what the lag needs beside
  the coverage rules), ``decision`` (covered / open / unknown, once), ``rows`` (the rows built
  from it, the record of what is left out), ``samples`` (framework release series),
  ``windows`` (how far each definition's evidence was looked at), ``supersession`` (a newer
  series covers an older one), ``channels`` (install channels, the earliest build), ``builds``
  (builds named in any record), ``silent`` (definitions silent while upstream kept releasing);
- the artifact kinds: ``models/`` (model families: ``lag``, ``engines``, ``benchmark``,
  ``summary``), ``kernels/`` (kernel features: ``ledger``, ``lag``, ``summary``),
  ``collectives/`` (NCCL series on the engine's decision);
- ``stats/``: ``survival`` (Kaplan-Meier medians, summaries), ``trend``, ``bootstrap``,
  ``pair_tables`` and ``rate_trend`` (is the gap closing?);
- ``headline/``: ``answer`` (the headline answer per regime and layer), ``quarters`` (the
  quarterly headline series and its cohorts), ``trends`` (the trends gathered);
- ``ci/`` (``rates``, ``health``, ``parity``, ``jobs``, ``tests``), ``perf/`` (delivered
  performance: ``inference``, ``training``, ``rounds``), ``response`` (time to first
  response), ``quality/`` (``quality``, ``source_health``, ``staleness``: data quality);
- ``facts`` (loading facts from the store, ``compute_lag``) and ``figures``, which computes all
  of them once per as-of date (``compute_figures``).
"""
