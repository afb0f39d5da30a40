"""reStructuredText (docutils) -> the `Section` tree of `_docs_tree`.

Contract: `rst_tree(text)` parses one document with docutils' reStructuredText parser only (no
transforms: we want the document as written, and the transform pipeline would cost time and
rewrite nothing we read), tolerant of Sphinx: roles and directives docutils does not know are
registered once, process-wide, as "show the text" / "parse the content as a container". Markup
errors never raise or print; those of level ERROR or worse are listed in `Section.problems`.
File inclusion and raw passthrough are off: a fetched document must not read local files.

Speed (the corpus benchmark, `benchmarks/parse.py`): docutils builds a new nested state
machine for every bullet list, list-table row and enumerated list, and each one instantiated
all 15 parser states, compiling their transition tables, although a list uses two or three.
`_Parser` uses docutils' documented extension point (a `Parser` subclass with its own
``state_classes``) to hand docutils state classes whose nested machines create a state only
when it is first entered (`_LazyStates`). The parse result is the same node for node (tested
against stock docutils on hand-written and corpus documents); only the unused states are never
built. That took the corpus's RST from about 1.45 s to 0.95 s. The settings object is built once
and copied per document. This relies on docutils' `StateMachine` touching ``states`` only
through ``[name]`` and ``.values()`` (true of 0.23, installed here); the doctree comparison
tests would catch a docutils release where that changed.
"""

from __future__ import annotations

import copy
import re

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Directive, Parser, directives, roles, states
from docutils.utils import new_document

from tracker.collect.sources._docs_tree import Block, Section, clean, nest

# ------------------------------------------------------------------------------ Sphinx tolerance

_RST_READY: set[str] = set()
_ROLE_USE = re.compile(r":([A-Za-z][\w+.-]*(?::[\w+.-]+)?):`")
_DIRECTIVE_USE = re.compile(r"^\s*\.\. ([A-Za-z][\w:-]*)::", re.M)
_ROLE_TARGET = re.compile(r"^(.*?)\s*<[^<>]*>$", re.S)


def _generic_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx roles (:ref:, :doc:, :func: ...) rendered as their visible text."""
    match = _ROLE_TARGET.match(text)
    shown = match.group(1) if match and match.group(1) else text
    return [nodes.inline(rawtext, shown.lstrip("~!"))], []


class _AnyOption(dict):
    """An option_spec that accepts every option (Sphinx directives have many)."""

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return directives.unchanged


class _Generic(Directive):
    """A Sphinx-only directive (toctree, grid, tab-set, dropdown ...): its content is parsed
    as ordinary reStructuredText inside a container; code and generated output are dropped."""

    optional_arguments = 100
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOption()

    def run(self):
        node = nodes.container()
        if self.name == "program-output" or self.name.endswith("code") or self.name == "code-block":
            return []  # generated or code output: nothing to read
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def _prepare_rst(text: str) -> None:
    """Register the generic handlers for the Sphinx-only roles and directives `text` uses.

    docutils only knows its own roles and directives, and offers no fallback for unknown
    ones, so the names are found in the text. Each name is looked at once per process
    (`_RST_READY`); docutils keeps registrations process-wide, which is fine: they only ever
    make more documents parse.
    """
    for name in set(_ROLE_USE.findall(text)):
        # docutils' registries are private (the type stubs leave them out), and the only way to
        # ask whether a name is known without a lookup that logs an error.
        if (
            name not in _RST_READY
            and roles._roles.get(name) is None  # type: ignore[attr-defined]
            and name not in roles._role_registry  # type: ignore[attr-defined]
        ):
            roles.register_local_role(name, _generic_role)
        _RST_READY.add(name)
    for name in set(_DIRECTIVE_USE.findall(text)):
        if (
            f"d:{name}" not in _RST_READY
            and name not in directives._directives  # type: ignore[attr-defined]
            and name not in directives._directive_registry  # type: ignore[attr-defined]
        ):
            directives.register_directive(name, _Generic)
        _RST_READY.add(f"d:{name}")


# ------------------------------------------------------------------------- the docutils parser


class _LazyStates(dict):
    """A state machine's ``states`` mapping that builds each state on first use.

    docutils' `StateMachine` reads states only by name (``states[name]``) and iterates the
    existing ones for ``runtime_init`` and ``unlink``; a state built after the machine started
    running gets its ``runtime_init`` at once, as it would have had at the start.
    """

    __slots__ = ("machine", "classes", "running")

    def __init__(self, machine, state_classes) -> None:
        super().__init__()
        self.machine = machine
        self.classes = {cls.__name__: cls for cls in state_classes}
        self.running = False

    def __missing__(self, name: str):
        cls = self.classes.get(name)
        if cls is None:
            raise KeyError(name)  # docutils turns it into UnknownStateError
        state = self[name] = cls(self.machine, self.machine.debug)
        if self.running:
            state.runtime_init()
        return state


class _LazyNestedStateMachine(states.NestedStateMachine):
    """docutils' nested state machine with states built on first use (see `_LazyStates`)."""

    def add_states(self, state_classes) -> None:
        self.states = _LazyStates(self, state_classes)

    def runtime_init(self) -> None:
        super().runtime_init()  # the states built so far
        assert isinstance(self.states, _LazyStates)  # add_states put it there
        self.states.running = True


_NESTED_CACHE: list = []  # docutils' reusable nested machines (RSTState.nested_sm_cache), ours


