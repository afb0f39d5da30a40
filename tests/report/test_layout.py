"""The report laid out by a real browser (headless Chromium, when installed): at 600 px the
page never scrolls sideways and every chart is shown at 0.8 or more of the width it was drawn
for; at 1400 px no chart is stretched above it and the verdicts are on the first screen.

Skipped, loudly, without Chromium (Debian package `chromium`; CI installs it best effort).
A script added to a copy of the page measures the layout once the images have loaded and
writes its findings into the DOM, which `chromium --dump-dom` prints.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium not installed (apt install chromium): layout not checked"
)

MEASURE = """<script>
window.addEventListener("load", () => {
  // the width a chart was drawn for, in CSS px: its width attribute (the writer's half of the
  // PNG's pixels), or that of the <picture> source the browser chose
  const drawnFor = img => {
    const file = img.currentSrc.split("/").pop();
    const picture = img.parentElement.tagName === "PICTURE" ? img.parentElement : null;
    for (const source of picture ? picture.querySelectorAll("source") : []) {
      if (source.srcset.split(" ")[0] === file) return Number(source.getAttribute("width"));
    }
    return Number(img.getAttribute("width"));
  };
  const charts = [...document.images].map(img => ({
    src: img.currentSrc.split("/").pop(),
    shown: img.getBoundingClientRect().width,
    drawn: drawnFor(img),
    loaded: img.complete && img.naturalWidth > 0,
  }));
  const verdicts = document.querySelector(".verdicts");
  const last = verdicts ? verdicts.querySelector("div:last-of-type") : null;
  document.body.setAttribute("data-layout", JSON.stringify({
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
    charts: charts,
    verdicts_bottom: last ? last.getBoundingClientRect().bottom : null,
  }));
});
</script>"""


# Where the answer is: every text of these sections, once laid out, must lie within the window
# and within every box that would clip it (a table scrolled sideways hides what it holds
# past its right edge even when the page itself does not scroll).
ANSWER_SECTIONS = "#answer, #perf, #gap"

MEASURE_TEXT = """<script>
window.addEventListener("load", () => {
  const width = window.innerWidth;
  const clipRight = node => {  // the right edge of the window and of every clipping box
    let right = width;
    for (let el = node.parentElement; el; el = el.parentElement) {
      if (getComputedStyle(el).overflowX !== "visible") {
        const box = el.getBoundingClientRect();
        right = Math.min(right, box.left + el.clientLeft + el.clientWidth);
      }
    }
    return right;
  };
  const rectsOf = node => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
  };
  const said = node => node.textContent.trim().slice(0, 60);
  const off = [], cut = [], blank = [];
  let texts = 0, cells = 0, captions = 0;
  for (const section of document.querySelectorAll(SECTIONS)) {
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const rects = node.textContent.trim() ? rectsOf(node) : [];
      if (!rects.length) continue;  // blank, or not rendered (a closed <details>)
      texts += 1;
      const right = clipRight(node);
      const out = rects.find(r => r.left < -0.5 || r.right > right + 0.5);
      if (out) off.push({text: said(node), left: out.left, right: out.right, clip: right});
    }
    for (const caption of section.querySelectorAll("caption")) {
      const box = caption.getBoundingClientRect();
      if (!box.width) continue;
      captions += 1;
      const over = caption.scrollWidth > caption.clientWidth + 1;
      if (over || box.left < -0.5 || box.right > clipRight(caption) + 0.5)
        cut.push({text: said(caption), left: box.left, right: box.right});
    }
    // blank space: a row whose cells are mostly empty space, held tall by one squeezed cell
    // (in a card each cell is a line of its own, as tall as its content)
    for (const row of section.querySelectorAll("tr")) {
      const box = row.getBoundingClientRect();
      if (!box.height || !row.querySelector("td")) continue;
      const spares = [...row.children].map(cell => {
        cells += 1;
        const rects = rectsOf(cell);
        const top = Math.min(...rects.map(r => r.top));
        const used = rects.length ? Math.max(...rects.map(r => r.bottom)) - top : 0;
        const style = getComputedStyle(cell);
        const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
        return cell.getBoundingClientRect().height - used - padding;
      }).sort((a, b) => a - b);
      const table = getComputedStyle(row).display === "table-row";
      const spare = table ? spares[Math.floor(spares.length / 2)] : spares[spares.length - 1];
      const line = parseFloat(getComputedStyle(row).lineHeight) || 20;
      if (spare > 3 * line) blank.push({text: said(row), height: box.height, spare: spare});
    }
  }
  const heads = [...document.querySelectorAll(SECTIONS.split(",").map(s => s + " thead").join())];
  const shown = heads.filter(h => h.getBoundingClientRect().height > 0).length;
  document.body.setAttribute("data-layout", JSON.stringify({
    window: width, texts: texts, cells: cells, captions: captions, off: off, cut: cut,
    blank: blank, heads: heads.length, heads_shown: shown,
  }));
});
</script>""".replace("SECTIONS", json.dumps(ANSWER_SECTIONS))


def layout(report, width: int, height: int = 900, script: str = MEASURE) -> dict:
    page = report / f"layout-{width}.html"
    page.write_text((report / "index.html").read_text().replace("</body>", script + "</body>"))
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))


def test_at_600_px_nothing_scrolls_sideways_and_charts_keep_their_size(demo):
    seen = layout(demo["report"], 600)
    assert seen["window"] == 600 and seen["page"] <= 600, seen["page"]
    charts = seen["charts"]
    assert len(charts) >= 4 and all(c["loaded"] for c in charts), charts
    # the small screen gets the headline chart drawn for it
    assert any(c["src"] == "headline_lag_narrow.png" for c in charts)
    # and the delivered-performance panels one a row, whole within the screen
    narrow = {"delivered_performance_narrow.png", "delivered_training_performance_narrow.png"}
    shown = {c["src"]: c for c in charts if c["src"] in narrow}
    assert set(shown) == narrow, [c["src"] for c in charts]
    assert all(c["shown"] <= seen["window"] for c in shown.values()), shown
    for c in charts:
        assert c["drawn"] > 0, c  # every chart says the size it was drawn for
        assert 0.8 * c["drawn"] <= c["shown"] <= c["drawn"] + 0.5, c


def test_at_1400_px_no_chart_is_stretched_and_the_answer_is_on_the_first_screen(demo):
    seen = layout(demo["report"], 1400)
    assert seen["page"] <= 1400
    charts = seen["charts"]
    assert any(c["src"] == "headline_lag.png" for c in charts)
    for c in charts:
        assert c["drawn"] > 0 and c["shown"] <= c["drawn"] + 0.5, c
    assert seen["verdicts_bottom"] is not None and seen["verdicts_bottom"] <= 900


def test_at_600_px_the_answer_reads_whole(demo):
    """The answer's tables (per layer, gap, delivered performance, training) at 600 px: no text
    past the window's edge or hidden past a scrolled box's, no caption cut, no row whose cells
    hold more than three lines of blank space (a row left tall by one squeezed cell)."""
    seen = layout(demo["report"], 600, script=MEASURE_TEXT)
    assert seen["window"] == 600
    # the sections were measured: the verdicts, the per-layer and gap tables, the inference
    # and training tables with their captions
    assert seen["texts"] > 300 and seen["cells"] > 150 and seen["captions"] >= 5, seen
    assert seen["off"] == [], f"{len(seen['off'])} texts off-screen: {seen['off'][:5]}"
    assert seen["cut"] == [], seen["cut"]
    assert seen["blank"] == [], seen["blank"][:5]


def test_at_1400_px_the_answer_tables_stay_tables(demo):
    """Wide enough, the answer's tables keep their columns (the cards are for narrow boxes)
    and still show everything."""
    seen = layout(demo["report"], 1400, script=MEASURE_TEXT)
    assert seen["off"] == [] and seen["cut"] == [], (seen["off"][:5], seen["cut"])
    # every header row of the answer's tables is shown: a table, not cards
    assert seen["heads"] >= 5 and seen["heads_shown"] == seen["heads"], seen
