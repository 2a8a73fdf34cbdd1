"""The book on a phone and on laptops (issue 23): 390, 1366 and 1440 px, light and dark.

One headless Chromium and one local server for the whole file (pages sampled: a chapter with
theorems, outputs and an explorer, the notation appendix, a chapter with exercises):

* at 390 px every toc page is loaded once and its display equations counted: at most
  ``MAX_SCROLLING_EQUATIONS`` in the whole book scroll sideways, none inside a theorem-like
  statement; the per-page list goes to ``tests/artifacts/phone/equations-390.json``;
* every "Learning objectives" box has one colour in all chapters; section headings (h2) weigh
  more than subsections (h3);
* (``test_header_boxes_and_outputs``: each sample page loaded once on a phone and once on a
  laptop, every formula typeset; each load checked in the mode it loads in, then switched light
  <-> dark as the theme button does, and the laptop's resized from 1366 to 1440 px: all six
  width and mode pairs checked on two loads a page instead of six; every other page loads
  dark, so each mode is checked both as loaded and as switched to)
* no scroll-shadow covers inside theorem and proof boxes: a display equation that fits has no
  background, one that scrolls is covered in its box's own colour (light and dark);
* output text with aligned columns keeps its layout; the notation table becomes blocks on a
  phone and no code name in it breaks mid-word;
* the header has a search button at every width; search finds the same pages for "centring"
  and "centering", its snippets start with text, not page chrome, and the magnifier does not
  cover the first letter typed;
* on a phone: header buttons and drawer links are 44 px touch targets, a tap leaves no tooltip,
  the "Contents" drawer closes after a tap on a section, shrunk figures carry an "Enlarge" mark,
  a solution's title is short;
* the theme button switches light <-> dark on the first tap;
* at 390 px a display formula broken into lines is broken only between top-level terms: never
  inside brackets or a norm, never before punctuation, never leaving a left-hand side at the end
  of a line;
* at 1366 px a display formula is broken only where the column is too narrow: the width it was
  broken for (at build time, book/_ext/prerender.py, or by MathJax in the page) is the width the
  formula really has (a flex row once made MathJax measure a fifth of the column and break
  aligned formulas into fragments).
"""

import json
import os
import re

import pytest

from browser_support import (
    BOOK_HTML,
    ISLAND_RE,
    POLL_MS,
    ROOT,
    SEARCH_DONE_JS,
    TYPESET_ALL,
    after_transitions,
    resize,
    scaled,
    serve_mutant,
    settle,
    toc_files,
    wait_until,
)

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "artifacts" / "phone"
PHONE, LAPTOP, WIDE = 390, 1366, 1440
MODES = ["light", "dark"]
MAX_SCROLLING_EQUATIONS = 0
SEARCH_OPEN_JS = "() => !!(document.getElementById('pst-search-dialog') || {}).open"
# sphinx-proof boxes whose text is a statement (a proof may scroll; a statement may not)
STATEMENT_KINDS = ("theorem", "proposition", "lemma", "corollary", "definition")
SAMPLE_PAGES = ["book/tsne.html", "book/appendix_notation.html", "book/isomap.html"]


def _toc_pages():
    files = toc_files()
    return [f"{f}.html" for f in files]


def _open(browser, site, page, width, mode="light", touch=None, whole=True, mutant=None):
    """``page`` in a new context (a touch screen under 600 px) in ``mode``; with ``whole``
    every formula is typeset at load (``TYPESET_ALL``: the checks that read every formula),
    else only those near the screen, as for a reader (cheaper: the checks of the header);
    ``mutant``: a static file's name and (find, replace), served instead of the file."""
    touch = width < 600 if touch is None else touch
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 600 else 900},
                                  has_touch=touch, is_mobile=touch,
                                  color_scheme="dark" if mode == "dark" else "light")
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');"
                            f"localStorage.setItem('theme', '{mode}');"
                            + (TYPESET_ALL if whole else ""))
    if mutant:
        serve_mutant(context, mutant[0], mutant[1])
    pw_page = context.new_page()
    pw_page.goto(f"{site}/{page}", wait_until="load")
    # scroll boxes and figures are marked after typesetting (book/_static/mlnotes.js), which
    # then sets data-mlnotes-laid-out on the root
    pw_page.wait_for_function("() => document.documentElement.dataset.mlnotesLaidOut === '1'",
                              timeout=scaled(30000), polling=POLL_MS)
    return context, pw_page


EQUATIONS_JS = r"""
(kinds) => Array.from(document.querySelectorAll('div.math mjx-container[display="true"]'))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => {
    const box = e.closest('div.proof');
    const kind = box ? kinds.find(k => box.classList.contains(k)) || 'proof' : '';
    const eq = e.closest('div.math');
    const eqno = eq.querySelector('.eqno');
    const num = eqno ? eqno.textContent.replace('#', '').trim() : '';
    let sec = e.closest('section');
    const heading = sec && sec.querySelector('h1, h2, h3, h4');
    const math = e.querySelector(':scope > mjx-math');
    const tex = (math && math.getAttribute('data-latex')) || '';
    return {number: num, statement: kind,
            too_wide_percent: Math.round(100 * (e.scrollWidth / e.clientWidth - 1)),
            section: heading ? heading.textContent.replace('#', '').trim().slice(0, 70) : '',
            tex: tex.trim().replace(/\s+/g, ' ').slice(0, 100)};
  })
"""

