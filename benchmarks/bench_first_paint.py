"""Maths at first paint on a slow phone (issue 32): navigation start -> the first screen's maths.

One command, on a built book (``jupyter-book build .`` writes ``_build/html``)::

    .venv/bin/python benchmarks/bench_first_paint.py [--html _build/html] [--runs 3] [PAGE ...]
    .venv/bin/python benchmarks/bench_first_paint.py --compare lazy=DIR --compare top=_build/html [PAGE ...]
    .venv/bin/python benchmarks/bench_first_paint.py --toc --sample 2 --runs 1
    .venv/bin/python benchmarks/bench_first_paint.py --scripts --compare a=DIR --compare b=DIR PAGE#id

The last measures links into every page of the book with maths: each page at its top, at the
place a link lands on the most maths, and at 2 more link targets spread over the page
(sections, equation labels, statements, the API's entries and module anchors: ``--sample K``).

Headless Chromium (Debian's, as the browser tests use) loads each page at a phone's size
(390 x 844 CSS px, device pixel ratio 3, touch) with the CPU slowed down four times
(``Emulation.setCPUThrottlingRate``, rate 4: Chrome's "mid-tier mobile") and a fresh cache,
from a local server. Per run it records, from the start of navigation:

* ``maths``: every formula in the first viewport typeset (it holds MathJax's output) and the web
  fonts it uses loaded (``document.fonts.status``): the first screen's maths is readable; a first
  screen that shows no formula (the tops of the t-SNE and API pages) is reported as such, and
  measured by its DOMContentLoaded, load and CPU (to the load event);
* ``fcp``: the first contentful paint; ``dcl`` and ``load``: the DOMContentLoaded and load events;
* ``cpu``: the page's main-thread CPU time from navigation start (``Performance.getMetrics``,
  ``ThreadTime``), which the machine's load moves much less than the wall clock, read once
  ``maths`` is seen: an upper bound, which may include part of the next batch of formulas;
* how many formulas the first viewport holds, and how many of the page's formulas were typeset
  by then (the first batch).

Without page arguments it measures the heaviest pages of the table of contents: the one with the
most display and inline formulas, the one with the largest HTML and the one that weighs the most
as served with all its figures (each once), each opened at its top and at the place a link lands
on the most maths (the section, statement or equation below which one phone screen holds the most
formulas: the first screen of a page's top often holds none). It prints the median of ``--runs``
runs (and the range) per page, against the target of 3 s, as a table, then a summary naming the
heaviest pages, the slowest first screen of maths against the target, and the machine's load
during the runs; the table goes to ``benchmarks/results-first-paint.md``. The times are
wall-clock times: on a shared machine they follow its load; the target is judged on a quiet machine.

What the page does about it (issue 32): the explorers' data is not in the page's HTML (the
build moves it to ``_static/explorer-data/``, loaded when an explorer comes near the screen:
book/_ext/explorers.py); code cells and the API's entries are laid out only near the screen
(``content-visibility: auto``, book/_static/mlnotes.css and apidocs.css: a whole-page layout was
the largest item of a trace, before the first paint and again after each batch of formulas), and
so are the text blocks of a page typeset lazily; the page-wide marks of mlnotes.js (scroll cues
and tab stops, wide formulas, figures) wait until the first screen's maths is drawn, and the
theme's own tab stops (which measured every code block, 1.0-1.7 s of the main thread at 4x)
are not made, and the theme's script itself (pydata-sphinx-theme.js) runs after the first
screen's maths, the colour mode set in the page's head (book/_ext/surface.py); MathJax
typesets only the formulas near the screen (book/_static/mlnotes-mathjax.js); by default every
formula is typeset at build time (book/_ext/prerender.py, ``MLNOTES_PRERENDER_MATHS=island``):
each page's first screens in place, the others in the page's island, a JSON text the page puts
in place as the formulas come near the screen, with no MathJax loaded before the first screen's
maths (``=top`` the first screens only, the rest typeset by MathJax in the page; ``=1`` every
formula in place, which measured slower on the heaviest pages; ``=0`` none:
book/_static/mathjax4/README.md).
Two builds are compared with ``--compare lazy=DIR --compare top=DIR``: every case is measured in each in
turn, run after run, so both see the same load; the table gives the medians side by side and the
machine's load average over the runs. The check below reads the formulas on the screen from an
IntersectionObserver, reads nothing while the page is parsed, and looks again only when a
formula has been typeset, a font has loaded or the observer has reported since its last look:
a check that measured every formula on every frame forced the layout of every part of the page
laid out only near the screen, and was most of the main thread's time it reported (5.8 of 13 s
at a link into the API page).

``--scripts`` traces each load instead (``script_costs``): the main thread's time evaluating
each script before the first screen's maths, per build, which shows what a change to the
page's scripts moved (the CPU column above moves with the machine's load by more than a
script's cost).

``rows()`` gives the same medians to ``benchmarks/run.py`` (``make bench``) when
``MLNOTES_BENCH_FIRST_PAINT=1`` is set and a built book and Chromium are there.
"""

