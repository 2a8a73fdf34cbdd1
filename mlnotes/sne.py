r"""Stochastic neighbour embedding: SNE, symmetric SNE and t-SNE.

The three methods share their parts, kept separate (as openTSNE does) so that a chapter, a
widget or a test can use each on its own:

1. **affinities** in the data space (:mod:`mlnotes.affinities`, re-exported here): conditional
   Gaussians :math:`p_{j|i}` whose bandwidths :math:`\sigma_i` are found by a search on the
   perplexity (:func:`conditional_affinities`), and their symmetrised joint version
   :math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N` (:func:`joint_affinities`);
2. **an objective and its gradient**: the Kullback–Leibler divergence between the data
   affinities and the embedding affinities, with the closed-form gradient derived in the notes
   (:func:`sne_objective_gradient`, :func:`symmetric_sne_objective_gradient`,
   :func:`tsne_objective_gradient`);
3. **an initialisation** (:func:`initial_embedding`) and **an optimiser**
   (:func:`gradient_descent`, run in two phases by :func:`optimize`): gradient descent with
   momentum, adaptive per-coordinate gains and early exaggeration, with a per-iteration callback
   and a recorded history that a widget can replay.

The estimators :class:`SNE`, :class:`SymmetricSNE` and :class:`TSNE` are thin compositions of
these parts. The optimisation schedule (250 exaggerated iterations at momentum 0.5, then momentum
0.8; gains +0.2 / x0.8 with a floor of 0.01; ``learning_rate="auto"``; progress checks every 50
iterations) follows van der Maaten's implementation as scikit-learn's ``method="exact"`` does, so
the two can be compared run for run.

References
----------
.. [1] Hinton, G. and Roweis, S. (2002). Stochastic neighbor embedding. NIPS 15.
.. [2] van der Maaten, L. and Hinton, G. (2008). Visualizing data using t-SNE. JMLR 9, 2579-2605.
.. [3] Belkina, A. C. et al. (2019). Automated optimized parameters for t-SNE. Nature
       Communications 10, 5415 (the ``learning_rate="auto"`` rule).
"""

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp, xlogy

from ._optional import missing_message
from ._typing import ArrayLike, FloatArray, Matrix, Objective, Seed, Self, Sparse
from ._validation import (
    check_array,
    check_dissimilarity,
    check_finite,
    check_is_fitted,
    check_n_components,
    check_n_features,
    check_positive,
    check_random_state,
)
from .affinities import (  # step 1, re-exported: the public API names them here
    _check_perplexity,
    conditional_affinities,
    entropy_bits,
    joint_affinities,
    knn_conditional_affinities,
)
from .base import Estimator
from .graphs import check_metric, metric_distances, squared_distances

__all__ = [
    "conditional_affinities",
    "entropy_bits",
    "joint_affinities",
    "knn_conditional_affinities",
    "sne_objective_gradient",
    "symmetric_sne_objective_gradient",
    "student_t_affinities",
    "tsne_objective_gradient",
    "initial_embedding",
    "History",
    "gradient_descent",
    "optimize",
    "SNE",
    "SymmetricSNE",
    "TSNE",
]

# --- named constants --------------------------------------------------------------------------
TILE = 192  # the t-SNE gradient works on TILE x TILE tiles of the pair matrices (cache)
EXPLORATION_ITER = 250  # length of the early-exaggeration phase
MOMENTUM_EARLY, MOMENTUM_LATE = 0.5, 0.8
GAIN_INCREASE, GAIN_DECREASE, MIN_GAIN = 0.2, 0.8, 0.01
N_ITER_CHECK = 50  # iterations between progress checks
N_ITER_WITHOUT_PROGRESS = 300
MIN_GRAD_NORM = 1e-7
INIT_STD = 1e-4  # standard deviation of the initial map (random, or the PCA's first column)
AUTO_LR_MIN = 50.0  # learning_rate="auto" = max(N / early_exaggeration / 4, AUTO_LR_MIN)
DIVERGENCE_BOUND = 1e6  # |z| beyond this (or any non-finite value) means the run has diverged
NO_PROGRESS_RTOL = 1e-3  # final KL above (1 - this) x initial KL: the run did not move
DEFAULT_PERPLEXITY = 30.0  # perplexity=None: this, or (N - 1) / 3 for fewer points
SMALL_N_PERPLEXITY_FRACTION = 1.0 / 3.0  # ... openTSNE's cap: k = 3 Perp neighbours exist
AUTO_EXACT_MAX_N = 5000  # TSNE(method="auto"): exact up to this many points, FFT beyond
TSNE_METHODS = ("auto", "exact", "fft")


# --- step 2: objectives and gradients (step 1, the affinities: mlnotes.affinities) ------------
def _kl(P, log_Q):
    r""":math:`\sum_{i \ne j} p \log(p / q)` with :math:`0 \log 0 = 0` (diagonal terms are zero)."""
    logs = np.where(P > 0, log_Q, 0.0)
    return float(xlogy(P, P).sum() - (P * logs).sum())


def _apply_pairwise(M, Z):
    r"""Return :math:`G` with :math:`g_i = \sum_j m_{ij} (z_i - z_j)`, i.e. ``(diag(M 1) - M) Z``.

    The sum over pairs as one matrix product: no loop over points.
    """
    return M.sum(axis=1)[:, None] * Z - M @ Z


def _validate_pair(Z, P):
    Z = check_array(Z, name="Z")
    P = check_array(P, name="P")
    if P.shape != (Z.shape[0], Z.shape[0]):
        raise ValueError(
            f"P has shape {P.shape} but Z has {Z.shape[0]} rows; P must be N x N for N points."
        )
    return Z, P


def sne_objective_gradient(Z: ArrayLike, P_cond: ArrayLike, *, compute_objective: bool = True,
                           check_input: bool = True) -> tuple[float | None, FloatArray]:
    r"""SNE cost and gradient (conditional Gaussian affinities in the map).

    .. math::
        C = \sum_i \mathrm{KL}(P_i \| Q_i) = \sum_i \sum_j p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
        \qquad q_{j|i} = \frac{\exp(-\|z_i - z_j\|^2)}{\sum_{k \ne i} \exp(-\|z_i - z_k\|^2)},

    .. math::
        \frac{\partial C}{\partial z_i}
            = 2 \sum_j (p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}) (z_i - z_j).

    The map's Gaussians have a fixed variance 1/2. The factor 2 holds when each row of
    ``P_cond`` sums to 1 (early exaggeration scales the rows and so uses this formula as a
    heuristic step, not as the gradient of a KL). ``compute_objective=False`` skips the KL;
    ``check_input=False`` skips validation (for the optimiser's inner loop).

    Returns
    -------
    kl : float or None
        ``None`` when ``compute_objective=False`` (saves a pass of logarithms).
    grad : ndarray of shape (N, L)
    """
    if check_input:
        Z, P_cond = _validate_pair(Z, P_cond)
    A = -squared_distances(Z)
    np.fill_diagonal(A, -np.inf)  # q_{i|i} = 0
    log_Q = A - logsumexp(A, axis=1, keepdims=True)  # log q_{j|i}, stable
    Q = np.exp(log_Q)
    M = P_cond - Q
    grad = 2.0 * _apply_pairwise(M + M.T, Z)
    kl = _kl(P_cond, log_Q) if compute_objective else None
    return kl, grad


