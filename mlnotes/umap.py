r"""UMAP: a fuzzy neighbourhood graph, a smooth similarity in the map, attraction and repulsion.

UMAP (McInnes, Healy & Melville 2018) is built from the pieces of the book's SNE chapter, in three
steps that this module names:

1. **The graph** (:func:`fuzzy_graph`). Each point :math:`i` and its ``n_neighbors`` nearest
   points (the point itself counted, as in umap-learn: :math:`k - 1` true neighbours):
   :math:`\rho_i` is the distance to the nearest neighbour and :math:`\sigma_i` solves

   .. math:: \sum_{j} \exp\bigl(-(d_{ij} - \rho_i)_+ / \sigma_i\bigr) = \log_2 k

   (:func:`smooth_knn_distances`, a bisection like the perplexity search of
   :mod:`mlnotes.affinities`). The directed memberships
   :math:`p_{j|i} = \exp(-(d_{ij} - \rho_i)_+ / \sigma_i)` (:func:`membership_strengths`) are
   joined by the fuzzy union :math:`p_{ij} = p_{j|i} + p_{i|j} - p_{j|i}\,p_{i|j}`
   (:func:`fuzzy_union`).
2. **The similarity in the map** :math:`q_{ij} = 1 / (1 + a\,\|z_i - z_j\|^{2b})`
   (:func:`low_dimensional_similarity`), with :math:`a, b` fitted by least squares to the curve
   that is 1 up to ``min_dist`` and decays as :math:`\exp(-(x - \text{min\_dist})/\text{spread})`
   beyond (:func:`fit_ab`). At :math:`a = b = 1` it is t-SNE's Student-t kernel.
3. **The optimisation** of the fuzzy cross-entropy (:func:`cross_entropy`)

   .. math:: C = \sum_{i \ne j} p_{ij} \log\frac{p_{ij}}{q_{ij}}
                 + (1 - p_{ij}) \log\frac{1 - p_{ij}}{1 - q_{ij}},

   whose gradient (:func:`cross_entropy_gradient`) is attraction along the edges minus
   repulsion from every point. :func:`optimize_layout` follows it stochastically, as UMAP does:
   each epoch samples every edge in proportion to its weight (attraction) and, for each sampled
   edge, ``negative_sample_rate`` random points (repulsion). The repulsion that negative
   sampling applies is not that of :math:`C`: it weights every random pair alike, whatever
   :math:`p_{ij}`, so the method optimises another objective than the one written down (Damrich
   & Hamprecht 2021; the book's UMAP chapter).

An epoch is vectorised in rounds in which no point is an end of two edges
(:func:`matching_rounds`): the due edges of a round move at once, which is moving them one by
one, edge by edge, as umap-learn does. To keep the number of rounds near the median point's
number of pairs, the colours beyond ``HUB_FACTOR`` times it are folded into the others; the
rounds where a point is then an end of two edges are flagged, and there its moves are added
up. The start is
Laplacian eigenmaps of the fuzzy graph (:mod:`mlnotes.eigenmaps`, the generalised problem
:math:`L v = \lambda D v`), scaled into a box of side ``INIT_BOX``.

New points (:meth:`UMAP.transform`) get memberships to their nearest training points by the same
equations, start at the membership-weighted mean of those points' places, and are optimised with
the training map held fixed. A new point equal to a training point lands on that point's place.

Step 1 reads only each point's nearest neighbours and their distances, so the metric is free
(:mod:`mlnotes.umap_metrics`: named metrics, callables, precomputed distances, sparse rows;
:func:`fuzzy_graph_from_knn` for neighbours found elsewhere); beyond ``NN_DESCENT_MIN_N`` points
the estimator finds Euclidean neighbours approximately, by NN-descent (:mod:`mlnotes.neighbors`,
``neighbors_algorithm``). Labels enter as a second fuzzy set
intersected with the graph (:mod:`mlnotes.umap_supervised`), and :func:`inverse_map` estimates
data points for places in the map by a local linear regression.
"""

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import curve_fit
from scipy.spatial import cKDTree

from ._typing import ArrayLike, FloatArray, IntArray, Matrix, Seed, Self, Sparse
from ._validation import (
    check_array,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_positive,
    check_random_state,
)
from .base import Estimator
from .graphs import DisconnectedGraphWarning, _kneighbors, _stacklevel_outside_package
from .neighbors import _nn_descent
from .spectral import bottom_eigenpairs, flip_signs
from .umap_metrics import (
    ALIASES,
    BINARY_METRICS,
    INNER_PRODUCT_METRICS,
    check_umap_metric,
    metric_kneighbors,
    precomputed_kneighbors,
)
from .umap_supervised import categorical_intersection, check_labels

# Step 1: the bisection for sigma_i (the values umap-learn uses, so that the graphs agree).
SIGMA_TOL = 1e-5  # stop when |sum_j exp(...) - log2 k| is below this
SIGMA_MAX_STEPS = 64
MIN_SIGMA_SCALE = 1e-3  # sigma_i is at least this times the mean neighbour distance
# Step 2: the curve a, b are fitted to, sampled on [0, 3 spread].
AB_FIT_POINTS = 300
AB_FIT_RANGE = 3.0
# Step 3: the stochastic optimisation.
EPOCHS_SMALL = 500  # default number of epochs up to LARGE_N points
EPOCHS_LARGE = 200
LARGE_N = 10_000
GRADIENT_CLIP = 4.0  # each coordinate of one update is clipped to [-4, 4]
REPULSION_EPS = 1e-3  # d^2 + eps in the repulsion, so that close pairs do not explode
TINY_SQUARED = 1e-300  # s = 0 is raised to this before a power (finite, and its difference is 0)
INIT_BOX = 10.0  # the start map fills [0, INIT_BOX] in each coordinate
INIT_NOISE = 1e-4  # jitter of the spectral start (separates points with equal coordinates)
SMALL_GRAPH_EDGES = 2048  # at most this many edges: each epoch has rounds of its own (optimize_layout)
HUB_FACTOR = 1.5  # colours kept: this times the median point's number of pairs (see _rounds)
TRANSFORM_EPOCHS_FRACTION = 3  # new points: a third of the training epochs
INIT_METHODS = ("spectral", "pca", "random")
NEIGHBOR_ALGORITHMS = ("auto", "exact", "nn-descent")
NN_DESCENT_MIN_N = 20_000  # "auto": the approximate search above this many points (see UMAP)
INVERSE_RIDGE = 1e-3  # inverse_transform: ridge on the slope, relative to the neighbours' spread


# --- step 1: the fuzzy graph ---------------------------------------------------------------------
def smooth_knn_distances(distances: ArrayLike, n_neighbors: int, *, tol: float = SIGMA_TOL,
                         max_iter: int = SIGMA_MAX_STEPS) -> tuple[FloatArray, FloatArray]:
    r"""The per-point offset :math:`\rho_i` and bandwidth :math:`\sigma_i` of UMAP's graph.

    :math:`\rho_i` is the distance to the nearest neighbour at a positive distance (0 if there
    is none), and :math:`\sigma_i` solves

    .. math:: \sum_{j=1}^{k-1} \exp\bigl(-(d_{ij} - \rho_i)_+ / \sigma_i\bigr) = \log_2 k,

    the left side increasing in :math:`\sigma_i` from (number of neighbours at distance
    :math:`\rho_i`) to :math:`k - 1`. It is found by bisection, doubling :math:`\sigma` until the
    root is bracketed, all points at once. :math:`\sigma_i` is kept at least
    ``MIN_SIGMA_SCALE`` times the mean of the point's neighbour distances (of all distances
    when :math:`\rho_i = 0`).

    Parameters
    ----------
    distances : ndarray of shape (N, k - 1)
        Distances of each point to its ``k - 1`` nearest neighbours (itself excluded), sorted.
    n_neighbors : int
        ``k``, the neighbourhood size counting the point itself; the target is
        :math:`\log_2 k`.

    Returns
    -------
    rho, sigma : ndarrays of shape (N,)
    """
    d = check_array(distances, name="distances", min_features=1)
    if (d < 0).any():
        raise ValueError("distances must be non-negative (they are distances to neighbours).")
    check_positive(n_neighbors, "n_neighbors", integer=True)
    if n_neighbors < 2:
        raise ValueError(f"n_neighbors must be at least 2 (the point and one neighbour), got "
                         f"{n_neighbors}.")
    return _smooth_knn_distances(d, n_neighbors, tol, max_iter)


