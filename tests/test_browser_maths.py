"""Maths readable at first paint on a phone (issue 32), measured on the heaviest pages.

The book typesets lazily (book/_static/mlnotes-mathjax.js): MathJax typesets the formulas on or
near the screen at load and the others as the reader scrolls toward them; until MathJax has
started the TeX source is hidden (book/_static/mlnotes.css). Here, on a phone (390 x 844) whose
CPU is slowed down four times (``Emulation.setCPUThrottlingRate``, Chrome's "mid-tier mobile"):

* at a link into the heaviest page (``HEAVY_PAGES``: t-SNE's algorithm, 41% of the page's
  formulas above it), the first screen's maths costs the page's main thread
  (``Performance.getMetrics`` ThreadTime, which counts the throttling's slowdown) at most
  ``FIRST_SCREEN_CPU_RATIO`` times what the same page costs to the same moment when opened at
  its top (no formula on its first screen: the page's own start-up), measured in the same
  browser, the two interleaved, ``CPU_SAMPLES`` each (the link's least, the top's middle one).
  A ratio, not seconds: a slower CPU or a busier machine makes both longer (a fixed 7 s budget
  held here at 2.6-4.6 s and failed on a CI machine whose browser ran about twice as slow, at
  7.6 s). The seconds themselves, against the 3 s target on a quiet machine, are the
  benchmark's (benchmarks/bench_first_paint.py). The wall-clock times from the start of
  navigation, of the first paint and of the load event are recorded, and only a delay past
  ``FIRST_SCREEN_S`` after the load event fails;
* by then only the formulas near the first screen are typeset (at most ``MAX_TYPESET_SHARE`` of
  the page's: a typesetter working down from the page's top to the link's target fails), and
  the page-wide work that waits for them (scroll cues and tab stops, wide formulas, figures:
  mlnotes.js; the theme's tab stops) has not begun;
* no TeX source is shown at any moment: sampled every ``WATCH_MS`` from the first paint until
  the first screen is typeset, and then on every screen of the page while it is scrolled
  through (with the CPU at full speed: the scroll checks what is shown, not how fast);
* every formula that comes into view is typeset, also on a slow network (each request answers
  ``NETWORK_LATENCY_MS`` late, so formulas come into view while MathJax waits for a font range:
  MathJax 4.1's own lazy typesetter (ui/lazy, no longer used) then lost them, in 3 of 5 runs at
  t-SNE's 24 476 px; the worst wait is recorded; a formula not typeset ``SCROLL_TYPESET_S``
  after its scroll fails);
* the formulas on the screen are those an IntersectionObserver reports (measuring every
  formula's box forced the layout of the parts of the page laid out only near the screen,
  ``content-visibility: auto``, and cost the page more CPU than its own work);
* the page as served, compressed as a web server sends it, weighs at most ``MAX_SERVED_MB``
  until the reader scrolls (images below the first screens load when they come near).

The measured times go to ``tests/artifacts/maths/first-paint.json``.

When the book's first screens were typeset at build time (book/_ext/prerender.py, the default),
the served pages are checked with JavaScript off (their first screens' formulas are CHTML), and
the built displays are checked in the page at 390 and 1366 px, the window resized in place: each
one wider than its column is typeset again for it, and again when the column widens.
"""

import functools
import gzip
import json
import os
import re
import shutil
import time
from urllib.parse import urlparse

import pytest

from browser_support import (
    BOOK_HTML,
    ISLAND_RE,
    RAW_TEX,
    ROOT,
    scaled,
    serve_mutant,
    toc_files,
    wait_until,
)

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "artifacts" / "maths"
# the heaviest page (HTML, figures and explorers; errata.html, with the most formulas, measures
# the same: 7.0 s, 0.82 MB)
HEAVY_PAGES = os.environ.get("MLNOTES_HEAVY_PAGES", "book/tsne.html#tsne-alg").split(",")
# when the first screen is typeset, at most this share of the page's formulas has been typeset:
# the work done before the reader can read is the screen's, not the page's
MAX_TYPESET_SHARE = 0.2
CPU_SLOWDOWN = 4
# Wall-clock times are measured and recorded (tests/artifacts/maths/first-paint.json), not
# asserted to the target: they follow the machine's load (the project's rule: speed is
# measured, not tested). The target is 3 s (issue 32); the bound below only catches maths that
# is never typeset, or typeset so late that no load explains it.
FIRST_SCREEN_TARGET_S = 3.0
# (a hang guard: the delay is 0.4 s here quiet, 3.0 s with the test pinned to one busy core;
# scaled by browser_support.time_scale for a slower or loaded machine, as SCROLL_TYPESET_S is
# through wait_until and the 60 s wait for the first screen, which took 41 s pinned so)
FIRST_SCREEN_S = 15.0
# The page's main-thread CPU time (Performance.getMetrics ThreadTime; the throttling keeps the
# thread busy, so it counts the CPU_SLOWDOWN) from navigation start to the first screen's maths
# at the link, over the same for the page opened at its top: quiet here 2.60 s over about 2.0 s
# (1.3); the page before its changes took 5.2-8.0 s at load averages 16-29, and a typesetter
# working down from the page's top 8.2-8.5 s, where the link took 3.0-4.6 s. Both grow with a
# slower CPU or a machine's load (the throttling's pauses are timed by the wall clock), together.
FIRST_SCREEN_CPU_RATIO = 2.3
# Each of the two is measured this many times, interleaved (the page at its top, then the
# link), and the least of the link's loads compared with the middle one of the page's top: a
# busy machine adds to a load's CPU time, never takes from it, and the first page a browser
# opens costs more (its caches are cold: 5.2-6.1 s where the next took 2.5-3.1). With one
# sample of each the ratio was 1.3 here and 2.05 in CI (at a bound of 2.0), and the page at its
# top alone took 1.9-3.6 s on a machine kept busy by other work (load 15-25). Two samples each,
# at that load: the book 1.13-1.45, a typesetter working down from the page's top 3.08-4.05.
# With the page's island (the default build) its top loads no MathJax: 1.65-2.12 s, the link
# 1.94-3.26 s, the ratio 1.17-1.41 quiet and with two busy loops; once, at a load of 13, the
# least of two loads of the top took 1.17 s, less than the page's parsing takes (the ratio
# 2.48): the top's middle load of three is the reference. (A first batch that measures every
# formula's box, forcing the layout of the whole page, measured 1.66-3.73: a cost of that size
# is not told from the machine's noise by this ratio, and is the benchmark's to show. On the
# island build the mutants are caught by the share, the page's word and the fetches above.)
CPU_SAMPLES = 3
SCROLL_TYPESET_S = 15.0
MAX_SERVED_MB = 1.5
# while scrolling, each request answers this late (a phone's network)
NETWORK_LATENCY_MS = 300
# Files already compressed (images, web fonts) are sent as they are; text is gzipped.
PRECOMPRESSED = (".png", ".jpg", ".jpeg", ".woff2", ".woff", ".gif")