def symmetric_sne_objective_gradient(Z: ArrayLike, P: ArrayLike, *, compute_objective: bool = True,
                                     check_input: bool = True) -> tuple[float | None, FloatArray]:
    r"""Symmetric SNE cost and gradient (joint Gaussian affinities in the map).

    .. math::
        C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}, \qquad
        q_{ij} = \frac{\exp(-\|z_i - z_j\|^2)}{\sum_{k \ne l} \exp(-\|z_k - z_l\|^2)},

    .. math::
        \frac{\partial C}{\partial z_i} = 4 \sum_j (p_{ij} - q_{ij}) (z_i - z_j),

    for :math:`\sum_{ij} p_{ij} = 1`. (The map's Gaussian has variance 1/2, as in SNE: with a
    general :math:`\sigma` the factor would be :math:`2/\sigma^2` instead of 4.)
    """
    if check_input:
        Z, P = _validate_pair(Z, P)
    A = -squared_distances(Z)
    np.fill_diagonal(A, -np.inf)
    log_Q = A - logsumexp(A)
    Q = np.exp(log_Q)
    grad = 4.0 * _apply_pairwise(P - Q, Z)
    kl = _kl(P, log_Q) if compute_objective else None
    return kl, grad


def _student_t_kernel(Z, dof):
    r"""Unnormalised :math:`w_{ij} = (1 + \|z_i - z_j\|^2 / \nu)^{-1}` (zero diagonal).

    For :math:`\nu = 1` this is the kernel itself; for other :math:`\nu` the kernel is
    :math:`w_{ij}^{(\nu + 1)/2}`, and ``w`` is the factor the gradient needs.
    """
    W = squared_distances(Z)
    if dof != 1.0:
        W /= dof
    W += 1.0
    np.reciprocal(W, out=W)
    np.fill_diagonal(W, 0.0)
    return W


def student_t_affinities(Z: ArrayLike, dof: float = 1.0) -> FloatArray:
    r"""t-SNE's joint affinities in the map,
    :math:`q_{ij} = \dfrac{(1 + \|z_i - z_j\|^2/\nu)^{-(\nu+1)/2}}
    {\sum_{k \ne l} (1 + \|z_k - z_l\|^2/\nu)^{-(\nu+1)/2}}` (zero diagonal)."""
    Z = check_array(Z, name="Z")
    check_positive(dof, "dof")
    W = _student_t_kernel(Z, float(dof))
    K = W if dof == 1.0 else W ** ((dof + 1.0) / 2.0)
    return K / K.sum()


def tsne_objective_gradient(Z: ArrayLike, P: ArrayLike, *, dof: float = 1.0, compute_objective: bool = True,
                            check_input: bool = True) -> tuple[float | None, FloatArray]:
    r"""t-SNE cost and gradient (Student-t affinities with :math:`\nu` degrees of freedom).

    .. math::
        C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}, \qquad
        q_{ij} = \frac{k_{ij}}{\sum_{k \ne l} k_{kl}}, \quad
        k_{ij} = w_{ij}^{(\nu + 1)/2}, \quad w_{ij} = \left(1 + \|z_i - z_j\|^2 / \nu\right)^{-1},

    .. math::
        \frac{\partial C}{\partial z_i} = \frac{2(\nu + 1)}{\nu} \sum_j (p_{ij} - q_{ij})\,
            w_{ij}\, (z_i - z_j),

    which for :math:`\nu = 1` is the notes' :math:`4 \sum_j (p_{ij} - q_{ij})
    (1 + \|z_i - z_j\|^2)^{-1} (z_i - z_j)`. Derivation: with :math:`s_{ij} = \|z_i - z_j\|^2`,
    each ordered pair gives :math:`\partial C / \partial s_{ij} = -(k'/k)(p_{ij} - q_{ij})`
    (for :math:`\sum P = 1`), :math:`-k'/k = \frac{\nu + 1}{2\nu} w_{ij}`, and
    :math:`\partial s_{ij} / \partial z_i = 2 (z_i - z_j)`, once for :math:`(i, j)` and once for
    :math:`(j, i)`. Early exaggeration uses the same formula with :math:`\alpha P`.

    Computation: the gradient splits into attraction and repulsion,
    :math:`\nabla = c\,[(\mathrm{diag}(A 1) - A) Z - (\mathrm{diag}(B 1) - B) Z / \textstyle\sum k]`
    with :math:`A = P \circ W` and :math:`B = K \circ W` (:math:`W \circ W` for
    :math:`\nu = 1`), so one pass gives both before the normaliser :math:`\sum k` is known. The
    pass goes over square tiles of :data:`TILE` rows and columns, small enough to stay in the
    CPU cache, and only over the upper triangle of tiles: :math:`W` is symmetric, so the tile
    :math:`(I, J)` also serves the rows :math:`J` through its transpose. Within a tile
    everything is vectorised, and :math:`1 + s_{ij}/\nu` is a single matrix product
    :math:`[z_i/\nu,\ |z_i|^2/\nu + 1,\ 1] \cdot [-2 z_j,\ 1,\ |z_j|^2/\nu]`. No loop over points.

    Parameters
    ----------
    Z : ndarray of shape (N, L)
    P : ndarray of shape (N, N)
        Symmetric joint affinities with zero diagonal.
    dof : float
        :math:`\nu`.
    compute_objective : bool
        If False, skip the KL (saves the logarithms) and return ``None`` for it.
    check_input : bool
        Validate ``Z`` and ``P`` (the optimiser, which has checked them once, skips this).

    Returns
    -------
    kl : float or None
    grad : ndarray of shape (N, L)
    """
    if check_input:
        Z, P = _validate_pair(Z, P)
        check_positive(dof, "dof")
    dof = float(dof)
    N, L = Z.shape
    power = (dof + 1.0) / 2.0
    sq = np.einsum("ij,ij->i", Z, Z) / dof
    ones = np.ones((N, 1))
    left = np.hstack([Z / dof, (sq + 1.0)[:, None], ones])  # [z_i / nu, |z_i|^2 / nu + 1, 1]
    right = np.hstack([-2.0 * Z, ones, sq[:, None]])  # [-2 z_j, 1, |z_j|^2 / nu]
    Z1 = np.hstack([Z, ones])  # M @ [Z, 1] gives M Z and the row sums M 1 together
    attract, repel = np.zeros((N, L + 1)), np.zeros((N, L + 1))
    total, p_log_w, p_log_p = 0.0, 0.0, 0.0
    for s in range(0, N, TILE):
        I = slice(s, min(s + TILE, N))
        for t in range(s, N, TILE):
            J = slice(t, min(t + TILE, N))
            twice = 1.0 if s == t else 2.0  # an off-diagonal tile stands for (I, J) and (J, I)
            W = left[I] @ right[J].T  # 1 + |z_i - z_j|^2 / nu
            np.reciprocal(W, out=W)
            Pb = P[I, J]
            if compute_objective:  # before zeroing the diagonal, where log w_ii = log 1 = 0
                p_log_w += twice * np.einsum("ij,ij->", Pb, np.log(W))
                logP = np.log(Pb, out=np.zeros_like(Pb), where=Pb > 0)
                p_log_p += twice * np.einsum("ij,ij->", Pb, logP)
            if s == t:
                np.fill_diagonal(W, 0.0)  # no self-pairs
            A = Pb * W
            if dof == 1.0:  # k = w: sum it, then square it in place (B = k w = w^2)
                total += twice * W.sum()
                B = np.multiply(W, W, out=W)
            else:
                K = W**power
                total += twice * K.sum()
                B = np.multiply(K, W, out=K)  # k_ij w_ij
            attract[I] += A @ Z1[J]
            repel[I] += B @ Z1[J]
            if s != t:
                attract[J] += A.T @ Z1[I]
                repel[J] += B.T @ Z1[I]
    M = attract - repel / total  # [(P - Q) o W] @ [Z, 1]
    grad = (2.0 * (dof + 1.0) / dof) * (M[:, L:] * Z - M[:, :L])
    kl = None
    if compute_objective:
        # log q_ij = power * log w_ij - log(sum k), so KL = sum p log p - power sum p log w
        #            + (sum p) log(sum k)
        kl = float(p_log_p - power * p_log_w + P.sum() * np.log(total))
    return kl, grad


