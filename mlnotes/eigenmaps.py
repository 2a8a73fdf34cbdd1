r"""Laplacian eigenmaps (Belkin and Niyogi, 2003).

Step 1: a neighbourhood graph (kNN or epsilon). Step 2: weights on its edges, binary or heat
kernel :math:`w_{ij} = \exp(-\|x_i - x_j\|^2 / t)`, the degrees :math:`D = \operatorname{diag}
(\sum_j w_{ij})` and the Laplacian :math:`L = D - W`, with
:math:`z^\top L z = \tfrac12 \sum_{ij} w_{ij} (z_i - z_j)^2 \ge 0`. Step 3:
:math:`\min \operatorname{tr}(Z^\top L Z)` subject to :math:`Z^\top D Z = I`, the generalised
problem :math:`L v = \lambda D v`, skipping the constant :math:`v = \mathbf 1` (eigenvalue 0).
It is solved through :math:`L_{sym} = D^{-1/2} L D^{-1/2}` (eigenvectors :math:`u = D^{1/2} v`),
as scikit-learn's ``spectral_embedding`` does.

Scaling: :math:`V^\top D V = I` (scikit-learn's ``SpectralEmbedding`` returns exactly these
:math:`D^{-1/2} u`).

New points by the Nyström formula (Bengio et al. 2004): :math:`L v = \lambda D v` is
:math:`W v = (1 - \lambda) D v`, i.e. every training coordinate is a weighted mean of its
neighbours' coordinates, scaled,

.. math::
    v_i = \frac{1}{1 - \lambda} \, \frac{\sum_j w_{ij} v_j}{\sum_j w_{ij}},

and the same right-hand side, with the weights :math:`w_j(y)` a new point :math:`y` would get
in the graph, defines :math:`v(y)`. The new point joins the graph as a training point would:
to its :math:`k` nearest training points, and to every training point that would count it
among *its* :math:`k` nearest (the "or" rule of the kNN graph), or to all within the radius.
A training point given again (left out of its own neighbourhood, as in ``fit``) gets back its
row of the graph, so ``transform`` reproduces the embedding exactly.
"""

import numpy as np
import scipy.sparse as sp

from ._typing import ArrayLike, FloatArray, Matrix, Self, Sparse
from ._validation import (
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_positive,
)
from .base import Estimator
from .graphs import (
    BRUTE_BLOCK_ENTRIES,
    PRECOMPUTED_GRAPH,
    SPECTRAL_CONSEQUENCE,
    _smallest_connecting_from_distances,
    check_connected,
    graph_from_sparse_distances,
    nearest_neighbors,
    neighbourhood_graph,
    neighbourhood_graph_from_distances,
    pairwise_distances,
    precomputed_graph_fix,
    same_rows,
    smallest_connecting_radius,
    squared_distances,
)
from .spectral import TRIVIAL_SKIPPED, bottom_eigenpairs, check_solver, flip_signs

LAPLACIANS = ("unnormalized", "sym", "rw")
AFFINITIES = ("nearest_neighbors", "precomputed", "precomputed_nearest_neighbors")
PRECOMPUTED_AFFINITY = "the precomputed affinity matrix"
TIE_RTOL = 1e-9  # new points: a distance within this fraction of a neighbour radius counts as in
NYSTROM_MIN_GAP = 1e-10  # transform needs |1 - lambda| above this for every eigenvalue used
DEFAULT_NEIGHBOUR_FRACTION = 10  # n_neighbors=None: k = max(N // 10, 1), SpectralEmbedding's


def heat_kernel_weights(G: Sparse, t: float | None = None) -> Sparse:
    r"""Edge weights from edge lengths: :math:`w_{ij} = \exp(-d_{ij}^2 / t)`, or 1 on every
    edge when ``t`` is None (binary weights). Same sparsity pattern as ``G``."""
    if not sp.issparse(G):
        raise TypeError("G must be a scipy.sparse graph of edge lengths (e.g. from knn_graph).")
    W = sp.csr_matrix(G, dtype=np.float64, copy=True)
    if t is None:
        W.data[:] = 1.0
    else:
        check_positive(t, "t")
        W.data = np.exp(-(W.data**2) / t)
    return W


