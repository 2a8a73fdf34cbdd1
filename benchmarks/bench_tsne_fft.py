"""FFT-interpolated t-SNE at 20 000 points beside openTSNE and scikit-learn's Barnes–Hut.

Data: 20 000 noisy copies of the 8 x 8 digits (64-D; each a random digit plus Gaussian noise of
standard deviation 2 grey levels, seed 0; no download). All three start from the same map (the
scaled PCA initialisation of :func:`mlnotes.sne.initial_embedding`) and run 1 000 iterations,
250 of them exaggerated (x12), perplexity 30:

* mlnotes: ``TSNE(method="fft", n_jobs=2)`` (exact kNN on 90 neighbours, 5 interpolation nodes
  per box and axis);
* openTSNE 1.0.4 (benchmark-only dependency): ``PerplexityBasedNN(n_jobs=2)`` (approximate
  neighbours) and ``negative_gradient_method="fft"``, 250 + 750 iterations;
* scikit-learn: ``TSNE(method="barnes_hut", angle=0.5)``.

Each method runs in its own process (``python bench_tsne_fft.py <method> <out.npz>``), which
reports its wall-clock time (affinities included) and its own peak resident memory. Quality,
measured the same way for every map: the exact KL divergence for mlnotes' sparse P (the
normaliser summed over all N^2 pairs in blocks), and the 10-nearest-neighbour preservation
(the mean fraction of each point's 10 nearest neighbours in the data that are among its 10
nearest in the map). ``MLNOTES_BENCH_70K=1`` adds the 70 000-point moonshot (mlnotes only).
Collected by ``benchmarks/run.py``.
"""

import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

N_POINTS = 20000
N_MOONSHOT = 70000
PERPLEXITY = 30.0
N_ITER, N_EXAGGERATED, EXAGGERATION = 1000, 250, 12.0
NOISE = 2.0  # grey levels (of 0..16)
K_PRESERVE = 10
KL_BLOCK = 2000
METHODS = ("mlnotes", "openTSNE", "sklearn")
N_JOBS = 2  # threads for every method


def noisy_digits(n, seed=0):
    """n noisy copies of the digits: a random digit plus N(0, NOISE^2) per pixel."""
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(seed)
    D = load_digits().data
    return D[rng.integers(0, len(D), n)] + rng.normal(scale=NOISE, size=(n, D.shape[1]))


def _run_one(method, n, out):
    from mlnotes.sne import initial_embedding

    X = noisy_digits(n)
    Z0 = initial_embedding(X, 2)
    t0 = time.perf_counter()
    if method == "mlnotes":
        import mlnotes as ml

        model = ml.TSNE(perplexity=PERPLEXITY, max_iter=N_ITER, init=Z0, method="fft",
                        n_jobs=N_JOBS)
        Z = model.fit_transform(X)
        kl_own = model.kl_divergence_
    elif method == "openTSNE":
        import openTSNE

        aff = openTSNE.affinity.PerplexityBasedNN(X, perplexity=PERPLEXITY, n_jobs=N_JOBS,
                                                  random_state=0)
        emb = openTSNE.TSNEEmbedding(Z0.copy(), aff, n_jobs=N_JOBS, negative_gradient_method="fft")
        emb = emb.optimize(n_iter=N_EXAGGERATED, exaggeration=EXAGGERATION, momentum=0.5)
        emb = emb.optimize(n_iter=N_ITER - N_EXAGGERATED, momentum=0.8)
        Z, kl_own = np.asarray(emb), float(emb.kl_divergence)
    else:
        from sklearn.manifold import TSNE as SkTSNE

        model = SkTSNE(perplexity=PERPLEXITY, max_iter=N_ITER, init=Z0.copy(),
                       method="barnes_hut", n_jobs=N_JOBS, random_state=0)
        Z = model.fit_transform(X)
        kl_own = float(model.kl_divergence_)
    seconds = time.perf_counter() - t0
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux
    np.savez(out, Z=Z, seconds=seconds, kl_own=kl_own, peak_gb=peak_gb)


def exact_kl(Z, P):
    """KL(P || Q) for sparse P with the exact normaliser sum_{i != j} (1 + |z_i - z_j|^2)^-1."""
    from mlnotes.graphs import squared_distances

    Z_sum = 0.0
    for s in range(0, len(Z), KL_BLOCK):
        W = 1.0 / (1.0 + squared_distances(Z[s:s + KL_BLOCK], Z))
        Z_sum += W.sum() - np.minimum(len(Z) - s, KL_BLOCK)  # minus the diagonal ones
    P = P.tocoo()
    d2 = ((Z[P.row] - Z[P.col]) ** 2).sum(axis=1)
    return float(np.sum(P.data * (np.log(P.data) + np.log1p(d2))) + P.sum() * np.log(Z_sum))


