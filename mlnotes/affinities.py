r"""Step 1 of SNE and t-SNE: affinities in the data space, set by the perplexity.

Conditional Gaussians :math:`p_{j|i}` whose bandwidths :math:`\sigma_i` are found by a search on
the perplexity, over all points (:func:`conditional_affinities`) or over each point's nearest
neighbours only (:func:`knn_conditional_affinities`, the sparse affinities of
:mod:`mlnotes.tsne_fft`), and their symmetrised joint version
:math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N` (:func:`joint_affinities`). :mod:`mlnotes.sne` builds
the objectives and the optimiser on these, and re-exports them.
"""

import warnings

import numpy as np
from scipy.special import xlogy

from ._typing import ArrayLike, FloatArray
from ._validation import check_array, check_positive

PERPLEXITY_TOL = 1e-5  # absolute tolerance on each point's perplexity 2**H_i
PERPLEXITY_MAX_STEPS = 100  # most search steps per call (7 or so are typical)
BRACKET_FACTOR = 10.0  # largest change of beta per step while the target is not bracketed
NEWTON_STEPS = 20  # after this many search steps a row bisects only (Newton can cycle slowly)
LN2 = np.log(2.0)
LOG_BETA_MAX = 0.9 * np.log(np.finfo(float).max)  # largest precision tried (exp stays finite)


# --- the perplexity search ------------------------------------------------------
def _check_perplexity(perplexity, n_samples):
    check_positive(perplexity, "perplexity")
    largest = n_samples - 1
    if perplexity >= largest:
        raise ValueError(
            f"perplexity={perplexity} is too large for {n_samples} points: the perplexity is an "
            f"effective number of neighbours, and each point has only N - 1 = {largest} others, "
            f"so it must be below {largest}. Choose perplexity < {largest} (typically 5 to 50, "
            "and well below N / 3)."
        )
    if perplexity <= 1:
        raise ValueError(
            f"perplexity={perplexity} is too small: perplexity 1 means a single neighbour "
            "(zero bandwidth). Choose perplexity > 1 (typically 5 to 50)."
        )
    return float(perplexity)


def entropy_bits(P_cond: ArrayLike) -> FloatArray:
    r"""Shannon entropy in bits of each row, :math:`H_i = -\sum_j p_{j|i} \log_2 p_{j|i}`.

    The perplexity of row :math:`i` is :math:`\mathrm{Perp}_i = 2^{H_i}`, a smooth count of
    its effective neighbours (:math:`0 \log 0 = 0`).
    """
    P_cond = np.asarray(P_cond, dtype=np.float64)
    return -xlogy(P_cond, P_cond).sum(axis=1) / LN2


def _row_entropy(E, D2s, beta):
    r"""Entropy in bits of rows :math:`p_{j|i} = e_{ij} / S_i`, :math:`e_{ij} = \exp(-\beta_i d_{ij})`,
    and its slope in :math:`\log \beta_i`.

    :math:`H_i = \log S_i + \beta_i \mathbb{E}_{p_i}[d]` and
    :math:`dH_i / d\log\beta_i = -\beta_i^2 \mathrm{Var}_{p_i}[d]` (nats), without forming
    :math:`p`; the slope is negative: a larger precision means a lower entropy.
    """
    S = E.sum(axis=1)
    ED = E * D2s
    mean_d = ED.sum(axis=1) / S
    var_d = np.einsum("ij,ij->i", ED, D2s) / S - mean_d**2
    H = (np.log(S) + beta * mean_d) / LN2
    slope = -(beta**2) * np.maximum(var_d, 0.0) / LN2
    return H, slope, S