def laplacian(W: Matrix, *, kind: str = "unnormalized") -> Sparse:
    r"""Graph Laplacian of a symmetric weight matrix.

    ``"unnormalized"``: :math:`L = D - W`; ``"sym"``: :math:`L_{sym} = I - D^{-1/2} W D^{-1/2}`;
    ``"rw"``: :math:`L_{rw} = I - D^{-1} W` (not symmetric). :math:`L \mathbf 1 = 0`,
    :math:`L_{sym} D^{1/2} \mathbf 1 = 0`, :math:`L_{rw} \mathbf 1 = 0`.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (N, N)
    """
    if kind not in LAPLACIANS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, LAPLACIANS))}, got {kind!r}.")
    W = sp.csr_matrix(W, dtype=np.float64)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square, got shape {W.shape}.")
    check_array(W.data, name="W", ensure_2d=False)
    if W.nnz and W.data.min() < 0:
        raise ValueError("W has negative weights; graph weights must be >= 0.")
    deg = np.asarray(W.sum(axis=1)).ravel()
    if kind == "unnormalized":
        return sp.csr_matrix(sp.diags(deg) - W)
    if (deg == 0).any():
        raise ValueError(
            f"Node(s) {np.flatnonzero(deg == 0)[:5].tolist()} have degree 0 (no edges), so the "
            "normalised Laplacian is undefined; connect them (larger n_neighbors or radius)."
        )
    scale = 1.0 / np.sqrt(deg) if kind == "sym" else 1.0 / deg
    left = sp.diags(scale)
    right = left if kind == "sym" else sp.eye(len(deg))
    return sp.csr_matrix(sp.eye(len(deg)) - left @ W @ right)


def check_affinity(W: ArrayLike, *, name: str = PRECOMPUTED_AFFINITY) -> sp.csr_matrix:
    r"""A precomputed affinity (weight) matrix :math:`W`, dense or sparse: square, finite,
    :math:`w_{ij} \ge 0` and symmetric (up to the round-off of its dtype); returned as a
    float64 CSR matrix, symmetrised, with its diagonal removed.

    A self-loop :math:`w_{ii}` adds nothing to :math:`z^\top L z = \tfrac12 \sum_{ij}
    w_{ij} (z_i - z_j)^2` (its term is :math:`(z_i - z_i)^2 = 0`) but would add to the degree
    :math:`d_i`; so it is dropped (a kernel matrix has :math:`k(x, x) = 1` there; scikit-learn's
    ``spectral_embedding`` ignores the diagonal too).
    """
    dtype = getattr(W, "dtype", np.dtype(np.float64))
    # the symmetry tolerance: the round-off of the input's precision (float32: sqrt(eps) 3e-4)
    eps = np.finfo(dtype if np.issubdtype(dtype, np.floating) else np.float64).eps
    A = check_array(W, name=name, min_samples=2, accept_sparse=True, copy=True)
    if A.shape[0] != A.shape[1]:
        raise ValueError(
            f"{name} must be square (n_samples x n_samples) but has shape {A.shape}: it holds "
            "the weight w_ij between every two points i and j."
        )
    A = sp.csr_matrix(A)
    if A.nnz and A.data.min() < 0:
        raise ValueError(
            f"{name} has negative entries (the most negative {A.data.min():.6g}); affinities "
            "are weights w_ij >= 0 (a similarity, e.g. exp(-d^2 / t)), not distances or "
            "correlations. For a graph of distances use affinity='precomputed_nearest_neighbors'."
        )
    scale = float(abs(A).max()) if A.nnz else 0.0
    diff = abs(A - A.T)
    if diff.nnz and diff.max() > np.sqrt(eps) * scale:
        coo = diff.tocoo()
        at = int(np.argmax(coo.data))
        i, j = int(coo.row[at]), int(coo.col[at])
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) = {A[i, j]:.6g} but ({j}, {i}) = "
            f"{A[j, i]:.6g}; the graph of a Laplacian is undirected. Symmetrise it, e.g. "
            "(W + W.T) / 2."
        )
    A = sp.csr_matrix((A + A.T) / 2)
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def _embed(W, n_components, *, norm_laplacian=True, skip=1, solver="auto"):
    r"""Steps 2 and 3 from the weights ``W`` (symmetric, no self-loops): the ``n_components``
    bottom eigenpairs of :math:`L v = \lambda D v` (``norm_laplacian``; :math:`V^\top D V = I`)
    or of :math:`L v = \lambda v` (:math:`V^\top V = I`), after the ``skip`` smallest."""
    L = laplacian(W)
    D = sp.diags(L.diagonal()) if norm_laplacian else None  # degrees: L = D - W, no self-loops
    return bottom_eigenpairs(L, n_components, B=D, skip=skip, solver=solver)


