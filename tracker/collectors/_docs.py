"""Shared document model for the vendor-document kinds (changelog, release notes, matrices).

Markdown (markdown-it-py), reStructuredText (docutils) and HTML (BeautifulSoup) are all turned
into the same small tree: a `Section` has a title, a level, a 1-based source line, its `Block`s
(paragraphs, list items, tables) and its sub-sections. The kinds then walk that tree; nothing
here knows about a particular vendor. Dates are parsed by `parse_date`, which only accepts a
complete calendar date and never guesses a missing part.

Not a collector kind: the leading underscore keeps the registry from loading it as one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from tracker.versions import parse_version

# ----------------------------------------------------------------------------------------- model


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
    nested: list["Block"] = field(default_factory=list)
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
    children: list["Section"] = field(default_factory=list)
    # (line, message) of markup errors the parser recovered from (a malformed table ...);
    # only filled on the root. Callers report each with ctx.skip.
    problems: list[tuple[int | None, str]] = field(default_factory=list)

    def walk(self) -> Iterator["Section"]:
        """This section and every section below it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()


def _nest(root: Section, flat: list[Section]) -> Section:
    """Nest sections listed in document order by their heading level."""
    stack = [root]
    for section in flat:
        while len(stack) > 1 and stack[-1].level >= section.level:
            stack.pop()
        stack[-1].children.append(section)
        stack.append(section)
    return root


def _clean(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]+", " ", re.sub(r"\n{3,}", "\n\n", text)).strip()


# -------------------------------------------------------------------------------------- markdown

_MD = None


def _markdown():
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark").enable("table")
    return _MD


def _md_inline(node) -> str:
    parts: list[str] = []
    for child in node.children or []:
        if child.type in ("text", "html_inline"):
            parts.append(child.content if child.type == "text" else "")
        elif child.type == "code_inline":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" " if child.type == "softbreak" else "\n")
        elif child.type == "image":
            parts.append(child.content or "")
        else:  # link, strong, em, s: keep their text
            parts.append(_md_inline(child))
    return "".join(parts)


def _md_text(node) -> str:
    """Plain text of a block node, paragraphs separated by blank lines, lists as "- " lines."""
    if node.type == "inline":
        return _md_inline(node)
    if node.type in ("fence", "code_block"):
        return ""  # code samples are not prose; they would only add noise to notes
    if node.type == "html_block":
        return ""
    if node.type == "list_item":
        parts = [t for t in (_md_text(c) for c in node.children) if t]  # render each once
        return "- " + "\n  ".join(parts).strip()
    if node.type == "table":
        return "\n".join(" | ".join(row) for row in _md_table_rows(node))
    texts = [t for t in (_md_text(c) for c in node.children or []) if t]
    sep = "\n" if node.type in ("bullet_list", "ordered_list") else "\n\n"
    return sep.join(texts)


def _md_table_rows(node) -> list[list[str]]:
    rows = []
    for part in node.children:
        for tr in part.children:
            rows.append([_clean(_md_inline(cell.children[0])) if cell.children else ""
                         for cell in tr.children])
    return rows


def _md_strong_lead(para) -> tuple[str | None, bool]:
    """(bold lead-in text, whether the paragraph is only one link) of a paragraph node."""
    inline = para.children[0] if para.children else None
    kids = [c for c in (inline.children if inline else []) if not
            (c.type == "text" and not c.content.strip())]
    strong = _md_inline(kids[0]).strip() if kids and kids[0].type == "strong" else None
    only_link = bool(kids) and kids[0].type == "link" and all(
        c.type == "text" and c.content.strip() in ("", ".") for c in kids[1:])
    return strong, only_link


def _md_block(node, out: list[Block]) -> None:
    line = node.map[0] + 1 if node.map else None
    if node.type == "paragraph":
        strong, only_link = _md_strong_lead(node)
        out.append(Block("para", _clean(_md_text(node)), line, strong=strong,
                         only_link=only_link))
    elif node.type in ("bullet_list", "ordered_list"):
        for item in node.children:
            out.append(_md_item(item))
    elif node.type == "blockquote":
        for child in node.children:
            _md_block(child, out)
    elif node.type == "table":
        rows = _md_table_rows(node)
        out.append(Block("table", "\n".join(" | ".join(r) for r in rows), line, rows=rows,
                         header_rows=1))
    elif node.type == "fence" and node.info.strip().startswith("{"):
        # MyST admonitions (```{note}) hold prose; code fences do not.
        text = "\n".join(ln for ln in node.content.splitlines() if not ln.startswith(":"))
        out.append(Block("admonition", _clean(text), line))