# --- step 3: initialisation and the optimiser --------------------------------------------------
def initial_embedding(X: ArrayLike | Sparse, n_components: int, *, init: str | ArrayLike = "pca",
                      random_state: Seed = None) -> FloatArray:
    r"""Starting map: ``"pca"`` or ``"random"`` (both of scale :data:`INIT_STD` = 1e-4), or an array.

    ``"pca"``: the first ``n_components`` principal-component scores of the centred data (signs
    fixed so each component's largest-magnitude loading is positive), rescaled so that the first
    column has standard deviation 1e-4, as scikit-learn does. ``"random"``: i.i.d. normal
    entries of standard deviation 1e-4 (scikit-learn's scale; the notes' algorithm samples
    :math:`\mathrm{Normal}(0, 10^{-4} I)`, standard deviation 1e-2). A tiny start lets the
    early, exaggerated iterations arrange the clusters before distances become large.
    """
    X = check_array(X, accept_sparse=True)
    N = X.shape[0]
    if isinstance(init, str) and init == "pca" and sp.issparse(X):
        # sparse data: the principal axes without centring X (PCA's implicit centring)
        from .pca import _centred_product, _sparse_principal_components

        if n_components > X.shape[1]:
            raise ValueError(
                f"init='pca' needs n_components <= n_features = {X.shape[1]}; "
                "use init='random'."
            )
        components, _, mean = _sparse_principal_components(sp.csr_matrix(X), n_components)
        Z = _centred_product(X, mean, components)
    elif isinstance(init, str) and init == "pca":
        Xc = X - X.mean(axis=0)
        _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
        Vt = Vt[:n_components]
        signs = np.sign(Vt[np.arange(Vt.shape[0]), np.argmax(np.abs(Vt), axis=1)])
        Z = Xc @ (Vt * signs[:, None]).T
    if isinstance(init, str) and init == "pca":
        if Z.shape[1] < n_components:
            raise ValueError(
                f"init='pca' needs n_components <= n_features = {X.shape[1]}; "
                "use init='random'."
            )
        std = Z[:, 0].std()
        if std == 0:
            raise ValueError("init='pca' failed: all points coincide; use init='random'.")
        return Z / std * INIT_STD
    if isinstance(init, str) and init == "random":
        rng = check_random_state(random_state)
        return INIT_STD * rng.standard_normal((N, n_components))
    if isinstance(init, str):
        raise ValueError(f"init must be 'pca', 'random' or an array, got {init!r}.")
    Z = check_array(init, name="init")
    if Z.shape != (N, n_components):
        raise ValueError(
            f"init has shape {Z.shape} but (n_samples, n_components) = {(N, n_components)} "
            "is needed."
        )
    return Z.copy()


class History:
    """What a run recorded, for plotting and replay.

    Attributes
    ----------
    iterations : list of int
        Number of updates made before each snapshot: 0 (the start), ``record_every``,
        ``2 * record_every``, ... and the final iteration.
    embeddings : list of ndarray
        The map at those iterations.
    kl : list of float
        The objective of that map (with the P in force then: exaggerated in phase 1).
    exaggeration : list of float
        The exaggeration factor in force at each snapshot.
    """

    def __init__(self):
        self.iterations, self.embeddings, self.kl, self.exaggeration = [], [], [], []

    def append(self, iteration, Z, kl, exaggeration):
        self.iterations.append(iteration)
        self.embeddings.append(Z.copy())
        self.kl.append(kl)
        self.exaggeration.append(exaggeration)

    def __len__(self):
        return len(self.iterations)

    def __repr__(self):
        return f"History({len(self)} snapshots)"


def _diverged(Z, grad):
    return not (np.isfinite(grad).all() and np.isfinite(Z).all()) or (
        np.abs(Z).max() > DIVERGENCE_BOUND
    )


