"""Cassettes: replaying and recording a source's HTTP with vcrpy (``cassette``), and their
snapshot dates, the day a recorded replay's facts were true.

Every cassette states its snapshot in a comment line near the top that vcrpy ignores:
``# snapshot: YYYY-MM-DD`` (the date its facts were true). ``tracker collect --record`` writes
it (``stamp``); hand-written cassettes say ``hand-written`` on that line. The runner records
each replayed run's snapshot on its ``runs`` row (tracker.store.asof reads it back).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date
from pathlib import Path

from tracker.errors import ReplayMissing, SourceError
from tracker.events import now_utc

log = logging.getLogger("tracker.snapshot")

SNAPSHOT_LINE = re.compile(r"^#\s*snapshot:\s*(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)
HEADER_LINES = 40  # the snapshot line sits in the leading comment block


def cassette_path(directory: str | Path, source_id: str) -> Path:
    """``DIR/<source id>.yaml``; SourceError unless that file sits in DIR itself. Config
    checking already refuses ids with a path in them (config.value_types.SOURCE_ID): this is the
    second guard, so that no id ever records or reads a cassette outside its folder."""
    folder = Path(directory)
    path = folder / f"{source_id}.yaml"
    if path.parent.resolve() != folder.resolve() or path.name != f"{source_id}.yaml":
        raise SourceError(f"source id {source_id[:100]!r} would put its cassette outside {folder}")
    return path


def read_snapshot(path: str | Path) -> date | None:
    """The ``# snapshot: YYYY-MM-DD`` date of a cassette file, or None when it states none."""
    try:
        with Path(path).open(encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if number >= HEADER_LINES or not line.startswith("#"):
                    break
                match = SNAPSHOT_LINE.match(line)
                if match:
                    return date.fromisoformat(match.group(1))
    except (OSError, ValueError) as exc:
        log.warning("%s: cannot read its snapshot date: %s", path, exc)
    return None


def stamp(path: str | Path, day: date, how: str = "recorded by tracker collect --record") -> None:
    """Put ``# snapshot: DAY (how)`` on the first line of a freshly written cassette (an old
    snapshot line, if any, is replaced)."""
    file = Path(path)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line for line in lines if not SNAPSHOT_LINE.match(line)]
    file.write_text(f"# snapshot: {day.isoformat()} ({how})\n" + "".join(lines), encoding="utf-8")


def replay_snapshot(directory: str | Path, source_id: str) -> date | None:
    """The snapshot date of the source's cassette in `directory`; None when it states none or
    the id names no cassette there (that run already failed on it)."""
    try:
        return read_snapshot(cassette_path(directory, source_id))
    except SourceError:
        return None


@contextmanager
def cassette(
    source_id: str, replay: str | Path | None, record: str | Path | None
) -> Iterator[None]:
    """Replay (`--replay DIR`) or record (`--record DIR`) this source's HTTP with vcrpy.

    Cassettes are `DIR/<source id>.yaml`. A recording is stamped `# snapshot: <today>` and a
    replay's run row keeps the snapshot date (``read_snapshot``). Recording filters
    Authorization and cookies, so no token ever reaches a cassette.
    """
    if not replay and not record:
        yield
        return
    import vcr
    from vcr.errors import CannotOverwriteExistingCassetteException

    if replay:
        path = cassette_path(replay, source_id)
        if not path.exists():
            raise ReplayMissing(
                f"no cassette {path} to replay: record one with "
                f"`tracker collect --source {source_id} --record {replay}`"
            )
        try:  # vcrpy would log a traceback for this, then treat the file as empty
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceError(
                f"{path}: not UTF-8 (byte {exc.start} is {exc.object[exc.start : exc.start + 1]!r})"
                ": re-record the cassette"
            ) from None
        except OSError as exc:  # a folder of that name, no read permission
            raise SourceError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        recorder = vcr.VCR(record_mode="none", match_on=("method", "uri"))
    else:
        assert record is not None  # neither replay nor record returned above
        path = cassette_path(record, source_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        recorder = vcr.VCR(
            record_mode="all",
            match_on=("method", "uri"),
            filter_headers=["authorization", "cookie"],
            before_record_response=_drop_response_cookies,
        )
    try:
        with ExitStack() as stack:
            # Replays may repeat a request (a look-back re-read): the same answer serves both.
            use = recorder.use_cassette(str(path), allow_playback_repeats=bool(replay))
            try:
                loaded = stack.enter_context(use)
            except Exception as exc:  # vcrpy reads the file here, and trusts its layout
                raise SourceError(f"{path}: {_unreadable(exc)}: re-record the cassette") from None
            if replay and not len(loaded):
                # an empty file, which vcrpy reads as no cassette (each request then missing)
                raise SourceError(
                    f"{path}: holds no recorded requests (empty, or not a vcrpy cassette): "
                    "re-record the cassette"
                )
            yield
        if record and path.exists():
            stamp(path, now_utc().date())  # the day these facts were true
    except CannotOverwriteExistingCassetteException as exc:
        request = str(exc).splitlines()[0] if str(exc) else "a request"
        raise SourceError(
            f"{path} has no recorded answer for {request}: re-record the cassette"
        ) from None


def _drop_response_cookies(response: dict) -> dict:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in ("set-cookie", "x-github-sso"):
            del headers[name]
    return response


def _unreadable(exc: Exception) -> str:
    """Why vcrpy could not load a cassette, in one line: YAML that does not parse (truncated),
    or YAML of another layout than vcrpy's (``interactions`` of request / response)."""
    import yaml

    mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, yaml.YAMLError) and mark is not None:
        return f"not readable YAML (line {mark.line + 1}: {getattr(exc, 'problem', exc)})"
    detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"not a vcrpy cassette ({type(exc).__name__}{': ' if detail else ''}{detail})"
