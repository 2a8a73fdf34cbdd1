"""Shared pieces of the browser tests: a local static server and a headless Chromium.

Chromium is Debian's (``/usr/bin/chromium``), driven by Playwright; Playwright's own browser
download is never used. Without Chromium the browser tests skip locally but fail when ``CI`` or
``MLNOTES_REQUIRE_BROWSER`` is set, so CI cannot pass by skipping them.
"""

import contextlib
import functools
import http.server
import os
import pathlib
import re
import shutil
import threading

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The built HTML book the browser tests read: `make book` writes _build/html; point
# MLNOTES_BOOK_HTML at another build (e.g. `jupyter-book build . --path-output /tmp/b` ->
# /tmp/b/_build/html) to test it without touching the shared _build.
BOOK_HTML = pathlib.Path(os.environ.get("MLNOTES_BOOK_HTML") or ROOT / "_build" / "html")
CHROMIUM = os.environ.get("MLNOTES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--disable-dev-shm-usage",
]

# Playwright's default for a page load (``goto``) is 30 s. ``make test`` runs the browser tests on
# three workers beside the second nbval pass, and on a loaded machine a page of the book took
# longer than 30 s to load; a slow load is not what these tests check (those that bound a time
# state their own), so every context gets this one. A page that never loads still fails.
NAVIGATION_TIMEOUT_MS = 90_000

# An init script for tests that measure a whole page: every formula is typeset at load instead
# of those near the screen (book/_static/mlnotes-mathjax.js), and every image loads at once
# (the book's images load lazily, book/_ext/surface.py): ``EAGER_IMAGES`` alone loads the images.
EAGER_IMAGES = """
new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(n => {
  if (n.tagName === 'IMG' && n.loading === 'lazy') n.loading = 'eager';
}))).observe(document, {childList: true, subtree: true});
"""
TYPESET_ALL = "localStorage.setItem('mlnotes-typeset', 'all');" + EAGER_IMAGES

# TeX source as a reader would see it: a control word (\lambda, \top), an inline delimiter
# \( \) \[ \], or a $...$ pair (the book's pages and the PDF's text are scanned with it).
# A page's island (book/_ext/prerender.py, MLNOTES_PRERENDER_MATHS=island): the typeset HTML
# of its formulas not in place, one JSON text at the end of its body
ISLAND_RE = re.compile(r'<script type="application/json" id="mlnotes-chtml">(.*?)</script>', re.S)
RAW_TEX = r"\\[A-Za-z]{2,}|\\[()\[\]]|\$[^$\s][^$]*\$|\$\$"


# Sphinx's search page has every result in and each one's snippet: its status line says the
# search is over ("Search finished", or no match), and each result holds its snippet (a
# paragraph .context) or its description (a <span>: a result that has no snippet). The status
# line alone says nothing of the snippets: searchtools.js writes it once the last result is
# listed, and each snippet comes later, when that result's page has been fetched (under load
# the status line was read with no snippet in).
SEARCH_DONE_JS = """() => {
  const status = (document.querySelector('#search-results .search-summary') || {}).textContent
    || '';
  if (/did not match/i.test(status)) return true;
  return /Search finished/i.test(status) && Array.from(document.querySelectorAll(
    '#search-results li')).every(li => li.querySelector(':scope > p.context, :scope > span'));
}"""