# Where MathJax broke display formulas into lines (book/_static/mlnotes-mathjax.js chooses the
# places it may): each broken line stack's lines, and the faults among them: a norm or absolute
# value (bars) or a \left...\right group split across lines, a line that starts with (or is
# only) punctuation, and a left-hand side left at the end of a line whose next line starts with
# its relation. (A formula may break inside plain brackets, at an operator: some are wider than
# a phone inside them.)
BREAKS_JS = r"""
() => {
  const REL = /^[=<>≤≥≈≃≅≡∼∝⊂⊆∈]/;
  const pairs = [['‖', '‖']];  // a bar | is also a conditional (p_{j|i}): not checked
  const count = (text, ch) => text.split(ch).length - 1;
  const faults = [];
  let broken = 0;
  document.querySelectorAll('.bd-article div.math mjx-container[display="true"] mjx-linestack')
    .forEach(stack => {
      const lines = Array.from(stack.querySelectorAll(':scope > mjx-linebox'))
        .map(b => b.textContent.replace(/[\u2061-\u2064\s]/g, ''));
      if (lines.length < 2) return;
      broken += 1;
      const math = stack.closest('mjx-container').querySelector('mjx-math');
      const tex = (math.getAttribute('data-latex') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
      const whole = lines.join('');
      for (const [open, close] of pairs) {
        const balanced = open === close ? count(whole, open) % 2 === 0
                                        : count(whole, open) === count(whole, close);
        if (!balanced) continue;  // KL(P ‖ Q): a single bar, not a norm
        if (lines.some(l => open === close ? count(l, open) % 2 : count(l, open) !== count(l, close)))
          faults.push(`a norm split across lines: ${tex}`);
      }
      // a \left...\right group is one element; broken, its pieces sit in two line boxes
      const groups = new Map();
      stack.querySelectorAll(':scope > mjx-linebox').forEach((box, k) => {
        box.querySelectorAll('[data-latex^="\\left"]').forEach(g => {
          const key = g.getAttribute('data-latex');
          if (!groups.has(key)) groups.set(key, new Set());
          groups.get(key).add(k);
        });
      });
      groups.forEach((boxes, key) => {
        if (boxes.size > 1) faults.push(`${key.slice(0, 30)} split across lines: ${tex}`);
      });
      // each line without its scripts and limits (the comma of \sum_{i,j} separates nothing)
      const tops = Array.from(stack.querySelectorAll(':scope > mjx-linebox')).map(b => {
        const copy = b.cloneNode(true);
        copy.querySelectorAll('mjx-script, mjx-under, mjx-over').forEach(s => s.remove());
        return copy.textContent.replace(/[\u2061-\u2064\s]/g, '');
      });
      lines.forEach((whole, i) => {
        if (i > 0 && /^[,;.:]/.test(whole)) faults.push(`a line starts with punctuation: ${tex}`);
        const line = tops[i];
        const next = lines[i + 1];
        if (next && REL.test(next)) {
          let comma = -1, depth = 0;  // the last comma outside brackets
          Array.from(line).forEach((ch, k) => {
            if ('([{'.includes(ch)) depth += 1;
            else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
            else if (ch === ',' && depth === 0) comma = line.slice(0, k).length;
          });
          const tail = comma >= 0 ? line.slice(comma + 1) : '';
          if (tail && !/[=<>≤≥≈≃≅≡∼]/.test(tail) && /[=<>≤≥≈≃≅≡∼]/.test(line.slice(0, comma)))
            faults.push(`a left-hand side left at the end of a line ("${tail}"): ${tex}`);
        }
      });
    });
  return {broken, faults};
}
"""

STYLE_JS = r"""
() => {
  const obj = Array.from(document.querySelectorAll('.bd-article div.admonition'))
    .filter(a => /^learning objectives$/i.test(
      (a.querySelector('.admonition-title') || {}).textContent || ''))
    .map(a => ({cls: a.classList.contains('admonition-learning-objectives'),
                border: getComputedStyle(a).borderLeftColor,
                title: getComputedStyle(a.querySelector('.admonition-title')).backgroundColor}));
  const weight = sel => { const h = document.querySelector('.bd-article ' + sel);
                          return h ? parseInt(getComputedStyle(h).fontWeight, 10) : null; };
  return {objectives: obj, h2: weight('h2'), h3: weight('h3')};
}
"""


# Every folded part of a page opened: the solutions and hints (sphinx-togglebutton's dropdown
# admonitions, opened by their title as a reader taps it) and the folded cells (<details>).
# Closed, their formulas have no box and were never measured: a solution's display that fitted
# the article's column scrolled in the opened dropdown's narrower one (291 px at 390).
OPEN_FOLDS_JS = r"""
() => {
  const article = document.querySelector('.bd-article');
  const folds = Array.from(article.querySelectorAll('.toggle-hidden > .admonition-title'));
  folds.forEach((title) => title.click());
  const details = Array.from(article.querySelectorAll('details:not([open])'));
  details.forEach((d) => { d.open = true; });
  return folds.length + details.length;
}
"""


