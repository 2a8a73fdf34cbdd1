"""The graded homework: variants of what the chapters build, which neither the chapters'
solutions nor the package hand over (issue 22).

Each question asks for other work than a chapter's exercise: another kernel, another
normalisation or weighting, another objective, inputs where the plain formula breaks, or a
closed form where brute force cannot reach. Only what a student may see is here: the stub, the
generator of the inputs, the properties an answer must have, and likely mistakes that do not
spell out the answer. The reference answers (and the mistakes that would show them) are the
instructor's, read from their solutions (:mod:`.solutions`); a student's ``check`` without them
tests the properties only.

Notation as in the book: p the data dimension, d the embedding dimension, k the neighbours, K a
Gram or kernel matrix, W weights, D the degree matrix, L = D - W the Laplacian.
"""

import numpy as np

from ..compare import EPS, relative_error, tol_direct
from ..core import Mistake, Property, Question, ReferenceUnavailable
from ._common import (
    anisotropic_points,
    compare_close,
    in_range,
    knn_lengths,
    psd,
    register,
    squared_distances,
    sums_to,
    symmetric,
    zero_diagonal,
)
from .sne import UNDERFLOW, perplexity_miss
from .solutions import PrivateReference, private_mistakes
from .understanding import compare_subspaces

# Relative accuracy asked of a bandwidth search, and of a closed-form spectrum.
SIGMA_RTOL = 1e-3
SPECTRUM_RTOL = 1e-9
# Relative step of the central finite differences that check a gradient, and their agreement.
FD_STEP = 1e-5
FD_RTOL = 1e-6


def homework(name, **fields):
    """Register graded question ``name``: its reference and private mistakes are the
    instructor's."""
    return register(Question(name=name, reference=PrivateReference(name),
                             private_mistakes=private_mistakes(name), **fields))


def _by_size(key, factor=1.0):
    return lambda inputs, expected: factor * tol_direct(len(inputs[key]))


def _fd_property(objective, wrt, what):
    """The answer matches central finite differences of ``objective(**inputs)`` in ``wrt``."""
    def test(answer, inputs, tol):
        Z = np.array(inputs[wrt], dtype=float)
        G = np.zeros_like(Z)
        for idx in np.ndindex(*Z.shape):
            h = FD_STEP * max(1.0, abs(Z[idx]))
            up, down = Z.copy(), Z.copy()
            up[idx] += h
            down[idx] -= h
            G[idx] = (objective(**{**inputs, wrt: up}) - objective(**{**inputs, wrt: down})) / (
                2 * h)
        err = relative_error(answer[0], G)
        return err <= FD_RTOL, f"relative difference {err:.1e} from finite differences"
    return Property(f"matches central finite differences of {what}", test,
                    hint="the gradient does not match the objective's finite differences: "
                         "differentiate again term by term, and check it on two points first.")


# --- spectral: centring at a weighted mean -----------------------------------------------------

def _weighted_inputs(rng):
    N = int(rng.integers(8, 22))
    w = rng.uniform(0.1, 1.0, size=N) ** 2
    return {"D2": squared_distances(anisotropic_points(rng, N, int(rng.integers(2, 5)))),
            "w": w / w.sum()}


def _plain_centring(D2, w):
    C = np.eye(len(D2)) - 1.0 / len(D2)
    return -0.5 * C @ D2 @ C


def _orthogonal_to_w(answer, inputs, tol):
    K, w = answer[0], inputs["w"]
    worst = float(np.abs(K @ w).max()) / max(float(np.abs(K).max()), EPS)
    return worst <= tol * len(w), f"largest |(K w)_i| is {worst:.1e} of the largest entry"


homework(
    "kernels.weighted_double_center",
    function="weighted_double_center",
    signature="def weighted_double_center(D2, w):",
    docstring=r"""Gram matrix of points centred at a WEIGHTED mean, from their squared distances.

D2 : (N, N) squared Euclidean distances ||x_i - x_j||^2. w : (N,) weights w_i > 0 summing to 1.
Returns K, (N, N), with K_ij = (x_i - m)^T (x_j - m) for the weighted mean m = sum_i w_i x_i.
Derive it from D2 alone (the x_i are not given): which matrix takes the place of the centring
matrix C = I - 1 1^T / N, and on which side does its transpose go?""",
    make_inputs=_weighted_inputs,
    compare=compare_close,
    tolerance=_by_size("D2"),
    outputs=("K",),
    shapes=lambda inputs: [inputs["D2"].shape],
    properties=(symmetric(name="K"), psd(name="K"),
                Property("K w = 0 (the weighted mean is the origin)", _orthogonal_to_w,
                         hint="K w should be 0: sum_j w_j (x_j - m) = 0 for the weighted mean "
                              "m; see which factor of your formula fails to vanish on w.")),
    mistakes=(
        Mistake("plain mean", _plain_centring,
                "centred at the plain mean (C = I - 1 1^T / N): the weights w must enter, "
                "and then K w = 0 instead of K 1 = 0."),
    ),
)


