"""HTML (BeautifulSoup, html.parser) -> the `Section` tree of `_docs_tree`."""

from __future__ import annotations

from tracker.collect.sources._docs_tree import Block, Section, clean, nest


def html_tree(text: str) -> Section:
    """Parse an HTML page into a Section tree: h1-h6 open sections; p, li, tables, admonition
    divs become blocks. Navigation, scripts and styles are dropped."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for junk in soup(["script", "style", "nav", "header", "footer", "noscript"]):
        junk.decompose()
    body = soup.find("main") or soup.find(role="main") or soup.body or soup
    top = Section("", 0, 1)
    flat: list[Section] = []
    current = top
    for element in body.find_all(["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "table"]):
        line = getattr(element, "sourceline", None)
        if element.name[0] == "h" and element.name[1:].isdigit():
            current = Section(
                clean(element.get_text(" ")).rstrip("¶#").strip(), int(element.name[1]), line
            )
            flat.append(current)
        elif element.name == "table":
            rows = [
                [clean(c.get_text(" ")) for c in tr.find_all(["th", "td"])]
                for tr in element.find_all("tr")
            ]
            headers = sum(1 for tr in element.find_all("tr") if tr.find("th") and not tr.find("td"))
            current.blocks.append(
                Block(
                    "table",
                    "\n".join(" | ".join(r) for r in rows),
                    line,
                    rows=rows,
                    header_rows=headers,
                )
            )
        elif element.find_parent(["li", "table"]) is not None:
            continue  # nested in an item or a table: part of that block's text
        elif element.name == "li":
            first = element.find("p")
            first_text = clean((first or element).get_text(" "))
            nested = [
                Block(
                    "item",
                    clean(li.get_text(" ")),
                    getattr(li, "sourceline", None),
                    first=clean(li.get_text(" ")),
                )
                for li in element.find_all("li")
            ]
            if first is None and nested:
                own = element.find(string=True, recursive=False)
                first_text = clean(own or "")
            strong = element.find(["strong", "b"])
            lead = (
                clean(strong.get_text(" "))
                if strong is not None and first_text.startswith(clean(strong.get_text(" ")))
                else None
            )
            current.blocks.append(
                Block(
                    "item",
                    clean(element.get_text(" ")),
                    line,
                    first=first_text,
                    nested=nested,
                    strong=lead,
                )
            )
        else:
            text_ = clean(element.get_text(" "))
            if text_:
                strong = element.find(["strong", "b"])
                lead = (
                    clean(strong.get_text(" "))
                    if strong is not None and text_.startswith(clean(strong.get_text(" ")))
                    else None
                )
                current.blocks.append(Block("para", text_, line, strong=lead))
    return nest(top, flat)
