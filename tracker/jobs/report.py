"""The report job: resolve the as-of date, compute every figure once, save the derived tables
(lag_samples, lag_trend, perf_parity, perf_training, perf_format_adoption, ci_job_health,
ci_parity, issue_response, issue_response_quarterly: what the views v_lag_series, v_lag_trend,
v_perf_parity, v_perf_training, v_perf_efficiency, v_format_adoption, v_ci_job_health,
v_ci_parity, v_issue_response and v_issue_response_quarterly read) and write the report from
the same figures. `tracker report` and the nightly job both run it, so the views always hold the
numbers of the newest report."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from tracker.config import Config
from tracker.store import Store


def publish_report(
    config: Config,
    store: Store,
    out_dir: Path,
    as_of: date | datetime | None = None,
    untagged: int = 0,
    *,
    carry_foreign: bool = False,
) -> list[str]:
    """Write the report into `out_dir` as of `as_of` (tracker.store.asof.resolve_as_of: a date
    is the end of that day; none: the replayed snapshot, else now); return console lines.
    `untagged` (Store.untagged_count) events without a tag make it say, at its top and in
    summary.json, that it is incomplete. `carry_foreign`: files in `out_dir` the tracker did
    not write are carried into the new report instead of refused (tracker.report.publish)."""
    from tracker.measure.figures import compute_figures
    from tracker.report.publish import refuse_strangers
    from tracker.report.side_by_side import ChartDrawers
    from tracker.report.writer import write_report
    from tracker.store.asof import default_as_of, resolve_as_of

    # a folder of the user's is refused before the derived tables are replaced
    refuse_strangers(out_dir, carry_foreign=carry_foreign)
    point = resolve_as_of(store, as_of)
    # a store of replayed snapshots (whatever the as-of) says so on every report built from it,
    # by `nightly --replay` or a later `report`; its issue threads may be a sample
    stored = default_as_of(store)
    replayed = stored is not None
    banner = replay_banner(stored.replay) if stored is not None else None
    if untagged:
        banner = " ".join(filter(None, [incomplete(untagged), banner]))
    # The chart processes start first: they import matplotlib while this one computes.
    with ChartDrawers() as drawers:
        figures = compute_figures(config, store, point)
        store.replace_lag_samples(figures.lag_sample_rows())
        store.replace_lag_trend(figures.lag_trend_rows())
        store.replace_perf_parity(figures.perf.store_rows(figures.as_of))
        store.replace_perf_training(
            figures.training.store_rows(figures.as_of),
            figures.training.adoption_rows(figures.as_of),
        )
        if figures.ci_jobs is not None:
            store.replace_ci_health(figures.ci_jobs.health_rows(), figures.ci_jobs.parity_rows())
        store.replace_issue_response(
            figures.response.issue_rows(), figures.response.quarterly_rows()
        )
        return write_report(
            figures, out_dir, banner, drawers, replayed, carry_foreign=carry_foreign
        )


def replay_banner(replay: str | None) -> str:
    """What a report of replayed cassettes says at its top."""
    where = f" in {replay}" if replay else ""
    return (
        f"Built from a replay of the cassettes{where}, not from live upstream data: "
        "hand-written cassettes say in their headers which facts are real."
    )


def incomplete(untagged: int) -> str:
    """What a report built while events wait for their tags says of itself."""
    return (
        f"Incomplete: {untagged} collected events are not tagged yet (a tagging run failed or "
        "has not run since they were collected), so the friction figures leave them out; "
        "`tracker tag`, then `tracker report`, makes it complete."
    )
