r"""Locally linear embedding (Roweis and Saul, 2000).

Step 1: the :math:`k` nearest neighbours :math:`N(i)` of each point. Step 2: reconstruction
weights, then the alignment matrix. Each point is written as an affine combination of its
neighbours, :math:`\min_w \|x_i - \sum_{j \in N(i)} w_{ij} x_j\|^2` subject to
:math:`\sum_j w_{ij} = 1`. With the local Gram matrix
:math:`G_i = (x_j - x_i)^\top (x_l - x_i)` over :math:`j, l \in N(i)`, the Lagrangian gives
:math:`w_i = G_i^{-1} \mathbf 1_k / (\mathbf 1_k^\top G_i^{-1} \mathbf 1_k)`; :math:`G_i` is
regularised by :math:`G_i + r\,\operatorname{tr}(G_i)\, I_k` (singular when :math:`k > D`).
The weights can be negative. Step 3: the embedding keeps the same weights,
:math:`\min \sum_i \|z_i - \sum_j w_{ij} z_j\|^2 = \operatorname{tr}(Z^\top M Z)` with
:math:`M = (I - W)^\top (I - W)`, subject to :math:`Z^\top Z = I_L`: the bottom eigenvectors of
:math:`M` after the constant one (eigenvalue 0, since rows of :math:`W` sum to one).

Scaling: columns of ``Z`` have unit norm, as in scikit-learn; the notes' constraint
:math:`\tfrac1N Z^\top Z = I` gives :math:`\sqrt N` times these coordinates.

The embedding dimension must be below the neighbourhood size, :math:`d < k` (Saul and Roweis
2003): each point's reconstruction uses its :math:`k` neighbours, and with :math:`d \ge k`
the local constraints no longer determine a :math:`d`-dimensional embedding.

Duplicate points are fitted where the weights exist: a twin among the neighbours gives
:math:`G_i` a zero row and column, and the ridge keeps :math:`G_i + r \operatorname{tr}(G_i) I`
invertible while :math:`\operatorname{tr}(G_i) > 0` (some neighbour differs from the point).
A point whose :math:`k` neighbours all coincide with it (:math:`G_i = 0`), or any duplicate
with ``reg=0``, has no weights: a ``ValueError`` names the rows. A disconnected neighbourhood
graph gives :math:`M` one zero eigenvalue per component, so each component is embedded only up
to its own translation and scale: ``fit`` warns (:class:`mlnotes.DisconnectedGraphWarning`,
with the component sizes and the smallest ``n_neighbors`` that connects the graph) and returns
that finite embedding, as scikit-learn's ``LocallyLinearEmbedding`` returns it.

New points (Saul and Roweis 2003, the reconstruction-weight extension): a new point
:math:`y` gets weights from its :math:`k` nearest training points exactly as a training
point does, and is placed where the same weights put it in the embedding,
:math:`z(y) = \sum_{j \in N(y)} w_j(y)\, z_j`. A training point, given again, is
reconstructed from its own neighbours (not from itself), so it lands at
:math:`(W Z)_i = z_i - ((I - W) Z)_i`: off its embedding by the residual the embedding leaves,
whose total squared size is the reconstruction error
:math:`\|(I - W) Z\|_F^2 = \operatorname{tr}(Z^\top M Z)`.
"""

import numpy as np
import scipy.sparse as sp

from ._validation import (
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_n_neighbors,
    check_positive,
)
from .base import Estimator
from .graphs import SPECTRAL_CONSEQUENCE, check_connected, nearest_neighbors
from .spectral import TRIVIAL_SKIPPED, bottom_eigenpairs, check_solver, flip_signs


def lle_weights(X, n_neighbors, *, reg=1e-3):
    r"""LLE reconstruction weights, one batched solve for all points.

    Parameters
    ----------
    X : ndarray of shape (N, D)
        Duplicate rows are allowed where the weights stay defined (see
        :func:`reconstruction_weights`): a point whose :math:`k` neighbours all coincide with
        it, or a duplicate with ``reg=0``, raises a ``ValueError`` naming the rows.
    n_neighbors : int
    reg : float, default=1e-3
        :math:`r` in :math:`G_i + r \operatorname{tr}(G_i) I`.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (N, N)
        Row :math:`i` holds :math:`w_{ij}` for :math:`j \in N(i)`; every row sums to one.
    """
    X = check_array(X, min_samples=2)
    n_neighbors = check_n_neighbors(n_neighbors, len(X))
    check_positive(reg, "reg", allow_zero=True)
    N, k = len(X), n_neighbors
    ind = nearest_neighbors(X, k)
    w = reconstruction_weights(X, X, ind, reg=reg)
    return sp.csr_matrix((w.ravel(), ind.ravel(), np.arange(0, N * k + 1, k)), shape=(N, N))


