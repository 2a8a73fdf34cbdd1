"""The built book in a real browser: every page, on a phone (390 px) and a laptop (1366 px).

For each page of the built book (``_build/html`` from ``make book``, or ``MLNOTES_BOOK_HTML``;
built here if absent) and each width this asserts what follows. Each page is loaded once (every
formula typeset, the costly part) and checked at the width it loads at, then resized to the other
width and, once it has laid itself out again (formulas re-broken for the new column, boxes and
figures re-marked: ``browser_support.resize``), checked again. Every other page loads on a phone
first (``FIRST_WIDTH``), so across the book both widths are checked on a fresh load and after a
resize (a phone turned, a window narrowed), as readers see them. Each page is also checked in
both modes: it loads in the mode the system asks for (``FIRST_MODE``: light for one pair of
pages, dark for the next), and is switched to the other as the theme's button does before the
resize; so each width is checked light and dark, as loaded and as switched to.

* it is self-contained: no request leaves the local server, none fails, no console error;
* math is typeset by the bundled MathJax with no error; every image loaded; every explorer cell
  shows its static figure and, at 1366 px, the static explorer (book/_static/explorer.js)
  becomes ready and draws a picture (``_check_explorers_drawn``);
* navigation works: on a phone the hamburger opens the chapter list and "Contents" opens the
  page's table of contents; on a laptop the hamburger hides and shows the sidebar; there is no
  second header bar with a second search box;
* nothing is cut or pushes the page sideways: the page never scrolls sideways, every display
  equation and table either fits or scrolls in its own box (whose start is reachable); code
  fits the column on a laptop; printed outputs and error messages wrap;
* no test machinery shows (``NBVAL``, ``noqa``, matplotlib reprs such as ``<matplotlib…>`` or
  ``Text(0, …)``);
* check cells are folded under their "✓ <claim>" bar (code hidden, output visible), and the bar
  opens with a click and with the keyboard; on a phone a shrunk figure opens at full size on a
  tap;
* every content image has alt text that is not a file path, and at least twice the pixels of
  its displayed width (sharp on 2x screens); it is drawn with its own aspect ratio (within
  ``MAX_STRETCH``, its picture's box without padding), and its "Enlarge" badge does not cover it;
* on a phone, every figure's text (tick labels, legends, titles, axis and colour-bar labels,
  point labels, annotations) is shown at least 9 px tall (the smallest text's points, which
  mlnotes.plotting writes into each PNG, times the figure's shown width over its own:
  ``_small_tick_labels``);
* code cut at the right edge on a phone shows the scroll cue (edge shadows);
* no raw TeX reaches a reader: the text of the page outside typeset maths and code, its
  sidebars and drawers, and the column names of stacked tables have no TeX control word and no
  ``$`` or ``\\(`` delimiters (``RAW_TEX``);
* every text has a contrast of 4.5:1 with what is behind it (3:1 if large; WCAG AA), over the
  page, its tinted boxes and its sidebars, in the mode shown;
* no TeX in the text a browser shows or reads out from attributes (tooltips, alt text, ARIA
  labels) nor in the page's title;
* on a phone the index's entries and letters (the general index, the index of theorems) are
  44 px touch targets;
* the 1.5 MB fontawesome.js is not loaded (the few icons come from the theme's web font).

``test_page_checks_reject_colour_figure_and_tooltip_mutants`` shows the contrast, figure-shape,
tooltip and index target checks failing on mutants of the style sheet and the script.

Screenshots of every page at both widths go to ``tests/artifacts/book/`` (each test checks its
own was written, so the tests can run in any order and on several workers).

Chromium comes from the system (``/usr/bin/chromium``). Where it is missing the tests skip,
except when ``CI`` or ``MLNOTES_REQUIRE_BROWSER`` is set: there they fail.
"""

import os
import pathlib
import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest

from browser_support import (
    BOOK_HTML,
    EAGER_IMAGES,
    POLL_MS,
    RAW_TEX,
    ROOT,
    SEARCH_DONE_JS,
    TYPESET_ALL,
    resize,
    scaled,
    serve_directory,
    serve_mutant,
    settle,
    toc_files,
    wait_until,
)

pytestmark = pytest.mark.browser

HTML = BOOK_HTML
ARTIFACTS = ROOT / "tests" / "artifacts" / "book"
PHONE, LAPTOP = 390, 1366
# An image must carry at least this many natural pixels per displayed CSS pixel (2x, with a
# little room for rounding of the displayed size).
MIN_PIXEL_RATIO = 1.9
# A figure's shown height over width may differ from its own by this much (rounding of pixels).
MAX_STRETCH = 0.02


def _toc_pages():
    """The HTML pages the book must have: one per file in _toc.yml, plus Sphinx's own."""
    files = toc_files()
    # Sphinx's own pages: the redirect, the general index, search, and the index of theorems,
    # definitions and algorithms (sphinx-proof's domain, listed by title: book/_ext/surface.py).
    return ["index.html", "genindex.html", "search.html", "prf-statements.html"] + [
        f"{f}.html" for f in files]


PAGES = _toc_pages()


@pytest.fixture(scope="module")
def built():
    """The built book (``make book`` builds it first; build it here if it is missing)."""
    if not (HTML / "index.html").exists():
        if HTML != ROOT / "_build" / "html":
            pytest.fail(f"MLNOTES_BOOK_HTML={HTML} has no index.html: build the book there first")
        subprocess.run(
            [sys.executable, "-m", "jupyter_book", "build", str(ROOT), "--warningiserror",
             "--quiet"], check=True, cwd=ROOT,
        )
    return HTML


def test_every_built_page_is_checked(built):
    built_pages = {p.relative_to(built).as_posix() for p in built.rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts}
    assert built_pages == set(PAGES), (
        f"pages built but not checked: {sorted(built_pages - set(PAGES))}; "
        f"pages expected but not built: {sorted(set(PAGES) - built_pages)}")


@pytest.fixture(scope="module")
def site(built):
    with serve_directory(built) as base_url:
        yield base_url


# Every method chapter has at least one ipywidgets explorer (DESIGN.md, "Widgets").
CHAPTERS_WITH_EXPLORERS = {
    "pca", "classical_mds", "metric_mds", "kernel_pca", "isomap", "lle", "eigenmaps", "tsne",
    "umap", "autoencoders",
}

