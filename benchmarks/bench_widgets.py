"""How long an explorer takes to redraw after a slider moves (target: well under 150 ms).

For each explorer at its default size, the main control is moved through its next few values
twice: the first pass computes each setting's cached steps (graph, distances, eigenproblem) as a
reader meets them ("first visit"), the second is the update proper (draw + PNG encoding, the
steps cached). For iterative methods the update is one replay frame; the optimisation runs once
per parameter set with a progress bar, and its time has its own row.

Times are the median CPU time of the process per update (``time.process_time``), the work
itself: on a shared machine wall-clock time adds however long the process waits for a core.
A setting seen before is sent from the explorer's kept PNGs (target 50 ms).

The last rows ("widget in JupyterLab") are measured where a reader meets the explorers: one
notebook of seven explorers in JupyterLab (started on a free port) in headless Chromium, each
slider moved with the keyboard; a row is the median wall-clock time from the key press to the
new picture loaded in the page, for new settings and for settings seen before; and how many of
a t-SNE replay's frames "play" shows. Wall-clock time: meaningful on a quiet machine only.

The static book's export (every held setting computed and encoded, as a chapter's explorer cell
does when the notebook runs) has one row per explorer, at the chapter's parameters, with the
size of the data the page carries (the budget is 1.5 MB per chapter page).
"""

import statistics
import time

import mlnotes.widgets as mw
from mlnotes.widgets._core import UPDATE_BUDGET_S
from mlnotes.widgets._static import DATA_BUDGET_BYTES

N_MOVES = 5
TARGET = f"< {UPDATE_BUDGET_S:.3f} s"
SEEN_BUDGET_S = 0.050  # a setting already seen, redrawn from the kept PNG


def _moves(explorer, name):
    """The next N_MOVES values of control ``name`` after its current one (wrapping around)."""
    values = next(c.values for c in explorer.controls if c.name == name)
    start = list(values).index(explorer.params[name]) if explorer.params[name] in values else -1
    return [values[(start + 1 + i) % len(values)] for i in range(min(N_MOVES, len(values) - 1))]


def _median_update(explorer, name, values):
    """Median CPU time of one update (``time.process_time``: the work itself, which on a shared
    machine wall-clock time overstates by the waiting for a core)."""
    times = []
    for value in values:
        start = time.process_time()
        explorer.render(**{name: value})
        times.append(time.process_time() - start)
    return statistics.median(times)


