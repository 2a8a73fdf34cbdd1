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

The LLE family (scikit-learn's ``method=`` names). Every member keeps steps 1 and 3 and changes
only step 2, what each neighbourhood asks of the embedding. Each asks that some local linear
maps annihilate the embedding coordinates of the neighbourhood: with :math:`S_i` the
:math:`N \times m` selection of the neighbourhood's rows and :math:`B_i` an
:math:`m \times s_i` matrix of local weight vectors, the cost is
:math:`\sum_i \|B_i^\top S_i^\top Z\|_F^2 = \operatorname{tr}(Z^\top M Z)` with
:math:`M = \sum_i S_i B_i B_i^\top S_i^\top` (:func:`local_alignment_matrix`). Standard LLE
is one vector per point, :math:`B_i = (1, -w_i)` over :math:`\{i\} \cup N(i)`, which gives
:math:`M = (I - W)^\top (I - W)`. What goes wrong with it, and the fix:

* ``"modified"`` (Zhang and Wang 2007). With :math:`k > D` the constraint
  :math:`\sum_j w_{ij} = 1` leaves a :math:`(k - D)`-dimensional family of exact weight
  vectors, and the ridge :math:`r \operatorname{tr}(G_i)` picks one of them by a criterion that
  has nothing to do with the manifold (smallest norm). The embedding then only has to match
  that one vector, and it can satisfy it while distorting the neighbourhood. Modified LLE uses
  :math:`s_i` weight vectors per point, all (nearly) exact, spanning the near-null space of
  :math:`G_i` (:func:`modified_weights`).
* ``"hessian"`` (Donoho and Grimes 2003). A weight vector reproduces every affine function,
  but the cost never asks the embedding to be an isometry of the neighbourhood: any smooth
  reparametrisation of the sheet costs almost nothing, which is why standard LLE bends
  rectangles. Hessian LLE penalises the estimated second derivatives of each coordinate in
  local tangent coordinates: the null space of :math:`\int \|H f\|_F^2` is exactly the
  constants and the isometric coordinates (:func:`hessian_estimators`). Needs
  :math:`k > d(d+3)/2` neighbours (one, :math:`d` linear and :math:`d(d+1)/2` quadratic terms).
* ``"ltsa"`` (Zhang and Zha 2004). Ask instead that each neighbourhood of the embedding be an
  affine image of its tangent coordinates: the residual is the projection of
  :math:`S_i^\top Z` off :math:`[\mathbf 1, U_i]`, the orthogonal complement of the constants
  and the local tangent coordinates :math:`U_i` (:func:`ltsa_bases`).

scikit-learn's ``method="hessian"`` takes all the columns of the full QR factor beyond the
first :math:`d + 1`, not only the :math:`d(d+1)/2` quadratic ones, so for
:math:`k > 1 + d + d(d+1)/2` its :math:`B_i B_i^\top` is the projector off
:math:`[\mathbf 1, U_i]`, LTSA's: its Hessian LLE is LTSA. This module follows Donoho and
Grimes; the two agree at :math:`k = 1 + d + d(d+1)/2`, where the factor has no other columns.
"""

import numpy as np
import scipy.sparse as sp

from ._typing import ArrayLike, FloatArray, IntArray, Matrix, Self, Sparse
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


def lle_weights(X: ArrayLike, n_neighbors: int, *, reg: float = 1e-3) -> Sparse:
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


def reconstruction_weights(Y: ArrayLike, X: ArrayLike, ind: IntArray, *, reg: float = 1e-3) -> FloatArray:
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
MAX_GROUPS = 3  # groups of identical rows named in an error message


def _summarise_rows(rows):
    """``"3, 17, 40"``, or the first :data:`MAX_NAMED` and how many more (never every row)."""
    named = ", ".join(str(int(i)) for i in rows[:MAX_NAMED])
    return named + (f" (and {len(rows) - MAX_NAMED} more)" if len(rows) > MAX_NAMED else "")


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
    named = _summarise_rows(points)
    groups = "; ".join(_summarise_rows(c) for c in copies[:MAX_GROUPS])
    groups += f"; and {len(copies) - MAX_GROUPS} more group(s)" if len(copies) > MAX_GROUPS else ""
    if all_same.any():
        needed = max(len(c) for c in copies)
        if needed >= len(X):
            raise ValueError(
                f"All {len(X)} rows of X are identical: a single point has no neighbours that "
                "differ from it and no embedding. Check the data (e.g. a constant feature "
                "matrix, or a wrong column selection)."
            )
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


def new_point_neighbors(Y: ArrayLike, X: ArrayLike, n_neighbors: int) -> IntArray:
    """The ``n_neighbors`` nearest rows of ``X`` for each row of ``Y``, nearest first, leaving
    out a row of ``X`` identical to the query (a training point given again gets its own
    neighbours from fit, not itself)."""
    ind = nearest_neighbors(X, n_neighbors + 1, Y)
    twin = np.all(X[ind[:, 0]] == Y, axis=1)
    return np.where(twin[:, None], ind[:, 1:], ind[:, :-1])


def alignment_matrix(W: Matrix) -> Sparse:
    r"""The alignment matrix :math:`M = (I - W)^\top (I - W)` (sparse, symmetric, PSD).

    :math:`z^\top M z = \sum_i (z_i - \sum_j w_{ij} z_j)^2`; :math:`M \mathbf 1 = 0` when the
    rows of :math:`W` sum to one.
    """
    if not sp.issparse(W) or W.shape[0] != W.shape[1]:
        raise TypeError("W must be a square scipy.sparse weight matrix (e.g. from lle_weights).")
    I_W = sp.eye(W.shape[0], format="csr") - sp.csr_matrix(W)
    return sp.csr_matrix(I_W.T @ I_W)


METHODS = ("standard", "modified", "hessian", "ltsa")


def local_alignment_matrix(ind: IntArray, B: FloatArray, n_samples: int) -> Sparse:
    r"""The alignment matrix :math:`M = \sum_i S_i B_i B_i^\top S_i^\top` of local weights.

    :math:`z^\top M z = \sum_i \|B_i^\top z_{\mathrm{ind}[i]}\|^2`: each column of
    :math:`B_i` is a local weight vector that should annihilate the embedding coordinates of
    the rows ``ind[i]``. Zero columns (padding) change nothing.

    Parameters
    ----------
    ind : ndarray of shape (N, m)
        The rows each block acts on.
    B : ndarray of shape (N, m, s)
    n_samples : int

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, positive semi-definite; duplicate entries summed.
    """
    BBt = B @ B.transpose(0, 2, 1)  # B_i B_i^T, (N, m, m)
    m = ind.shape[1]
    rows = np.repeat(ind, m, axis=1).ravel()  # (S_i B_i B_i^T S_i^T)[ind[i][a], ind[i][b]]
    cols = np.tile(ind, (1, m)).ravel()
    return sp.csr_matrix((BBt.ravel(), (rows, cols)), shape=(n_samples, n_samples))


def local_tangent_coordinates(X: ArrayLike, ind: IntArray, n_components: int) -> FloatArray:
    r"""Orthonormal local coordinates :math:`U_i` (:math:`k \times d`) of each neighbourhood:
    the top :math:`d` left singular vectors of the centred neighbours
    :math:`X_{N(i)} - \bar x_{N(i)}` (local PCA scores, scaled to unit norm)."""
    Xi = X[ind] - X[ind].mean(axis=1, keepdims=True)  # (N, k, D), centred neighbourhoods
    U = np.linalg.svd(Xi, full_matrices=False)[0]
    return U[:, :, :n_components]


def hessian_estimators(X: ArrayLike, ind: IntArray, n_components: int, *,
                       hessian_tol: float = 1e-4) -> FloatArray:
    r"""Donoho and Grimes' local Hessian estimators :math:`H_i^\top` (:math:`k \times d(d+1)/2`).

    Fit each coordinate's values on the neighbourhood by a quadratic in the tangent
    coordinates :math:`U_i`: the columns :math:`[\mathbf 1, U_i, (u_a u_b)_{a \le b}]`,
    orthonormalised in that order (Gram-Schmidt, a reduced QR), and the last
    :math:`d(d+1)/2` columns :math:`H_i^\top` read off the quadratic part not explained by
    the constant and linear terms. :math:`H_i f = 0` for every affine function of the tangent
    coordinates, and :math:`\|H_i f\|^2` estimates :math:`\|\operatorname{Hess} f\|_F^2`.
    Columns whose sum exceeds ``hessian_tol`` in size are divided by it (the authors'
    normalisation; the columns are orthogonal to :math:`\mathbf 1`, so it acts only on
    round-off).

    Returns
    -------
    Ht : ndarray of shape (N, k, d(d+1)/2)
    """
    U = local_tangent_coordinates(X, ind, n_components)
    a, b = np.triu_indices(n_components)
    quadratic = U[:, :, a] * U[:, :, b]  # u_a u_b, a <= b
    Y = np.concatenate([np.ones(U.shape[:2] + (1,)), U, quadratic], axis=2)
    Q = np.linalg.qr(Y)[0]  # Gram-Schmidt of [1, U, quadratic], all points at once
    Ht = Q[:, :, 1 + n_components:]
    S = Ht.sum(axis=1, keepdims=True)
    return Ht / np.where(np.abs(S) < hessian_tol, 1.0, S)


def ltsa_bases(X: ArrayLike, ind: IntArray, n_components: int) -> FloatArray:
    r"""LTSA's local blocks: an orthonormal basis of the complement of
    :math:`[\mathbf 1/\sqrt k, U_i]` (:math:`k \times (k - d - 1)`), so that
    :math:`B_i B_i^\top = I - G_i G_i^\top` with :math:`G_i = [\mathbf 1/\sqrt k, U_i]`."""
    U = local_tangent_coordinates(X, ind, n_components)
    k = ind.shape[1]
    G = np.concatenate([np.full(U.shape[:2] + (1,), 1 / np.sqrt(k)), U], axis=2)
    return np.linalg.svd(G, full_matrices=True)[0][:, :, 1 + n_components:]


def modified_weights(X: ArrayLike, ind: IntArray, n_components: int, *, reg: float = 1e-3,
                     modified_tol: float = 1e-12) -> tuple[FloatArray, IntArray]:
    r"""Modified LLE's :math:`s_i` weight vectors per point (Zhang and Wang 2007).

    With :math:`G_i = V_i \Lambda_i V_i^\top` (eigenvalues decreasing), the ratio
    :math:`\rho_i` of the eigenvalues after the :math:`d` largest to those :math:`d`, and
    :math:`\eta` its median over all points, :math:`s_i` is the largest :math:`s \le k - d`
    whose :math:`s` smallest eigenvalues sum to less than :math:`\eta` times the rest (at
    least one). Each of the :math:`s_i` bottom eigenvectors :math:`V_i^{(s)}` reconstructs
    :math:`x_i` almost exactly, but does not sum to one; a Householder reflection
    :math:`H_i = I - 2hh^\top`, :math:`h \propto \alpha_i \mathbf 1_s - V_i^{(s)\top}
    \mathbf 1_k`, :math:`\alpha_i = \|V_i^{(s)\top} \mathbf 1_k\| / \sqrt{s_i}`, makes
    their column sums equal, and :math:`W_i = V_i^{(s)} H_i + (1 - \alpha_i) w_i
    \mathbf 1_s^\top` (with the regularised LLE weights :math:`w_i`) has columns summing to
    one. (:math:`h` is set to 0 when its norm is below ``modified_tol``.)

    Returns
    -------
    W : ndarray of shape (N, k, s_max)
        Column :math:`l < s_i` of ``W[i]`` is a weight vector over ``ind[i]``; the other
        columns are zero.
    s : ndarray of shape (N,)
    """
    N, k = ind.shape
    d = n_components
    Xi = X[ind] - X[:, None, :]
    lam, V = np.linalg.eigh(Xi @ Xi.transpose(0, 2, 1))  # G_i, eigenvalues increasing
    lam, V = np.clip(lam[:, ::-1], 0, None), V[:, :, ::-1]  # decreasing
    rho = lam[:, d:].sum(axis=1) / lam[:, :d].sum(axis=1)
    eta = np.median(rho)
    # tail[:, t-1] = sum of the t smallest eigenvalues; head = the rest
    tail = np.cumsum(lam[:, ::-1], axis=1)[:, :-1]
    head = lam.sum(axis=1, keepdims=True) - tail
    s = np.clip(np.sum(tail < eta * head, axis=1), 1, k - d)
    s_max = int(s.max())
    keep = np.arange(s_max)[None, :] < s[:, None]  # (N, s_max): the columns each point uses
    Vs = V[:, :, k - s_max:][:, :, ::-1] * keep[:, None, :]  # bottom s_i, zero-padded
    v1 = Vs.sum(axis=1)  # V^T 1_k, (N, s_max)
    alpha = np.linalg.norm(v1, axis=1) / np.sqrt(s)
    h = alpha[:, None] * keep - v1
    norm_h = np.linalg.norm(h, axis=1, keepdims=True)
    h = np.where(norm_h < modified_tol, 0.0, h / np.where(norm_h == 0, 1.0, norm_h))
    VH = Vs - 2 * (Vs @ h[:, :, None]) * h[:, None, :]  # V H, H = I - 2 h h^T
    w = reconstruction_weights(X, X, ind, reg=reg)
    return VH + (1 - alpha)[:, None, None] * w[:, :, None] * keep[:, None, :], s


def _with_self(ind, W):
    r"""Blocks over :math:`\{i\} \cup N(i)` for weight vectors over :math:`N(i)`:
    :math:`B_i = (\mathbf 1^\top; -W_i)`, zero columns kept zero."""
    used = np.abs(W).sum(axis=1, keepdims=True) > 0
    return np.hstack([np.arange(len(ind))[:, None], ind]), np.concatenate([used, -W], axis=1)


def check_method_neighbors(method: str, n_components: int, n_neighbors: int, n_features: int) -> None:
    """Refuse a neighbourhood too small for the method's local fits (clear message)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}.")
    d, k = n_components, n_neighbors
    if method in ("hessian", "ltsa") and d > n_features:
        raise ValueError(
            f"method={method!r} fits a {d}-dimensional tangent space to each neighbourhood, "
            f"but the data have only {n_features} features; choose n_components <= "
            f"{n_features}."
        )
    needed = d * (d + 3) // 2
    if method == "hessian" and k <= needed:
        raise ValueError(
            f"method='hessian' needs n_neighbors > d(d+3)/2 = {needed} for n_components={d}: "
            f"each neighbourhood fits a constant, {d} linear and {d * (d + 1) // 2} quadratic "
            f"terms, which takes at least {needed + 1} points; choose n_neighbors >= "
            f"{needed + 1} (or fewer components)."
        )


class LLE(Estimator):
    r"""Locally linear embedding, and its modified, Hessian and LTSA variants.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=5
    reg : float, default=1e-3
        Ridge of the reconstruction weights (standard and modified LLE, and ``transform``).
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
    method : {"standard", "modified", "hessian", "ltsa"}, default="standard"
        Step 2's local weights (see the module docstring for what each repairs).
    hessian_tol : float, default=1e-4
        ``"hessian"``: columns of the estimator whose sum is below this are not rescaled.
    modified_tol : float, default=1e-12
        ``"modified"``: a Householder vector shorter than this is taken as 0.

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
        The standard reconstruction weights (for every method: ``transform`` uses them).
    alignment_matrix_ : scipy.sparse.csr_matrix of shape (N, N)
        :math:`M` of the chosen method.
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
    >>> LLE(n_components=2, n_neighbors=10, method="ltsa").fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, n_neighbors=5, reg=1e-3, eigen_solver="auto",
                 method="standard", hessian_tol=1e-4, modified_tol=1e-12):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.reg = reg
        self.eigen_solver = eigen_solver
        self.method = method
        self.hessian_tol = hessian_tol
        self.modified_tol = modified_tol

    @property
    def _expected_failed_checks(self):
        """Standard LLE has none. The variants' ``transform`` places a point by its standard
        reconstruction weights from its ``k`` nearest *other* training points, which the
        variants' embeddings do not satisfy exactly; on the checks' two 15-point blobs
        :math:`M` has a degenerate null space and ``transform(X)`` is not ``fit_transform(X)``
        (scikit-learn's Hessian and LTSA fail these checks too; its modified LLE passes them
        only because its ``transform`` counts a training point as its own neighbour)."""
        if self.method == "standard":
            return {}
        reason = ("transform uses the standard reconstruction weights from the k nearest "
                  "other training points, which the variant's embedding does not satisfy "
                  "exactly on the checks' degenerate two-blob data")
        return {"check_transformer_data_not_an_array": reason,
                "check_transformer_general": reason}

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        X = check_array(X, min_samples=2, copy=True)  # kept as X_fit_
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
        check_method_neighbors(self.method, self.n_components, k, X.shape[1])
        check_positive(self.reg, "reg", allow_zero=True)
        check_positive(self.hessian_tol, "hessian_tol", allow_zero=True)
        check_positive(self.modified_tol, "modified_tol", allow_zero=True)
        ind = nearest_neighbors(X, k)
        w = reconstruction_weights(X, X, ind, reg=self.reg)
        N = len(X)
        self.weights_ = sp.csr_matrix((w.ravel(), ind.ravel(), np.arange(0, N * k + 1, k)),
                                      shape=(N, N))
        check_connected(abs(self.weights_), X, n_neighbors=k,
                        consequence=SPECTRAL_CONSEQUENCE, warn=True)
        self.alignment_matrix_ = self._alignment_matrix(X, ind)
        self.eigenvalues_, V = bottom_eigenpairs(self.alignment_matrix_, self.n_components,
                                                 skip=1, solver=self.eigen_solver)
        self.embedding_ = flip_signs(V)
        self.reconstruction_error_ = float(self.eigenvalues_.sum())
        self.X_fit_ = X
        return self

    def _alignment_matrix(self, X, ind):
        """Step 2 of the chosen method: its local blocks, then :math:`M`."""
        d, N = self.n_components, len(X)
        if self.method == "standard":
            return alignment_matrix(self.weights_)
        if self.method == "modified":
            W, _ = modified_weights(X, ind, d, reg=self.reg, modified_tol=self.modified_tol)
            return local_alignment_matrix(*_with_self(ind, W), N)
        if self.method == "hessian":
            return local_alignment_matrix(
                ind, hessian_estimators(X, ind, d, hessian_tol=self.hessian_tol), N)
        return local_alignment_matrix(ind, ltsa_bases(X, ind, d), N)

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        return self.fit(X).embedding_

    def transform(self, X: ArrayLike) -> FloatArray:
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