# --- spectral: another kernel on the graph -----------------------------------------------------

def _cauchy_inputs(rng):
    X = rng.normal(size=(int(rng.integers(10, 22)), 3))
    G = knn_lengths(X, int(rng.integers(3, 6)))
    finite = G[np.isfinite(G) & (G > 0)]
    return {"G": G, "t": float(np.median(finite) ** 2 * rng.uniform(0.5, 2.0))}


homework(
    "eigenmaps.cauchy_weights",
    function="cauchy_weights",
    signature="def cauchy_weights(G, t):",
    docstring=r"""Cauchy (heavy-tailed) weights on the edges of a neighbourhood graph.

G : (N, N) edge lengths d_ij, np.inf where there is no edge, 0 on the diagonal. t : float > 0.
Returns W, (N, N): w_ij = 1 / (1 + d_ij^2 / t) on edges, 0 where there is no edge and 0 on the
diagonal (no self-loops).""",
    make_inputs=_cauchy_inputs,
    compare=compare_close,
    tolerance=_by_size("G"),
    outputs=("W",),
    shapes=lambda inputs: [inputs["G"].shape],
    properties=(symmetric(name="W"), zero_diagonal(name="W"), in_range(0, 1, name="every weight"),
                Property("W is 0 where the graph has no edge", lambda a, i, tol: (
                    bool(np.all(a[0][np.isinf(i["G"])] == 0)), "a non-edge has a weight"))),
    mistakes=(
        Mistake("self-loops", derive=lambda expected, inputs: expected[0] + np.eye(
            len(expected[0])),
            diagnosis="the diagonal is 1: a point is not its own neighbour, set w_ii = 0."),
    ),
)


# --- spectral: the spectrum of a path, in closed form ------------------------------------------

def _path_inputs(rng):
    return {"N": int(10 ** rng.uniform(6, 9)), "m": int(rng.integers(3, 8))}


def _increasing_positive(answer, inputs, tol):
    lam = answer[0]
    return bool(np.all(lam > 0) and np.all(np.diff(lam) > 0)), "not positive and increasing"


homework(
    "eigenmaps.path_spectrum",
    conceal=True,
    function="path_spectrum",
    signature="def path_spectrum(N, m):",
    docstring=r"""The m smallest NON-ZERO eigenvalues of the Laplacian of a path, in closed form.

The path graph has N vertices 1 - 2 - ... - N, unit weights. N : int, up to 10^9 (no matrix of
that size fits in memory: derive the eigenvalues; try v_k = cos(pi j (k - 1/2) / N)).
m : int, small. Returns the (m,) eigenvalues in increasing order, each to a relative accuracy
of 1e-9: choose a form of your formula that keeps that accuracy when the eigenvalue is tiny.""",
    make_inputs=_path_inputs,
    # and a short path, where (pi j / N)^2 and other small-angle forms are far off
    extra_cases=lambda rng: [{"N": int(rng.integers(10, 60)), "m": int(rng.integers(3, 8))}],
    compare=compare_close,
    tolerance=lambda inputs, expected: SPECTRUM_RTOL,
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(Property("the eigenvalues are positive and increasing", _increasing_positive),),
    mistakes=(
        Mistake("small angle", lambda N, m: (np.pi * np.arange(1, m + 1) / N) ** 2,
                "a small-angle form: it is exact only in the limit of a long path, and on a "
                "short path it is far off; derive the eigenvalues exactly."),
    ),
)


# --- embeddings: kernel PCA's reconstruction error in feature space ----------------------------

def _mixed_kernel(A, B, gamma):
    return np.exp(-gamma * squared_distances(A, B)) + 0.1 * A @ B.T