import argparse
import contextlib
import gzip
import json
import os
import pathlib
import re
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser_support import TYPESET_ALL, launch_chromium, serve_directory, toc_files  # noqa: E402

TARGET_S = 3.0
CPU_SLOWDOWN = 4
RATE = [CPU_SLOWDOWN]  # --rate: another slowdown, to see where the time goes
VIEWPORT = {"width": 390, "height": 844}
DEVICE_SCALE = 3
RUNS = 3
# the heaviest pages by measure, for the summary: {"formulas" | "html" | "served": (page, n)}
HEAVIEST: dict[str, tuple[str, int]] = {}
TIMEOUT_MS = 120_000
# How the time is taken: the page checks FIRST_SCREEN_JS in an animation-frame callback, just
# before each frame is drawn, and keeps the first frame's time at which it holds (a check run
# from a timer would wait behind the page's next long task, e.g. the batch of formulas below the
# screen, and report when that ends, not when the screen was drawn).
WATCH_JS = """
window.mlnotesFirstScreen = null;
(function () {
  const check = CHECK;
  // The formulas intersecting the screen are kept by an IntersectionObserver, computed with
  // the page's own rendering (no forced layout): measuring every formula's box at each check
  // forced the layout of every part of the page not yet laid out (content-visibility: auto),
  // up to 5.8 s of the 13 s of main-thread time counted on the API page.
  window.mlnotesOnScreen = new Set();
  window.mlnotesOnScreenVersion = 0;
  const seen = (entries) => {
    for (const e of entries) {
      if (e.isIntersecting) window.mlnotesOnScreen.add(e.target);
      else window.mlnotesOnScreen.delete(e.target);
    }
    window.mlnotesOnScreenVersion += 1;
  };
  const io = new IntersectionObserver(seen);
  let observed = false;
  let lastScroll = null;
  const tick = () => {
    // nothing is read while the page is parsed (scrollY alone forces a layout)
    if (document.readyState === 'loading') { requestAnimationFrame(tick); return; }
    if (!observed) {
      document.querySelectorAll('.bd-article .math').forEach((e) => io.observe(e));
      observed = true;
    }
    const records = io.takeRecords();
    if (records.length) seen(records);
    // the observer's view is a frame old: not judged on a frame in which the page scrolled
    const still = observed && scrollY === lastScroll;
    lastScroll = scrollY;
    const found = still && check(ANCHOR);
    if (found) window.mlnotesFirstScreen = found; else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""
RESULTS = ROOT / "benchmarks" / "results-first-paint.md"

# True (with the time) once every formula in the first viewport that a reader could see holds
# MathJax's output and no web font is still loading; checked by the page on each animation frame.
FIRST_SCREEN_JS = r"""
(anchor) => {
  if (!document.body || document.readyState === 'loading') return false;
  // the geometry below forces a layout: checked only when a formula has been typeset or a font
  // has loaded since the last check (a check on every frame cost up to 0.8 s of the page's main
  // thread, which the page's own work then waited for)
  const typeset = document.getElementsByTagName('mjx-math').length;
  // a page typeset at build time holds its formulas from the start: its state changes with the
  // page's (readyState, the fonts, the scroll) and every half second (layout goes on)
  const state = typeset + '/' + document.fonts.status + '/' + scrollY + '/' + document.readyState
    + '/' + window.mlnotesOnScreenVersion
    + '/' + Math.floor(performance.now() / 500);
  const loaded = document.readyState === 'complete';
  if ((!typeset && !loaded) || state === window.mlnotesFirstScreenState) return false;
  window.mlnotesFirstScreenState = state;
  if (anchor) {  // a link into the page: the browser has scrolled to its target
    const target = document.getElementById(anchor);
    if (!target) return false;
    const top = target.getBoundingClientRect().top;
    if (top < -50 || top > 100) return false;
  }
  const shown = Array.from(window.mlnotesOnScreen).filter(e => {
    const r = e.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
  }).filter(e => e.checkVisibility({visibilityProperty: true, opacityProperty: true}));
  // no formula on the first screen: nothing to wait for once the page has loaded (its
  // DOMContentLoaded, load and CPU are the measure then) and the observer has seen it settle,
  // half a second on (a page whose load event comes early, its maths typeset at build time,
  // was read as the observer first reported, its blocks not yet laid out near the screen
  // (content-visibility): its screen full of formulas counted none)
  if (!shown.length) {
    const nav = performance.getEntriesByType('navigation')[0];
    const settled = loaded && window.mlnotesOnScreenVersion > 0 && nav.loadEventEnd > 0
      && performance.now() - nav.loadEventEnd > 500;
    return settled ? {t: null, shown: 0, typeset, formulas: 0} : false;
  }
  if (shown.some(e => !e.querySelector('mjx-math'))) return false;
  if (document.fonts.status !== 'loaded') return false;
  return {t: performance.now() / 1000, shown: shown.length,
          typeset: document.querySelectorAll('.bd-article .math mjx-math').length,
          formulas: document.querySelectorAll('.bd-article .math').length};
}
"""
TIMING_JS = r"""
() => {
  const n = performance.getEntriesByType('navigation')[0];
  const p = performance.getEntriesByName('first-contentful-paint')[0];
  const mark = (name) => { const m = performance.getEntriesByName(name)[0];
                           return m ? m.startTime / 1000 : null; };
  return {fcp: p ? p.startTime / 1000 : null, dcl: n.domContentLoadedEventEnd / 1000,
          load: n.loadEventEnd / 1000, mathjax: mark('mlnotes-typeset-start'),
          batch: mark('mlnotes-typeset-end')};
}
"""


def toc_pages(html):
    """The built pages of ``_toc.yml``, relative to ``html``."""
    files = toc_files()
    return [f"{f}.html" for f in files if (html / f"{f}.html").is_file()]


def served_weight(html, page):
    """Bytes ``page`` weighs as served with all its figures: its HTML gzipped (as a web server
    sends it) and the images it shows (PNG, loaded as the reader scrolls to them)."""
    path = html / page
    text = path.read_text()
    images = {src for src in re.findall(r'<img[^>]*\ssrc="([^"]+)"', text)
              if not src.startswith(("data:", "http"))}
    return len(gzip.compress(path.read_bytes(), 6)) + sum(
        (path.parent / src).stat().st_size for src in images if (path.parent / src).is_file())


def heaviest_pages(html):
    """The page with the most formulas, the page with the largest HTML and the page heaviest
    as served with its figures (``served_weight``); each once."""
    pages = toc_pages(html)
    formulas = {p: len(re.findall(r'class="math[ "]', (html / p).read_text())) for p in pages}
    size = {p: ((html / p).stat().st_size, len(gzip.compress((html / p).read_bytes(), 6)))
            for p in pages}
    most = max(pages, key=formulas.get)
    largest = max(pages, key=lambda p: size[p][0])
    weight = {p: served_weight(html, p) for p in pages}
    heaviest = max(pages, key=weight.get)
    HEAVIEST.clear()
    HEAVIEST.update({"formulas": (most, formulas[most]), "html": (largest, size[largest][0]),
                     "served": (heaviest, weight[heaviest])})
    return list(dict.fromkeys([most, largest, heaviest])), formulas, size


# The element (a section, a statement, a numbered equation) below which one phone screen holds
# the most formulas, with every formula typeset: where a link into the page lands on the most
# maths (the first screen of a page's top often holds none).
DENSEST_JS = r"""
(height) => {
  const maths = Array.from(document.querySelectorAll('.bd-article .math'))
    .filter(e => e.checkVisibility())
    .map(e => e.getBoundingClientRect().top + scrollY);
  const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id);
  const unique = (id) => ids.indexOf(id) === ids.lastIndexOf(id);
  let best = null, most = 0;
  for (const el of document.querySelectorAll(
      '.bd-article section[id], .bd-article div.proof[id], .bd-article div.math[id]')) {
    if (!unique(el.id) || !el.checkVisibility()) continue;
    const top = el.getBoundingClientRect().top + scrollY;
    const n = maths.filter(t => t >= top && t < top + height).length;
    if (n > most) { most = n; best = el.id; }
  }
  return {anchor: best, most, top: maths.filter(t => t < height).length};
}
"""


# The places a link can land on (sections, equation labels, statements, the API's entries and
# module anchors), in page order, with a formula within a phone's screen below them: a sample
# of them (``--sample K``: K per page, spread evenly over the page) checks the first screen's
# maths at link targets as a class, not only at the densest one.
TARGETS_JS = r"""
(height) => {
  const maths = Array.from(document.querySelectorAll('.bd-article .math'))
    .filter(e => e.checkVisibility())
    .map(e => e.getBoundingClientRect().top + scrollY);
  const seen = new Set(), out = [];
  for (const el of document.querySelectorAll(
      '.bd-article section[id], .bd-article div.math[id], .bd-article div.proof[id], '
      + '.bd-article dt[id], .bd-article span[id^="module-"], .bd-article div[id^="equation-"]')) {
    if (seen.has(el.id) || document.querySelectorAll(`[id="${CSS.escape(el.id)}"]`).length > 1) continue;
    seen.add(el.id);
    if (!el.checkVisibility()) continue;
    const top = el.getBoundingClientRect().top + scrollY;
    if (top < height) continue;  // the page's own first screen
    if (maths.some(t => t >= top && t < top + height)) out.push(el.id);
  }
  return out;
}
"""


def _evaluate_typeset(browser, url, script):
    """``script`` (called with the phone's screen height) evaluated on ``url`` opened on a phone
    with every formula typeset."""
    context = browser.new_context(viewport=VIEWPORT, is_mobile=True, has_touch=True)
    try:
        context.add_init_script(TYPESET_ALL)
        page = context.new_page()
        page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_function("() => !document.documentElement.classList.contains("
                               "'mlnotes-maths-pending')", timeout=TIMEOUT_MS)
        return page.evaluate(script, VIEWPORT["height"])
    finally:
        context.close()


def sampled_anchors(browser, url, k):
    """``k`` link targets of ``url`` (TARGETS_JS), spread evenly over the page's order."""
    ids = _evaluate_typeset(browser, url, TARGETS_JS)
    if len(ids) <= k:
        return ids
    return [ids[round((i + 1) * len(ids) / (k + 1)) - 1] for i in range(k)]


def densest_anchor(browser, url):
    """The id on ``url`` below which a phone's screen holds the most formulas (all typeset),
    their number, and the number on the page's first screen."""
    return _evaluate_typeset(browser, url, DENSEST_JS)


def measure(browser, url):
    """One load of ``url`` on a throttled phone: the times (s) from navigation start (a
    ``#fragment`` counts once the browser has scrolled to it)."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=DEVICE_SCALE,
                                  is_mobile=True, has_touch=True)
    try:
        anchor = url.partition("#")[2] or None
        context.add_init_script(WATCH_JS.replace("CHECK", FIRST_SCREEN_JS.strip())
                                .replace("ANCHOR", json.dumps(anchor)))
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": RATE[0]})

        def thread_time():
            return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]
                        if m["name"] == "ThreadTime")

        start = thread_time()
        page.goto(url, wait_until="commit")
        done = page.wait_for_function("() => window.mlnotesFirstScreen", polling=100,
                                      timeout=TIMEOUT_MS).json_value()
        cpu = thread_time() - start
        page.wait_for_load_state("load", timeout=TIMEOUT_MS)
        timing = page.evaluate(TIMING_JS)
        # maths: None when the first screen shows no formula (then cpu runs to the load event)
        return {"maths": done["t"], "cpu": cpu, "shown": done["shown"],
                "typeset": done["typeset"], "formulas": done["formulas"], **timing}
    finally:
        context.close()


TRACE_CATEGORIES = ["devtools.timeline", "blink.user_timing", "toplevel", "__metadata"]
# the row of ``scripts_table`` with the main thread's tasks, all of them (not a script)
BUSY = "main thread, every task"


def script_costs(browser, url):
    """One load of ``url`` on the throttled phone, traced (CDP ``devtools.timeline``): the main
    thread's time (ms, the trace's thread time) evaluating each script from navigation start to
    the first screen's maths (the mark ``mlnotes-typeset-end``), by file ("inline" for the
    page's own), and under ``BUSY`` the thread time of every task the main thread ran by then
    (scripts, style, layout, parsing: the CPU to the page's own word, which a CPU read polled
    after the fact overshoots by the work just after it). Which scripts run before the maths
    and what each costs; the trace inflates them all a little (compare builds, not seconds)."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=DEVICE_SCALE,
                                  is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": RATE[0]})
        browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => performance.getEntriesByName('mlnotes-typeset-end')"
                               ".length", polling=200, timeout=TIMEOUT_MS)
        events = json.loads(browser.stop_tracing())["traceEvents"]
    finally:
        context.close()
    end = next(e for e in events if e.get("name") == "mlnotes-typeset-end")
    start = min(e["ts"] for e in events
                if e.get("name") == "navigationStart" and e["pid"] == end["pid"])
    costs: dict[str, float] = {}
    for e in events:
        if (e.get("name") == "EvaluateScript" and e["pid"] == end["pid"]
                and start <= e["ts"] < end["ts"]):
            src = e.get("args", {}).get("data", {}).get("url", "")
            name = src.split("?")[0].rsplit("/", 1)[-1] or "inline"
            if name.endswith(".html"):
                name = "inline"
            costs[name] = costs.get(name, 0.0) + e.get("tdur", e.get("dur", 0)) / 1e3
    main = {e["tid"] for e in events if e.get("name") == "thread_name" and e["pid"] == end["pid"]
            and e.get("args", {}).get("name") == "CrRendererMain"}
    tasks = sorted((e["ts"], e["ts"] + e.get("dur", 0), e.get("tdur", e.get("dur", 0)))
                   for e in events if e.get("name") == "ThreadControllerImpl::RunTask"
                   and e.get("ph") == "X" and e["pid"] == end["pid"] and e["tid"] in main
                   and start <= e["ts"] < end["ts"])
    busy, outer_end = 0.0, -1.0
    for ts, finish, thread in tasks:
        if ts >= outer_end:  # a task nested in another (a nested run loop) counts once
            busy += thread
            outer_end = finish
    costs[BUSY] = busy / 1e3
    return costs