# The page's formulas on the screen, as an IntersectionObserver sees them (computed with the
# page's own rendering: measuring every formula's box instead forced the layout of each part of
# the page not yet laid out, content-visibility: auto, and cost the page seconds of the CPU time
# measured here). The watch starts with the document, before any script of the page runs:
# * every WATCH_MS, TeX source on the screen (a formula not typeset whose text is not
#   transparent) is recorded (mlnotesTexSeen);
# * on every animation frame, the first screen's maths is done (mlnotesFirstScreenAt, ms) once
#   the page says so (no "mlnotes-maths-pending" on <html>), a link's target (ANCHOR) is at the
#   top of the screen, and every formula a reader could see on the screen holds MathJax's output;
#   on the first frame after the page says so at which the observer has seen the screen (its
#   link's target in place), its formulas not typeset when the page said so (mlnotesClaim:
#   still TeX, or typeset after the word): the page's word is true only if there are none;
# * the page-wide work that must wait for the first screen's maths is seen when it starts
#   (mlnotesDeferredAt, ms): a scroll cue, a tab stop on a box that scrolls (the theme's, or
#   mlnotes.js's), a wide inline formula or a shrunk figure marked, or mlnotes.js's flag that
#   all of them are. It must start after the page's word (its mark "mlnotes-typeset-end"), a
#   fact of the page's own order of work. (Against mlnotesFirstScreenAt it was a race: the
#   watch judges on animation frames, the marks run when the browser is idle between two, and
#   a CPU that is slower or differently loaded moves one past the other.)
WATCH_MS = 150
WATCH_JS = r"""
window.mlnotesTexSeen = [];
window.mlnotesFirstScreenAt = null;
window.mlnotesDeferredAt = null;
window.mlnotesDeferredWhat = null;
window.mlnotesClaim = null;
window.mlnotesFramesAfterClaim = 0;
(() => {
  const anchor = ANCHOR;
  const onScreen = new Set();
  const seen = (entries) => {
    for (const e of entries) {
      if (e.isIntersecting) onScreen.add(e.target); else onScreen.delete(e.target);
    }
    if (entries.length) viewed = true;
  };
  const io = new IntersectionObserver(seen);
  const watched = new WeakSet();
  // when each formula got its typeset output (a formula typeset at build time in the served
  // page: never); the observer's first view of the screen comes a frame or two after the
  // page's word, and the word is judged by what had been typeset when it was given
  const typesetAt = new WeakMap();
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeName === 'MJX-CONTAINER' && n.parentNode && !typesetAt.has(n.parentNode)) {
          typesetAt.set(n.parentNode, performance.now());
        }
      }
    }
  }).observe(document, {subtree: true, childList: true});
  let viewed = false;  // the observer has reported on the formulas
  // [shown, pending]: the formulas on the screen a reader could see, those not typeset
  window.mlnotesOnScreen = () => {
    document.querySelectorAll('.bd-article .math').forEach((e) => {
      if (!watched.has(e)) { watched.add(e); io.observe(e); }
    });
    seen(io.takeRecords());
    const shown = Array.from(onScreen).filter((e) => e.isConnected
      && e.checkVisibility({visibilityProperty: true, opacityProperty: true}));
    return [shown, shown.filter((e) => !e.querySelector('mjx-math'))];
  };
  window.mlnotesTexShown = () => window.mlnotesOnScreen()[1].filter((e) => {
    if (!/\\[A-Za-z]+|\\[()[\]]/.test(e.textContent)) return false;
    const c = getComputedStyle(e).color;
    return !(c === 'transparent' || /rgba\(.*,\s*0\)$/.test(c));
  }).map((e) => e.textContent.trim().slice(0, 40));
  const watch = setInterval(() => {
    if (window.mlnotesWatchDone) { clearInterval(watch); return; }
    if (!document.body) return;
    const shown = window.mlnotesTexShown();
    if (shown.length) window.mlnotesTexSeen.push(...shown.slice(0, 2));
  }, WATCH_MS);
  // the scroll position at the last frame, whatever the page's state (judged against it from
  // the first frame after the page says it is done: counting only from then held the watch a
  // frame behind the page, in which mlnotes.js's marks, run when the browser is idle, came first)
  let lastScroll = null;
  const tick = () => {
    // the observer's view is a frame old: not judged on a frame in which the page scrolled
    const still = scrollY === lastScroll;
    lastScroll = scrollY;
    if (document.readyState === 'loading'
        || document.documentElement.classList.contains('mlnotes-maths-pending')) {
      requestAnimationFrame(tick);
      return;
    }
    let placed = true;
    if (anchor) {
      const target = document.getElementById(anchor);
      const top = target ? target.getBoundingClientRect().top : Infinity;
      placed = top > -50 && top < 100;
    }
    const [shown, pending] = window.mlnotesOnScreen();
    // the first frame after the page said its first screen's maths was done at which the
    // observer has seen the screen, the link's target in place (the view of a frame before the
    // browser scrolled to it is another screen's): what was left then, or typeset after the word
    if (window.mlnotesClaim === null && viewed && still && placed) {
      const said = performance.getEntriesByName('mlnotes-typeset-end')[0];
      const saidAt = said ? said.startTime : performance.now();
      const late = shown.filter((e) => !e.querySelector('mjx-math')
                                       || (typesetAt.get(e) || 0) > saidAt);
      window.mlnotesClaim = {at: performance.now(), saidAt, still, placed, pending: late.length,
                             tex: late.slice(0, 2).map((e) => e.textContent.trim().slice(0, 40))};
    }
    window.mlnotesFramesAfterClaim += 1;
    if (viewed && still && placed && !pending.length) {
      window.mlnotesFirstScreenAt = performance.now();
    } else {
      requestAnimationFrame(tick);
    }
  };
  requestAnimationFrame(tick);
  const DEFERRED = ['mlnotes-overflows', 'mlnotes-wide-inline', 'mlnotes-zoomable'];
  // mlnotes.js's own flag: every page-wide mark made (data-mlnotes-laid-out on <html>)
  new MutationObserver((records) => {
    if (window.mlnotesDeferredAt !== null) return;
    const early = records.find((r) => (r.attributeName === 'tabindex'
                                       && !r.target.nodeName.startsWith('MJX')
                                       && r.target.closest('.bd-article'))
                      || (r.attributeName === 'class'
                          && DEFERRED.some((c) => r.target.classList.contains(c)))
                      || r.attributeName === 'data-mlnotes-laid-out');
    if (early) {
      window.mlnotesDeferredAt = performance.now();
      window.mlnotesDeferredWhat = `${early.attributeName} of ${early.target.nodeName}`
        + `.${early.target.className}`;
    }
  }).observe(document, {subtree: true, attributes: true,
                        attributeFilter: ['class', 'tabindex', 'data-mlnotes-laid-out']});
})();
"""


# What MathJax fetches before the first screen's batch is asked for early, while the page is
# busy with its parsing and deferred scripts, not on the batch's critical path (each such fetch
# waited for a network round trip and then for the main thread): its assistive MathML component
# during the page's parsing (its loader asks for it only once tex-chtml.js has run, after the
# parsing), the font ranges the page's TeX uses (\mathbb, \mathcal) before MathJax's start-up.
# A page with its island (the default build) fetches no MathJax before its first screen's maths.
EARLY_FETCH_JS = r"""
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const ready = performance.getEntriesByName('mlnotes-mathjax-ready')[0];
  const done = performance.getEntriesByName('mlnotes-typeset-end')[0];
  const island = document.getElementById('mlnotes-chtml');
  const at = (t) => `${(t / 1000).toFixed(2)} s`;
  const late = [];
  for (const r of performance.getEntriesByType('resource')) {
    const name = r.name.split('?')[0].split('/').slice(-2).join('/');
    if (island && /\/mathjax4\//.test(r.name) && /\.js$/.test(r.name.split('?')[0])
        && (!done || r.startTime < done.startTime)) {
      late.push(`${name} requested at ${at(r.startTime)}, before the first screen's maths `
                + `(${done ? at(done.startTime) : 'never done'}): the page's island needs no MathJax`);
    }
    if (/\/a11y\/assistive-mml\.js/.test(r.name) && r.startTime > nav.domInteractive) {
      late.push(`${name} requested at ${at(r.startTime)}, after the page's parsing `
                + `(${at(nav.domInteractive)})`);
    }
    if (/\/chtml\/dynamic\/(double-struck|calligraphic)\.js/.test(r.name) && ready
        && r.startTime > ready.startTime) {
      late.push(`${name} requested at ${at(r.startTime)}, after MathJax's start-up `
                + `(${at(ready.startTime)})`);
    }
  }
  return late;
}
"""


def _served_bytes(urls, host):
    """Bytes a web server sends for ``urls`` (text gzipped, images and fonts as they are)."""
    total = 0
    for url in dict.fromkeys(urls):
        parsed = urlparse(url)
        if parsed.netloc != host:
            continue
        path = BOOK_HTML / parsed.path.lstrip("/")
        if not path.is_file():
            continue
        data = path.read_bytes()
        total += len(data) if path.suffix in PRECOMPRESSED else len(gzip.compress(data, 6))
    return total


# What a page's HTML makes the browser fetch before any script runs: scripts, style sheets,
# preloads and the images not loaded lazily.
STATIC_FETCH = re.compile(r'<script[^>]*\ssrc="([^"]+)"|<link[^>]*\shref="([^"]+)"[^>]*>'
                          r'|<img(?![^>]*loading="lazy")[^>]*\ssrc="([^"]+)"')