EXPLORER_OUTPUTS_JS = """
Array.from(document.querySelectorAll('div.cell')).filter(
    c => /widgets\\.\\w+_explorer\\(/.test((c.querySelector('.cell_input') || {}).textContent || '')
).map(c => {
    const out = c.querySelector('.cell_output');
    const imgs = out ? Array.from(out.querySelectorAll('img')).filter(
        i => i.complete && i.naturalWidth > 50) : [];
    // a static figure: a loaded image, or the drawn explorer (canvas / svg, book/_static/explorer.js)
    const drawn = out ? out.querySelectorAll('canvas, svg, .mlnotes-explorer').length : 0;
    return {source: c.querySelector('.cell_input').textContent.trim(),
            images: imgs.length + drawn, height: out ? out.getBoundingClientRect().height : 0};
})
"""

# Everything measured on the laid-out page, in one pass. Returns lists of problems.
LAYOUT_JS = r"""
([minRatio, maxStretch, texSource]) => {
  const texPattern = new RegExp(texSource);
  const main = document.querySelector('article.bd-article') || document.querySelector('main')
    || document.body;
  const mainBox = main.getBoundingClientRect();
  const scrollsX = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const scrollAncestor = el => {
    for (let e = el; e && e !== main.parentElement; e = e.parentElement) if (scrollsX(e)) return e;
    return null;
  };
  const label = el => (el.id ? '#' + el.id + ' ' : '') + el.textContent.replace(/\s+/g, ' ')
    .trim().slice(0, 50);
  const out = {page: [], math: [], tables: [], code: [], outputs: [], machinery: [], checks: [],
               images: [], figures: [], tex: [], contrast: [], taps: []};

  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth + 1) {
    const wide = Array.from(main.querySelectorAll('*')).filter(e => {
      const r = e.getBoundingClientRect();
      return r.width && r.right > innerWidth + 1 && !e.closest('mjx-assistive-mml')
        && !scrollAncestor(e.parentElement);
    }).slice(0, 3).map(e => e.tagName.toLowerCase() + '.' + e.className + ' ' + label(e));
    out.page.push(`page is ${doc.scrollWidth}px wide at ${innerWidth}px: ${wide.join(' | ')}`);
  }

  main.querySelectorAll('div.math').forEach(d => {
    const c = d.querySelector('mjx-container');
    if (!c) return;
    const box = d.getBoundingClientRect();
    if (box.right > mainBox.right + 2) out.math.push('sticks out of the column: ' + label(d));
    if (d.scrollWidth > d.clientWidth + 1 && !scrollsX(d))
      out.math.push('cut (its box does not scroll): ' + label(d));
    if (c.scrollWidth > c.clientWidth + 1 && !scrollsX(c) && !scrollAncestor(c))
      out.math.push('cut: ' + label(d));
    const sc = scrollsX(c) ? c : d;
    const before = sc.scrollLeft;
    sc.scrollLeft = 0;
    const m = c.querySelector('mjx-math');
    if (m && m.getBoundingClientRect().left < sc.getBoundingClientRect().left - 1)
      out.math.push('its start is out of reach: ' + label(d));
    sc.scrollLeft = before;
  });

  main.querySelectorAll('table').forEach(t => {
    const r = t.getBoundingClientRect();
    const sc = scrollAncestor(t.parentElement);
    if (sc) {
      if (sc.getBoundingClientRect().right > mainBox.right + 2)
        out.tables.push('its scroll box sticks out of the column: ' + label(t));
    } else if (r.right > mainBox.right + 2 || t.scrollWidth > t.parentElement.clientWidth + 1) {
      out.tables.push('cut: ' + label(t));
    }
  });

  // Code fits the column on a laptop (notebook lines are at most 79 characters); on a phone it
  // scrolls in its own box. Printed outputs with aligned columns keep their layout and scroll
  // in their own box; other printed text and error messages wrap at every width.
  main.querySelectorAll('div.cell_input pre').forEach(pre => {
    if (innerWidth >= 1200 && pre.scrollWidth > pre.clientWidth + 1)
      out.code.push('scrolls sideways on a laptop: ' + label(pre).slice(0, 40));
  });
  // code cut at the right edge shows that it scrolls (edge shadows, as outputs and maths do)
  main.querySelectorAll('div.highlight > pre').forEach(pre => {
    if (pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1
        && !pre.classList.contains('mlnotes-overflows'))
      out.code.push('cut with no scroll cue: ' + label(pre).slice(0, 40));
  });
  main.querySelectorAll('div.cell_output pre').forEach(pre => {
    if (!pre.checkVisibility()) return;
    const lines = pre.textContent.split('\n').filter(l => l.trim());
    const aligned = lines.length > 1 && lines.some(l => /\S(?: {2,}|\t)\S|[─━│┃┼]/.test(l));
    const ws = getComputedStyle(pre).whiteSpace;
    if (aligned && ws !== 'pre' && !pre.closest('.stderr, .traceback, .error'))
      out.outputs.push('aligned columns wrapped (scrambled): ' + label(pre).slice(0, 40));
    if (pre.scrollWidth > pre.clientWidth + 1 && (!aligned || !scrollsX(pre)))
      out.outputs.push('cut (neither wraps nor scrolls): ' + label(pre).slice(0, 40));
  });

  const machinery = [/NBVAL_/, /#\s*noqa\b/i, /<matplotlib\./, /<mpl_toolkits\./,
                     /^\s*\[?Text\(-?\d/m, /<Figure size \d/];
  main.querySelectorAll('div.cell').forEach(cell => {
    const text = cell.textContent;
    machinery.forEach(re => {
      const m = text.match(re);
      if (m) out.machinery.push(`${m[0].trim()} in a cell: ` + label(cell).slice(0, 40));
    });
  });

  main.querySelectorAll('div.cell.tag_check').forEach(cell => {
    const det = cell.querySelector(':scope > details.mlnotes-check');
    const claim = det && det.querySelector('summary .mlnotes-check__claim');
    const summary = det && det.querySelector(':scope > summary');
    if (!det || !summary || !claim) { out.checks.push('not folded: ' + label(cell)); return; }
    if (det.open) out.checks.push('open by default: ' + claim.textContent);
    if (!summary.textContent.trim().startsWith('✓')) out.checks.push('bar without ✓: ' + label(summary));
    if (summary.getBoundingClientRect().height < 10) out.checks.push('bar not visible: ' + claim.textContent);
    const input = det.querySelector('.cell_input');
    if (input && input.checkVisibility()) out.checks.push('code visible while folded: ' + claim.textContent);
    if (/open to see the code/.test(claim.textContent))
      out.checks.push('no "# Check: <claim>" line: ' + label(cell).slice(0, 60));
    const output = cell.querySelector(':scope > .cell_output');
    if (output && output.textContent.trim() && output.getBoundingClientRect().height < 5)
      out.checks.push('output hidden: ' + claim.textContent);
  });
  main.querySelectorAll('details.mlnotes-check').forEach(det => {
    const cell = det.closest('div.cell');
    if (!cell) { out.checks.push('fold outside a cell'); return; }
    const kind = cell.classList.contains('tag_check') ? 'check'
      : cell.classList.contains('tag_plot') ? 'plot'
      : det.classList.contains('mlnotes-fold--setup') ? 'setup' : null;
    if (!kind) out.checks.push('fold in a cell that is neither check, plot nor set-up');
  });
  // plot cells: code folded under "Figure code: <title>", the figure visible
  main.querySelectorAll('div.cell.tag_plot').forEach(cell => {
    const det = cell.querySelector(':scope > details.mlnotes-fold--plot');
    if (!det) { out.checks.push('plot cell not folded: ' + label(cell)); return; }
    const bar = det.querySelector('summary').textContent;
    if (det.open || !/Figure code/.test(bar) || bar.trim().startsWith('✓'))
      out.checks.push('plot bar wrong: ' + bar.slice(0, 50));
    if (/code that draws the figure below/.test(bar))
      out.checks.push('no "# Figure: <title>" line: ' + label(cell).slice(0, 60));
    const img = cell.querySelector(':scope > .cell_output img');
    if (img && img.getBoundingClientRect().height < 20) out.checks.push('figure hidden: ' + bar);
  });
  // the set-up cell (imports, setup_notebook) is folded
  main.querySelectorAll('div.cell').forEach(cell => {
    const input = cell.querySelector('.cell_input');
    if (input && /setup_notebook\(/.test(input.textContent) && input.checkVisibility())
      out.checks.push('set-up cell open');
  });

  const pathLike = /^[\w./\\-]+\.(png|svg|jpe?g|gif)$|^(_images|_build|book)\//i;
  main.querySelectorAll('img').forEach(img => {
    const r = img.getBoundingClientRect();
    if (r.width < 40 || img.closest('.mlnotes-icon')) return;
    const name = (img.getAttribute('src') || '').split('/').pop().slice(0, 40);
    const alt = (img.getAttribute('alt') || '').trim();
    if (alt.length < 10 || pathLike.test(alt) || alt.includes(name))
      out.images.push(`alt text "${alt.slice(0, 40)}" for ${name}`);
    if (img.naturalWidth < minRatio * r.width)
      out.images.push(`${name}: ${img.naturalWidth}px shown ${Math.round(r.width)}px wide (< 2x)`);
    // its own shape at every width: an inline height once stretched phone figures 1.5x. The
    // picture is drawn in the content box: dark mode's padding once flattened it by 6.5%.
    const cs = getComputedStyle(img);
    const px = k => parseFloat(cs[k]) || 0;
    const w = r.width - px('paddingLeft') - px('paddingRight') - px('borderLeftWidth')
      - px('borderRightWidth');
    const h = r.height - px('paddingTop') - px('paddingBottom') - px('borderTopWidth')
      - px('borderBottomWidth');
    const stretch = (h / w) / (img.naturalHeight / img.naturalWidth);
    if (img.naturalWidth && Math.abs(stretch - 1) > maxStretch)
      out.figures.push(`${name} drawn ${stretch.toFixed(2)}x as tall as its own shape`);
    // the "Enlarge" badge sits beside the picture, never on it
    const badge = img.parentElement.querySelector(':scope > .mlnotes-zoom-badge');
    if (badge && !badge.hidden) {
      const b = badge.getBoundingClientRect();
      if (b.width && b.top < r.bottom - 1 && b.bottom > r.top + 1 && b.left < r.right - 1
          && b.right > r.left + 1)
        out.figures.push(`${name}: the Enlarge badge covers the picture`);
    }
  });

  // No raw TeX reaches a reader: text outside typeset maths and code (the page, its sidebars
  // and drawers, and the column names a phone's stacked table shows) has no TeX control word
  // and no $ or \( delimiters.
  const skip = 'script, style, pre, code, kbd, samp, textarea, mjx-container, .highlight, '
    + '.cell_input, mjx-assistive-mml';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const m = n.textContent.match(texPattern);
    if (m && !n.parentElement.closest(skip))
      out.tex.push(`"${m[0]}" in: ` + n.textContent.replace(/\s+/g, ' ').trim().slice(0, 60));
  }
  document.querySelectorAll('[data-label]').forEach(e => {
    const m = e.dataset.label.match(texPattern);
    if (m) out.tex.push(`"${m[0]}" in a column name: ${e.dataset.label.slice(0, 40)}`);
  });
  // nor in the text a browser shows or reads out from attributes: a tooltip (a citation's title
  // is its bibliography entry), alt text, an ARIA label, the window's title
  document.querySelectorAll('[title], [alt], [aria-label]').forEach(e => {
    if (e.closest('mjx-container')) return;
    for (const name of ['title', 'alt', 'aria-label']) {
      const m = (e.getAttribute(name) || '').match(texPattern);
      if (m) out.tex.push(`"${m[0]}" in the ${name} of <${e.tagName.toLowerCase()}>: `
                          + e.getAttribute(name).slice(0, 60));
    }
  });
  // On a phone the index's entries and letters are 44 px touch targets, as the drawers' links
  // (one under another 20 px apart, a tap hit the neighbour)
  if (innerWidth < 768)
    main.querySelectorAll('table.indextable a, .genindex-jumpbox a, .modindex-jumpbox a')
      .forEach(a => {
        const r = a.getBoundingClientRect();
        if (r.width && (r.height < 43.5 || r.width < 43.5))
          out.taps.push(`${Math.round(r.width)}x${Math.round(r.height)} px: ${label(a)}`);
      });
  const inTitle = document.title.match(texPattern);
  if (inTitle) out.tex.push(`"${inTitle[0]}" in the page's title: ${document.title}`);

  // Text stands out from what is behind it (WCAG AA): a contrast of 4.5:1, 3:1 for large text
  // (24 px, or 18.66 px bold), over the page, its boxes' tints and its sidebars, in the mode
  // shown. The colour behind is the first opaque background up the tree with the translucent
  // ones above it laid over it. Text of a disabled control is exempt (WCAG), as is text on an
  // image. Each element with text of its own is measured once.
  const rgba = s => { const m = s.match(/rgba?\(([^)]*)\)/); if (!m) return null;
    const v = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = c => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const lin = v => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  const over = (top, under) => [0, 1, 2].map(k => top[k] * top[3] + under[k] * (1 - top[3]));
  const behind = new Map();
  const background = el => {
    if (!el) return [255, 255, 255];
    if (behind.has(el)) return behind.get(el);
    const cs = getComputedStyle(el);
    let bg;
    if (cs.backgroundImage !== 'none' && !cs.backgroundImage.includes('gradient')) bg = null;
    else {
      const own = rgba(cs.backgroundColor);
      const under = own && own[3] >= 0.999 ? null : background(el.parentElement);
      bg = own && own[3] >= 0.999 ? own.slice(0, 3)
        : under && (own && own[3] > 0 ? over(own, under) : under);
    }
    behind.set(el, bg);
    return bg;
  };
  // the colours a reader sees once a change of mode or state has faded in (the theme's buttons
  // fade colours over 0.15 s)
  document.getAnimations().filter(a => /color/.test(a.transitionProperty || ''))
    .forEach(a => a.finish());
  const opacities = new Map();
  const opaque = el => {  // the product of the opacities of el and the boxes it is in
    if (!el) return 1;
    if (!opacities.has(el))
      opacities.set(el, parseFloat(getComputedStyle(el).opacity) * opaque(el.parentElement));
    return opacities.get(el);
  };
  const measured = new Set();
  // a formula's glyphs take its text's colour: the text around it is measured, not each glyph
  // (tens of thousands on t-SNE's page)
  const texts = document.createTreeWalker(document.body,
    NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.nodeName === 'MJX-CONTAINER' ? NodeFilter.FILTER_REJECT
      : n.nodeType === Node.TEXT_NODE ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP});
  for (let n = texts.nextNode(); n; n = texts.nextNode()) {
    const el = n.parentElement;
    if (!el || measured.has(el) || !n.textContent.trim()) continue;
    measured.add(el);
    if (el.closest('script, style, noscript, :disabled, .mlx-inert, '
                   + '[aria-disabled="true"]')
        || !el.checkVisibility({opacityProperty: true, visibilityProperty: true}))
      continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;  // clipped away (a skip link, screen-reader text)
    const cs = getComputedStyle(el);
    const bg = background(el);
    let fg = rgba(cs.color);
    if (!bg || !fg) continue;
    const opacity = fg[3] * opaque(el);
    if (opacity === 0) continue;  // hidden on purpose: a formula's TeX until it is typeset
    fg = over([fg[0], fg[1], fg[2], opacity], bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize);
    const need = size >= 24 || (size >= 18.66 && parseInt(cs.fontWeight, 10) >= 700) ? 3 : 4.5;
    if (ratio < need)
      out.contrast.push(`${ratio.toFixed(2)}:1 (< ${need}) "${n.textContent.trim().slice(0, 30)}"`
        + ` in <${el.tagName.toLowerCase()} class="${String(el.className).slice(0, 30)}">`);
  }
  return out;
}
"""