def conditional_affinities(D2: ArrayLike, perplexity: float, *, tol: float = PERPLEXITY_TOL,
                           max_iter: int = PERPLEXITY_MAX_STEPS) -> tuple[FloatArray, FloatArray]:
    r"""Conditional Gaussian affinities with a per-point bandwidth set by the perplexity.

    .. math::
        p_{j|i} = \frac{\exp(-\|x_i - x_j\|^2 / 2\sigma_i^2)}
                       {\sum_{k \ne i} \exp(-\|x_i - x_k\|^2 / 2\sigma_i^2)},
        \qquad p_{i|i} = 0,

    with :math:`\sigma_i` chosen so that :math:`2^{H(P_i)} = \mathrm{Perp}`. The entropy grows
    with :math:`\sigma_i`, so a binary search finds it: on the precision
    :math:`\beta_i = 1 / 2\sigma_i^2`, in log scale, grow or shrink :math:`\beta_i` tenfold until
    the target is bracketed, then shrink the bracket. Each step tries Newton's update on
    :math:`\log\beta_i` (the slope :math:`dH/d\log\beta = -\beta^2 \mathrm{Var}_{p_i}[d]` comes
    for free) and falls back to halving the bracket whenever Newton would leave it, so the search
    keeps bisection's guarantee and converges in a handful of steps instead of ~25 (where the
    entropy curve bends, Newton's steps can circle inside the bracket, so a row still searching
    after :data:`NEWTON_STEPS` steps bisects only). All points
    are searched at once: one vectorised step over the rows not yet converged.

    A point with :math:`m_i` others tied at its smallest distance (exact duplicates, or all
    points equidistant) has perplexity at least :math:`m_i` for every :math:`\sigma_i`: as
    :math:`\sigma_i \to 0` the row tends to the uniform distribution over the tied points. When
    :math:`m_i \ge \mathrm{Perp}` the target is out of reach and the row is that limit
    (:math:`\sigma_i = 0`), with a warning naming the point; coincident points thus get a
    well-defined P (uniform over their twins), as openTSNE's search gives them.

    Parameters
    ----------
    D2 : ndarray of shape (N, N)
        Squared distances :math:`\|x_i - x_j\|^2` (symmetric, zero diagonal).
    perplexity : float
        Target perplexity, ``1 < perplexity < N - 1``.
    tol : float
        Absolute tolerance on every point's perplexity: stop once :math:`|2^{H_i} - Perp| \le tol`.
    max_iter : int
        Maximum number of search steps.

    Returns
    -------
    P_cond : ndarray of shape (N, N)
        Row :math:`i` is :math:`p_{\cdot|i}`; rows sum to 1, zero diagonal.
    sigma : ndarray of shape (N,)
        The bandwidths :math:`\sigma_i`.
    """
    D2 = check_array(D2, name="D2")
    N = D2.shape[0]
    if D2.shape != (N, N):
        raise ValueError(f"D2 must be a square matrix of squared distances, got shape {D2.shape}.")
    perplexity = _check_perplexity(perplexity, N)
    check_positive(tol, "tol")
    check_positive(max_iter, "max_iter", integer=True)

    # Subtract each row's smallest off-diagonal distance: it cancels in p_{j|i} and keeps the
    # largest term exp(0) = 1, so no row underflows to 0 / 0.
    off = ~np.eye(N, dtype=bool)
    D2s = D2 - np.where(off, D2, np.inf).min(axis=1, keepdims=True)
    np.fill_diagonal(D2s, 0.0)
    P, log_beta, active, n_tied = _search_precisions(D2s, perplexity, tol, max_iter,
                                                     self_col=np.arange(N))
    _warn_unreached(P, active, n_tied, D2.min(axis=1) == 0, perplexity, tol, N - 1)
    return P, _bandwidths(log_beta)


def knn_conditional_affinities(D2_knn: ArrayLike, perplexity: float, *, tol: float = PERPLEXITY_TOL,
                               max_iter: int = PERPLEXITY_MAX_STEPS) -> tuple[FloatArray, FloatArray]:
    r"""The perplexity search of :func:`conditional_affinities` on each point's k nearest neighbours.

    Row :math:`i` of ``D2_knn`` holds :math:`\|x_i - x_j\|^2` for the k nearest neighbours
    :math:`j \in \mathcal{N}_i` of point i (not i itself); the returned row holds
    :math:`p_{j|i}` for those neighbours, normalised over them, and every other :math:`p_{j|i}`
    is taken as 0. With :math:`k = \lfloor 3\,\mathrm{Perp} \rfloor` the neglected mass is
    small: a Gaussian of perplexity Perp puts most of its weight on its nearest 3 Perp points
    (van der Maaten 2014; on 1 000 noisy 64-D digits at perplexity 30 the dense rows have a
    mean 4%, at most 19%, beyond them). Needs ``perplexity < k``.

    Returns
    -------
    P_knn : ndarray of shape (N, k)
        :math:`p_{j|i}` in the order of ``D2_knn``; rows sum to 1.
    sigma : ndarray of shape (N,)
    """
    D2_knn = check_array(D2_knn, name="D2_knn")
    N, k = D2_knn.shape
    check_positive(perplexity, "perplexity")
    if perplexity <= 1 or perplexity >= k:
        raise ValueError(
            f"perplexity={perplexity} needs 1 < perplexity < k = {k} neighbours per row; pass "
            "the distances to more neighbours (3 x perplexity is customary) or lower perplexity."
        )
    check_positive(tol, "tol")
    check_positive(max_iter, "max_iter", integer=True)
    D2s = D2_knn - D2_knn.min(axis=1, keepdims=True)  # as above: no row underflows
    P, log_beta, active, n_tied = _search_precisions(D2s, float(perplexity), tol, max_iter,
                                                     self_col=None)
    _warn_unreached(P, active, n_tied, D2_knn.min(axis=1) == 0, perplexity, tol, k)
    return P, _bandwidths(log_beta)


def _bandwidths(log_beta):
    r""":math:`\sigma_i = (2 \beta_i)^{-1/2}`; 0 for a row at the limit :math:`\beta_i = \infty`."""
    with np.errstate(over="ignore"):
        return np.sqrt(0.5 * np.exp(-log_beta))