def _static_fetches(page):
    """The local files the built ``page`` (a path under BOOK_HTML) names for the browser to
    fetch at load (style sheets, scripts, preloads, images not loaded lazily), and itself."""
    html = page.read_text(encoding="utf-8")
    files = [page]
    for match in STATIC_FETCH.finditer(html):
        tag, url = match[0], next(g for g in match.groups() if g)
        if match[2] and not re.search(r'rel="(stylesheet|preload|modulepreload)"', tag):
            continue  # a link to another page, an icon, a search
        if urlparse(url).scheme or url.startswith(("//", "data:")):
            continue
        path = (page.parent / urlparse(url).path).resolve()
        if path.is_file():
            files.append(path)
    return list(dict.fromkeys(files))


@functools.lru_cache(maxsize=None)
def _gzip_bytes(path):
    data = path.read_bytes()
    return len(data) if path.suffix in PRECOMPRESSED else len(gzip.compress(data, 6))


def test_every_page_is_light_as_served_and_carries_no_explorer_data():
    """Every page of the book, as a web server sends it (text gzipped): its HTML and what its
    HTML makes the browser fetch at load weigh at most ``MAX_SERVED_MB``; and no explorer's data
    is inline in a page (book/_ext/explorers.py moves it to a file of its own, loaded when the
    explorer comes near the screen: on t-SNE's page it was 338 of the HTML's 749 kB). What
    MathJax fetches as it typesets (fonts, extensions) is measured on the heaviest page by the
    test below."""
    pages = [BOOK_HTML / f"{f}.html" for f in toc_files() if (BOOK_HTML / f"{f}.html").is_file()]
    if not pages:
        pytest.fail(f"no built book at {BOOK_HTML}: `make book` runs before the browser tests")
    heavy, inline = {}, []
    for page in pages:
        served = sum(_gzip_bytes(f) for f in _static_fetches(page)) / 1e6
        if served > MAX_SERVED_MB:
            heavy[page.name] = round(served, 2)
        if re.search(r'<script type="application/gzip" class="mlx-data">\s*[A-Za-z0-9+/]',
                     page.read_text(encoding="utf-8")):
            inline.append(page.name)
    assert not heavy, f"pages heavier than {MAX_SERVED_MB} MB as served at load: {heavy}"
    assert not inline, f"pages carrying explorer data inline: {inline}"


# The share of the page's formulas typeset in the browser: not those typeset at build time
# (book/_ext/prerender.py: data-mlnotes-built; on a phone the displays MathJax typeset again for
# its column are new ones).
TYPESET_SHARE_JS = r"""
() => {
  const formulas = Math.max(1, document.querySelectorAll('.bd-article .math').length);
  return document.querySelectorAll('.bd-article .math :is(mjx-container:not([data-mlnotes-built]), '
                                   + 'mjx-container[data-mlnotes-island]) > mjx-math').length / formulas;
}
"""


def _thread_time(cdp):
    """The page's main-thread CPU time (s) so far (``Performance.enable`` with thread ticks):
    its own work, which a machine's load and the CPU throttling's pauses do not change as they
    change wall-clock time."""
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]
                if m["name"] == "ThreadTime")


