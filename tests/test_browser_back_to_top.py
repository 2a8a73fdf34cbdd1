"""The theme's "Back to top" button on a phone: at the screen's edge, not over what is read.

pydata-sphinx-theme shows ``#pst-back-to-top`` while the reader scrolls up, a pill centred at 90%
of the screen's height: on a phone it covered the middle of an explorer's picture as the reader
scrolled back to it (issue 32). book/_static/mlnotes.css makes it a round 44 px arrow in the
lower right corner below 1200 px (sphinx-book-theme hides it from there). At 390 px, light and
dark, with an explorer's picture under it, the button must be shown, a touch target, at the
right edge and clear of the middle of the column; the style sheet without that block (the
theme's pill) must fail the same check. Screenshots go to ``tests/artifacts/phone/``.
"""

import pytest

from browser_support import POLL_MS, ROOT, scaled, serve_mutant

pytestmark = pytest.mark.browser

PAGE = "book/pca.html"  # a chapter with an explorer (and figures) under the button's place
ARTIFACTS = ROOT / "tests" / "artifacts" / "phone"
PHONE, LAPTOP = 390, 1366
TOUCH_PX = 43.5  # the book's touch targets: 44 px
EDGE_PX = 8  # the button's right side this close to the screen's right edge, at most
MIDDLE = 0.8  # the button stays right of this fraction of the column's width
BLOCK_START = '/* ---------- "Back to top" on a phone and a tablet'
BLOCK_END = '/* ---------- end of "Back to top" ---------- */'

# Scroll so that the first explorer's picture (a canvas) ends just above the screen's bottom
# edge, where the button shows, coming back up to it as a reader does: the theme (Bootstrap's
# part of it) shows the button on a scroll event upwards and hides it on any other. The page
# below and above the picture is still being laid out as it comes near (lazy images, sections
# drawn only near the screen), and the browser keeps what is on the screen in place by moving
# the scroll position (scroll anchoring): a scroll event downwards the reader did not make,
# which hid the button on a busy machine. So the reader's gesture waits for the layout around
# the picture to hold still (``STILL_FRAMES`` frames with the same page height and picture
# place) before each of its two moves, and is made again (at most ``GESTURES`` times) until
# the button is still shown ``STILL_FRAMES`` frames after it; the gestures made, or 0 if the
# button never stayed.
STILL_FRAMES = 5
GESTURES = 5
SCROLL_TO_PICTURE_JS = """async ([stillFrames, gestures]) => {
  const canvas = () => document.querySelector('.mlnotes-explorer canvas');
  const button = document.getElementById('pst-back-to-top');
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const layout = () => [document.documentElement.scrollHeight, scrollY,
                        Math.round(canvas().getBoundingClientRect().top)].join();
  const still = async () => {
    let last = layout(), same = 0;
    for (let i = 0; i < 600 && same < stillFrames; i += 1) {
      await frame();
      const now = layout();
      same = now === last ? same + 1 : 0;
      last = now;
    }
  };
  for (let gesture = 1; gesture <= gestures; gesture += 1) {
    const bottom = canvas().getBoundingClientRect().bottom + scrollY;
    const target = Math.max(0, bottom - innerHeight + 20);
    window.scrollTo(0, target + 300);
    await still();
    window.scrollTo(0, target);
    await still();
    let shown = 0;
    while (shown < stillFrames && getComputedStyle(button).display !== 'none') {
      shown += 1;
      await frame();
    }
    if (shown === stillFrames) return gesture;
  }
  return 0;
}"""
GEOMETRY_JS = """() => {
  const b = document.getElementById('pst-back-to-top');
  const r = b.getBoundingClientRect();
  const canvas = document.querySelector('.mlnotes-explorer canvas').getBoundingClientRect();
  const column = document.querySelector('.bd-article').getBoundingClientRect();
  const over = Math.max(0, Math.min(r.right, canvas.right) - Math.max(r.left, canvas.left))
             * Math.max(0, Math.min(r.bottom, canvas.bottom) - Math.max(r.top, canvas.top));
  return {shown: getComputedStyle(b).display !== 'none' && r.width > 0,
          left: r.left, right: r.right, width: r.width, height: r.height,
          screen: document.documentElement.clientWidth, columnLeft: column.left,
          columnWidth: column.width, overPicture: over,
          name: b.textContent.trim()};
}"""


