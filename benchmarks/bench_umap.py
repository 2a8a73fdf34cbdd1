"""UMAP at 20 000 points: mlnotes beside umap-learn (a benchmark and test reference only).

Data: the 20 000 noisy 64-D digits of the t-SNE benchmark (:func:`bench_tsne_fft.noisy_digits`,
seed 0, no download). Both methods use their defaults (15 neighbours counting the point itself,
``min_dist`` 0.1, 200 epochs beyond 10 000 points, spectral start) and ``random_state=0``:

* mlnotes: ``UMAP(random_state=0)`` (exact kNN, vectorised epochs, numpy only);
* umap-learn 0.5.12: ``UMAP(random_state=0, n_jobs=1)`` (approximate kNN by NN-descent, numba).
  umap-learn compiles its functions the first time they run; the process first fits 5 000 points
  (not timed; above 4 096 points, so that the approximate-neighbour code the 20 000-point fit
  uses is compiled too) so that the time counted is the fit, not the compilation. The warm-up's
  time (compilation and a small fit) is reported beside it.

Each method runs in its own process (``python bench_umap.py <method> <N> <out.npz>``), which
reports its wall-clock time and peak resident memory. Quality, measured the same way for both
maps: 10-NN preservation (the mean share of each point's 10 nearest neighbours in the data among
its 10 nearest in the map) and trustworthiness (10 neighbours) averaged over 3 000 random points,
each with its ranks among all 20 000 (:func:`sampled_trustworthiness`). Collected by
``benchmarks/run.py``; ``python benchmarks/run.py umap`` prints this table alone.
"""

import json
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

N_POINTS = 20000
N_WARMUP = 5000  # above umap-learn's 4096: its NN-descent path compiles too
K_PRESERVE = 10
N_TRUST = 3000
METHODS = ("mlnotes", "umap-learn")


def _data(n):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from bench_tsne_fft import noisy_digits

    return noisy_digits(n)


def _run_one(method, n, out):
    import warnings

    X = _data(n)
    compile_s = 0.0
    if method == "mlnotes":
        import mlnotes as ml

        t0 = time.perf_counter()
        Z = ml.UMAP(random_state=0).fit_transform(X)
    else:
        import umap

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            umap.UMAP(random_state=0, n_jobs=1).fit_transform(X[:N_WARMUP])  # JIT compilation
            compile_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            Z = umap.UMAP(random_state=0, n_jobs=1).fit_transform(X)
    seconds = time.perf_counter() - t0
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux
    np.savez(out, Z=Z, seconds=seconds, compile_s=compile_s, peak_gb=peak_gb)


def sampled_trustworthiness(X, Z, queries, k=K_PRESERVE):
    r"""Trustworthiness (Venna & Kaski) of the map ``Z``, averaged over the points ``queries``
    with their ranks among all N points:
    :math:`1 - \frac{2}{k(2N - 3k - 1)} \frac{1}{|Q|}\sum_{i \in Q} \sum_{j \in U_i}
    (r(i, j) - k)`, where :math:`U_i` are the map's k nearest that are not among the data's
    and :math:`r(i, j)` is the rank of :math:`x_j` among the data neighbours of :math:`x_i`.
    Over all points it is :func:`mlnotes.metrics.trustworthiness`."""
    from mlnotes.graphs import squared_distances

    N, total = len(X), 0.0
    for start in range(0, len(queries), 500):
        q = queries[start:start + 500]
        d_data = squared_distances(X[q], X)
        d_data[np.arange(len(q)), q] = np.inf  # a point is not its own neighbour
        rank = np.empty_like(d_data, dtype=np.int64)
        order = np.argsort(d_data, axis=1, kind="stable")
        rank[np.arange(len(q))[:, None], order] = np.arange(1, N + 1)
        d_map = squared_distances(Z[q], Z)
        d_map[np.arange(len(q)), q] = np.inf
        near_map = np.argpartition(d_map, k, axis=1)[:, :k]
        r = np.take_along_axis(rank, near_map, axis=1)
        total += np.sum(np.where(r > k, r - k, 0))
    return 1.0 - 2.0 / (k * (2 * N - 3 * k - 1)) * total / len(queries)


def _measure(n):
    from mlnotes.metrics import knn_preservation

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for method in METHODS:
            out = pathlib.Path(tmp) / f"{method}.npz"
            subprocess.run([sys.executable, __file__, method, str(n), str(out)], check=True)
            r = np.load(out)
            results[method] = {key: r[key][()] if r[key].ndim == 0 else r[key] for key in r}
    X = _data(n)
    queries = np.random.default_rng(0).choice(n, size=min(N_TRUST, n), replace=False)
    for r in results.values():
        r["knn"] = knn_preservation(X, r["Z"], n_neighbors=K_PRESERVE)
        r["trust"] = sampled_trustworthiness(X, r["Z"], queries)
    return results


def rows():
    res = _measure(N_POINTS)
    ours, ref = res["mlnotes"], res["umap-learn"]
    print(json.dumps({m: {k: float(v) for k, v in r.items() if k != "Z"} for m, r in res.items()},
                     indent=1), file=sys.stderr)
    head = f"UMAP, {N_POINTS} noisy digits (64-D), defaults, vs **umap-learn 0.5.12, n_jobs=1**"
    yield {
        "case": f"{head} (its time in the scikit-learn column; its {ref['compile_s']:.0f} s warm-up "
                f"with JIT compilation not counted); 10-NN preservation {ours['knn']:.3f} vs "
                f"{ref['knn']:.3f}; agreement = difference",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": ref["seconds"],
        "agreement": abs(ours["knn"] - ref["knn"]), "target": "ratio <= 3, agreement <= 0.02",
    }
    yield {
        "case": f"{head}: trustworthiness (10 neighbours, mean over {N_TRUST} points) "
                f"{ours['trust']:.3f} vs {ref['trust']:.3f}; agreement = difference",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": ref["seconds"],
        "agreement": abs(ours["trust"] - ref["trust"]), "target": "agreement <= 0.02",
    }
    yield {
        "case": f"{head}: peak memory {ours['peak_gb']:.2f} GB (umap-learn "
                f"{ref['peak_gb']:.2f} GB)",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": None, "agreement": None,
        "target": "< 3 GB",
    }


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in METHODS:
        sys.exit(f"usage: python {sys.argv[0]} {{{','.join(METHODS)}}} N out.npz "
                 "(or run benchmarks/run.py umap for the table)")
    _run_one(sys.argv[1], int(sys.argv[2]), sys.argv[3])