def _feature_inputs(rng):
    N, M = int(rng.integers(12, 25)), int(rng.integers(3, 8))
    X, Y = anisotropic_points(rng, N, 3), anisotropic_points(rng, M, 3) * 1.5
    gamma = float(rng.uniform(0.1, 0.4))
    return {"k_new": np.diag(_mixed_kernel(Y, Y, gamma)).copy(),
            "K_new": _mixed_kernel(Y, X, gamma), "K": _mixed_kernel(X, X, gamma),
            "n_components": int(rng.integers(1, 4))}


def _feature_tolerance(inputs, expected):
    N = len(inputs["K"])
    C = np.eye(N) - 1.0 / N
    lam = np.sort(np.linalg.eigvalsh(C @ inputs["K"] @ C))[::-1]
    d = inputs["n_components"]
    gap = float(lam[d - 1] - lam[d])
    return min(1e-5, max(1e-10, 1e3 * N * EPS * lam[0] ** 2 / (lam[d - 1] * max(gap, EPS))))


homework(
    "kernel_pca.feature_space_error",
    function="feature_space_error",
    signature="def feature_space_error(k_new, K_new, K, n_components):",
    docstring=r"""Squared distance, in feature space, from new points to kernel PCA's subspace.

K : (N, N) training kernel. K_new : (M, N) kernel between new and training points.
k_new : (M,) k(y_a, y_a) of each new point. n_components : int d.
With phi the feature map, centred at the training mean phi_bar, and P_d the projection on the
top-d kernel principal directions, return the (M,) errors ||(phi(y_a) - phi_bar) -
P_d (phi(y_a) - phi_bar)||^2: large for a point unlike the training data (novelty detection).
Only kernel values are available: derive the formula with them.""",
    make_inputs=_feature_inputs,
    compare=compare_close,
    tolerance=_feature_tolerance,
    outputs=("error",),
    shapes=lambda inputs: [inputs["k_new"].shape],
    properties=(Property("every error is >= 0", lambda a, i, tol: (
        bool(np.all(a[0] >= -1e-8 * max(1.0, float(np.abs(a[0]).max())))),
        "an error is negative")),),
)


# --- embeddings: PCA of weighted samples -------------------------------------------------------

def _weighted_pca_inputs(rng):
    p = int(rng.integers(3, 6))
    A = anisotropic_points(rng, int(rng.integers(10, 20)), p)
    B = anisotropic_points(rng, int(rng.integers(10, 20)), p)[:, ::-1] + 4.0
    X = np.vstack([A, B])
    w = np.r_[np.full(len(A), 1.0), np.full(len(B), 6.0)] * rng.uniform(0.5, 1.5, size=len(X))
    order = rng.permutation(len(X))
    return {"X": X[order], "w": (w / w.sum())[order], "n_components": int(rng.integers(1, 3))}


def _plain_pca(X, w, n_components):
    Xc = X - X.mean(axis=0)
    lam, V = np.linalg.eigh(Xc.T @ Xc)
    return V[:, np.argsort(lam)[::-1][:n_components]]


def _orthonormal(answer, inputs, tol):
    V = answer[0]
    err = float(np.abs(V.T @ V - np.eye(V.shape[1])).max())
    return err <= 1e-8, f"largest |V^T V - I| entry is {err:.1e}"


homework(
    "pca.weighted_subspace",
    function="weighted_principal_subspace",
    signature="def weighted_principal_subspace(X, w, n_components):",
    docstring=r"""The principal subspace of WEIGHTED samples.

X : (N, p) data. w : (N,) weights w_i > 0 summing to 1 (sample i counts w_i times).
n_components : int d. Returns V, (p, d), orthonormal columns spanning the top-d eigenvectors of
the weighted covariance, the one of the distribution that puts mass w_i on x_i. Any
orthonormal basis of that subspace is right.""",
    make_inputs=_weighted_pca_inputs,
    compare=compare_subspaces,
    tolerance=lambda inputs, expected: 1e-8,
    outputs=("V",),
    shapes=lambda inputs: [(inputs["X"].shape[1], inputs["n_components"])],
    properties=(Property("the columns are orthonormal", _orthonormal),),
    mistakes=(
        Mistake("unweighted", _plain_pca,
                "the subspace of the plain (unweighted) covariance: every sample must count "
                "with its weight w_i, in the mean and in the covariance."),
    ),
)


# --- embeddings: one step of a tied-weight autoencoder -----------------------------------------

def _tied_inputs(rng):
    N, p, h = int(rng.integers(10, 25)), int(rng.integers(3, 6)), int(rng.integers(2, 4))
    return {"X": rng.normal(size=(N, p)), "W": rng.normal(size=(p, h)) / np.sqrt(p),
            "b1": 0.1 * rng.normal(size=h), "b2": 0.1 * rng.normal(size=p),
            "learning_rate": float(rng.uniform(0.01, 0.1))}


