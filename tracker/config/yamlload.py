"""YAML read as yaml.safe_load reads it, with YAML aliases bounded.

An alias (``*name``) reuses the node of an anchor (``&name``): nine lines of nested aliases
stand for 9**9 values. The parsers keep one shared node per anchor, so the document reads
fast, but everything that walks the value afterwards (a check, an error message's repr, a
JSON dump) walks the expansion: a 525-byte sources.yaml took 27 s and 3 GB. The composed
node graph is measured before any object is constructed, and a document whose aliases add
more than ALIAS_BUDGET values is refused. The shipped files reuse a few small lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracker.errors import ConfigError

# Values (scalars, lists, mappings) that alias uses may add to a document, counted as if each
# alias were written out. sources.yaml's aliases add about a hundred.
ALIAS_BUDGET = 10_000
# The largest sources.yaml read: parsed YAML takes about 70 bytes of memory per byte of file
# (over 2 GB for 590,000 sources in 41 MB) and up to 190 for the densest (one-character
# values), so 2 MB stays under 400 MB. The shipped file is 36 kB for about a hundred sources.
MAX_SOURCES_MB = 2


def read_sources_text(file: Path) -> str:
    """The text of a sources file, read only when it is at most MAX_SOURCES_MB: a larger one
    is refused unread with a ConfigError naming it (UnicodeDecodeError and OSError as
    reading raises them)."""
    with file.open("rb") as handle:
        content = handle.read(MAX_SOURCES_MB * 1024 * 1024 + 1)
    if len(content) > MAX_SOURCES_MB * 1024 * 1024:
        raise ConfigError(
            f"{file}: larger than {MAX_SOURCES_MB} MB (MAX_SOURCES_MB), the most a sources "
            "file may hold: not read (a sources file lists tens to thousands of sources; "
            "reading a larger one whole would take gigabytes of memory)"
        )
    return content.decode("utf-8")


def safe_load_yaml(text: str, where: str = "<yaml text>") -> Any:
    """yaml.safe_load's result, parsed by the C parser when there is one. A text it rejects is
    parsed again by the pure-Python parser, whose error (with a snippet of the line) is the one
    raised, as yaml.safe_load raises it. ConfigError naming `where` and a line when aliases
    expand past ALIAS_BUDGET values or an alias sits inside its own anchor."""
    import yaml

    # libyaml's parser when PyYAML was built with it: the same constructor and resolver (Python
    # classes), so the same objects, for an eighth of the time on sources.yaml
    try:
        return _load(text, getattr(yaml, "CSafeLoader", yaml.SafeLoader), where)
    except yaml.YAMLError:
        return _load(text, yaml.SafeLoader, where)


def _load(text: str, loader_class: Any, where: str) -> Any:
    """What yaml.load(text, Loader=loader_class) does, with the node graph measured in between."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in text:  # else there is no alias to count
            _check_aliases(node, where)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_aliases(root: Any, where: str) -> None:
    """ConfigError unless the aliases under `root` add at most ALIAS_BUDGET values.

    One pass over the nodes (an anchor's node is met first where it is written): a node met
    again is an alias use, which adds its value written out. Only those nodes are sized, so
    the pass costs well under a millisecond on sources.yaml (whose parse takes about 9)."""
    seen: set[int] = set()
    sizes: dict[int, int] = {}
    added = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            added += _size(node, sizes, where)
            if added > ALIAS_BUDGET:
                raise ConfigError(
                    f"{where}: line {node.start_mark.line + 1}: the value anchored here is "
                    f"reused by YAML aliases past {ALIAS_BUDGET:,} values in all (refused: "
                    "reuse fewer or smaller anchors)"
                )
            continue
        seen.add(id(node))
        if node.id == "mapping":
            for pair in node.value:
                stack.extend(pair)
        elif node.id == "sequence":
            stack.extend(node.value)


def _size(node: Any, sizes: dict[int, int], where: str) -> int:
    """How many values `node` stands for, written out (capped past ALIAS_BUDGET); `sizes`
    keeps those already counted. ConfigError when the node contains itself."""
    walking: set[int] = set()
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        key = id(item)
        if key in sizes:
            continue
        children = _children(item)
        if done:
            total = 1 + sum(sizes[id(child)] for child in children)
            sizes[key] = min(total, ALIAS_BUDGET + 1)  # small ints, however deep the nesting
            walking.discard(key)
        elif key in walking:
            raise ConfigError(
                f"{where}: line {node.start_mark.line + 1}: the value anchored here holds an "
                "alias to itself (refused: it never ends written out)"
            )
        else:
            walking.add(key)
            stack.append((item, True))
            stack.extend((child, False) for child in children)
    return sizes[id(node)]


def _children(node: Any) -> list[Any]:
    """A mapping's keys and values, a sequence's items; a scalar has none."""
    if node.id == "mapping":
        return [child for pair in node.value for child in pair]
    if node.id == "sequence":
        return list(node.value)
    return []
