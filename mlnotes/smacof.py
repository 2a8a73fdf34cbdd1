r"""Metric multidimensional scaling by stress majorisation (SMACOF).

Metric MDS looks for points :math:`z_1, \dots, z_N \in \mathbb{R}^L` whose distances match the
given dissimilarities :math:`\delta_{ij}` in the least-squares sense, minimising the raw stress

.. math::
    \sigma(Z) = \sum_{i<j} \bigl(\delta_{ij} - \|z_i - z_j\|_p\bigr)^2

(each unordered pair once, as scikit-learn counts it; the notes' sum over :math:`i \ne j` is
twice this, and their "Stress" is its square root). There is no closed form: the methods here
iterate.

* :math:`p = 2`: **SMACOF** (de Leeuw). By Cauchy–Schwarz,
  :math:`\|z_i - z_j\| \ge (z_i - z_j)^\top (y_i - y_j) / \|y_i - y_j\|` for any current
  configuration :math:`Y`, with equality at :math:`Z = Y`. Substituting it in the only
  non-quadratic term :math:`-2\delta_{ij}\|z_i - z_j\|` gives a quadratic majoriser of
  :math:`\sigma` that touches it at :math:`Y`; its minimiser is the **Guttman transform**
  :math:`Z^{+} = \tfrac1N B(Y) Y` (:func:`guttman_transform`). Each step can only lower the
  stress, with no step size to choose.
* :math:`p = 1`: a plain **subgradient method** (:func:`subgradient_stress_descent`).
  SMACOF's majoriser rests on two facts about Euclidean distances: Cauchy–Schwarz (above), and
  :math:`\sum_{i<j} \|z_i - z_j\|_2^2 = \operatorname{tr}(Z^\top V Z)`, a quadratic form, so
  that the majoriser is quadratic and its minimiser is the closed form :math:`\tfrac1N B Y`.
  For the city-block norm the second fails: :math:`\|a\|_1^2 = \sum_k a_k^2 +
  \sum_{k \ne l} |a_k||a_l|` has non-smooth cross terms, the surrogate is only piecewise
  quadratic, and there is no Guttman transform to iterate. (City-block majorisation needs
  further bounds on those cross terms, e.g. Groenen, Heiser and Meulman 1998; the plain
  subgradient method is the simple, general choice.)

References
----------
.. [1] de Leeuw, J. (1977). Applications of convex analysis to multidimensional scaling.
.. [2] Borg, I. and Groenen, P. (2005). Modern Multidimensional Scaling, 2nd ed., ch. 8.
.. [3] Kruskal, J. B. (1964). Multidimensional scaling by optimizing goodness of fit to a
       nonmetric hypothesis. Psychometrika 29, 1-27 (stress-1).
.. [4] Groenen, P. J. F., Heiser, W. J. and Meulman, J. J. (1998). City-block scaling:
       smoothing strategies for avoiding local minima. In Classification, Data Analysis, and
       Data Highways, Springer.
"""


import numpy as np

from ._typing import ArrayLike, FloatArray, Seed, Self
from ._validation import (
    ZERO_EIGENVALUE_RTOL,
    check_array,
    check_dissimilarity,
    check_finite,
    check_n_components,
    check_positive,
    check_random_state,
)
from .base import Estimator
from .graphs import pairwise_distances
from .kernels import double_center
from .metrics import normalized_stress
from .spectral import flip_signs, spectrum_and_top_eigenvectors

STRESS_RTOL = 1e-3  # default eps: stop when one step lowers the stress by less than this fraction
SUBGRADIENT_STEP = 2.0  # p = 1: first step 1 / (2 N L) x this, then divided by sqrt(t + 1)


