"""Jobs: what cron and the scheduler run, calling the same functions as the CLI: ``config``
(sources.yaml checked whole), ``nightly`` (init-db, collect, tag, report) and ``schedule``
(APScheduler: the nightly job and the weekly digest in-process)."""