def _open_on_a_slow_phone(browser, site, page, mutant=None, during_load=None):
    """Open ``page`` (``file`` or a link, ``file#target``) on a phone whose CPU is
    ``CPU_SLOWDOWN`` times slower, until its first screen's maths is done (``WATCH_JS``), with
    ``mutant`` (a static file's name, (find, replace)) served instead of the file: the context,
    page and CDP session (open), whether the first screen was typeset, and the main thread's
    CPU time (s) to then."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    if mutant:
        serve_mutant(context, *mutant)
    pw_page = context.new_page()
    requested = []
    pw_page.on("request", lambda r: requested.append(r.url))
    cdp = context.new_cdp_session(pw_page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    anchor = page.partition("#")[2] or None
    if during_load:  # what a reader or the phone does while the page loads (a script)
        pw_page.add_init_script(during_load)
    pw_page.add_init_script(WATCH_JS.replace("WATCH_MS", str(WATCH_MS))
                            .replace("ANCHOR", json.dumps(anchor)))
    start = _thread_time(cdp)
    pw_page.goto(f"{site}/{page}", wait_until="commit")
    try:  # checked every 100 ms (each animation frame would cost the page's thread more)
        pw_page.wait_for_function("() => window.mlnotesFirstScreenAt !== null", polling=100,
                                  timeout=scaled(60000))
        typeset = True
    except PlaywrightTimeout:
        typeset = False
    cpu = _thread_time(cdp) - start
    pw_page.evaluate("window.mlnotesWatchDone = true")
    return context, pw_page, cdp, typeset, cpu, requested


def _start_up_cpu(browser, site, page):
    """The main thread's CPU time (s) to the first screen's maths of ``page``'s file opened at
    its top (the page's and MathJax's start-up: no formula on t-SNE's first screen), on the
    same slow phone, the real page (never a mutant's)."""
    context, _, _, typeset, cpu, _ = _open_on_a_slow_phone(browser, site, page.partition("#")[0])
    context.close()
    assert typeset, f"{page.partition('#')[0]} opened at its top never said its maths was done"
    return cpu


def _first_screen(browser, site, page, mutant=None):
    """Open ``page`` (a link: ``file#target``) on a phone whose CPU is ``CPU_SLOWDOWN`` times
    slower, until its first screen's maths is done (``WATCH_JS``), with ``mutant`` (a static
    file's name, (find, replace)) served instead of the file, after the same page opened at its
    top (the CPU reference, ``FIRST_SCREEN_CPU_RATIO``); the problems found, the measures, and
    the context and page (open, for the caller to go on with and close)."""
    # ``CPU_SAMPLES`` of each, interleaved: the least of the link's kept (the first page a
    # browser opens costs it more, its caches cold, and a busy machine adds to a load's CPU
    # time, never takes from it), the middle one of the top's (once far below the rest)
    references, cpus = [], []
    for sample in range(CPU_SAMPLES):
        references.append(_start_up_cpu(browser, site, page))
        context, pw_page, cdp, typeset, cpu, requested = _open_on_a_slow_phone(
            browser, site, page, mutant)
        cpus.append(cpu)
        if sample < CPU_SAMPLES - 1:
            context.close()
    reference, cpu = sorted(references)[len(references) // 2], min(cpus)
    problems = []
    found = pw_page.evaluate("""() => ({at: window.mlnotesFirstScreenAt,
        deferred: window.mlnotesDeferredAt, what: window.mlnotesDeferredWhat,
        seen: window.mlnotesTexSeen, claim: window.mlnotesClaim,
        frames: window.mlnotesFramesAfterClaim,
        said: (performance.getEntriesByName('mlnotes-typeset-end')[0] || {}).startTime})""")
    share = pw_page.evaluate(TYPESET_SHARE_JS)
    if not typeset:
        problems.append("the first screen's formulas were never all typeset")
    if share > MAX_TYPESET_SHARE:
        problems.append(f"{share:.0%} of the page's formulas typeset before the first "
                        f"screen could be read (at most {MAX_TYPESET_SHARE:.0%})")
    said, claim = found["said"], found["claim"]
    if typeset and said is None:
        problems.append("the page never marked its first screen's maths done "
                        "(mlnotes-typeset-end)")
    if claim and claim["pending"]:
        problems.append(f"the page said its first screen's maths was done at {said / 1000:.2f} s "
                        f"with {claim['pending']} formulas on the screen still TeX then "
                        f"({claim['tex']})")
    if found["deferred"] is not None and (said is None or found["deferred"] < said):
        problems.append(f"page-wide marks (scroll cues, tab stops) began at "
                        f"{found['deferred'] / 1000:.2f} s, before the first screen's maths "
                        f"was done ({found['what']})")
    if cpu > FIRST_SCREEN_CPU_RATIO * reference:
        problems.append(f"{cpu:.2f} s of the main thread's CPU to the first screen's maths, "
                        f"{cpu / reference:.2f} times the page's start-up at its top "
                        f"({reference:.2f} s; CPU {CPU_SLOWDOWN}x slower; at most "
                        f"{FIRST_SCREEN_CPU_RATIO} times)")
    if found["seen"]:
        problems.append(f"TeX source shown before typesetting: {found['seen'][:3]}")
    problems.extend(f"MathJax fetched at the wrong time: {late}"
                    for late in pw_page.evaluate(EARLY_FETCH_JS))
    measures = {"first_screen_s": (found["at"] or float("nan")) / 1000, "cpu": cpu,
                "said_s": said / 1000 if said is not None else None, "claim": claim,
                "frames_after_claim": found["frames"],
                "deferred_s": found["deferred"] / 1000 if found["deferred"] is not None else None,
                "start_up_cpu": reference, "share": share, "requested": requested,
                "cpu_samples": cpus, "start_up_cpu_samples": references}
    return problems, measures, context, pw_page, cdp


@pytest.mark.parametrize("page", HEAVY_PAGES)
def test_first_screen_of_maths_typeset_quickly_and_tex_never_shown(page, site, browser):
    """At a link into the heaviest page (``HEAVY_PAGES``: a section halfway down, where a phone's
    screen holds 29 formulas), on a phone 4x slower: the first screen's maths comes first. Its
    budget is the main thread's CPU time against the page's own start-up at its top
    (``FIRST_SCREEN_CPU_RATIO``: not seconds, which a slower CPU moves, nor the wall clock), only
    those formulas are typeset by then (at most ``MAX_TYPESET_SHARE``: a typesetter that works
    down from the top of the page to the target typesets 41%), the page-wide marks wait for it,
    and no TeX is shown; then the page is scrolled through, every screen typeset and never TeX.
    Mutants of mlnotes-mathjax.js and mlnotes.js (typesetting from the top down, the marks
    first) fail it (``test_first_screen_check_fails_its_mutants``)."""
    problems, measures, context, pw_page, cdp = _first_screen(browser, site, page)
    served, worst, timing, slow = float("nan"), 0.0, None, []
    try:
        pw_page.wait_for_load_state("load")
        timing = pw_page.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0];"
            " const p = performance.getEntriesByName('first-contentful-paint')[0];"
            " return {load: n.loadEventStart / 1000, paint: p ? p.startTime / 1000 : null}; })()")
        blocking = pw_page.evaluate("Array.from(document.querySelectorAll('head script[src]"
                                    ":not([defer]):not([async])')).filter(s => /search/"
                                    ".test(s.src)).map(s => s.src)")
        if blocking:
            problems.append(f"search scripts stop the page's parsing: {blocking}")
        if measures["first_screen_s"] > timing["load"] + scaled(FIRST_SCREEN_S):
            problems.append(f"first screen typeset {measures['first_screen_s'] - timing['load']:.1f}"
                            f" s after the load event (CPU {CPU_SLOWDOWN}x slower; at most "
                            f"{scaled(FIRST_SCREEN_S):.0f} s on this machine now)")
        served = _served_bytes(measures["requested"], urlparse(site).netloc) / 1e6
        if served > MAX_SERVED_MB:
            problems.append(f"{served:.2f} MB served at load (at most {MAX_SERVED_MB})")

        # scroll through the page a screen at a time, at full speed, on a slow network: every
        # font range and TeX extension MathJax fetches on demand arrives NETWORK_LATENCY_MS
        # late, so formulas come into view while a batch is still being typeset (the case
        # MathJax's lazy typesetter used to lose, book/_static/mlnotes-mathjax.js)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": NETWORK_LATENCY_MS, "downloadThroughput": -1,
            "uploadThroughput": -1})
        top = 0
        while top < pw_page.evaluate("document.documentElement.scrollHeight"):
            # two frames: the observer has seen the new screen
            pw_page.evaluate(f"""() => {{ window.scrollTo(0, {top}); return new Promise(r =>
                requestAnimationFrame(() => requestAnimationFrame(r))); }}""")
            shown = pw_page.evaluate("window.mlnotesTexShown()")
            if shown:
                problems.append(f"TeX source on screen at {top}px: {shown[:2]}")
                break
            start = time.perf_counter()
            if not wait_until(pw_page, "() => !window.mlnotesOnScreen()[1].length",
                              timeout=SCROLL_TYPESET_S * 1000):  # scaled for this machine
                slow.append(top)
            worst = max(worst, time.perf_counter() - start)
            top += 844
        if slow:
            problems.append(f"formulas still not typeset {SCROLL_TYPESET_S} s after scrolling "
                            f"to {slow[:5]} px")
    finally:
        context.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    record = ARTIFACTS / "first-paint.json"
    results = json.loads(record.read_text()) if record.exists() else {}
    results[page] = {"first_screen_s": round(measures["first_screen_s"], 2),
                     "cpu_slowdown": CPU_SLOWDOWN,
                     "first_screen_cpu_s": round(measures["cpu"], 3),
                     "start_up_cpu_s": round(measures["start_up_cpu"], 3),
                     "first_screen_cpu_samples_s": [round(c, 3) for c in measures["cpu_samples"]],
                     "start_up_cpu_samples_s": [round(c, 3)
                                                for c in measures["start_up_cpu_samples"]],
                     "first_screen_cpu_ratio": round(measures["cpu"] / measures["start_up_cpu"], 2),
                     "first_screen_cpu_ratio_bound": FIRST_SCREEN_CPU_RATIO,
                     "typeset_share": round(measures["share"], 3),
                     "said_done_s": measures["said_s"], "first_frame_after": measures["claim"],
                     "frames_to_first_screen": measures["frames_after_claim"],
                     "page_wide_marks_s": measures["deferred_s"],
                     "load_event_s": round(timing["load"], 2) if timing else None,
                     "first_paint_s": timing["paint"] if timing else None,
                     "served_mb": round(served, 2), "worst_scroll_typeset_s": round(worst, 2),
                     "untypeset_after_scroll_px": slow}
    record.write_text(json.dumps(results, indent=1))
    assert not problems, f"{page}:\n  " + "\n  ".join(problems)


# What happens to a page while it loads, at once after its scripts have run (DOMContentLoaded):
# the window resized (a phone settles its viewport as the page loads: Chromium's phone
# emulation does, 1.2-1.8 s in; a reader turns the phone) and a fold opened (a toggle event).
# Each made mlnotes.js measure and mark the whole page at once, before the first screen's maths:
# the resize did so in one `make test` here and in CI (its timer fired once the page was parsed).
DURING_LOAD_JS = r"""
document.addEventListener('DOMContentLoaded', () => {
  window.dispatchEvent(new Event('resize'));
  const fold = document.querySelector('.bd-article details:not([open])');
  if (fold) fold.open = true;
  window.mlnotesDuringLoad = {fold: Boolean(fold)};
});
"""
# mlnotes.js as a careless author would leave it: each of the two handlers marking at once
DURING_LOAD_MUTANTS = [
    ("mlnotes.js", ("  if (!mlnotesMarked()) {\n    mlnotesResizedEarly = true;",
                    "  if (false) {\n    mlnotesResizedEarly = true;")),
    ("mlnotes.js", ("if (event.target.open && mlnotesMarked()) mlnotesMarkScrollBoxes();",
                    "if (event.target.open) mlnotesMarkScrollBoxes();")),
]


def _marks_during_load(browser, site, mutant=None):
    """The problems of t-SNE's link opened on the slow phone with ``DURING_LOAD_JS``: page-wide
    marks made before the page's word that its first screen's maths is done."""
    context, pw_page, _, typeset, _, _ = _open_on_a_slow_phone(
        browser, site, HEAVY_PAGES[0], mutant, during_load=DURING_LOAD_JS)
    try:
        # the resize's marks come 150 ms after it, the fold's at once: both before the word
        found = pw_page.evaluate("""() => ({deferred: window.mlnotesDeferredAt,
            what: window.mlnotesDeferredWhat, during: window.mlnotesDuringLoad,
            said: (performance.getEntriesByName('mlnotes-typeset-end')[0] || {}).startTime})""")
    finally:
        context.close()
    assert typeset and found["during"] and found["during"]["fold"], found
    if found["deferred"] is not None and found["deferred"] < found["said"]:
        return [f"page-wide marks at {found['deferred'] / 1000:.2f} s, before the first "
                f"screen's maths was done at {found['said'] / 1000:.2f} s ({found['what']})"]
    return []


