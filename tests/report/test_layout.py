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


def layout(report, width: int, height: int = 900) -> dict:
    page = report / f"layout-{width}.html"
    page.write_text((report / "index.html").read_text().replace("</body>", MEASURE + "</body>"))
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