def _tied_loss(X, W, b1, b2):
    """The stated loss (1 / 2N) sum_n ||x_n - x_hat_n||^2 of the tied autoencoder."""
    R = np.tanh(X @ W + b1) @ W.T + b2 - X
    return float((R**2).sum() / (2 * len(X)))


def _tied_lowers(answer, inputs, tol):
    if answer[1].shape != inputs["W"].shape:
        return False, "W_new has the wrong shape"
    before = _tied_loss(inputs["X"], inputs["W"], inputs["b1"], inputs["b2"])
    after = _tied_loss(inputs["X"], answer[1], answer[2], answer[3])
    return after < before, f"the loss went from {before:.6g} to {after:.6g}"


homework(
    "autoencoder.tied_step",
    function="tied_autoencoder_step",
    signature="def tied_autoencoder_step(X, W, b1, b2, learning_rate):",
    docstring=r"""One gradient-descent step of an autoencoder whose decoder is the encoder's
transpose (tied weights).

Encoder a = tanh(X W + b1), decoder X_hat = a W^T + b2 (one sample per row), loss
(1 / 2N) sum_n ||x_n - x_hat_n||^2. X : (N, p); W : (p, h); b1 : (h,); b2 : (p,).
Returns (loss, W_new, b1_new, b2_new): the loss BEFORE the step and the parameters after
theta <- theta - learning_rate * dloss/dtheta. W appears twice: its gradient has two parts.""",
    make_inputs=_tied_inputs,
    compare=compare_close,
    tolerance=_by_size("X"),
    outputs=("loss", "W_new", "b1_new", "b2_new"),
    shapes=lambda inputs: [(), inputs["W"].shape, inputs["b1"].shape, inputs["b2"].shape],
    properties=(Property("the step lowers the loss", _tied_lowers),),
    mistakes=(
        Mistake("ascent", derive=lambda e, i: (
            e[0], 2 * i["W"] - e[1], 2 * i["b1"] - e[2], 2 * i["b2"] - e[3]),
            diagnosis="the step goes uphill: subtract learning_rate x gradient."),
    ),
)


def _linear_optimum_inputs(rng):
    N, p = int(rng.integers(15, 40)), int(rng.integers(3, 6))
    return {"X": anisotropic_points(rng, N, p) + rng.normal(size=p) * 3,
            "n_components": int(rng.integers(1, p))}


homework(
    "autoencoder.linear_optimum",
    conceal=True,
    function="linear_autoencoder_optimum",
    signature="def linear_autoencoder_optimum(X, n_components):",
    docstring=r"""The smallest loss a LINEAR autoencoder with d hidden units can reach, derived.

Encoder a = X W1 + b1, decoder X_hat = a W2 + b2 (no tanh), loss (1 / 2N) sum_n ||x_n -
x_hat_n||^2 over all W1 (p, d), b1, W2 (d, p), b2. X : (N, p). n_components : int d < p.
Returns the minimum (a single number). Do not train: derive which reconstructions a rank-d
linear map with biases can make, and what the best of them costs.""",
    make_inputs=_linear_optimum_inputs,
    compare=compare_close,
    tolerance=lambda inputs, expected: 1e-9,
    outputs=("loss",),
    shapes=lambda inputs: [()],
    properties=(Property("the loss is >= 0", lambda a, i, tol: (bool(a[0] >= 0), "negative")),),
)


# --- SNE: another kernel, its bandwidth search -------------------------------------------------

def _laplace_inputs(rng):
    N = int(rng.integers(12, 28))
    X = rng.normal(size=(N, int(rng.integers(2, 5)))) * rng.uniform(0.5, 2.0)
    D2 = squared_distances(X)
    nearest = np.sqrt(np.where(np.eye(N, dtype=bool), np.inf, D2).min(axis=1))
    return {"D2": D2, "sigma": nearest * rng.uniform(0.5, 3.0, size=N)}