def _wide_equations_with_folds_open(pw_page, url):
    """The display equations of ``url`` that scroll sideways (``EQUATIONS_JS``) once every fold
    is opened (``OPEN_FOLDS_JS``), and how many folds were opened."""
    pw_page.goto(url, wait_until="load")
    # typeset at build time; the displays too wide for a phone again in the browser
    # (book/_static/mlnotes-mathjax.js), every one before the class goes (TYPESET_ALL)
    pw_page.wait_for_function("() => !document.documentElement.classList.contains("
                              "'mlnotes-maths-pending')", timeout=scaled(60000), polling=POLL_MS)
    # the displays in a fold opened are typeset again for its column, if too wide
    opened = []
    settle(pw_page, lambda: opened.append(pw_page.evaluate(OPEN_FOLDS_JS)))
    return pw_page.evaluate(EQUATIONS_JS, list(STATEMENT_KINDS)), opened[0]


# A solution's display written as a careless author would: one line that fits the article's
# column at 390 px (336 px) but not the opened dropdown's (291 px), where no relation is left
# to break at (the autoencoders' warm-up before it was rewritten).
FOLDED_WIDE = (r"\tfrac13 Z^\top \mathcal R = \tfrac13 (6, -6) = (2, -2)",
               r"\tfrac13\left[-3(-1, 1) + (-1, 1) + 2(2, -2)\right]")


def _typeset_in_the_browser(html):
    """``html`` (a built page) with the formulas it holds as TeX typeset by MathJax in the
    browser: a TeX changed in the page is what the reader sees. A page built with its island
    (book/_ext/prerender.py) would put in place the formula built from the TeX before the change:
    its formulas lose their place in the island, and its MathJax script is turned on again."""
    html = ISLAND_RE.sub("", html)
    html = re.sub(r' data-mlnotes-chtml="\d+"', "", html)
    return re.sub(r'<script data-mlnotes-mathjax="([^"]*)"></script>',
                  r'<script defer="defer" src="\1"></script>', html)


def test_a_display_too_wide_for_its_opened_fold_is_found(site, browser):
    """The mutant of the check below: the autoencoders' page served with ``FOLDED_WIDE`` in a
    solution scrolls once the solution is opened, and is found there."""
    context, pw_page = _open(browser, site, "book/intro.html", PHONE)
    try:
        page = "book/autoencoders.html"
        html = (BOOK_HTML / page).read_text(encoding="utf-8")
        assert FOLDED_WIDE[0] in html, "the warm-up's solution changed: update FOLDED_WIDE"
        pw_page.route(f"**/{page}", lambda route: route.fulfill(
            body=_typeset_in_the_browser(html.replace(*FOLDED_WIDE)), content_type="text/html"))
        wide, opened = _wide_equations_with_folds_open(pw_page, f"{site}/{page}")
    finally:
        context.close()
    assert opened and any("-3(-1,1)" in e["tex"].replace(" ", "") for e in wide), wide


@pytest.mark.slow
def test_display_equations_fit_a_phone(site, browser):
    """Every toc page at 390 px, its solutions, hints and folded cells opened (``OPEN_FOLDS_JS``):
    at most ``MAX_SCROLLING_EQUATIONS`` display equations scroll, none in a statement; the
    formulas broken into lines are broken only where their meaning holds (``BREAKS_JS``)."""
    found, styles, faults, broken, folds = {}, {}, [], 0, []
    context, pw_page = _open(browser, site, "book/intro.html", PHONE)
    try:
        for page in _toc_pages():
            wide, opened = _wide_equations_with_folds_open(pw_page, f"{site}/{page}")
            folds.append(opened)
            if wide:
                found[page] = wide
            styles[page] = pw_page.evaluate(STYLE_JS)
            breaks = pw_page.evaluate(BREAKS_JS)
            broken += breaks["broken"]
            faults += [f"{page}: {f}" for f in breaks["faults"]]
    finally:
        context.close()
    assert sum(folds) >= 100, f"only {sum(folds)} folds opened in the book"
    # formulas broken into lines keep their meaning: the test can fail only if some are broken
    assert broken >= 20, f"only {broken} display formulas broken into lines at 390 px"
    assert not faults, (f"{len(faults)} bad line breaks in {broken} broken formulas at 390 px:\n  "
                        + "\n  ".join(faults[:12]))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "equations-390.json").write_text(json.dumps(found, indent=1, ensure_ascii=False))
    total = sum(len(v) for v in found.values())
    listing = "\n  ".join(f"{page}: ({e['number'] or 'no number'}, {e['too_wide_percent']}% too wide"
                          f"{', in a ' + e['statement'] if e['statement'] else ''}) {e['tex'][:60]}"
                          for page, eqs in found.items() for e in eqs)
    statements = [(p, e["number"], e["tex"][:50]) for p, eqs in found.items() for e in eqs
                  if e["statement"] in STATEMENT_KINDS]
    assert not statements, f"statements that scroll sideways at 390 px: {statements}"
    assert total <= MAX_SCROLLING_EQUATIONS, (
        f"{total} display equations scroll sideways at 390 px (at most "
        f"{MAX_SCROLLING_EQUATIONS}):\n  {listing}")

    # one style: one colour for every objectives box, h2 heavier than h3
    boxes = [(page, b) for page, s in styles.items() for b in s["objectives"]]
    assert boxes, "no 'Learning objectives' box found"
    assert all(b["cls"] for _, b in boxes), [p for p, b in boxes if not b["cls"]]
    assert len({(b["border"], b["title"]) for _, b in boxes}) == 1, boxes
    weights = [(p, s["h2"], s["h3"]) for p, s in styles.items() if s["h2"] and s["h3"]]
    assert weights and all(h2 > h3 for _, h2, h3 in weights), weights