# --- the objective and its gradient ------------------------------------------------------------
def _distances(Z, p=2):
    r"""Embedding distances :math:`\|z_i - z_j\|_p` for the inner loops (no input checks).

    For p = 2 the expansion :math:`\|z_i\|^2 + \|z_j\|^2 - 2 z_i^\top z_j` is one matrix
    product :math:`[z_i, |z_i|^2, 1] \cdot [-2 z_j, 1, |z_j|^2]`; unlike
    :func:`mlnotes.graphs.pairwise_distances` it skips validation and exact symmetrisation,
    which cost several times more than the product in a loop that runs hundreds of times.
    """
    if p == 1:
        return np.abs(Z[:, None, :] - Z[None, :, :]).sum(axis=-1)
    sq = np.einsum("ij,ij->i", Z, Z)[:, None]
    one = np.ones_like(sq)
    D = np.hstack([Z, sq, one]) @ np.hstack([-2.0 * Z, one, sq]).T
    np.maximum(D, 0.0, out=D)  # round-off can make tiny squared distances negative
    np.sqrt(D, out=D)
    np.fill_diagonal(D, 0.0)
    return D


def _check_p(p):
    if p not in (1, 2):
        raise ValueError(
            f"p={p!r} is not supported: use p=2 (Euclidean embedding, SMACOF) or p=1 "
            "(city-block embedding, subgradient method)."
        )
    return p


def _check_pair(Delta, Z):
    Delta = check_dissimilarity(Delta)
    Z = check_array(Z, name="Z")
    if len(Z) != len(Delta):
        raise ValueError(
            f"Delta is {Delta.shape} but Z has {len(Z)} rows; they must describe the same points."
        )
    return Delta, Z


def stress_gradient(Delta: ArrayLike, Z: ArrayLike, *, p: int = 2) -> tuple[float, FloatArray]:
    r"""Raw stress :math:`\sigma(Z) = \sum_{i<j} (\delta_{ij} - d_{ij})^2` and its (sub)gradient.

    With :math:`d_{ij} = \|z_i - z_j\|_p`:

    .. math::
        p = 2:\quad \frac{\partial \sigma}{\partial z_i}
            = 2 \sum_{j} \Bigl(1 - \frac{\delta_{ij}}{d_{ij}}\Bigr) (z_i - z_j),
        \qquad
        p = 1:\quad \frac{\partial \sigma}{\partial z_i}
            = 2 \sum_{j} (d_{ij} - \delta_{ij}) \operatorname{sign}(z_i - z_j).

    Where :math:`d_{ij} = 0` (p = 2) or a coordinate difference is 0 (p = 1) the stress is not
    differentiable and the term uses 0, a valid subgradient. For p = 2 the gradient is
    :math:`2 (V Z - B(Z) Z)` with :math:`V = N I - 1 1^\top`, so for centred :math:`Z` the
    Guttman transform is the gradient step :math:`Z - \nabla\sigma / 2N`.

    Returns
    -------
    stress : float
    grad : ndarray of shape (N, L)
    """
    Delta, Z = _check_pair(Delta, Z)
    _check_p(p)
    D = _distances(Z, p)
    stress = _raw_stress(Delta, D)
    if p == 2:
        M = np.where(D > 0, 1.0 - Delta / np.where(D > 0, D, np.inf), 0.0)
        grad = 2.0 * (M.sum(axis=1)[:, None] * Z - M @ Z)  # 2 sum_j m_ij (z_i - z_j)
    else:
        S = np.sign(Z[:, None, :] - Z[None, :, :])  # sign(z_ik - z_jk), shape (N, N, L)
        grad = 2.0 * np.einsum("ij,ijk->ik", D - Delta, S)
    return stress, grad


# --- p = 2: the Guttman transform ----------------------------------------------------------------
def _guttman(Delta, Z, D):
    R = np.zeros_like(D)
    np.divide(Delta, D, out=R, where=D > 0)  # -b_ij = delta_ij / d_ij, and 0 where d_ij = 0
    M = R @ np.hstack([Z, np.ones((len(Z), 1))])  # [R Z, R 1] in one product
    return (M[:, -1:] * Z - M[:, :-1]) / len(Z)  # (diag(R 1) - R) Z / N = B Z / N


def guttman_transform(Delta: ArrayLike, Z: ArrayLike) -> FloatArray:
    r"""One SMACOF step, :math:`Z^{+} = \tfrac1N B(Z)\, Z`.

    .. math::
        b_{ij} = -\frac{\delta_{ij}}{\|z_i - z_j\|} \;(i \ne j,\ z_i \ne z_j), \quad
        b_{ij} = 0 \;(z_i = z_j), \quad b_{ii} = -\sum_{j \ne i} b_{ij},

    i.e. :math:`z^{+}_i = \tfrac1N \sum_j \frac{\delta_{ij}}{d_{ij}} (z_i - z_j)`: the exact
    minimiser of the majoriser built at :math:`Z` (unit weights), so
    :math:`\sigma(Z^{+}) \le \sigma(Z)`.
    """
    Delta, Z = _check_pair(Delta, Z)
    return _guttman(Delta, Z, _distances(Z))


