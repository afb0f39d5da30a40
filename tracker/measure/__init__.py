"""The measure stage: facts read from the store -> the numbers the tool exists for.

``coverage`` (the coverage rules of sources.yaml), ``lag`` (day-0 coverage lag per artifact,
regime and definition), ``survival`` (Kaplan-Meier medians, summaries), ``model_lag`` and
``model_summary`` (model families), ``trend`` and ``rate_trend`` (is the gap closing?),
``facts`` (loading facts from the store, ``compute_lag``), ``staleness``; and what both
publishers share: ``trend_figures`` (trend words and tables), ``formats``, ``palette``.
Nothing here renders a page or sends mail.
"""
