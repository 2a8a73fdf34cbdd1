"""Questions on SNE and t-SNE: affinities for a given bandwidth, entropy, the perplexity search,
joint and Student-t affinities, the KL objective and the t-SNE gradient."""

import numpy as np

from ...sne import conditional_affinities as _conditional_affinities
from ...sne import entropy_bits as _entropy_bits
from ...sne import joint_affinities as _joint_affinities
from ...sne import student_t_affinities as _student_t_affinities
from ...sne import tsne_objective_gradient as _tsne_objective_gradient
from ..compare import tol_direct
from ..core import Mistake, Property, Question
from ._common import (
    compare_close,
    fixed_tolerance,
    in_range,
    register,
    squared_distances,
    sums_to,
    symmetric,
    tol_by_size,
    total_sum,
    zero_diagonal,
)

# Perplexity search: answers agree with the reference to this relative accuracy in sigma, and
# reach the target perplexity to this relative accuracy.
SIGMA_RTOL = 1e-3
PERPLEXITY_RTOL = 1e-3
# Relative step of the central finite differences that check a gradient.
FD_STEP = 1e-5


def _points(rng, n=None):
    n = int(rng.integers(12, 30)) if n is None else n
    return rng.normal(size=(n, int(rng.integers(2, 5)))) * rng.uniform(0.5, 2.0)


def _gaussian_rows(D2, sigma, *, two=2.0, power=2, keep_diagonal=False, axis=1):
    """p_{j|i} proportional to exp(-D2_ij / (two * sigma_i^power)), rows normalised."""
    E = np.exp(-(D2 - D2.min()) / (two * sigma[:, None] ** power))
    if not keep_diagonal:
        np.fill_diagonal(E, 0.0)
    return E / E.sum(axis=axis, keepdims=True)


# --- conditional affinities for given bandwidths -----------------------------------------------

def _conditional_inputs(rng):
    X = _points(rng)
    D2 = squared_distances(X)
    P, sigma = _conditional_affinities(D2, float(rng.uniform(3, len(X) / 3)))
    return {"D2": D2, "sigma": sigma, "_P": P}


# In the hard case, exp(-D2_ij / 2 sigma_i^2) is below exp(-UNDERFLOW) for every j of some rows:
# 0 in float64, so the plain formula divides 0 by 0 there.
UNDERFLOW = 800.0


def _stable_rows(D2, sigma):
    """p_{j|i} with each row's exponents shifted by its smallest off-diagonal D2_ij."""
    off = D2 + np.diag(np.full(len(D2), np.inf))
    E = np.exp(-(off - off.min(axis=1, keepdims=True)) / (2 * sigma[:, None] ** 2))
    return E / E.sum(axis=1, keepdims=True)


