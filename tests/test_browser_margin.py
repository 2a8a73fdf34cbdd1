"""Margin notes (``{margin}`` in the notebooks) are readable at every width, light and dark.

The theme floats a margin note out of the text's column into the right margin from 992 px on;
in this book that margin is the "Contents" sidebar's (from 1200 px) or off the screen (992 to
1199 px), so notes lay under the Contents or beyond the screen's edge. book/_static/mlnotes.css
("Margin notes") keeps each note a box in the column. Every page whose notebook has a margin
note is loaded once and checked at 390 px (a phone), 1024 px (where the theme sends notes into
a margin the page does not have) and 1366 px (a laptop, the Contents beside the text), light
and dark (switched as the theme's button does; one page resized from width to width, without
a touch screen's emulation: the notes' rules depend on the width only):

* the page does not scroll sideways, and no note reaches past the screen's edges;
* no note's box overlaps another note, a text block of the article (a paragraph, list item,
  formula, table, code, output, figure, heading, box) on the screen with it at the two places
  below (blocks are laid out only near the screen), or the Contents sidebar where it is shown;
* no note is covered: scrolled so that it sits just under the header bar and again so that it
  ends at the screen's bottom edge (the theme's script folds the Contents for a note in the
  upper two thirds of the screen only), every one of a grid of points inside it hits the note
  itself or what is in it (``document.elementFromPoint``), or the theme's "Back to top" button
  (shown while the reader scrolls up, over whatever is at the screen's bottom right: its place
  is tests/test_browser_back_to_top.py's);
* the Contents stay open beside a note (the theme's script folds them to a 3rem bar whenever a
  note is on the screen, to make room in a margin the notes no longer use);
* it is drawn as a box: its background is not the page's, and its text and its links have a
  contrast of 4.5:1 with it.

The style sheet without the "Margin notes" block (the book before it) must fail the same checks
at 1024 and 1366 px, and without its last rule (the Contents kept open) at 1366 px
(``test_the_margin_checks_fail_without_the_margin_block``). And every
``{margin}`` directive of the notebooks is a note on its page, so the pages checked are all
those with a note.
"""

import json
import re

import pytest

from browser_support import BOOK_HTML, POLL_MS, ROOT, resize, scaled, serve_mutant, settle

pytestmark = pytest.mark.browser

PHONE, BETWEEN, LAPTOP = 390, 1024, 1366
HEIGHT = {PHONE: 844, BETWEEN: 768, LAPTOP: 768}
BLOCK_START = "/* ---------- Margin notes ({margin} in the notebooks)"
BLOCK_END = "/* ---------- end of the margin notes ---------- */"
KEEP_OPEN = "/* The Contents sidebar stays open"
NOTE = re.compile(r"^\s*(`{3,}|~{3,})\{margin\}", re.MULTILINE)


