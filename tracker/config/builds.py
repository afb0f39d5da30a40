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

A pattern is matched against every stored text, so one that can backtrack without bound is
refused when the configuration is read (``sources check`` and every command's start): a
repeated group holding a repeat of its own (``(a+)+``, ``(\\d+\\.?)+``), unless the group
also holds, always, a character that inner repeat cannot match (``(?:\\.\\d+)*``,
``(?:[a-z.]+_)*``): each turn then ends at that character, and the match stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    nested = nested_repeat(text)
    if nested:
        raise ConfigError(
            f"{where}: key 'pattern': {nested} repeats a repeat, which can backtrack "
            "without bound on a long text; write the inner repeat so that every turn ends at a "
            "character it cannot match (e.g. (?:\\.\\d+)*)"
        )
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


def nested_repeat(text: str) -> str | None:
    """The first repeated part of the pattern `text` that can backtrack without bound (see the
    module docstring), as a short description; None when there is none."""
    import re._parser as parser  # type: ignore[import-not-found]  # the stdlib's parse tree

    found = _nested(parser.parse(text, re.IGNORECASE))
    return None if found is None else f"its repeat #{found} (counted from the left)"


def _nested(items: Sequence, count: list[int] | None = None) -> int | None:
    count = [0] if count is None else count
    for op, value in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            count[0] += 1
            low, high, body = value
            if high > 1 and _inner_repeats(body) and not _delimited(body):
                return count[0]
            found = _nested(body, count)
        elif name == "SUBPATTERN":
            found = _nested(value[-1], count)
        elif name in ("BRANCH",):
            found = next((f for b in value[1] if (f := _nested(b, count)) is not None), None)
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _nested(value[1], count)
        else:
            found = None
        if found is not None:
            return found
    return None


def _flat(body: Sequence) -> list:
    """`body` with its non-capturing and capturing groups opened (one level of items)."""
    out = []
    for op, value in body:
        if str(op) == "SUBPATTERN":
            out.extend(_flat(value[-1]))
        else:
            out.append((op, value))
    return out


def _inner_repeats(body: Sequence) -> bool:
    """Whether `body` holds a repeat of more than one turn, at any depth."""
    for op, value in body:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and value[1] > 1:
            return True
        children = (
            [value[-1]] if name == "SUBPATTERN"
            else value[1] if name == "BRANCH"
            else [value[2]] if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
            else []
        )  # fmt: skip
        if any(_inner_repeats(child) for child in children):
            return True
    return False


def _delimited(body: Sequence) -> bool:
    """Whether `body` is a plain sequence whose inner repeats each repeat one character class
    and that holds, not optional, a literal character none of them can match."""
    items = _flat(body)
    repeated = []
    for op, value in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            inner = _flat(value[2])
            if len(inner) != 1 or str(inner[0][0]) not in ("LITERAL", "NOT_LITERAL", "IN"):
                return False
            repeated.append(inner[0])
        elif name not in ("LITERAL", "IN", "AT"):
            return False
    literals = [chr(value) for op, value in items if str(op) == "LITERAL"]
    return any(not any(_takes(item, ch) for item in repeated) for ch in literals)


def _takes(item: tuple, ch: str) -> bool:
    """Whether the one-character item (LITERAL, NOT_LITERAL or IN) matches `ch`, ignoring
    case."""
    op, value = item
    cases = {ch, ch.lower(), ch.upper()}
    if str(op) == "LITERAL":
        return chr(value) in cases
    if str(op) == "NOT_LITERAL":
        return chr(value) not in cases
    negate = False
    hit = False
    for kind, arg in value:
        kind = str(kind)
        if kind == "NEGATE":
            negate = True
        elif kind == "LITERAL":
            hit |= chr(arg) in cases
        elif kind == "RANGE":
            hit |= any(arg[0] <= ord(c) <= arg[1] for c in cases)
        elif kind == "CATEGORY":
            hit |= _category(str(arg), ch)
        else:
            hit = True  # a form not judged here: taken as matching (the safe side)
    return hit != negate


def _category(name: str, ch: str) -> bool:
    tests = {
        "CATEGORY_DIGIT": ch.isdigit(), "CATEGORY_NOT_DIGIT": not ch.isdigit(),
        "CATEGORY_SPACE": ch.isspace(), "CATEGORY_NOT_SPACE": not ch.isspace(),
        "CATEGORY_WORD": ch.isalnum() or ch == "_",
        "CATEGORY_NOT_WORD": not (ch.isalnum() or ch == "_"),
    }  # fmt: skip
    return tests.get(name, True)