def _button_at_the_picture(browser, site, mode, *, mutant=False):
    """The button's geometry with the first explorer's picture under its place, at 390 px in
    ``mode``; ``mutant``: mlnotes.css without the "Back to top" block."""
    context = browser.new_context(viewport={"width": PHONE, "height": 844}, has_touch=True,
                                  is_mobile=True, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');"
                            f"localStorage.setItem('theme', '{mode}');")
    if mutant:
        css = (ROOT / "book" / "_static" / "mlnotes.css").read_text(encoding="utf-8")
        start, end = css.index(BLOCK_START), css.index(BLOCK_END) + len(BLOCK_END)
        serve_mutant(context, "mlnotes.css", (css[start:end], ""))
    tab = context.new_page()
    tab.goto(f"{site}/{PAGE}", wait_until="load")
    # the theme's script, which shows the button on a scroll up, runs once the first screen's
    # maths is drawn (book/_static/mlnotes.js sets data-mlnotes-theme then): a scroll before it
    # shows no button
    tab.wait_for_function("document.documentElement.dataset.mlnotesTheme === '1'",
                          polling=POLL_MS, timeout=scaled(60_000))
    # the explorer draws its picture when it comes near the screen (explorer.js)
    tab.evaluate("document.querySelector('.mlnotes-explorer').scrollIntoView({block: 'center'})")
    tab.wait_for_function("document.querySelector('.mlnotes-explorer canvas') !== null",
                          polling=POLL_MS, timeout=scaled(60_000))
    gestures = tab.evaluate(SCROLL_TO_PICTURE_JS, [STILL_FRAMES, GESTURES])
    assert gestures, f"the button never stayed shown after {GESTURES} scrolls up to the picture"
    return context, tab, tab.evaluate(GEOMETRY_JS)


def _faults(geometry):
    """What is wrong with the button's place on a phone."""
    g = geometry
    faults = []
    if not g["shown"]:
        faults.append("not shown on a scroll up")
    if min(g["width"], g["height"]) < TOUCH_PX:
        faults.append(f"{g['width']:.0f} x {g['height']:.0f} px: under a 44 px touch target")
    if g["screen"] - g["right"] > EDGE_PX:
        faults.append(f"{g['screen'] - g['right']:.0f} px from the screen's right edge")
    middle = g["columnLeft"] + MIDDLE * g["columnWidth"]
    if g["left"] < middle:
        faults.append(f"over the middle of the column (left {g['left']:.0f} px < {middle:.0f})")
    return faults


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_back_to_top_keeps_to_the_edge_on_a_phone(site, browser, mode):
    context, tab, geometry = _button_at_the_picture(browser, site, mode)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"back-to-top.390.{mode}.png"))
    assert not _faults(geometry), (_faults(geometry), geometry)
    assert geometry["name"] == "Back to top"  # its words stay for screen readers
    # (what it still covers of the picture: a corner, recorded for the reader of the report)
    print(f"{mode}: the button covers {geometry['overPicture']:.0f} px² of the picture")
    # a laptop: the theme hides it from 1200 px, and the block leaves that alone
    tab.set_viewport_size({"width": LAPTOP, "height": 900})
    tab.evaluate(SCROLL_TO_PICTURE_JS, [STILL_FRAMES, 1])
    assert tab.evaluate("getComputedStyle(document.getElementById('pst-back-to-top')).display"
                        ) == "none"
    context.close()


def test_the_theme_pill_fails_the_phone_check(site, browser):
    """The mutant: the style sheet without the block shows the theme's centred pill."""
    context, _, geometry = _button_at_the_picture(browser, site, "light", mutant=True)
    faults = _faults(geometry)
    assert any("middle of the column" in f for f in faults), (faults, geometry)
    assert geometry["overPicture"] > 0, geometry  # it sat on the explorer's picture
    context.close()