def _frames(explorer):
    n = explorer.n_frames(**explorer._run_params())
    return list(range(0, n, max(1, n // N_MOVES)))[:N_MOVES]


def rows():
    sliders = [
        ("pca", mw.pca_explorer, "angle", "n_samples"),
        ("mds", mw.mds_explorer, "dissimilarity", "n_samples"),
        ("kernel_pca", mw.kernel_pca_explorer, "gamma", "n_samples"),
        ("isomap", mw.isomap_explorer, "n_neighbors", "n_samples"),
        ("lle", mw.lle_explorer, "n_neighbors", "n_samples"),
        ("eigenmaps", mw.eigenmaps_explorer, "t", "n_samples"),
    ]
    for label, make, name, size in sliders:
        ex = make()
        moves = _moves(ex, name)
        first = _median_update(ex, name, moves)  # each setting computed for the first time
        seen = _median_update(ex, name, moves)  # the PNGs are kept: nothing is drawn
        ex._pngs.clear()  # drawn again, the steps cached
        yield {"case": f"widget: {label} update", "n": ex.params[size],
               "mlnotes_s": _median_update(ex, name, moves), "sklearn_s": None,
               "agreement": None, "target": TARGET}
        yield {"case": f"widget: {label} seen setting (kept PNG)", "n": ex.params[size],
               "mlnotes_s": seen, "sklearn_s": None, "agreement": None,
               "target": f"< {SEEN_BUDGET_S:.3f} s"}
        yield {"case": f"widget: {label} first visit of a setting ({name})",
               "n": ex.params[size], "mlnotes_s": first, "sklearn_s": None, "agreement": None,
               "target": "computed once, then cached"}
    replays = [
        ("smacof", mw.smacof_explorer, "init", "n_samples"),
        ("tsne", mw.tsne_explorer, "perplexity", "n_samples"),
        ("autoencoder", mw.autoencoder_explorer, "bottleneck", "n_samples"),
    ]
    for label, make, name, size in replays:
        ex = make()
        ex.render(frame=0)  # the run itself is timed below
        ex._pngs.clear()
        yield {"case": f"widget: {label} update", "n": ex.params[size],
               "mlnotes_s": _median_update(ex, "frame", _frames(ex)), "sklearn_s": None,
               "agreement": None, "target": TARGET}
        value = _moves(ex, name)[0]
        start = time.process_time()
        ex.n_frames(**{**ex._run_params(), name: value})
        yield {"case": f"widget: {label} new run ({name}={value}, progress bar)",
               "n": ex.params[size], "mlnotes_s": time.process_time() - start,
               "sklearn_s": None, "agreement": None, "target": "progress shown"}
    yield from export_rows()  # after the rows above, which measure first visits with fresh caches
    yield from lab_rows()  # in a real browser, in JupyterLab (wall clock)


# The explorers as the chapters call them (book/*.ipynb), for the export rows.
CHAPTER_EXPLORERS = [
    ("pca", lambda: mw.pca_explorer(angle=60)),
    ("mds", lambda: mw.mds_explorer(dissimilarity="cityblock")),
    ("smacof", lambda: mw.smacof_explorer(max_iter=50)),
    ("kernel_pca", mw.kernel_pca_explorer),
    ("isomap", mw.isomap_explorer),
    ("lle", mw.lle_explorer),
    ("eigenmaps", mw.eigenmaps_explorer),
    ("tsne", lambda: mw.tsne_explorer(case="two_clusters", max_iter=300)),
    ("autoencoder", mw.autoencoder_explorer),
]


def export_rows():
    """Time of the static export of each explorer: every held setting computed (but the few the
    rows before already cached) and encoded."""
    for label, make in CHAPTER_EXPLORERS:
        ex = make()
        start = time.process_time()
        html = ex.static_bundle()["text/html"]
        elapsed = time.process_time() - start
        n_settings = len(ex.static_settings())
        yield {"case": f"widget: {label} static export ({n_settings} settings)",
               "n": ex.params.get("n_samples"), "mlnotes_s": elapsed, "sklearn_s": None,
               "agreement": None, "target": f"data {len(html) / 1e3:.0f} KB of "
                                            f"{DATA_BUDGET_BYTES / 1e6:.1f} MB"}


# --- in a real browser: input to new figure in JupyterLab ----------------------------------------
# (label, explorer call, index of the moved slider among the output's sliders). The slider goes
# to its first value (Home), then each move is one ArrowRight (a new setting), then as many
# ArrowLeft (settings seen).
LAB_EXPLORERS = [
    ("pca", "ml.widgets.pca_explorer(angle=60)", 0),
    ("kernel_pca", "ml.widgets.kernel_pca_explorer()", 0),
    ("isomap", "ml.widgets.isomap_explorer()", 0),
    ("lle", "ml.widgets.lle_explorer()", 0),
    ("eigenmaps", "ml.widgets.eigenmaps_explorer()", 1),
    ("umap", "ml.widgets.umap_explorer()", 1),
    ("tsne (replay frame)", "ml.widgets.tsne_explorer(case='two_clusters', max_iter=300)", 3),
]
# Records, in the page, when a key goes down on a slider and when the explorer's image has
# loaded a new picture (performance.now(), ms).
OBSERVE_JS = """k => {
  const out = document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-OutputArea')[k];
  const img = out.querySelector('img.widget-image');
  window.mlx = {keys: [], frames: []};
  if (!out.dataset.mlxObserved) {  // one listener each, however often this runs
    out.dataset.mlxObserved = '1';
    out.addEventListener('keydown', () => window.mlx.keys.push(performance.now()), true);
    img.addEventListener('load', () => window.mlx.frames.push(performance.now()));
  }
  return true;
}"""


def _lab_notebook(root, calls):
    import json

    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
              "outputs": [], "source": f"import mlnotes as ml\n{call}"}
             for i, call in enumerate(calls)]
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "language": "python",
                                      "display_name": "Python 3 (ipykernel)"}}}
    (root / "bench.ipynb").write_text(json.dumps(nb))