def toc_files():
    """The book's files in ``_toc.yml`` order (without suffix), from its root down."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key, []) or []:
                if "file" in child:
                    files.append(child["file"])
                walk(child)

    walk(toc)
    return files


def browser_required():
    return bool(os.environ.get("CI") or os.environ.get("MLNOTES_REQUIRE_BROWSER"))


def _unavailable(reason):
    if browser_required():
        pytest.fail(f"{reason} (required because CI / MLNOTES_REQUIRE_BROWSER is set; "
                    "install it with: apt-get install -y chromium)")
    pytest.skip(reason)


@contextlib.contextmanager
def launch_chromium():
    """Yield a Playwright ``Browser`` running headless system Chromium."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        new_context = browser.new_context

        def new_context_with_timeout(*args, **kwargs):
            context = new_context(*args, **kwargs)
            context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
            return context

        new_page = browser.new_page

        def new_page_with_timeout(*args, **kwargs):
            page = new_page(*args, **kwargs)  # in a context of its own
            page.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
            return page

        browser.new_context = new_context_with_timeout
        browser.new_page = new_page_with_timeout
        try:
            yield browser
        finally:
            browser.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve_directory(path):
    """Serve ``path`` on 127.0.0.1 (a free port) in a thread; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# How often a test that waits for a state change looks again (ms). Playwright's default looks at
# every animation frame, which makes the browser draw a frame each time: on a long page with every
# formula typeset (test_browser_book) each frame costs milliseconds of CPU, and on a loaded machine
# a wait of seconds cost a second of CPU.
POLL_MS = 100


# How much slower than the machine the tests were written on this one runs now (at least 1):
# the median of a few runs of a fixed piece of Python work, over its time on a quiet core here
# (``CALIBRATION_REFERENCE_S``: its CPU time on this machine's CPU, so a run here while the
# machine is loaded measures the load), measured at its first use and again each minute. A slower CPU or a
# loaded machine (CI's ran the browser phase 1.9x slower) makes it larger, together with every
# wait of the page's. It scales the time limits of the waits for a state the page reaches in
# normal operation (``scaled``), never a bound a check asserts. ``MLNOTES_TIME_SCALE`` sets it.
CALIBRATION_REFERENCE_S = 0.021
MAX_TIME_SCALE = 10.0


def _calibration_work():
    total = 0
    for k in range(360_000):
        total += k * k % 7
    return total


_SCALE = {"at": None, "value": 1.0}
# how long a measure of ``time_scale`` holds: a machine's load changes during a run
SCALE_HOLDS_S = 60.0


def time_scale():
    """The factor (1 to ``MAX_TIME_SCALE``) by which this machine is slower now than the quiet
    one the waits' limits were set on (see ``CALIBRATION_REFERENCE_S``), measured again when
    the last measure is older than ``SCALE_HOLDS_S`` (0.1 s of CPU a measure)."""
    import statistics
    import time

    if os.environ.get("MLNOTES_TIME_SCALE"):
        return max(1.0, float(os.environ["MLNOTES_TIME_SCALE"]))
    now = time.monotonic()
    if _SCALE["at"] is None or now - _SCALE["at"] > SCALE_HOLDS_S:
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            _calibration_work()
            runs.append(time.perf_counter() - start)
        _SCALE.update(at=now, value=min(MAX_TIME_SCALE, max(
            1.0, statistics.median(runs) / CALIBRATION_REFERENCE_S)))
    return _SCALE["value"]


def scaled(ms):
    """``ms``, a time limit for a state the page reaches in normal operation, on this machine
    now (``time_scale``)."""
    return ms * time_scale()


# What a page started by now (a click, a key, a change of mode) has drawn: the timers it set at
# once have run (0 ms timers run in the order they were set: Bootstrap shows a tooltip in one),
# two frames have been drawn, and every CSS transition or finite animation running then (a
# drawer sliding in, a tooltip or colours fading) has finished (its end, not a fixed pause: a
# slow machine draws fewer of its frames, never a shorter one), and the frame after it. An
# animation that never ends is let go after ``limit`` ms (a hang guard: the book's longest
# transition, the sidebar's slide, lasts 0.4 s).
AFTER_TRANSITIONS_JS = """async (limit) => {
  const task = () => new Promise(r => setTimeout(r, 0));
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const end = performance.now() + limit;
  await task(); await frame(); await frame();
  for (let round = 0; round < 5 && performance.now() < end; round += 1) {
    const running = document.getAnimations().filter(a => a.playState === 'running'
      && Number.isFinite(a.effect && a.effect.getComputedTiming().endTime));
    if (!running.length) return true;
    await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                        new Promise(r => setTimeout(r, Math.max(0, end - performance.now())))]);
    await task(); await frame();
  }
  return false;
}"""


def after_transitions(pw_page, limit=10_000):
    """Wait until what the page started by now has been drawn to its end
    (``AFTER_TRANSITIONS_JS``; ``limit`` ms, ``scaled`` for this machine, ends a wait for an
    animation that would never end); whether it was."""
    return pw_page.evaluate(AFTER_TRANSITIONS_JS, scaled(limit))


def wait_until(pw_page, expression, arg=None, timeout=10_000, polling="raf"):
    """Whether the JS ``expression`` (a function of ``arg``) becomes true within ``timeout`` ms
    (``scaled`` for this machine): a state change the test waits for, not a fixed pause.
    ``polling``: "raf" (every animation frame) or a period in ms (``POLL_MS``: far less CPU on
    a long page). The limit only ends a wait that would never end: it costs nothing while the
    state comes (the default, 10 s, is over 10 times what a click's effect takes here)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        pw_page.wait_for_function(expression, arg=arg, timeout=scaled(timeout), polling=polling)
        return True
    except PlaywrightTimeout:
        return False


def serve_mutant(context, static_name, *mutants):
    """Serve ``book/_static/<static_name>`` to ``context`` with each of ``mutants`` (find,
    replace) applied: a check of the page's script or style sheet shown to fail on the mutated
    file."""
    source = (ROOT / "book" / "_static" / static_name).read_text(encoding="utf-8")
    for mutant in mutants:
        assert mutant[0] in source, f"mutant {mutant[0]!r} not in {static_name}"
        source = source.replace(*mutant)
    kind = "text/css" if static_name.endswith(".css") else "text/javascript"
    context.route(f"**/_static/{static_name}*", lambda route: route.fulfill(
        body=source, content_type=kind))


# A page resized (or switched light <-> dark) re-lays itself out: book/_static/mlnotes.js marks
# scroll boxes and shrunk figures again 150 ms after the last resize event (and then records
# the width it marked for, ``data-mlnotes-laid-out-width`` on <html>), and mlnotes-mathjax.js
# typesets again the display formulas whose column changed (a ResizeObserver; MathJax may fetch
# a font), which says nothing when it is done. So the test waits for both: the marks made for
# the new width, then the page still for ``QUIET_MS``: no node added, removed or changed under
# <html>, no web font loading and no script the page added (MathJax's font ranges, its
# extensions) still on its way. (Waiting for stillness alone read a page whose marks were not
# yet made when a busy machine held mlnotes.js's 150 ms timer back past ``QUIET_MS``; a script
# MathJax waits for is a pause in the page's changes as long as the network and the server
# take, which a loaded machine can make longer than ``QUIET_MS``.)
QUIET_MS = 700
_WATCH_JS = """() => {
  window.mlnotesTestLastChange = performance.now();
  if (!window.mlnotesTestWatcher) {
    window.mlnotesTestScripts = 0;  // scripts added to the page and not yet loaded (or failed)
    const seen = new WeakSet();
    const watchScript = (n) => {
      if (n.nodeName !== 'SCRIPT' || !n.src || seen.has(n)
          || (n.type && !/javascript|module/.test(n.type))) return;  // one that never loads
      seen.add(n);
      window.mlnotesTestScripts += 1;
      const done = () => { window.mlnotesTestScripts -= 1;
                           window.mlnotesTestLastChange = performance.now(); };
      n.addEventListener('load', done, {once: true});
      n.addEventListener('error', done, {once: true});
    };
    window.mlnotesTestWatcher = new MutationObserver((records) => {
      window.mlnotesTestLastChange = performance.now();
      records.forEach(r => r.addedNodes.forEach(watchScript));
    });
    window.mlnotesTestWatcher.observe(document.documentElement,
      {childList: true, subtree: true, attributes: true, characterData: true});
  }
}"""
_STILL_JS = """([quiet, width]) => document.fonts.status === 'loaded'
  && window.mlnotesTestScripts === 0
  && (width === null || document.documentElement.dataset.mlnotesLaidOutWidth === String(width))
  && performance.now() - window.mlnotesTestLastChange > quiet"""


def settle(pw_page, change, timeout=30_000, width=None):
    """Run ``change`` (a function of no arguments: a resize, a theme switch), then wait until the
    page's own re-layout after it is over (``QUIET_MS`` without a change to the document; for a
    resize to ``width``, after mlnotes.js has marked the page for that width). ``timeout`` (ms,
    ``scaled`` for this machine) only ends a re-layout that never ends."""
    pw_page.evaluate(_WATCH_JS)
    change()
    pw_page.wait_for_function(_STILL_JS, arg=[QUIET_MS, width], timeout=scaled(timeout),
                              polling=100)


def resize(pw_page, width, height=900):
    """Give the page a viewport ``width`` px wide and wait until it has laid itself out again."""
    settle(pw_page, lambda: pw_page.set_viewport_size({"width": width, "height": height}),
           width=width)
