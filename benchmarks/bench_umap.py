"""UMAP at 2 000, 5 000, 20 000 (and, opt-in, 70 000) points beside umap-learn, by phase.

Measured by :mod:`scaling` (read its docstring): each (library, N) in a fresh process, one
thread, CPU seconds, both libraries' defaults and ``random_state=0``; umap-learn's time is its
second fit in the process (after its numba code compiled in the first; the first call is
reported too). Quality for both maps: 10-NN preservation and trustworthiness (10 neighbours,
mean over 3 000 random points, :func:`scaling.sampled_trustworthiness`). The full table is
printed and saved to ``benchmarks/results_scaling_umap.md`` (and ``.json``);
``MLNOTES_BENCH_70K=1`` adds 70 000 points. Collected by ``benchmarks/run.py``
(``python benchmarks/run.py umap`` alone).

Beyond ``mlnotes.umap.NN_DESCENT_MIN_N`` points ``UMAP``'s default search is approximate
(``neighbors_algorithm="auto"``): :func:`neighbour_recall` measures, at every such N, the
fraction of the exact ``n_neighbors - 1`` neighbours that the search of the fit (NN-descent,
seeded as ``UMAP(random_state=0)`` seeds it) and umap-learn's (pynndescent, one thread) find.
"""

import sys

import numpy as np
from scaling import THREAD_VARS, noisy_digits, run_pair, sampled_trustworthiness

__all__ = ["neighbour_recall", "rows", "sampled_trustworthiness"]

K = 14  # UMAP's default n_neighbors = 15, the point itself counted


def neighbour_recall(n):
    """Recall of mlnotes' and umap-learn's approximate searches against the exact one, at N."""
    import os

    for var in THREAD_VARS:
        os.environ[var] = "1"
    from umap.umap_ import nearest_neighbors as umap_learn_search

    from mlnotes.neighbors import neighbor_recall, nn_descent
    from mlnotes.tsne_fft import nearest_neighbors

    X = noisy_digits(n)
    exact, _ = nearest_neighbors(X, K)
    ours, _ = nn_descent(X, K, random_state=np.random.default_rng(0))
    theirs = umap_learn_search(X, K + 1, "euclidean", {}, False, np.random.RandomState(0),
                               n_jobs=1)[0]
    theirs = np.array([row[row != i][:K] for i, row in enumerate(theirs)])  # itself out
    return {"mlnotes": neighbor_recall(ours, exact), "umap-learn": neighbor_recall(theirs, exact)}


def rows():
    from mlnotes.umap import NN_DESCENT_MIN_N

    results = run_pair("mlnotes-umap", "umap-learn", "UMAP", "umap")
    for n, r in sorted(results.items()):
        ours, peer = r["mlnotes-umap"], r["umap-learn"]
        recall = ""
        if n > NN_DESCENT_MIN_N:
            rec = neighbour_recall(n)
            recall = (f"; {K}-NN recall of the approximate search vs exact: ours (NN-descent) "
                      f"{rec['mlnotes']:.3f}, umap-learn (pynndescent) {rec['umap-learn']:.3f}")
            print(f"[UMAP] N={n}: recall {rec}", file=sys.stderr, flush=True)
        yield {
            "case": f"UMAP, noisy digits, defaults, CPU s, 1 thread, vs **umap-learn** after its "
                    f"JIT (its time in the scikit-learn column; first call "
                    f"{peer['first_call']:.1f} s vs ours {ours['first_call']:.1f} s); 10-NN "
                    f"{ours['knn']:.3f} vs {peer['knn']:.3f}, trustworthiness "
                    f"{ours['trust']:.4f} vs {peer['trust']:.4f}{recall}; agreement = 10-NN "
                    f"difference",
            "n": n, "mlnotes_s": ours["total"], "sklearn_s": peer["total"],
            "agreement": abs(ours["knn"] - peer["knn"]),
            "target": "ratio <= 1.0 at 20 000 and 70 000, quality within 0.01",
        }