def _redirect_target(page):
    """The target of a meta-refresh page (Jupyter Book's root index.html), else None."""
    match = re.search(r'http-equiv="refresh"[^>]*url=([^"]+)"', (HTML / page).read_text(), re.I)
    return match and match.group(1)


# The page is ready to be read: its maths typeset (at build time, book/_ext/prerender.py, or by
# MathJax in the browser: the class "mlnotes-maths-pending" goes when it is done, and a page with
# maths has formulas), and book/_static/mlnotes.js has marked wide formulas, scroll boxes and
# shrunk figures after the load event and the typesetting (``data-mlnotes-laid-out``).
MATHS_DONE_JS = """() => !document.querySelector('.math')
  || (!document.documentElement.classList.contains('mlnotes-maths-pending')
      && !!document.querySelector('mjx-container'))"""
LAID_OUT_JS = "() => document.documentElement.dataset.mlnotesLaidOut === '1'"


def _wait_ready(pw_page):
    """Wait until the page is typeset and laid out (polled every ``POLL_MS``); the problems."""
    problems = []
    if not wait_until(pw_page, MATHS_DONE_JS, timeout=30000, polling=POLL_MS):
        problems.append("the maths was never typeset (mlnotes-maths-pending stayed, or no "
                        "formula was typeset)")
    if not wait_until(pw_page, LAID_OUT_JS, timeout=30000, polling=POLL_MS):
        problems.append("the page was never marked laid out (mlnotes.js did not run to the end)")
    return problems