def scripts_table(builds, pages, runs, echo=print):
    """Median ``script_costs`` per page, script and build (interleaved run by run)."""
    found: dict = {label: {page: [] for page in pages} for label in builds}
    with contextlib.ExitStack() as stack:
        bases = {label: stack.enter_context(serve_directory(pathlib.Path(path).resolve()))
                 for label, path in builds.items()}
        browser = stack.enter_context(launch_chromium())
        for k in range(runs):
            for page in pages:
                for label, base in bases.items():
                    costs = script_costs(browser, f"{base}/{page}")
                    found[label][page].append(costs)
                    scripts = sum(v for n, v in costs.items() if n != BUSY)
                    echo(f"  [{label}] {page} run {k + 1}: {scripts:.0f} ms of scripts, "
                         f"{costs[BUSY]:.0f} ms of main-thread tasks before the maths, "
                         f"load average {os.getloadavg()[0]:.1f}")
    labels = list(builds)
    lines = ["| page | script | " + " | ".join(f"{label} ms" for label in labels) + " |",
             "|---|---|" + "---:|" * len(labels)]
    for page in pages:
        names = sorted({n for label in labels for c in found[label][page] for n in c} - {BUSY},
                       key=lambda n: -max(statistics.median(c.get(n, 0.0) for c in
                                                            found[label][page])
                                          for label in labels))
        rows = [(BUSY, [statistics.median(c[BUSY] for c in found[label][page])
                        for label in labels]),
                ("all scripts", [statistics.median(sum(v for n, v in c.items() if n != BUSY)
                                                   for c in found[label][page])
                                 for label in labels])]
        rows += [(n, [statistics.median(c.get(n, 0.0) for c in found[label][page])
                      for label in labels]) for n in names]
        for i, (name, values) in enumerate(rows):
            if name not in (BUSY, "all scripts") and max(values) < 2:
                continue
            lines.append(f"| {page if i == 0 else ''} | {name} | "
                         + " | ".join(f"{v:.0f}" for v in values) + " |")
    lines.append(f"\nMain-thread time (CDP trace, thread time) of every task, and evaluating "
                 f"each script, from navigation start to the first screen's maths (the mark "
                 f"mlnotes-typeset-end), CPU slowed {RATE[0]:g}x, "
                 f"medians of {runs} runs per page and build, interleaved.")
    return "\n".join(lines)


