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

``python benchmarks/bench_umap.py rounds`` (not part of ``make bench``: about ten minutes of
CPU) reproduces the UMAP chapter's figures on how an epoch is dealt into rounds
(:func:`rounds_study`): on a 20 000-point Swiss roll (``make_swiss_roll(20000,
random_state=0)``), one graph and one start (``mlnotes.UMAP(random_state=0)``'s), 200 epochs,
seed 0, the 10-NN kept after 100 epochs and at the end by the optimiser's own rounds (each
point an end of one edge a round), by each point's edges dealt into 8 or 128 shares (the
previous version's rounds, where a point is an end of several edges), and by umap-learn's
edge-by-edge optimiser (``optimize_layout_euclidean``, ``move_other=True``, its first call
compiling) on the same graph and start; and how many rounds an epoch has.

``python benchmarks/bench_umap.py shared`` (a minute) reproduces the chapter's figures on the
rounds that fold colours beyond ``HUB_FACTOR`` times the median point's number of pairs
(:func:`shared_rounds_study`): on the UMAP chapter's 450-point blobs, 2 000 noisy digits and a
20 000-point Swiss roll, how many rounds hold a point twice (``_shared_rounds``) and how many of
those points are hubs (more pairs than the cap) and how many are not.
"""

import sys

import numpy as np
from scaling import THREAD_VARS, noisy_digits, run_pair, sampled_trustworthiness

__all__ = ["neighbour_recall", "rounds_study", "rows", "sampled_trustworthiness",
           "shared_rounds_study"]

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


def _per_point_shares(n_shares):
    """The previous version's dealing: round ``r`` holds the ``r``-th of ``n_shares`` shares of
    every head's edges (given in row order), so a point is an end of several edges a round."""
    def deal(heads, tails, n_points, tails_move, rng, hub_share=False):
        start = np.flatnonzero(np.r_[True, heads[1:] != heads[:-1]])
        length = np.diff(np.r_[start, heads.size])
        rank = np.arange(heads.size) - np.repeat(start, length)
        which = rank * n_shares // np.repeat(length, length)
        order = np.argsort(which, kind="stable")
        return order, np.searchsorted(which[order], np.arange(n_shares + 1))
    return deal