def preservation(idx_data, Z, k=K_PRESERVE):
    """Mean fraction of the k data neighbours that are among the k map neighbours."""
    from scipy.spatial import cKDTree

    _, idx_map = cKDTree(Z).query(Z, k=k + 1)
    hits = (idx_map[:, 1:, None] == idx_data[:, None, :k]).any(axis=2).sum(axis=1)
    return float(hits.mean()) / k


def _measure(methods, n):
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for method in methods:
            out = pathlib.Path(tmp) / f"{method}.npz"
            subprocess.run([sys.executable, __file__, method, str(n), str(out)], check=True)
            r = np.load(out)
            results[method] = {key: r[key][()] if r[key].ndim == 0 else r[key] for key in r}
    from mlnotes.tsne_fft import nearest_neighbors, sparse_affinities

    X = noisy_digits(n)
    P, _ = sparse_affinities(X, PERPLEXITY)
    idx, _ = nearest_neighbors(X, K_PRESERVE)
    for r in results.values():
        r["kl"] = exact_kl(r["Z"], P)
        r["knn"] = preservation(idx, r["Z"])
    return results


def rows():
    res = _measure(METHODS, N_POINTS)
    ours, ot, sk = res["mlnotes"], res["openTSNE"], res["sklearn"]
    print(json.dumps({m: {k: float(v) for k, v in r.items() if k != "Z"} for m, r in res.items()},
                     indent=1), file=sys.stderr)
    head = f"t-SNE FFT, {N_POINTS} noisy digits (64-D), {N_ITER} iterations"
    yield {
        "case": f"{head}: time and KL vs **openTSNE 1.0.4 FFT, n_jobs=2** (its time in the "
                f"scikit-learn column); KL {ours['kl']:.4f} vs {ot['kl']:.4f}; agreement = "
                "relative KL difference (exact KL, same P)",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": ot["seconds"],
        "agreement": abs(ours["kl"] - ot["kl"]) / ot["kl"],
        "target": "ratio <= 2, agreement <= 0.05",
    }
    yield {
        "case": f"{head}: 10-NN preservation {ours['knn']:.3f} vs openTSNE {ot['knn']:.3f}; "
                "agreement = difference",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": ot["seconds"],
        "agreement": abs(ours["knn"] - ot["knn"]), "target": "agreement <= 0.02",
    }
    yield {
        "case": f"{head}: peak memory {ours['peak_gb']:.2f} GB (openTSNE {ot['peak_gb']:.2f} GB, "
                f"scikit-learn {sk['peak_gb']:.2f} GB)",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": None, "agreement": None,
        "target": "< 3 GB",
    }
    yield {
        "case": f"{head}: vs scikit-learn Barnes–Hut (angle 0.5); KL {ours['kl']:.4f} vs "
                f"{sk['kl']:.4f}, 10-NN {ours['knn']:.3f} vs {sk['knn']:.3f}; agreement = "
                "relative KL difference",
        "n": N_POINTS, "mlnotes_s": ours["seconds"], "sklearn_s": sk["seconds"],
        "agreement": abs(ours["kl"] - sk["kl"]) / sk["kl"], "target": "(reference)",
    }
    if os.environ.get("MLNOTES_BENCH_70K") == "1":
        big = _measure(("mlnotes",), N_MOONSHOT)["mlnotes"]
        yield {
            "case": f"t-SNE FFT moonshot, {N_MOONSHOT} noisy digits, {N_ITER} iterations; "
                    f"KL {big['kl']:.4f}, 10-NN {big['knn']:.3f}, peak {big['peak_gb']:.2f} GB",
            "n": N_MOONSHOT, "mlnotes_s": big["seconds"], "sklearn_s": None,
            "agreement": None, "target": "< 300 s",
        }


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in METHODS:
        sys.exit(f"usage: python {sys.argv[0]} {{{','.join(METHODS)}}} N out.npz "
                 "(or run benchmarks/run.py tsne_fft for the table)")
    _run_one(sys.argv[1], int(sys.argv[2]), sys.argv[3])