def _notes_in_notebooks():
    """{page: number of ``{margin}`` directives in its notebook's Markdown cells}."""
    counts = {}
    for notebook in sorted((ROOT / "book").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        found = sum(len(NOTE.findall("".join(c["source"]))) for c in cells
                    if c["cell_type"] == "markdown")
        if found:
            counts[f"book/{notebook.stem}.html"] = found
    return counts


NOTES = _notes_in_notebooks()

# What is wrong with the margin notes of the page as it is laid out now: a list of faults.
# Each note is scrolled to two places (its top just under the sticky header bar; its bottom at
# the screen's bottom edge), two frames are drawn (the theme's IntersectionObserver folds or
# unfolds the Contents), and a 5 x 4 grid of points inside its visible part must hit the note.
# Everything read at one place is read in one synchronous run: one layout.
CHECK_JS = r"""async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  // two frames drawn (the theme's IntersectionObserver has seen the scroll) and every
  // transition it started (the Contents folding: 0.4 s) at its end
  const drawn = async () => {
    await frame(); await frame();
    const running = document.getAnimations().filter(a => a.playState === 'running'
      && Number.isFinite(a.effect && a.effect.getComputedTiming().endTime));
    if (running.length) {
      await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                          new Promise(r => setTimeout(r, 3000))]);
      await frame();
    }
  };
  const root = document.documentElement;
  const vw = root.clientWidth, vh = root.clientHeight;
  const rem = parseFloat(getComputedStyle(root).fontSize);
  const notes = Array.from(document.querySelectorAll('.bd-article aside.margin'));
  const label = (i) => `note ${i + 1} "${(notes[i].querySelector('.sidebar-title') || notes[i])
    .textContent.trim().slice(0, 40)}"`;
  const box = (r) => `${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},`
    + `${Math.round(r.bottom)}`;
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const name = (e) => e ? e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className ? '.' + e.className.trim()
      .split(/\s+/).slice(0, 2).join('.') : '') : 'nothing (off the screen)';
  const faults = [];
  if (root.scrollWidth > vw + 1) faults.push(`the page scrolls sideways: ${root.scrollWidth} px`);
  const rects = notes.map(n => n.getBoundingClientRect());
  const blocks = Array.from(document.querySelectorAll(
    '.bd-article :is(p, li, dt, dd, pre, div.math, table, h1, h2, h3, h4, h5, h6, figure, img, '
    + 'blockquote, .cell_output, .cell_input, details, div.admonition, div.proof)'))
    .filter(b => !b.closest('aside.margin') && !notes.some(n => b.contains(n)));
  const luminance = (c) => {
    // rgb(r, g, b) in 0..255, or color(srgb r g b) in 0..1 (a color-mix())
    const scale = c.startsWith('color(') ? 1 : 255;
    const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map(v => v / scale)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const opaque = (c) => !/^rgba\(.*,\s*0\)$/.test(c) && c !== 'transparent';
  const page = getComputedStyle(document.body).backgroundColor;
  notes.forEach((n, i) => {
    const r = rects[i], style = getComputedStyle(n);
    if (r.width < 1 || r.height < 1 || style.visibility === 'hidden') {
      faults.push(`${label(i)} is not shown`);
      return;
    }
    if (r.left < -0.5 || r.right > vw + 0.5) {
      faults.push(`${label(i)} reaches past the ${vw} px screen: x ${Math.round(r.left)}..`
                  + `${Math.round(r.right)}`);
    }
    for (let j = i + 1; j < notes.length; j += 1) {
      if (overlap(r, rects[j])) faults.push(`${label(i)} overlaps ${label(j)}`);
    }
    // the note's text and its links (the theme's link blue is its palest text)
    const colours = new Set([n.querySelector('p:not(.sidebar-title)') || n,
                             ...n.querySelectorAll('a')].map(e => getComputedStyle(e).color));
    if (!opaque(style.backgroundColor) || style.backgroundColor === page) {
      faults.push(`${label(i)} has the page's background (${style.backgroundColor}): no box`);
    } else {
      for (const text of colours) {
        const [hi, lo] = [luminance(text), luminance(style.backgroundColor)]
          .sort((a, b) => b - a);
        const contrast = (hi + 0.05) / (lo + 0.05);
        if (contrast < 4.5) {
          faults.push(`${label(i)}: ${text} on ${style.backgroundColor}, contrast `
                      + `${contrast.toFixed(2)}:1`);
        }
      }
    }
  });
  const header = document.querySelector('.bd-header-article');
  const sidebar = document.querySelector('.bd-sidebar-secondary');
  for (let i = 0; i < notes.length; i += 1) {
    const n = notes[i];
    for (const where of ['under the header', 'at the bottom edge']) {
      // blocks laid out only near the screen take their real height as they come near, so
      // the note is placed again until it stays
      for (let round = 0; round < 4; round += 1) {
        const top = Math.max(0, header ? header.getBoundingClientRect().bottom : 0);
        const r = n.getBoundingClientRect();
        const target = where === 'under the header' ? top + 8 : vh - 8 - r.height;
        if (Math.abs(r.top - target) < 1 && round) break;
        window.scrollTo({top: window.scrollY + r.top - target, behavior: 'instant'});
        await drawn();
      }
      const top = Math.max(0, header ? header.getBoundingClientRect().bottom : 0);
      const r = n.getBoundingClientRect();
      if (sidebar) {
        const s = sidebar.getBoundingClientRect(), st = getComputedStyle(sidebar);
        if (st.visibility !== 'hidden' && st.display !== 'none' && s.left < vw) {
          if (overlap(r, s)) {
            faults.push(`${label(i)} ${where} (${box(r)}) overlaps the Contents (${box(s)})`);
          }
          if (s.height < 3 * rem + 8) {
            faults.push(`the Contents are folded (${Math.round(s.height)} px high) while `
                        + `${label(i)} is ${where}`);
          }
        }
      }
      // the text blocks on the screen (those laid out only near it are laid out now; off it,
      // a block inside one not laid out has a place that is no layout's)
      const hit = blocks.filter(b => {
        const q = b.getBoundingClientRect();
        return q.bottom > 0 && q.top < vh && overlap(r, q)
          && b.checkVisibility({contentVisibilityAuto: true});
      });
      if (hit.length) {
        faults.push(`${label(i)} ${where} (${box(r)}) overlaps ${hit.length} text block(s): `
                    + hit.slice(0, 3).map(name).join(', '));
      }
      const y0 = Math.max(r.top, top) + 3, y1 = Math.min(r.bottom, vh) - 3;
      const covered = new Set();
      for (let a = 0; a < 5; a += 1) {
        for (let b = 0; b < 4; b += 1) {
          const x = r.left + 3 + (r.width - 6) * a / 4, y = y0 + (y1 - y0) * b / 3;
          const e = document.elementFromPoint(x, y);
          if (!e || !(n.contains(e) || e.closest('#pst-back-to-top'))) covered.add(name(e));
        }
      }
      if (covered.size) {
        faults.push(`${label(i)} ${where} (${box(r)}) is covered by: ${[...covered].join(', ')}`);
      }
    }
  }
  return {notes: notes.length, faults};
}"""


def _open(browser, site, page, width, mode, mutant=None):
    """``page`` at ``width`` in ``mode`` (a touch screen under 600 px), laid out by mlnotes.js;
    ``mutant``: (find, replace) in mlnotes.css."""
    context = browser.new_context(viewport={"width": width, "height": HEIGHT[width]},
                                  color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');"
                            f"localStorage.setItem('theme', '{mode}');")
    if mutant:
        serve_mutant(context, "mlnotes.css", mutant)
    tab = context.new_page()
    tab.goto(f"{site}/{page}", wait_until="load")
    tab.wait_for_function("() => document.documentElement.dataset.mlnotesLaidOut === '1'",
                          timeout=scaled(60_000), polling=POLL_MS)
    return context, tab


def _faults(tab, where):
    found = tab.evaluate(CHECK_JS)
    return found["notes"], [f"{where}: {f}" for f in found["faults"]]


def _switch_mode(tab, mode):
    """Light <-> dark as the theme's button does (mlnotes.js), the page re-marked for it."""
    settle(tab, lambda: tab.evaluate("m => mlnotesSetMode(m)", mode))


def test_every_margin_note_of_the_notebooks_is_checked():
    """Every ``{margin}`` of the notebooks is a note on its built page (the pages checked)."""
    assert NOTES, "no notebook has a {margin} note: the checks below check nothing"
    built = {page: (BOOK_HTML / page).read_text(encoding="utf-8").count(
        '<aside class="margin sidebar">') for page in NOTES}
    assert built == NOTES


@pytest.mark.parametrize("page", sorted(NOTES))
def test_margin_notes_are_readable_at_every_width(page, site, browser):
    """Each note at 390, 1024 and 1366 px, light and dark (module docstring)."""
    problems = []
    modes = ["light", "dark"]
    context, tab = _open(browser, site, page, PHONE, modes[0])
    try:
        for k, width in enumerate([PHONE, BETWEEN, LAPTOP]):
            if k:
                resize(tab, width, HEIGHT[width])
            for mode in modes:
                if tab.evaluate("document.documentElement.dataset.theme") != mode:
                    _switch_mode(tab, mode)
                count, faults = _faults(tab, f"{width} px {mode}")
                assert count == NOTES[page], f"{width} px: {count} notes, not {NOTES[page]}"
                problems += faults
            modes.reverse()  # the next width starts in the mode this one ended in
    finally:
        context.close()
    assert not problems, f"{page}:\n" + "\n".join(problems)


def test_the_margin_checks_fail_without_the_margin_block(site, browser):
    """mlnotes.css without its "Margin notes" block (the theme's floats, the book before the
    fix): on t-SNE's page the checks find a note under the Contents at 1366 px and notes past
    the screen's edge at 1024 px. Then the block is added to the same page without its last
    rule (the notes in the column, the theme's folding of the Contents left as it was): at
    1366 px the checks find the Contents folded, and nothing else. (One load of the page.)"""
    css = (ROOT / "book" / "_static" / "mlnotes.css").read_text(encoding="utf-8")
    start, end = css.index(BLOCK_START), css.index(BLOCK_END) + len(BLOCK_END)
    context, tab = _open(browser, site, "book/tsne.html", LAPTOP, "light",
                         mutant=(css[start:end], ""))
    try:
        laptop = _faults(tab, f"{LAPTOP} px")[1]
        resize(tab, BETWEEN, HEIGHT[BETWEEN])
        between = _faults(tab, f"{BETWEEN} px")[1]
        tab.add_style_tag(content=css[start:css.index(KEEP_OPEN)])
        resize(tab, LAPTOP, HEIGHT[LAPTOP])
        folded = _faults(tab, f"{LAPTOP} px, the Contents' rule left out")[1]
    finally:
        context.close()
    assert any("overlaps the Contents" in f or "covered by" in f for f in laptop), laptop
    assert any("reaches past" in f for f in between), between
    assert any("scrolls sideways" in f for f in between), between
    assert folded and all("the Contents are folded" in f for f in folded), folded