def _laplace_tiny(rng):
    """Bandwidths so small on some rows that every plain exp(-d_ij / sigma_i) is 0."""
    d = _laplace_inputs(rng)
    D2, sigma = d["D2"], d["sigma"].copy()
    nearest = np.sqrt(np.where(np.eye(len(D2), dtype=bool), np.inf, D2).min(axis=1))
    rows = rng.choice(len(D2), size=max(1, len(D2) // 3), replace=False)
    sigma[rows] = nearest[rows] / UNDERFLOW * rng.uniform(0.3, 0.9, size=len(rows))
    return [{"D2": D2, "sigma": sigma}]


homework(
    "sne.laplace_affinities",
    function="laplace_affinities",
    signature="def laplace_affinities(D2, sigma):",
    docstring=r"""Conditional affinities with a Laplace (exponential) kernel, for any bandwidth.

D2 : (N, N) squared distances. sigma : (N,) bandwidths sigma_i > 0, some of them tiny.
Returns P, (N, N): p_{j|i} = exp(-d_ij / sigma_i) / sum_{k != i} exp(-d_ik / sigma_i) with the
distance d_ij = sqrt(D2_ij), and p_{i|i} = 0; row i is the distribution p_{.|i}. No row may
come out as NaN, however small sigma_i is.""",
    make_inputs=_laplace_inputs,
    extra_cases=_laplace_tiny,
    compare=compare_close,
    tolerance=lambda inputs, expected: max(tol_direct(len(inputs["D2"])), 1e-9),
    outputs=("P_cond",),
    shapes=lambda inputs: [inputs["D2"].shape],
    properties=(sums_to(1, 1, name="P"), zero_diagonal(name="P"), in_range(0, 1)),
    nan_hint="rows of P are 0/0: with a small sigma_i every exp(-d_ij / sigma_i) of the row "
             "underflows to 0. Which shift of a row's exponents leaves its ratios unchanged "
             "and keeps its largest term representable?",
    mistakes=(
        Mistake("transposed", derive=lambda expected, inputs: expected[0].T,
                diagnosis="P is transposed: row i must hold the distribution p_{.|i}."),
    ),
)


def _laplace_search_inputs(rng):
    d = _laplace_inputs(rng)
    return {"D2": d["D2"], "perplexity": float(np.round(rng.uniform(3, len(d["D2"]) / 3), 2))}


def _laplace_reaches(answer, inputs, tol):
    sigma = answer[0]
    if sigma.shape != (len(inputs["D2"]),) or not np.all(sigma > 0):
        return False, "some sigma_i <= 0"
    try:
        P = PrivateReference("sne.laplace_affinities")(D2=inputs["D2"], sigma=sigma)
    except ReferenceUnavailable:
        return True, ""  # tested when graded (it needs the affinities of the question above)
    P = np.asarray(P, dtype=float)
    H = -(P * np.log2(np.where(P > 0, P, 1.0))).sum(axis=1)
    return perplexity_miss(2.0**H, inputs["perplexity"])


homework(
    "sne.laplace_bandwidths",
    depends_on=("sne.laplace_affinities",),
    function="laplace_bandwidths",
    signature="def laplace_bandwidths(D2, perplexity):",
    docstring=r"""The bandwidths sigma_i of the Laplace kernel that give each row a perplexity.

D2 : (N, N) squared distances. perplexity : float, 1 < perplexity < N - 1.
With p_{.|i} the Laplace affinities of laplace_affinities, find sigma_i so that 2 ** H_i =
perplexity, H_i = -sum_j p_{j|i} log2 p_{j|i}. Returns sigma, (N,), to a relative 1e-4.""",
    make_inputs=_laplace_search_inputs,
    compare=compare_close,
    tolerance=lambda inputs, expected: SIGMA_RTOL,
    outputs=("sigma",),
    shapes=lambda inputs: [(len(inputs["D2"]),)],
    properties=(Property("each row reaches the perplexity (0.1%)", _laplace_reaches,
                         hint="the search stops at the wrong perplexity: compare 2 ** H_i "
                              "(H_i in bits) with exactly the perplexity you were given; the "
                              "line above says which way the rows miss."),),
)


# --- t-SNE: the gradient of the other KL divergence --------------------------------------------

def _reverse_inputs(rng):
    N = int(rng.integers(6, 14))
    A = rng.uniform(0.2, 1.0, size=(N, N))
    P = A + A.T
    np.fill_diagonal(P, 0.0)
    return {"Z": rng.normal(size=(N, 2)) * rng.uniform(0.5, 2.0), "P": P / P.sum()}


def _student_q(Z):
    W = 1.0 / (1.0 + squared_distances(Z))
    np.fill_diagonal(W, 0.0)
    return W / W.sum()


def _reverse_kl(Z, P):
    """KL(Q || P) = sum_{i != j} q_ij log(q_ij / p_ij), the objective as stated."""
    Q = _student_q(Z)
    off = ~np.eye(len(Z), dtype=bool)
    return float((Q[off] * np.log(Q[off] / P[off])).sum())


def _forward_gradient(Z, P):
    Q = _student_q(Z)
    W = 1.0 / (1.0 + squared_distances(Z))
    M = (P - Q) * W
    np.fill_diagonal(M, 0.0)
    return 4.0 * (M.sum(axis=1)[:, None] * Z - M @ Z)


homework(
    "sne.reverse_kl_gradient",
    function="reverse_kl_gradient",
    signature="def reverse_kl_gradient(Z, P):",
    docstring=r"""The gradient of the OTHER Kullback-Leibler divergence, KL(Q || P), for t-SNE's Q.

Z : (N, d) embedding. P : (N, N) joint affinities, every p_ij > 0 off the diagonal, sum 1.
q_ij = w_ij / sum_{k != l} w_kl with w_ij = (1 + ||z_i - z_j||^2)^-1. The objective is
C(Z) = sum_{i != j} q_ij log(q_ij / p_ij) (it punishes the opposite mistakes to t-SNE's).
Returns dC/dZ, (N, d). Derive it: dC/dq_ij first, then through the normalisation of Q.""",
    make_inputs=_reverse_inputs,
    compare=compare_close,
    tolerance=lambda inputs, expected: max(1e-10, tol_direct(len(inputs["Z"]))),
    outputs=("grad",),
    shapes=lambda inputs: [inputs["Z"].shape],
    properties=(_fd_property(_reverse_kl, "Z", "KL(Q || P)"),),
    mistakes=(
        Mistake("forward KL", _forward_gradient,
                "that is the gradient of t-SNE's KL(P || Q): here the divergence is weighted "
                "by Q, so q_ij (and its logarithm) enters every term."),
        Mistake("sign", derive=lambda expected, inputs: -expected[0],
                diagnosis="the sign is flipped: that is the descent direction -grad."),
    ),
)


# --- UMAP: the attraction, and its a = b = 1 limit ---------------------------------------------

def _umap_inputs(rng):
    N = int(rng.integers(6, 14))
    A = rng.uniform(size=(N, N)) * (rng.uniform(size=(N, N)) < 0.5)
    V = np.maximum(A, A.T)
    np.fill_diagonal(V, 0.0)
    a, b = float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.6, 1.2))
    return {"Z": rng.normal(size=(N, 2)) * rng.uniform(0.5, 2.0), "V": V, "a": a, "b": b}


