"""The explorers whose new setting is a new optimisation run: kernel CPU from input to picture.

A new run (t-SNE, metric MDS / SMACOF, the autoencoder) cannot end within an update's budget
(150 ms), so the explorer shows the run as it goes: the run's first snapshot (its start) when
the control's message has been answered, the later snapshots between chunks of the run, then
the end of the run; the replay's other snapshots follow, and "play" is enabled when all are in
the page. Each row is one of those moments, as CPU time of the kernel's process (all threads,
``time.process_time``) from the control's change, in a reader's kernel (its event loop running,
as JupyterLab's): the work itself, which on a shared machine wall-clock time overstates.

* ``first picture``: the new run's start on screen (target < 150 ms, the update budget);
* ``run's end``: the last snapshot of the run on screen (the run's length: no target);
* ``every snapshot in the page``: "play" enabled (no target);
* ``seen setting``: a run already computed, its end on screen (target < 50 ms).

UMAP's explorer has no replay: its "every snapshot" is its end. Input to picture in
JupyterLab in a real browser: ``bench_lab_widgets.py`` and ``bench_lab_runs.py``.
"""

import asyncio
import os
import statistics
import time

import mlnotes.widgets as mw
from mlnotes.widgets._core import UPDATE_BUDGET_S

SEEN_BUDGET_S = 0.050
N_RUNS = 3  # new settings per explorer (each a new run); the median is reported

# The explorers as the chapters call them, the control moved, and the values it takes (each a
# new run, then the first one again: a seen setting).
RUNS = [
    ("metric MDS (SMACOF)", lambda: mw.smacof_explorer(max_iter=50), "dissimilarity",
     ("cityblock", "geodesic")),
    ("t-SNE", lambda: mw.tsne_explorer(case="two_clusters", max_iter=300), "perplexity",
     (5.0, 10.0, 50.0)),
    ("autoencoder", mw.autoencoder_explorer, "bottleneck", (2, 3, 4)),
    ("UMAP", mw.umap_explorer, "min_dist", (0.0, 0.5, 0.99)),
]


def _replaying(ex):
    """Whether a replay explorer's snapshots are still being sent (play disabled)."""
    play = getattr(ex, "_play", None)
    return play is not None and play.disabled


async def _timed_change(ex, name, value):
    """CPU times from the change to the first picture, the run's end, every snapshot sent."""
    marks = {}
    start = time.process_time()
    show_live = getattr(ex, "_show_live", None)
    if show_live is not None:
        def first(png):
            marks.setdefault("first", time.process_time() - start)
            show_live(png)
        ex._show_live = first
    show = ex._show

    def end(png):
        show(png)
        marks["end"] = time.process_time() - start
    ex._show = end
    ex._controls[name].value = value
    while "end" not in marks or _replaying(ex):
        await asyncio.sleep(0.001)
    marks["all"] = time.process_time() - start
    marks.setdefault("first", marks["end"])  # an explorer that shows only the end
    ex._show = show
    if show_live is not None:
        ex._show_live = show_live
    return marks


async def _measure(make, name, values):
    ex = make()
    assert ex.widget is not None
    while _replaying(ex):  # the first run's snapshots go out first
        await asyncio.sleep(0.001)
    new = [await _timed_change(ex, name, value) for value in values]
    seen = await _timed_change(ex, name, values[0])
    return new, seen


def rows():
    os.environ.setdefault("JPY_SESSION_NAME", "bench.ipynb")  # a reader's kernel: live runs
    for label, make, name, values in RUNS:
        new, seen = asyncio.run(_measure(make, name, values[:N_RUNS]))
        n = make().params["n_samples"]
        for key, what, target in [
            ("first", "first picture of a new run", f"< {UPDATE_BUDGET_S:.3f} s"),
            ("end", "new run to its end on screen", "the run's length"),
            ("all", "new run, every snapshot in the page (play enabled)", "no target"),
        ]:
            yield {"case": f"widget run: {label} {what} ({name})", "n": n,
                   "mlnotes_s": statistics.median(m[key] for m in new), "sklearn_s": None,
                   "agreement": None, "target": target}
        yield {"case": f"widget run: {label} seen setting, its end on screen ({name})",
               "n": n, "mlnotes_s": seen["end"], "sklearn_s": None, "agreement": None,
               "target": f"< {SEEN_BUDGET_S:.3f} s"}


if __name__ == "__main__":
    for row in rows():
        print(f"{row['case']:<90} {row['mlnotes_s']:7.3f} s   {row['target']}")
