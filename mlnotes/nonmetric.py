r"""Non-metric (ordinal) multidimensional scaling: Kruskal's stress, minimised by SMACOF.

Non-metric MDS keeps only the *order* of the dissimilarities. It looks for points
:math:`z_1, \dots, z_N \in \mathbb{R}^L` and **disparities** :math:`\hat d_{ij}` that are a
non-decreasing function of the dissimilarities,

.. math::
    \delta_{ij} < \delta_{kl} \;\Rightarrow\; \hat d_{ij} \le \hat d_{kl},

such that the embedding distances :math:`d_{ij} = \|z_i - z_j\|` are close to the disparities.
Any strictly increasing transformation of the :math:`\delta_{ij}` leaves the problem, and so its
solution, unchanged.

Two steps alternate (Kruskal 1964b; de Leeuw's SMACOF form, Borg and Groenen ch. 9):

1. **the monotone regression step**: for the current distances, the disparities are the
   least-squares non-decreasing fit of the :math:`d_{ij}`, taken in the order of the
   :math:`\delta_{ij}` (:func:`monotone_regression`, pool adjacent violators), rescaled so that
   :math:`\sum_{i<j} \hat d_{ij}^2 = N(N-1)/2` (:func:`disparities`). The rescaling excludes the
   trivial solution: without it, :math:`Z = 0` and :math:`\hat d = 0` would have zero stress.
2. **the Guttman transform** of metric SMACOF, with the disparities as the target distances
   (:func:`mlnotes.smacof.guttman_transform`).

Each step minimises the raw stress :math:`\sigma(Z, \hat d) = \sum_{i<j} (\hat d_{ij} - d_{ij})^2`
over its own variables (the second only majorises, so it lowers it), so the stress never
increases. The scale-free measure reported is **Kruskal's stress-1**,

.. math::
    S_1(Z) = \sqrt{\frac{\sum_{i<j} (d_{ij} - \hat d_{ij})^2}{\sum_{i<j} d_{ij}^2}},

with :math:`\hat d` the monotone regression of :math:`d` (not rescaled): :func:`kruskal_stress`.
At a configuration whose scale is optimal (every fixed point of the iteration),
:math:`\sigma = \tfrac{N(N-1)}{2} S_1^2`.

**Ties.** When :math:`\delta_{ij} = \delta_{kl}` the *primary approach* (Kruskal's, the default
here) puts no constraint between :math:`\hat d_{ij}` and :math:`\hat d_{kl}`; the *secondary
approach* requires them to be equal. The primary approach is the default because ties in
ordinal data usually come from a coarse scale (ratings from 1 to 9, rounded distances): two
pairs given the same rating are not known to be equally dissimilar, so the data do not ask
for equal distances. The secondary approach (scikit-learn's) suits ties that are exact, such as
hop counts on a graph. Computationally: primary sorts each block of tied pairs by its current
distance before the regression (then the fit is free within the block); secondary pools each
block into its mean first, with the block's size as weight. Values equal up to rounding
(relative difference below :data:`TIE_RTOL`) count as tied.

References
----------
.. [1] Kruskal, J. B. (1964a). Multidimensional scaling by optimizing goodness of fit to a
       nonmetric hypothesis. Psychometrika 29, 1-27.
.. [2] Kruskal, J. B. (1964b). Nonmetric multidimensional scaling: a numerical method.
       Psychometrika 29, 115-129.
.. [3] Borg, I. and Groenen, P. (2005). Modern Multidimensional Scaling, 2nd ed., ch. 9.
"""

import numpy as np

from ._typing import ArrayLike, FloatArray, Self
from ._validation import (
    check_dissimilarity,
    check_finite,
    check_n_components,
    check_positive,
    check_random_state,
)
from .smacof import (
    STRESS_RTOL,
    MetricMDS,
    _check_pair,
    _check_run_params,
    _classical_start,
    _distances,
    _guttman,
    _random_start,
    _raw_stress,
)