def _latencies(page, k, slider, n_moves):
    """(new settings, seen settings, ms from key-down to the new picture loaded) for explorer
    output ``k``: n_moves right, then n_moves left."""
    page.evaluate(OBSERVE_JS, k)
    out = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea").nth(k)
    handle = out.locator(".widget-slider .noUi-handle").nth(slider)
    out.scroll_into_view_if_needed()
    handle.focus()
    page.keyboard.press("Home")  # from the first value, so that every move has room
    page.wait_for_timeout(3000)  # its picture (if it was not already there)
    room = float(handle.get_attribute("aria-valuemax")) - float(handle.get_attribute("aria-valuemin"))
    n_moves = min(n_moves, int(room))
    new, seen = [], []
    for key, into in [("ArrowRight", new)] * n_moves + [("ArrowLeft", seen)] * n_moves:
        before = page.evaluate("() => window.mlx.frames.length")
        handle.focus()
        page.keyboard.press(key)
        page.wait_for_function(f"() => window.mlx.frames.length > {before}", timeout=120_000)
        page.wait_for_timeout(100)  # let a second picture (if any) arrive
        into.append(page.evaluate("() => window.mlx.frames.at(-1) - window.mlx.keys.at(-1)"))
    return new, seen


def _play_frames(page, k):
    """(frames the replay has, pictures loaded while "play" runs it from the first frame,
    which is on screen before: all is total - 1)."""
    out = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea").nth(k)
    page.evaluate(OBSERVE_JS, k)
    frame_slider = out.locator(".widget-slider .noUi-handle").last
    out.scroll_into_view_if_needed()
    frame_slider.focus()
    page.keyboard.press("Home")  # to the first frame
    page.wait_for_timeout(1000)
    page.evaluate("() => { window.mlx.frames = []; }")
    out.locator(".widget-play button").first.click()  # play
    total = int(float(frame_slider.get_attribute("aria-valuemax"))) + 1
    page.wait_for_function(
        f"() => {{ const h = document.querySelectorAll('.jp-Notebook .jp-CodeCell "
        f".jp-OutputArea')[{k}]"
        f".querySelectorAll('.widget-slider .noUi-handle'); "
        f"return +h[h.length - 1].getAttribute('aria-valuenow') >= {total - 1}; }}",
        timeout=300_000)
    page.wait_for_timeout(1500)
    return total, len(page.evaluate("() => window.mlx.frames"))


def lab_rows(n_moves=N_MOVES):
    """Median wall-clock time from a key press on a slider to the new picture, in JupyterLab in
    headless Chromium: new settings (computed, drawn) and seen ones (kept PNG); and how many of
    a t-SNE replay's frames "play" shows."""
    import pathlib
    import sys
    import tempfile

    tests = pathlib.Path(__file__).resolve().parents[1] / "tests"
    sys.path.insert(0, str(tests))
    from test_browser_lab import run_lab

    from browser_support import launch_chromium

    def row(case, seconds, target):
        return {"case": f"widget in JupyterLab: {case}", "n": None, "mlnotes_s": seconds,
                "sklearn_s": None, "agreement": None, "target": target}

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        _lab_notebook(root, [call for _, call, _ in LAB_EXPLORERS])
        try:
            chromium = launch_chromium()
            browser = chromium.__enter__()
        except BaseException as exc:  # pytest's skip when there is no Chromium
            yield row(f"not measured ({exc})", None, "")
            return
        try:
            every_cell = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
            with run_lab(root, settings=every_cell) as (base, token):
                page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
                page.goto(f"{base}/lab/tree/bench.ipynb?token={token}")
                page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
                page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
                page.keyboard.press("Escape")
                page.keyboard.press("Control+a")
                page.keyboard.press("Shift+Enter")  # run all selected cells
                page.wait_for_function(
                    f"() => document.querySelectorAll('.jp-OutputArea-output img.widget-image')"
                    f".length >= {len(LAB_EXPLORERS)}", timeout=600_000)
                for k, (label, _, slider) in enumerate(LAB_EXPLORERS):
                    new, seen = _latencies(page, k, slider, n_moves)
                    yield row(f"{label} new setting", statistics.median(new) / 1e3, TARGET)
                    yield row(f"{label} seen setting", statistics.median(seen) / 1e3,
                              f"< {SEEN_BUDGET_S:.3f} s")
                total, shown = _play_frames(page, len(LAB_EXPLORERS) - 1)
                yield row(f"tsne play: {shown + 1} of {total} frames shown", None,
                          "every frame")
        finally:
            chromium.__exit__(None, None, None)