def _check_degrees(W, why, fix):
    r"""Refuse a point of degree 0: :math:`Z^\top D Z = I` does not involve it."""
    degree = np.asarray(W.sum(axis=1)).ravel()
    lonely = np.flatnonzero(degree == 0)
    if len(lonely):
        raise ValueError(
            f"Point(s) {lonely[:5].tolist()} have degree 0 ({why}), so the constraint "
            f"Z^T D Z = I does not involve them and the generalised eigenproblem L v = lambda "
            f"D v has no solution; {fix}, or remove those points."
        )


def spectral_embedding(adjacency: ArrayLike, n_components: int = 8, *,
                       norm_laplacian: bool = True, drop_first: bool = True,
                       eigen_solver: str = "auto") -> FloatArray:
    r"""Laplacian eigenmaps of a graph given by its weights: steps 2 and 3 of the recipe.

    With :math:`W` = ``adjacency`` (symmetric, :math:`w_{ij} \ge 0`, the diagonal ignored:
    :func:`check_affinity`), the degrees :math:`D = \operatorname{diag}(\sum_j w_{ij})` and
    :math:`L = D - W`, the embedding is the bottom of :math:`L v = \lambda D v` with
    :math:`V^\top D V = I` (``norm_laplacian=True``: solved through
    :math:`L_{sym} = D^{-1/2} L D^{-1/2}`), or of :math:`L v = \lambda v` with
    :math:`V^\top V = I` (``norm_laplacian=False``). ``drop_first`` skips the trivial
    solution, the constant vector of eigenvalue 0. The same function as scikit-learn's
    ``spectral_embedding`` (whose ``eigen_solver`` names approximate solvers; here every solve
    is exact), equal to it up to the sign of each column.

    Parameters
    ----------
    adjacency : ndarray or sparse matrix of shape (N, N)
        The affinity matrix :math:`W` (e.g. a kernel matrix, or a kNN graph of weights).
    n_components : int, default=8
    norm_laplacian : bool, default=True
    drop_first : bool, default=True
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"

    Returns
    -------
    embedding : ndarray of shape (N, n_components)
        Largest-magnitude entry of each column positive (:func:`~mlnotes.spectral.flip_signs`).

    Warns
    -----
    mlnotes.DisconnectedGraphWarning
        If the graph of :math:`W` is disconnected (one zero eigenvalue per component).

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes.eigenmaps import spectral_embedding
    >>> W = np.ones((4, 4))  # the complete graph on 4 points
    >>> spectral_embedding(W, n_components=3, drop_first=False).std(axis=0)[0] < 1e-12
    np.True_
    """
    check_solver(eigen_solver, "eigen_solver")
    W = check_affinity(adjacency, name="adjacency")
    skip = 1 if drop_first else 0
    check_n_components(n_components, W.shape[0] - skip,
                       what=TRIVIAL_SKIPPED if drop_first else "n_samples")
    check_connected(W, None, consequence=SPECTRAL_CONSEQUENCE, warn=True,
                    what="The graph of the affinity matrix", fix="add edges between its pieces")
    if norm_laplacian:
        _check_degrees(W, "no edge of positive weight", "give them edges")
    _, V = _embed(W, n_components, norm_laplacian=norm_laplacian, skip=skip,
                  solver=eigen_solver)
    return flip_signs(V)


