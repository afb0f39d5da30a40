"""The earliest official build a user can install (tracker.measure.lag.channels): a combined
definition over a regime's install channels, checked once in tracker.config.coverage, on
hand-made facts (dates illustrative)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tracker.config.coverage import parse_coverage
from tracker.errors import ConfigError
from tracker.measure.facts import LagFacts
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.measure.stats.trend import POOLED, lag_trends

AS_OF = datetime(2026, 8, 22, 23, 59, 59, tzinfo=UTC)
WHEELS = {"project": "torch-rocm-wheels", "kind": "release"}
ROCK = {"project": "therock", "kind": "note", "mentions": "pytorch"}
MATRIX = {"project": "rocm", "kind": "note", "mentions": "pytorch"}


def rule(rocm: list, **extra) -> dict:
    return {"project": "pytorch", "series": "minor", "regimes": {"rocm": rocm}, **extra}


RULE = rule(
    [
        {"definition": "earliest_build", "primary": True, "channels": ["wheels", "therock"]},
        {"definition": "wheels", "evidence": WHEELS},
        {"definition": "therock", "evidence": ROCK},
        {"definition": "vendor_matrix", "evidence": MATRIX},
    ],
    in_transition={"rocm": "AMD moved its ROCm builds to TheRock in 2026"},
)


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def release(project: str, version: str, when: str) -> ReleaseFact:
    return ReleaseFact(project, version, d(when), f"https://x/{project}/{version}")


def note(project: str, when: str, *versions: str) -> NoteFact:
    mentions = tuple(("pytorch", v, "supported") for v in versions)
    return NoteFact(project, d(when), f"https://x/{project}/{when}", mentions)


RELEASES = [
    release("pytorch", "2.7.0", "2025-04-23"),
    release("pytorch", "2.8.0", "2025-08-06"),
    release("pytorch", "2.9.0", "2025-10-15"),
    release("pytorch", "2.10.0", "2026-01-21"),
    release("pytorch", "2.11.0", "2026-03-25"),
    # the upstream wheels: from 2.8 on (nothing collected before 2025-08-06)
    release("torch-rocm-wheels", "2.8.0", "2025-08-06T20:00:00"),
    release("torch-rocm-wheels", "2.9.0", "2025-10-18"),
]
NOTES = [
    note("therock", "2025-04-01"),  # TheRock's first collected note: its window starts here
    note("therock", "2025-10-16", "2.9"),  # a day before the wheels: TheRock is first for 2.9
    note("therock", "2026-02-10", "2.10"),
    note("rocm", "2025-01-01"),
    note("rocm", "2025-09-16", "2.8"),
]


def compute(raw: dict = RULE, releases=RELEASES, notes=NOTES):
    rules = tuple(parse_coverage([raw], "s.yaml"))
    unknown: list = []
    spans: dict = {}
    samples = LagFacts(rules, (), list(releases), list(notes)).samples(
        AS_OF, LagRun(unknown, spans)
    )
    rows = {(s.series, s.definition): s for s in samples if s.regime == "rocm"}
    return samples, rows, unknown, spans


def test_earliest_channel_wins_and_is_named_with_its_evidence():
    _, rows, _, _ = compute()
    first = rows[("2.9", "earliest_build")]
    assert (first.status, first.lag_days, first.channel) == ("covered", 1, "therock")
    assert first.evidence_url == "https://x/therock/2025-10-16"
    assert first.primary
    wheels = rows[("2.8", "earliest_build")]
    assert (wheels.lag_days, wheels.channel, wheels.evidence_url) == (
        0,
        "wheels",
        "https://x/torch-rocm-wheels/2.8.0",
    )
    assert rows[("2.10", "earliest_build")].channel == "therock"
    # each channel keeps its own row, not primary; the vendor matrix stays beside, unmerged
    assert rows[("2.9", "wheels")].lag_days == 3 and not rows[("2.9", "wheels")].primary
    assert rows[("2.8", "vendor_matrix")].lag_days == 41
    assert rows[("2.8", "vendor_matrix")].channel == ""


def test_open_only_when_every_channel_is_open():
    _, rows, _, _ = compute()
    late = rows[("2.11", "earliest_build")]
    assert (late.status, late.available, late.channel) == ("open", None, "")
    assert late.lag_days == (AS_OF.date() - d("2026-03-25").date()).days


def test_open_when_one_channel_watched_from_day0_though_another_began_later():
    # 2.7: TheRock's evidence reaches back (open there: it names no series); the wheels begin
    # after 2.7's day 0 with a release candidate only (no build of 2.7 or of a newer series)
    releases = [r for r in RELEASES if r.project == "pytorch"]
    releases.append(release("torch-rocm-wheels", "2.8.0rc1", "2025-07-20"))
    notes = [n for n in NOTES if n.project == "rocm" or not n.mentions]
    _, rows, unknown, _ = compute(releases=releases, notes=notes)
    assert ("2.7", "wheels") not in rows
    row = rows[("2.7", "earliest_build")]
    assert (row.status, row.channel) == ("open", "")
    assert row.lag_days == (AS_OF.date() - d("2025-04-23").date()).days
    assert not [u for u in unknown if u.series == "2.7" and u.definition == "earliest_build"]


def test_a_newer_series_build_covers_an_older_watched_series_from_its_own_day():
    # 2.7 has no build of its own. TheRock, watched from before 2.7's day 0, lists 2.9 on
    # 2025-10-16; the wheels began after 2.7's day 0 but built 2.8 on 2025-08-06: a user who
    # wanted 2.7 could install 2.8 from then (measure.supersession). Both are upper bounds and
    # the earlier one is the answer: dating 2.7 by TheRock's 2.9 would claim "not before
    # 2025-10-16" against a public build of 2025-08-06 (vLLM 0.12 on ROCm: AMD's images first
    # name a newer vLLM on 2026-07-08, vLLM's own 0.14.0 image is named on 2026-01-21)
    _, rows, _, _ = compute()
    row = rows[("2.7", "earliest_build")]
    assert (row.status, row.channel, row.covered_by) == ("covered", "wheels", "2.8")
    assert row.lag_days == (d("2025-08-06").date() - d("2025-04-23").date()).days
    assert row.evidence_url == "https://x/torch-rocm-wheels/2.8.0"
    # without the wheels' build, TheRock's newer 2.9 covers it
    releases = [r for r in RELEASES if r.project == "pytorch"]
    _, rows, _, _ = compute(releases=releases)
    row = rows[("2.7", "earliest_build")]
    assert (row.status, row.channel, row.covered_by) == ("covered", "therock", "2.9")
    assert row.lag_days == (d("2025-10-16").date() - d("2025-04-23").date()).days


def test_unknown_when_day0_precedes_every_channel():
    # 2.6: before TheRock's first note and before the first wheel; the wheels' 2.8 (newer)
    # does not cover it: no channel watched 2.6, and a newer build years later would date a
    # series whose own builds were never collected (PyTorch 2.3 on ROCm by a 2.10 wheel)
    _, rows, unknown, _ = compute(releases=[*RELEASES, release("pytorch", "2.6.0", "2025-01-29")])
    assert ("2.6", "earliest_build") not in rows
    assert ("2.6", "vendor_matrix") in rows  # the matrix is collected from 2025-01-01
    reasons = [u for u in unknown if u.series == "2.6" and u.definition == "earliest_build"]
    assert reasons == [
        (
            "pytorch",
            "2.6",
            "rocm",
            "earliest_build",
            "no channel observed it from its day 0 (wheels, therock)",
        )
    ]


def test_a_channel_with_nothing_collected_adds_nothing():
    # no wheel collected at all (a source not enabled): TheRock alone decides
    releases = [r for r in RELEASES if r.project == "pytorch"]
    _, rows, _, spans = compute(releases=releases)
    assert rows[("2.9", "earliest_build")].channel == "therock"
    # 2.8: no build of its own on TheRock; its newer 2.9 covers it (measure.supersession)
    late = rows[("2.8", "earliest_build")]
    assert (late.status, late.channel, late.covered_by) == ("covered", "therock", "2.9")
    assert spans[("pytorch", "rocm", "earliest_build")] == (d("2025-04-01"), d("2026-02-10"))


def test_a_channel_that_covers_beats_one_that_does_not_reach_back():
    # 2.7 built by TheRock: covered, though the wheels' evidence starts later
    notes = [*NOTES, note("therock", "2025-07-01", "2.7")]
    _, rows, unknown, _ = compute(notes=notes)
    row = rows[("2.7", "earliest_build")]
    assert (row.status, row.channel, row.lag_days) == ("covered", "therock", 69)
    assert not [u for u in unknown if u.series == "2.7" and u.definition == "earliest_build"]


def test_same_day_goes_to_the_channel_listed_first():
    notes = [*NOTES, note("therock", "2025-08-06T01:00:00", "2.8")]  # same day, earlier hour
    _, rows, _, _ = compute(notes=notes)
    assert rows[("2.8", "earliest_build")].channel == "wheels"
    swapped = dict(RULE, regimes={"rocm": [dict(RULE["regimes"]["rocm"][0],
                   channels=["therock", "wheels"]), *RULE["regimes"]["rocm"][1:]]})  # fmt: skip
    _, rows, _, _ = compute(swapped, notes=notes)
    assert rows[("2.8", "earliest_build")].channel == "therock"


def test_span_runs_from_the_first_channel_fact_to_the_last():
    _, _, _, spans = compute()
    assert spans[("pytorch", "rocm", "earliest_build")] == (d("2025-04-01"), d("2026-02-10"))


def test_the_pooled_headline_reads_the_combined_definition():
    samples, _, _, _ = compute()
    pooled = next(t for t in lag_trends(samples, AS_OF, "cuda") if t.group == POOLED)
    primary = [s for s in samples if s.primary and s.regime == "rocm"]
    assert {s.definition for s in primary} == {"earliest_build"}
    assert pooled.artifacts == len(primary) == 5  # 2.7-2.11
    assert pooled.open == 1  # 2.11 (2.7 is covered by the wheels' 2.8: supersession)


def test_transition_note_is_kept_per_regime():
    (parsed,) = parse_coverage([RULE], "s.yaml")
    assert parsed.transition == {"rocm": "AMD moved its ROCm builds to TheRock in 2026"}
    (combo,) = parsed.combined
    assert (combo.definition, combo.parts, combo.primary) == (
        "earliest_build",
        ("wheels", "therock"),
        True,
    )


CHANNELS = {"definition": "wheels", "evidence": WHEELS}


@pytest.mark.parametrize(
    "entries, extra, message",
    [
        ([{"definition": "eb", "primary": True, "channels": ["wheels", "nope"]}, CHANNELS], {},
         "regime 'rocm': 'eb' names channel 'nope', which is not a definition with 'evidence'"),
        ([{"definition": "eb", "primary": True, "channels": ["wheels", "eb"]}, CHANNELS], {},
         "regime 'rocm': 'eb' names itself among its channels"),
        ([{"definition": "eb", "primary": True, "channels": ["wheels", "other"]},
          {"definition": "other", "channels": ["wheels"]}, CHANNELS], {},
         "'eb' names channel 'other', which is not a definition with 'evidence'"),
        ([{"definition": "eb", "primary": True, "channels": ["wheels", "wheels"]}, CHANNELS], {},
         "'eb' names a channel twice"),
        ([{"definition": "eb", "primary": True, "channels": []}, CHANNELS], {},
         "a 'channels' entry needs 'definition' and a non-empty list"),
        ([{"definition": "eb", "primary": True, "channels": ["wheels"], "evidence": WHEELS},
          CHANNELS], {}, "regime 'rocm': unknown key 'evidence'"),
        ([{"definition": "eb", "primary": True, "channels": ["wheels"]},
          dict(CHANNELS, primary=True)], {}, "needs exactly one definition marked primary"),
        ([{"definition": "wheels", "primary": True, "channels": ["wheels"]}, CHANNELS], {},
         "names definition 'wheels' twice"),
        ([dict(CHANNELS, primary=True)], {"in_transition": {"xla": "gone"}},
         "key 'in_transition': regime 'xla' has no definitions in this rule"),
        ([dict(CHANNELS, primary=True)], {"in_transition": {"rocm": ""}},
         "key 'in_transition': regime 'rocm': must be a non-empty string"),
    ],
)  # fmt: skip
def test_bad_combined_definitions_are_one_error_naming_file_project_regime(entries, extra, message):
    with pytest.raises(ConfigError) as err:
        parse_coverage([rule(entries, **extra)], "s.yaml")
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith("s.yaml: coverage rule for 'pytorch': ")
    assert message in text


def test_channels_of_another_regime_are_not_channels():
    raw = {
        "project": "pytorch",
        "regimes": {
            "rocm": [{"definition": "eb", "primary": True, "channels": ["torch_xla"]}],
            "xla": [{"definition": "torch_xla", "primary": True,
                     "evidence": {"project": "torch-xla", "kind": "release"}}],
        },
    }  # fmt: skip
    with pytest.raises(ConfigError, match="regime 'rocm': 'eb' names channel 'torch_xla'"):
        parse_coverage([raw], "s.yaml")


def test_a_release_channel_build_covers_though_its_evidence_starts_after_day0():
    # wheels 2.7.1 on 2025-08-01: the wheels' evidence starts after 2.7's day 0, so their own
    # row is unknown (the lag is only bounded), but a build existed: installable by then
    releases = [*RELEASES, release("torch-rocm-wheels", "2.7.1", "2025-08-01")]
    _, rows, unknown, _ = compute(releases=releases)
    assert ("2.7", "wheels") not in rows
    # the wheels' own row: unknown, bounded by their earliest evidence
    assert any(
        u.series == "2.7" and u.definition == "wheels" and "at most 100 days" in u.reason
        for u in unknown
    )
    row = rows[("2.7", "earliest_build")]
    assert (row.status, row.lag_days, row.channel) == ("covered", 100, "wheels")
    assert (row.evidence_url, row.covered_by) == ("https://x/torch-rocm-wheels/2.7.1", "")
    # a build after the as-of date is not one yet
    late = [*RELEASES, release("torch-rocm-wheels", "2.11.0", "2026-09-01")]
    _, rows, _, _ = compute(releases=late)
    assert rows[("2.11", "earliest_build")].status == "open"


def test_a_note_channels_first_page_covers_nothing_before_it():
    # TheRock's first collected table already lists 2.6: "listed by then", not since when
    releases = [*RELEASES, release("pytorch", "2.6.0", "2025-01-29")]
    notes = [note("therock", "2025-04-01", "2.6"), *NOTES[1:]]
    _, rows, unknown, _ = compute(releases=releases, notes=notes)
    assert ("2.6", "earliest_build") not in rows
    assert any(u.series == "2.6" and u.definition == "earliest_build" for u in unknown)