def _md_item(item) -> Block:
    line = item.map[0] + 1 if item.map else None
    first_para = next((c for c in item.children if c.type == "paragraph"), None)
    first = _clean(_md_text(first_para)) if first_para is not None else ""
    strong, only_link = _md_strong_lead(first_para) if first_para is not None else (None, False)
    nested: list[Block] = []
    for child in item.children:
        if child.type in ("bullet_list", "ordered_list"):
            nested.extend(_md_item(grand) for grand in child.children)
    text = _clean("\n".join(t for t in (_md_text(c) for c in item.children) if t))
    return Block("item", text, line, first=first, nested=nested, strong=strong,
                 only_link=only_link)


def markdown_tree(text: str) -> Section:
    """Parse Markdown (CommonMark + tables) into a Section tree rooted at a level-0 section."""
    from markdown_it.tree import SyntaxTreeNode

    root = SyntaxTreeNode(_markdown().parse(text))
    top = Section("", 0, 1)
    flat: list[Section] = []
    current = top
    for node in root.children:
        if node.type == "heading":
            current = Section(_clean(_md_inline(node.children[0])), int(node.tag[1:]),
                              node.map[0] + 1 if node.map else None)
            flat.append(current)
        else:
            _md_block(node, current.blocks)
    return _nest(top, flat)


# ---------------------------------------------------------------------------- reStructuredText

_RST_READY: set[str] = set()


