"""How long an explorer takes to redraw after a slider moves (target: well under 150 ms).

For each explorer at its default size, the main control is moved through its next few values
twice: the first pass computes each setting's cached steps (graph, distances, eigenproblem) as a
reader meets them ("first visit"), the second is the update proper (draw + PNG encoding, the
steps cached). For iterative methods the update is one replay frame; the optimisation runs once
per parameter set with a progress bar, and its time has its own row.

Times are the median CPU time of the process per update (``time.process_time``), the work
itself: on a shared machine wall-clock time adds however long the process waits for a core.
"""

import statistics
import time

import mlnotes.widgets as mw
from mlnotes.widgets._core import UPDATE_BUDGET_S

N_MOVES = 5
TARGET = f"< {UPDATE_BUDGET_S:.3f} s"


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
        yield {"case": f"widget: {label} update", "n": ex.params[size],
               "mlnotes_s": _median_update(ex, name, moves), "sklearn_s": None,
               "agreement": None, "target": TARGET}
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
        yield {"case": f"widget: {label} update", "n": ex.params[size],
               "mlnotes_s": _median_update(ex, "frame", _frames(ex)), "sklearn_s": None,
               "agreement": None, "target": TARGET}
        value = _moves(ex, name)[0]
        start = time.process_time()
        ex.n_frames(**{**ex._run_params(), name: value})
        yield {"case": f"widget: {label} new run ({name}={value}, progress bar)",
               "n": ex.params[size], "mlnotes_s": time.process_time() - start,
               "sklearn_s": None, "agreement": None, "target": "progress shown"}