def _raw_stress(Delta, D):
    R = Delta - D
    return float(np.einsum("ij,ij->", R, R)) / 2  # both symmetric: each pair once


def _smacof_run(Delta, Z, max_iter, eps):
    """SMACOF from ``Z``; returns (Z, stress, n_iter, history of the stress from the start)."""
    D = _distances(Z)
    history = [_raw_stress(Delta, D)]
    for _ in range(max_iter):
        Z = _guttman(Delta, Z, D)
        D = _distances(Z)
        history.append(_raw_stress(Delta, D))
        old, new = history[-2], history[-1]
        if new == 0.0 or old - new < eps * old:  # relative decrease below eps: converged
            break
    return Z, history[-1], len(history) - 1, history


# --- p = 1: subgradient descent ---------------------------------------------------------------------
def subgradient_stress_descent(Delta: ArrayLike, Z: ArrayLike, *,
                               max_iter: int = 300) -> tuple[FloatArray, float, int, list[float]]:
    r"""Minimise the city-block stress :math:`\sum_{i<j} (\delta_{ij} - \|z_i - z_j\|_1)^2` by
    the subgradient method.

    Steps :math:`Z_{t+1} = Z_t - \eta_t g_t` with :math:`g_t` from :func:`stress_gradient`
    (p = 1) and :math:`\eta_t = c / (2 N L \sqrt{t + 1})`, :math:`c` =
    :data:`SUBGRADIENT_STEP` = 2 (found by trial on city-block data): the :math:`1/2N` is the step that
    the Guttman transform takes for p = 2 (see :func:`stress_gradient`), the :math:`1/L`
    allows for the L coordinates each contributing :math:`\pm 1` to the subgradient of a
    distance, and the :math:`1/\sqrt{t}` decay is the classical condition for the subgradient
    method to converge. Subgradient steps need not lower the stress, so there is no stopping
    rule on the decrease: all ``max_iter`` steps run and the best iterate is returned.

    Why not SMACOF? Its majoriser needs :math:`\sum_{i<j} d_{ij}^2` to be a quadratic form in
    :math:`Z` and :math:`-d_{ij}` to have a linear majoriser touching it at the current point
    (Cauchy–Schwarz). Both hold for Euclidean distances; for city-block distances the first
    fails (:math:`\|a\|_1^2` has the non-smooth cross terms :math:`|a_k||a_l|`), so the
    surrogate has no closed-form minimiser and the Guttman transform does not apply.

    Returns
    -------
    Z : ndarray of shape (N, L)
        The best configuration visited.
    stress : float
    n_iter : int
    history : list of float
        Stress of every iterate, starting with ``Z``'s.
    """
    Delta, Z = _check_pair(Delta, Z)
    check_positive(max_iter, "max_iter", integer=True)
    N, L = Z.shape
    step0 = SUBGRADIENT_STEP / (2.0 * N * L)
    stress, grad = stress_gradient(Delta, Z, p=1)
    history = [stress]
    best_Z, best = Z, stress
    for t in range(max_iter):
        Z = Z - step0 / np.sqrt(t + 1.0) * grad
        stress, grad = stress_gradient(Delta, Z, p=1)
        history.append(stress)
        if stress < best:
            best_Z, best = Z, stress
    check_finite(best_Z, name="the embedding")
    return best_Z, best, max_iter, history


# --- the function and the estimator ------------------------------------------------------------------
def _random_start(N, L, rng):
    return rng.uniform(size=(N, L))  # scikit-learn's choice; one Guttman step fixes the scale


def _check_run_params(max_iter, eps):
    check_positive(max_iter, "max_iter", integer=True)
    check_positive(eps, "eps", allow_zero=True)


