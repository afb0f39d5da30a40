"""CI parity: of the test groups a reference pipeline runs in its nightly build, the share a
mirroring pipeline runs and the share it passes, per nightly and per ISO week
(docs/methodology.md, CI parity). vLLM's ``amd-ci`` mirrors its upstream ``ci``: "is AMD's CI
running and passing what CUDA's runs?"

- ``config.mirrors`` (tracker.config.triggers.mirror_pairs, read once with sources.yaml):
  (mirror source, reference source) from each CI source's ``mirrors`` key.
- ``group_key(name, renames)``: a job name as a test group: hardware prefixes ("mi355_1: ",
  "AMD: "), GPU tags ("(H100)", "(B200-MI355)", "(mi300_1)") stripped, a tag's GPU count kept
  as "(N gpus)", "3.5" written "3-5", lower case; then the renamed-groups table
  (``data/ci_group_renames.yaml``, mirror's group -> reference's group).
- ``parity_weeks(runs, pairs, renames)``: the weekly rows of ``v_ci_parity``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from tracker.config.triggers import MirrorPair
from tracker.measure.ci.health import AMD_PREFIX, GPU_TAG, PREFIX_TAG, SUFFIX_TAG, JobRun
from tracker.names import PASSED

# A reference nightly pairs with a mirror's nightly of the same UTC day, else the newest one at
# most this long before it.
PAIR_WITHIN = timedelta(days=2)
_COUNT = re.compile(r"^\(\s*(\d+)")


Pair = MirrorPair  # a mirror and its reference (sources.yaml's ``mirrors``, read by config)


def load_renames() -> dict[str, str]:
    """The renamed-groups table shipped with tracker (mirror's group -> reference's group)."""
    from tracker.config import safe_load_yaml

    ref = resources.files("tracker.measure") / "data" / "ci_group_renames.yaml"
    raw = safe_load_yaml(ref.read_text(encoding="utf-8")) or {}
    return {_plain(str(k)): _plain(str(v)) for k, v in raw.items()}


def _plain(text: str) -> str:
    text = re.sub(r"(\d)\.(\d)", r"\1-\2", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def _gpu_count(match: re.Match) -> str:
    count = _COUNT.match(match.group(0).strip())
    return f" ({count.group(1)} gpus)" if count else ""


def group_key(name: str, renames: Mapping[str, str]) -> str:
    """The test group a job name runs (see the module)."""
    text = PREFIX_TAG.sub("", name)
    text = AMD_PREFIX.sub("", text)
    text = SUFFIX_TAG.sub("", text)
    text = _plain(GPU_TAG.sub(_gpu_count, text))
    return renames.get(text, text)


@dataclass(frozen=True)
class Nightly:
    """One nightly build's groups: every group, and those whose every job passed."""

    build: str
    built_at: datetime
    groups: frozenset[str]
    passed: frozenset[str]


def nightlies(runs: Iterable[JobRun], regime: str, renames: Mapping[str, str]) -> list[Nightly]:
    """The builds of one source's runs, oldest first, counting only jobs of `regime`."""
    jobs: dict[str, list[JobRun]] = defaultdict(list)
    for run in runs:
        if run.regime == regime:
            jobs[run.build].append(run)
    out = []
    keys: dict[str, str] = {}  # a few hundred job names, each in every nightly build
    for build, mine in jobs.items():
        outcomes: dict[str, bool] = {}
        for run in mine:
            key = keys.get(run.job) or keys.setdefault(run.job, group_key(run.job, renames))
            outcomes[key] = outcomes.get(key, True) and run.outcome == PASSED
        out.append(
            Nightly(
                build,
                min(r.built_at for r in mine),
                frozenset(outcomes),
                frozenset(k for k, ok in outcomes.items() if ok),
            )
        )
    return sorted(out, key=lambda n: n.built_at)


def paired(mirror: Nightly, reference: Sequence[Nightly]) -> Nightly | None:
    """The reference nightly of the mirror's day, else the newest within PAIR_WITHIN before."""
    same_day = [n for n in reference if n.built_at.date() == mirror.built_at.date()]
    if same_day:
        return same_day[-1]
    before = [
        n for n in reference if mirror.built_at - PAIR_WITHIN <= n.built_at <= mirror.built_at
    ]
    return before[-1] if before else None


def iso_week(when: datetime) -> str:
    year, week, _ = when.isocalendar()
    return f"{year}-W{week:02d}"


def parity_weeks(
    runs: Sequence[JobRun], pairs: Sequence[Pair], renames: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Per pair and ISO week of the mirror's nightly: nightlies paired, reference groups, groups
    the mirror ran and passed (sums over the week's nightlies) and the two shares."""
    by_source: dict[str, list[JobRun]] = defaultdict(list)
    for run in runs:
        by_source[run.source_id].append(run)
    rows = []
    for pair in pairs:
        reference = nightlies(by_source[pair.reference], pair.reference_regime, renames)
        weeks: dict[str, list[int]] = {}
        for night in nightlies(by_source[pair.mirror], pair.mirror_regime, renames):
            ref = paired(night, reference)
            if ref is None or not ref.groups:
                continue
            sums = weeks.setdefault(iso_week(night.built_at), [0, 0, 0, 0])
            sums[0] += 1
            sums[1] += len(ref.groups)
            sums[2] += len(ref.groups & night.groups)
            sums[3] += len(ref.groups & night.passed)
        for week, (count, groups, ran, passed) in sorted(weeks.items()):
            rows.append(
                {
                    "source_id": pair.mirror,
                    "regime": pair.mirror_regime,
                    "reference_id": pair.reference,
                    "reference_regime": pair.reference_regime,
                    "week": week,
                    "nightlies": count,
                    "reference_groups": groups,
                    "groups_run": ran,
                    "groups_passed": passed,
                    "run_share": ran / groups,
                    "pass_share": passed / groups,
                }
            )
    return rows