def test_a_resize_or_a_fold_opened_while_loading_waits_for_the_first_screen(site, browser):
    """A resize and a fold opened while the page loads (``DURING_LOAD_JS``) mark nothing before
    the first screen's maths: the first marking after it covers them."""
    assert not _marks_during_load(browser, site)


@pytest.mark.skipif(not os.environ.get("MLNOTES_FIRST_SCREEN_MUTANTS"),
                    reason="the mutants cost CPU: MLNOTES_FIRST_SCREEN_MUTANTS=1")
@pytest.mark.parametrize("static, mutant", DURING_LOAD_MUTANTS)
def test_the_during_load_check_fails_its_mutants(static, mutant, site, browser):
    """Each of ``DURING_LOAD_MUTANTS`` (a handler that marks at once) fails the check above."""
    assert _marks_during_load(browser, site, (static, mutant))


def _built_with_maths():
    """How the book's maths was typeset at build time (book/_ext/prerender.py, with Node):
    "island" (every formula, the first screens in place and the rest in the page's island:
    MLNOTES_PRERENDER_MATHS=island, the default), "all" (every formula in place: =1), "top"
    (each page's first screens, the rest typeset by MathJax in the browser: =top), or None
    (all of it in the browser)."""
    page = BOOK_HTML / "book" / "tsne.html"
    html = page.read_text(encoding="utf-8") if page.is_file() else ""
    if 'id="mlnotes-chtml"' in html:
        return "island"
    if "data-mlnotes-mathjax" in html:
        return "all"
    return "top" if "mlnotes-chtml.css" in html else None


BUILT = _built_with_maths()
BUILT_ONLY = pytest.mark.skipif(
    shutil.which("node") is None or BUILT is None,
    reason="maths typeset in the browser (build with MLNOTES_PRERENDER_MATHS=island, top or 1 to "
           "typeset it at build time)")
EVERY_FORMULA_BUILT_ONLY = pytest.mark.skipif(
    shutil.which("node") is None or BUILT not in ("all", "island"),
    reason="not every formula typeset at build time (MLNOTES_PRERENDER_MATHS=island or 1 do)")


# Careless versions of the page's scripts that the first-screen check must reject: the first
# batch begins at the top of the page and works down to the link's target (its share of the
# page's formulas and its CPU ratio both fail); the page-wide marks
# of mlnotes.js run at once rather than after the first screen's maths; the page's word that
# its first screen is done given before the screen's formulas are typeset. (The theme's tab-stop
# pass let through: test_theme_late_check_fails_its_mutants, the theme's script running after
# the first screen.)
FIRST_SCREEN_MUTANTS = [
    ("mlnotes-mathjax.js", ("const batch = Array.from(waiting);",
                            "const batch = formulas.filter((el) => !done.has(el) && ("
                            "waiting.has(el) || el.getBoundingClientRect().bottom < 0));")),
    ("mlnotes.js", ("function mlnotesAfterFirstScreen(callback) {",
                    "function mlnotesAfterFirstScreen(callback) { return callback();")),
] + ([
    # the island (the default build): the page says its first screen is done before its
    # formulas are put in place; MathJax loaded and started before they are; the whole island
    # put in place at once
    ("mlnotes-mathjax.js", ("Promise.resolve(inPlace)\n        .then(() => (all ? null : painted()))\n"
                            "        .then(() => watchDisplays(all))\n",
                            "Promise.resolve()\n")),
    ("mlnotes-mathjax.js", ("const start = () => (document.getElementById(ISLAND) ? firstScreen()",
                            "const start = () => (document.getElementById(ISLAND) ? "
                            "loadMathJax().then(firstScreen)")),
    ("mlnotes-mathjax.js", (": typesetNearScreen(fromIsland, inIsland);",
                            ": fromIsland(Array.from(document.querySelectorAll("
                            "'.math[data-mlnotes-chtml]')));")),
] if BUILT == "island" else [
    # typeset by MathJax in the page (=top): the page says its first screen is done before its
    # first batch is typeset; its assistive MathML, and the font's ranges, left for MathJax to
    # fetch
    ("mlnotes-mathjax.js", ("const firstDone = new Promise((resolve) => { firstScreen = resolve; });",
                            "const firstDone = Promise.resolve(); firstScreen = () => null;")),
    ("mlnotes-mathjax.js", ('preload("mathjax4/a11y/assistive-mml.js", "script");', "")),
    ("mlnotes-mathjax.js", ('preload(`mathjax4/fonts/mathjax-newcm-font/chtml/dynamic/${name}.js`, '
                            '"script");', "")),
])


@pytest.mark.skipif(not os.environ.get("MLNOTES_FIRST_SCREEN_MUTANTS"),
                    reason="the mutants cost a minute of CPU: MLNOTES_FIRST_SCREEN_MUTANTS=1")
@pytest.mark.parametrize("static, mutant", FIRST_SCREEN_MUTANTS)
def test_first_screen_check_fails_its_mutants(static, mutant, site, browser):
    """Each of ``FIRST_SCREEN_MUTANTS`` fails the first-screen check of
    ``test_first_screen_of_maths_typeset_quickly_and_tex_never_shown`` (run on demand)."""
    problems, _, context, _, _ = _first_screen(browser, site, HEAVY_PAGES[0], (static, mutant))
    context.close()
    assert problems, f"the first-screen check passed a mutant of {static}: {mutant[1]}"


# What a reader sees of a page's formulas before any script runs (JavaScript off): each
# formula's MathJax output with its assistive MathML, laid out by the CHTML style sheet (a
# display is a block, the hidden MathML is out of the flow), and no TeX in the page's text.
NO_SCRIPT_JS = r"""
([rawTex, top]) => {
  // top: a page whose first screens were typeset at build time (the rest stays TeX, for the
  // page's lazy typesetter): the formulas and the text above its first formula left as TeX,
  // which must be below the first screen
  const all = Array.from(document.querySelectorAll('.bd-article .math'));
  const firstTeX = all.find(e => !e.querySelector('mjx-container'));
  const limit = top && firstTeX ? firstTeX.getBoundingClientRect().top : Infinity;
  const onScreen = (r) => r.bottom > 0 && r.top < limit;
  const formulas = top && firstTeX ? all.slice(0, all.indexOf(firstTeX)) : all;
  const bare = formulas.filter(e => !e.querySelector(':scope > mjx-container > mjx-math'));
  const mute = formulas.filter(e => !e.querySelector(':scope > mjx-container > mjx-assistive-mml > math'));
  const unstyled = formulas.map(e => e.querySelector(':scope > mjx-container')).filter(c => c && (
    (c.hasAttribute('display') && getComputedStyle(c).display !== 'block')
    || getComputedStyle(c.querySelector('mjx-assistive-mml') || c).position !== 'absolute'));
  let shownText = '';
  if (top) {
    const walk = document.createTreeWalker(document.querySelector('.bd-article'), NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      if (t.parentElement.closest('pre, code, script, style, mjx-assistive-mml')) continue;
      range.selectNodeContents(t);
      if (Array.from(range.getClientRects()).some(onScreen)) shownText += t.textContent + ' ';
    }
  } else {
    const article = document.querySelector('.bd-article').cloneNode(true);
    article.querySelectorAll('pre, code, script, style, mjx-assistive-mml').forEach(e => e.remove());
    shownText = article.textContent;
  }
  const tex = shownText.match(new RegExp(rawTex, 'g')) || [];
  const text = (list) => list.slice(0, 3).map(e => e.textContent.trim().slice(0, 40));
  return {formulas: formulas.length, bare: text(bare), mute: text(mute),
          texOnScreen: limit < innerHeight ? `a formula as TeX ${Math.round(limit)} px down` : '',
          unstyled: unstyled.length, tex: tex.slice(0, 3)};
}
"""


