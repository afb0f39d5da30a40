"""The section-tree model shared by the document parsers (`_docs_markdown`, `_docs_rst`,
`_docs_html`): a `Section` has a title, a level, a 1-based source line, its `Block`s
(paragraphs, list items, tables, admonitions) and its sub-sections.

Private to the vendor-document kinds; import it through `tracker.collect.sources._docs`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Block:
    """One unit of content. `kind` is "para", "item" (a list item), "table" or "admonition".

    `text` is the whole rendered text (nested lists included); `first` the first paragraph of
    a list item; `nested` the items of lists nested in an item (for lead-in bullets such as
    "* Bug fixes" whose children are the real notes); `only_link` says the first paragraph was
    nothing but a link (a navigation bullet); `strong` is the text of a bold lead-in that opens
    the first paragraph (None if there is none); `rows` holds a table's rows, header first,
    with `header_rows` of them being headers.
    """

    kind: str
    text: str
    line: int | None = None
    first: str = ""
    nested: list[Block] = field(default_factory=list)
    only_link: bool = False
    strong: str | None = None
    rows: list[list[str]] = field(default_factory=list)
    header_rows: int = 0


@dataclass
class Section:
    """A heading and what follows it up to the next heading of the same or a higher level."""

    title: str
    level: int
    line: int | None = None
    blocks: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    # (line, message) of markup errors the parser recovered from (a malformed table ...);
    # only filled on the root. Callers report each with ctx.skip.
    problems: list[tuple[int | None, str]] = field(default_factory=list)

    def walk(self) -> Iterator[Section]:
        """This section and every section below it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()


def nest(root: Section, flat: list[Section]) -> Section:
    """Nest sections listed in document order by their heading level."""
    stack = [root]
    for section in flat:
        while len(stack) > 1 and stack[-1].level >= section.level:
            stack.pop()
        stack[-1].children.append(section)
        stack.append(section)
    return root


_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def clean(text: str) -> str:
    """`text` with runs of blank lines and of spaces collapsed, stripped."""
    return _SPACES.sub(" ", _BLANK_LINES.sub("\n\n", text)).strip()