def _cases(browser, base, pages, echo, sample=0):
    """Each page at its top, and (for a page's top, not given with a ``#``) at the place a link
    lands on the most maths, and at ``sample`` other link targets spread over it."""
    densest_anchor(browser, f"{base}/{pages[0].split('#')[0]}")  # warm up: the server, the browser
    cases = []
    for page in pages:
        cases.append(page)
        if "#" in page:
            continue
        found = densest_anchor(browser, f"{base}/{page}")
        if not found["top"]:
            echo(f"  {page}: no formula on its first screen (DOMContentLoaded, load and CPU "
                 "measured there); also measured at a link into it")
        if found["anchor"]:
            cases.append(f"{page}#{found['anchor']}")
        if sample:
            cases.extend(f"{page}#{a}" for a in sampled_anchors(browser, f"{base}/{page}", sample)
                         if f"{page}#{a}" not in cases)
    return cases


def _echo_sample(echo, label, page, k, s):
    nan = float("nan")
    maths = "no formula on the first screen" if s["maths"] is None else f"maths {s['maths']:.2f} s"
    echo(f"  [{label}] {page} run {k + 1}: {maths}, cpu {s['cpu']:.2f} s, "
         f"fcp {s['fcp'] or nan:.2f} s, dcl {s['dcl']:.2f} s, "
         f"MathJax ready {s['mathjax'] or nan:.2f} s, first batch "
         f"{s['batch'] or nan:.2f} s, load {s['load']:.2f} s, load average {s['loadavg']:.1f}")


