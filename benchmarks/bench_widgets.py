"""How long an explorer takes to redraw after a slider moves (target: well under 150 ms).

For each explorer at its default size, the main control is moved through its next few values
twice: the first pass computes each setting's cached steps (graph, distances, eigenproblem) as a
reader meets them ("first visit"), the second is the update proper (draw + PNG encoding, the
steps cached). An explorer with a kept figure (``live=``,
:class:`~mlnotes.widgets._core.LiveFigure`) redraws only the artists a setting changes; its
row "as a new figure" draws the same settings from scratch, as every update did before. For
iterative methods the update is one replay frame; the optimisation runs once per parameter set
with a progress bar, and its time has its own row.

Times are the median CPU time of the process per update (``time.process_time``), the work
itself: on a shared machine wall-clock time adds however long the process waits for a core.
A setting seen before is sent from the explorer's kept PNGs (target 50 ms).

Where a reader meets the explorers, input to new figure in JupyterLab in a real browser, is
measured by ``bench_lab_widgets.py``.

The static book's export (every held setting computed and encoded, as a chapter's explorer cell
does when the notebook runs) has one row per explorer, at the chapter's parameters, with the
size of the data the page carries (the budget is 1.5 MB per chapter page).
"""

import statistics
import time

import mlnotes.widgets as mw
from mlnotes.widgets._core import UPDATE_BUDGET_S, figure_png
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
        if ex.live is not None:
            times = []
            for value in moves:
                start = time.process_time()
                figure_png(ex.draw(**{**ex.params, name: value}))
                times.append(time.process_time() - start)
            yield {"case": f"widget: {label} update as a new figure (without the kept one)",
                   "n": ex.params[size], "mlnotes_s": statistics.median(times),
                   "sklearn_s": None, "agreement": None, "target": "for comparison"}
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