# What one look at the page finds, in one round trip: MathJax's errors, formulas left as TeX,
# images that did not load, the explorer cells' static outputs, and LAYOUT_JS's problems.
STATE_JS = ("""([minRatio, maxStretch, texSource]) => ({
  mathErrors: Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error]'))
    .map(e => e.getAttribute('data-mjx-error') || e.textContent),
  untypeset: Array.from(document.querySelectorAll('.math')).filter(
    e => !e.querySelector('mjx-container') && e.tagName !== 'MJX-CONTAINER').length,
  broken: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => i.src),
  explorers: """ + EXPLORER_OUTPUTS_JS.strip() + """,
  layout: (""" + LAYOUT_JS.strip() + """)([minRatio, maxStretch, texSource]),
})""")


BOX_JS = """sel => { const e = document.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); const cs = getComputedStyle(e);
    return {left: r.left, right: r.right, width: r.width, height: r.height,
            shown: cs.visibility !== 'hidden' && cs.display !== 'none' && r.width > 50
                   && r.right > 0 && r.left < innerWidth}; }"""
# shown, and no longer moving (the sidebar slides in and out)
SIDEBAR_SETTLED_JS = """([sel, shown]) => { const e = document.querySelector(sel); if (!e) return !shown;
    const r = e.getBoundingClientRect(); const cs = getComputedStyle(e);
    const now = cs.visibility !== 'hidden' && cs.display !== 'none' && r.width > 50
                && r.right > 0 && r.left < innerWidth;
    const key = r.left + ',' + r.width; const still = e.dataset.lastBox === key;
    e.dataset.lastBox = key; return now === shown && still; }"""