def rounds_study(n=20000, epochs=200, mid=100):
    """10-NN kept at epoch ``mid`` and at the end, per way of dealing an epoch (see above)."""
    import os
    import time
    import warnings

    for var in THREAD_VARS:
        os.environ[var] = "1"
    from sklearn.datasets import make_swiss_roll

    import mlnotes
    from mlnotes import umap
    from mlnotes.metrics import knn_preservation

    X = make_swiss_roll(n, random_state=0)[0]
    model = mlnotes.UMAP(random_state=0, n_epochs=1).fit(X)  # the graph, a and b
    P, a, b = model.graph_, model.a_, model.b_
    Z0 = model._start(X, P, 2, np.random.default_rng(0))
    coo = P.tocoo()
    keep = (coo.data >= coo.data.max() / epochs) & (coo.row != coo.col)
    _, bounds = umap._rounds(coo.row[keep], coo.col[keep], n, True, np.random.default_rng(0),
                             hub_share=True)
    print(f"{n}-point Swiss roll: {len(bounds) - 1} rounds an epoch", flush=True)
    results = {}
    own = umap._rounds
    for name, deal in (("rounds, each point once", own), ("8 shares of each point's edges",
                       _per_point_shares(8)), ("128 shares", _per_point_shares(128))):
        kept = {}
        umap._rounds = deal
        try:
            t = time.process_time()
            Z = umap.optimize_layout(
                P, Z0, a, b, n_epochs=epochs, random_state=0,
                callback=lambda e, Z, kept=kept: kept.setdefault(e, Z) if e == mid - 1 else None)
            cpu = time.process_time() - t
        finally:
            umap._rounds = own
        results[name] = (knn_preservation(X, kept[mid - 1]), knn_preservation(X, Z), cpu)
        print(f"{name}: 10-NN {results[name][0]:.3f} after {mid} epochs, "
              f"{results[name][1]:.3f} at the end ({cpu:.1f} s CPU)", flush=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from umap.layouts import optimize_layout_euclidean
        from umap.umap_ import make_epochs_per_sample
    head, tail, w = coo.row[keep], coo.col[keep], coo.data[keep]
    Zu = np.ascontiguousarray(Z0, dtype=np.float32)  # numba wants C order
    t = time.process_time()
    mid_map, end_map = optimize_layout_euclidean(
        Zu, Zu, head, tail, [mid, epochs], n, make_epochs_per_sample(w, epochs), a, b,
        np.random.RandomState(0).randint(-2**31 + 1, 2**31 - 1, 3).astype(np.int64),
        move_other=True)
    cpu = time.process_time() - t
    name = "umap-learn's edge-by-edge optimiser"
    results[name] = (knn_preservation(X, mid_map), knn_preservation(X, end_map), cpu)
    print(f"{name}: 10-NN {results[name][0]:.3f} after {mid} epochs, {results[name][1]:.3f} at "
          f"the end ({cpu:.1f} s CPU, its compilation included)", flush=True)
    return len(bounds) - 1, results


def shared_rounds_study():
    """Rounds that hold a point twice, and whether those points are hubs, on three data sets."""
    import os
    import warnings

    for var in THREAD_VARS:
        os.environ[var] = "1"
    import mlnotes
    from mlnotes import umap

    rng = np.random.default_rng(1)  # the UMAP chapter's three blobs on a line
    centres = np.zeros((3, 10))
    centres[:, 0] = [0.0, 10.0, 40.0]
    data = {"450-point blobs": np.repeat(centres, 150, axis=0) + rng.normal(size=(450, 10)),
            "2 000 noisy digits": noisy_digits(2000),
            "20 000-point Swiss roll": mlnotes.datasets.make_swiss_roll(20000, random_state=0)[0]}
    out = {}
    for name, X in data.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the blobs' graph is in three pieces
            P = mlnotes.UMAP(random_state=0, n_epochs=1).fit(X).graph_.tocoo()
        n, epochs = len(X), 500 if len(X) <= 10000 else 200
        keep = (P.data >= P.data.max() / epochs) & (P.row != P.col)  # as optimize_layout
        heads, tails = P.row[keep], P.col[keep]
        order, bounds = umap._rounds(heads, tails, n, True, np.random.default_rng(0),
                                     hub_share=True)
        heads, tails = heads[order], tails[order]
        shared = umap._shared_rounds(heads, tails, bounds, n)
        pairs = np.unique(np.minimum(heads, tails) * np.int64(n) + np.maximum(heads, tails))
        degree = np.bincount(pairs // n, minlength=n) + np.bincount(pairs % n, minlength=n)
        cap = int(np.ceil(umap.HUB_FACTOR * np.median(degree[degree > 0])))
        hubs = others = 0
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            ends, count = np.unique(np.concatenate([heads[lo:hi], tails[lo:hi]]),
                                    return_counts=True)
            twice = ends[count > 1]
            hubs += int((degree[twice] > cap).sum())
            others += int((degree[twice] <= cap).sum())
        out[name] = (len(bounds) - 1, int(shared.sum()), hubs, others)
        print(f"{name}: median point in {np.median(degree[degree > 0]):.0f} pairs, the busiest "
              f"in {degree.max()}, cap {cap}; {shared.sum()} of {len(bounds) - 1} rounds hold a "
              f"point twice; such (point, round) cases: {hubs} at hubs (more pairs than the "
              f"cap), {others} at other points", flush=True)
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["rounds"]:
        rounds_study()
    elif sys.argv[1:] == ["shared"]:
        shared_rounds_study()
    else:
        sys.exit("usage: python benchmarks/bench_umap.py rounds|shared "
                 "(the table: benchmarks/run.py umap)")
