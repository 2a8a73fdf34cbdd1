"""Every display formula fits its column after the window is resized (issue 32).

A display formula is broken into lines for the column it is typeset for. Those typeset at build
time are checked in ``test_browser_maths.test_built_displays_are_typeset_again_for_their_column``;
here, those typeset in the page: lazily, as the reader scrolls to them (every formula below a
page's first screens), and one opened through MathJax's menu (a right-click makes a built
formula MathJax's own). On the autoencoders page (dark), read at 390 px, then 1366, then 390
(the window resized in place, as a phone turned or a laptop's window narrowed), each such
display near the screen has the lines MathJax gives it when typeset afresh for the column it
has now, and fits it: broken for a phone, it is whole again on a laptop where the laptop holds
it (book/_static/mlnotes-mathjax.js, watchDisplays / watchTypeset).

The reference is MathJax itself: the display's TeX typeset for its column now
(``MathJax.tex2chtmlPromise`` with ``MathJax.getMetricsFor`` its holder), not the page's own
marks (data-mlnotes-column), so a mechanism that marks but does not typeset again fails too.
"""

import time

import pytest

from browser_support import POLL_MS, scaled, serve_mutant

pytestmark = pytest.mark.browser

PAGE = "book/autoencoders.html"
MODE = "dark"
WIDTHS = [(390, 844), (1366, 768), (390, 844)]
# displays typeset lazily and broken into lines at 390 px that the check follows (the first ones
# of the page: near its top, so the scrolls are short)
LAZY = 2
# The display holders (div.math) of the article, a built one (typeset at build time) first if
# any is wider than a phone's column and typeset again for it, then those typeset lazily: each
# is given an index (data-rebreak) the checks below name.
HOLDERS_JS = r"""
() => Array.from(document.querySelectorAll('.bd-article div.math')).map((h, k) => {
  h.setAttribute('data-rebreak', String(k));
  const c = h.querySelector(':scope > mjx-container[display]');
  return {k, built: !!c && (c.hasAttribute('data-mlnotes-built') || c.hasAttribute('data-mlnotes-browser'))};
})
"""
# What is wrong with the display of holder k: not typeset, wider than its column, or (typeset
# in the page) not broken into the lines MathJax gives its TeX for the column it has now.
PROBLEM_JS = r"""
async (k) => {
  const h = document.querySelector(`[data-rebreak="${k}"]`);
  const c = h && h.querySelector(':scope > mjx-container[display]');
  if (!c) return `display ${k}: not typeset`;
  const width = c.clientWidth;
  if (!width) return `display ${k}: not shown`;
  const tex = (c.querySelector(':scope > mjx-math').getAttribute('data-latex') || '').trim();
  const lines = (n) => Math.max(1, n.querySelectorAll('mjx-linebox').length);
  const what = `display ${k} (${tex.slice(0, 40)})`;
  if (c.scrollWidth > width + 1) return `${what}: ${c.scrollWidth} px wide in a ${width} px column`;
  if (c.hasAttribute('data-mlnotes-built')) return '';
  const fresh = await MathJax.tex2chtmlPromise(tex, MathJax.getMetricsFor(h, true));
  if (lines(fresh) !== lines(c))
    return `${what}: ${lines(c)} lines in a ${width} px column, ${lines(fresh)} typeset for it`;
  return '';
}
"""
LINES_JS = "(k) => document.querySelectorAll(`[data-rebreak=\"${k}\"] mjx-linebox`).length"
TYPESET_JS = "(k) => !!document.querySelector(`[data-rebreak=\"${k}\"] > mjx-container`)"
MENU_OPEN_JS = ("() => { const m = document.querySelector('.CtxtMenu_Menu');"
                " return !!m && m.getBoundingClientRect().width > 0; }")
SETTLED_JS = "() => !document.documentElement.classList.contains('mlnotes-maths-pending')"
# A display typeset in the page for a phone (lazily) not typeset again for a wider column; the
# menu's formula not watched.
MUTANTS = [
    ("(original || tooWide(c) || broken(c))", "(original || tooWide(c))"),
    ("      watchTypeset([holder]);\n", ""),
]


# Holder k scrolled to the middle of the screen, again while it is off the screen: the page
# may still move under it (formulas above it typeset lazily, boxes marked), and the lazy
# typesetter and the displays' refitting act only near the screen.
CENTRE_JS = """(k) => {
  const h = document.querySelector(`[data-rebreak="${k}"]`);
  const r = h.getBoundingClientRect();
  if (!(r.bottom < 0 || r.top > innerHeight)) return;
  window.scrollTo(0, r.top + scrollY - innerHeight / 2);
}"""


