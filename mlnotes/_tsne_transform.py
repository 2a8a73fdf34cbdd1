r"""Placing new points into a fitted t-SNE map (:meth:`mlnotes.sne.TSNE.transform`).

The fitted map :math:`z_1, \dots, z_N` stays fixed. Each new point :math:`x` gets conditional
affinities to the training points only,

.. math::
    p_{j|x} = \frac{\exp(-\beta_x d(x, x_j)^2)}{\sum_{l \in \mathcal N_x} \exp(-\beta_x d(x, x_l)^2)}
    \quad (j \in \mathcal N_x), \qquad p_{j|x} = 0 \text{ otherwise},

on its :math:`k = \lfloor 3\,\mathrm{Perp} \rfloor` nearest training points
:math:`\mathcal N_x`, with :math:`\beta_x` set by the perplexity search
(:func:`mlnotes.affinities.knn_conditional_affinities`), and its place :math:`y` minimises

.. math::
    C_x(y) = \mathrm{KL}(P_{\cdot|x} \| Q_{\cdot|y}) = \sum_j p_{j|x} \log \frac{p_{j|x}}{q_{j|y}},
    \qquad q_{j|y} = \frac{k(y - z_j)}{\sum_{l=1}^{N} k(y - z_l)},

:math:`k = w^{(\nu+1)/2}`, :math:`w(y - z) = (1 + \|y - z\|^2/\nu)^{-1}`: the map's
affinities normalised over the *training* points only, so that new points do not see each
other and each is placed on its own (transforming points one at a time or all at once gives
the same map). :meth:`mlnotes.sne.TSNE.transform` multiplies the attraction by an
exaggeration :math:`\alpha` (openTSNE's 1.5): with :math:`\alpha = 1` the KL can decrease
without bound towards the uniform :math:`q = 1/N` far from the map, for a point whose
neighbours lie in distant clusters, while for :math:`\alpha > 1` the objective grows as
:math:`(\alpha - 1)(\nu + 1) \log \lVert y \rVert` far out and has a minimiser. With
:math:`\sum_j p_{j|x} = 1` the gradient of the KL is

.. math::
    \frac{\partial C_x}{\partial y} = \frac{\nu + 1}{\nu} \sum_j (p_{j|x} - q_{j|y})\,
        w(y - z_j)\, (y - z_j),

half t-SNE's factor :math:`2(\nu+1)/\nu`: in the joint objective every pair appears twice,
here once. The repulsive sums :math:`S(y) = \sum_l k(y - z_l)` and
:math:`R(y) = \sum_l k\,w\,(y - z_l)` run over all N training points; they are summed
exactly in blocks (:func:`exact_reference_repulsion`, :math:`O(MN)`) or, for a map fitted with
``method="fft"``, interpolated on a grid (:func:`interpolated_reference_repulsion`,
:math:`O(N + M)` plus the grid's FFTs) by the machinery of :mod:`mlnotes.tsne_fft`.

References
----------
.. [1] Poličar, P. G., Stražar, M. and Zupan, B. (2024). openTSNE: a modular Python library
       for t-SNE dimensionality reduction and embedding. Journal of Statistical Software 109(3)
       (``prepare_partial`` and ``transform``: the settings followed here).
"""

import numpy as np
import scipy.sparse as sp

from .affinities import knn_conditional_affinities
from .graphs import _kneighbors, _nearest_from_distances, metric_distances, squared_distances
from .tsne_fft import (
    BOX_WIDTH,
    N_INTERPOLATION,
    _convolve,
    _grid_size,
    _stencil,
    default_min_boxes,
)

