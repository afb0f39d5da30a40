"""The measure stage: facts read from the store -> the numbers the tool exists for.

``coverage`` (the coverage rules of sources.yaml), ``lag`` (day-0 coverage lag per artifact,
regime and definition), ``survival`` (Kaplan-Meier medians, summaries), ``model_lag`` and
``model_summary`` (model families), ``trend`` and ``rate_trend`` (is the gap closing?),
``facts`` (loading facts from the store, ``compute_lag``), ``staleness``; and what both
publishers share: ``headline`` (the quarterly / weekly headline series and its verdict),
``trend_figures`` (trend words and tables), ``formats``, ``palette``, and ``headline_chart``
(draws the headline chart onto a matplotlib figure, so report and digest show the same
picture; the caller saves it). Nothing here writes a page or sends mail.
"""