def _settle(pw_page, k, timeout):
    """Scroll holder ``k`` to the middle of the screen (``CENTRE_JS``, and again while it is
    off it); what ``PROBLEM_JS`` finds once settled or after ``timeout`` seconds (``scaled``
    for this machine: a mutant's problem stays, the real page's goes once its typesetting is
    done) ('' when nothing)."""
    pw_page.locator(f'[data-rebreak="{k}"]').evaluate(
        "h => window.scrollTo(0, h.getBoundingClientRect().top + scrollY - innerHeight / 2)")
    end = time.monotonic() + scaled(timeout)
    while True:
        problem = pw_page.evaluate(PROBLEM_JS, k)
        if not problem or time.monotonic() > end:
            return problem
        pw_page.wait_for_timeout(150)
        pw_page.evaluate(CENTRE_JS, k)


def _run(browser, site, chosen=None, mutant=None, timeout=8.0):
    """Read PAGE at each of WIDTHS; the problems found and the holders followed (chosen at 390
    px when ``chosen`` is None: the menu's formula and LAZY lazily typeset displays broken into
    lines). With a ``mutant``, stop at the first width with a problem."""
    context = browser.new_context(viewport={"width": WIDTHS[0][0], "height": WIDTHS[0][1]},
                                  color_scheme=MODE)
    context.add_init_script(f"localStorage.setItem('mode', '{MODE}');"
                            f"localStorage.setItem('theme', '{MODE}');")
    if mutant:
        serve_mutant(context, "mlnotes-mathjax.js", mutant)
    problems = []
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/{PAGE}", wait_until="load")
        pw_page.wait_for_function(SETTLED_JS, timeout=60000, polling=POLL_MS)
        holders = pw_page.evaluate(HOLDERS_JS)
        if chosen is None:
            menu = [h["k"] for h in holders if h["built"]]
            lazy = []
            for h in holders:
                if h["built"] or len(lazy) == LAZY:
                    continue
                _settle(pw_page, h["k"], timeout)
                if pw_page.evaluate(LINES_JS, h["k"]) > 1:
                    lazy.append(h["k"])
            # the built display typeset again for a phone's column (broken into lines)
            menu = next(([k] for k in menu if _settle(pw_page, k, timeout) == ""
                         and pw_page.evaluate(LINES_JS, k) > 1), [])
            chosen = (menu, lazy)
            # what the build offers: displays typeset at build time (none without Node,
            # MLNOTES_PRERENDER_MATHS=0) and displays left to the page (none with =1)
            KINDS.update(built=any(h["built"] for h in holders),
                         lazy=not all(h["built"] for h in holders))
        menu, lazy = chosen
        for k in menu:
            # the right-click: MathJax's menu, the formula now MathJax's own; closed again
            _settle(pw_page, k, timeout)
            pw_page.locator(f'[data-rebreak="{k}"] > mjx-container').click(button="right")
            pw_page.wait_for_function(MENU_OPEN_JS, timeout=scaled(10000), polling=POLL_MS)
            pw_page.keyboard.press("Escape")
        for n, (width, height) in enumerate(WIDTHS):
            if n:
                pw_page.set_viewport_size({"width": width, "height": height})
            for k in menu + lazy:
                problem = _settle(pw_page, k, timeout)
                if problem:
                    problems.append(f"{width} px: {problem}")
                    if mutant:
                        return problems, chosen  # the mutant fails: enough
    finally:
        context.close()
    return problems, chosen


KINDS = {}  # the kinds of display holders PAGE has (``_run``): "built", "lazy"


def test_displays_typeset_in_the_page_are_broken_again_for_their_column(site, browser):
    """The autoencoders page (dark) at 390, 1366 and 390 px: every followed display (the first
    ones typeset lazily and broken into lines on a phone; a built one opened through MathJax's
    menu) fits its column, broken as MathJax breaks it for that column. Each of ``MUTANTS``
    must fail the same check."""
    problems, (menu, lazy) = _run(browser, site)
    if KINDS["lazy"]:
        assert len(lazy) == LAZY, f"{PAGE}: {len(lazy)} lazily typeset displays broken at 390 px"
    if KINDS["built"]:
        assert menu, f"{PAGE}: no built display typeset again for a phone's column"
    assert not problems, f"{PAGE} ({MODE}):\n  " + "\n  ".join(problems)
    # the menu's mutant applies where a built formula was opened through the menu
    passed = [m[0] for m in MUTANTS[:len(MUTANTS) if menu else 1]
              if not _run(browser, site, (menu, lazy), m, timeout=1.0)[0]]
    assert not passed, f"the check passed mutants of mlnotes-mathjax.js: {passed}"