NO_SLIDE_CSS = ".bd-sidebar-primary { transition: none !important; }"
MODAL_OPEN_JS = """sel => { const d = document.querySelector(sel); if (!d || !d.open) return false;
    return Array.from(d.querySelectorAll('a')).some(a => { const r = a.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.left >= 0 && r.left < innerWidth
               && r.top < innerHeight; }); }"""


def _box(pw_page, selector):
    return pw_page.evaluate(BOX_JS, selector)


def _click_opens(pw_page, button, modal):
    """Click ``button``; return whether ``modal`` opened, then close it with Escape."""
    button.click()
    opened = wait_until(pw_page, MODAL_OPEN_JS, modal, polling=POLL_MS)
    pw_page.keyboard.press("Escape")
    wait_until(pw_page, "sel => !(document.querySelector(sel) || {}).open", modal,
               polling=POLL_MS)
    return opened


def _check_navigation(pw_page, width):
    """Click the sidebar toggles the way a reader would; return the problems found."""
    problems = []
    header = _box(pw_page, "#pst-header")
    if header and header["height"] > 1:
        problems.append(f"a second header bar ({header['height']:.0f}px high) above the article")
    n_search = pw_page.evaluate(
        "Array.from(document.querySelectorAll('.search-button-field, form.bd-search'))"
        ".filter(e => e.getBoundingClientRect().width > 0 && !e.closest('.bd-main')).length")
    if n_search > 1:
        problems.append(f"{n_search} search boxes on the page")
    hamburger = pw_page.locator(".bd-header-article .primary-toggle")
    if hamburger.count() == 0 or not hamburger.first.is_visible():
        return problems + ["no visible hamburger (chapter list) button"]
    if width < 992:
        if not _click_opens(pw_page, hamburger.first, "#pst-primary-sidebar-modal"):
            problems.append("the hamburger does not open the chapter list")
        has_toc = pw_page.evaluate(
            "document.querySelectorAll('#pst-secondary-sidebar .toc-entry, "
            "#pst-secondary-sidebar-modal .toc-entry').length")
        contents = pw_page.locator(".bd-header-article .secondary-toggle")
        if has_toc:
            if contents.count() == 0 or not contents.first.is_visible():
                problems.append("no visible 'Contents' button on a page with sections")
            else:
                if not _click_opens(pw_page, contents.first, "#pst-secondary-sidebar-modal"):
                    problems.append("'Contents' does not open the page's table of contents")
    else:
        before = _box(pw_page, "#pst-primary-sidebar")
        if not (before and before["shown"]):
            problems.append("the chapter list is not shown on a laptop")
        # where the sidebar ends up is checked, not how it slides: the theme's 0.4 s slide
        # changes the column's width on every frame, and the page (every formula re-fitted,
        # mlnotes-mathjax.js) is laid out again each time: most of this check's CPU
        no_slide = pw_page.add_style_tag(content=NO_SLIDE_CSS)
        hamburger.first.click()
        if not wait_until(pw_page, SIDEBAR_SETTLED_JS, ["#pst-primary-sidebar", False],
                          polling=POLL_MS):
            problems.append("the hamburger does not hide the sidebar")
        hamburger.first.click()
        if not wait_until(pw_page, SIDEBAR_SETTLED_JS, ["#pst-primary-sidebar", True],
                          polling=POLL_MS):
            problems.append("a second click on the hamburger does not bring the sidebar back")
        no_slide.evaluate("e => e.remove()")
    return problems


def _check_fold_interaction(pw_page):
    """The first check cell opens with a click and closes with the keyboard."""
    if not pw_page.evaluate("document.querySelectorAll('details.mlnotes-check').length"):
        return []
    problems = []
    summary = pw_page.locator("details.mlnotes-check > summary").first
    summary.scroll_into_view_if_needed()
    summary.click()
    shown = pw_page.evaluate(
        "(() => { const d = document.querySelector('details.mlnotes-check');"
        " return d.open && d.querySelector('.cell_input').checkVisibility(); })()")
    if not shown:
        problems.append("clicking a check bar does not show its code")
    summary.focus()
    pw_page.keyboard.press("Enter")
    if pw_page.evaluate("document.querySelector('details.mlnotes-check').open"):
        problems.append("Enter on a focused check bar does not fold it again")
    pw_page.evaluate("window.scrollTo(0, 0)")
    return problems


def _check_figure_zoom(pw_page):
    """On a phone, a shrunk figure opens at full size on a tap and closes with Escape."""
    figures = pw_page.locator("img.mlnotes-zoomable")
    if figures.count() == 0:
        return []
    problems = []
    figures.first.scroll_into_view_if_needed()
    figures.first.click()
    wait_until(pw_page, "() => (document.getElementById('mlnotes-zoom') || {}).open",
               polling=POLL_MS)
    state = pw_page.evaluate(
        "(() => { const d = document.getElementById('mlnotes-zoom'); if (!d || !d.open) return null;"
        " const i = d.querySelector('img'); return {w: i.getBoundingClientRect().width,"
        " alt: i.alt, page: location.pathname}; })()")
    if not state:
        problems.append("tapping a shrunk figure does not open it at full size")
    elif state["w"] <= pw_page.viewport_size["width"] - 40:
        problems.append(f"the enlarged figure is only {state['w']:.0f}px wide")
    pw_page.keyboard.press("Escape")
    if not wait_until(pw_page, "() => !(document.getElementById('mlnotes-zoom') || {}).open",
                      polling=POLL_MS):
        problems.append("Escape does not close the enlarged figure")
    pw_page.evaluate("window.scrollTo(0, 0)")
    return problems


