"""The measure stage: facts read from the store -> the numbers the tool exists for, drawing
nothing and writing nothing (wording, formats, the palette and the shared charts are
tracker.present's; pages and mail are tracker.report's and tracker.digest's).

``coverage`` (what the lag needs beside the coverage rules), ``lag`` (day-0 coverage lag per
artifact, regime and definition), ``windows`` (how far each definition's evidence was looked
at: open rows are censored there), ``supersession`` (a newer series covers an older one),
``silent`` (definitions silent while upstream kept releasing), ``survival`` (Kaplan-Meier
medians, summaries), ``model_lag``, ``engines`` and ``model_summary`` (model families),
``kernel_ledger``, ``kernel_lag`` and ``kernel_summary`` (kernel features), ``trend``,
``bootstrap``, ``pair_tables`` and ``rate_trend`` (is the gap closing?), ``answer`` (the
headline answer), ``headline`` (the quarterly / weekly headline series and its cohorts),
``trend_figures`` (the trends gathered), ``facts`` (loading facts from the store,
``compute_lag``), ``staleness``, ``source_health`` and ``quality`` (data quality), ``perf``
(delivered performance), ``ci_rates``, ``ci_health``, ``ci_parity`` and ``ci_jobs`` (CI);
``figures`` computes all of them once per as-of date (``compute_figures``).
"""
