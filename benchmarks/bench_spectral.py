"""Spectral methods: mlnotes beside scikit-learn on the S-curve (n = 1500 and 4000).

Each row runs the whole ``fit_transform`` of both libraries with the same solver class (named
in the case) and reports the best of several **CPU** times (``time.process_time``; the machine
is shared, so wall-clock time would measure the neighbours' load: best of 3 at n = 1500, of 7
at n = 4000) and the largest absolute difference of the two embeddings after aligning column
signs (:func:`mlnotes.metrics.align`). The two libraries take turns (ours, theirs, ours, ...),
so that a change in the machine during the run does not favour either. BLAS runs on one
thread (``threadpoolctl``): CPU time summed over threads would charge their idle spinning.
Collected by ``benchmarks/run.py``.
"""

import time

import numpy as np
import scipy.sparse as sp
import sklearn.decomposition as skd
import sklearn.manifold as skm
from sklearn.neighbors import kneighbors_graph
from threadpoolctl import threadpool_limits

import mlnotes as ml
from mlnotes.metrics import align

SIZES = (1500, 4000)
N_NEIGHBORS = 10
RBF_GAMMA = 0.5
TARGET = "ratio <= 0.8 at n = 4000, agreement <= 1e-6"
REPEAT_SMALL, REPEAT_LARGE = 3, 7


def _sklearn_eigenmaps(X):
    # the same binary "or" kNN graph as ours, then SpectralEmbedding on those weights
    A = kneighbors_graph(X, N_NEIGHBORS, mode="connectivity")
    W = sp.csr_matrix(A.maximum(A.T))
    return skm.SpectralEmbedding(n_components=2, affinity="precomputed",
                                 eigen_solver="arpack", random_state=0).fit_transform(W)


def _cases():
    """(case, mlnotes callable, scikit-learn callable)."""
    k = N_NEIGHBORS
    return [
        ("PCA (dense covariance eigh)",
         lambda X: ml.PCA(n_components=2).fit_transform(X),
         lambda X: skd.PCA(2, svd_solver="covariance_eigh").fit_transform(X)),
        ("ClassicalMDS (dense, full spectrum)",
         lambda X: ml.ClassicalMDS(n_components=2).fit_transform(X),
         lambda X: skm.ClassicalMDS(n_components=2).fit_transform(X)),
        ("KernelPCA rbf (arpack)",
         lambda X: ml.KernelPCA(n_components=2, kernel="rbf", gamma=RBF_GAMMA,
                                eigen_solver="arpack").fit_transform(X),
         lambda X: skd.KernelPCA(2, kernel="rbf", gamma=RBF_GAMMA, eigen_solver="arpack",
                                 random_state=0).fit_transform(X)),
        (f"Isomap k={k} (Dijkstra, arpack)",
         lambda X: ml.Isomap(n_components=2, n_neighbors=k, eigen_solver="arpack").fit_transform(X),
         lambda X: skm.Isomap(n_components=2, n_neighbors=k, path_method="D",
                              eigen_solver="arpack").fit_transform(X)),
        (f"LLE k={k} (arpack shift-invert, tol 0)",
         lambda X: ml.LLE(n_components=2, n_neighbors=k, eigen_solver="arpack").fit_transform(X),
         lambda X: skm.LocallyLinearEmbedding(n_components=2, n_neighbors=k, method="standard",
                                              eigen_solver="arpack", tol=0,
                                              random_state=0).fit_transform(X)),
        (f"LaplacianEigenmaps k={k} binary (arpack shift-invert)",
         lambda X: ml.LaplacianEigenmaps(n_components=2, n_neighbors=k,
                                         eigen_solver="arpack").fit_transform(X),
         _sklearn_eigenmaps),
    ]


def _best_interleaved(ours, theirs, repeat):
    """Smallest CPU time of each of two callables, run in turns; and their results."""
    best, out = [float("inf"), float("inf")], [None, None]
    for _ in range(repeat):
        for i, fn in enumerate((ours, theirs)):
            t0 = time.process_time()
            out[i] = fn()
            best[i] = min(best[i], time.process_time() - t0)
    return best, out


def rows():
    with threadpool_limits(1):
        yield from _rows()


def _rows():
    for n in SIZES:
        X, _ = ml.datasets.make_s_curve(n, random_state=0)
        for case, ours, theirs in _cases():
            repeat = REPEAT_SMALL if n < max(SIZES) else REPEAT_LARGE
            (t_ours, t_theirs), (Z, Z_ref) = _best_interleaved(
                lambda ours=ours, X=X: ours(X), lambda theirs=theirs, X=X: theirs(X), repeat
            )
            yield {
                "case": case,
                "n": n,
                "mlnotes_s": t_ours,
                "sklearn_s": t_theirs,
                "agreement": float(np.abs(align(Z, Z_ref) - Z_ref).max()),
                "target": TARGET,
            }