TIES = ("primary", "secondary")
# Dissimilarities equal up to rounding are ties: two computed distances that are equal in exact
# arithmetic (sqrt(8) from two pairs of points) may differ in the last bits, and whether they
# tie must not depend on that (nor, then, on the scale of the data).
TIE_RTOL = 1e-10


# --- the monotone regression step ----------------------------------------------------------------
def monotone_regression(y: ArrayLike, weights: ArrayLike | None = None) -> FloatArray:
    r"""Least-squares non-decreasing fit by pool-adjacent-violators (PAVA).

    .. math::
        \hat y = \operatorname*{arg\,min}_{x_1 \le x_2 \le \dots \le x_n}
        \sum_k w_k (y_k - x_k)^2 .

    The solution is constant on consecutive blocks and equals each block's weighted mean.
    PAVA starts from single-element blocks and pools any two neighbours whose means are in
    the wrong order (an *adjacent violation*): the optimum must give them equal values, since
    moving both to their pooled mean lowers the error without breaking the order. Here every
    maximal run of blocks with decreasing means is pooled at once, one vectorised pass at a
    time, until no violation is left; the result does not depend on the order of pooling.

    Parameters
    ----------
    y : array-like of shape (n,)
        Values, in the order the fit must respect.
    weights : array-like of shape (n,), optional
        Positive weights :math:`w_k` (default all 1).

    Returns
    -------
    ndarray of shape (n,)
        The non-decreasing vector closest to ``y`` in the weighted least-squares sense.

    Examples
    --------
    >>> monotone_regression([1.0, 3.0, 2.0, 4.0])
    array([1. , 2.5, 2.5, 4. ])
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(
            f"y must be a non-empty 1-D array, got shape {y.shape}; pass the values in the "
            "order the fit must respect, e.g. d[np.argsort(delta)]."
        )
    check_finite(y, name="y")
    if weights is None:
        w = np.ones_like(y)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != y.shape:
            raise ValueError(f"weights has shape {w.shape} but y has {y.shape}; give one weight per value.")
        check_finite(w, name="weights")
        if w.min() <= 0:
            raise ValueError(f"weights must be positive, but the smallest is {w.min():.6g}.")
    return _pava(y, w)


def _pava(y, w):
    """PAVA without input checks (see :func:`monotone_regression`)."""
    start = np.arange(len(y))  # first index of each block
    total, weight = w * y, w.copy()  # weighted sum and weight of each block
    while True:
        mean = total / weight
        violates = mean[:-1] > mean[1:]  # block k and k + 1 in the wrong order
        if not violates.any():
            break
        # a block opens a new pool unless it violates the order with the block before it
        opens = np.flatnonzero(np.r_[True, ~violates])
        total = np.add.reduceat(total, opens)
        weight = np.add.reduceat(weight, opens)
        start = start[opens]
    return np.repeat(mean, np.diff(np.r_[start, len(y)]))


class _Order:
    """The order of the dissimilarities, computed once: what the regression step needs of them.

    ``fit(d)`` takes the embedding distances of the pairs ``i < j`` (in ``iu`` order) and
    returns their monotone regression on the order of the dissimilarities, with the chosen
    treatment of ties.
    """

    def __init__(self, Delta, ties):
        self.N = len(Delta)
        self.iu = np.triu_indices(self.N, k=1)
        delta = Delta[self.iu]
        self.delta = delta
        self.ties = ties
        self.order = np.argsort(delta, kind="stable")
        sorted_delta = delta[self.order]
        # a tie: equal up to rounding (consecutive values within TIE_RTOL of each other)
        distinct = np.diff(sorted_delta) > TIE_RTOL * sorted_delta[1:]
        self.block_start = np.flatnonzero(np.r_[True, distinct])
        self.block_size = np.diff(np.r_[self.block_start, len(delta)])
        self.has_ties = len(self.block_start) < len(delta)
        self.block = np.empty(len(delta), dtype=np.intp)  # the tie block of each pair
        self.block[self.order] = np.repeat(np.arange(len(self.block_start)), self.block_size)
        # ranks 1..M of the dissimilarities, tied ones sharing their mean rank
        mean_rank = self.block_start + (self.block_size + 1) / 2.0
        self.ranks = np.empty_like(delta)
        self.ranks[self.order] = np.repeat(mean_rank, self.block_size)

    def fit(self, d):
        fitted = np.empty_like(d)
        if not self.has_ties:
            fitted[self.order] = _pava(d[self.order], np.ones_like(d))
        elif self.ties == "primary":
            # within a block of tied dissimilarities, the current distances' own order: the
            # fit is then free inside the block (no constraint between tied pairs)
            order = np.lexsort((d, self.block))
            fitted[order] = _pava(d[order], np.ones_like(d))
        else:
            # secondary: tied pairs share one disparity; pool each block into its mean first
            block_mean = np.add.reduceat(d[self.order], self.block_start) / self.block_size
            fit = _pava(block_mean, self.block_size.astype(float))
            fitted[self.order] = np.repeat(fit, self.block_size)
        return fitted

    def disparities(self, D):
        """The rescaled disparity matrix (sum over pairs of squares N(N-1)/2) for distances D."""
        return self._matrix(self.fit(D[self.iu]))

    def rank_disparities(self):
        """The ranks, rescaled: monotone in the dissimilarities, so feasible disparities."""
        return self._matrix(self.ranks)

    def _matrix(self, dhat):
        scale = np.sqrt(len(dhat) / np.dot(dhat, dhat))  # sum_{i<j} dhat^2 = N(N-1)/2
        Dhat = np.zeros((self.N, self.N))
        Dhat[self.iu] = scale * dhat
        return Dhat + Dhat.T

    def stress_1(self, D):
        d = D[self.iu]
        r = d - self.fit(d)
        return float(np.sqrt(np.dot(r, r) / np.dot(d, d)))


def _check_ties(ties):
    if ties not in TIES:
        raise ValueError(
            f"ties must be 'primary' (tied dissimilarities may get different disparities: "
            f"Kruskal's default) or 'secondary' (tied ones get equal disparities), got {ties!r}."
        )
    return ties


def _check_order(Delta):
    delta = Delta[np.triu_indices(len(Delta), k=1)]
    if delta.size == 0 or delta.min() == delta.max():
        raise ValueError(
            "All dissimilarities between distinct points are equal, so they carry no order: "
            "every configuration fits them perfectly. Non-metric MDS needs at least two "
            "different dissimilarities (and at least 3 points)."
        )


def _check_spread(D):
    if not D.any():
        raise ValueError(
            "All points of the configuration coincide (every distance is 0), so the disparities "
            "cannot be rescaled and stress-1 is undefined; start from a configuration with "
            "distinct points (init='random' or 'classical')."
        )


def disparities(
    Delta: ArrayLike, Z: ArrayLike, *, ties: str = "primary", normalize: bool = True
) -> FloatArray:
    r"""The monotone regression step: disparities :math:`\hat d_{ij}` for the configuration ``Z``.

    The least-squares fit of the distances :math:`d_{ij} = \|z_i - z_j\|` (pairs
    :math:`i < j`) by values that do not decrease along the order of :math:`\delta_{ij}`:

    .. math::
        \hat d = \operatorname*{arg\,min}_{\hat d \text{ monotone in } \delta}
        \sum_{i<j} (d_{ij} - \hat d_{ij})^2 ,

    then (``normalize=True``) rescaled to :math:`\sum_{i<j} \hat d_{ij}^2 = N(N-1)/2`. Rescaling
    the least-squares fit is itself optimal: among monotone vectors of that length, it is
    the closest to :math:`d` (the monotone vectors form a convex cone, and the projection onto a
    cone, rescaled, maximises the inner product with :math:`d` on a sphere).

    Parameters
    ----------
    Delta : array-like of shape (N, N)
        Dissimilarities (symmetric, non-negative, zero diagonal); only their order is used.
    Z : array-like of shape (N, L)
        Configuration.
    ties : {"primary", "secondary"}
        Tied dissimilarities may get different disparities (primary) or must get equal ones
        (secondary); see the module's docstring.
    normalize : bool
        Rescale to :math:`\sum_{i<j} \hat d_{ij}^2 = N(N-1)/2` (the SMACOF step), or return the
        plain least-squares fit (the one stress-1 uses).

    Returns
    -------
    ndarray of shape (N, N)
        Symmetric, zero diagonal.
    """
    Delta, Z = _check_pair(Delta, Z)
    order = _Order(Delta, _check_ties(ties))
    D = _distances(Z)
    if not normalize:
        Dhat = np.zeros_like(D)
        Dhat[order.iu] = order.fit(D[order.iu])
        return Dhat + Dhat.T
    _check_spread(D)
    return order.disparities(D)


def kruskal_stress(Delta: ArrayLike, Z: ArrayLike, *, ties: str = "primary") -> float:
    r"""Kruskal's stress-1 of the configuration ``Z`` for the ordinal data ``Delta``.

    .. math::
        S_1(Z) = \sqrt{\frac{\sum_{i<j} (d_{ij} - \hat d_{ij})^2}{\sum_{i<j} d_{ij}^2}},

    with :math:`\hat d` the monotone regression of the distances on the order of the
    dissimilarities (:func:`disparities` with ``normalize=False``). It depends on ``Delta`` only
    through its order (and ties), and on ``Z`` only up to scale: 0 is a perfect ordinal fit,
    0.05 good, 0.2 poor (Kruskal's rule of thumb).

    Where it meets the raw stress that SMACOF minimises: for disparities rescaled to
    :math:`\sum_{i<j} \hat d_{ij}^2 = c`, minimising :math:`\sum_{i<j} (\hat d_{ij} - \alpha
    d_{ij})^2` over the scale :math:`\alpha` leaves exactly :math:`c\, S_1(Z)^2`. The metric
    stress-1 of :func:`mlnotes.metrics.normalized_stress` is the same formula with the
    :math:`\delta_{ij}` themselves in place of the :math:`\hat d_{ij}`, so it is never smaller.
    """
    Delta, Z = _check_pair(Delta, Z)
    D = _distances(Z)
    _check_spread(D)
    return _Order(Delta, _check_ties(ties)).stress_1(D)


# --- the iteration -------------------------------------------------------------------------------
def _nonmetric_run(order, Z, max_iter, eps):
    """Alternate the Guttman transform and the regression step; (Z, stress, n_iter, history, Dhat).

    The first disparities are the rescaled ranks of the dissimilarities, not the regression of
    the start's distances: from a random start that regression pools almost everything into
    one constant, a target of equal distances from which SMACOF hardly moves. The ranks are
    monotone in the dissimilarities, hence feasible, so the stress still never increases.
    """
    D = _distances(Z)
    _check_spread(D)
    Dhat = order.rank_disparities()
    history = [_raw_stress(Dhat, D)]
    for _ in range(max_iter):
        Z = _guttman(Dhat, Z, D)  # lowers sigma(Z, Dhat) for these disparities
        D = _distances(Z)
        Dhat = order.disparities(D)  # the best disparities for this Z: lowers it again
        history.append(_raw_stress(Dhat, D))
        old, new = history[-2], history[-1]
        if new == 0.0 or old - new < eps * old:  # relative decrease below eps: converged
            break
    return Z, history[-1], len(history) - 1, history, Dhat


def _rank_start(Delta, L):
    """Classical MDS of the ranks of the dissimilarities (ties get their mean rank).

    A start that, like the rest of the method, sees only the order of the dissimilarities.
    """
    return _classical_start(_Order(Delta, "primary").rank_disparities(), L)


def nonmetric_smacof(
    Delta: ArrayLike,
    n_components: int = 2,
    *,
    init: ArrayLike | None = None,
    max_iter: int = 300,
    eps: float = STRESS_RTOL,
    random_state: int | np.random.Generator | None = None,
    ties: str = "primary",
    return_history: bool = False,
) -> tuple:
    r"""Non-metric MDS by SMACOF: alternate the Guttman transform and the monotone regression.

    From a start :math:`Z^{(0)}`, with :math:`\hat D^{(k)}` the rescaled disparities of
    :math:`Z^{(k)}` (:func:`disparities`):

    .. math::
        Z^{(k+1)} = \tfrac1N B\bigl(Z^{(k)}; \hat D^{(k)}\bigr)\, Z^{(k)}, \qquad
        \hat D^{(k+1)} = \text{rescaled monotone regression of } D\bigl(Z^{(k+1)}\bigr),

    so that :math:`\sigma(Z^{(k)}, \hat D^{(k)}) = \sum_{i<j} (\hat d^{(k)}_{ij} -
    d_{ij}(Z^{(k)}))^2` never increases. Stops after the first iteration whose relative decrease
    is below ``eps`` (as :func:`mlnotes.smacof.smacof`), or after ``max_iter`` iterations.

    Parameters
    ----------
    Delta : array-like of shape (N, N)
        Dissimilarities (symmetric, non-negative, zero diagonal); only their order is used.
    n_components : int
        Embedding dimension :math:`L` (ignored when ``init`` is given).
    init : array-like of shape (N, L), optional
        Start; by default uniform random in :math:`[0, 1)^L`.
    max_iter : int
    eps : float
    random_state : int, Generator or None
    ties : {"primary", "secondary"}
    return_history : bool
        Also return the raw stress before the first and after every iteration.

    Returns
    -------
    Z : ndarray of shape (N, L)
    stress : float
        Raw stress :math:`\sigma(Z, \hat D)` against the rescaled disparities.
    n_iter : int
    history : list of float
        Only with ``return_history=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes.graphs import pairwise_distances
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> Delta = np.expm1(pairwise_distances(X))  # distances distorted by a monotone function
    >>> Z, stress, n_iter, history = nonmetric_smacof(Delta, 2, random_state=0,
    ...                                               return_history=True)
    >>> bool(np.all(np.diff(history) <= 0))
    True
    """
    Delta = check_dissimilarity(Delta)
    _check_run_params(max_iter, eps)
    _check_order(Delta)
    order = _Order(Delta, _check_ties(ties))
    if init is None:
        L = check_n_components(n_components, len(Delta))
        Z0 = _random_start(len(Delta), L, check_random_state(random_state))
    else:
        Delta, Z0 = _check_pair(Delta, init)
    Z, stress, n_iter, history, _ = _nonmetric_run(order, Z0, max_iter, eps)
    return (Z, stress, n_iter, history) if return_history else (Z, stress, n_iter)


class NonMetricMDS(MetricMDS):
    r"""Non-metric (ordinal) MDS: Kruskal's stress minimised by SMACOF with a monotone
    regression step.

    .. math::
        \min_{Z,\ \hat d \text{ monotone in } \delta,\ \sum_{i<j} \hat d_{ij}^2 = N(N-1)/2}
        \;\sum_{i<j} \bigl(\hat d_{ij} - \|z_i - z_j\|\bigr)^2

    A :class:`~mlnotes.MetricMDS` whose target distances are not the dissimilarities but
    disparities refitted to the configuration after every Guttman transform: it shares the
    metric estimator's parameters (except ``p``: the Guttman transform needs Euclidean
    distances), its starts and restarts, and adds ``ties``. The result depends on the
    dissimilarities only through their order: any strictly increasing transformation of them
    gives the same embedding (with ``init="classical"``, the start is classical MDS of their
    ranks, so it too sees only the order). scikit-learn's counterpart is
    ``MDS(metric_mds=False)``, which treats ties by the secondary approach (``ties="secondary"``
    here) and reads a zero dissimilarity off the diagonal as missing (here it is the smallest).

    Parameters
    ----------
    n_components : int
        Embedding dimension :math:`L`.
    dissimilarity : {"euclidean", "precomputed"}
        Euclidean distances of the rows of ``X``, or ``X`` is the dissimilarity matrix.
    max_iter : int
        Iterations per run.
    eps : float
        Stop when one iteration lowers the raw stress by less than this fraction of its value.
    random_state : int, Generator or None
        Seeds the random starts.
    init : {"classical", "random"} or ndarray of shape (N, L)
        First run's start: classical MDS of the ranks of the dissimilarities, uniform random,
        or the array given.
    n_init : int
        Number of runs; runs after the first start at random. The run with the lowest stress
        is kept.
    ties : {"primary", "secondary"}
        Tied dissimilarities may get different disparities (primary, Kruskal's default) or
        must get equal ones (secondary, scikit-learn's); see :mod:`mlnotes.nonmetric`.

    Attributes
    ----------
    embedding_ : ndarray of shape (N, L)
    stress_ : float
        Raw stress against the rescaled disparities, each pair counted once.
    normalized_stress_ : float
        Kruskal's stress-1 of the embedding (:func:`kruskal_stress`).
    disparities_ : ndarray of shape (N, N)
        The rescaled disparities of the embedding (:math:`\sum_{i<j} \hat d_{ij}^2 = N(N-1)/2`).
    stress_history_ : list of float
        Raw stress of the kept run, from its start through every iteration (non-increasing).
    n_iter_ : int
    dissimilarity_matrix_ : ndarray of shape (N, N)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    >>> nmds = NonMetricMDS(dissimilarity="precomputed", max_iter=1000, eps=1e-9)
    >>> bool(nmds.fit(D**3).normalized_stress_ < 1e-3)  # the cube changes no order
    True
    """

    def __init__(
        self,
        n_components=2,
        *,
        dissimilarity="euclidean",
        max_iter=300,
        eps=STRESS_RTOL,
        random_state=None,
        init="classical",
        n_init=1,
        ties="primary",
    ):
        self.n_components = n_components
        self.dissimilarity = dissimilarity
        self.max_iter = max_iter
        self.eps = eps
        self.random_state = random_state
        self.init = init
        self.n_init = n_init
        self.ties = ties

    def _first_start(self, Delta, L, rng):
        if isinstance(self.init, str) and self.init == "classical":
            return _rank_start(Delta, L)
        return super()._first_start(Delta, L, rng)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Compute the dissimilarities (or take them) and minimise the stress."""
        Delta = self._dissimilarities(X)
        N = len(Delta)
        L = check_n_components(self.n_components, N, what="n_samples")
        _check_run_params(self.max_iter, self.eps)
        check_positive(self.n_init, "n_init", integer=True)
        order = _Order(Delta, _check_ties(self.ties))
        _check_order(Delta)
        rng = check_random_state(self.random_state)
        best = None
        for run in range(self.n_init):
            Z0 = self._first_start(Delta, L, rng) if run == 0 else _random_start(N, L, rng)
            result = _nonmetric_run(order, Z0, self.max_iter, self.eps)
            if best is None or result[1] < best[1]:
                best = result
        Z, stress, n_iter, history, Dhat = best
        check_finite(Z, name="the embedding")
        self.dissimilarity_matrix_ = Delta
        self.embedding_, self.stress_, self.n_iter_ = Z, stress, n_iter
        self.stress_history_ = history
        self.disparities_ = Dhat
        self.normalized_stress_ = order.stress_1(_distances(Z))
        return self