def _search_precisions(D2s, perplexity, tol, max_iter, *, self_col):
    """The search loop of :func:`conditional_affinities` on shifted rows ``D2s`` (N x m).

    ``self_col[i]`` is the column of point i itself in row i (excluded from the row), or None
    when the rows hold other points only. Returns the rows of P, log beta, the points not
    converged and, per row, the number of points tied at its smallest distance (the rows where
    it reaches the perplexity are set to the search's limit, see below).
    """
    n_rows = D2s.shape[0]
    rows = np.arange(n_rows)
    target = np.log2(perplexity)

    log_beta = -np.log(np.maximum(D2s.mean(axis=1), np.finfo(float).tiny))  # scale guess
    lo = np.full(n_rows, -np.inf)  # bracket on log beta
    hi = np.full(n_rows, np.inf)
    P = np.zeros_like(D2s)
    # Ties at the smallest distance (exact duplicates, or a row of equal distances): as
    # beta -> inf, p_{.|i} tends to the uniform distribution over the m_i tied points, whose
    # entropy log2 m_i is the least any beta reaches. A row with m_i >= Perp cannot reach the
    # target; its affinities are that limit (sigma_i = 0), not a search that overflows.
    tied = D2s == 0.0
    if self_col is not None:
        tied[rows, self_col] = False
    n_tied = tied.sum(axis=1)
    at_limit = n_tied >= perplexity
    P[at_limit] = tied[at_limit] / n_tied[at_limit, None]
    log_beta[at_limit] = np.inf
    active = rows[~at_limit]
    for step_no in range(max_iter):
        beta = np.exp(log_beta[active])
        E = np.exp(-beta[:, None] * D2s[active])
        if self_col is not None:
            E[np.arange(active.size), self_col[active]] = 0.0  # p_{i|i} = 0
        H, slope, S = _row_entropy(E, D2s[active], beta)
        done = np.abs(2.0**H - perplexity) <= tol
        P[active[done]] = E[done] / S[done, None]
        too_flat = H > target  # entropy too high: sharpen (increase beta)
        lo[active] = np.where(too_flat, log_beta[active], lo[active])
        hi[active] = np.where(too_flat, hi[active], log_beta[active])
        bracketed = np.isfinite(lo[active]) & np.isfinite(hi[active])
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = log_beta[active] - (H - target) / slope
        # not bracketed yet: Newton's step in the right direction, at most tenfold in beta
        max_step = np.log(BRACKET_FACTOR)
        step = np.where(too_flat, max_step, -max_step)
        toward = np.where(too_flat, np.minimum(newton, log_beta[active] + max_step),
                          np.maximum(newton, log_beta[active] - max_step))
        toward = np.where(np.isfinite(toward), toward, log_beta[active] + step)
        toward = np.minimum(toward, LOG_BETA_MAX)  # exp(log beta) stays finite
        inside = (newton > lo[active]) & (newton < hi[active]) & (step_no < NEWTON_STEPS)
        halve = np.where(inside, newton, (lo[active] + hi[active]) / 2)
        new = np.where(bracketed, halve, toward)
        log_beta[active] = np.where(done, log_beta[active], new)
        if not done.all():
            P[active[~done]] = E[~done] / S[~done, None]  # best so far, kept if max_iter ends
        active = active[~done]
        if active.size == 0:
            break
    return P, log_beta, active, n_tied


def _warn_unreached(P, active, n_tied, duplicated, perplexity, tol, n_others):
    """Warn about rows whose perplexity is not the target: rows at the search's limit (at least
    Perp points tied at their smallest distance, of the ``n_others`` each row holds), then rows
    the search did not finish."""
    limit = np.flatnonzero(n_tied >= perplexity)
    if limit.size:
        i = limit[np.argmax(n_tied[limit])]
        m = int(n_tied[i])
        what = "exact duplicate(s)" if duplicated[i] else "neighbours tied at its smallest distance"
        if m >= n_others:  # every point searched ties: no perplexity the search allows helps
            remedy = ("remove duplicate points (np.unique(X, axis=0) and its return_counts): "
                      f"all {n_others} points searched for point {i} tie, so no perplexity "
                      "they allow is reachable")
        else:
            remedy = f"remove duplicate points or choose perplexity > {m}"
        warnings.warn(
            f"{limit.size} point(s) cannot reach perplexity={perplexity}: point {i} has {m} "
            f"{what}, and a point with m such neighbours has perplexity at least m. Their "
            "affinities are the search's limit (sigma = 0): spread evenly over those neighbours. "
            f"To reach the target, {remedy}.",
            RuntimeWarning,
            stacklevel=3,
        )
    if active.size:
        perp_bad = 2.0 ** entropy_bits(P[active])
        warnings.warn(
            f"The perplexity search did not reach perplexity={perplexity} within tol={tol} for "
            f"{active.size} point(s) (first: {active[:5].tolist()}, perplexities "
            f"{np.round(perp_bad[:5], 4).tolist()}): raise max_iter or tol.",
            RuntimeWarning,
            stacklevel=3,
        )


def joint_affinities(P_cond: FloatArray) -> FloatArray:
    r"""Symmetrised joint affinities :math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N`.

    Every point then carries at least :math:`1/2N` of the mass (no outlier is ignored), and
    :math:`\sum_{ij} p_{ij} = 1`.
    """
    P_cond = check_array(P_cond, name="P_cond")
    return (P_cond + P_cond.T) / (2.0 * P_cond.shape[0])