def gradient_descent(
    objective: Objective,
    Z: FloatArray,
    P: Matrix,
    *,
    start: int,
    stop: int,
    learning_rate: float,
    momentum: float,
    exaggeration: float = 1.0,
    min_gain: float = MIN_GAIN,
    n_iter_check: int = N_ITER_CHECK,
    n_iter_without_progress: int = N_ITER_WITHOUT_PROGRESS,
    min_grad_norm: float = MIN_GRAD_NORM,
    record_every: int | None = None,
    history: History | None = None,
    callback: Callable[..., Any] | None = None,
    progress: Any = None,
) -> tuple[FloatArray, float, int, bool]:
    r"""One phase of the optimiser: iterations ``start .. stop - 1`` on the objective with ``P``.

    Each step, with gradient :math:`g`, gains :math:`\gamma`, update :math:`u`:

    .. math::
        \gamma \leftarrow \begin{cases} \gamma + 0.2 & \text{if } \operatorname{sign} g \ne
        \operatorname{sign} u \\ 0.8\,\gamma & \text{otherwise} \end{cases}, \quad
        \gamma \leftarrow \max(\gamma, \gamma_{\min}), \quad
        u \leftarrow \beta u - \eta\, \gamma \circ g, \quad Z \leftarrow Z + u,

    the notes' momentum update (:math:`\beta` the momentum, :math:`\eta` the learning rate) with
    per-coordinate gains (Jacobs' delta-bar-delta, as in van der Maaten's code). Gains and
    velocity start afresh in each phase. Every ``n_iter_check`` iterations the KL is computed; the
    phase stops early when it has not improved for ``n_iter_without_progress`` iterations or the
    gradient norm falls below ``min_grad_norm``.

    Parameters
    ----------
    objective : callable
        ``objective(Z, P, compute_objective=bool) -> (kl or None, grad)``.
    Z : ndarray of shape (N, L)
        Start; not modified.
    P : ndarray
        Affinities, already multiplied by ``exaggeration`` if any (``exaggeration`` is only
        recorded).
    record_every : int, optional
        Append ``(iteration, Z, kl, exaggeration)`` to ``history`` every this many iterations.
    callback : callable, optional
        ``callback(iteration, Z, kl)`` after every update: ``iteration`` updates are done and
        ``Z`` is the new map; ``kl`` is the objective of the map *before* this update (computed
        on the way, every ``n_iter_check`` iterations or when recording; else None). Return
        ``True`` to stop.

    Returns
    -------
    Z : ndarray
    kl : float
        The last KL computed (the objective's value with this phase's ``P``).
    n_iter : int
        The iteration count reached (``stop`` unless stopped early).
    stopped : bool
        Whether the callback asked to stop.
    """
    Z = Z.copy()
    update = np.zeros_like(Z)
    gains = np.ones_like(Z)
    best_kl, best_iter, kl = np.inf, start, np.nan
    for it in range(start, stop):
        check = (it + 1) % n_iter_check == 0
        record = history is not None and record_every is not None and it % record_every == 0
        need_kl = check or record or it == stop - 1
        kl_now, grad = objective(Z, P, compute_objective=need_kl)
        if kl_now is not None:
            kl = kl_now
        if record:
            history.append(it, Z, kl_now, exaggeration)
        inc = update * grad < 0.0  # gradient still along the last step: grow the gain
        gains[inc] += GAIN_INCREASE
        gains[~inc] *= GAIN_DECREASE
        np.maximum(gains, min_gain, out=gains)
        update *= momentum
        update -= learning_rate * gains * grad
        Z += update
        if _diverged(Z, grad):
            raise FloatingPointError(
                f"The optimisation diverged at iteration {it + 1} (coordinates became "
                f"non-finite or larger than {DIVERGENCE_BOUND:g}) with learning_rate="
                f"{learning_rate:g}. Lower learning_rate (e.g. 'auto' or 10x smaller)."
            )
        if progress is not None:
            progress.update(1)
        if callback is not None and callback(it + 1, Z, kl_now):
            return Z, kl, it + 1, True
        if check:
            if kl_now < best_kl:
                best_kl, best_iter = kl_now, it
            elif it - best_iter > n_iter_without_progress:
                return Z, kl, it + 1, False
            if np.linalg.norm(grad) <= min_grad_norm:
                return Z, kl, it + 1, False
    return Z, kl, stop, False


def optimize(
    objective: Objective,
    Z0: ArrayLike,
    P: Matrix,
    *,
    max_iter: int = 1000,
    learning_rate: float | str = 200.0,
    early_exaggeration: float = 12.0,
    exaggeration_iter: int = EXPLORATION_ITER,
    n_iter_without_progress: int = N_ITER_WITHOUT_PROGRESS,
    min_grad_norm: float = MIN_GRAD_NORM,
    record_every: int | None = None,
    callback: Callable[..., Any] | None = None,
    progress: bool = False,
    late_learning_rate: float | None = None,
) -> tuple[FloatArray, int, History]:
    r"""The two-phase schedule: early exaggeration, then the true objective.

    Phase 1 (iterations ``0 .. exaggeration_iter - 1``): :math:`P \to \alpha P` with
    :math:`\alpha` = ``early_exaggeration`` and momentum 0.5: clusters form while attraction is
    strong. Phase 2 (up to ``max_iter``): the true :math:`P`, momentum 0.8, and the learning
    rate ``late_learning_rate`` if given (else ``learning_rate`` throughout).

    Returns
    -------
    Z : ndarray of shape (N, L)
    n_iter : int
    history : History
    """
    history = History()
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # progress bars are optional: run without one, and say how to get it
            tqdm = None
            warnings.warn(missing_message("tqdm", "progress=True") + " Running without a "
                          "progress bar.", RuntimeWarning, stacklevel=3)
        if tqdm is not None:
            bar = tqdm(total=max_iter, desc="SNE", leave=False)
    common = dict(
        learning_rate=learning_rate,
        min_grad_norm=min_grad_norm,
        record_every=record_every,
        history=history,
        callback=callback,
        progress=bar,
    )
    try:
        Z, it, stopped = np.array(Z0, dtype=np.float64), 0, False
        n_explore = min(exaggeration_iter, max_iter) if early_exaggeration != 1.0 else 0
        if n_explore:
            Z, _, it, stopped = gradient_descent(
                objective, Z, early_exaggeration * P, start=0, stop=n_explore,
                momentum=MOMENTUM_EARLY, exaggeration=early_exaggeration,
                n_iter_without_progress=exaggeration_iter, **common,
            )
        if not stopped and it < max_iter:
            if late_learning_rate is not None:
                common["learning_rate"] = late_learning_rate
            Z, _, it, _ = gradient_descent(
                objective, Z, P, start=it, stop=max_iter, momentum=MOMENTUM_LATE,
                n_iter_without_progress=n_iter_without_progress, **common,
            )
    finally:
        if bar is not None:
            bar.close()
    if record_every is not None:  # the final map closes the replay
        history.append(it, Z, objective(Z, P, compute_objective=True)[0], 1.0)
    return Z, it, history