def _umap_limit(rng):
    """The case a = b = 1, every time."""
    return [dict(_umap_inputs(rng), a=1.0, b=1.0)]


def _umap_attraction_loss(Z, V, a, b):
    """C(Z) = -sum_{i != j} v_ij log phi_ij, phi_ij = 1 / (1 + a ||z_i - z_j||^(2b))."""
    D2 = squared_distances(Z)
    off = ~np.eye(len(Z), dtype=bool)
    return float((V[off] * np.log1p(a * D2[off] ** b)).sum())


homework(
    "umap.attraction_gradient",
    conceal=True,
    function="umap_attraction_gradient",
    signature="def umap_attraction_gradient(Z, V, a, b):",
    docstring=r"""The gradient of UMAP's attractive term, and what it becomes for a = b = 1.

Z : (N, d) embedding. V : (N, N) symmetric fuzzy memberships v_ij in [0, 1], zero diagonal.
a, b : floats > 0. With phi_ij = 1 / (1 + a ||z_i - z_j||^(2b)), the attractive part of
UMAP's cross-entropy is C(Z) = -sum_{i != j} v_ij log phi_ij. Returns dC/dZ, (N, d). Then set
a = b = 1: which kernel is phi, and which part of the t-SNE gradient has the same form?""",
    make_inputs=_umap_inputs,
    extra_cases=_umap_limit,
    compare=compare_close,
    tolerance=lambda inputs, expected: max(1e-10, tol_direct(len(inputs["Z"]))),
    outputs=("grad",),
    shapes=lambda inputs: [inputs["Z"].shape],
    properties=(_fd_property(_umap_attraction_loss, "Z", "the attractive term"),
                Property("the forces add up to zero (each pair pulls equally and oppositely)",
                         lambda a, i, tol: (bool(np.allclose(a[0].sum(axis=0), 0, atol=1e-8 * max(
                             float(np.abs(a[0]).max()), 1e-12))), "they do not"))),
)