def _generic_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx roles (:ref:, :doc:, :func: ...) rendered as their visible text."""
    from docutils import nodes

    match = re.match(r"^(.*?)\s*<[^<>]*>$", text, re.S)
    shown = match.group(1) if match and match.group(1) else text
    return [nodes.inline(rawtext, shown.lstrip("~!"))], []


def _prepare_rst(text: str) -> None:
    """Register no-op handlers for the Sphinx-only roles and directives this text uses.

    docutils only knows its own roles and directives; Sphinx documents use many more. Unknown
    roles become their visible text; unknown directives (toctree, grid, tab-set, dropdown ...)
    become containers whose content is parsed as ordinary reStructuredText, so release notes
    nested in them are kept. docutils keeps these registrations process-wide, which is fine:
    they only ever make more documents parse.
    """
    from docutils.parsers.rst import Directive, directives, roles

    class _AnyOption(dict):
        def __contains__(self, key):
            return True

        def __getitem__(self, key):
            return directives.unchanged

    class Generic(Directive):
        optional_arguments = 100
        final_argument_whitespace = True
        has_content = True
        option_spec = _AnyOption()

        def run(self):
            from docutils import nodes

            node = nodes.container()
            if self.name == "program-output" or self.name.endswith("code") or \
                    self.name == "code-block":
                return []  # generated or code output: nothing to read
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    for name in set(re.findall(r":([A-Za-z][\w+.-]*(?::[\w+.-]+)?):`", text)):
        if name not in _RST_READY and roles._roles.get(name) is None \
                and name not in roles._role_registry:
            roles.register_local_role(name, _generic_role)
        _RST_READY.add(name)
    for name in set(re.findall(r"^\s*\.\. ([A-Za-z][\w:-]*)::", text, re.M)):
        if f"d:{name}" not in _RST_READY and name not in directives._directives \
                and name not in directives._directive_registry:
            directives.register_directive(name, Generic)
        _RST_READY.add(f"d:{name}")


_SKIP_RST = {"system_message", "footnote_reference", "citation_reference", "target",
             "comment", "substitution_definition", "literal_block", "raw", "image", "meta",
             "topic", "colspec", "footnote", "citation"}


def _rst_line(node) -> int | None:
    for candidate in node.findall(include_self=True):
        if getattr(candidate, "line", None):
            return candidate.line
    parent = node.parent
    while parent is not None:
        if getattr(parent, "line", None):
            return parent.line
        parent = parent.parent
    return None


def _rst_text(node) -> str:
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return str(node)
    if node.tagname in _SKIP_RST:
        return ""
    if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        return "\n".join("- " + _rst_text(item).replace("\n", "\n  ") for item in node.children)
    if isinstance(node, nodes.table):
        return "\n".join(" | ".join(row) for row in _rst_table_rows(node)[0])
    if isinstance(node, nodes.TextElement):
        text = "".join(_rst_text(child) for child in node.children)
        # A paragraph's line breaks are source wrapping, not meaning.
        return " ".join(text.split()) if isinstance(node, nodes.paragraph) else text
    parts = [t for t in (_rst_text(c).strip() for c in node.children) if t]
    return "\n\n".join(parts)


def _rst_table_rows(table) -> tuple[list[list[str]], int]:
    from docutils import nodes

    rows, headers = [], 0
    for row in table.findall(nodes.row):
        cells = [_clean(_rst_text(entry)) for entry in row.children
                 if isinstance(entry, nodes.entry)]
        rows.append(cells)
        if isinstance(row.parent, nodes.thead):
            headers += 1
    return rows, headers


def _rst_para(node) -> Block:
    from docutils import nodes

    kids = [c for c in node.children if not (isinstance(c, nodes.Text) and not c.strip())]
    strong = _clean(_rst_text(kids[0])) if kids and isinstance(kids[0], nodes.strong) else None
    only_link = len(kids) == 1 and isinstance(kids[0], (nodes.reference, nodes.inline))
    return Block("para", _clean(_rst_text(node)), _rst_line(node), strong=strong,
                 only_link=only_link)


def _rst_item(node) -> Block:
    from docutils import nodes

    first_para = next((c for c in node.children if isinstance(c, nodes.paragraph)), None)
    head = _rst_para(first_para) if first_para is not None else Block("para", "")
    nested = [_rst_item(grand) for child in node.children
              if isinstance(child, (nodes.bullet_list, nodes.enumerated_list))
              for grand in child.children]
    return Block("item", _clean(_rst_text(node)), _rst_line(node), first=head.text,
                 nested=nested, strong=head.strong, only_link=head.only_link)


def _rst_blocks(node, section: Section, flat: list[Section], level: int) -> None:
    from docutils import nodes

    for child in node.children:
        if isinstance(child, nodes.section):
            title = next((c for c in child.children if isinstance(c, nodes.title)), None)
            sub = Section(_clean(_rst_text(title)) if title is not None else "", level + 1,
                          _rst_line(title) if title is not None else _rst_line(child))
            flat.append(sub)
            _rst_blocks(child, sub, flat, level + 1)
        elif isinstance(child, nodes.paragraph):
            section.blocks.append(_rst_para(child))
        elif isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
            section.blocks.extend(_rst_item(item) for item in child.children)
        elif isinstance(child, nodes.table):
            rows, headers = _rst_table_rows(child)
            section.blocks.append(Block("table", "\n".join(" | ".join(r) for r in rows),
                                        _rst_line(child), rows=rows, header_rows=headers))
        elif isinstance(child, nodes.Admonition):
            text = _clean(_rst_text(child))
            if text:
                section.blocks.append(Block("admonition", text, _rst_line(child)))
        elif isinstance(child, (nodes.container, nodes.block_quote, nodes.compound,
                                nodes.line_block)):
            _rst_blocks(child, section, flat, level)
        elif isinstance(child, nodes.field_list):
            for fld in child.children:
                name = _clean(_rst_text(fld.children[0]))
                value = _clean(_rst_text(fld.children[1])) if len(fld.children) > 1 else ""
                section.blocks.append(Block("para", f"{name}: {value}", _rst_line(fld)))


def rst_doctree(text: str):
    """Parse reStructuredText with docutils, tolerant of Sphinx extensions.

    Problems are reported into the tree (never raised, never printed): report and halt levels
    are set above "severe". File inclusion and raw passthrough are off: a fetched document must
    not read local files.
    """
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    _prepare_rst(text)
    settings = get_default_settings(Parser)
    settings.report_level = 5
    settings.halt_level = 5
    settings.warning_stream = False
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.doctitle_xform = False
    document = new_document("<document>", settings)
    Parser().parse(text, document)
    return document


def rst_tree(text: str) -> Section:
    """Parse reStructuredText into a Section tree rooted at a level-0 section."""
    from docutils import nodes

    top = Section("", 0, 1)
    flat: list[Section] = []
    document = rst_doctree(text)
    _rst_blocks(document, top, flat, 0)
    for message in document.findall(nodes.system_message):
        if message["level"] >= 3:  # ERROR or SEVERE: content was lost, say so
            first = message.children[0].astext() if message.children else message.astext()
            top.problems.append((message.get("line"), first.split("\n")[0]))
    return _nest(top, flat)


# ------------------------------------------------------------------------------------------ HTML


def html_tree(text: str) -> Section:
    """Parse an HTML page into a Section tree: h1-h6 open sections; p, li, tables, admonition
    divs become blocks. Navigation, scripts and styles are dropped."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for junk in soup(["script", "style", "nav", "header", "footer", "noscript"]):
        junk.decompose()
    body = soup.find("main") or soup.find(attrs={"role": "main"}) or soup.body or soup
    top = Section("", 0, 1)
    flat: list[Section] = []
    current = top
    for element in body.find_all(["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "table"]):
        line = getattr(element, "sourceline", None)
        if element.name[0] == "h" and element.name[1:].isdigit():
            current = Section(_clean(element.get_text(" ")).rstrip("¶#").strip(),
                              int(element.name[1]), line)
            flat.append(current)
        elif element.name == "table":
            rows = [[_clean(c.get_text(" ")) for c in tr.find_all(["th", "td"])]
                    for tr in element.find_all("tr")]
            headers = sum(1 for tr in element.find_all("tr") if tr.find("th") and not tr.find("td"))
            current.blocks.append(Block("table", "\n".join(" | ".join(r) for r in rows), line,
                                        rows=rows, header_rows=headers))
        elif element.find_parent(["li", "table"]) is not None:
            continue  # nested in an item or a table: part of that block's text
        elif element.name == "li":
            first = element.find("p")
            first_text = _clean((first or element).get_text(" "))
            nested = [Block("item", _clean(li.get_text(" ")), getattr(li, "sourceline", None),
                            first=_clean(li.get_text(" ")))
                      for li in element.find_all("li")]
            if first is None and nested:
                own = element.find(string=True, recursive=False)
                first_text = _clean(own or "")
            strong = element.find(["strong", "b"])
            lead = _clean(strong.get_text(" ")) if strong is not None and \
                first_text.startswith(_clean(strong.get_text(" "))) else None
            current.blocks.append(Block("item", _clean(element.get_text(" ")), line,
                                        first=first_text, nested=nested, strong=lead))
        else:
            text_ = _clean(element.get_text(" "))
            if text_:
                strong = element.find(["strong", "b"])
                lead = _clean(strong.get_text(" ")) if strong is not None and \
                    text_.startswith(_clean(strong.get_text(" "))) else None
                current.blocks.append(Block("para", text_, line, strong=lead))
    return _nest(top, flat)


def tree_for(text: str, fmt: str) -> Section:
    """The Section tree of `text` in format markdown | rst | html."""
    if fmt in ("markdown", "md"):
        return markdown_tree(text)
    if fmt == "rst":
        return rst_tree(text)
    if fmt == "html":
        return html_tree(text)
    raise ValueError(f"unknown document format {fmt!r} (markdown, rst, html)")


def format_of(url: str, default: str = "markdown") -> str:
    """Guess a document format from a URL or path suffix."""
    lower = url.lower().split("?")[0]
    if lower.endswith((".rst", ".txt")):
        return "rst"
    if lower.endswith((".html", ".htm")) or lower.endswith("/"):
        return "html"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".md", ".markdown")):
        return "markdown"
    return default