# --- estimators ----------------------------------------------------------------------------------
class _BaseSNE(Estimator):
    """Shared fit for the SNE family: affinities, initialisation, optimiser (see the module doc)."""

    _conditional = False  # SNE keeps p_{j|i}; the others use the joint P

    def __init__(
        self,
        n_components=2,
        *,
        perplexity=None,
        early_exaggeration=12.0,
        learning_rate="auto",
        max_iter=1000,
        init="pca",
        random_state=None,
        exaggeration_iter=EXPLORATION_ITER,
        n_iter_without_progress=N_ITER_WITHOUT_PROGRESS,
        min_grad_norm=MIN_GRAD_NORM,
        record_every=None,
        callback=None,
        progress=False,
    ):
        self.n_components = n_components
        self.perplexity = perplexity
        self.early_exaggeration = early_exaggeration
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.init = init
        self.random_state = random_state
        self.exaggeration_iter = exaggeration_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.record_every = record_every
        self.callback = callback
        self.progress = progress

    def _check_params(self, N):
        L = check_n_components(self.n_components, N, what="n_samples")
        check_positive(self.early_exaggeration, "early_exaggeration")
        if self.early_exaggeration < 1:
            raise ValueError(
                f"early_exaggeration={self.early_exaggeration} would weaken attraction in the "
                "first phase; use a value >= 1 (12 is customary, 1 switches it off)."
            )
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.exaggeration_iter, "exaggeration_iter", integer=True, allow_zero=True)
        if self.early_exaggeration != 1 and self.max_iter < self.exaggeration_iter:
            # max_iter == exaggeration_iter is legal (scikit-learn's minimum, 250): a short run
            # that ends with the exaggeration phase
            raise ValueError(
                f"max_iter={self.max_iter} ends inside the early-exaggeration phase (the first "
                f"exaggeration_iter={self.exaggeration_iter} iterations). Use max_iter >= "
                f"exaggeration_iter (scikit-learn's minimum is 250, its exaggeration phase; "
                "1000 is customary), or early_exaggeration=1 for a shorter run."
            )
        if isinstance(self.learning_rate, str):
            if self.learning_rate != "auto":
                raise ValueError(
                    f"learning_rate must be a positive number or 'auto', got {self.learning_rate!r}."
                )
            lr = self._auto_learning_rate(N)
        else:
            lr = float(check_positive(self.learning_rate, "learning_rate"))
        if self.record_every is not None:
            check_positive(self.record_every, "record_every", integer=True)
        return L, lr

    def _late_learning_rate(self, N, lr):
        return None  # the same learning rate in both phases

    def _perplexity(self, N):
        r"""The perplexity used: the parameter, or for None :data:`DEFAULT_PERPLEXITY` capped at
        :math:`(N - 1)/3` (openTSNE's cap, so that the :math:`3\,\mathrm{Perp}` neighbours
        exist); an explicit value is checked, not changed."""
        if self.perplexity is not None:
            return _check_perplexity(self.perplexity, N)
        perplexity = min(DEFAULT_PERPLEXITY, (N - 1) * SMALL_N_PERPLEXITY_FRACTION)
        if perplexity <= 1:
            raise ValueError(
                f"{N} points are too few for {type(self).__name__}: the default perplexity "
                f"(N - 1) / 3 = {perplexity:.3g} must exceed 1; pass at least 5 points, or set "
                "perplexity explicitly (1 < perplexity < N - 1)."
            )
        return perplexity

    def _validate_data(self, X):
        return check_array(X, min_samples=3)

    def _keep_training_data(self, X):
        """What ``transform`` will need of the training data (nothing: SNE has no transform)."""

    def _squared_dissimilarities(self, X):
        return squared_distances(X)

    def _affinities(self, X):
        D2 = self._squared_dissimilarities(X)
        P_cond, sigma = conditional_affinities(D2, self.perplexity_)
        return (P_cond if self._conditional else joint_affinities(P_cond)), sigma

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Compute the affinities of ``X`` (N x D) and optimise the map."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X: ArrayLike, y: object = None) -> FloatArray:
        """Fit and return the embedding ``Z`` of shape (N, n_components)."""
        X = self._validate_data(X)
        N = X.shape[0]
        self._keep_training_data(X)
        self.perplexity_ = self._perplexity(N)
        L, lr = self._check_params(N)
        P, sigma = self._affinities(X)
        Z0 = initial_embedding(X, L, init=self.init, random_state=self.random_state)
        kl0, _ = self._objective(Z0, P)
        Z, n_iter, history = optimize(
            self._objective, Z0, P,
            max_iter=self.max_iter, learning_rate=lr,
            early_exaggeration=float(self.early_exaggeration),
            exaggeration_iter=self.exaggeration_iter,
            n_iter_without_progress=self.n_iter_without_progress,
            min_grad_norm=self.min_grad_norm, record_every=self.record_every,
            callback=self.callback, progress=self.progress,
            late_learning_rate=self._late_learning_rate(N, lr),
        )
        check_finite(Z, name="the embedding")
        kl, _ = self._objective(Z, P)
        # a run that ends with the exaggeration phase (max_iter == exaggeration_iter) never
        # fitted the true P: its KL is not a measure of progress
        explored_only = self.early_exaggeration != 1 and n_iter <= self.exaggeration_iter
        if n_iter == self.max_iter and not explored_only and kl > (1.0 - NO_PROGRESS_RTOL) * kl0:
            advice = (
                "The KL rose: the steps overshoot; lower learning_rate (or use 'auto')."
                if kl > (1.0 + NO_PROGRESS_RTOL) * kl0
                else "Raise learning_rate (or use 'auto') or max_iter."
            )
            warnings.warn(
                f"{type(self).__name__} made no progress: the KL divergence went from {kl0:.6g} "
                f"to {kl:.6g} in {n_iter} iterations with learning_rate={lr:g}. {advice}",
                RuntimeWarning,
                stacklevel=2,
            )
        self.P_, self.sigma_, self.learning_rate_ = P, sigma, lr
        self.embedding_, self.kl_divergence_, self.n_iter_ = Z, kl, n_iter
        self.history_ = history
        return Z

    @property
    def transform(self):
        """Not available: an SNE map has no out-of-sample extension.

        Asking for it raises an ``AttributeError`` that says so, fitted or not; like
        scikit-learn's ``TSNE``, ``hasattr(est, "transform")`` is False, so pipelines and
        scikit-learn's checks treat the estimator as ``fit_transform`` only.
        """
        raise AttributeError(
            f"{type(self).__name__} has no transform for new points (the map is fitted to the "
            "training points only); use fit_transform on the combined data."
        )