# The page's table of contents (the phone's "Contents" drawer, a laptop's right sidebar): each
# heading's formula typeset, and set in the line of its words with their spaces ("Cost as N
# grows", not "Cost asNgrows": a flex row made each word and formula an item of its own).
TOC_MATHS_JS = r"""
(where) => {
  const problems = [];
  const gap = (text, c, before) => {
    const r = document.createRange();
    const t = text.textContent;
    // the word's last (first) character beside the formula, after (before) the space
    const k = before ? t.trimEnd().length - 1 : t.length - t.trimStart().length;
    if (k < 0 || k >= t.length || (before ? k === t.length - 1 : k === 0)) return null;  // no space
    r.setStart(text, k);
    r.setEnd(text, k + 1);
    const w = r.getBoundingClientRect(), m = c.getBoundingClientRect();
    if (w.bottom < m.top || w.top > m.bottom) return null;  // on another line
    return before ? m.left - w.right : w.left - m.right;
  };
  const links = Array.from(document.querySelectorAll(`${where} .toc-entry > a`))
    .filter(a => a.querySelector('.math'));
  for (const a of links) {
    const name = a.textContent.replace(/\s+/g, ' ').trim().slice(0, 40);
    if (Array.from(a.querySelectorAll('.math')).some(m => !m.querySelector('mjx-container')))
      problems.push(`not typeset: ${name}`);
    for (const c of a.querySelectorAll('.math > mjx-container')) {
      const math = c.parentElement;
      for (const [text, before] of [[math.previousSibling, true], [math.nextSibling, false]]) {
        if (!text || text.nodeType !== 3) continue;
        const g = gap(text, c, before);
        const side = before ? 'before' : 'after';
        if (g !== null && g < 2) problems.push(`no space ${side} its formula: ${name}`);
      }
    }
  }
  return {n: links.length, problems};
}
"""
TOC_PAGE = "book/isomap.html"  # three headings with maths ("Cost as N grows", "k too large")
# the drawer's links as flex rows again
TOC_MUTANT = ("display: block !important;", "display: flex !important;")


def _toc_maths(browser, site, width, mode, mutant=None):
    """What ``TOC_MATHS_JS`` finds in TOC_PAGE's table of contents at ``width`` px (the drawer
    opened on a phone)."""
    phone = width < 768
    context = browser.new_context(viewport={"width": width, "height": 844 if phone else 768},
                                  color_scheme=mode, is_mobile=phone, has_touch=phone)
    if mutant:
        serve_mutant(context, "mlnotes.css", mutant)
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/{TOC_PAGE}", wait_until="load")
        pw_page.wait_for_function(SETTLED_JS, timeout=60000, polling=POLL_MS)
        where = "#pst-secondary-sidebar"
        if phone:
            pw_page.locator(".bd-header-article .secondary-toggle").first.tap()
            pw_page.wait_for_function("() => (document.getElementById("
                                      "'pst-secondary-sidebar-modal') || {}).open",
                                      timeout=scaled(10000),
                                      polling=POLL_MS)
            where = "#pst-secondary-sidebar-modal"
        # the contents' formulas are typeset right after the first screen's
        pw_page.wait_for_function(f"() => Array.from(document.querySelectorAll('{where} .math'))"
                                  ".every(m => m.querySelector('mjx-container'))",
                                  timeout=scaled(10000),
                                  polling=POLL_MS)
        return pw_page.evaluate(TOC_MATHS_JS, where)
    finally:
        context.close()


def test_the_contents_show_each_headings_maths_in_its_line(site, browser):
    """The isomap page's table of contents, in the phone's drawer (390 px, light) and in a
    laptop's sidebar (1366 px, dark): its three headings with maths show the formula typeset,
    with a space on each side as in the heading. The mutant that lays the drawer's links out
    as flex rows again must fail."""
    for width, mode in [(390, "light"), (1366, "dark")]:
        found = _toc_maths(browser, site, width, mode)
        assert found["n"] >= 3, f"{TOC_PAGE} at {width} px: {found['n']} headings with maths"
        assert not found["problems"], f"{TOC_PAGE} at {width} px: {found['problems']}"
    assert _toc_maths(browser, site, 390, "light", TOC_MUTANT)["problems"], "passed the mutant"