def _no_script_problems(pw_page, url, html=None, top=False):
    """What ``NO_SCRIPT_JS`` finds wrong on ``url`` opened with JavaScript off (served as
    ``html`` if given: the test's mutants); ``top``: above its first formula left as TeX, which
    must be below the first screen."""
    if html is not None:
        pw_page.route(url, lambda route: route.fulfill(body=html, content_type="text/html"))
    pw_page.goto(url, wait_until="load")
    if html is not None:
        pw_page.unroute(url)
    found = pw_page.evaluate(NO_SCRIPT_JS, [RAW_TEX, top])
    problems = [f"{k}: {found[k]}" for k in ("bare", "mute", "tex", "texOnScreen") if found[k]]
    if found["unstyled"]:
        problems.append(f"{found['unstyled']} formulas without MathJax's style sheet")
    if not found["formulas"]:
        problems.append("no formula")
    return problems





MUTATED_PAGE = "book/tsne.html"


@BUILT_ONLY
@pytest.mark.parametrize("page", [MUTATED_PAGE, "book/api.html"])
def test_maths_typeset_in_the_served_page_before_any_script(page, site, browser):
    """The heaviest pages with JavaScript off: every formula (of the first screen, on a phone and
    on a laptop, when only the first screens are typeset at build time) is already MathJax's
    CHTML output (book/_ext/prerender.py), styled, with its assistive MathML, and no TeX is in
    the text: maths at first paint with no MathJax to start. Two mutants of the page must fail
    the same check: one formula left as TeX, and the CHTML style sheet not linked (on
    ``MUTATED_PAGE``: the check is the same for both pages)."""
    top = BUILT in ("top", "island")  # the first screens in place, the rest TeX in the page
    if top:  # the laptop's first screen too (the build's budget covers both)
        context = browser.new_context(viewport={"width": 1366, "height": 768},
                                      java_script_enabled=False)
        try:
            problems = _no_script_problems(context.new_page(), f"{site}/{page}", top=True)
        finally:
            context.close()
        assert not problems, f"{page} without JavaScript, 1366 px:\n  " + "\n  ".join(problems)
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  java_script_enabled=False)
    try:
        pw_page = context.new_page()
        url = f"{site}/{page}"
        problems = _no_script_problems(pw_page, url, top=top)
        assert not problems, f"{page} without JavaScript:\n  " + "\n  ".join(problems)
        if page != MUTATED_PAGE:
            return  # the check's mutants: on one page (the same check on each)
        html = (BOOK_HTML / page).read_text(encoding="utf-8")
        # the page's first formula typeset at build time, inline or display
        first = min((m for m in (
            re.search(r'<span class="math notranslate nohighlight"><mjx-container.*?'
                      r'</mjx-container></span>', html),
            re.search(r'<div class="math notranslate nohighlight"[^>]*>\n?(?:<span class="eqno">'
                      r'.*?</span>)?<mjx-container.*?</mjx-container></div>', html, re.S))
            if m), key=lambda m: m.start(), default=None)
        assert first, f"{page}: no formula typeset at build time in the served HTML"
        as_tex = html[:first.start()] + (r'<span class="math notranslate nohighlight">'
                                         r'\(x_i \in \mathbb{R}^p\)</span>') + html[first.end():]
        unlinked = re.sub(r'<link[^>]*mlnotes-chtml\.css[^>]*>', "", html)
        missed = [name for name, mutant in (("a formula as TeX", as_tex),
                                            ("no CHTML style sheet", unlinked))
                  if not _no_script_problems(pw_page, url, mutant, top=top)]
    finally:
        context.close()
    assert not missed, f"{page}: the check passed a mutant page: {missed}"


# A formula as Sphinx writes it (TeX, for MathJax in the browser), display or inline; its
# opening tag's attributes (an island's formula: data-mlnotes-chtml, its place in the island)
SPHINX_TEX = re.compile(r'<(?:span|div) class="math notranslate nohighlight"([^>]*)>\n?'
                        r'(?:<span class="eqno">[^<]*(?:<a\b[^>]*>[^<]*</a>)?</span>)?\\[(\[]')


@EVERY_FORMULA_BUILT_ONLY
def test_every_formula_of_the_book_typeset_at_build_time():
    """No page of the book holds a formula as TeX for the browser's MathJax
    (book/_ext/prerender.py typesets them all when the book is built; one MathJax cannot
    typeset would stay TeX, for the page's MathJax to show its error): in place, or (the
    island, the default) TeX whose typeset HTML is in the page's island, at the place it names;
    and each page with maths links the CHTML style sheet and loads no MathJax at start."""
    pages = [BOOK_HTML / f"{f}.html" for f in toc_files() if (BOOK_HTML / f"{f}.html").is_file()]
    left, unlinked, loading, islands = {}, [], [], {}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        found = ISLAND_RE.findall(html)
        entries = json.loads(found[0]) if len(found) == 1 else []
        marks = [m.group(1) for m in SPHINX_TEX.finditer(html)]
        places = [int(k) for k in re.findall(r' data-mlnotes-chtml="(\d+)"', "".join(marks))]
        if places != list(range(len(entries))) or len(found) > 1:
            islands[page.name] = f"{len(places)} formulas marked, {len(entries)} in the island"
        if len(places) < len(marks):
            left[page.name] = len(marks) - len(places)
        if "<mjx-container" in html or found:
            if "mlnotes-chtml.css" not in html:
                unlinked.append(page.name)
            if re.search(r'<script[^>]*\ssrc="[^"]*mathjax4/tex-chtml\.js', html):
                loading.append(page.name)
    assert pages, f"no built book at {BOOK_HTML}"
    assert not left, f"formulas left as TeX by the build, per page: {left}"
    assert not islands, f"islands not matching their pages' formulas: {islands}"
    assert not unlinked, f"pages without the CHTML style sheet: {unlinked}"
    assert not loading, f"pages typeset at build time that still load MathJax at start: {loading}"


# The displays typeset at build time (data-mlnotes-built) and those the page typeset again for
# a narrower or wider column (data-mlnotes-browser, with the column's width it was typeset for in
# data-mlnotes-column), within ``margin`` px of the screen and shown: each one that is wider than
# its column and was not typeset for it, or that was typeset for another column than it has.
# Shown: laid out for the reader, not in a block the browser skips (content-visibility: auto,
# away from the screen). Measured by script, a skipped block is laid out for the script alone,
# where the page's other skipped blocks keep their placeholder heights: a display of the island
# found there "within the margin" was off the screen the reader had, never drawn (so never seen
# by the page's observers) for the 11-23 s the check waited, and typeset again at once when
# the next scroll brought it on screen.
UNFIT_JS = r"""
(margin) => Array.from(document.querySelectorAll('.bd-article .math > mjx-container[display]'))
  .filter(c => c.hasAttribute('data-mlnotes-built') || c.hasAttribute('data-mlnotes-browser'))
  .filter(c => c.checkVisibility({contentVisibilityAuto: true}))
  .filter(c => { const r = c.getBoundingClientRect();
                 return c.clientWidth > 0 && r.bottom > -margin && r.top < innerHeight + margin; })
  .map(c => {
    const again = c.hasAttribute('data-mlnotes-browser');
    const column = Number(c.getAttribute('data-mlnotes-column'));
    const tex = (c.querySelector('mjx-math').getAttribute('data-latex') || '').trim().slice(0, 40);
    if (again && Math.abs(column - c.clientWidth) > 2)
      return `typeset for ${column} px in a ${c.clientWidth} px column: ${tex}`;
    if (!again && c.scrollWidth > c.clientWidth + 1)
      return `as built, ${c.scrollWidth} px wide in a ${c.clientWidth} px column: ${tex}`;
    return '';
  }).filter(Boolean)
"""
# A page's built displays (and those typeset again in their place): their centres on the page.
BUILT_TOPS_JS = r"""
() => Array.from(document.querySelectorAll('.bd-article .math > mjx-container[display]'))
  .filter(c => c.hasAttribute('data-mlnotes-built') || c.hasAttribute('data-mlnotes-browser'))
  .map(c => { const r = c.getBoundingClientRect(); return r.top + r.height / 2 + scrollY; })
"""
# The column widths: a phone, a laptop, the phone again (a window narrowed after widening)
REFIT_WIDTHS = [(390, 844), (1366, 768), (390, 844)]
# light and dark: the mechanism does not depend on the colours
REFIT_PAGES = [("book/intro.html", "light"), ("book/umap.html", "dark")]
REFIT_MARGIN = 300  # px around the screen that must have settled (the page watches 1200 px)
# The check disabled: no built display is ever typeset again (a wide one scrolls sideways at
# 390 px); and the column's width no longer watched (one typeset for a phone stays so when the
# window widens).
REFIT_MUTANTS = [("function refit(c) {", "function refit(c) { return null;"),
                 ("ro.observe(c);", "")]