class SNE(_BaseSNE):
    r"""Stochastic neighbour embedding (Hinton and Roweis): conditional Gaussians on both sides.

    Minimises :math:`\sum_i \mathrm{KL}(P_i \| Q_i)` (see :func:`sne_objective_gradient`) with
    the optimiser of :func:`optimize`.

    Parameters
    ----------
    n_components : int
        Embedding dimension :math:`L`.
    perplexity : float or None
        Effective number of neighbours, ``1 < perplexity < N - 1``. None (the default): 30
        (scikit-learn's default), capped at :math:`(N - 1)/3` for fewer than 91 points, as
        openTSNE caps it; the value used is ``perplexity_``. Unlike scikit-learn, whose
        ``perplexity=30.0`` refuses fewer than 31 points, the default thus fits any data of
        5 points or more (and passes scikit-learn's ``check_estimator``, which fits 10 to 30
        points); an explicit perplexity is never changed, only checked.
    early_exaggeration : float
        Factor on P during the first ``exaggeration_iter`` iterations (1 switches it off).
    learning_rate : float or "auto"
        :math:`\eta`. ``"auto"``: for t-SNE :math:`\max(N / 4\alpha, 50)` (scikit-learn's
        rule, :math:`\alpha` the early exaggeration). The Gaussian methods need smaller steps:
        their attraction :math:`2\alpha \sum_j (p_{ij} + p_{ji})(z_i - z_j)` acts like springs
        that do not weaken with distance, of stiffness about :math:`4\alpha m` for a mean row
        mass :math:`m` (1 for SNE's conditional rows, :math:`1/N` for the joint P), and gradient
        descent oscillates and diverges once :math:`\eta` times the stiffness nears 2. So
        ``"auto"`` is :math:`1 / 8\alpha m`: :math:`1/8\alpha` for SNE and :math:`N/8\alpha`
        for symmetric SNE.
    max_iter : int
        Total iterations, both phases; at least ``exaggeration_iter`` (250, scikit-learn's
        minimum too) unless ``early_exaggeration=1``. ``max_iter=250`` is a legal short run:
        the exaggeration phase and nothing after it.
    init : {"pca", "random"} or ndarray of shape (N, L)
    random_state : int, Generator or None
    exaggeration_iter : int
        Length of the exaggeration phase (250).
    n_iter_without_progress, min_grad_norm
        Early stopping of the second phase (checked every 50 iterations).
    record_every : int or None
        Keep the map every this many iterations in ``history_`` (with its KL).
    callback : callable or None
        ``callback(iteration, Z, kl)`` after every update; return True to stop.
    progress : bool
        Show a tqdm progress bar (if tqdm is installed).

    Attributes
    ----------
    embedding_ : ndarray of shape (N, L)
    kl_divergence_ : float
        The objective at the final map, with the unexaggerated P.
    perplexity_ : float
        The perplexity used (see ``perplexity``).
    P_ : ndarray of shape (N, N)
        The data affinities (conditional for SNE, joint otherwise).
    sigma_ : ndarray of shape (N,)
        Bandwidths from the perplexity search.
    learning_rate_ : float
    n_iter_ : int
    history_ : History

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 5))
    >>> Z = SNE(perplexity=10, max_iter=300, random_state=0).fit_transform(X)
    >>> Z.shape
    (60, 2)
    """

    _conditional = True

    def _auto_learning_rate(self, N):
        return 1.0 / (8.0 * self.early_exaggeration)  # 1 / (8 alpha m), mean row mass m = 1

    def _objective(self, Z, P, *, compute_objective=True):
        return sne_objective_gradient(Z, P, compute_objective=compute_objective,
                                      check_input=False)


class SymmetricSNE(_BaseSNE):
    r"""Symmetric SNE: joint Gaussian affinities in the data and in the map.

    Minimises :math:`\mathrm{KL}(P \| Q)` (see :func:`symmetric_sne_objective_gradient`);
    parameters and attributes as :class:`SNE`. The data affinities are t-SNE's symmetrised
    :math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N` with per-point bandwidths from the perplexity (as
    van der Maaten and Hinton define symmetric SNE); the notes' single-bandwidth joint Gaussian
    is the special case of equal :math:`\sigma_i`.
    """

    def _auto_learning_rate(self, N):
        return N / (8.0 * self.early_exaggeration)  # 1 / (8 alpha m), mean row mass m = 1/N

    def _objective(self, Z, P, *, compute_objective=True):
        return symmetric_sne_objective_gradient(Z, P, compute_objective=compute_objective,
                                                check_input=False)


