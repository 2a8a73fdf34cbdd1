r"""UMAP's input metrics: the distances its neighbour graph is built from.

UMAP needs only each point's ``n_neighbors`` nearest points and their distances (step 1 of
:mod:`mlnotes.umap`); nothing in :math:`\rho_i`, :math:`\sigma_i` or the fuzzy union asks the
distance to be Euclidean. So any dissimilarity :math:`d(x, y) \ge 0` with :math:`d(x, x) = 0`
will do: a named metric, a Python function of two vectors, distances the user computed
(``metric="precomputed"``) or the neighbours themselves (``precomputed_knn``).

Named metrics (umap-learn's names, with its aliases), for vectors :math:`x, y \in \mathbb R^D`:

* ``"euclidean"`` (``"l2"``) :math:`\|x - y\|_2`; ``"sqeuclidean"`` :math:`\|x - y\|_2^2`;
* ``"manhattan"`` (``"l1"``, ``"cityblock"``, ``"taxicab"``) :math:`\sum_d |x_d - y_d|`;
* ``"chebyshev"`` (``"linfinity"``, ``"linf"``, ``"linfty"``) :math:`\max_d |x_d - y_d|`;
* ``"minkowski"`` :math:`(\sum_d |x_d - y_d|^p)^{1/p}`, ``p`` from ``metric_kwds`` (default 2);
* ``"cosine"`` :math:`1 - x^\top y / (\|x\|\,\|y\|)`; ``"correlation"``, the cosine distance
  of the centred vectors :math:`x - \bar x`, :math:`y - \bar y`;
* ``"canberra"``, ``"braycurtis"``, ``"hamming"`` (the fraction of coordinates that differ),
  ``"hellinger"`` (non-negative data:
  :math:`\sqrt{1 - \sum_d \sqrt{x_d y_d} / \sqrt{\sum x \sum y}}`);
* on binary data (non-zero counts as true): ``"jaccard"``, ``"dice"``,
  ``"matching"``, ``"rogerstanimoto"``, ``"sokalsneath"``, ``"yule"``.

Where a formula divides by zero, umap-learn's conventions hold: the cosine and correlation
distance is 0 between two zero (constant) vectors and 1 between a zero vector and another; the
ratio metrics (Bray-Curtis, Jaccard, Dice, Sokal-Sneath, Yule, Hellinger) give 0 for 0/0.

Sparse CSR data works with the metrics that are functions of inner products and norms, never
densifying a row: ``"euclidean"``, ``"sqeuclidean"``, ``"cosine"`` and ``"correlation"`` (the
centred inner product :math:`x^\top y - D \bar x \bar y`).
"""

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from ._typing import ArrayLike, FloatArray, IntArray, Sparse
from ._validation import check_array, check_finite
from .graphs import (
    _nearest_from_distances,
    _row_norms2,
    _sparse_squared_distances,
    pairwise_distances,
)

ALIASES = {
    "l2": "euclidean", "l1": "manhattan", "cityblock": "manhattan", "taxicab": "manhattan",
    "linfinity": "chebyshev", "linf": "chebyshev", "linfty": "chebyshev",
}
# name -> scipy's cdist name, for the metrics computed by cdist on dense rows
CDIST_NAMES = {
    "sqeuclidean": "sqeuclidean", "manhattan": "cityblock", "chebyshev": "chebyshev",
    "minkowski": "minkowski", "canberra": "canberra", "braycurtis": "braycurtis",
    "hamming": "hamming",
}
BINARY_METRICS = ("jaccard", "dice", "matching", "rogerstanimoto", "sokalsneath",
                  "yule")
INNER_PRODUCT_METRICS = ("euclidean", "sqeuclidean", "cosine", "correlation")
UMAP_METRICS = ("euclidean", "sqeuclidean", "manhattan", "chebyshev", "minkowski", "cosine",
                "correlation", "canberra", "braycurtis", "hamming", "hellinger") + BINARY_METRICS
METRIC_KWDS = {"minkowski": ("p",)}
COSINE_ROUND_OFF = 8 * np.finfo(float).eps  # below this 1 - cos is round-off: parallel rows
BLOCK_ENTRIES = 2**22  # distances are computed in row blocks of about this many entries