# ----------------------------------------------------------------------------------------- dates

_MONTHS = {name: i for i, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
     ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
     ("oct", "october"), ("nov", "november"), ("dec", "december")], start=1) for name in names}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = (
    # "July 16, 2026", "Sept 18, 2023", "Dec 4 2023", "Mar. 4, 2025"
    re.compile(rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+"
               rf"(?P<year>\d{{4}})\b", re.I),
    # "16 July 2026"
    re.compile(rf"\b(?P<day>\d{{1,2}})\s+(?P<mon>{_MONTH_RE})\.?,?\s+(?P<year>\d{{4}})\b", re.I),
    # "2026-07-16"
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b"),
    # "05/21/2026", "5/1/2026" (US order, as AWS and AMD write them)
    re.compile(r"\b(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b"),
)


def find_date(text: str | None) -> datetime | None:
    """The first complete calendar date in `text` as UTC midnight, or None (never a guess:
    "January 12ish 2021" and "TBD" are not dates)."""
    if not text:
        return None
    best: tuple[int, datetime] | None = None
    for pattern in _DATE_PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        parts = match.groupdict()
        month = int(parts["month"]) if parts.get("month") else _MONTHS[parts["mon"].lower()]
        try:
            value = datetime(int(parts["year"]), month, int(parts["day"]), tzinfo=timezone.utc)
        except ValueError:
            continue
        if best is None or match.start() < best[0]:
            best = (match.start(), value)
    return best[1] if best else None