def _unfit_after_visiting(pw_page, timeout, first=False):
    """Scroll to each built display of the page (lazily watched: checked near the screen) and
    return what ``UNFIT_JS`` still finds around it after ``timeout`` ms (``first``: stop at the
    first display found wrong, enough for a mutant)."""
    problems = []
    for top in pw_page.evaluate(BUILT_TOPS_JS):
        pw_page.evaluate(f"window.scrollTo(0, {top} - innerHeight / 2)")
        if not wait_until(pw_page, f"() => ({UNFIT_JS.strip()})({REFIT_MARGIN}).length === 0",
                          timeout=timeout):
            problems += pw_page.evaluate(UNFIT_JS, REFIT_MARGIN)
            if first:
                break
    return list(dict.fromkeys(problems))


def _refit_problems(browser, site, page, mode, mutant=None, timeout=10000):
    """``page`` read at each of ``REFIT_WIDTHS`` in turn (the window resized in place, lazy
    typesetting as for any reader): what is wrong with its built displays near the screen; and
    how many displays were typeset again and given back as built, and how many typeset for a
    phone were left in place when the window widened. With a ``mutant``, it stops at the first
    width with a display found wrong (one is enough to fail it)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}');"
                            f"localStorage.setItem('theme', '{mode}');")
    if mutant:
        serve_mutant(context, "mlnotes-mathjax.js", mutant)
    problems, again, kept = [], 0, 0
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/{page}", wait_until="load")
        pw_page.wait_for_function("() => !document.documentElement.classList.contains("
                                  "'mlnotes-maths-pending')", timeout=60000)
        for k, (width, height) in enumerate(REFIT_WIDTHS):
            if k:
                pw_page.evaluate("window.mlnotesPhone = Array.from(document.querySelectorAll("
                                 "'[data-mlnotes-browser]'))")
                pw_page.set_viewport_size({"width": width, "height": height})
            problems += [f"{width} px: {p}" for p in _unfit_after_visiting(
                pw_page, timeout, first=mutant is not None)]
            again += pw_page.evaluate("document.querySelectorAll('[data-mlnotes-browser]').length")
            if k:
                kept += pw_page.evaluate("window.mlnotesPhone.filter(c => c.isConnected).length")
            if mutant and (problems or kept):
                break
    finally:
        context.close()
    return problems, again, kept


@BUILT_ONLY
def test_built_displays_are_typeset_again_for_their_column(site, browser):
    """The displays typeset at build time were broken for a laptop's column: on a phone (390
    px) each one wider than its column is typeset again for it as it comes near the screen; when
    the window widens (1366 px) each one typeset for the phone is typeset again for the wider
    column, or given back as built where that fits; narrowed again, again for the phone
    (book/_static/mlnotes-mathjax.js, watchBuiltDisplays); a page in light, one in dark. The two
    mutants of ``REFIT_MUTANTS`` (the check disabled; the column's width not watched) must fail
    the same check."""
    again = 0
    for page, mode in REFIT_PAGES:
        problems, n, kept = _refit_problems(browser, site, page, mode)
        assert not problems, f"{page} ({mode}):\n  " + "\n  ".join(problems[:10])
        assert not kept, f"{page}: {kept} displays typeset for a phone kept at 1366 px"
        again += n
    # the check can fail only if some built display is too wide for a phone
    assert again >= 2, f"only {again} built displays typeset again ({REFIT_PAGES})"
    passed = []
    for mutant in REFIT_MUTANTS:
        problems, _, kept = _refit_problems(browser, site, *REFIT_PAGES[0], mutant,
                                            timeout=1500)
        if not problems and not kept:
            passed.append(mutant[0])
    assert not passed, f"the check passed mutants of mlnotes-mathjax.js: {passed}"


# After a right-click on a page's first built formula: MathJax's menu shown, and the formula
# now MathJax's own (a MathItem whose TeX is the formula's), which "Show Math As" > "TeX
# Commands" shows.
MENU_JS = r"""
(tex) => {
  const menu = document.querySelector('.CtxtMenu_Menu');
  const items = (window.MathJax && MathJax.startup && MathJax.startup.document)
    ? Array.from(MathJax.startup.document.math) : [];
  return {menu: !!menu && menu.getBoundingClientRect().width > 0
                && /Show Math As/.test(menu.textContent),
          item: items.some(m => m.typesetRoot && m.typesetRoot.isConnected && m.math.trim() === tex)};
}
"""
# Until the menu shows, or the right-click is seen left to the browser (not prevented): the
# page may first load MathJax and typeset the formula again, as long as the machine makes it
# (a fixed 5 s wait read a slow machine's page before its menu); the mutant below ends the wait
# at once, its menu never shown.
RIGHT_CLICK_WATCH_JS = r"""() => { window.mlnotesRightClick = null;
  window.addEventListener('contextmenu', (e) => setTimeout(() => {
    if (window.mlnotesRightClick === null) window.mlnotesRightClick = e.defaultPrevented; }),
    {capture: true, once: true}); }"""
MENU_OR_LEFT_JS = r"""() => { const m = document.querySelector('.CtxtMenu_Menu');
  return (!!m && m.getBoundingClientRect().width > 0) || window.mlnotesRightClick === false; }"""
# The right-click left to the browser: its own menu, not MathJax's
MENU_MUTANT = ("if (!c || config.options.enableMenu === false) return;", "return;")


def _menu_on_built(browser, site, mutant=None):
    """Right-click the first formula typeset at build time on the notation-heavy intro page at
    1366 px: what ``MENU_JS`` finds."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    if mutant:
        serve_mutant(context, "mlnotes-mathjax.js", mutant)
    try:
        pw_page = context.new_page()
        pw_page.goto(f"{site}/book/intro.html", wait_until="load")
        pw_page.wait_for_function("() => !document.documentElement.classList.contains("
                                  "'mlnotes-maths-pending')", timeout=60000)
        formula = pw_page.locator(".bd-article .math > mjx-container[data-mlnotes-built]").first
        tex = formula.evaluate("c => c.querySelector('mjx-math').getAttribute('data-latex').trim()")
        formula.scroll_into_view_if_needed()
        pw_page.evaluate(RIGHT_CLICK_WATCH_JS)
        formula.click(button="right")
        wait_until(pw_page, MENU_OR_LEFT_JS, timeout=60_000, polling=100)
        return pw_page.evaluate(MENU_JS, tex)
    finally:
        context.close()


@BUILT_ONLY
def test_mathjax_menu_opens_on_a_formula_typeset_at_build_time(site, browser):
    """A right-click on a formula typeset at build time opens MathJax's menu ("Show Math As"
    TeX, as on a formula typeset in the page): the formula is typeset in the page from its TeX
    first (book/_static/mlnotes-mathjax.js). The mutant that leaves the right-click to the
    browser must fail."""
    found = _menu_on_built(browser, site)
    assert found == {"menu": True, "item": True}, f"after a right-click on a built formula: {found}"
    assert _menu_on_built(browser, site, MENU_MUTANT) != found, "the check passed the mutant"


# --- The theme's script after the first screen's maths (issue 32) ------------------------------
# pydata-sphinx-theme.js runs once the first screen's maths is drawn (book/_static/mlnotes.js,
# mlnotesLoadTheme; book/_ext/surface.py, theme_script_late), which rests on four facts checked
# here on a phone and a laptop, with the reader's system in dark mode: the colour mode is set
# before the first paint (by the page's head: data-theme at the first frame is the system's);
# the theme's script is asked for only after the page's word that its first screen's maths is
# done (mlnotes-typeset-end); it changes no layout (the article column at the first paint and
# every code box just before the script against after it ran: a change after the first paint
# is a shift the reader sees); its tab-stop pass (every code block measured, laid out or not)
# finds nothing, so no code box far from the screen gets a tab stop. On the phone, a press of
# the Contents button while the theme's script is still on its way opens the drawer once it
# has come.
THEME_PROBE_JS = r"""
(() => {
  const boxes = () => {
    const article = document.querySelector('.bd-article');
    return {article: article ? article.getBoundingClientRect().width : null,
            boxes: Array.from(document.querySelectorAll(
              '.bd-article div.highlight > pre, .bd-article .cell_output pre, .bd-article .cell_input'),
              (e) => e.getBoundingClientRect().width)};
  };
  window.mlnotesThemeProbe = {boxes};
  requestAnimationFrame(function first() {
    if (!document.body) { requestAnimationFrame(first); return; }
    window.mlnotesThemeProbe.firstFrameTheme = document.documentElement.dataset.theme;
  });
  new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length && !window.mlnotesThemeProbe.paint) {
      window.mlnotesThemeProbe.paint = boxes();
    }
  }).observe({type: 'paint', buffered: true});
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeName === 'SCRIPT' && /pydata-sphinx-theme\.js/.test(n.src || '')
            && !window.mlnotesThemeProbe.asked) {
          window.mlnotesThemeProbe.asked = {at: performance.now(), ...boxes()};
        }
      }
    }
  }).observe(document, {childList: true, subtree: true});
})();
"""
THEME_END_JS = r"""
() => {
  const probe = window.mlnotesThemeProbe;
  const said = performance.getEntriesByName('mlnotes-typeset-end')[0];
  const far = Array.from(document.querySelectorAll('.bd-article pre')).filter((e) =>
    e.hasAttribute('tabindex') && !e.checkVisibility({contentVisibilityAuto: true}));
  return {firstFrameTheme: probe.firstFrameTheme, paint: probe.paint || null,
          asked: probe.asked || null, end: probe.boxes(), said: said ? said.startTime : null,
          farTabStops: far.length};
}
"""
THEME_PAGE = "book/tsne.html#tsne-alg"
THEME_SCRIPT = "**/_static/scripts/pydata-sphinx-theme.js*"


def _theme_late_problems(browser, site, width, mutant=None, page_mutant=None):
    """What is wrong with the theme's script run late (above) on ``THEME_PAGE`` at ``width``
    (390: a phone, where the Contents button is pressed while the script is held back), with
    ``mutant`` (a static file's name, (find, replace)) or ``page_mutant`` ((find, replace) in
    the page's HTML) served instead."""
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme="dark",
                                  is_mobile=phone, has_touch=phone)
    problems = []
    try:
        if mutant:
            serve_mutant(context, *mutant)
        file = THEME_PAGE.partition("#")[0]
        if page_mutant:
            html = (BOOK_HTML / file).read_text(encoding="utf-8")
            assert page_mutant[0] in html, f"page mutant {page_mutant[0]!r} not in {file}"
            html = html.replace(*page_mutant)
            context.route(f"**/{file}", lambda route: route.fulfill(body=html,
                                                                    content_type="text/html"))
        held, release = [], []

        def hold(route):
            if release:
                route.continue_()
            else:
                held.append(route)

        if phone:  # the theme's script answers only once the Contents button has been pressed
            context.route(THEME_SCRIPT, hold)
        pw_page = context.new_page()
        pw_page.add_init_script(THEME_PROBE_JS)
        # (a script held back holds the load event back too)
        pw_page.goto(f"{site}/{THEME_PAGE}", wait_until="commit")
        if phone:
            wait_until(pw_page, "() => window.mlnotesThemeProbe && window.mlnotesThemeProbe.asked",
                       timeout=60000, polling=100)
            pw_page.click(".secondary-toggle")
            release.append(True)
            for route in held:
                route.continue_()
            if not wait_until(pw_page, "() => document.querySelector("
                              "'#pst-secondary-sidebar-modal[open]')", timeout=10000,
                              polling=100):
                problems.append("the Contents button pressed before the theme's script came "
                                "opened no drawer")
            pw_page.keyboard.press("Escape")
        if not wait_until(pw_page, "() => document.documentElement.dataset.mlnotesLaidOut",
                          timeout=60000, polling=100):
            problems.append("the page never finished its page-wide marks")
        if not wait_until(pw_page, "() => document.documentElement.dataset.mlnotesTheme",
                          timeout=20000, polling=100):
            problems.append("the theme's script never ran")
        found = pw_page.evaluate(THEME_END_JS)
    finally:
        context.close()
    if found["firstFrameTheme"] != "dark":
        problems.append(f"data-theme at the first frame: {found['firstFrameTheme']!r}, not the "
                        "system's 'dark'")
    asked, said = found["asked"], found["said"]
    if asked and (said is None or asked["at"] < said):
        problems.append(f"the theme's script asked for at {asked['at'] / 1000:.2f} s, before the "
                        f"first screen's maths was done ({said})")
    end = found["end"]
    if found["paint"] and abs(found["paint"]["article"] - end["article"]) > 0.5:
        problems.append(f"the article column {found['paint']['article']:.1f} px wide at the "
                        f"first paint, {end['article']:.1f} px at the end")
    if asked:
        if len(asked["boxes"]) != len(end["boxes"]):
            problems.append(f"{len(asked['boxes'])} code boxes before the theme's script, "
                            f"{len(end['boxes'])} after it")
        moved = [(a, b) for a, b in zip(asked["boxes"], end["boxes"], strict=False)
                 if abs(a - b) > 0.5]
        if moved:
            problems.append(f"{len(moved)} code boxes changed width when the theme's script ran "
                            f"(e.g. {moved[:2]})")
    if found["farTabStops"]:
        problems.append(f"{found['farTabStops']} code blocks far from the screen got a tab stop "
                        "(the theme's tab-stop pass ran)")
    return problems