# --- named constants: openTSNE 1.0.4's transform, in this package's gradient scale -----------
TRANSFORM_PERPLEXITY = 5.0  # openTSNE's transform default; see TSNE.transform
TRANSFORM_MAX_ITER = 250  # openTSNE: n_iter=250, no early-exaggeration phase
TRANSFORM_MOMENTUM = 0.8  # openTSNE: final_momentum=0.8
OPENTSNE_LEARNING_RATE = 0.1  # on openTSNE's gradient, which omits the factor (nu + 1) / nu
OPENTSNE_MAX_GRAD_NORM = 0.25  # openTSNE clips each point's gradient to this norm (its scale)
EXACT_MAX_PAIRS = 10**7  # TSNE.transform: more (new, training) pairs than this: interpolate
BLOCK_ENTRIES = 2**22  # exact repulsion: at most this many (new, training) pairs at a time
NEIGHBOURS_PER_PERPLEXITY = 3  # k = floor(3 Perp) training neighbours carry p_{j|x}


def transform_settings(dof):
    r"""The learning rate and gradient clip of openTSNE's transform in this gradient's scale.

    openTSNE's gradient leaves out the constant :math:`(\nu + 1)/\nu` (2 for the Cauchy
    kernel), so its learning rate 0.1 is :math:`0.1\,\nu/(\nu+1)` here and its clip of each
    point's gradient norm at 0.25 is :math:`0.25\,(\nu+1)/\nu`: the same steps.
    """
    scale = (dof + 1.0) / dof
    return OPENTSNE_LEARNING_RATE / scale, OPENTSNE_MAX_GRAD_NORM * scale