# --------------------------------------------------------------------------------- history


def history_dates(text: str, fmt: str) -> dict[str, datetime]:
    """Version -> release date from a release-history table (ROCm ``versions.md`` or the RST
    list-table of ``versions.rst``): the first cell holding a version, the first holding a date.
    """
    dates: dict[str, datetime] = {}
    for section in tree_for(text, fmt).walk():
        for block in section.blocks:
            for row in block.rows[block.header_rows:] if block.kind == "table" else []:
                version = next((parse_version(c) for c in row if parse_version(c)), None)
                date = next((find_date(c) for c in row if find_date(c)), None)
                if version and date:
                    dates.setdefault(version.version, date)
    return dates


def load_history(ctx) -> dict[str, datetime]:
    """The release history named by ``history_url``: fetched through ``ctx.http`` when there is
    a client, read from disk when it is a local path (``tracker parse``), else empty."""
    url = ctx.option("history_url")
    if not url:
        return {}
    fmt = format_of(url)
    if ctx.http is not None:
        response = ctx.http.get(url, conditional=False)  # needed whole whenever the doc changed
        return history_dates(response.text, fmt) if response is not None else {}
    path = Path(url)
    return history_dates(path.read_text(encoding="utf-8"), fmt) if path.exists() else {}


# -------------------------------------------------------------------------------------- versions

FRAMEWORKS = {"pytorch": "pytorch", "torch": "pytorch", "jax": "jax", "jaxlib": "jaxlib",
              "vllm": "vllm", "tensorflow": "tensorflow", "triton": "triton"}
_VERSION_TOKEN = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+(?:[.-]?(?:rc|a|b|post|dev)\d*)?)"
                            r"(?![\w.]*\d)")


def framework_of(text: str) -> str | None:
    """The tracked framework a label names ("PyTorch", ":doc:`JAX <...>`"), or None."""
    words = re.findall(r"[a-z]+", text.lower())
    for word in words:
        if word in FRAMEWORKS:
            return FRAMEWORKS[word]
    return None


def versions_in(text: str) -> list[str]:
    """Every dotted version in `text`, PEP 440-normalised, in order, without repeats."""
    found: list[str] = []
    for match in _VERSION_TOKEN.finditer(text or ""):
        parsed = parse_version(match.group(1))
        if parsed is not None and parsed.version not in found:
            found.append(parsed.version)
    return found


def mentions(framework: str, versions: list[str], status: str = "supported") -> list[dict]:
    """Structured mentions in the shape the tagger uses."""
    return [{"framework": framework, "version": v, "status": status} for v in versions]


# ----------------------------------------------------------------------------------------- notes


def is_lead_in(block: Block) -> bool:
    """A bullet that only names a group for its nested bullets ("* Bug fixes", "* Breaking
    changes:"): short, not a sentence, with a nested list."""
    first = block.first.strip()
    return bool(block.nested) and len(first.split()) <= 5 and not first.endswith(".")



def slug(text: str) -> str:
    """A short, stable, URL-ish form of a heading."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def text_key(text: str) -> str:
    """A stable digest of an item's text (whitespace-insensitive) for external ids."""
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:12]


def short_title(text: str, limit: int = 160) -> str:
    """The first line of `text`, cut at a word boundary to at most `limit` characters."""
    line = text.strip().split("\n", 1)[0].lstrip("- ").strip()
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0] + " ..."


class IdMaker:
    """External ids from (scope, section, text digest), with a counter for repeated texts so
    two identical bullets of one section keep distinct, stable ids."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, *parts: str) -> str:
        base = "#".join(parts)
        count = self._seen.get(base, 0)
        self._seen[base] = count + 1
        return base if count == 0 else f"{base}~{count}"


def note_attrs(**values: Any) -> dict[str, Any]:
    """attrs without the None / empty values (the store keeps attrs as JSON)."""
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}