class TSNE(_BaseSNE):
    r"""t-SNE: joint Gaussian affinities in the data, Student-t affinities in the map.

    Minimises :math:`\mathrm{KL}(P \| Q)` with heavy-tailed :math:`q_{ij}` (see
    :func:`tsne_objective_gradient`), which lets moderate distances in the data become large
    ones in the map (the answer to SNE's crowding problem). Parameters and attributes as
    :class:`SNE`, plus

    dof : float
        Degrees of freedom :math:`\nu` of the Student-t (1, the notes' Cauchy kernel, by
        default; scikit-learn uses :math:`\max(L - 1, 1)`).
    method : {"auto", "exact", "fft"}
        ``"exact"``: dense :math:`P` and the exact gradient, :math:`O(N^2)` time and memory.
        ``"fft"``: :math:`P` on the :math:`\lfloor 3\,\mathrm{Perp} \rfloor` nearest
        neighbours and the repulsion by FFT-accelerated interpolation (Linderman et al. 2019,
        :mod:`mlnotes.tsne_fft`), :math:`O(N)` per iteration, for maps of dimension 1 or 2;
        ``P_`` is then a sparse matrix. ``"auto"``: exact up to :data:`AUTO_EXACT_MAX_N`
        points (or for 3-D maps), FFT beyond. Same optimiser, callbacks and history either way,
        except that with ``"fft"`` and ``learning_rate="auto"`` the rate after the exaggeration
        phase is :math:`\max(N/4, 50)` (openTSNE's rule, :math:`N/4\alpha` per phase with
        :math:`\alpha = 1` then): the interpolated gradient's small errors stall the slower
        schedule (KL 0.83 instead of 0.73 on 3 000 digits after 1 000 iterations).

    metric : str or callable, default="euclidean"
        Dissimilarity in the data: a name of :data:`mlnotes.graphs.CDIST_METRICS` (the
        metrics of ``scipy.spatial.distance.cdist`` that scikit-learn's ``TSNE`` documents,
        with the aliases ``"l1"``, ``"manhattan"``, ``"l2"``), a callable ``f(u, v)``, or
        ``"precomputed"`` (``X`` is then the ``N x N`` distance matrix and ``init`` must be
        ``"random"`` or an array). As in scikit-learn, the perplexity search sees the squared
        dissimilarities. Other metrics than Euclidean use the exact method (``"auto"`` picks
        it; ``"fft"`` refuses them). With the Euclidean metric ``X`` may be a ``scipy.sparse`` matrix:
        the distances, the neighbour search and the PCA start (implicitly centred) work on it
        as it is, and give the dense data's affinities and start; other metrics refuse it.
    metric_params : dict or None
        Keyword arguments of the metric (e.g. ``{"p": 3}`` for ``"minkowski"``).
    n_jobs : int or None
        Threads for the ``"fft"`` method's FFTs and neighbour search (scipy's ``workers``):
        ``None`` (the default) for one (the book's notebooks run on shared cores), ``-1`` for
        all cores. The map does not depend on it; the exact method does not use it.

    The method used is stored in ``method_``.

    Notes
    -----
    The map is float64 whatever the input's type (float32 data are read as float64).
    scikit-learn's ``TSNE`` returns a float32 map even for float64 data; here the optimiser,
    whose gains and momentum accumulate small steps over a thousand iterations, runs and
    returns in double precision, so that a map is reproducible to the last digit.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 5))
    >>> tsne = TSNE(perplexity=10, max_iter=300, record_every=50, random_state=0)
    >>> Z = tsne.fit_transform(X)
    >>> tsne.history_.iterations
    [0, 50, 100, 150, 200, 250, 300]
    >>> tsne.kl_divergence_ == tsne.history_.kl[-1]
    True
    """

    def __init__(
        self,
        n_components=2,
        *,
        perplexity=None,
        early_exaggeration=12.0,
        learning_rate="auto",
        max_iter=1000,
        init="pca",
        random_state=None,
        dof=1.0,
        method="auto",
        metric="euclidean",
        metric_params=None,
        n_jobs=None,
        exaggeration_iter=EXPLORATION_ITER,
        n_iter_without_progress=N_ITER_WITHOUT_PROGRESS,
        min_grad_norm=MIN_GRAD_NORM,
        record_every=None,
        callback=None,
        progress=False,
    ):
        super().__init__(
            n_components, perplexity=perplexity, early_exaggeration=early_exaggeration,
            learning_rate=learning_rate, max_iter=max_iter, init=init,
            random_state=random_state, exaggeration_iter=exaggeration_iter,
            n_iter_without_progress=n_iter_without_progress, min_grad_norm=min_grad_norm,
            record_every=record_every, callback=callback, progress=progress,
        )
        self.dof = dof
        self.method = method
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def _tags(self):
        euclidean = self.metric == "euclidean" and not self.metric_params
        return {"input_tags.pairwise": self.metric == "precomputed",
                "input_tags.sparse": euclidean}

    def _validate_data(self, X):
        metric = check_metric(self.metric)
        if not (isinstance(metric, str) and metric == "precomputed"):
            if sp.issparse(X) and not (metric == "euclidean" and not self.metric_params):
                raise TypeError(
                    f"Sparse data works with metric='euclidean' only, got metric={metric!r}; "
                    "convert X with X.toarray() (if it fits in memory) for other metrics."
                )
            return check_array(X, min_samples=3, accept_sparse=True)
        if isinstance(self.init, str) and self.init == "pca":
            raise ValueError(
                'init="pca" needs the data, not distances: with metric="precomputed" use '
                'init="random" (or an array), as scikit-learn requires.'
            )
        Delta = check_dissimilarity(X, name="the precomputed distance matrix")
        if len(Delta) < 3:
            raise ValueError(f"t-SNE needs at least 3 points, got {len(Delta)}.")
        return Delta

    def _squared_dissimilarities(self, X):
        # scikit-learn's rule: squared Euclidean distances; any other metric's distances (or
        # the precomputed ones) are squared too
        metric = check_metric(self.metric)
        if isinstance(metric, str) and metric == "precomputed":
            return X**2
        if isinstance(metric, str) and metric == "euclidean" and not self.metric_params:
            return squared_distances(X)
        return metric_distances(X, metric=metric, metric_params=self.metric_params) ** 2

    def _check_params(self, N):
        if isinstance(self.dof, bool) or not isinstance(self.dof, numbers.Real):
            raise TypeError(f"dof must be a number, got {self.dof!r}.")
        check_positive(self.dof, "dof")
        if not isinstance(self.method, str) or self.method not in TSNE_METHODS:
            raise ValueError(
                f"method must be one of {TSNE_METHODS}, got {self.method!r}: 'exact' for the "
                "O(N^2) gradient, 'fft' for the interpolated one, 'auto' to choose by N."
            )
        from .tsne_fft import check_workers

        check_workers(self.n_jobs, "n_jobs")
        out = super()._check_params(N)
        if self.method == "fft" and out[0] > 2:
            raise ValueError(
                f"method='fft' embeds in 1 or 2 dimensions, got n_components={out[0]}; use "
                "method='exact' (or 'auto') for 3-D maps."
            )
        euclidean = self.metric == "euclidean" and not self.metric_params
        if self.method == "fft" and not euclidean:
            raise ValueError(
                f"method='fft' finds neighbours in Euclidean distance only, got "
                f"metric={self.metric!r}; use method='exact' (or 'auto') for other metrics."
            )
        small = N <= AUTO_EXACT_MAX_N or out[0] > 2 or not euclidean
        self.method_ = "exact" if self.method == "exact" or (self.method == "auto" and small) \
            else "fft"
        return out

    def _keep_training_data(self, X):
        # a copy: changing the caller's X after fit must not move later transforms (with
        # precomputed distances transform gets the new points' distances: nothing to keep)
        if self.metric != "precomputed":
            self.X_fit_ = X.copy()

    def _affinities(self, X):
        if self.method_ == "exact":
            return super()._affinities(X)
        from .tsne_fft import sparse_affinities

        return sparse_affinities(X, self.perplexity_, workers=self.n_jobs)

    def _auto_learning_rate(self, N):
        return max(N / self.early_exaggeration / 4.0, AUTO_LR_MIN)

    def _late_learning_rate(self, N, lr):
        if self.method_ == "fft" and isinstance(self.learning_rate, str):
            return max(N / 4.0, AUTO_LR_MIN)  # openTSNE's rule: N / (4 alpha) with alpha = 1
        return None

    def _objective(self, Z, P, *, compute_objective=True):
        if self.method_ == "fft":
            from .tsne_fft import fft_objective_gradient

            return fft_objective_gradient(Z, P, dof=self.dof,
                                          compute_objective=compute_objective, check_input=False,
                                          workers=self.n_jobs)
        return tsne_objective_gradient(Z, P, dof=self.dof, compute_objective=compute_objective,
                                       check_input=False)

    def transform(self, X: ArrayLike, *, perplexity: float | None = None,
                  init: str | ArrayLike = "median", max_iter: int = 250,
                  learning_rate: float | str = "auto",
                  exaggeration: float = 1.5) -> FloatArray:
        r"""Place new points into the fitted map, which stays fixed.

        Each new point :math:`x` gets conditional affinities :math:`p_{j|x}` to its
        :math:`\lfloor 3\,\mathrm{Perp} \rfloor` nearest training points (the perplexity
        search of ``fit``, in the same metric), and its place :math:`y` minimises
        :math:`\mathrm{KL}(P_{\cdot|x} \| Q_{\cdot|y})` with
        :math:`q_{j|y} = k(y - z_j) / \sum_l k(y - z_l)` normalised over the training points
        only: new points do not interact, so each is placed as if it came alone. Gradient
        :math:`\frac{\nu+1}{\nu} \sum_j (p_{j|x} - q_{j|y})\, w(y - z_j)(y - z_j)`
        (``mlnotes._tsne_transform.transform_objective_gradient``); the repulsion over the
        N training points is summed exactly, or, for a map fitted with ``method_="fft"`` or more
        than ``EXACT_MAX_PAIRS`` = 10**7 (new, training) pairs in 1-D or 2-D,
        interpolated from the fixed map's field on a grid computed once
        (``mlnotes._tsne_transform.ReferenceField``).

        The optimiser is ``fit``'s (momentum, gains) with openTSNE 1.0.4's transform settings:
        start at the median of the neighbours' places, 250 iterations at momentum 0.8, no early
        exaggeration phase, the attraction exaggerated by 1.5 (see ``exaggeration``: it makes
        the minimiser exist), learning rate 0.1 and each point's gradient clipped to norm 0.25 in
        openTSNE's gradient scale (``mlnotes._tsne_transform.transform_settings``; the
        gradient of a single row of :math:`P`, which sums to 1, does not grow with N, so the
        rate does not either). A new point equal to a training point (distance 0) gets that
        point's place, as in :meth:`mlnotes.umap.UMAP.transform`, so ``transform`` of the
        training data returns ``embedding_``.

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (M, p)
            New points, with the training data's features; for ``metric="precomputed"`` the
            (M, N) dissimilarities of the new points to the N training points.
        perplexity : float, optional
            Of each new point's affinities; default :math:`\min(5, \mathrm{perplexity\_})`
            (openTSNE's transform uses 5: a new point is placed by its closest training points;
            a wide row pulls a point that lies between clusters to a place between them).
        init : {"median", "weighted"} or ndarray of shape (M, n_components)
            Start: median of the neighbours' places, their affinity-weighted mean, or given.
        max_iter : int
            Iterations (250); 0 returns the start (openTSNE's ``prepare_partial``).
        learning_rate : float or "auto"
            ``"auto"``: openTSNE's 0.1 in this gradient's scale, :math:`0.1\,\nu/(\nu+1)`.
        exaggeration : float
            :math:`\alpha`, the factor on the attraction (openTSNE's 1.5). Each new point
            minimises :math:`C_\alpha(y) = -\alpha \sum_j p_{j|x} \log k(y - z_j) +
            \log \sum_l k(y - z_l)`, which for :math:`\alpha = 1` is the KL above up to a
            constant. With :math:`\alpha = 1` the KL may have no minimiser: far from the map
            :math:`q_{\cdot|y}` tends to the uniform :math:`1/N`, and a point whose neighbours
            lie in clusters far apart does better there than near any of them, so it drifts
            away for as long as it is optimised. For :math:`\alpha > 1`,
            :math:`C_\alpha \approx (\alpha - 1)(\nu + 1) \log \lVert y \rVert \to \infty`
            far out, so a minimiser exists and lies near the map.

        Returns
        -------
        Y : ndarray of shape (M, n_components)
        """
        from . import _tsne_transform as tt

        check_is_fitted(self, "embedding_")
        Z_ref = self.embedding_
        N, L = Z_ref.shape
        metric = check_metric(self.metric)
        if isinstance(metric, str) and metric == "precomputed":
            X = check_array(X, name="X (distances to the training points)")
            if X.shape[1] != N:
                raise ValueError(
                    f"With metric='precomputed', transform needs the (n_new, n_train) "
                    f"dissimilarities of the new points to the {N} training points, got shape "
                    f"{X.shape}; pass D[new][:, train] (rows: new points, columns: the training "
                    "points in fit's order)."
                )
            if X.min(initial=0.0) < 0:
                raise ValueError("The dissimilarities to the training points must be >= 0.")
            X_fit = None
        else:
            X = check_n_features(X, self.X_fit_.shape[1], estimator=self, accept_sparse=True)
            if sp.issparse(X) and not (metric == "euclidean" and not self.metric_params):
                raise TypeError(
                    f"Sparse data works with metric='euclidean' only, got metric={metric!r}; "
                    "convert X with X.toarray() for other metrics."
                )
            X_fit = self.X_fit_
        M = X.shape[0]
        check_positive(max_iter, "max_iter", integer=True, allow_zero=True)
        check_positive(exaggeration, "exaggeration")
        if perplexity is None:
            perplexity = min(tt.TRANSFORM_PERPLEXITY, self.perplexity_)
        check_positive(perplexity, "perplexity")
        k = min(int(tt.NEIGHBOURS_PER_PERPLEXITY * perplexity), N)
        if not 1 < perplexity < k:
            raise ValueError(
                f"perplexity={perplexity} for transform needs 1 < perplexity < k = {k}, the "
                f"number of training points searched (3 x perplexity, at most the {N} training "
                "points); choose a perplexity between 1 and "
                f"{min(N, int(tt.NEIGHBOURS_PER_PERPLEXITY * perplexity)) - 1}."
            )
        dof = float(self.dof)
        lr_auto, max_grad = tt.transform_settings(dof)
        if isinstance(learning_rate, str):
            if learning_rate != "auto":
                raise ValueError(
                    f"learning_rate must be a positive number or 'auto', got {learning_rate!r}."
                )
            lr = lr_auto
        else:
            lr = float(check_positive(learning_rate, "learning_rate"))
        idx, D2 = tt.reference_neighbours(X_fit, X, k, metric=metric,
                                          metric_params=self.metric_params)
        P, _ = tt.new_point_affinities(D2, perplexity)
        if isinstance(init, str):
            Y0 = tt.initial_positions(Z_ref, idx, P, init)
        else:
            Y0 = check_array(init, name="init")
            if Y0.shape != (M, L):
                raise ValueError(
                    f"init has shape {Y0.shape} but (n_new, n_components) = {(M, L)} is needed."
                )
        interpolate = L <= 2 and (self.method_ == "fft" or M * N > tt.EXACT_MAX_PAIRS)
        field = tt.ReferenceField(Z_ref, dof=dof) if interpolate else None

        def objective(Y, P_in, *, compute_objective=True):
            kl, grad = tt.transform_objective_gradient(
                Y, Z_ref, idx, P_in, dof=dof, field=field,
                compute_objective=compute_objective)
            return kl, tt.clip_rows(grad, max_grad)

        Y = Y0.copy()
        if max_iter:
            Y, _, _, _ = gradient_descent(
                objective, Y0, float(exaggeration) * P, start=0, stop=int(max_iter),
                learning_rate=lr, momentum=tt.TRANSFORM_MOMENTUM,
                exaggeration=float(exaggeration), n_iter_without_progress=int(max_iter),
            )
        twin = D2[:, 0] == 0  # a training point given again keeps its place
        Y[twin] = Z_ref[idx[twin, 0]]
        return Y