def reconstruction_weights(Y, X, ind, *, reg=1e-3):
    r"""Weights reconstructing each row :math:`y_i` of ``Y`` from the rows ``X[ind[i]]``.

    :math:`w_i = G_i^{-1} \mathbf 1_k / (\mathbf 1_k^\top G_i^{-1} \mathbf 1_k)` with the
    local Gram matrix :math:`G_i = (x_j - y_i)^\top (x_l - y_i)`, :math:`j, l \in` ``ind[i]``,
    regularised by :math:`r \operatorname{tr}(G_i)`; all points in one batched solve.

    Duplicate points: a neighbour identical to :math:`y_i` gives :math:`G_i` a zero row and
    column, which the ridge :math:`r \operatorname{tr}(G_i) I` keeps invertible as long as some
    neighbour differs from :math:`y_i` (:math:`\operatorname{tr}(G_i) > 0`); the twin then gets
    most of the weight, since it reconstructs :math:`y_i` exactly. The weights are undefined,
    and a ``ValueError`` names the rows, where every neighbour coincides with :math:`y_i`
    (:math:`G_i = 0`), or where a neighbour does and ``reg=0``.

    Parameters
    ----------
    Y : ndarray of shape (M, p)
    X : ndarray of shape (N, p)
    ind : ndarray of shape (M, k)
    reg : float

    Returns
    -------
    w : ndarray of shape (M, k)
        Row :math:`i` sums to one.
    """
    M, k = ind.shape
    Xi = X[ind] - Y[:, None, :]  # (M, k, p): neighbours relative to y_i
    G = Xi @ Xi.transpose(0, 2, 1)  # local Gram matrices G_i, (M, k, k)
    trace = np.trace(G, axis1=1, axis2=2)
    _check_coinciding_neighbours(Y, X, Xi, trace, reg)
    G[:, np.arange(k), np.arange(k)] += (reg * trace)[:, None]
    try:
        w = np.linalg.solve(G, np.ones((M, k, 1)))[:, :, 0]  # G_i^{-1} 1, all i at once
    except np.linalg.LinAlgError:
        raise ValueError(
            f"A local Gram matrix is singular: with n_neighbors={k} > n_features={X.shape[1]} "
            "the neighbours are linearly dependent; use reg > 0 (e.g. the default 1e-3)."
        ) from None
    w /= w.sum(axis=1, keepdims=True)  # divide by 1^T G_i^{-1} 1: weights sum to one
    return w


MAX_NAMED = 5  # rows named in an error message


def _check_coinciding_neighbours(Y, X, Xi, trace, reg):
    r"""Raise a ``ValueError`` naming the points whose weights duplicates leave undefined:
    all neighbours identical to the point (:math:`G_i = 0`), or any with ``reg=0``.

    ``transform`` never meets the first case after a successful ``fit``: a new point equal to
    :math:`m` training rows leaves one out as itself (:func:`new_point_neighbors`), and fit
    already needed :math:`k \ge m`."""
    k = Xi.shape[1]
    all_same = trace == 0
    bad = all_same if all_same.any() or reg > 0 else np.all(Xi == 0, axis=2).any(axis=1)
    if not bad.any():
        return
    points = np.flatnonzero(bad)
    # the training rows identical to each offending point (in fit they include the point)
    copies = [tuple(np.flatnonzero(np.all(X == Y[i], axis=1))) for i in points]
    copies = list(dict.fromkeys(copies))  # each group once, in order of first appearance
    named = ", ".join(str(int(i)) for i in points[:MAX_NAMED])
    named += f" (and {len(points) - MAX_NAMED} more)" if len(points) > MAX_NAMED else ""
    groups = "; ".join(", ".join(str(int(j)) for j in c) for c in copies[:3])
    if all_same.any():
        needed = max(len(c) for c in copies)
        raise ValueError(
            f"Point(s) {named} coincide with all {k} of their nearest neighbours (rows {groups} "
            f"are identical), so the local Gram matrix G_i is zero and any weights summing to "
            f"one reconstruct the point exactly: its LLE weights are undefined. Remove the "
            f"duplicate rows (e.g. np.unique(X, axis=0)) or choose n_neighbors >= {needed}, so "
            f"that every point has a neighbour that differs from it."
        )
    raise ValueError(
        f"With reg=0 the local Gram matrix of point(s) {named} is singular: each has a "
        f"neighbour identical to it (rows {groups} are identical). Use reg > 0 (e.g. the "
        f"default 1e-3), which handles duplicates, or remove them (e.g. np.unique(X, axis=0))."
    )


