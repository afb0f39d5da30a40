"""Markdown (CommonMark + tables, via markdown-it-py) -> the `Section` tree of `_docs_tree`.

Headings open sections; paragraphs, list items (with their nested items), tables and MyST
admonition fences become blocks; code is dropped (not prose).

Speed: one `MarkdownIt` instance serves every document, and the token stream is nested by
`_tree` into plain `_Node`s (the shape of markdown-it's `SyntaxTreeNode`, whose per-access
properties cost more than the parse itself on a 200 kB changelog). A node caches its rendered
text, since a nested list item's text is part of its parent's and is also a block of its own.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from tracker.collect.sources._docs_tree import Block, Section, clean, nest

_MD = MarkdownIt("commonmark").enable("table")  # shared: parsing does not change it


class _Node:
    """A block or inline node: `type` without the ``_open`` suffix; `tag`, `map`, `info`,
    `content` from its (opening) token; `children` in document order."""

    __slots__ = ("type", "tag", "map", "info", "content", "children", "text")

    def __init__(self, type_: str, token, children: list) -> None:
        self.type, self.tag, self.map = type_, token.tag, token.map
        self.info, self.content, self.children = token.info, token.content, children
        self.text: str | None = None  # `_md_text`, once rendered


def _tree(tokens) -> list[_Node]:
    """Nest a markdown-it token stream (open / close pairs, inline children) into `_Node`s."""
    top: list[_Node] = []
    stack = [top]
    for token in tokens:
        if token.nesting == 1:
            node = _Node(token.type[:-5], token, [])  # "bullet_list_open" -> "bullet_list"
            stack[-1].append(node)
            stack.append(node.children)
        elif token.nesting == -1:
            stack.pop()
        else:
            stack[-1].append(
                _Node(token.type, token, _tree(token.children) if token.children else [])
            )
    return top


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


def _md_text(node: _Node) -> str:
    """Plain text of a block node, paragraphs separated by blank lines, lists as "- " lines."""
    if node.text is None:
        node.text = _render(node)
    return node.text


def _render(node: _Node) -> str:
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
            rows.append(
                [
                    clean(_md_inline(cell.children[0])) if cell.children else ""
                    for cell in tr.children
                ]
            )
    return rows


def _md_strong_lead(para) -> tuple[str | None, bool]:
    """(bold lead-in text, whether the paragraph is only one link) of a paragraph node."""
    inline = para.children[0] if para.children else None
    kids = [
        c
        for c in (inline.children if inline else [])
        if not (c.type == "text" and not c.content.strip())
    ]
    strong = _md_inline(kids[0]).strip() if kids and kids[0].type == "strong" else None
    only_link = (
        bool(kids)
        and kids[0].type == "link"
        and all(c.type == "text" and c.content.strip() in ("", ".") for c in kids[1:])
    )
    return strong, only_link


def _md_block(node, out: list[Block]) -> None:
    line = node.map[0] + 1 if node.map else None
    if node.type == "paragraph":
        strong, only_link = _md_strong_lead(node)
        out.append(Block("para", clean(_md_text(node)), line, strong=strong, only_link=only_link))
    elif node.type in ("bullet_list", "ordered_list"):
        for item in node.children:
            out.append(_md_item(item))
    elif node.type == "blockquote":
        for child in node.children:
            _md_block(child, out)
    elif node.type == "table":
        rows = _md_table_rows(node)
        out.append(
            Block("table", "\n".join(" | ".join(r) for r in rows), line, rows=rows, header_rows=1)
        )
    elif node.type == "fence" and node.info.strip().startswith("{"):
        # MyST admonitions (```{note}) hold prose; code fences do not.
        text = "\n".join(ln for ln in node.content.splitlines() if not ln.startswith(":"))
        out.append(Block("admonition", clean(text), line))


def _md_item(item) -> Block:
    line = item.map[0] + 1 if item.map else None
    first_para = next((c for c in item.children if c.type == "paragraph"), None)
    first = clean(_md_text(first_para)) if first_para is not None else ""
    strong, only_link = _md_strong_lead(first_para) if first_para is not None else (None, False)
    nested: list[Block] = []
    for child in item.children:
        if child.type in ("bullet_list", "ordered_list"):
            nested.extend(_md_item(grand) for grand in child.children)
    text = clean("\n".join(t for t in (_md_text(c) for c in item.children) if t))
    return Block("item", text, line, first=first, nested=nested, strong=strong, only_link=only_link)


def markdown_tree(text: str) -> Section:
    """Parse Markdown (CommonMark + tables) into a Section tree rooted at a level-0 section."""
    top = Section("", 0, 1)
    flat: list[Section] = []
    current = top
    for node in _tree(_MD.parse(text)):
        if node.type == "heading":
            current = Section(
                clean(_md_inline(node.children[0])),
                int(node.tag[1:]),
                node.map[0] + 1 if node.map else None,
            )
            flat.append(current)
        else:
            _md_block(node, current.blocks)
    return nest(top, flat)