COVERS_JS = r"""
() => {
  const bg = el => { for (let n = el.parentElement; n; n = n.parentElement) {
      const c = getComputedStyle(n).backgroundColor;
      const m = c.match(/rgba?\(([^)]*)\)/);
      if (m) { const p = m[1].split(',').map(Number); if (p.length < 4 || p[3] > 0.99) return c; } }
    return getComputedStyle(document.body).backgroundColor; };
  const bad = [];
  let covered = 0;
  document.querySelectorAll('.bd-article div.proof mjx-container[display="true"], '
                            + '.bd-article div.admonition mjx-container[display="true"]').forEach(e => {
    const image = getComputedStyle(e).backgroundImage;
    const overflows = e.scrollWidth > e.clientWidth + 1;
    if (!overflows && image !== 'none') bad.push('covers on an equation that fits');
    if (overflows) {
      covered += 1;
      const cover = getComputedStyle(e).getPropertyValue('--mlnotes-cover').trim();
      if (cover !== bg(e)) bad.push(`cover ${cover} on a box of colour ${bg(e)}`);
    }
  });
  return {bad, covered};
}
"""

# No display of the sample pages is too wide for its theorem box at any width (MathJax breaks
# them), so the covers above would have nothing to check: a display that cannot be broken (a
# matrix of 40 columns) is typeset by the page's MathJax, as the lazy typesetter does, and put
# in the page's first sphinx-proof box with a background of its own (a proof or an algorithm:
# in dark mode a grey unlike the page's; a theorem's tint is translucent, so the page shows
# through); mlnotes.js marks it as it marks any formula typeset late. Its cover must then be
# the box's colour, in both modes and at every width.
WIDE_TEX = r"\begin{pmatrix}" + " & ".join(["1000"] * 40) + r"\end{pmatrix}"
WIDE_IN_A_BOX_JS = r"""
async (tex) => {
  const box = Array.from(document.querySelectorAll('.bd-article div.proof')).find(b => {
    const m = getComputedStyle(b).backgroundColor.match(/rgba?\(([^)]*)\)/);
    const p = m ? m[1].split(',').map(Number) : [];
    return p.length === 3 || p[3] > 0.99; });
  if (!box || !(window.MathJax && MathJax.tex2chtmlPromise)) return false;
  const holder = document.createElement('div');  // as Sphinx writes a display, then typeset
  holder.className = 'math notranslate nohighlight';
  (box.querySelector(':scope > section') || box).appendChild(holder);
  holder.appendChild(await MathJax.tex2chtmlPromise(tex, {display: true}));
  return true;
}
"""

ALIGNED_JS = r"""
() => Array.from(document.querySelectorAll('.bd-article .cell_output pre')).filter(pre => {
  const lines = pre.textContent.split('\n').filter(l => l.trim());
  return lines.length > 1 && lines.some(l => /\S(?: {2,}|\t)\S/.test(l));
}).map(pre => ({ws: getComputedStyle(pre).whiteSpace, ox: getComputedStyle(pre).overflowX,
                text: pre.textContent.trim().slice(0, 40)}))
"""

HEADER_JS = r"""
() => {
  const visible = e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'
      && r.bottom > 0 && r.top < innerHeight && r.left < innerWidth; };
  const search = Array.from(document.querySelectorAll('.bd-header-article .search-button'))
    .filter(visible).map(e => e.getBoundingClientRect().top);
  const small = Array.from(document.querySelectorAll(
      '.bd-header-article button, .bd-header-article a.btn')).filter(visible)
    .map(e => e.getBoundingClientRect()).filter(r => r.width < 43.5 || r.height < 43.5)
    .map(r => `${Math.round(r.width)}x${Math.round(r.height)}`);
  const beyond = Array.from(document.querySelectorAll('.bd-header-article button, '
      + '.bd-header-article a.btn')).filter(visible)
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .map(e => e.className.slice(0, 40));
  return {search, small, beyond};
}
"""