def smacof(
    Delta: ArrayLike,
    n_components: int,
    *,
    init: ArrayLike | None = None,
    max_iter: int = 300,
    eps: float = STRESS_RTOL,
    random_state: Seed = None,
    return_history: bool = False,
) -> tuple[FloatArray, float, int] | tuple[FloatArray, float, int, list[float]]:
    r"""Metric MDS by SMACOF: iterate the Guttman transform from a start.

    Stopping rule: stop after the first iteration whose relative decrease of the raw stress,
    :math:`(\sigma_{\text{old}} - \sigma_{\text{new}}) / \sigma_{\text{old}}`, is below ``eps``
    (or when the stress reaches 0), or after ``max_iter`` iterations. (scikit-learn's
    ``smacof`` divides the decrease by :math:`\sum_{i<j} d_{ij}^2` instead and defaults to
    ``eps=1e-6``.)

    Parameters
    ----------
    Delta : ndarray of shape (N, N)
        Dissimilarities (symmetric, non-negative, zero diagonal).
    n_components : int
        Embedding dimension :math:`L` (ignored when ``init`` is given).
    init : ndarray of shape (N, L), optional
        Start; by default uniform random in :math:`[0, 1)^L`.
    max_iter : int
    eps : float
        Relative-decrease tolerance (0: run all ``max_iter`` iterations unless the stress stops
        decreasing).
    random_state : int, Generator or None
    return_history : bool
        Also return the raw stress before the first and after every iteration.

    Returns
    -------
    Z : ndarray of shape (N, L)
    stress : float
        Raw stress :math:`\sum_{i<j} (\delta_{ij} - d_{ij})^2` of ``Z``.
    n_iter : int
    history : list of float
        Only with ``return_history=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes.graphs import pairwise_distances
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> Z, stress, n_iter = smacof(pairwise_distances(X), 2, random_state=0, eps=1e-9)
    >>> stress < 1e-6
    True
    """
    Delta = check_dissimilarity(Delta)
    _check_run_params(max_iter, eps)
    if init is None:
        L = check_n_components(n_components, len(Delta))
        Z0 = _random_start(len(Delta), L, check_random_state(random_state))
    else:
        Delta, Z0 = _check_pair(Delta, init)
    Z, stress, n_iter, history = _smacof_run(Delta, Z0, max_iter, eps)
    return (Z, stress, n_iter, history) if return_history else (Z, stress, n_iter)


def _classical_start(Delta, L):
    r"""Classical MDS of ``Delta`` as SMACOF's start, a zero column for each of the top ``L``
    eigenvalues of :math:`K = -\tfrac12 C \Delta^{(2)} C` that is not positive.

    Rank-deficient input (collinear points: one positive eigenvalue for ``L = 2``) is valid for
    metric MDS, and the Guttman transform keeps a zero column zero, so the run stays in the
    dimensions the data have; non-Euclidean input (negative eigenvalues) is what metric MDS is
    for, so neither is an error here, as they are for :class:`~mlnotes.ClassicalMDS`.
    """
    K = double_center(Delta**2, copy=False)
    lam, V = spectrum_and_top_eigenvectors(K, L)
    positive = lam[:L] > ZERO_EIGENVALUE_RTOL * max(float(lam[0]), 0.0)
    return flip_signs(V) * np.sqrt(np.where(positive, lam[:L], 0.0))