def new_point_neighbors(Y, X, n_neighbors):
    """The ``n_neighbors`` nearest rows of ``X`` for each row of ``Y``, nearest first, leaving
    out a row of ``X`` identical to the query (a training point given again gets its own
    neighbours from fit, not itself)."""
    ind = nearest_neighbors(X, n_neighbors + 1, Y)
    twin = np.all(X[ind[:, 0]] == Y, axis=1)
    return np.where(twin[:, None], ind[:, 1:], ind[:, :-1])


def alignment_matrix(W):
    r"""The alignment matrix :math:`M = (I - W)^\top (I - W)` (sparse, symmetric, PSD).

    :math:`z^\top M z = \sum_i (z_i - \sum_j w_{ij} z_j)^2`; :math:`M \mathbf 1 = 0` when the
    rows of :math:`W` sum to one.
    """
    if not sp.issparse(W) or W.shape[0] != W.shape[1]:
        raise TypeError("W must be a square scipy.sparse weight matrix (e.g. from lle_weights).")
    I_W = sp.eye(W.shape[0], format="csr") - sp.csr_matrix(W)
    return sp.csr_matrix(I_W.T @ I_W)


class LLE(Estimator):
    r"""Locally linear embedding (standard LLE).

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=5
    reg : float, default=1e-3
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"

    Warns
    -----
    mlnotes.DisconnectedGraphWarning
        If the neighbourhood graph is disconnected: :math:`M` then has one zero eigenvalue per
        component, and each component is embedded only up to its own translation and scale.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
        Unit-norm columns (scikit-learn's scaling; the notes' :math:`\sqrt N` scaling is
        ``sqrt(N) * embedding_``); largest-magnitude entry of each column positive.
    weights_ : scipy.sparse.csr_matrix of shape (N, N)
    X_fit_ : ndarray of shape (N, p)
        Training data, for ``transform``.
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues of :math:`M` used (after the trivial 0).
    reconstruction_error_ : float
        :math:`\operatorname{tr}(Z^\top M Z)`, the sum of those eigenvalues (as scikit-learn).

    Examples
    --------
    >>> from mlnotes import LLE
    >>> from mlnotes.datasets import make_s_curve
    >>> X, t = make_s_curve(300, random_state=0)
    >>> LLE(n_components=2, n_neighbors=10).fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, n_neighbors=5, reg=1e-3, eigen_solver="auto"):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.eigen_solver = eigen_solver

    def fit(self, X, y=None):
        X = check_array(X, min_samples=2)
        check_solver(self.eigen_solver, "eigen_solver")
        check_n_components(self.n_components, len(X) - 1, what=TRIVIAL_SKIPPED)
        k = check_n_neighbors(self.n_neighbors, len(X))
        if self.n_components >= k:
            raise ValueError(
                f"n_components={self.n_components} must be smaller than n_neighbors={k}: LLE "
                f"reconstructs each point from its k neighbours, and those local "
                f"reconstructions cannot determine an embedding of dimension d >= k (Saul and "
                f"Roweis require d < k). Choose n_neighbors > n_components (usually several "
                f"times n_components, e.g. n_neighbors={max(2 * self.n_components, 10)}), or "
                f"fewer components."
            )
        self.weights_ = lle_weights(X, self.n_neighbors, reg=self.reg)
        check_connected(abs(self.weights_), X, n_neighbors=self.n_neighbors,
                        consequence=SPECTRAL_CONSEQUENCE, warn=True)
        M = alignment_matrix(self.weights_)
        self.eigenvalues_, V = bottom_eigenpairs(M, self.n_components, skip=1,
                                                 solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        self.reconstruction_error_ = float(self.eigenvalues_.sum())
        self.X_fit_ = X
        return self

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_

    def transform(self, X):
        r"""Place new points by their reconstruction weights:
        :math:`z(y) = \sum_{j \in N(y)} w_j(y)\, z_j`.

        The weights come from the :math:`k` nearest training points, as in ``fit`` (a training
        point given again is reconstructed from its own neighbours, see the module docstring).

        Parameters
        ----------
        X : ndarray of shape (M, p)

        Returns
        -------
        Z : ndarray of shape (M, n_components)
        """
        check_is_fitted(self, "embedding_")
        Y = check_n_features(X, self.X_fit_.shape[1], estimator=self)
        ind = new_point_neighbors(Y, self.X_fit_, self.n_neighbors)
        w = reconstruction_weights(Y, self.X_fit_, ind, reg=self.reg)
        return np.einsum("mk,mkd->md", w, self.embedding_[ind])  # sum_j w_j z_j