def _smooth_knn_distances(d, n_neighbors, tol=SIGMA_TOL, max_iter=SIGMA_MAX_STEPS):
    N = d.shape[0]
    positive = np.where(d > 0, d, np.inf)
    rho = positive.min(axis=1)
    rho[~np.isfinite(rho)] = 0.0
    target = np.log2(n_neighbors)
    shifted = d - rho[:, None]  # (d_ij - rho_i); terms with d_ij <= rho_i count 1

    lo = np.zeros(N)
    hi = np.full(N, np.inf)
    sigma = np.ones(N)
    active = np.arange(N)
    for _ in range(max_iter):
        s = shifted[active]
        with np.errstate(divide="ignore", over="ignore"):
            terms = np.where(s > 0, np.exp(-s / sigma[active, None]), 1.0)
        total = terms.sum(axis=1)
        done = np.abs(total - target) < tol
        too_wide = total > target  # the sum grows with sigma: shrink it
        a = active[~done]
        wide = too_wide[~done]
        hi[a[wide]] = sigma[a[wide]]
        lo[a[~wide]] = sigma[a[~wide]]
        sigma[a] = np.where(np.isfinite(hi[a]), (lo[a] + hi[a]) / 2.0, sigma[a] * 2.0)
        active = a
        if active.size == 0:
            break

    # the means count the point's own distance 0 among its k distances, as umap-learn does
    row_mean = d.sum(axis=1) / n_neighbors
    floor = MIN_SIGMA_SCALE * np.where(rho > 0, row_mean, row_mean.mean())
    return rho, np.maximum(sigma, floor)


def membership_strengths(distances: ArrayLike, rho: ArrayLike, sigma: ArrayLike) -> FloatArray:
    r"""Directed memberships :math:`p_{j|i} = \exp(-(d_{ij} - \rho_i)_+ / \sigma_i)`.

    Each point's nearest neighbour (and any at distance :math:`\le \rho_i`) has membership 1.

    Parameters
    ----------
    distances : ndarray of shape (N, m)
    rho, sigma : ndarrays of shape (N,)

    Returns
    -------
    P_cond : ndarray of shape (N, m)
    """
    excess = np.maximum(distances - rho[:, None], 0.0)
    # excess 0 gives membership 1, also where sigma_i = 0 (all neighbours at one distance)
    ratio = np.divide(excess, sigma[:, None], out=np.zeros_like(excess), where=excess > 0)
    return np.exp(-ratio)


def fuzzy_union(indices: IntArray, P_cond: ArrayLike, n_samples: int) -> Sparse:
    r"""The fuzzy union :math:`p_{ij} = p_{j|i} + p_{i|j} - p_{j|i}\,p_{i|j}` as a sparse matrix.

    The probabilistic "or" of the two directed memberships: :math:`p_{ij} = 1 - (1 -
    p_{j|i})(1 - p_{i|j})`, symmetric, in :math:`[0, 1]`, 1 wherever either direction is 1.

    Parameters
    ----------
    indices : ndarray of shape (N, m)
        Neighbour indices (row ``i`` lists the points ``j`` of :math:`p_{j|i}`).
    P_cond : ndarray of shape (N, m)
        :math:`p_{j|i}` for those neighbours.
    n_samples : int

    Returns
    -------
    P : scipy.sparse.csr_matrix of shape (N, N)
    """
    rows = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
    A = sp.csr_matrix((P_cond.ravel(), (rows, indices.ravel())), shape=(n_samples, n_samples))
    A.setdiag(0.0)
    At = A.T.tocsr()
    P = (A + At - A.multiply(At)).tocsr()
    P.eliminate_zeros()
    return P


def fuzzy_graph(X: ArrayLike, n_neighbors: int) -> tuple[Sparse, FloatArray, FloatArray]:
    """Step 1: the fuzzy union graph of ``X`` with ``n_neighbors`` (the point itself counted).

    Returns
    -------
    P : scipy.sparse.csr_matrix of shape (N, N)
        The fuzzy union :func:`fuzzy_union` of the memberships :func:`membership_strengths`.
    rho, sigma : ndarrays of shape (N,)
        From :func:`smooth_knn_distances`.
    """
    X = check_array(X, min_samples=2)
    k = _check_umap_neighbors(n_neighbors, len(X))
    return _fuzzy_graph(X, k)


def _fuzzy_graph(X, k):
    return _graph_from_knn(*_euclidean_knn(X, k - 1), k)


def _euclidean_knn(X, m, Y=None):
    """The ``m`` nearest training rows (of ``X``, for each row of ``Y``, or of ``X`` itself)
    and their Euclidean distances, computed pair by pair (exact)."""
    ind = _kneighbors(X, m, Y)
    diff = X[ind] - (X if Y is None else Y)[:, None, :]
    return ind, np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


def fuzzy_graph_from_knn(knn_indices: ArrayLike, knn_dists: ArrayLike,
                         n_neighbors: int) -> tuple[sp.csr_matrix, FloatArray, FloatArray]:
    """Step 1 from given neighbours: any metric's, a search the user ran, umap-learn's.

    Parameters
    ----------
    knn_indices : ndarray of shape (N, n_neighbors - 1)
        Each point's nearest neighbours (the point itself left out), nearest first.
    knn_dists : ndarray of shape (N, n_neighbors - 1)
        Their distances, in any metric, sorted along each row.
    n_neighbors : int
        ``k``, counting the point itself.

    Returns
    -------
    P, rho, sigma
        As :func:`fuzzy_graph`.
    """
    ind = np.asarray(knn_indices)
    dist = check_array(knn_dists, name="knn_dists")
    if ind.shape != dist.shape:
        raise ValueError(f"knn_indices has shape {ind.shape} but knn_dists {dist.shape}; "
                         "they must match (one distance per neighbour).")
    if (dist < 0).any():
        raise ValueError("knn_dists must be non-negative (they are distances to neighbours).")
    return _graph_from_knn(ind, dist, n_neighbors)


def _graph_from_knn(ind, dist, k):
    rho, sigma = _smooth_knn_distances(dist, k)
    return fuzzy_union(ind, membership_strengths(dist, rho, sigma), len(ind)), rho, sigma


def _check_umap_neighbors(n_neighbors, n_samples):
    check_positive(n_neighbors, "n_neighbors", integer=True)
    if n_neighbors < 2:
        raise ValueError(
            f"n_neighbors must be at least 2 (it counts the point itself, as in umap-learn), got "
            f"{n_neighbors}; 15 is the usual default."
        )
    if n_neighbors > n_samples:
        raise ValueError(
            f"n_neighbors={n_neighbors} is too large for {n_samples} samples (it counts the "
            f"point itself, so at most n_samples); choose n_neighbors <= {n_samples}."
        )
    return int(n_neighbors)


# --- step 2: the similarity in the map -----------------------------------------------------------
def target_curve(x: ArrayLike, min_dist: float, spread: float) -> FloatArray:
    r"""The membership UMAP wants in the map: 1 up to ``min_dist``, then
    :math:`\exp(-(x - \text{min\_dist}) / \text{spread})`."""
    x = np.asarray(x, dtype=float)
    return np.where(x < min_dist, 1.0, np.exp(-(x - min_dist) / spread))


def low_dimensional_similarity(distance: ArrayLike, a: float, b: float) -> FloatArray:
    r""":math:`q = 1 / (1 + a\,d^{2b})` for map distances :math:`d` (at :math:`a = b = 1`,
    t-SNE's Student-t kernel :math:`1 / (1 + d^2)`)."""
    distance = np.asarray(distance, dtype=float)
    return 1.0 / (1.0 + a * distance ** (2.0 * b))


def fit_ab(min_dist: float = 0.1, spread: float = 1.0) -> tuple[float, float]:
    r"""The :math:`a, b` of :func:`low_dimensional_similarity` closest to :func:`target_curve`.

    Least squares on ``AB_FIT_POINTS`` equally spaced distances in
    :math:`[0, 3\,\text{spread}]`, started at :math:`a = b = 1`.

    Returns
    -------
    a, b : float
    """
    min_dist, spread = _check_min_dist_spread(min_dist, spread)
    x = np.linspace(0.0, AB_FIT_RANGE * spread, AB_FIT_POINTS)
    (a, b), _ = curve_fit(low_dimensional_similarity, x, target_curve(x, min_dist, spread),
                          p0=(1.0, 1.0))
    return float(a), float(b)


def _check_min_dist_spread(min_dist, spread):
    spread = float(check_positive(spread, "spread"))
    min_dist = float(check_positive(min_dist, "min_dist", allow_zero=True))
    if min_dist > spread:
        raise ValueError(
            f"min_dist={min_dist:g} must not exceed spread={spread:g}: points closer than "
            "min_dist are all 'as close as possible', and spread sets the scale beyond; lower "
            "min_dist or raise spread."
        )
    return min_dist, spread


# --- step 3: the objective and its optimisation --------------------------------------------------
def _pair_terms(Z, a, b):
    diff = Z[:, None, :] - Z[None, :, :]
    s = np.einsum("ijk,ijk->ij", diff, diff)  # squared map distances d_ij^2
    # s_ii = 1 keeps log s and 1/s finite on the diagonal, which every sum below masks out
    np.fill_diagonal(s, 1.0)
    sb = s**b
    return diff, s, sb