# --- step 1: affinities of new points to the training points -------------------------------------
def _blocks(M, N):
    block = max(1, BLOCK_ENTRIES // max(N, 1))
    return [slice(s, min(s + block, M)) for s in range(0, M, block)]


def reference_neighbours(X_fit, X_new, k, *, metric="euclidean", metric_params=None):
    r"""The ``k`` nearest training points of every new point and their squared dissimilarities.

    ``X_fit`` (N x p) and ``X_new`` (M x p) dense or sparse (Euclidean only); with
    ``metric="precomputed"`` ``X_new`` is the (M x N) matrix of dissimilarities to the training
    points and ``X_fit`` is not used. Dense Euclidean data: a k-d tree or blocked matrix
    products (:func:`mlnotes.graphs.nearest_neighbors`), then the k distances recomputed from
    the differences; otherwise the distances a block of new points at a time, never the whole
    (M x N) matrix at once.

    Returns
    -------
    indices : ndarray of shape (M, k), nearest first
    D2 : ndarray of shape (M, k)
        Squared dissimilarities (the perplexity search's input, as in ``fit``).
    """
    euclidean = metric == "euclidean" and not metric_params
    if metric == "precomputed":
        D = X_new
        idx = _nearest_from_distances(D, k, exclude_self=False)
        return idx, np.take_along_axis(D, idx, axis=1) ** 2
    if euclidean and not (sp.issparse(X_fit) or sp.issparse(X_new)):
        idx = _kneighbors(X_fit, k, X_new)
        diff = X_new[:, None, :] - X_fit[idx]
        return idx, np.einsum("ijk,ijk->ij", diff, diff)
    M, N = X_new.shape[0], X_fit.shape[0]
    idx, D2 = np.empty((M, k), dtype=np.intp), np.empty((M, k))
    for rows in _blocks(M, N):
        if euclidean:
            D = squared_distances(X_new[rows], X_fit)
        else:
            D = metric_distances(X_new[rows], X_fit, metric=metric,
                                 metric_params=metric_params) ** 2
        idx[rows] = _nearest_from_distances(D, k, exclude_self=False)
        D2[rows] = np.take_along_axis(D, idx[rows], axis=1)
    return idx, D2


def new_point_affinities(D2_knn, perplexity):
    r""":math:`p_{j|x}` of each new point over its neighbours (rows of ``D2_knn``), by the
    perplexity search of :func:`mlnotes.affinities.knn_conditional_affinities`; rows sum to 1."""
    return knn_conditional_affinities(D2_knn, perplexity)


# --- step 2: the objective and its gradient --------------------------------------------------------
def exact_reference_repulsion(Y, Z_ref, *, dof=1.0):
    r""":math:`S(y_i) = \sum_l k(y_i - z_l)` and :math:`R(y_i) = \sum_l k\,w\,(y_i - z_l)`
    over all training points, exactly, a block of new points at a time (:math:`O(MN)`)."""
    power = (dof + 1.0) / 2.0
    S, R = np.empty(len(Y)), np.empty_like(Y)
    for rows in _blocks(len(Y), len(Z_ref)):
        W = squared_distances(Y[rows], Z_ref)
        W /= dof
        W += 1.0
        np.reciprocal(W, out=W)
        K = W if dof == 1.0 else W**power
        S[rows] = K.sum(axis=1)
        KW = K * W
        R[rows] = KW.sum(axis=1)[:, None] * Y[rows] - KW @ Z_ref
    return S, R


GRID_PADDING = 0.25  # the reference field's grid extends the map's box by this fraction per side


class ReferenceField:
    r"""The fitted map's repulsive field on a grid, computed once (maps of dimension 1 or 2).

    The grid of :mod:`mlnotes.tsne_fft` (boxes of side at most
    :data:`~mlnotes.tsne_fft.BOX_WIDTH`, :math:`p` Lagrange nodes per box and axis) covers the
    map's bounding box widened by :data:`GRID_PADDING` per side.
    The training points' charges (1 and their coordinates) are spread onto its nodes and the
    kernels :math:`k w` and :math:`k` applied by FFT (``tsne_fft._convolve``) once, since the
    map does not move; each gradient then only interpolates the potentials at the new points,
    :math:`O(M p^d)`, as openTSNE's ``prepare_interpolation_grid`` does. No self terms arise
    (a new point is not a source). A new point outside the grid gets exact sums.
    """

    def __init__(self, Z_ref, *, dof=1.0, n_interp=None, min_boxes=None, box_width=None):
        N, d = Z_ref.shape
        self.Z_ref, self.dof = Z_ref, float(dof)
        power = (self.dof + 1.0) / 2.0
        self.n_interp = N_INTERPOLATION if n_interp is None else n_interp
        min_boxes = default_min_boxes(N) if min_boxes is None else min_boxes
        box_width = BOX_WIDTH if box_width is None else box_width
        lo, hi = Z_ref.min(axis=0), Z_ref.max(axis=0)
        pad = GRID_PADDING * float((hi - lo).max())
        corners = np.vstack([lo - pad, hi + pad])
        self.lo, self.width, self.n_boxes = _grid_size(corners, self.n_interp, min_boxes,
                                                       box_width)
        self.hi = self.lo + self.width * self.n_boxes
        m = self.n_boxes * self.n_interp
        index, weight = _stencil(Z_ref, self.lo, self.width, self.n_boxes, self.n_interp)
        spread = np.empty((d + 1, m**d))
        spread[0] = np.bincount(index.ravel(), weights=weight.ravel(), minlength=m**d)
        for c in range(d):
            spread[c + 1] = np.bincount(index.ravel(), weights=(weight * Z_ref[:, c, None]).ravel(),
                                        minlength=m**d)
        phi_kw, phi_k = _convolve(spread, [(power + 1.0, slice(None)), (power, slice(0, 1))],
                                  self.dof, m, self.width / self.n_interp, d)
        self.phi = np.vstack([phi_kw, phi_k]).astype(np.float64)  # rows: kw*1, kw*z, k*1

    def __call__(self, Y):
        """:math:`S(y_i)` and :math:`R(y_i)` for the new points ``Y`` (M x d)."""
        d = Y.shape[1]
        inside = np.all((Y >= self.lo) & (Y <= self.hi), axis=1)
        S, R = np.empty(len(Y)), np.empty_like(Y)
        if inside.any():
            Yi = Y[inside]
            index, weight = _stencil(Yi, self.lo, self.width, self.n_boxes, self.n_interp)
            at = np.einsum("cnk,nk->nc", self.phi[:, index], weight)
            S[inside] = at[:, d + 1]
            R[inside] = at[:, :1] * Yi - at[:, 1:d + 1]
        if not inside.all():
            S[~inside], R[~inside] = exact_reference_repulsion(Y[~inside], self.Z_ref,
                                                               dof=self.dof)
        return S, R


def interpolated_reference_repulsion(Y, Z_ref, *, dof=1.0, **grid):
    r""":func:`exact_reference_repulsion` by interpolation on a :class:`ReferenceField` of
    ``Z_ref`` (built anew: :meth:`mlnotes.sne.TSNE.transform` builds it once per call)."""
    return ReferenceField(Z_ref, dof=dof, **grid)(Y)


def transform_objective_gradient(Y, Z_ref, neighbours, P, *, dof=1.0, field=None,
                                 compute_objective=True):
    r"""The new points' objective :math:`\sum_x \mathrm{KL}(P_{\cdot|x} \| Q_{\cdot|y_x})` and
    its gradient (see the module doc).

    .. math::
        \frac{\partial C}{\partial y} = \frac{\nu+1}{\nu} \Big[ \sum_{j \in \mathcal N_x}
            p_{j|x}\, w(y - z_j)\, (y - z_j) - \frac{R(y)}{S(y)} \Big],
        \qquad
        C = \sum_{x, j} p \log p - \frac{\nu+1}{2} \sum_{x, j} p \log w
            + \sum_x \log S(y_x),

    the KL when each row of ``P`` sums to 1. Rows scaled by an exaggeration :math:`\alpha`
    scale the attraction only, as in ``fit`` and openTSNE: ``C`` is then the function whose
    gradient this is (not a KL), and the same formula computes both.

    Parameters
    ----------
    Y : ndarray of shape (M, L)
        The new points' places.
    Z_ref : ndarray of shape (N, L)
        The fitted map (fixed).
    neighbours : ndarray of shape (M, k), int
        Row i: the training points that carry :math:`p_{\cdot|x_i}`.
    P : ndarray of shape (M, k)
        Their affinities.
    dof : float
        :math:`\nu`.
    field : ReferenceField, optional
        The repulsion interpolated from this field of ``Z_ref`` (default: summed exactly).

    Returns
    -------
    kl : float or None
    grad : ndarray of shape (M, L)
    """
    diff = Y[:, None, :] - Z_ref[neighbours]
    w = np.einsum("ijk,ijk->ij", diff, diff)
    w /= dof
    w += 1.0
    np.reciprocal(w, out=w)
    attract = np.einsum("ij,ijk->ik", P * w, diff)
    if field is not None:
        S, R = field(Y)
    else:
        S, R = exact_reference_repulsion(Y, Z_ref, dof=dof)
    grad = (dof + 1.0) / dof * (attract - R / S[:, None])
    kl = None
    if compute_objective:
        p_log_p = float(np.sum(P * np.log(P, out=np.zeros_like(P), where=P > 0)))
        kl = p_log_p - (dof + 1.0) / 2.0 * float(np.sum(P * np.log(w))) + float(np.log(S).sum())
    return kl, grad


def clip_rows(G, max_norm):
    """Scale down each row of ``G`` whose norm exceeds ``max_norm`` to that norm (in place)."""
    norm = np.linalg.norm(G, axis=1)
    big = norm > max_norm
    G[big] *= (max_norm / norm[big])[:, None]
    return G


def initial_positions(Z_ref, neighbours, P, init):
    r"""Start of the optimisation: ``"median"`` (coordinate-wise median of the neighbours'
    places, openTSNE's default), ``"weighted"`` (:math:`\sum_j p_{j|x} z_j`) or an array."""
    if isinstance(init, str) and init == "median":
        return np.median(Z_ref[neighbours], axis=1)
    if isinstance(init, str) and init == "weighted":
        return np.einsum("ij,ijk->ik", P, Z_ref[neighbours]) / P.sum(axis=1, keepdims=True)
    raise ValueError(f"init must be 'median', 'weighted' or an array, got {init!r}.")