def _check_explorers_drawn(pw_page):
    """Every cell that calls an explorer shows its static rendering where no kernel runs: no
    widget view (it would render as an empty box), and the static explorer
    (book/_static/explorer.js), drawn on canvas once it is near the screen, draws a picture.
    (Its moving controls are tested in test_browser_explorers.) Checked at 1366 px (as loaded,
    or after the resize from 390 px) on every page whose HTML calls an explorer:
    ``test_every_built_page_is_checked`` makes that every such page of the build. In the page
    load the other checks need anyway, it costs only the explorers' own drawing (a separate
    test cost a load of each explorer page)."""
    problems = []
    if pw_page.evaluate("!!document.querySelector("
                        "\"script[type='application/vnd.jupyter.widget-view+json']\")"):
        problems.append("a widget view (an empty box) was rendered")
    found = pw_page.evaluate(EXPLORERS_DRAWN_JS, [POLL_MS, scaled(15_000)])
    if not found:
        problems.append("no explorer cell found")
    for k, drawn in enumerate(found):
        if drawn is None:
            problems.append(f"explorer cell {k} has no explorer, or it never became ready")
        elif drawn < 1:
            problems.append(f"explorer cell {k} drew no picture")
    pw_page.evaluate("window.scrollTo(0, 0)")
    return problems


# Each explorer cell in turn scrolled to the middle of the screen (as a reader scrolls to it),
# then, once its explorer is ready (class mlx-ready) or after ``timeout`` ms, the number of its
# canvases with a picture (null: no explorer, or never ready). In the page, in one round trip.
# The scroll is made again while the explorer is off the screen: the page may still move under
# it (a formula typeset above it, a box marked), and explorer.js starts an explorer only when it
# comes near the screen.
EXPLORERS_DRAWN_JS = """async ([poll, timeout]) => {
  const cells = Array.from(document.querySelectorAll('div.cell'))
    .filter(c => c.textContent.includes('_explorer('));
  const found = [];
  const away = (e) => { const r = e.getBoundingClientRect();
                        return r.bottom < 0 || r.top > innerHeight; };
  for (const cell of cells) {
    const explorer = cell.querySelector('.cell_output .mlnotes-explorer');
    if (!explorer) { found.push(null); continue; }
    explorer.scrollIntoView({block: 'center'});
    const end = performance.now() + timeout;
    while (!cell.querySelector('.cell_output .mlnotes-explorer.mlx-ready')
           && performance.now() < end) {
      await new Promise(r => setTimeout(r, poll));
      if (away(explorer)) explorer.scrollIntoView({block: 'center'});
    }
    found.push(cell.querySelector('.cell_output .mlnotes-explorer.mlx-ready')
      ? [...explorer.querySelectorAll('canvas')].filter(c => c.width > 100 && c.height > 50).length
      : null);
  }
  return found;
}"""


# Figures as shown: each output image's source, shown width and own width (CSS px)
FIGURES_JS = """() => Array.from(document.querySelectorAll('.bd-article .cell_output img'))
  .filter(i => i.naturalWidth && i.getBoundingClientRect().width > 40)
  .map(i => { const cs = getComputedStyle(i);  // the picture's own box: without any padding
    return {src: new URL(i.currentSrc || i.src).pathname, natural: i.naturalWidth,
            shown: i.getBoundingClientRect().width - parseFloat(cs.paddingLeft)
              - parseFloat(cs.paddingRight)}; })"""


def _small_tick_labels(pw_page):
    """Figures whose text is shown smaller than ``PHONE_MIN_TEXT_PX``: the size in points of the
    smallest text a reader must read (``plotting.readable_texts``: tick labels, legends, titles,
    axis and colour-bar labels, point labels, annotations; written into each PNG by
    mlnotes.plotting, ``MIN_TICK_KEY``) at
    FIG_DPI, times the figure's shown width over its own (``PIXEL_RATIO`` image pixels a CSS
    pixel). A figure saved before mlnotes.plotting wrote its size is not measured (its tick
    size is not known); re-executing the notebooks writes it into every figure."""
    from PIL import Image

    from mlnotes import plotting

    small = []
    for fig in pw_page.evaluate(FIGURES_JS):
        path = HTML / fig["src"].lstrip("/")
        if path.suffix != ".png" or not path.is_file():
            continue
        with Image.open(path) as png:
            points = float(png.info.get(plotting.MIN_TICK_KEY, 0))
        if points <= 0:  # no tick labels (a picture, a diagram), or not recorded
            continue
        shown_px = (points * plotting.FIG_DPI / 72 * fig["shown"]
                    / (fig["natural"] / plotting.PIXEL_RATIO))
        if shown_px < plotting.PHONE_MIN_TEXT_PX - 0.05:
            small.append(f"{path.name}: {points:g} pt text shown at {shown_px:.1f} px")
    return small