def cross_entropy(P: Matrix, Z: ArrayLike, a: float, b: float) -> float:
    r"""The fuzzy cross-entropy :math:`C` between the graph ``P`` and the map ``Z``.

    .. math:: C = \sum_{i \ne j} p_{ij} \log\frac{p_{ij}}{q_{ij}}
                  + (1 - p_{ij}) \log\frac{1 - p_{ij}}{1 - q_{ij}}

    over ordered pairs, with :math:`0 \log 0 = 0`. Dense: for small examples and checks.
    """
    P = _dense(P)
    Z = check_array(Z, name="Z")
    _, s, sb = _pair_terms(Z, a, b)
    off = ~np.eye(len(Z), dtype=bool)
    log_q = -np.log1p(a * sb)
    log_1mq = np.log(a) + b * np.log(s) + log_q
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(P > 0, P * np.log(P), 0.0)
        qlogq = np.where(P < 1, (1 - P) * np.log1p(-P), 0.0)
    C = plogp - P * log_q + qlogq - (1 - P) * log_1mq
    return float(C[off].sum())


def cross_entropy_gradient(P: Matrix, Z: ArrayLike, a: float,
                           b: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""The gradient of :func:`cross_entropy`, as attraction minus repulsion.

    With :math:`s_{ij} = \|z_i - z_j\|^2`,

    .. math:: \frac{\partial C}{\partial z_i}
              = 4 \sum_j \Bigl[\underbrace{p_{ij}\,\frac{a b\, s_{ij}^{b-1}}{1 + a s_{ij}^b}}
                _{\text{attraction}}
              - \underbrace{(1 - p_{ij})\,\frac{b}{s_{ij}(1 + a s_{ij}^b)}}_{\text{repulsion}}
                \Bigr] (z_i - z_j).

    At :math:`a = b = 1` the attraction weight is :math:`p_{ij} q_{ij}` and the repulsion weight
    :math:`(1 - p_{ij})\,q_{ij} / s_{ij}`.

    Returns
    -------
    grad, attraction, repulsion : ndarrays of shape (N, n_components)
        ``grad = attraction - repulsion``.
    """
    P = _dense(P)
    Z = check_array(Z, name="Z")
    diff, s, sb = _pair_terms(Z, a, b)
    off = ~np.eye(len(Z), dtype=bool)
    w_att = np.where(off, P * a * b * sb / s / (1.0 + a * sb), 0.0)
    w_rep = np.where(off, (1.0 - P) * b / (s * (1.0 + a * sb)), 0.0)
    attraction = 4.0 * np.einsum("ij,ijk->ik", w_att, diff)
    repulsion = 4.0 * np.einsum("ij,ijk->ik", w_rep, diff)
    return attraction - repulsion, attraction, repulsion


def _dense(P):
    P = P.toarray() if sp.issparse(P) else np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"P must be a square matrix of memberships, got shape {P.shape}.")
    if (P < 0).any() or (P > 1).any():
        raise ValueError("P must hold memberships in [0, 1] (the fuzzy graph).")
    return P


def epochs_per_sample(weights: ArrayLike, n_epochs: int) -> FloatArray:
    r"""How often each edge is sampled: every :math:`\max_e w_e / w_e` epochs.

    The heaviest edge is sampled every epoch, an edge of weight :math:`w` in a fraction
    :math:`w / \max w` of them, so that over the run each edge pulls in proportion to its
    membership (the attraction term of :math:`C`, in expectation).
    """
    weights = np.asarray(weights, dtype=float)
    return weights.max() / weights


def optimize_layout(P: Sparse, Z0: ArrayLike, a: float, b: float, *, n_epochs: int,
                    learning_rate: float = 1.0, negative_sample_rate: int = 5, random_state: Seed = None,
                    Z_fixed: ArrayLike | None = None,
                    callback: Callable[..., Any] | None = None) -> FloatArray:
    r"""UMAP's stochastic optimisation of the map ``Z0`` on the graph ``P``.

    In epoch :math:`n` (learning rate :math:`\alpha_n = \alpha_0 (1 - n / n_\text{epochs})`),
    every edge :math:`(i, j)` that is due (:func:`epochs_per_sample`) pulls :math:`z_i` and
    :math:`z_j` together by :math:`\alpha_n` times the attraction gradient of one pair,

    .. math:: \frac{-2ab\,s^{b-1}}{1 + a s^b}\,(z_i - z_j),

    and for each such edge ``negative_sample_rate`` random points :math:`z_m` push :math:`z_i`
    away by :math:`\alpha_n` times

    .. math:: \frac{2b}{(\epsilon + s)(1 + a s^b)}\,(z_i - z_m),

    each coordinate clipped to :math:`[-4, 4]`.

    umap-learn moves the points edge by edge, so an edge sees where the earlier edges of the
    epoch moved its ends. Here the edges are dealt once into rounds in which no point is an end
    of two edges (:func:`matching_rounds`, an edge colouring); the due edges of a round move at
    once, the attraction first and then, from the moved points, the negative samples. As no
    two edges of a round share a point, moving them at once is moving them one by one, in
    some order: these are umap-learn's updates. Rounds in which a point has several edges
    would add up its pulls, each computed from the same place. One pull of step
    :math:`\alpha \approx 1` already carries a point past its neighbour, and the sum of
    several is a larger step, whose noise the map sheds only as :math:`\alpha` falls: with
    eight such rounds an epoch (a point in about five edges a round), a 20 000-point Swiss
    roll keeps half of umap-learn's 10-NN at mid-run and 0.69 against 0.73 after its 200
    epochs; with the colouring it follows umap-learn's curve.

    A round costs a dozen numpy calls whatever its size, and a colouring needs as many rounds
    as the busiest point has pairs. In high dimensions a few points (hubs) are among the
    neighbours of many: on 2 000 noisy digits the median point has 17 pairs and the busiest
    54. So the colours are capped at ``HUB_FACTOR`` times the median point's number of pairs,
    and a pair of colour :math:`c` beyond the cap goes to colour :math:`c` modulo the cap
    (:func:`_rounds`). A pair folded so can share a point with a pair already of that colour,
    and that point need not be a hub: on those digits all 52 rounds hold some point twice, and
    2 in 5 of those points have no more pairs than the cap; on a 20 000-point Swiss roll, 6 of
    46 rounds, and most of their repeated points are not hubs. :func:`_shared_rounds` flags
    exactly the rounds in which a point is an end of two edges; there the moves are added up
    (``np.add.at``), and every other round is a matching.

    On a small graph (at most ``SMALL_GRAPH_EDGES`` edges) the rounds are few edges each: of
    30 points' 532 edges about 190 are due in an epoch, 4 to each of 52 rounds, and the rounds'
    dozen numpy calls are the whole cost. There each epoch's due edges are dealt into rounds of
    their own (:func:`_epoch_rounds`, the same colouring, all epochs at once), matchings again
    and about half as many (23 there): the same updates, a 30-point fit about a third cheaper.
    Everything the optimiser can work out before an epoch (the due edges, their numbers of
    negative samples, the draws) is worked out for the whole epoch at once, and the rounds take
    slices of it.

    Parameters
    ----------
    P : scipy.sparse matrix of shape (N, N) or (N, M)
        Memberships; rows are the points that move. Square: the map itself (both ends of an
        edge move). Rectangular: new points against a fixed map ``Z_fixed`` (only rows move).
    Z0 : ndarray of shape (N, n_components)
    n_epochs : int
    Z_fixed : ndarray of shape (M, n_components), optional
        The fixed map the columns of ``P`` refer to (``transform``).
    callback : callable, optional
        ``callback(epoch, Z)`` after every epoch.

    Returns
    -------
    Z : ndarray of shape (N, n_components)
    """
    rng = check_random_state(random_state)
    Z = np.array(Z0, dtype=float, copy=True)
    dim = Z.shape[1]
    moving_both = Z_fixed is None
    coo = sp.csr_matrix(P).tocoo()  # edges in row order
    keep = coo.data >= coo.data.max() / n_epochs  # edges too weak to be sampled even once
    if moving_both:
        keep &= coo.row != coo.col  # a point does not pull itself
    heads, tails, w = coo.row[keep], coo.col[keep], coo.data[keep]
    order, bounds = _rounds(heads, tails, coo.shape[0], moving_both, rng, hub_share=True)
    heads, tails, w = heads[order], tails[order], w[order]
    shared = _shared_rounds(heads, tails if moving_both else None, bounds, coo.shape[0])
    # the coordinates two by two as complex numbers x + iy, one contiguous array per pair: 1-D
    # gathers and scatters are the cheapest, and a 2-D map is a single array
    planes = _to_planes(Z)
    tail_planes = planes if moving_both else _to_planes(np.asarray(Z_fixed, dtype=float))
    n_tails = len(tail_planes[0])

    per_sample = epochs_per_sample(w, n_epochs)
    per_negative = per_sample / negative_sample_rate
    # a small graph: each epoch's due edges dealt into rounds of their own (see _epoch_rounds)
    small = moving_both and 0 < heads.size <= SMALL_GRAPH_EDGES
    plan = _epoch_rounds(heads, tails, per_sample, n_epochs, coo.shape[0], rng) if small else None
    next_sample = per_sample.copy()
    next_negative = per_negative.copy()
    for epoch in range(n_epochs):
        alpha = learning_rate * (1.0 - epoch / n_epochs)
        # which edges are due, and how many negative samples each draws, depend on the epoch
        # only: they are worked out for the whole epoch at once, the rounds take their slices
        due = np.flatnonzero(next_sample <= epoch)
        n_neg = np.floor((epoch - next_negative[due]) / per_negative[due]).astype(np.intp)
        np.maximum(n_neg, 0, out=n_neg)
        next_sample[due] += per_sample[due]
        next_negative[due] += n_neg * per_negative[due]
        if plan is None:
            cut = np.searchsorted(due, bounds)  # round r's due edges: due[cut[r]:cut[r + 1]]
            flags = shared
        else:  # the epoch's own rounds, all matchings
            by_round, cut = plan[epoch]
            due, n_neg = due[by_round], n_neg[by_round]
            flags = np.zeros(cut.size - 1, dtype=bool)
        i_all, j_all = heads[due], tails[due]
        sample_cut = np.concatenate(([0], np.cumsum(n_neg)))[cut]
        edge = np.repeat(np.arange(due.size), n_neg)  # the due edge each sample is for
        m_all = rng.integers(0, n_tails, size=edge.size)
        sample_head = i_all[edge]
        # a sample's edge counted from its round's first edge, and where its pushes' real and
        # imaginary parts are summed (2 e and 2 e + 1)
        edge -= np.repeat(cut[:-1], np.diff(sample_cut))
        parts = np.repeat(2 * edge, 2)
        parts[1::2] += 1
        cut, sample_cut = cut.tolist(), sample_cut.tolist()
        keep_coincident = (m_all != sample_head) if moving_both else np.ones(edge.size, bool)
        for r in range(len(cut) - 1):
            lo, hi = cut[r], cut[r + 1]
            if lo == hi:
                continue
            i = i_all[lo:hi]  # each point at most once, unless the round is flagged shared
            _attract(planes, tail_planes, i, j_all[lo:hi], a, b, alpha, moving_both, flags[r])
            lo, hi = sample_cut[r], sample_cut[r + 1]
            if lo < hi:
                _repel(planes, tail_planes, i, sample_head[lo:hi], m_all[lo:hi],
                       parts[2 * lo:2 * hi], keep_coincident[lo:hi], a, b, alpha, dim,
                       flags[r])
        if callback is not None or epoch == n_epochs - 1:
            Z = _from_planes(planes, dim)
            if callback is not None:
                callback(epoch, Z)
    return Z


def _to_planes(Z):
    """The columns of ``Z`` two by two as complex arrays ``x + iy`` (an odd last one with
    ``y = 0``)."""
    return [Z[:, c] + 1j * (Z[:, c + 1] if c + 1 < Z.shape[1] else 0.0)
            for c in range(0, Z.shape[1], 2)]


def _from_planes(planes, dim):
    """The inverse of :func:`_to_planes`: the map of ``dim`` columns."""
    return np.stack([part for p in planes for part in (p.real, p.imag)], axis=1)[:, :dim]


def _attract(planes, tail_planes, i, j, a, b, alpha, moving_both, shared):
    r"""One round's attraction: each edge :math:`(i, j)` moves :math:`z_i` by
    :math:`\alpha\,\mathrm{clip}(-2ab\,s^{b-1} / (1 + a s^b)\,(z_i - z_j))` and, when the tails
    move, :math:`z_j` by the opposite (the points of ``i`` and ``j`` all distinct, unless
    ``shared``: then a point's moves are added up)."""
    diffs = [p[i] - t[j] for p, t in zip(planes, tail_planes, strict=True)]
    s = _squared_norm(diffs)
    # s^(b - 1): huge but finite at s = 0, where the difference is 0
    sb_1 = np.power(np.maximum(s, TINY_SQUARED), b - 1.0)
    coeff = np.multiply(sb_1, s, out=s)  # s^b
    coeff *= a
    coeff += 1.0
    np.divide(sb_1, coeff, out=coeff)
    coeff *= -2.0 * a * b * alpha
    for p, d in zip(planes, diffs, strict=True):
        pull = _clipped(coeff, d, alpha)
        _add_at(p, i, pull, shared)
        if moving_both:
            _add_at(p, j, -pull, shared)


def _repel(planes, tail_planes, i, heads, m, parts, keep_coincident, a, b, alpha, dim, shared):
    r"""One round's negative samples: the sample ``(heads[k], m[k])`` pushes its head by
    :math:`\alpha\,\mathrm{clip}(2b / ((\epsilon + s)(1 + a s^b))\,(z_h - z_m))`, all from the
    places the attraction gave; the pushes are summed per edge (the edge ``e`` of the round,
    whose head is ``i[e]``, gets the real parts of its samples at ``parts = 2e`` and the
    imaginary ones at ``2e + 1``). Two points at one place move apart along the
    diagonal, unless ``keep_coincident`` is False (a point drawn as its own sample: no push)."""
    diffs = [p[heads] - t[m] for p, t in zip(planes, tail_planes, strict=True)]
    s = _squared_norm(diffs)
    coincident = None
    if not s.all():  # rare: a sample at its head's place
        coincident = (s == 0) & keep_coincident
    coeff = np.power(s, b)
    coeff *= a
    coeff += 1.0
    s += REPULSION_EPS
    coeff *= s
    np.divide(2.0 * b * alpha, coeff, out=coeff)
    for c, (p, d) in enumerate(zip(planes, diffs, strict=True)):
        push = _clipped(coeff, d, alpha)
        if coincident is not None:  # apart along the diagonal (not along an odd map's padding)
            push[coincident] = GRADIENT_CLIP * alpha * (1 + 1j * (2 * c + 1 < dim))
        # the sums of the real and the imaginary parts at once, side by side
        _add_at(p, i, np.bincount(parts, weights=push.view(np.float64),
                                  minlength=2 * i.size).view(np.complex128), shared)


def _add_at(p, index, values, shared):
    """``p[index] += values``, for distinct indices; ``shared``: repeated ones, added up."""
    if shared:
        np.add.at(p, index, values)
    else:
        p[index] += values  # cheaper, and the same for distinct indices


def matching_rounds(heads: ArrayLike, tails: ArrayLike, n_points: int,
                    random_state: Seed = None) -> tuple[IntArray, IntArray]:
    r"""Deal directed edges into rounds in which no point is an end of two edges.

    Each unordered pair :math:`\{i, j\}` gets a colour such that no two pairs with a common
    point share one: a greedy edge colouring, computed in parallel (Jones & Plassmann
    1993). The pairs get random priorities; in each pass, every uncoloured pair whose
    priority is the highest of the uncoloured pairs at both of its points takes the smallest
    colour used at neither point. Those pairs share no point, so a pass colours them all at
    once, and the colouring is the one that colouring the pairs one by one, in the order of
    priority, would give (at most :math:`2\Delta - 1` colours for a largest degree
    :math:`\Delta`, and in practice about :math:`\Delta`). With :math:`C` colours, the edge
    :math:`(i, j)` of colour :math:`c` goes to round :math:`c` if :math:`i < j` and to round
    :math:`C + c` if :math:`i > j`: the two directions of a pair fall in different rounds.

    Parameters
    ----------
    heads, tails : ndarrays of shape (n_edges,)
        The edges :math:`(i, j)`, points in ``range(n_points)``; no edge may join a point to
        itself.
    n_points : int
    random_state : int, Generator or None
        Draws the priorities.

    Returns
    -------
    order : ndarray of shape (n_edges,)
        The edges, round by round (indices into ``heads`` and ``tails``).
    bounds : ndarray of shape (n_rounds + 1,)
        Round ``r`` is ``order[bounds[r]:bounds[r + 1]]``.
    """
    heads, tails = np.asarray(heads), np.asarray(tails)
    if (heads == tails).any():
        raise ValueError("an edge joins a point to itself, and a round cannot hold it without "
                         "the point being twice in it; drop the loops (the diagonal of P).")
    return _rounds(heads, tails, n_points, True, check_random_state(random_state))


def _rounds(heads, tails, n_points, tails_move, rng, hub_share=False):
    """The edges' order and the rounds' bounds (see :func:`matching_rounds`). When the tails do
    not move (new points against a fixed map), a round needs distinct heads only: round ``r``
    holds each head's ``r``-th edge. ``hub_share``: at most ``HUB_FACTOR`` times the median
    point's number of pairs colours; a pair of colour ``c`` beyond goes to colour ``c mod``
    that, where it can share either of its points (a hub's or not) with a pair already there:
    such rounds are no longer matchings, and :func:`_shared_rounds` flags them."""
    if heads.size == 0:
        return np.arange(0), np.zeros(1, dtype=np.intp)
    if not tails_move:
        first = np.searchsorted(heads, heads, side="left")  # heads are sorted (row order)
        rounds = np.arange(heads.size) - first
    else:
        lo, hi = np.minimum(heads, tails), np.maximum(heads, tails)
        pairs, pair_of = np.unique(lo * np.int64(n_points) + hi, return_inverse=True)
        u, v = pairs // n_points, pairs % n_points
        colour = _colour_pairs(u, v, n_points, rng)
        if hub_share:
            degree = np.bincount(u, minlength=n_points) + np.bincount(v, minlength=n_points)
            colour %= max(1, int(np.ceil(HUB_FACTOR * np.median(degree[degree > 0]))))
        rounds = colour[pair_of] + (colour.max() + 1) * (heads > tails)
    order = np.argsort(rounds, kind="stable")
    bounds = np.searchsorted(rounds[order], np.arange(rounds.max() + 2))
    return order, bounds


def _epoch_rounds(heads, tails, per_sample, n_epochs, n_points, rng):
    """For each epoch, its due edges (as :func:`optimize_layout` finds them, in edge order) dealt
    into rounds in which no point is an end of two edges: ``(by_round, cut)``, round ``r`` being
    the due edges ``by_round[cut[r]:cut[r + 1]]``. Each epoch's due pairs get the greedy colouring
    of :func:`_rounds`, in one order of the pairs drawn for the whole run, and the two directions
    of a pair of colour ``c`` go to rounds ``c`` and ``C + c``; the epochs are coloured at once,
    as one graph whose points are (epoch, point) pairs."""
    next_sample = per_sample.copy()
    dues = []
    for epoch in range(n_epochs):  # the same sums as optimize_layout's, so the same edges
        due = np.flatnonzero(next_sample <= epoch)
        next_sample[due] += per_sample[due]
        dues.append(due)
    lo, hi = np.minimum(heads, tails), np.maximum(heads, tails)
    pairs, pair_of = np.unique(lo * np.int64(n_points) + hi, return_inverse=True)
    priority = rng.permutation(pairs.size)
    sizes = np.array([due.size for due in dues])
    epoch_of = np.repeat(np.arange(n_epochs), sizes)
    due = np.concatenate(dues)
    if not due.size:  # too few epochs for any edge to be due
        return [(due, np.zeros(1, dtype=np.intp))] * n_epochs
    keys, key_of = np.unique(epoch_of * np.int64(pairs.size) + pair_of[due], return_inverse=True)
    at = keys // pairs.size * n_points  # the epoch's first (epoch, point) vertex
    first = pairs[keys % pairs.size]
    colour = _colour_pairs(at + first // n_points, at + first % n_points, n_epochs * n_points,
                           rng, priority[keys % pairs.size])[key_of]
    rounds = colour + (colour.max() + 1) * (heads[due] > tails[due])
    order = np.lexsort((rounds, epoch_of))  # by epoch, then by round
    rounds = rounds[order]
    n_rounds = np.arange(2 * colour.max() + 3)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    return [(order[lo:hi] - lo, np.searchsorted(rounds[lo:hi], n_rounds))
            for lo, hi in zip(starts[:-1], starts[1:], strict=True)]


def _shared_rounds(heads, tails, bounds, n_points):
    """For each round, whether a point is an end of two of its edges (``tails`` None: heads
    only count)."""
    ends = heads if tails is None else np.concatenate([heads, tails])
    rounds = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    if tails is not None:
        rounds = np.concatenate([rounds, rounds])
    keys = np.sort(rounds * np.int64(n_points) + ends)
    repeated = keys[1:][keys[1:] == keys[:-1]] // n_points
    return np.bincount(repeated, minlength=len(bounds) - 1) > 0


def _colour_pairs(u, v, n_points, rng, priority=None):
    """A greedy edge colouring of the simple graph with edges ``(u[e], v[e])``, pass by pass, in
    the order of ``priority`` (distinct at each point; drawn from ``rng`` if None)."""
    n_pairs = u.size
    if priority is None:
        priority = rng.permutation(n_pairs)
    degree = np.bincount(u, minlength=n_points) + np.bincount(v, minlength=n_points)
    used = np.zeros((n_points, 2 * int(degree.max())), dtype=bool)  # greedy needs < 2 * degree
    colour = np.empty(n_pairs, dtype=np.intp)
    left = np.arange(n_pairs)
    while left.size:
        uu, vv, p = u[left], v[left], priority[left]
        top = np.full(n_points, -1)
        np.maximum.at(top, uu, p)
        np.maximum.at(top, vv, p)
        ready = (top[uu] == p) & (top[vv] == p)
        uu, vv = uu[ready], vv[ready]
        c = np.argmin(used[uu] | used[vv], axis=1)  # the smallest colour free at both points
        colour[left[ready]] = c
        used[uu, c] = used[vv, c] = True
        left = left[~ready]
    return colour


def _squared_norm(diffs):
    r""":math:`\sum_c |d_c|^2` of the complex differences, one per pair of coordinates."""
    s = diffs[0].real * diffs[0].real
    s += diffs[0].imag * diffs[0].imag
    for d in diffs[1:]:
        s += d.real * d.real
        s += d.imag * d.imag
    return s


def _clipped(coeff, diff, alpha):
    r""":math:`\mathrm{clip}(c\,d, -4\alpha, 4\alpha)` for the complex differences ``diff``
    (both parts clipped), where ``coeff`` already carries the factor :math:`\alpha > 0`: that
    is :math:`\alpha\,\mathrm{clip}(c\,d / \alpha, -4, 4)`, a step of the optimiser."""
    # the real and imaginary parts side by side, times the real coefficient
    parts = diff.view(np.float64).reshape(-1, 2) * coeff[:, None]
    np.maximum(parts, -GRADIENT_CLIP * alpha, out=parts)  # np.clip's overhead is several times
    np.minimum(parts, GRADIENT_CLIP * alpha, out=parts)
    return parts.view(np.complex128).ravel()


# --- the start ------------------------------------------------------------------------------------
def spectral_start(P: Sparse, n_components: int) -> FloatArray:
    r"""Laplacian eigenmaps of the fuzzy graph: the bottom non-trivial solutions of
    :math:`L v = \lambda D v` with :math:`L = D - P` (the book's eigenmaps chapter).

    ``P`` must be connected; :func:`component_start` lays out a graph in pieces."""
    degree = np.asarray(P.sum(axis=1)).ravel()
    D = sp.diags(degree)
    _, V = bottom_eigenpairs((D - P).tocsr(), n_components, B=D, skip=1)
    return flip_signs(V)


def component_start(P: Sparse, X: ArrayLike, n_components: int, labels: IntArray,
                    rng: np.random.Generator) -> FloatArray:
    r"""A start for a fuzzy graph in several connected components.

    Laplacian eigenmaps cannot place components relative to each other (each adds a zero
    eigenvalue), so each component is laid out on its own (:func:`spectral_start`, or at random
    when it has too few points), scaled into a disc, and the discs are centred at the principal
    components of the components' centres in the data: a small map of the components. The
    disc radius is half the smallest distance between two centres, so no two overlap.
    """
    n_parts = labels.max() + 1
    # (np.asarray(...).ravel(): a sparse matrix's mean is a 1 x D matrix)
    centres = np.array([np.asarray(X[labels == c].mean(axis=0)).ravel()
                        for c in range(n_parts)])
    if n_parts > n_components:
        meta = _pca_start(centres, n_components)
    else:  # too few centres for principal components: a regular polygon's corners
        angle = 2 * np.pi * np.arange(n_parts) / n_parts
        meta = np.zeros((n_parts, n_components))
        meta[:, 0], meta[:, min(1, n_components - 1)] = np.cos(angle), np.sin(angle)
    meta = meta / np.abs(meta).max()
    gaps = np.linalg.norm(meta[:, None] - meta[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    radius = gaps.min() / 2 if gaps.min() > 0 else 1.0  # centres that coincide: unit discs
    Z = np.empty((X.shape[0], n_components))
    for c in range(n_parts):
        members = np.flatnonzero(labels == c)
        if len(members) > n_components + 2:
            part = spectral_start(P[members][:, members], n_components)
        else:
            part = rng.uniform(-1.0, 1.0, size=(len(members), n_components))
        part = part - part.mean(axis=0)
        part /= max(np.linalg.norm(part, axis=1).max(), np.finfo(float).tiny)
        Z[members] = meta[c] + radius * part
    return Z


def _scale_to_box(Z):
    """Each coordinate mapped affinely onto [0, INIT_BOX] (umap-learn's start scale)."""
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return INIT_BOX * (Z - lo) / span


def _pca_start(X, n_components):
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    return flip_signs(Xc @ Vt[:n_components].T)


def _n_components_of(P):
    n, labels = sp.csgraph.connected_components(P, directed=False)
    return n, labels


def _check_precomputed_knn(knn, n_samples, k):
    """umap-learn's ``precomputed_knn=(knn_indices, knn_dists[, search_index])``, checked:
    the ``k - 1`` neighbours of each point after the point itself, or None if not given."""
    if knn is None:
        return None
    if not isinstance(knn, (tuple, list)) or len(knn) not in (2, 3):
        raise ValueError(
            "precomputed_knn must be a tuple (knn_indices, knn_dists) or (knn_indices, "
            f"knn_dists, search_index) as umap-learn's nearest_neighbors returns, got {knn!r}."
        )
    ind, dist = knn[0], knn[1]
    if ind is None and dist is None:
        return None  # umap-learn's default (None, None, None)
    if ind is None or dist is None:
        raise ValueError("precomputed_knn needs both knn_indices and knn_dists; one is None.")
    ind = np.asarray(ind)
    dist = check_array(dist, name="precomputed_knn's knn_dists")
    if ind.ndim != 2 or ind.dtype.kind not in "iu":
        raise ValueError(f"precomputed_knn's knn_indices must be a 2-D integer array (one row of "
                         f"neighbour indices per sample), got dtype {ind.dtype} and shape "
                         f"{ind.shape}.")
    if ind.shape != dist.shape:
        raise ValueError(f"precomputed_knn's knn_indices has shape {ind.shape} but knn_dists "
                         f"{dist.shape}; they must match.")
    if ind.shape[0] != n_samples:
        raise ValueError(f"precomputed_knn has {ind.shape[0]} rows but X has {n_samples} "
                         "samples: compute the neighbours of the data you fit.")
    if ind.shape[1] < k:
        raise ValueError(
            f"precomputed_knn holds {ind.shape[1]} neighbours per point (the point itself "
            f"counted) but n_neighbors={k} needs {k}: compute at least n_neighbors neighbours "
            f"or lower n_neighbors to {ind.shape[1]}."
        )
    ind, dist = ind[:, :k], dist[:, :k]
    if ind.min() < 0 or ind.max() >= n_samples:
        raise ValueError(f"precomputed_knn's knn_indices must lie in [0, {n_samples - 1}] (rows "
                         "of X); -1 marks a neighbour the search did not find: search further.")
    if (dist < 0).any():
        raise ValueError("precomputed_knn's knn_dists must be non-negative.")
    if (np.diff(dist, axis=1) < 0).any():
        raise ValueError("precomputed_knn's rows must be sorted nearest first; sort each row "
                         "of knn_dists (and knn_indices with it).")
    is_self = ind == np.arange(n_samples)[:, None]
    missing = np.flatnonzero(~is_self.any(axis=1))
    if missing.size:
        raise ValueError(
            f"precomputed_knn's row {missing[0]} does not list point {missing[0]} itself; as "
            "in umap-learn, each row starts with the point itself (its own nearest neighbour, "
            "at distance 0): prepend it."
        )
    first_self = is_self & (np.cumsum(is_self, axis=1) == 1)
    return ind[~first_self].reshape(n_samples, k - 1), dist[~first_self].reshape(n_samples, k - 1)


def inverse_map(Z: ArrayLike, embedding: ArrayLike, X: ArrayLike, n_neighbors: int, a: float,
                b: float) -> FloatArray:
    r"""Points of the data space for places ``Z`` of a UMAP map: a local linear regression.

    For a place :math:`z`, its ``n_neighbors`` nearest training places :math:`z_j` get UMAP's
    own map similarity as weights, :math:`w_j = 1 / (1 + a\,\|z - z_j\|^{2b})`, and the
    estimate is the intercept :math:`c` of the weighted least-squares fit of the training
    points by an affine function of the map,

    .. math:: \min_{c,\,B}\; \sum_j w_j \,\bigl\|x_j - c - B^\top (z_j - z)\bigr\|^2
              + \lambda \|B\|_F^2 ,

    a small ridge :math:`\lambda` (``INVERSE_RIDGE`` times the weighted spread of the
    :math:`z_j - z`) keeping the slope defined when the neighbours are nearly collinear. Without
    the slope :math:`B` this is the weighted mean :math:`\sum_j w_j x_j / \sum_j w_j`; the slope
    removes the mean's first-order bias where the neighbours are not spread evenly around
    :math:`z` (at the map's edges). The estimate is an affine combination of the neighbours'
    :math:`x_j` (its coefficients sum to 1), so it lies in their affine hull: on data from a
    plane it lies on the plane. With fewer neighbours than ``n_components + 2`` the slope is
    dropped.

    Parameters
    ----------
    Z : ndarray of shape (M, n_components)
    embedding, X : the training map (N, n_components) and data (N, D)
    n_neighbors : int
    a, b : float
        The fitted constants of the map's similarity.

    Returns
    -------
    X_new : ndarray of shape (M, D)
    """
    Z = check_array(Z, name="Z")
    k = min(int(n_neighbors), len(embedding))
    dist, ind = cKDTree(embedding).query(Z, k=k)
    dist, ind = dist.reshape(len(Z), k), ind.reshape(len(Z), k)
    w = low_dimensional_similarity(dist, a, b)
    L = embedding.shape[1]
    if k < L + 2:  # too few neighbours for a slope: the weighted mean
        return np.einsum("mj,mjd->md", w, X[ind]) / w.sum(axis=1, keepdims=True)
    delta = embedding[ind] - Z[:, None, :]  # (M, k, L): z_j - z
    A = np.concatenate([np.ones((len(Z), k, 1)), delta], axis=2)  # (M, k, L + 1): [1, z_j - z]
    AtW = np.swapaxes(A * w[:, :, None], 1, 2)  # (M, L + 1, k)
    M = AtW @ A
    spread = np.einsum("mj,mjl,mjl->m", w, delta, delta) / (L * w.sum(axis=1))
    ridge = INVERSE_RIDGE * np.maximum(spread, np.finfo(float).tiny)
    M[:, 1:, 1:] += ridge[:, None, None] * np.eye(L)
    # the intercept's row of M^{-1} A^T W: the affine weights of the neighbours
    coeff = np.linalg.solve(M, AtW)[:, 0, :]  # (M, k)
    return np.einsum("mj,mjd->md", coeff, X[ind])


class UMAP(Estimator):
    r"""Uniform Manifold Approximation and Projection (McInnes, Healy & Melville 2018).

    The fuzzy union graph of the ``n_neighbors`` nearest points (step 1), the similarity
    :math:`q_{ij} = 1 / (1 + a\|z_i - z_j\|^{2b})` with :math:`a, b` fitted to ``min_dist`` and
    ``spread`` (step 2), and the cross-entropy between them followed by stochastic gradient
    descent with negative sampling (step 3); see the module docstring and the book's UMAP
    chapter.

    Parameters
    ----------
    n_components : int, default=2
    n_neighbors : int, default=15
        Neighbourhood size, counting the point itself (umap-learn's convention). Larger values
        keep more of the large-scale structure; smaller ones resolve finer detail. More than the
        number of samples is reduced to it, with a warning (as umap-learn does).
    metric : str or callable, default="euclidean"
        The distance the neighbours are found in (step 1 needs nothing else): a name of
        ``mlnotes.umap_metrics.UMAP_METRICS`` (``"manhattan"``, ``"chebyshev"``,
        ``"minkowski"``, ``"cosine"``, ``"correlation"``, ...), a function ``f(x, y) -> float``
        of two vectors (called on every pair: for small data), or ``"precomputed"``: ``X`` is
        then an ``(N, N)`` distance matrix (dense, or sparse with absent entries meaning "not
        a neighbour") and :meth:`transform` takes the ``(M, N)`` distances of new points to
        the training points. Sparse data works with ``"euclidean"``, ``"sqeuclidean"``,
        ``"cosine"`` and ``"correlation"``.
    metric_kwds : dict or None, default=None
        The metric's parameters: ``{"p": 3}`` for ``"minkowski"`` (umap-learn's name).
    min_dist : float, default=0.1
        Distance in the map below which points count as "as close as possible".
    spread : float, default=1.0
        The scale of the map's similarity beyond ``min_dist``.
    n_epochs : int or None, default=None
        None: 500 up to 10 000 points, 200 beyond (umap-learn's defaults).
    learning_rate : float, default=1.0
        The initial step :math:`\alpha_0`, decreased linearly to 0.
    negative_sample_rate : int, default=5
        Random points that repel per sampled edge.
    init : {"spectral", "pca", "random"} or ndarray of shape (N, n_components), default="spectral"
        The start: Laplacian eigenmaps of the fuzzy graph, the principal components, or
        uniform in the box; scaled into :math:`[0, 10]` per coordinate. "spectral" on a
        disconnected graph lays out each component on its own and places them by the
        principal components of their centres (:func:`component_start`; with
        ``metric="precomputed"`` the rows of the distance matrix stand for the points), with
        a :class:`DisconnectedGraphWarning`.
    target_weight : float in [0, 1], default=0.5
        Supervised UMAP (``fit(X, y)``): how strongly the labels cut the graph; an edge between
        two labels keeps a fraction :math:`e^{-2.5/(1 - w)}` of its weight
        (:mod:`mlnotes.umap_supervised`).
    neighbors_algorithm : {"auto", "exact", "nn-descent"}, default="auto"
        How step 1 finds the neighbours of the training points for ``metric="euclidean"`` on
        dense data. "exact": every pair compared (a k-d tree in few dimensions, blocked matrix
        products beyond), :math:`O(N^2 p)`. "nn-descent": a random-projection forest's guess
        improved by NN-descent (:func:`mlnotes.neighbors.nn_descent`), about :math:`O(N p)`
        per round; approximate (on 70 000 noisy 64-D digits it finds 99% of the exact
        neighbours, and the map keeps the same 10-NN preservation) and seeded by
        ``random_state``. "auto": "exact" up to ``NN_DESCENT_MIN_N`` = 20 000 points (where
        the two cost about the same), "nn-descent" above, as umap-learn switches to its
        approximate search for large data. Other metrics, sparse data and
        :meth:`transform` always search exactly.
    precomputed_knn : tuple or None, default=None
        ``(knn_indices, knn_dists)`` (a third item, umap-learn's search index, is ignored):
        each point's nearest neighbours with the point itself among them (first, at distance 0, as
        umap-learn's ``nearest_neighbors`` returns), at least ``n_neighbors`` per row; the graph
        is built from the first ``n_neighbors`` instead of a search. :meth:`transform` still
        searches the training data, in ``metric``: give the metric the neighbours were found in.
    random_state : int, Generator or None, default=None
        Seeds the negative samples and the start's jitter: the same seed gives the same map.
    callback : callable or None, default=None
        ``callback(epoch, Z)`` after every epoch of the layout's optimisation in ``fit``
        (``Z`` the map then, a copy), as :func:`optimize_layout` calls it.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, n_components)
    graph_ : scipy.sparse.csr_matrix of shape (N, N)
        The fuzzy union :math:`p_{ij}` (step 1); after ``fit(X, y)``, its intersection with
        the labels' graph.
    rho_, sigma_ : ndarrays of shape (N,)
    a_, b_ : float
        The fitted constants of :math:`q` (step 2).
    n_epochs_ : int
    X_fit_ : ndarray or sparse matrix of shape (N, p)
        The training data (the distance matrix for ``metric="precomputed"``).

    Examples
    --------
    >>> from mlnotes import UMAP
    >>> from mlnotes.datasets import make_s_curve
    >>> X, t = make_s_curve(300, random_state=0)
    >>> UMAP(n_epochs=50, random_state=0).fit_transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, n_neighbors=15, metric="euclidean", metric_kwds=None,
                 min_dist=0.1, spread=1.0, n_epochs=None, learning_rate=1.0,
                 negative_sample_rate=5, init="spectral", target_weight=0.5,
                 neighbors_algorithm="auto", precomputed_knn=None, random_state=None,
                 callback=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.metric_kwds = metric_kwds
        self.min_dist = min_dist
        self.spread = spread
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.negative_sample_rate = negative_sample_rate
        self.init = init
        self.target_weight = target_weight
        self.neighbors_algorithm = neighbors_algorithm
        self.precomputed_knn = precomputed_knn
        self.callback = callback
        self.random_state = random_state

    def _tags(self):
        precomputed = isinstance(self.metric, str) and self.metric == "precomputed"
        sparse = isinstance(self.metric, str) and (
            precomputed or ALIASES.get(self.metric, self.metric) in INNER_PRODUCT_METRICS)
        return {"input_tags.pairwise": precomputed, "input_tags.sparse": sparse}

    def _check_params(self, N):
        check_positive(self.n_neighbors, "n_neighbors", integer=True)
        k = _check_umap_neighbors(min(self.n_neighbors, N), N)
        if self.n_neighbors > N:  # umap-learn's policy: a smaller data set than the default k
            warnings.warn(
                f"n_neighbors={self.n_neighbors} is larger than the {N} samples; using "
                f"n_neighbors={N} (every point in every neighbourhood). Pass n_neighbors <= {N} "
                "to silence this.", UserWarning, stacklevel=3,
            )
        d = check_n_components(self.n_components, N - 1)
        _check_min_dist_spread(self.min_dist, self.spread)
        if self.n_epochs is None:
            n_epochs = EPOCHS_SMALL if N <= LARGE_N else EPOCHS_LARGE
        else:
            n_epochs = int(check_positive(self.n_epochs, "n_epochs", integer=True))
        check_positive(self.learning_rate, "learning_rate")
        check_positive(self.negative_sample_rate, "negative_sample_rate", integer=True)
        if isinstance(self.init, str):
            if self.init not in INIT_METHODS:
                raise ValueError(f"init must be one of {INIT_METHODS} or an array of shape "
                                 f"(n_samples, n_components), got {self.init!r}.")
            if self.init == "spectral" and d > N - 2:
                raise ValueError(
                    f"init='spectral' needs n_components <= n_samples - 2 = {N - 2} (the "
                    "constant eigenvector is skipped); use fewer components or init='pca'."
                )
            if self.init == "pca" and self._metric == "precomputed":
                raise ValueError("init='pca' needs the data's coordinates, and with "
                                 "metric='precomputed' there are only distances; use "
                                 "init='spectral' or 'random'.")
        self._check_neighbors_algorithm()
        return k, d, n_epochs

    def _check_neighbors_algorithm(self):
        algorithm = self.neighbors_algorithm
        if not isinstance(algorithm, str) or algorithm not in NEIGHBOR_ALGORITHMS:
            raise ValueError(f"neighbors_algorithm must be one of {NEIGHBOR_ALGORITHMS}, got "
                             f"{algorithm!r}; 'auto' picks the exact search up to "
                             f"{NN_DESCENT_MIN_N} points and NN-descent beyond.")
        if algorithm == "nn-descent" and not (isinstance(self._metric, str)
                                              and self._metric == "euclidean"):
            raise ValueError(f"neighbors_algorithm='nn-descent' searches in Euclidean distance "
                             f"only, and metric={self.metric!r}; use metric='euclidean' or "
                             "neighbors_algorithm='exact' (or 'auto').")

    def _approximate(self, X):
        """Whether step 1 searches by NN-descent (``neighbors_algorithm``, dense Euclidean)."""
        algorithm = self.neighbors_algorithm
        if algorithm == "exact" or not (isinstance(self._metric, str)
                                        and self._metric == "euclidean"):
            return False
        if sp.issparse(X):
            if algorithm == "nn-descent":
                raise TypeError("neighbors_algorithm='nn-descent' needs dense rows, and X is "
                                "sparse; use neighbors_algorithm='exact' (or 'auto').")
            return False
        return algorithm == "nn-descent" or X.shape[0] > NN_DESCENT_MIN_N

    def _check_input(self, X, *, copy):
        """The data (or the distance matrix), checked once at the door."""
        if self._metric == "precomputed":
            return _check_precomputed_distances(X, copy=copy)
        sparse = sp.issparse(X)
        if sparse and not self._is_inner_product_metric():
            raise TypeError(
                f"metric={self.metric!r} needs dense rows, and X is sparse; use one of "
                f"{', '.join(INNER_PRODUCT_METRICS)} (computed from sparse inner products) or "
                "convert the data with X.toarray() if it fits in memory."
            )
        X = check_array(X, min_samples=1, accept_sparse=True, copy=copy)
        if isinstance(self._metric, str) and self._metric == "hellinger" and (
                (X.data if sparse else X) < 0).any():
            raise ValueError("metric='hellinger' compares distributions: the data must be "
                             "non-negative (counts or frequencies); take abs() or use 'cosine'.")
        return X

    def _is_inner_product_metric(self):
        return isinstance(self._metric, str) and self._metric in INNER_PRODUCT_METRICS

    def _neighbours(self, X, m, Y=None):
        """The ``m`` nearest training points of each row of ``Y`` (of ``X`` itself, a point
        not its own neighbour, when ``Y`` is None), and their distances in ``metric``."""
        metric = self._metric
        if isinstance(metric, str) and metric == "precomputed":
            return precomputed_kneighbors(X if Y is None else Y, m, exclude_self=Y is None)
        if isinstance(metric, str) and metric == "euclidean" and not sp.issparse(X) and (
                Y is None or not sp.issparse(Y)):
            return _euclidean_knn(X, m, Y)  # a k-d tree, or brute force in blocks
        return metric_kneighbors(X, m, Y, metric=metric, metric_kwds=self.metric_kwds)

    def _start(self, X, P, d, rng):
        init = self.init
        if not isinstance(init, str):
            Z0 = check_array(init, name="init")
            if Z0.shape != (X.shape[0], d):
                raise ValueError(f"init has shape {Z0.shape}; expected ({X.shape[0]}, {d}), one "
                                 "row per sample and one column per component.")
            return Z0.copy()
        if init == "spectral":
            n_parts, labels = _n_components_of(P)
            if n_parts == 1:
                Z0 = spectral_start(P, d)
            else:
                sizes = np.bincount(labels)
                warnings.warn(
                    f"The fuzzy graph has {n_parts} connected components (sizes "
                    f"{sorted(sizes.tolist(), reverse=True)[:10]}), which Laplacian eigenmaps "
                    "cannot place relative to each other: each is laid out on its own and "
                    "placed by the principal components of the components' centres. Their "
                    "places in the map are only as meaningful as that; raise n_neighbors to "
                    "connect the graph.",
                    DisconnectedGraphWarning, stacklevel=_stacklevel_outside_package(),
                )
                Z0 = component_start(P, X, d, labels, rng)
            return _scale_to_box(Z0) + rng.normal(scale=INIT_NOISE, size=Z0.shape)
        if init == "pca":
            return _scale_to_box(_sparse_pca_start(X, d) if sp.issparse(X)
                                 else _pca_start(X, d))
        return rng.uniform(0.0, INIT_BOX, size=(X.shape[0], d))

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> Self:
        """Build the fuzzy graph of ``X`` (N x p; or its distances, for
        ``metric="precomputed"``) and optimise the map.

        With labels ``y`` (one per sample, integers or strings, ``-1`` for unlabelled), the
        graph is first intersected with the labels' graph (supervised UMAP,
        :func:`mlnotes.umap_supervised.categorical_intersection`).
        """
        self._metric = check_umap_metric(self.metric, self.metric_kwds)
        X = self._check_input(X, copy=True)  # owned: kept as X_fit_
        N = X.shape[0]
        if N < 2:
            raise ValueError(f"X has {N} sample(s) (shape={X.shape}) while a minimum of 2 is "
                             "required; pass at least 2 samples (rows).")
        k, d, n_epochs = self._check_params(N)
        codes = None
        if y is not None:
            w = check_positive(self.target_weight, "target_weight", allow_zero=True)
            if w > 1:
                raise ValueError(f"target_weight must lie in [0, 1] (1: labels cut every "
                                 f"cross-label edge), got {w!r}.")
            codes, _ = check_labels(y, N)
        rng = check_random_state(self.random_state)
        knn = _check_precomputed_knn(self.precomputed_knn, N, k)
        if knn is None and self._approximate(X):
            knn = _nn_descent(X, k - 1, rng)
        elif knn is None:
            knn = self._neighbours(X, k - 1)
        self.graph_, self.rho_, self.sigma_ = _graph_from_knn(*knn, k)
        if codes is not None:
            self.graph_ = categorical_intersection(self.graph_, codes, float(self.target_weight))
        self.a_, self.b_ = fit_ab(self.min_dist, self.spread)
        Z0 = self._start(X, self.graph_, d, rng)
        self.embedding_ = optimize_layout(
            self.graph_, Z0, self.a_, self.b_, n_epochs=n_epochs,
            learning_rate=float(self.learning_rate),
            negative_sample_rate=int(self.negative_sample_rate), random_state=rng,
            callback=self.callback,
        )
        self.n_epochs_ = n_epochs
        self.X_fit_ = X
        return self

    def fit_transform(self, X: ArrayLike, y: ArrayLike | None = None) -> FloatArray:
        """Fit (on labels ``y`` too, if given) and return the map ``Z`` of shape
        (N, n_components)."""
        return self.fit(X, y).embedding_

    def transform(self, X: ArrayLike) -> FloatArray:
        r"""Place new points in the fitted map, which stays fixed.

        Each new point :math:`y` gets memberships :math:`p_{j|y}` to its ``n_neighbors - 1``
        nearest training points in ``metric`` (the same :math:`\rho, \sigma` equations as a
        training point), starts at the membership-weighted mean of their places, and is
        optimised for a third of the training epochs against the fixed map. A new point at
        distance 0 from a training point lands on that point's place.

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (M, p)
            New data; for ``metric="precomputed"``, the ``(M, N)`` distances from the new
            points to the N training points.

        Returns
        -------
        Z : ndarray of shape (M, n_components)
        """
        check_is_fitted(self, "embedding_")
        Xf = self.X_fit_
        N = Xf.shape[0]
        if self._metric == "precomputed":
            Y = _check_new_distances(X, N)
        else:
            Y = self._check_input(X, copy=False)
            if Y.shape[1] != Xf.shape[1]:
                Y = check_n_features(Y, Xf.shape[1], estimator=self, accept_sparse=True)
        k = min(int(self.n_neighbors), N)
        m = max(k - 1, 1)
        ind, dist = self._neighbours(Xf, m, Y)
        rho, sigma = _smooth_knn_distances(dist, max(k, 2))
        W = membership_strengths(dist, rho, sigma)
        Z0 = np.einsum("ij,ijk->ik", W, self.embedding_[ind]) / W.sum(axis=1, keepdims=True)
        M = Y.shape[0]
        rows = np.repeat(np.arange(M), m)
        P = sp.csr_matrix((W.ravel(), (rows, ind.ravel())), shape=(M, N))
        epochs = max(1, self.n_epochs_ // TRANSFORM_EPOCHS_FRACTION)
        Z = optimize_layout(P, Z0, self.a_, self.b_, n_epochs=epochs,
                            learning_rate=float(self.learning_rate),
                            negative_sample_rate=int(self.negative_sample_rate),
                            random_state=self.random_state, Z_fixed=self.embedding_)
        twin = dist[:, 0] == 0  # a training point given again keeps its place
        Z[twin] = self.embedding_[ind[twin, 0]]
        return Z

    def inverse_transform(self, Z: ArrayLike) -> FloatArray:
        r"""Points of the data space for places in the map: a local linear regression.

        For a place :math:`z`, the ``n_neighbors`` nearest training places :math:`z_j`, weighted
        by the map's similarity :math:`w_j = 1/(1 + a\|z - z_j\|^{2b})`, and the intercept
        :math:`c` of the weighted least-squares affine fit
        :math:`\min_{c, B} \sum_j w_j \|x_j - c - B^\top (z_j - z)\|^2` (a small ridge on
        :math:`B`): the weighted mean of the neighbours' data, corrected to first order
        (:func:`inverse_map`). The result is an affine combination of training points, so on
        data from a plane it lies on the plane. umap-learn starts from a weighted mean too
        (over a Delaunay neighbourhood) and then optimises the new points in the data space
        against the fuzzy graph; mlnotes stops at the regression, which needs no iteration and
        is exact wherever the map is locally affine.

        Parameters
        ----------
        Z : ndarray of shape (M, n_components)

        Returns
        -------
        X_new : ndarray of shape (M, n_features)
        """
        check_is_fitted(self, "embedding_")
        if self._metric == "precomputed":
            raise ValueError("inverse_transform needs the training data's coordinates, and with "
                             "metric='precomputed' the model has only distances; fit on the "
                             "data with its metric instead.")
        if sp.issparse(self.X_fit_):
            raise ValueError("inverse_transform is not available for sparse training data (its "
                             "result, a weighted mean of rows, is dense); fit on X.toarray().")
        if isinstance(self._metric, str) and self._metric in BINARY_METRICS:
            raise ValueError(f"inverse_transform is not available for metric={self.metric!r}: "
                             "an average of binary vectors is not a binary vector.")
        Z = check_n_features(Z, self.embedding_.shape[1], name="Z", estimator=self)
        return inverse_map(Z, self.embedding_, self.X_fit_, self.n_neighbors, self.a_, self.b_)


def _check_precomputed_distances(D, *, copy):
    """An (N, N) distance matrix, dense or sparse, non-negative and finite."""
    name = "the precomputed distance matrix"
    D = check_array(D, name=name, accept_sparse=True, copy=copy)
    if D.shape[0] != D.shape[1]:
        raise ValueError(
            f"metric='precomputed' needs a square (n_samples x n_samples) distance matrix, got "
            f"shape {D.shape}; pass the data with a metric (e.g. metric='euclidean') instead."
        )
    if ((D.data if sp.issparse(D) else D) < 0).any():
        raise ValueError(f"{name} has negative entries; distances must be >= 0.")
    return D


def _check_new_distances(D, n_train):
    """The (M, N) distances of new points to the N training points."""
    D = check_array(D, name="X", accept_sparse=True)
    if D.shape[1] != n_train:
        raise ValueError(
            f"With metric='precomputed', transform takes the (n_new, n_train) distances from "
            f"the new points to the {n_train} training points, got shape {D.shape}: compute "
            "the distances to the training points (not the new data itself)."
        )
    if ((D.data if sp.issparse(D) else D) < 0).any():
        raise ValueError("the distances to the training points have negative entries; "
                         "distances must be >= 0.")
    return D


def _sparse_pca_start(X, n_components):
    """:func:`_pca_start` for sparse rows: the top singular vectors of the centred matrix,
    applied as an operator (the centred matrix is never formed)."""
    from scipy.sparse.linalg import LinearOperator, svds

    mean = np.asarray(X.mean(axis=0)).ravel()
    centred = LinearOperator(
        X.shape, dtype=float,
        matvec=lambda v: X @ np.ravel(v) - mean @ np.ravel(v),
        rmatvec=lambda u: X.T @ np.ravel(u) - mean * np.sum(u),
    )
    U, s, _ = svds(centred, k=n_components, random_state=0)
    order = np.argsort(s)[::-1]
    return flip_signs(U[:, order] * s[order])