@pytest.mark.parametrize("width", [390, 1366])
def test_theme_script_runs_after_the_first_screen_and_moves_nothing(width, site, browser):
    """The theme's script runs after the first screen's maths without changing what the first
    paint showed (above), on a phone and a laptop, in the system's dark mode; mutants:
    ``test_theme_late_check_fails_its_mutants``."""
    problems = _theme_late_problems(browser, site, width)
    assert not problems, f"{THEME_PAGE} at {width} px:\n  " + "\n  ".join(problems)


# (static file, (find, replace)) or (None, (find, replace) in the page), the width
THEME_LATE_MUTANTS = [
    # the page's head does not resolve the mode: the first paint has no colour mode, and the
    # theme's script changes the code boxes' width (5 px on t-SNE's) when it sets it
    (None, ('<script data-mlnotes-mode="">', '<script data-mlnotes-mode="" type="text/plain">'),
     1366),
    # the theme's script loaded at once, before the first screen's maths
    ("mlnotes.js", ("mlnotesThemeEarlyPresses();\n", "mlnotesThemeEarlyPresses();\nmlnotesLoadTheme();\n"),
     1366),
    # the theme's tab-stop pass let through
    ("mlnotes.js", ("if (selectors === MLNOTES_THEME_TAB_STOPS) {", "if (false) {"), 1366),
    # a press made before the theme's script came is lost
    ("mlnotes.js", ("mlnotesThemeEarlyPresses();\n", "\n"), 390),
]


@pytest.mark.skipif(not os.environ.get("MLNOTES_FIRST_SCREEN_MUTANTS"),
                    reason="the mutants cost a minute of CPU: MLNOTES_FIRST_SCREEN_MUTANTS=1")
@pytest.mark.parametrize("static, mutant, width", THEME_LATE_MUTANTS)
def test_theme_late_check_fails_its_mutants(static, mutant, width, site, browser):
    """Each of ``THEME_LATE_MUTANTS`` fails the check of
    ``test_theme_script_runs_after_the_first_screen_and_moves_nothing`` (run on demand)."""
    problems = _theme_late_problems(browser, site, width, mutant=(static, mutant) if static else None,
                                    page_mutant=None if static else mutant)
    assert problems, f"the theme-late check passed a mutant: {mutant[1]}"
