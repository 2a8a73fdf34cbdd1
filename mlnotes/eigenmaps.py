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
    SPECTRAL_CONSEQUENCE,
    _smallest_connecting_from_distances,
    nearest_neighbors,
    neighbourhood_graph,
    neighbourhood_graph_from_distances,
    pairwise_distances,
    same_rows,
    smallest_connecting_radius,
    squared_distances,
)
from .spectral import TRIVIAL_SKIPPED, bottom_eigenpairs, check_solver, flip_signs

LAPLACIANS = ("unnormalized", "sym", "rw")
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
                 eigen_solver="auto"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.t = t
        self.eigen_solver = eigen_solver

    def _tags(self):
        return {"input_tags.sparse": True}

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        X = check_array(X, min_samples=2, accept_sparse=True, copy=True)  # kept as X_fit_
        check_solver(self.eigen_solver, "eigen_solver")
        check_n_components(self.n_components, X.shape[0] - 1, what=TRIVIAL_SKIPPED)
        self.n_neighbors_ = self.n_neighbors
        if self.n_neighbors is None and self.radius is None:
            self.n_neighbors_ = max(X.shape[0] // DEFAULT_NEIGHBOUR_FRACTION, 1)
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
        L = laplacian(self.affinity_matrix_)
        D = sp.diags(L.diagonal())  # degrees: L = D - W and W has no self-loops
        self.eigenvalues_, V = bottom_eigenpairs(L, self.n_components, B=D, skip=1,
                                                 solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        self.X_fit_ = X
        if self.radius is None and dist is not None:  # k-th smallest off-diagonal distance
            off = dist + np.diag(np.full(len(dist), np.inf))
            self._kth_d2 = np.partition(off, self.n_neighbors_ - 1, axis=1)[
                :, self.n_neighbors_ - 1] ** 2
        elif self.radius is None:  # squared distance of each point to its k-th neighbour
            kth = nearest_neighbors(X, self.n_neighbors_)[:, -1]
            self._kth_d2 = np.einsum("ij,ij->i", X[kth] - X, X[kth] - X)
        return self

    def _check_no_isolated_points(self, X, D=None):
        """A point of degree 0 (no edge, or every weight underflowing) is a component of its
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
        raise ValueError(
            f"Point(s) {lonely[:5].tolist()} have degree 0 ({why}), so the constraint "
            f"Z^T D Z = I does not involve them and the generalised eigenproblem L v = lambda "
            f"D v has no solution; {fix}, or remove those points."
        )

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
            edge = (D2 <= kth_of_y) | (D2 <= self._kth_d2[None, :] * (1.0 + TIE_RTOL))
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