class MetricMDS(Estimator):
    r"""Metric multidimensional scaling: minimise the raw stress by SMACOF (p = 2) or by the
    subgradient method (p = 1).

    .. math::
        \min_Z \sigma(Z) = \sum_{i<j} \bigl(\delta_{ij} - \|z_i - z_j\|_p\bigr)^2

    Parameters
    ----------
    n_components : int
        Embedding dimension :math:`L`.
    dissimilarity : {"euclidean", "precomputed"}
        Euclidean distances of the rows of ``X``, or ``X`` is the dissimilarity matrix.
    max_iter : int
        Iterations per run.
    eps : float
        SMACOF's stopping rule: stop when one iteration lowers the stress by less than this
        fraction of its value (see :func:`smacof`). Not used for p = 1.
    random_state : int, Generator or None
        Seeds the random starts.
    init : {"classical", "random"} or ndarray of shape (N, L)
        First run's start: classical MDS (:func:`mlnotes.mds.classical_mds`), uniform random,
        or the array given.
    n_init : int
        Number of runs; runs after the first start at random. The run with the lowest stress
        is kept.
    p : {2, 1}
        Norm of the embedding distances: 2 (Euclidean, SMACOF) or 1 (city-block, subgradient
        method; see :func:`subgradient_stress_descent` for why SMACOF does not apply).

    Attributes
    ----------
    embedding_ : ndarray of shape (N, L)
    stress_ : float
        Raw stress, each pair counted once (scikit-learn's ``stress_`` convention).
    normalized_stress_ : float
        Kruskal's stress-1, :math:`\sqrt{\sigma / \sum_{i<j} d_{ij}^2}` (0.05 good, 0.2 poor).
    stress_history_ : list of float
        Raw stress of the kept run, from its start through every iteration.
    n_iter_ : int
        Iterations of the kept run.
    dissimilarity_matrix_ : ndarray of shape (N, N)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> mds = MetricMDS(n_components=2, random_state=0).fit(X)
    >>> bool(np.all(np.diff(mds.stress_history_) <= 0))
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
        p=2,
    ):
        self.n_components = n_components
        self.dissimilarity = dissimilarity
        self.max_iter = max_iter
        self.eps = eps
        self.random_state = random_state
        self.init = init
        self.n_init = n_init
        self.p = p

    def _tags(self):
        return {"input_tags.pairwise": self.dissimilarity == "precomputed"}

    def _dissimilarities(self, X):
        if self.dissimilarity == "precomputed":
            return check_dissimilarity(X, name="X (precomputed dissimilarities)")
        if self.dissimilarity == "euclidean":
            return pairwise_distances(check_array(X, min_samples=2))
        raise ValueError(
            f"dissimilarity must be 'euclidean' or 'precomputed', got {self.dissimilarity!r}."
        )

    def _first_start(self, Delta, L, rng):
        if isinstance(self.init, str) and self.init == "classical":
            return _classical_start(Delta, L)
        if isinstance(self.init, str) and self.init == "random":
            return _random_start(len(Delta), L, rng)
        if isinstance(self.init, str):
            raise ValueError(
                f"init must be 'classical', 'random' or an array, got {self.init!r}."
            )
        Z0 = check_array(self.init, name="init")
        if Z0.shape != (len(Delta), L):
            raise ValueError(
                f"init has shape {Z0.shape} but (n_samples, n_components) = "
                f"{(len(Delta), L)} is needed."
            )
        return Z0

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Compute the dissimilarities (or take them) and minimise the stress."""
        Delta = self._dissimilarities(X)
        N = len(Delta)
        L = check_n_components(self.n_components, N, what="n_samples")
        _check_run_params(self.max_iter, self.eps)
        check_positive(self.n_init, "n_init", integer=True)
        p = _check_p(self.p)
        if not Delta.any():
            raise ValueError(
                "All dissimilarities are zero: every configuration of coinciding points is "
                "optimal and stress-1 is undefined; check the input."
            )
        rng = check_random_state(self.random_state)
        best = None
        for run in range(self.n_init):
            Z0 = self._first_start(Delta, L, rng) if run == 0 else _random_start(N, L, rng)
            if p == 2:
                result = _smacof_run(Delta, Z0, self.max_iter, self.eps)
            else:
                result = subgradient_stress_descent(Delta, Z0, max_iter=self.max_iter)
            if best is None or result[1] < best[1]:
                best = result
        Z, stress, n_iter, history = best
        check_finite(Z, name="the embedding")
        self.dissimilarity_matrix_ = Delta
        self.embedding_, self.stress_, self.n_iter_ = Z, stress, n_iter
        self.stress_history_ = history
        self.normalized_stress_ = normalized_stress(Delta, Z, p=p)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        """Fit and return the embedding of shape (N, n_components)."""
        return self.fit(X).embedding_

    @property
    def transform(self):
        """Not available: SMACOF fits a configuration of the training points only.

        Asking for it raises an ``AttributeError`` that says so (``hasattr`` is False, as
        for scikit-learn's ``MDS``).
        """
        raise AttributeError(
            f"{type(self).__name__} has no transform for new points (SMACOF fits a "
            "configuration of the training points only); use fit_transform on the combined "
            "data, or ClassicalMDS, "
            "whose transform places new points by triangulation."
        )