def run(html, pages=None, runs=RUNS, echo=print, sample=0):
    """Measure ``pages`` (default: the heaviest) ``runs`` times each; the per-page samples.
    ``html`` is a built book's HTML folder, or a dict of them by label (e.g. lazy and
    first-screens builds): then every case is measured in each build in turn, round after
    round (interleaved: each build sees the same load); the samples by label. ``sample``: that
    many more link targets per page given without a ``#`` (``sampled_anchors``)."""
    builds = html if isinstance(html, dict) else {"": html}
    builds = {label: pathlib.Path(path).resolve() for label, path in builds.items()}
    first = next(iter(builds.values()))
    chosen, formulas, size = heaviest_pages(first)
    pages = pages or chosen
    results = {label: {} for label in builds}
    with contextlib.ExitStack() as stack:
        bases = {label: stack.enter_context(serve_directory(path))
                 for label, path in builds.items()}
        browser = stack.enter_context(launch_chromium())
        cases = _cases(browser, bases[next(iter(builds))], pages, echo, sample)
        for k in range(runs):
            for page in cases:
                for label, base in bases.items():
                    sample = measure(browser, f"{base}/{page}")
                    sample["loadavg"] = os.getloadavg()[0]
                    results[label].setdefault(page, []).append(sample)
                    _echo_sample(echo, label, page, k, sample)
    return (results if isinstance(html, dict) else results[""]), formulas, size