def _lazy_state_class(cls: type) -> type:
    """A subclass of docutils state `cls` (same name: states are looked up by name) whose
    nested machines are `_LazyNestedStateMachine`s running our state classes."""

    def __init__(self, state_machine, debug=False):
        cls.__init__(self, state_machine, debug)
        # RSTState.__init__ points nested machines at the module-level docutils classes
        # (the same dict is the indent_sm_kwargs): redirect it, in place, to ours.
        if self.nested_sm_kwargs.get("state_classes") is states.state_classes:
            self.nested_sm_kwargs["state_classes"] = _STATE_CLASSES

    return type(
        cls.__name__,
        (cls,),
        {
            "__init__": __init__,
            "nested_sm": _LazyNestedStateMachine,
            "nested_sm_cache": _NESTED_CACHE,
        },
    )


_STATE_CLASSES = tuple(_lazy_state_class(cls) for cls in states.state_classes)


class _Parser(Parser):
    """docutils' reStructuredText parser with lazily built nested states."""

    def __init__(self) -> None:
        super().__init__()
        self.state_classes = _STATE_CLASSES


def _base_settings():
    settings = get_default_settings(Parser)
    settings.report_level = 5  # record problems in the tree, never print them
    settings.halt_level = 5  # and never raise
    settings.warning_stream = False
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.doctitle_xform = False
    return settings


_SETTINGS = _base_settings()


def rst_doctree(text: str) -> nodes.document:
    """Parse reStructuredText with docutils, tolerant of Sphinx extensions (module doc)."""
    _prepare_rst(text)
    # a shallow copy per document: docutils may set defaults on a document's settings
    document = new_document("<document>", copy.copy(_SETTINGS))
    _Parser().parse(text, document)  # cheap to build; one per document keeps threads apart
    return document


# --------------------------------------------------------------------------------- doctree -> tree

_SKIP_RST = {
    "system_message",
    "footnote_reference",
    "citation_reference",
    "target",
    "comment",
    "substitution_definition",
    "literal_block",
    "raw",
    "image",
    "meta",
    "topic",
    "colspec",
    "footnote",
    "citation",
}


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
    rows, headers = [], 0
    for row in table.findall(nodes.row):
        cells = [
            clean(_rst_text(entry)) for entry in row.children if isinstance(entry, nodes.entry)
        ]
        rows.append(cells)
        if isinstance(row.parent, nodes.thead):
            headers += 1
    return rows, headers


def _rst_para(node) -> Block:
    kids = [c for c in node.children if not (isinstance(c, nodes.Text) and not c.strip())]
    strong = clean(_rst_text(kids[0])) if kids and isinstance(kids[0], nodes.strong) else None
    only_link = len(kids) == 1 and isinstance(kids[0], (nodes.reference, nodes.inline))
    return Block(
        "para", clean(_rst_text(node)), _rst_line(node), strong=strong, only_link=only_link
    )


def _rst_item(node) -> Block:
    first_para = next((c for c in node.children if isinstance(c, nodes.paragraph)), None)
    head = _rst_para(first_para) if first_para is not None else Block("para", "")
    nested = [
        _rst_item(grand)
        for child in node.children
        if isinstance(child, (nodes.bullet_list, nodes.enumerated_list))
        for grand in child.children
    ]
    return Block(
        "item",
        clean(_rst_text(node)),
        _rst_line(node),
        first=head.text,
        nested=nested,
        strong=head.strong,
        only_link=head.only_link,
    )


def _rst_blocks(node, section: Section, flat: list[Section], level: int) -> None:
    for child in node.children:
        if isinstance(child, nodes.section):
            title = next((c for c in child.children if isinstance(c, nodes.title)), None)
            sub = Section(
                clean(_rst_text(title)) if title is not None else "",
                level + 1,
                _rst_line(title) if title is not None else _rst_line(child),
            )
            flat.append(sub)
            _rst_blocks(child, sub, flat, level + 1)
        elif isinstance(child, nodes.paragraph):
            section.blocks.append(_rst_para(child))
        elif isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
            section.blocks.extend(_rst_item(item) for item in child.children)
        elif isinstance(child, nodes.table):
            rows, headers = _rst_table_rows(child)
            section.blocks.append(
                Block(
                    "table",
                    "\n".join(" | ".join(r) for r in rows),
                    _rst_line(child),
                    rows=rows,
                    header_rows=headers,
                )
            )
        elif isinstance(child, nodes.Admonition):
            text = clean(_rst_text(child))
            if text:
                section.blocks.append(Block("admonition", text, _rst_line(child)))
        elif isinstance(
            child, (nodes.container, nodes.block_quote, nodes.compound, nodes.line_block)
        ):
            _rst_blocks(child, section, flat, level)
        elif isinstance(child, nodes.field_list):
            for fld in child.children:
                name = clean(_rst_text(fld.children[0]))
                value = clean(_rst_text(fld.children[1])) if len(fld.children) > 1 else ""
                section.blocks.append(Block("para", f"{name}: {value}", _rst_line(fld)))


def rst_tree(text: str) -> Section:
    """Parse reStructuredText into a Section tree rooted at a level-0 section."""
    top = Section("", 0, 1)
    flat: list[Section] = []
    document = rst_doctree(text)
    _rst_blocks(document, top, flat, 0)
    for message in document.findall(nodes.system_message):
        if message["level"] >= 3:  # ERROR or SEVERE: content was lost, say so
            first = message.children[0].astext() if message.children else message.astext()
            top.problems.append((message.get("line"), first.split("\n")[0]))
    return nest(top, flat)