def check_umap_metric(metric: object, metric_kwds: dict | None = None) -> object:
    """The canonical name of ``metric`` (aliases resolved), ``"precomputed"``, or the callable.

    Raises a ``ValueError`` naming the metrics offered for anything else, and for keyword
    arguments the metric does not take.
    """
    kwds = dict(metric_kwds or {})
    if callable(metric):
        return metric
    if not isinstance(metric, str):
        raise ValueError(
            f"metric must be a name, 'precomputed' or a callable f(x, y) -> float on two "
            f"vectors, got {metric!r} of type {type(metric).__name__}."
        )
    name = ALIASES.get(metric, metric)
    if name != "precomputed" and name not in UMAP_METRICS:
        raise ValueError(
            f"Unknown metric {metric!r}. mlnotes.UMAP offers {', '.join(UMAP_METRICS)} (and the "
            f"aliases {', '.join(ALIASES)}), 'precomputed' for a distance matrix, or a callable "
            "f(x, y) -> float on two vectors."
        )
    unknown = set(kwds) - set(METRIC_KWDS.get(name, ()))
    if unknown:
        takes = METRIC_KWDS.get(name)
        raise ValueError(
            f"metric={metric!r} takes {'the keywords ' + ', '.join(takes) if takes else 'no keywords'}"
            f" in metric_kwds, got {sorted(unknown)}."
        )
    if name == "minkowski" and kwds.get("p", 2) < 1:
        raise ValueError(f"minkowski needs p >= 1 (below 1 it is not a metric), got "
                         f"p={kwds['p']!r}.")
    return name