def _header_boxes_and_outputs(pw_page, page, width, mode, wide_in_box=False):
    """The problems ``test_header_boxes_and_outputs`` finds on ``page`` as it is now
    (``wide_in_box``: a display too wide for its box was put in a theorem box)."""
    problems = []
    if pw_page.evaluate("document.documentElement.dataset.theme") != mode:
        problems.append(f"{page}: not in {mode} mode")
    header = pw_page.evaluate(HEADER_JS)
    if not header["search"] or min(header["search"]) > 80:
        problems.append(f"{page}: no search button in the header")
    if header["beyond"]:
        problems.append(f"{page}: header buttons off the screen: {header['beyond']}")
    if width == PHONE and header["small"]:
        problems.append(f"{page}: header targets under 44 px: {header['small']}")
    covers = pw_page.evaluate(COVERS_JS)
    problems += [f"{page}: {p}" for p in covers["bad"][:3]]
    if wide_in_box and not covers["covered"]:
        problems.append(f"{page}: the display put in a theorem box does not scroll (no cover "
                        "to check)")
    # formulas: not each a stop of the Tab key, and each readable by a screen reader
    # (MathJax's assistive MathML)
    maths = pw_page.evaluate(
        "(() => { const all = Array.from(document.querySelectorAll('.bd-article mjx-container'));"
        " return {n: all.length, tab: all.filter(e => e.tabIndex >= 0).length,"
        " mute: all.filter(e => !e.querySelector('mjx-assistive-mml math')"
        " && !e.getAttribute('aria-label')).length}; })()")
    if maths["tab"]:
        problems.append(f"{page}: {maths['tab']} of {maths['n']} formulas are tab stops")
    if maths["mute"]:
        problems.append(f"{page}: {maths['mute']} formulas without text for screen readers")
    for out in pw_page.evaluate(ALIGNED_JS):
        if out["ws"] != "pre" or out["ox"] not in ("auto", "scroll"):
            problems.append(f"{page}: aligned output wraps ({out['ws']}): {out['text']}")
    if page.endswith("appendix_notation.html"):
        problems += [f"{page}: {p}" for p in _notation_table(pw_page, width)]
    if width == PHONE:
        problems += [f"{page}: {p}" for p in _phone_details(pw_page)]
        pw_page.evaluate("window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pw_page.screenshot(path=str(ARTIFACTS / f"{page.split('/')[-1]}.{width}.{mode}.png"))
    return [f"at {width}px, {mode}: {p}" for p in problems]


def _put_wide_display_in_a_box(pw_page):
    """Put ``WIDE_TEX`` in the page's first proof box, once the page has marked it
    (``WIDE_IN_A_BOX_JS``); whether the page has such a box."""
    put = []
    settle(pw_page, lambda: put.append(pw_page.evaluate(WIDE_IN_A_BOX_JS, WIDE_TEX)))
    return put[0]


def _switch_mode(pw_page, mode):
    """Light <-> dark as the theme button does (mlnotes.js), and the page re-marked for it."""
    settle(pw_page, lambda: pw_page.evaluate("m => mlnotesSetMode(m)", mode))


# Each sample page is loaded once at a phone's width (a touch screen) and once at a laptop's,
# each in one mode and then switched to the other (as the theme button does); the laptop's is
# then resized to 1440 px and checked in both modes again. Every other page loads in dark mode,
# so both modes are checked as loaded and as switched to.
def _modes(k):
    return MODES if k % 2 == 0 else MODES[::-1]


@pytest.mark.parametrize("width", [PHONE, LAPTOP], ids=["390px", "1366px-1440px"])
def test_header_boxes_and_outputs(width, site, browser):
    """Header, boxes and outputs at 390, 1366 and 1440 px, light and dark (module docstring)."""
    problems = []
    for k, page in enumerate(SAMPLE_PAGES):
        first, second = _modes(k)
        context, pw_page = _open(browser, site, page, width, first)
        try:
            wide = _put_wide_display_in_a_box(pw_page)
            problems += _header_boxes_and_outputs(pw_page, page, width, first, wide)
            _switch_mode(pw_page, second)
            problems += _header_boxes_and_outputs(pw_page, page, width, second, wide)
            if width == LAPTOP:
                resize(pw_page, WIDE)
                problems += _header_boxes_and_outputs(pw_page, page, WIDE, second, wide)
                _switch_mode(pw_page, first)
                problems += _header_boxes_and_outputs(pw_page, page, WIDE, first, wide)
        finally:
            context.close()
    assert not problems, "\n  ".join(problems)


def _notation_table(pw_page, width):
    state = pw_page.evaluate(r"""() => {
      const t = document.querySelector('.bd-article table');
      if (!t) return null;
      const broken = Array.from(t.querySelectorAll('code.literal')).filter(c => {
        const rects = Array.from(c.getClientRects()); if (rects.length < 2) return false;
        // a break is allowed only at a space: each line fragment ends at a word boundary
        return !/\s/.test(c.textContent.trim()); }).map(c => c.textContent);
      const row = t.querySelector('tbody tr');
      return {display: getComputedStyle(row).display, broken,
              right: Math.max(...Array.from(t.querySelectorAll('td'))
                .map(td => td.getBoundingClientRect().right)),
              width: innerWidth}; }""")
    if state is None:
        return ["no table"]
    problems = []
    if state["broken"]:
        problems.append(f"code names broken mid-word: {state['broken'][:3]}")
    if width == PHONE:
        if state["display"] != "block":
            problems.append("table rows are not blocks on a phone")
        if state["right"] > state["width"] + 1:
            problems.append("a table cell runs off the screen")
    return problems


def _phone_details(pw_page):
    problems = []
    # shrunk figures carry a visible "Enlarge" mark
    marks = pw_page.evaluate(
        "Array.from(document.querySelectorAll('img.mlnotes-zoomable')).map(i => {"
        " const b = i.parentElement.querySelector('.mlnotes-zoom-badge');"
        " return !!b && !b.hidden && b.getBoundingClientRect().width > 20; })")
    if marks and not all(marks):
        problems.append(f"{marks.count(False)} shrunk figures without an 'Enlarge' mark")
    # a long press on a formula opens no MathJax menu (it was half off the screen)
    if pw_page.evaluate("document.querySelectorAll('mjx-container[ctxtmenu_counter]').length"):
        problems.append("formulas open MathJax's menu on a touch screen")
    # explorers: controls that stick cover at most a third of the screen, and the message about
    # a setting sits with the controls, above the picture
    pw_page.evaluate("async () => { if (window.MLNotesExplorers) await MLNotesExplorers.initAll(); }")
    explorers = pw_page.evaluate(
        "Array.from(document.querySelectorAll('.mlnotes-explorer.mlx-ready')).map(e => {"
        " const c = e.querySelector('.mlx-controls'); const s = e.querySelector('.mlx-status');"
        " return {sticky: getComputedStyle(c).position === 'sticky',"
        " share: c.getBoundingClientRect().height / innerHeight,"
        " status: !!s && c.contains(s)}; })")
    crowded = [round(e["share"], 2) for e in explorers if e["sticky"] and e["share"] > 1 / 3]
    if crowded:
        problems.append(f"sticky explorer controls cover {crowded} of the screen (> 1/3)")
    if not all(e["status"] for e in explorers):
        problems.append("an explorer's message is not beside its controls")
    # solution titles: one short line ("Solution to Ex. 6.1 ★")
    tall = pw_page.evaluate(
        "Array.from(document.querySelectorAll('.solution > .admonition-title'))"
        ".filter(t => { const r = document.createRange(); r.selectNodeContents(t.querySelector('a') || t);"
        " const lines = new Set(Array.from(r.getClientRects()).filter(x => x.width > 2)"
        ".map(x => Math.round(x.bottom / 8))); return lines.size > 1; })"
        ".map(t => t.innerText.trim().slice(0, 50))")
    if tall:
        problems.append(f"solution titles over one line: {tall[:2]}")
    # a tap on a header button leaves no tooltip on screen: looked at once the search dialog
    # the tap opened is closed again and what the tap and the key started has been drawn to its
    # end (Bootstrap shows a tooltip in a timer, then fades it in: ``after_transitions``)
    button = pw_page.locator(".bd-header-article .search-button").first
    if button.count():
        button.tap()
        if not wait_until(pw_page, SEARCH_OPEN_JS, polling=POLL_MS):
            problems.append("a tap on the search button opens no search dialog")
        after_transitions(pw_page)
        pw_page.keyboard.press("Escape")
        wait_until(pw_page, f"() => !({SEARCH_OPEN_JS})()", polling=POLL_MS)
        # whether the tap's events show the button's tooltip depends on how they interleave
        # (hover and focus from a tap, the dialog's focus coming back): on a slow machine a
        # careless style sheet's tooltip was not always shown. So the tooltip is also shown as
        # the tap may show it (Bootstrap's own call), and must not be seen either way.
        pw_page.evaluate("b => window.bootstrap && bootstrap.Tooltip.getOrCreateInstance(b).show()",
                         button.element_handle())
        after_transitions(pw_page)
        if pw_page.evaluate("Array.from(document.querySelectorAll('.tooltip'))"
                            ".some(t => t.getBoundingClientRect().width > 0)"):
            problems.append("a tooltip stays on screen after a tap")
    # "Contents": opens, its links are 44 px high, and it closes after a tap on a section
    contents = pw_page.locator(".bd-header-article .secondary-toggle")
    if contents.count() and contents.first.is_visible():
        contents.first.tap()
        if not wait_until(pw_page, "() => (document.getElementById("
                                    "'pst-secondary-sidebar-modal') || {}).open",
                          polling=POLL_MS):
            problems.append("a tap on Contents does not open its drawer")
        after_transitions(pw_page)  # the drawer slides in
        heights = pw_page.evaluate(
            "Array.from(document.querySelectorAll('#pst-secondary-sidebar-modal .toc-entry > a'))"
            ".map(a => a.getBoundingClientRect().height).filter(h => h > 0)")
        if heights and min(heights) < 43.5:
            problems.append(f"Contents links {min(heights):.0f} px high (< 44)")
        link = pw_page.locator("#pst-secondary-sidebar-modal .toc-entry > a").nth(1)
        if link.count():
            link.tap()
            if not wait_until(pw_page, "() => !(document.getElementById("
                                        "'pst-secondary-sidebar-modal') || {}).open",
                              polling=POLL_MS):
                problems.append("the Contents drawer stays open after a tap on a section")
        pw_page.keyboard.press("Escape")
    # the chapter drawer's links too
    menu = pw_page.locator(".bd-header-article .primary-toggle")
    if menu.count() and menu.first.is_visible():
        pw_page.evaluate("window.scrollTo(0, 0)")
        menu.first.tap()
        if not wait_until(pw_page, "() => (document.getElementById("
                                    "'pst-primary-sidebar-modal') || {}).open",
                          polling=POLL_MS):
            problems.append("a tap on the menu button does not open the chapter drawer")
        after_transitions(pw_page)  # the drawer slides in
        heights = pw_page.evaluate(
            "Array.from(document.querySelectorAll('#pst-primary-sidebar-modal a.reference'))"
            ".map(a => a.getBoundingClientRect().height).filter(h => h > 0)")
        if heights and min(heights) < 43.5:
            problems.append(f"chapter list links {min(heights):.0f} px high (< 44)")
        pw_page.keyboard.press("Escape")
    return problems


def _modes_after_clicks(pw_page, expected):
    """The page's mode before and after each click on the theme button, each click's mode
    waited for as ``expected`` says (the mode it must lead to; not a fixed pause, which a slow
    machine outlasts), then read once what the click started has been drawn."""
    modes = [pw_page.evaluate("document.documentElement.dataset.theme")]
    for mode in expected:
        pw_page.locator(".bd-header-article .theme-switch-button").first.click()
        wait_until(pw_page, "m => document.documentElement.dataset.theme === m", mode,
                   polling=POLL_MS)
        after_transitions(pw_page)
        modes.append(pw_page.evaluate("document.documentElement.dataset.theme"))
    return modes


@pytest.mark.parametrize("width", [PHONE, WIDE], ids=["390px", "1440px"])
def test_theme_button_switches_on_the_first_tap(width, site, browser):
    context, pw_page = _open(browser, site, "book/pca.html", width, "light", whole=False)
    try:
        assert _modes_after_clicks(pw_page, ["dark", "light"]) == ["light", "dark", "light"]
    finally:
        context.close()


@pytest.mark.parametrize("system", MODES)
def test_dark_mode_follows_the_system_until_the_reader_chooses(system, site, browser):
    other = "light" if system == "dark" else "dark"
    context = browser.new_context(viewport={"width": PHONE, "height": 844}, color_scheme=system)
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/book/pca.html", wait_until="domcontentloaded")
        assert pw_page.evaluate("document.documentElement.dataset.theme") == system
        pw_page.locator(".bd-header-article .theme-switch-button").first.click()
        assert wait_until(pw_page, "m => document.documentElement.dataset.theme === m", other,
                          polling=POLL_MS)
        # the choice holds on the next page, whatever the system says
        pw_page.goto(f"{site}/book/isomap.html", wait_until="domcontentloaded")
        assert pw_page.evaluate("document.documentElement.dataset.theme") == other
    finally:
        context.close()


def _search(pw_page, site, query):
    pw_page.goto(f"{site}/search.html?q={query}", wait_until="load")
    # results arrive one by one, each snippet after its result (SEARCH_DONE_JS)
    pw_page.wait_for_function(SEARCH_DONE_JS, timeout=scaled(60000), polling=POLL_MS)
    return pw_page.evaluate(
        "Array.from(document.querySelectorAll('#search-results li')).map(li => ({"
        " href: li.querySelector('a').getAttribute('href').split('#')[0].split('?')[0],"
        " snippet: (li.querySelector('p.context') || {}).textContent || ''}))")


# The search dialog's magnifier over the start of its field: 'covered', 'no dialog' or None.
COVERED_JS = r"""() => {
  const d = document.querySelector('#pst-search-dialog'); if (!d || !d.open) return 'no dialog';
  const input = d.querySelector('input'); const icon = d.querySelector('i, svg');
  if (!input || !icon) return null;
  const start = input.getBoundingClientRect().left + parseFloat(getComputedStyle(input).paddingLeft);
  return icon.getBoundingClientRect().right > start + 1 ? 'covered' : null; }"""


def _magnifier_covers(pw_page):
    """Open the search dialog from the header; ``COVERED_JS`` once it is open and drawn (not
    after a fixed pause)."""
    pw_page.locator(".bd-header-article .search-button").first.click()
    wait_until(pw_page, SEARCH_OPEN_JS, polling=POLL_MS)
    after_transitions(pw_page)
    return pw_page.evaluate(COVERED_JS)


def test_search_finds_both_spellings_and_quotes_text(site, browser):
    context, pw_page = _open(browser, site, "book/intro.html", LAPTOP, whole=False)
    try:
        british = _search(pw_page, site, "double+centring")
        american = _search(pw_page, site, "double+centering")
        # the magnifier of the search dialog does not cover what is typed
        pw_page.goto(f"{site}/book/pca.html", wait_until="load")
        covered = _magnifier_covers(pw_page)
    finally:
        context.close()
    assert british, "no result for 'double centring'"
    assert {r["href"] for r in british} == {r["href"] for r in american}
    chrome = [r["snippet"][:60] for r in british + american
              if re.match(r"\s*(\.\.\.)?\s*(\.ipynb|\.pdf|Run locally|Contents)", r["snippet"])]
    assert not chrome, f"snippets start with page chrome: {chrome}"
    mentions = [r for r in british if re.search(r"cent(e)?r", r["snippet"], re.I)]
    assert mentions, "no snippet shows the word searched for"
    assert covered is None, f"search dialog: {covered}"


# Each display's width it was broken for (data-mlnotes-width: the build's column,
# book/_ext/prerender.py, or the width MathJax measured when the page typeset it again) against
# the width it has.
CONTAINER_WIDTHS_JS = r"""
() => {
  const items = (window.MathJax && MathJax.startup && MathJax.startup.document)
    ? Array.from(MathJax.startup.document.math).filter(m => m.display && m.typesetRoot) : [];
  return Array.from(document.querySelectorAll('.bd-article .math > mjx-container[display]'))
    .map(c => {
      const item = items.find(m => m.typesetRoot === c);
      return {measured: c.hasAttribute('data-mlnotes-width') ? Number(c.getAttribute('data-mlnotes-width'))
                        : (item ? item.metrics.containerWidth : 0),
              actual: c.getBoundingClientRect().width,
              tex: (c.querySelector('mjx-math').getAttribute('data-latex') || '').trim().slice(0, 60)};
    });
}
"""


@pytest.mark.parametrize("page", ["book/tsne.html", "book/isomap.html", "book/umap.html"])
def test_mathjax_breaks_formulas_at_the_width_they_have(page, site, browser):
    context, pw_page = _open(browser, site, page, LAPTOP)
    try:
        widths = pw_page.evaluate(CONTAINER_WIDTHS_JS)
    finally:
        context.close()
    assert widths, f"{page}: no display maths typeset"
    narrow = [w for w in widths if w["measured"] < 0.9 * w["actual"]]
    assert not narrow, (f"{page}: MathJax measured a narrower column than the formula has, so "
                        f"it breaks lines too early: {narrow[:3]}")


# Careless versions of the style sheet and script that the checks above, which wait for the
# page's own state instead of a fixed pause, must still reject (run on demand, slowed machines
# included: ``MLNOTES_TIMING_MUTANTS=1``): tooltips no longer hidden on a touch screen; the
# drawers' links back to 20 px lines; the theme button that switches nothing; the search field
# without room for its magnifier.
TOOLTIP_MUTANT = ("  .tooltip {\n    display: none !important;\n  }", "  .tooltip {\n  }")
DRAWER_LINKS_MUTANT = ("  dialog .bd-sidebar .reference {\n    min-height: 44px;\n"
                       "    display: block !important;\n    box-sizing: border-box;\n"
                       "    padding-top: calc((44px - 1.5em) / 2);\n"
                       "    padding-bottom: calc((44px - 1.5em) / 2);\n",
                       "  dialog .bd-sidebar .reference {\n    display: block !important;\n")
THEME_MUTANT = ('    mlnotesSetMode(dark ? "light" : "dark");\n', "")
MAGNIFIER_MUTANT = ("  padding-left: 2.4rem !important;\n", "")


@pytest.mark.skipif(not os.environ.get("MLNOTES_TIMING_MUTANTS"),
                    reason="run on demand: MLNOTES_TIMING_MUTANTS=1")
def test_waiting_checks_fail_their_mutants(site, browser):
    """The phone's tooltip and drawer checks, the theme button's and the magnifier's, each on
    its mutant: every one must find a problem."""
    found = {}
    for name, mutant in [("tooltip", TOOLTIP_MUTANT), ("drawer links", DRAWER_LINKS_MUTANT)]:
        context, pw_page = _open(browser, site, "book/pca.html", PHONE, whole=False,
                                 mutant=("mlnotes.css", mutant))
        try:
            found[name] = _phone_details(pw_page)
        finally:
            context.close()
    assert any("tooltip stays" in p for p in found["tooltip"]), found["tooltip"]
    assert any("px high (< 44)" in p for p in found["drawer links"]), found["drawer links"]
    context, pw_page = _open(browser, site, "book/pca.html", PHONE, "light", whole=False,
                             mutant=("mlnotes.js", THEME_MUTANT))
    try:
        modes = _modes_after_clicks(pw_page, ["dark", "light"])
    finally:
        context.close()
    assert modes != ["light", "dark", "light"], modes
    context, pw_page = _open(browser, site, "book/pca.html", LAPTOP, whole=False,
                             mutant=("mlnotes.css", MAGNIFIER_MUTANT))
    try:
        covered = _magnifier_covers(pw_page)
    finally:
        context.close()
    assert covered == "covered", covered