def _tiny_bandwidth_inputs(rng):
    """Bandwidths so small on some rows that every plain exp(-D2_ij / 2 sigma_i^2) is 0."""
    d = _conditional_inputs(rng)
    D2, sigma = d["D2"], d["sigma"].copy()
    nearest = np.where(np.eye(len(D2), dtype=bool), np.inf, D2).min(axis=1)
    rows = rng.choice(len(D2), size=max(1, len(D2) // 3), replace=False)
    sigma[rows] = np.sqrt(nearest[rows] / (2 * UNDERFLOW)) * rng.uniform(0.3, 0.9, size=len(rows))
    return [{"D2": D2, "sigma": sigma, "_P": _stable_rows(D2, sigma)}]


register(Question(
    name="sne.conditional_affinities",
    function="conditional_affinities",
    signature="def conditional_affinities(D2, sigma):",
    docstring=r"""SNE's conditional affinities for given bandwidths.

D2 : (N, N) squared distances. sigma : (N,) bandwidths sigma_i > 0.
Returns P, (N, N): p_{j|i} = exp(-D2_ij / (2 sigma_i^2)) / sum_{k != i} exp(-D2_ik / (2 sigma_i^2)),
with p_{i|i} = 0; row i is the distribution p_{.|i}. Some sigma_i may be tiny: no row may come out
as NaN.""",
    make_inputs=_conditional_inputs,
    extra_cases=_tiny_bandwidth_inputs,
    reference=lambda D2, sigma, _P: _P,
    compare=compare_close,
    tolerance=lambda inputs, expected: max(tol_direct(len(inputs["D2"])), 1e-9),
    outputs=("P_cond",),
    properties=(sums_to(1, 1, name="P"), zero_diagonal(name="P"), in_range(0, 1)),
    nan_hint="rows of P are 0/0: with a small sigma_i every exp(-D2_ij / 2 sigma_i^2) of the "
             "row underflows to 0. A ratio does not change when every exponent of the row is "
             "shifted by the same amount: shift row i by its smallest D2_ij (j != i), so that "
             "its largest term is exp(0) = 1 (the safeguard the exercise asks for).",
    mistakes=(
        Mistake("transposed", derive=lambda expected, inputs: expected[0].T,
                diagnosis="P is transposed: row i must hold the distribution p_{.|i} (it sums "
                          "to 1 over j); yours has it in column i."),
        Mistake("diagonal", lambda D2, sigma, _P: _gaussian_rows(D2, sigma,
                                                                 keep_diagonal=True),
                "p_{i|i} must be 0: leave k = i out of the normalising sum (and the row)."),
        Mistake("columns", lambda D2, sigma, _P: _gaussian_rows(D2, sigma, axis=0),
                "normalised over columns: each ROW i is a distribution p_{.|i} and sums to 1."),
        Mistake("no 2", lambda D2, sigma, _P: _gaussian_rows(D2, sigma, two=1.0),
                "the 2 in 2 sigma_i^2 is missing: exp(-D2_ij / (2 sigma_i^2))."),
        Mistake("sigma", lambda D2, sigma, _P: _gaussian_rows(D2, sigma, power=1),
                "used sigma_i where sigma_i^2 belongs: exp(-D2_ij / (2 sigma_i^2))."),
        Mistake("distances", lambda D2, sigma, _P: _gaussian_rows(np.sqrt(D2), sigma),
                "used distances: the Gaussian needs the squared distances D2."),
    ),
))


# --- entropy in bits ---------------------------------------------------------------------------

def _entropy_inputs(rng):
    return {"P_cond": _conditional_inputs(rng)["_P"]}


def _entropy(P, base=2.0):
    logs = np.log(np.where(P > 0, P, 1.0)) / np.log(base)
    return -(P * logs).sum(axis=1)


register(Question(
    name="sne.entropy_bits",
    function="entropy_bits",
    signature="def entropy_bits(P_cond):",
    docstring=r"""Shannon entropy in bits of each row: H_i = -sum_j p_{j|i} log2 p_{j|i}.

P_cond : (N, N), rows are distributions (zero diagonal; 0 log 0 counts as 0).
Returns H, (N,); the perplexity of row i is 2 ** H_i.""",
    make_inputs=_entropy_inputs,
    reference=_entropy_bits,
    compare=compare_close,
    tolerance=tol_by_size("P_cond"),
    outputs=("H",),
    properties=(Property("every entropy is >= 0", lambda a, i, tol: (
        bool(np.all(a[0] >= -tol)), "a negative entropy")),),
    nan_hint="0 log 0 must count as 0: the zero diagonal p_{i|i} makes p log p NaN; "
             "skip zero entries (np.where, or scipy.special.xlogy).",
    mistakes=(
        Mistake("nats", lambda P_cond: _entropy(P_cond, np.e),
                "entropy in nats, perplexity expects bits: use log2 (or divide by ln 2)."),
        Mistake("sign", lambda P_cond: -_entropy(P_cond),
                "the minus sign is missing: H = -sum p log2 p (entropies are >= 0)."),
        Mistake("perplexity", lambda P_cond: 2.0 ** _entropy(P_cond),
                "that is the perplexity 2^H: return the entropy H itself."),
    ),
))


# --- perplexity search -------------------------------------------------------------------------

def _search(D2, perplexity, *, entropy_base=2.0, target_base=2.0, steps=200):
    """Bisection on log(beta) per row, beta = 1 / (2 sigma^2) (a trusted helper for mistakes)."""
    N = len(D2)
    target = np.log(perplexity) / np.log(target_base)
    lo, hi = np.full(N, -60.0), np.full(N, 60.0)
    off = D2 - np.where(np.eye(N, dtype=bool), np.inf, D2).min(axis=1, keepdims=True)
    for _ in range(steps):
        mid = (lo + hi) / 2
        with np.errstate(over="ignore"):
            E = np.exp(-np.exp(mid)[:, None] * off)
        np.fill_diagonal(E, 0.0)
        P = E / E.sum(axis=1, keepdims=True)
        too_flat = _entropy(P, entropy_base) > target
        lo, hi = np.where(too_flat, mid, lo), np.where(too_flat, hi, mid)
    beta = np.exp((lo + hi) / 2)
    return np.sqrt(1 / (2 * beta))


def _search_inputs(rng):
    X = _points(rng)
    return {"D2": squared_distances(X), "perplexity": float(np.round(rng.uniform(3, len(X) / 3),
                                                                     2))}


def perplexity_miss(perp, target):
    """Whether the rows' perplexities ``perp`` reach ``target``, and if not which way they miss
    and by how much (the target itself is the student's own input, never restated)."""
    rel = perp / target - 1
    bad = np.abs(rel) > PERPLEXITY_RTOL
    if not bad.any():
        return True, ""
    high, low = int((rel > PERPLEXITY_RTOL).sum()), int((rel < -PERPLEXITY_RTOL).sum())
    if high and low:
        return False, (f"{high} rows too high and {low} too low, by up to "
                       f"{float(np.abs(perp - target).max()):.3g} "
                       f"({float(np.abs(rel).max()):.1%})")
    way, gap = ("too high", perp - target) if high else ("too low", target - perp)
    return False, (f"{high or low} of {len(perp)} rows reach a perplexity {way}, by "
                   f"{float(gap[bad].mean()):.3g} on average "
                   f"({float(np.abs(rel[bad]).mean()):.1%}): "
                   + ("each sigma_i is too large" if high else "each sigma_i is too small"))


def _reaches_perplexity(answer, inputs, tol):
    sigma = answer[0]
    if sigma.shape != (len(inputs["D2"]),) or not np.all(sigma > 0):
        return False, "some sigma_i <= 0"
    perp = 2.0 ** _entropy(_stable_rows(inputs["D2"], sigma))
    return perplexity_miss(perp, inputs["perplexity"])


register(Question(
    name="sne.perplexity_search",
    depends_on=("sne.conditional_affinities", "sne.entropy_bits"),
    function="find_bandwidths",
    signature="def find_bandwidths(D2, perplexity):",
    docstring=r"""Binary search for each point's bandwidth sigma_i so that 2 ** H_i = perplexity.

D2 : (N, N) squared distances. perplexity : float, 1 < perplexity < N - 1.
H_i is the entropy in bits of p_{.|i} (see conditional_affinities); it grows with sigma_i.
Returns sigma, (N,), accurate to a relative 1e-4 or better.""",
    make_inputs=_search_inputs,
    reference=lambda D2, perplexity: _conditional_affinities(D2, perplexity, tol=1e-8)[1],
    compare=compare_close,
    tolerance=fixed_tolerance(SIGMA_RTOL),
    outputs=("sigma",),
    properties=(Property("each row of P reaches the perplexity (0.1%)", _reaches_perplexity,
                         hint="the search stops at the wrong perplexity: compare 2 ** H_i (H_i "
                              "in bits) with exactly the perplexity you were given; the line "
                              "above says which way the rows miss."),),
    mistakes=(
        Mistake("nats", lambda D2, perplexity: _search(D2, perplexity, entropy_base=np.e),
                "entropy in nats, perplexity expects bits: compare log2-entropy with "
                "log2(perplexity) (or nats with ln(perplexity))."),
        Mistake("beta", lambda D2, perplexity: 1 / (2 * _search(D2, perplexity) ** 2),
                "returned the precisions beta_i = 1 / (2 sigma_i^2): return sigma_i."),
        Mistake("variance", lambda D2, perplexity: _search(D2, perplexity) ** 2,
                "returned sigma_i^2: return the bandwidth sigma_i (its square root)."),
    ),
))


# --- joint affinities --------------------------------------------------------------------------

register(Question(
    name="sne.joint_affinities",
    function="joint_affinities",
    signature="def joint_affinities(P_cond):",
    docstring=r"""Symmetric SNE / t-SNE joint affinities p_ij = (p_{j|i} + p_{i|j}) / (2N).

P_cond : (N, N), row i is p_{.|i}. Returns P, (N, N), symmetric, summing to 1.""",
    make_inputs=_entropy_inputs,
    reference=_joint_affinities,
    compare=compare_close,
    tolerance=tol_by_size("P_cond"),
    outputs=("P",),
    properties=(symmetric(name="P"), total_sum(1.0, name="P")),
    mistakes=(
        Mistake("not symmetrised", lambda P_cond: P_cond / len(P_cond),
                "not symmetrised: p_ij = (p_{j|i} + p_{i|j}) / 2N."),
        Mistake("/N", lambda P_cond: (P_cond + P_cond.T) / len(P_cond),
                "P sums to 2: divide by 2N, not N."),
        Mistake("/2", lambda P_cond: (P_cond + P_cond.T) / 2,
                "P sums to N: divide by 2N, not 2."),
    ),
))


# --- Student-t affinities ----------------------------------------------------------------------

def _embedding_inputs(rng):
    return {"Z": rng.normal(size=(int(rng.integers(10, 25)), 2)) * rng.uniform(0.5, 3.0)}


def _kernel_q(Z, *, kernel="t", per_row=False, diagonal=False):
    D2 = squared_distances(Z)
    W = {"t": 1 / (1 + D2), "gauss": np.exp(-D2), "t-d": 1 / (1 + np.sqrt(D2))}[kernel]
    if not diagonal:
        np.fill_diagonal(W, 0.0)
    return W / W.sum(axis=1, keepdims=True) if per_row else W / W.sum()


register(Question(
    name="sne.student_t_affinities",
    function="student_t_affinities",
    signature="def student_t_affinities(Z):",
    docstring=r"""t-SNE's embedding affinities (Student-t kernel, one normalisation over all pairs).

q_ij = (1 + ||z_i - z_j||^2)^-1 / sum_{k != l} (1 + ||z_k - z_l||^2)^-1.
Z : (N, d) embedding. Returns Q, (N, N), zero diagonal, summing to 1.""",
    make_inputs=_embedding_inputs,
    reference=lambda Z: _student_t_affinities(Z),
    compare=compare_close,
    tolerance=tol_by_size("Z"),
    outputs=("Q",),
    properties=(symmetric(name="Q"), zero_diagonal(name="Q"), total_sum(1.0, name="Q")),
    mistakes=(
        Mistake("per row", lambda Z: _kernel_q(Z, per_row=True),
                "normalised each row (SNE's conditional q_{j|i}): t-SNE's q_ij is normalised "
                "over all pairs."),
        Mistake("diagonal", lambda Z: _kernel_q(Z, diagonal=True),
                "q_ii must be 0: leave the pairs k = l out of the normalising sum."),
        Mistake("gaussian", lambda Z: _kernel_q(Z, kernel="gauss"),
                "that is a Gaussian kernel: t-SNE uses the Student-t kernel "
                "(1 + ||z_i - z_j||^2)^-1."),
        Mistake("unsquared", lambda Z: _kernel_q(Z, kernel="t-d"),
                "used the distance where its square belongs: (1 + ||z_i - z_j||^2)^-1."),
    ),
))


# --- KL objective ------------------------------------------------------------------------------

def _pq_inputs(rng):
    X = _points(rng)
    P_cond, _ = _conditional_affinities(squared_distances(X), float(rng.uniform(3, len(X) / 3)))
    P = (P_cond + P_cond.T) / (2 * len(X))
    Z = rng.normal(size=(len(X), 2))
    return {"P": P, "Q": _kernel_q(Z), "_Z": Z}


def _kl(P, Q, *, base=np.e):
    mask = P > 0
    return float((P[mask] * np.log(P[mask] / Q[mask])).sum() / np.log(base))


register(Question(
    name="sne.kl_divergence",
    function="kl_divergence",
    signature="def kl_divergence(P, Q):",
    docstring=r"""KL(P || Q) = sum_{i != j} p_ij log(p_ij / q_ij), natural log, 0 log 0 = 0.

P, Q : (N, N) joint affinities (zero diagonals, each summing to 1). Returns a float.""",
    make_inputs=_pq_inputs,
    reference=lambda P, Q, _Z: _tsne_objective_gradient(_Z, P)[0],
    compare=compare_close,
    tolerance=lambda inputs, expected: max(1e-9, tol_direct(len(inputs["P"]) ** 2)),
    outputs=("KL",),
    properties=(Property("KL >= 0", lambda a, i, tol: (bool(a[0] >= -tol), "negative")),),
    nan_hint="0 log 0 must count as 0: the zero diagonals make p log(p / q) NaN; "
             "sum over the pairs with p_ij > 0 only.",
    mistakes=(
        Mistake("reversed", lambda P, Q, _Z: _kl(Q, P),
                "the arguments are reversed: KL(P || Q) = sum p log(p / q), weighted by P."),
        Mistake("bits", lambda P, Q, _Z: _kl(P, Q, base=2.0),
                "used log2: the t-SNE objective uses the natural log (nats)."),
    ),
))


# --- t-SNE gradient ----------------------------------------------------------------------------

def _gradient_inputs(rng):
    d = _pq_inputs(rng)
    return {"Z": d["_Z"], "P": d["P"]}


def _tsne_grad(Z, P, *, factor=4.0, kernel=True, gaussian=False):
    D2 = squared_distances(Z)
    W = np.exp(-D2) if gaussian else 1 / (1 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    M = (P - Q) * (W if kernel and not gaussian else 1.0)
    # g_i = factor * sum_j m_ij (z_i - z_j)
    return factor * (M.sum(axis=1)[:, None] * Z - M @ Z)


def _tsne_repulsion(Z):
    """4 sum_j q_ij w_ij (z_i - z_j), the repulsive part of the t-SNE gradient."""
    D2 = squared_distances(Z)
    W = 1 / (1 + D2)
    np.fill_diagonal(W, 0.0)
    M = W / W.sum() * W
    return 4.0 * (M.sum(axis=1)[:, None] * Z - M @ Z)


def _fd_gradient(answer, inputs, tol):
    Z, P = inputs["Z"], inputs["P"]
    G = np.zeros_like(Z)
    for idx in np.ndindex(*Z.shape):
        h = FD_STEP * max(1.0, abs(Z[idx]))
        Zp, Zm = Z.copy(), Z.copy()
        Zp[idx] += h
        Zm[idx] -= h
        G[idx] = (_tsne_objective_gradient(Zp, P)[0] - _tsne_objective_gradient(Zm, P)[0]) / (2 * h)
    err = float(np.linalg.norm(answer[0] - G) / max(np.linalg.norm(G), 1e-300))
    return err <= 1e-5, f"relative difference {err:.1e} from finite differences"


register(Question(
    name="sne.tsne_gradient",
    depends_on=("sne.student_t_affinities",),
    function="tsne_gradient",
    signature="def tsne_gradient(Z, P):",
    docstring=r"""Gradient of the t-SNE objective KL(P || Q(Z)) with respect to the embedding.

Z : (N, d) embedding. P : (N, N) joint affinities. Returns the (N, d) array with rows
dC/dz_i = 4 sum_j (p_ij - q_ij) (z_i - z_j) / (1 + ||z_i - z_j||^2).""",
    make_inputs=_gradient_inputs,
    reference=lambda Z, P: _tsne_objective_gradient(Z, P)[1],
    compare=compare_close,
    tolerance=lambda inputs, expected: max(1e-10, tol_direct(len(inputs["Z"]))),
    outputs=("grad",),
    properties=(Property("matches central finite differences of the KL objective",
                         _fd_gradient),
                Property("the gradients sum to zero (translation invariance)",
                         lambda a, i, tol: (bool(np.allclose(
                             a[0].sum(0), 0, atol=1e-8 * max(np.abs(a[0]).max(), 1e-12))),
                             "they do not"))),
    mistakes=(
        Mistake("zero", lambda Z, P: np.zeros_like(Z),
                "the gradient is zero everywhere: compute dC/dz_i from p_ij - q_ij, which is "
                "not zero unless Q already equals P."),
        Mistake("attraction only", lambda Z, P: _tsne_grad(Z, P) + _tsne_repulsion(Z),
                "only the attraction: q_ij depends on every z through its normalisation, and "
                "the term -q_ij of (p_ij - q_ij) gives the repulsion; 4 sum_j (p_ij - q_ij) "
                "... has both."),
        Mistake("no 4", lambda Z, P: _tsne_grad(Z, P, factor=1.0),
                "grad equals 0.25 x the expected: the factor 4 is missing."),
        Mistake("ascent", lambda Z, P: -_tsne_grad(Z, P),
                "the sign is flipped: that is the descent direction -grad (or p and q are "
                "swapped in p_ij - q_ij)."),
        Mistake("no kernel", lambda Z, P: _tsne_grad(Z, P, kernel=False),
                "the Student-t factor (1 + ||z_i - z_j||^2)^-1 is missing from each term."),
        Mistake("gaussian", lambda Z, P: _tsne_grad(Z, P, gaussian=True),
                "that is symmetric SNE's gradient (Gaussian Q): t-SNE's q_ij uses the "
                "Student-t kernel, and each term carries (1 + ||z_i - z_j||^2)^-1."),
    ),
))