def umap_distances(X: ArrayLike, Y: ArrayLike | None = None, *, metric: object = "euclidean",
                   metric_kwds: dict | None = None) -> FloatArray:
    r"""Distances :math:`d(x_i, y_j)` in a metric of :func:`check_umap_metric`.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (N, D)
    Y : ndarray or scipy.sparse matrix of shape (M, D), optional
        Defaults to ``X``.
    metric : str or callable
        A name of ``UMAP_METRICS`` (or an alias), or ``f(x, y) -> float``.
    metric_kwds : dict, optional
        ``{"p": p}`` for ``"minkowski"``.

    Returns
    -------
    D : ndarray of shape (N, M)
    """
    name = check_umap_metric(metric, metric_kwds)
    if isinstance(name, str) and name == "precomputed":
        raise ValueError("metric='precomputed' means the input already is a distance matrix; "
                         "there is nothing to compute.")
    sparse = sp.issparse(X) or (Y is not None and sp.issparse(Y))
    X = _check_data(X, name, sparse)
    if Y is None:  # (the Euclidean diagonal is then exactly 0)
        return _distances(X, None, name, dict(metric_kwds or {}))
    Y = _check_data(Y, name, sparse, what="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    return _distances(X, Y, name, dict(metric_kwds or {}))


def _check_data(X, name, sparse, what="X"):
    if sparse and not (isinstance(name, str) and name in INNER_PRODUCT_METRICS):
        raise TypeError(
            f"metric={name!r} needs dense rows, and {what} is sparse; use one of "
            f"{', '.join(INNER_PRODUCT_METRICS)} (computed from sparse inner products) or "
            f"convert the data with {what}.toarray() if it fits in memory."
        )
    A = check_array(X, name=what, accept_sparse=sparse)
    if isinstance(name, str) and name == "hellinger" and (
            (A.data if sparse else A) < 0).any():
        raise ValueError("metric='hellinger' compares distributions: the data must be "
                         "non-negative (counts or frequencies); take abs() or use 'cosine'.")
    return sp.csr_matrix(A) if sparse else A


def _distances(X, Y, name, kwds):
    """The (N, M) distances, no checks (the estimator checked its input once); ``Y=None``:
    ``X`` against itself."""
    if name == "euclidean":
        return pairwise_distances(X, Y)
    Y = X if Y is None else Y
    if callable(name):
        return _callable_distances(X, Y, name, kwds)
    if name == "sqeuclidean" and sp.issparse(X):
        return _sparse_squared_distances(X, Y)
    if name in ("cosine", "correlation"):
        return _cosine(X, Y, centred=name == "correlation")
    if name == "hellinger":
        return _hellinger(X, Y)
    if name in BINARY_METRICS:
        # 0 / 0 (two all-false rows) is 0; "matching" is the Hamming distance of the patterns
        D = cdist(X != 0, Y != 0, metric="hamming" if name == "matching" else name)
        return np.nan_to_num(D, nan=0.0)
    D = cdist(X, Y, metric=CDIST_NAMES[name], **kwds)
    if name == "braycurtis":
        D = np.nan_to_num(D, nan=0.0)  # 0 / 0: two zero vectors
    return D


def _cosine(X, Y, centred):
    r""":math:`1 - x^\top y / (\|x\|\|y\|)`, of the centred rows for the correlation distance;
    sparse rows through inner products only (:math:`\|x - \bar x\|^2 = \|x\|^2 - D \bar x^2`).
    0 between two zero vectors, 1 between a zero vector and another (umap-learn's rule)."""
    dot = X @ Y.T
    dot = np.asarray(dot.todense()) if sp.issparse(dot) else dot
    nx = _row_norms2(X) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    ny = _row_norms2(Y) if sp.issparse(Y) else np.einsum("ij,ij->i", Y, Y)
    if centred:
        D_feat = X.shape[1]
        mx = np.asarray(X.sum(axis=1)).ravel() / D_feat
        my = np.asarray(Y.sum(axis=1)).ravel() / D_feat
        dot = dot - D_feat * np.outer(mx, my)
        nx = np.maximum(nx - D_feat * mx**2, 0.0)
        ny = np.maximum(ny - D_feat * my**2, 0.0)
    # a zero (or constant) row: relative to its scale, not exactly 0 after centring
    scale_x = _row_norms2(X) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    scale_y = _row_norms2(Y) if sp.issparse(Y) else np.einsum("ij,ij->i", Y, Y)
    zx = nx <= 1e-24 * np.maximum(scale_x, np.finfo(float).tiny)
    zy = ny <= 1e-24 * np.maximum(scale_y, np.finfo(float).tiny)
    norm = np.sqrt(np.outer(np.where(zx, 1.0, nx), np.where(zy, 1.0, ny)))
    D = np.clip(1.0 - dot / norm, 0.0, 2.0)
    D[D <= COSINE_ROUND_OFF] = 0.0  # 1 - cos of parallel vectors is 0 up to a few ulps
    D[zx, :] = 1.0
    D[:, zy] = 1.0
    D[np.ix_(zx, zy)] = 0.0
    return D


def _hellinger(X, Y):
    r""":math:`\sqrt{1 - \sum_d \sqrt{x_d y_d} / \sqrt{\sum x \sum y}}` (0 for two zero rows,
    1 for a zero row and another)."""
    sx, sy = X.sum(axis=1), Y.sum(axis=1)
    affinity = np.sqrt(X) @ np.sqrt(Y).T
    denom = np.sqrt(np.outer(sx, sy))
    with np.errstate(invalid="ignore", divide="ignore"):
        D = np.sqrt(np.maximum(1.0 - affinity / denom, 0.0))
    zx, zy = sx == 0, sy == 0
    D[zx, :] = 1.0
    D[:, zy] = 1.0
    D[np.ix_(zx, zy)] = 0.0
    return D


def _callable_distances(X, Y, f, kwds):
    """A user's ``f(x, y)`` on every pair (a Python loop: for small data and checks)."""
    D = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            value = f(X[i], Y[j], **kwds)
            # umap-learn's metrics with gradients return (distance, gradient): keep the distance
            D[i, j] = value[0] if isinstance(value, tuple) else value
    check_finite(D, name="the callable metric's distances")
    if D.min(initial=0.0) < 0:
        raise ValueError("The callable metric returned negative distances; a metric must be "
                         ">= 0.")
    return D


def knn_from_distances(D: FloatArray, n_neighbors: int, *,
                       exclude_self: bool) -> tuple[IntArray, FloatArray]:
    """Indices and distances of each row's ``n_neighbors`` smallest entries, nearest first.

    With ``exclude_self`` (``D`` square, the training points against themselves) a point is
    not its own neighbour; an identical twin at distance 0 still is.
    """
    ind = _nearest_from_distances(D, n_neighbors, exclude_self=exclude_self)
    return ind, np.take_along_axis(D, ind, axis=1)


def metric_kneighbors(X: ArrayLike | Sparse, n_neighbors: int, Y: ArrayLike | Sparse | None = None, *,
                      metric: object = "euclidean",
                      metric_kwds: dict | None = None) -> tuple[IntArray, FloatArray]:
    """The ``n_neighbors`` nearest rows of ``X`` for each row of ``Y`` (of ``X`` itself, a
    point not its own neighbour, when ``Y`` is None) in ``metric``: distances in row blocks of
    about ``BLOCK_ENTRIES`` entries, never the whole matrix at once.

    Returns
    -------
    ind : ndarray of shape (M, n_neighbors)
    dist : ndarray of shape (M, n_neighbors), sorted along each row
    """
    kwds = dict(metric_kwds or {})
    self_query = Y is None
    Q = X if self_query else Y
    ind = np.empty((Q.shape[0], n_neighbors), dtype=np.intp)
    dist = np.empty((Q.shape[0], n_neighbors))
    block = max(1, BLOCK_ENTRIES // X.shape[0])
    for start in range(0, Q.shape[0], block):
        stop = min(start + block, Q.shape[0])
        D = _distances(Q[start:stop], X, metric, kwds)
        if self_query:  # a point is not its own neighbour
            D[np.arange(stop - start), np.arange(start, stop)] = np.inf
        ind[start:stop], dist[start:stop] = knn_from_distances(D, n_neighbors, exclude_self=False)
    if isinstance(metric, str) and metric in ("euclidean", "sqeuclidean"):
        dist = _exact_squared(Q, X, ind)  # the expansion's round-off (1e-8) gone: twins at 0
        dist = np.sqrt(dist) if metric == "euclidean" else dist
        order = np.argsort(dist, axis=1, kind="stable")  # near-ties may swap: sorted again
        ind, dist = np.take_along_axis(ind, order, axis=1), np.take_along_axis(dist, order, 1)
    return ind, dist


def _exact_squared(Q, X, ind):
    r""":math:`\|q_i - x_{j}\|^2` for the pairs ``(i, ind[i, :])``, from the differences."""
    rows = np.repeat(np.arange(Q.shape[0]), ind.shape[1])
    diff = Q[rows] - X[ind.ravel()]
    sq = _row_norms2(sp.csr_matrix(diff)) if sp.issparse(diff) else np.einsum("ij,ij->i",
                                                                              diff, diff)
    return sq.reshape(ind.shape)


def precomputed_kneighbors(D: ArrayLike | Sparse, n_neighbors: int, *,
                           exclude_self: bool) -> tuple[IntArray, FloatArray]:
    """The nearest entries of a precomputed distance matrix, dense or sparse.

    In a sparse matrix a stored entry is a distance and an absent one no edge (infinitely
    far), scipy's convention for graphs; a zero distance must be stored explicitly. A row with
    fewer than ``n_neighbors`` stored distances (its diagonal not counted) is refused.
    """
    if not sp.issparse(D):
        return knn_from_distances(D, n_neighbors, exclude_self=exclude_self)
    D = sp.csr_matrix(D)
    n_rows = D.shape[0]
    ind = np.empty((n_rows, n_neighbors), dtype=np.intp)
    dist = np.empty((n_rows, n_neighbors))
    for i in range(n_rows):
        cols = D.indices[D.indptr[i]:D.indptr[i + 1]]
        vals = D.data[D.indptr[i]:D.indptr[i + 1]]
        if exclude_self:
            keep = cols != i
            cols, vals = cols[keep], vals[keep]
        if cols.size < n_neighbors:
            raise ValueError(
                f"Row {i} of the sparse distance matrix stores {cols.size} distance(s) to other "
                f"points but n_neighbors - 1 = {n_neighbors} are needed (an absent entry means "
                "'not a neighbour'); store more distances per row or lower n_neighbors."
            )
        order = np.lexsort((cols, vals))[:n_neighbors]
        ind[i], dist[i] = cols[order], vals[order]
    return ind, dist
