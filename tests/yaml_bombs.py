"""YAML alias bombs for the tests of hostile sources.yaml: nine lines of nested aliases (each
list nine aliases of the one above) stand for 9**9 values in a few hundred bytes."""

from __future__ import annotations

NAMES = "abcdefghijk"


def bomb(levels: int, target: str) -> str:
    """A sources.yaml whose `target` ("package", "id" or "top_events") is the top of a
    `levels`-deep alias bomb anchored under `settings` (a section kept as written)."""
    lines = ["settings:", '  l1: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        above, name = NAMES[level - 1], NAMES[level]
        lines.append(f"  l{level + 1}: &{name} [" + ",".join([f"*{above}"] * 9) + "]")
    top = f"*{NAMES[levels - 1]}"
    if target == "package":
        lines.append(f"sources:\n  - {{id: s, kind: pypi, project: p, package: {top}}}")
    elif target == "id":
        lines.append(f"sources:\n  - {{id: {top}, kind: pypi, project: p, package: x}}")
    else:
        lines.append(f"sources: []\ndigest: {{{target}: {top}}}")
    return "\n".join(lines) + "\n"