# Each page is loaded once and checked at both widths: at the width it loads at, then resized to
# the other (the page lays itself out again: browser_support.resize). Every other page loads on
# a phone first, so both a fresh load and a resize are checked at each width across the book.
FIRST_WIDTH = {page: (PHONE, LAPTOP)[k % 2] for k, page in enumerate(PAGES)}
# Each page is also seen in both modes: loaded in the mode the system asks for (the first), then
# switched to the other as the theme's button does, before the resize. Pairs of pages alternate,
# so each width is checked in each mode, as loaded and as switched to.
FIRST_MODE = {page: ("light", "dark")[k // 2 % 2] for k, page in enumerate(PAGES)}


def _check_at(pw_page, page, width, mode):
    """Everything ``test_page`` checks on the page as it is now, ``width`` px wide in ``mode``."""
    problems = _wait_ready(pw_page)
    shown = pw_page.evaluate("document.documentElement.dataset.theme")
    if shown != mode:
        problems.append(f"shown in {shown} mode, not {mode}")
    state = pw_page.evaluate(STATE_JS, [MIN_PIXEL_RATIO, MAX_STRETCH, RAW_TEX])
    if state["mathErrors"]:
        problems.append(f"MathJax errors {state['mathErrors'][:5]}")
    if state["untypeset"]:
        problems.append(f"{state['untypeset']} math element(s) left untypeset")
    if state["broken"]:
        problems.append(f"images that did not load: {state['broken'][:5]}")

    # Explorer cells (``ml.widgets.*_explorer(...)``) must show their static rendering
    # here, where no kernel runs: a loaded image of real size, never an empty box.
    explorers = state["explorers"]
    for cell in explorers:
        if not (cell["images"] > 0 and cell["height"] > 150):
            problems.append(f"explorer cell `{cell['source'][:60]}` shows no static figure")
    if pathlib.PurePosixPath(page).stem in CHAPTERS_WITH_EXPLORERS and not explorers:
        problems.append("the chapter has no explorer cell")

    for kind, found in state["layout"].items():
        problems += [f"{kind}: {item}" for item in found[:6]]
        if len(found) > 6:
            problems.append(f"{kind}: ... and {len(found) - 6} more")

    # the screenshots are there to be looked at: each page's must be written
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{page.replace('/', '_')}.{width}.{mode}.png"
    shot.unlink(missing_ok=True)
    pw_page.screenshot(path=str(shot))
    if not (shot.exists() and shot.stat().st_size > 1000):
        problems.append(f"no screenshot written to {shot}")

    problems += [f"navigation: {p}" for p in _check_navigation(pw_page, width)]
    if width == LAPTOP and "_explorer" in (HTML / page).read_text(encoding="utf-8"):
        problems += [f"explorers: {p}" for p in _check_explorers_drawn(pw_page)]
    if width == PHONE:
        problems += [f"checks: {p}" for p in _check_fold_interaction(pw_page)]
        problems += [f"figures: {p}" for p in _check_figure_zoom(pw_page)]
        small = _small_tick_labels(pw_page)
        problems += [f"figure text too small on a phone: {p}" for p in small[:6]]
    return [f"{width}px, {mode}: {p}" for p in problems]


def _leave_alone(pw_page):
    """The reader lets go before the window changes width: no button keeps the focus or the
    pointer (a header button's tooltip, shown on focus and hover, would otherwise stay over the
    other width's header and take its clicks, which a fresh load never has)."""
    pw_page.keyboard.press("Escape")
    pw_page.evaluate("document.activeElement && document.activeElement.blur()")
    pw_page.mouse.move(1, pw_page.viewport_size["height"] - 1)
    wait_until(pw_page, "() => !document.querySelector('.tooltip.show')", polling=POLL_MS)


@pytest.mark.parametrize("page", PAGES)
def test_page(page, site, browser):
    target = _redirect_target(page)
    if target:
        assert (HTML / pathlib.PurePosixPath(page).parent / target).exists(), (
            f"{page} redirects to {target}, which was not built")
        return
    host = urlparse(site).netloc
    outside, failed, console_errors = [], [], []
    first, first_mode = FIRST_WIDTH[page], FIRST_MODE[page]
    second_mode = "light" if first_mode == "dark" else "dark"
    context = browser.new_context(viewport={"width": first, "height": 900},
                                  color_scheme=first_mode)
    context.add_init_script(TYPESET_ALL)  # every formula measured, not only those on screen
    pw_page = context.new_page()

    requested = []

    def on_request(request):
        requested.append(request.url)
        parsed = urlparse(request.url)
        if parsed.scheme in ("data", "blob", "about"):
            return
        if parsed.netloc != host:
            outside.append(request.url)

    pw_page.on("request", on_request)
    pw_page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    pw_page.on("response", lambda r: failed.append(f"{r.url} (HTTP {r.status})")
               if r.status >= 400 else None)
    pw_page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    pw_page.on("pageerror", lambda e: console_errors.append(str(e)))
    # Anything addressed to another host is aborted (and recorded above).
    pw_page.route(lambda url: urlparse(url).netloc not in (host, ""), lambda route: route.abort())

    try:
        response = pw_page.goto(f"{site}/{page}", wait_until="load")
        assert response is not None and response.ok, f"{page}: HTTP {response and response.status}"
        problems = _check_at(pw_page, page, first, first_mode)
        second = LAPTOP if first == PHONE else PHONE
        _leave_alone(pw_page)
        settle(pw_page, lambda: pw_page.evaluate("m => mlnotesSetMode(m)", second_mode))
        resize(pw_page, second)
        problems += _check_at(pw_page, page, second, second_mode)
        # every request the page made (fonts and scripts MathJax loads late included) is in
        # and recorded above before the page closes
        pw_page.wait_for_load_state("networkidle")
    finally:
        context.close()

    heavy = [u for u in requested if "fontawesome.js" in u]
    if heavy:
        problems.append(f"loads fontawesome.js (1.5 MB; book/_ext/surface.py drops it): {heavy[0]}")
    if outside:
        problems.append(f"requests to other hosts (the book must be self-contained): {outside[:5]}")
    if failed:
        problems.append(f"failed requests: {failed[:5]}")
    if console_errors:
        problems.append(f"console errors: {console_errors[:5]}")
    assert not problems, (f"{page}, loaded at {first}px in {first_mode} mode:\n  "
                          + "\n  ".join(problems))


# Careless changes that ``LAYOUT_JS`` must catch (each a mutant of the book's style sheet or
# script that a check of test_page rejects), and where each shows:
# * dark mode's padding back on output images: figures drawn flatter than their own shape;
# * the darker link blue and check-mark green of the tinted boxes dropped: links in an exercise
#   or a theorem box at 4.2-4.3:1, a check bar's mark at 4.4:1 (light mode);
# * the index table's heading rows left light grey: light text on them in dark mode (1.3:1);
# * a citation's tooltip left as its bibliography entry's TeX ("$O(N \log N)$").
IMAGE_PADDING_MUTANT = ("div.cell_output img {\n  padding: 0;", "div.cell_output img {")
TINT_MUTANTS = (("--pst-color-link: #135ac8;", ""),
                ("color: var(--pst-color-success-highlight);", ""))
INDEX_CAP_MUTANT = ("tr.cap {\n  background-color: var(--pst-color-surface);", "tr.cap {")
TITLE_MUTANT = ("    mlnotesPlainAttributes();\n", "")
# * the index's entries left as 20 px lines on a phone
INDEX_TAP_MUTANT = ("    min-height: 44px;\n    min-width: 44px;\n", "")


def _layout_with(browser, site, page, width, mode, static_name, mutants, then=None):
    """``LAYOUT_JS``'s findings on ``page`` served with ``mutants`` of ``static_name``, loaded
    in ``mode`` (maths typeset as a reader's page does, near the screen: what is measured here
    is not the maths); with ``then``, after switching to that mode as well."""
    context = browser.new_context(viewport={"width": width, "height": 844},
                                  color_scheme=mode, is_mobile=width < 600,
                                  has_touch=width < 600)
    context.add_init_script(EAGER_IMAGES)  # every figure measured
    serve_mutant(context, static_name, *mutants)
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/{page}", wait_until="load")
        assert wait_until(pw_page, LAID_OUT_JS, timeout=60_000, polling=POLL_MS), page
        found = [pw_page.evaluate(LAYOUT_JS, [MIN_PIXEL_RATIO, MAX_STRETCH, RAW_TEX])]
        if then:
            settle(pw_page, lambda: pw_page.evaluate("m => mlnotesSetMode(m)", then))
            found.append(pw_page.evaluate(LAYOUT_JS, [MIN_PIXEL_RATIO, MAX_STRETCH, RAW_TEX]))
        return found
    finally:
        context.close()


def test_page_checks_reject_colour_figure_and_tooltip_mutants(site, browser):
    """test_page's contrast, figure-shape and TeX checks fail on the mutants above: each mutant
    served on one page that shows it (three light pages, maths typeset near the screen only)."""
    light, dark = _layout_with(browser, site, "book/datasets.html", PHONE, "light", "mlnotes.css",
                               (IMAGE_PADDING_MUTANT, *TINT_MUTANTS), then="dark")
    assert any('"✓"' in c for c in light["contrast"]), light["contrast"]
    assert any("<a " in c for c in light["contrast"]), light["contrast"]
    assert any("as tall as its own shape" in f for f in dark["figures"]), dark["figures"]
    [cap] = _layout_with(browser, site, "prf-statements.html", LAPTOP, "dark", "mlnotes.css",
                         [INDEX_CAP_MUTANT])
    assert any("Algorithms" in c for c in cap["contrast"]), cap["contrast"]
    [tip] = _layout_with(browser, site, "book/scaling.html", PHONE, "light", "mlnotes.js",
                         [TITLE_MUTANT])
    assert any("in the title of <a>" in t for t in tip["tex"]), tip["tex"]
    [index] = _layout_with(browser, site, "genindex.html", PHONE, "light", "mlnotes.css",
                           [INDEX_TAP_MUTANT])
    assert len(index["taps"]) > 20, index["taps"]


# the search's text read as the page's whole text (blocks run together, formulas as they come)
SNIPPET_MUTANT = ("    return mlnotesReadableText(block || main);", "    return main.textContent;")


def _snippet_problems(browser, site, mutant=None):
    """Raw TeX and words of adjacent blocks run together in the snippets of a search for
    "eigenvalues", every result and its snippet in (``SEARCH_DONE_JS``, not the first three
    to arrive: how many those are depends on the machine's speed)."""
    context = browser.new_context(viewport={"width": LAPTOP, "height": 900})
    if mutant:
        serve_mutant(context, "mlnotes.js", mutant)
    pw_page = context.new_page()
    try:
        pw_page.goto(f"{site}/search.html?q=eigenvalues", wait_until="load")
        assert wait_until(pw_page, SEARCH_DONE_JS, timeout=60_000, polling=POLL_MS), \
            "the search never had every result's snippet in (SEARCH_DONE_JS)"
        snippets = pw_page.evaluate(
            "Array.from(document.querySelectorAll('#search-results p.context'))"
            ".map(p => p.textContent)")
    finally:
        context.close()
    assert len(snippets) >= 3, f"{len(snippets)} snippets for 'eigenvalues'"
    raw_tex = [s[:80] for s in snippets if re.search(r"\\[()[\]]|\\[a-zA-Z]{2,}", s)]
    # a lower-case word glued to the capitalised first word of the next block ("problemIn")
    glued = [m.group(0) for s in snippets for m in re.finditer(r"\b[a-z]{3,}[.:]?[A-Z][a-z]{2,}\b", s)]
    return ([f"snippets show raw TeX: {raw_tex[:3]}"] if raw_tex else []) + (
        [f"snippets run words of adjacent blocks together: {glued[:5]}"] if glued else [])


def test_search_snippets_are_readable(site, browser):
    """Search results quote the text without raw TeX and with spaces between blocks."""
    problems = _snippet_problems(browser, site)
    assert not problems, problems


# no snippet made (the page's text read as empty): the wait for every result's snippet must
# fail, not read the results as they are
NO_SNIPPET_MUTANT = ("    return mlnotesReadableText(block || main);", '    return "";')


@pytest.mark.skipif(not os.environ.get("MLNOTES_TIMING_MUTANTS"),
                    reason="run on demand: MLNOTES_TIMING_MUTANTS=1")
def test_search_snippet_check_fails_its_mutant(site, browser):
    assert _snippet_problems(browser, site, SNIPPET_MUTANT), "the snippet check passed the mutant"
    with pytest.raises(AssertionError, match="every result's snippet"):
        _snippet_problems(browser, site, NO_SNIPPET_MUTANT)


def test_notebook_pages_offer_their_ipynb(built):
    """Every chapter notebook page links to its .ipynb source for download."""
    notebooks = sorted(p.relative_to(ROOT).with_suffix("").as_posix()
                       for p in (ROOT / "book").rglob("*.ipynb")
                       if (HTML / p.relative_to(ROOT).with_suffix(".html")).exists())
    assert notebooks, "no notebook pages were built"
    for stem in notebooks:
        html = (HTML / f"{stem}.html").read_text()
        assert f"_sources/{stem}.ipynb" in html, f"{stem}.html has no download link for its .ipynb"
        assert (HTML / "_sources" / f"{stem}.ipynb").exists()


def test_pages_have_a_favicon(built):
    html = (HTML / "book" / "pca.html").read_text()
    match = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert match, "no favicon link in the page head"
    assert (HTML / "book" / match.group(1).split("?")[0]).resolve().exists()