def table(results, formulas, size):
    """The Markdown table of the medians (and ranges) per page."""
    med = statistics.median
    lines = [f"| page | formulas | HTML kB as served (gzip / raw) | "
             f"first screen: formulas (typeset by then) | "
             f"maths s (median, range) | main-thread CPU s | FCP s | DOMContentLoaded s | "
             f"MathJax starts s | first batch done s | load s | target {TARGET_S:.0f} s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    nan = float("nan")
    for page, samples in results.items():
        maths = [s["maths"] for s in samples if s["maths"] is not None]
        fcp = [s["fcp"] for s in samples if s["fcp"] is not None]
        file = page.split("#")[0]
        if maths:
            shown = (f"{samples[0]['shown']} ({med(s['typeset'] for s in samples):.0f})")
            timed = f"{med(maths):.2f} ({min(maths):.2f}–{max(maths):.2f})"
            verdict = "met" if med(maths) <= TARGET_S else "NOT met"
        else:  # the first screen shows no formula: the page's own times are the measure
            shown, timed, verdict = "0", "no formula on the first screen", "-"
        lines.append(
            f"| {page} | {formulas.get(file, '?')} | {size.get(file, (0, 0))[1] / 1e3:.0f} / "
            f"{size.get(file, (0, 0))[0] / 1e3:.0f} | {shown} | {timed} | "
            f"{med(s['cpu'] for s in samples):.2f} | {med(fcp) if fcp else nan:.2f} | "
            f"{med(s['dcl'] for s in samples):.2f} | "
            f"{med(s['mathjax'] or nan for s in samples):.2f} | "
            f"{med(s['batch'] or nan for s in samples):.2f} | "
            f"{med(s['load'] for s in samples):.2f} | {verdict} |")
    lines.append(f"\n390 x 844 px, DPR {DEVICE_SCALE}, CPU slowed {RATE[0]:g}x "
                 f"(Emulation.setCPUThrottlingRate), cache disabled, local server; "
                 f"{len(next(iter(results.values())))} runs per page; times from navigation "
                 f"start, wall clock (quiet machine for the target). The main-thread CPU runs "
                 f"to the first screen's maths, or to the load event where the first screen "
                 f"shows no formula.")
    return "\n".join(lines)


def summary(results):
    """A few lines naming the heaviest pages and the slowest first screen of maths."""
    lines = []
    if HEAVIEST:
        (most, n), (largest, raw), (heaviest, weight) = (
            HEAVIEST[k] for k in ("formulas", "html", "served"))
        lines.append(f"Heaviest pages: {most} has the most formulas ({n}); {largest} the largest "
                     f"HTML ({raw / 1e3:.0f} kB raw); {heaviest} weighs the most as served with "
                     f"all its figures ({weight / 1e6:.2f} MB, HTML gzipped).")
    timed = {page: statistics.median(s["maths"] for s in samples)
             for page, samples in results.items()
             if all(s["maths"] is not None for s in samples)}
    if timed:
        worst = max(timed, key=timed.get)
        verdict = "met" if timed[worst] <= TARGET_S else "NOT met"
        lines.append(f"Slowest first screen of maths: {worst}, median {timed[worst]:.2f} s from "
                     f"navigation start at {RATE[0]:g}x CPU slowdown: target {TARGET_S:.0f} s "
                     f"{verdict}.")
    loads = [s["loadavg"] for v in results.values() for s in v]
    lines.append(f"Load average (1 min) during the runs: {min(loads):.1f}-{max(loads):.1f} "
                 "(judge the target on a quiet machine: below 1).")
    return "\n".join(lines)


COMPARED = [("first screen's maths", "maths"), ("DOMContentLoaded", "dcl"), ("load", "load"),
            ("main-thread CPU to the maths (or to load)", "cpu")]


def compare_table(results):
    """The Markdown table of the medians per page and measure, one column per build (the
    builds' labels as ``results``' keys), and the machine's load average over the runs."""
    med = statistics.median
    labels = list(results)
    lines = ["| page | measure | " + " | ".join(labels) + " |",
             "|---|---|" + "---:|" * len(labels)]
    for page in results[labels[0]]:
        name = page
        for title, key in COMPARED:
            cells = []
            for label in labels:
                values = [s[key] for s in results[label][page] if s[key] is not None]
                if key == "maths" and not values:
                    cells.append("no formula on the first screen")
                else:
                    cells.append(f"{med(values):.2f} s ({min(values):.2f}–{max(values):.2f})")
            if key == "maths" and all(c.startswith("no formula") for c in cells):
                cells = ["no formula on the first screen"] * len(cells)
            lines.append(f"| {name} | {title} | " + " | ".join(cells) + " |")
            name = ""
    loads = [s["loadavg"] for r in results.values() for v in r.values() for s in v]
    runs = len(next(iter(results[labels[0]].values())))
    lines.append(f"\n390 x 844 px, DPR {DEVICE_SCALE}, CPU slowed {RATE[0]:g}x "
                 f"(Emulation.setCPUThrottlingRate), cache disabled, local servers; medians "
                 f"(range) of {runs} runs per page and build, the builds interleaved run by run; "
                 f"wall-clock times from navigation start. Load average (1 min) during the runs "
                 f"{min(loads):.1f}–{max(loads):.1f} on a shared 2-core machine: the absolute "
                 f"times follow its load, the columns compare.")
    return "\n".join(lines)


def rows():
    """``benchmarks/run.py``'s rows: the median time to the first screen's maths per page (with
    ``MLNOTES_BENCH_FIRST_PAINT=1``: a browser's wall-clock times, a few minutes)."""
    html = ROOT / "_build" / "html"
    if not os.environ.get("MLNOTES_BENCH_FIRST_PAINT"):
        print("bench_first_paint: skipped (MLNOTES_BENCH_FIRST_PAINT=1 runs it; or run "
              "benchmarks/bench_first_paint.py itself)")
        return
    if not (html / "index.html").exists():
        print("bench_first_paint: no built book in _build/html (jupyter-book build .): skipped")
        return
    results, _, _ = run(html, echo=lambda *a: None)
    for page, samples in results.items():
        if any(s["maths"] is None for s in samples):
            continue  # no formula on its first screen
        yield {"case": f"first screen's maths, phone 4x slower: {page}",
               "n": samples[0]["formulas"], "mlnotes_s": statistics.median(
                   s["maths"] for s in samples), "sklearn_s": None,
               "target": f"< {TARGET_S:.0f} s (wall clock, quiet machine)"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages relative to the HTML folder "
                        "(default: the heaviest of the table of contents)")
    parser.add_argument("--html", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--compare", action="append", metavar="LABEL=HTML",
                        help="a build to compare, once per build (--compare "
                             "lazy=/tmp/lazy/_build/html --compare top=_build/html): measured "
                             "interleaved, one column each")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--sample", type=int, default=0, metavar="K",
                        help="also K link targets per page (sections, equations, statements, "
                             "API entries) spread over it; --toc: every page of the book")
    parser.add_argument("--toc", action="store_true",
                        help="every page of the table of contents that holds a formula")
    parser.add_argument("--scripts", action="store_true",
                        help="trace each load instead: the main thread's time evaluating each "
                             "script before the first screen's maths (pages given with #)")
    parser.add_argument("--rate", type=float, default=CPU_SLOWDOWN,
                        help="CPU slowdown (the target is judged at 4)")
    args = parser.parse_args(argv)
    RATE[0] = args.rate
    if args.sample < 0:
        parser.error("--sample takes a number of link targets per page, 0 or more")
    if args.toc:
        html = pathlib.Path(args.compare[0].split("=", 1)[1] if args.compare else args.html)
        args.pages = args.pages or [p for p in toc_pages(html)
                                    if 'class="math' in (html / p).read_text()]
    if args.compare and not all("=" in item for item in args.compare):
        parser.error("--compare takes LABEL=HTML (e.g. --compare top=_build/html)")
    if args.scripts:
        if not args.pages:
            parser.error("--scripts takes the pages to trace (e.g. book/api.html#module-mlnotes)")
        builds = (dict(item.split("=", 1) for item in args.compare) if args.compare
                  else {"build": args.html})
        print(scripts_table(builds, args.pages, args.runs))
        return
    if args.compare:
        builds = dict(item.split("=", 1) for item in args.compare)
        results, formulas, size = run(builds, args.pages or None, args.runs, sample=args.sample)
        text = compare_table(results)
    else:
        results, formulas, size = run(args.html, args.pages or None, args.runs,
                                      sample=args.sample)
        text = table(results, formulas, size)
    if not args.compare:
        text += "\n\n" + summary(results)
    print(text)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