class LaplacianEigenmaps(Estimator):
    r"""Laplacian eigenmaps.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int or None, default=None
        :math:`k` of the kNN graph ("or" symmetrisation). None (with ``radius=None``):
        :math:`k = \max(\lfloor N / 10 \rfloor, 1)`, scikit-learn's ``SpectralEmbedding``
        default, so that the default fits any number of points (a fixed ``k = 10`` cannot fit
        10 points); the value used is ``n_neighbors_``.
    radius : float or None, default=None
        Use the epsilon graph instead (``n_neighbors`` must then be None).
    t : float or None, default=None
        Heat-kernel width; None gives binary weights.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
    affinity : {"nearest_neighbors", "precomputed", "precomputed_nearest_neighbors"}
        What ``fit`` takes, as scikit-learn's ``SpectralEmbedding``: by default the data
        (the graph and weights above); ``"precomputed"``: the weights :math:`W` themselves, an
        ``N x N`` dense or sparse affinity matrix (symmetric, :math:`\ge 0`, its diagonal
        ignored; see :func:`spectral_embedding`; ``n_neighbors``, ``radius`` and ``t`` are not
        used);
        ``"precomputed_nearest_neighbors"``: a sparse neighbours graph of *distances*
        (scikit-learn's ``KNeighborsTransformer(mode="distance")``), from whose stored edges
        the kNN graph (each row's ``n_neighbors`` shortest, "or" rule) or the epsilon graph
        (``radius``) is taken and weighted as above, so that with
        ``KNeighborsTransformer(n_neighbors=k, mode="distance")`` the pipeline gives the
        embedding of ``LaplacianEigenmaps(n_neighbors=k)``. Neither has ``transform``.

    Warns
    -----
    mlnotes.DisconnectedGraphWarning
        If the neighbourhood graph is disconnected: :math:`L` then has one zero eigenvalue per
        component, and each component is embedded only up to its own translation and scale.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
        Generalised eigenvectors with :math:`Z^\top D Z = I`, largest-magnitude entry of each
        column positive (scikit-learn's rule), the trivial one skipped.
    eigenvalues_ : ndarray of shape (n_components,)
        The non-trivial eigenvalues :math:`\lambda` of :math:`L v = \lambda D v`, increasing.
    affinity_matrix_ : scipy.sparse.csr_matrix
        The weights :math:`W`.
    n_neighbors_ : int or None
        The :math:`k` used (None for the epsilon graph).
    X_fit_ : ndarray of shape (N, p)
        Training data, for ``transform``.

    Notes
    -----
    Sparse ``X`` (``scipy.sparse``) is accepted (and sparse new points): the graph then comes
    from the full matrix of Euclidean distances, computed by sparse products (:math:`O(N^2)`
    memory, where dense data use a k-d tree or blocks).

    Examples
    --------
    >>> from mlnotes import LaplacianEigenmaps
    >>> from mlnotes.datasets import make_s_curve
    >>> X, t = make_s_curve(300, random_state=0)
    >>> LaplacianEigenmaps(n_components=2, n_neighbors=10).fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, n_neighbors=None, radius=None, t=None,
                 eigen_solver="auto", affinity="nearest_neighbors"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.t = t
        self.eigen_solver = eigen_solver
        self.affinity = affinity

    def _tags(self):
        return {"input_tags.sparse": True,
                "input_tags.pairwise": self.affinity in AFFINITIES[1:]}

    def _default_n_neighbors(self, n):
        if self.n_neighbors is None and self.radius is None:
            return max(n // DEFAULT_NEIGHBOUR_FRACTION, 1)
        return self.n_neighbors

    def _fit_precomputed(self, X):
        """``affinity="precomputed"`` or ``"precomputed_nearest_neighbors"``."""
        if self.affinity == "precomputed":
            W = check_affinity(X)
            self.n_neighbors_ = None
            what = "The graph of the precomputed affinity matrix"
            fix = "add edges between its pieces"
            why, cure = "no edge of positive weight in the affinity matrix", "give them edges"
        else:
            n = X.shape[0] if getattr(X, "ndim", 0) == 2 else 0
            self.n_neighbors_ = self._default_n_neighbors(n)
            G = graph_from_sparse_distances(X, n_neighbors=self.n_neighbors_,
                                            radius=self.radius)
            W = heat_kernel_weights(G, self.t)
            what = PRECOMPUTED_GRAPH.capitalize()
            fix = precomputed_graph_fix(self.n_neighbors_, self.radius)
            why = ("no stored edge within the radius" if self.radius is not None else
                   f"heat-kernel weights exp(-d^2 / t) that all underflow to 0 with t={self.t}")
            cure = ("increase radius" if self.radius is not None
                    else "increase t (e.g. to the median squared edge length) or use t=None")
        check_n_components(self.n_components, W.shape[0] - 1, what=TRIVIAL_SKIPPED)
        self.affinity_matrix_ = W
        check_connected(W, None, consequence=SPECTRAL_CONSEQUENCE, warn=True, what=what,
                        fix=fix)
        _check_degrees(W, why, cure)
        self.eigenvalues_, V = _embed(W, self.n_components, solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        return self

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        check_solver(self.eigen_solver, "eigen_solver")
        if self.affinity not in AFFINITIES:
            raise ValueError(
                f"affinity must be one of {', '.join(map(repr, AFFINITIES))}, got "
                f"{self.affinity!r}."
            )
        if self.affinity != "nearest_neighbors":
            return self._fit_precomputed(X)
        X = check_array(X, min_samples=2, accept_sparse=True, copy=True)  # kept as X_fit_
        check_n_components(self.n_components, X.shape[0] - 1, what=TRIVIAL_SKIPPED)
        self.n_neighbors_ = self._default_n_neighbors(X.shape[0])
        # sparse data: the graph from the full distance matrix (sparse products)
        dist = pairwise_distances(X) if sp.issparse(X) else None
        if dist is None:
            G = neighbourhood_graph(X, n_neighbors=self.n_neighbors_, radius=self.radius,
                                    consequence=SPECTRAL_CONSEQUENCE, warn=True)
        else:
            G = neighbourhood_graph_from_distances(dist, n_neighbors=self.n_neighbors_,
                                                   radius=self.radius,
                                                   consequence=SPECTRAL_CONSEQUENCE, warn=True)
        self.affinity_matrix_ = heat_kernel_weights(G, self.t)
        self._check_no_isolated_points(X, dist)
        self.eigenvalues_, V = _embed(self.affinity_matrix_, self.n_components,
                                      solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        self.X_fit_ = X
        if self.radius is None and dist is not None:  # k-th smallest off-diagonal distance
            off = dist + np.diag(np.full(len(dist), np.inf))
            self._kth_d2 = np.partition(off, self.n_neighbors_ - 1, axis=1)[
                :, self.n_neighbors_ - 1] ** 2
        else:  # dense data: found by transform when it needs them (not every fit does)
            self._kth_d2 = None
        return self

    def _kth_squared_distances(self):
        """Squared distance of each training point to its k-th nearest (for ``transform``).

        Dense data: searched on each call, not stored, as ``transform`` leaves the estimator
        unchanged (scikit-learn's ``check_dict_unchanged``)."""
        if self._kth_d2 is not None:
            return self._kth_d2
        X = self.X_fit_
        kth = nearest_neighbors(X, self.n_neighbors_)[:, -1]
        return np.einsum("ij,ij->i", X[kth] - X, X[kth] - X)

    def _check_no_isolated_points(self, X, D=None):
        r"""A point of degree 0 (no edge, or every weight underflowing) is a component of its
        own that :math:`Z^\top D Z = I` does not constrain: the problem has no solution."""
        degree = np.asarray(self.affinity_matrix_.sum(axis=1)).ravel()
        if degree.min() > 0:
            return
        lonely = np.flatnonzero(degree == 0)
        edges = np.diff(self.affinity_matrix_.indptr)  # stored edges per point, weight 0 or not
        if (edges[lonely] == 0).any():  # only an epsilon graph leaves a point without an edge
            why = f"no other point within radius={self.radius:g}"
            least = (smallest_connecting_radius(X) if D is None
                     else _smallest_connecting_from_distances(D, self.radius))
            fix = f"increase radius to at least {least:.6g}"
        else:
            why = f"heat-kernel weights exp(-d^2 / t) that all underflow to 0 with t={self.t:g}"
            fix = "increase t (e.g. to the median squared edge length) or use t=None"
        _check_degrees(self.affinity_matrix_, why, fix)

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def _new_point_weights(self, Y):
        """Weights ``(M, N)`` of new points to the training points, by the graph's rule."""
        X = self.X_fit_
        D2 = squared_distances(Y, X)
        nearest = np.argmin(D2, axis=1)
        twin = np.flatnonzero(same_rows(X[nearest], Y))
        D2[twin, nearest[twin]] = np.inf  # a training point is not its own neighbour
        if self.radius is not None:
            edge = D2 <= self.radius**2
        else:
            k = self.n_neighbors_
            kth_of_y = np.partition(D2, k - 1, axis=1)[:, k - 1:k]
            # y -> its k nearest, or x_j -> y when y is within x_j's k-th neighbour distance
            edge = (D2 <= kth_of_y) | (D2 <= self._kth_squared_distances()[None, :]
                                       * (1.0 + TIE_RTOL))
        if self.t is None:
            return edge.astype(float)
        return np.where(edge, np.exp(-np.where(edge, D2, 0.0) / self.t), 0.0)

    def transform(self, X: ArrayLike) -> FloatArray:
        r"""Embed new points by the Nyström formula
        :math:`v(y) = \frac{1}{1 - \lambda} \sum_j w_j(y) v_j / \sum_j w_j(y)`.

        See the module docstring for how a new point joins the graph. Training points given
        again land exactly on their embedding.

        Parameters
        ----------
        X : ndarray of shape (M, p)

        Returns
        -------
        Z : ndarray of shape (M, n_components)
        """
        check_is_fitted(self, "embedding_")
        if self.affinity != "nearest_neighbors":
            raise ValueError(
                f"transform places new points by their weights to the training points, which "
                f"affinity={self.affinity!r} does not define from data; fit on the data "
                "(affinity='nearest_neighbors'), or embed all the points in one fit."
            )
        Y = check_n_features(X, self.X_fit_.shape[1], estimator=self, accept_sparse=True)
        if np.any(np.abs(1.0 - self.eigenvalues_) < NYSTROM_MIN_GAP):
            raise ValueError(
                f"The eigenvalues {self.eigenvalues_} include lambda = 1, where W v = 0 and the "
                "Nyström factor 1 / (1 - lambda) is undefined; use fewer components or a "
                "different graph (n_neighbors, radius or t)."
            )
        Z = np.empty((Y.shape[0], self.embedding_.shape[1]))
        block = max(1, BRUTE_BLOCK_ENTRIES // self.X_fit_.shape[0])
        for start in range(0, Y.shape[0], block):
            W = self._new_point_weights(Y[start:start + block])
            degree = W.sum(axis=1)
            if (degree == 0).any():
                lonely = start + np.flatnonzero(degree == 0)
                raise ValueError(
                    f"New point(s) {lonely[:5].tolist()} have no training point within "
                    f"radius={self.radius} (or all their weights underflow with t={self.t}), "
                    "so the Nyström formula is undefined; increase radius (or t) or drop them."
                )
            # v(y) = (1 / (1 - lambda)) sum_j w_j(y) v_j / d(y)
            Z[start:start + block] = (W @ self.embedding_) / degree[:, None]
        return Z / (1.0 - self.eigenvalues_)
