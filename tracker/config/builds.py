"""Build names per install channel: the ``builds:`` list beside a channel's definition in a
coverage rule, checked once into `BuildPattern` records (docs/methodology.md, "Builds named
in any record").

A build a user can install (an image tag, a wheel, a vendor plugin's version) is named in many
collected texts: a configuration file in a git history, an issue or comment body, a release
note, a revision of a vendor's page. Each channel declares how its builds are written::

    - {definition: vllm_rocm_image, evidence: {project: vllm-rocm-image, kind: release},
       builds: [{contains: "vllm-openai-rocm:",
                 pattern: "vllm/vllm-openai-rocm:v(?P<version>\\\\d+\\\\.\\\\d+\\\\.\\\\d+)"}]}

- ``pattern``: a regular expression (matched ignoring case) with a group named ``version``;
- ``contains``: a plain text every match holds, which the store uses to pick the records to
  read (a LIKE on title and body: the pattern itself is never run in SQL); checked to appear,
  as written, in the pattern;
- ``carries`` (optional): the version is a vendor plugin's that carries the upstream version in
  its first ``carries`` parts (vllm-neuron 0.24.0.1.1.0 -> vLLM 0.24.0: ``carries: 3``); a
  version with fewer parts is not one of its builds.

What a match means (tracker.measure.lag.builds): dated evidence for that channel, an upper
bound on when the build existed, at the record's date and URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError

BUILD_KEYS = {"pattern", "contains", "carries"}
MAX_PATTERNS = 20  # per channel: a bound on what every stored text is matched against
MIN_CONTAINS = 4  # a shorter anchor would pick most of the store


@dataclass(frozen=True)
class BuildPattern:
    """How one install channel's builds are named in collected texts."""

    pattern: re.Pattern[str]
    contains: str  # a plain text every match holds (the store's pre-filter)
    carries: int | None = None  # a plugin version's first parts are the upstream version

    def versions(self, text: str) -> list[tuple[str, int]]:
        """(upstream version, offset) of every build `text` names, in order."""
        out = []
        for match in self.pattern.finditer(text):
            version = (match.group("version") or "").strip().lstrip("vV")
            parts = version.split(".")
            if self.carries is not None:
                if len(parts) < self.carries:
                    continue
                version = ".".join(parts[: self.carries])
            if version:
                out.append((version, match.start()))
        return out


def parse_builds(raw: Any, where: str) -> tuple[BuildPattern, ...]:
    """The ``builds:`` value of one channel definition (ConfigError naming `where` and the
    key on any problem)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: key 'builds': must be a non-empty list of patterns")
    if len(raw) > MAX_PATTERNS:
        raise ConfigError(f"{where}: key 'builds': more than {MAX_PATTERNS} patterns")
    return tuple(_pattern(entry, f"{where}: builds[{n}]") for n, entry in enumerate(raw))


def _pattern(entry: Any, where: str) -> BuildPattern:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: must be a mapping with 'pattern' and 'contains'")
    unknown = unknown_key(entry, BUILD_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown}")
    text, contains = entry.get("pattern"), entry.get("contains")
    if not isinstance(text, str) or not text:
        raise ConfigError(f"{where}: key 'pattern': must be a regular expression")
    try:
        compiled = re.compile(text, re.IGNORECASE)
    except re.error as exc:
        raise ConfigError(f"{where}: key 'pattern': not a regular expression ({exc})") from None
    if "version" not in compiled.groupindex:
        raise ConfigError(f"{where}: key 'pattern': needs a group named 'version'")
    if not isinstance(contains, str) or len(contains.strip()) < MIN_CONTAINS:
        raise ConfigError(
            f"{where}: key 'contains': must be a plain text of {MIN_CONTAINS} or more "
            "characters that every match holds"
        )
    if contains.lower() not in text.lower().replace("\\", ""):
        raise ConfigError(
            f"{where}: key 'contains': {preview(contains)} is not written in the pattern, "
            "so a match need not hold it"
        )
    carries = entry.get("carries")
    if carries is not None and (
        isinstance(carries, bool) or not isinstance(carries, int) or not 1 <= carries <= 6
    ):
        raise ConfigError(f"{where}: key 'carries': must be a whole number from 1 to 6")
    return BuildPattern(compiled, contains, carries)
