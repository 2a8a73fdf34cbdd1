"""The instructor's reference answers of the graded homework (never published, never shipped).

The grader reads this file from the folder the instructor gives (``--solutions DIR``, or the
environment variable ``MLNOTES_HOMEWORK_SOLUTIONS``; in a source checkout that holds it, this
folder): ``REFERENCES`` maps each graded question to its reference answer, called with the
question's inputs as keyword arguments; ``MISTAKES`` adds the likely mistakes whose wrong answers
would show the right one. Every reference is written from the derivation with numpy, never with
mlnotes (whose functions the chapters build); the tests check each one against central finite
differences, brute force, or an independent route.
"""

import numpy as np

from mlnotes.homework.core import Mistake


def _squared_distances(A, B=None):
    B = A if B is None else B
    D2 = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2 * A @ B.T
    D2 = np.maximum(D2, 0.0)
    if B is A:
        D2 = (D2 + D2.T) / 2
        np.fill_diagonal(D2, 0.0)
    return D2


def _pull(M, Z):
    """Row i: sum_j m_ij (z_i - z_j)."""
    return M.sum(axis=1)[:, None] * Z - M @ Z


# --- spectral -----------------------------------------------------------------------------------


def weighted_double_center(D2, w, *, transpose_side=False, one_side=False):
    """K = -1/2 A D2 A^T with A = I - 1 w^T: (A x)_i = x_i - sum_j w_j x_j."""
    A = np.eye(len(D2)) - np.outer(np.ones(len(D2)), w)
    if transpose_side:
        A = A.T
    return -0.5 * A @ D2 if one_side else -0.5 * A @ D2 @ A.T


def cauchy_weights(G, t, *, square=True):
    d = np.where(np.isfinite(G), G, 0.0)
    W = np.where(
        np.isfinite(G), 1.0 / (1.0 + (d**2 if square else d) / t), 0.0
    )
    np.fill_diagonal(W, 0.0)
    return W


def path_spectrum(N, m, *, cancelling=False, cycle=False, zero=False):
    """lambda_j = 2 - 2 cos(pi j / N) = 4 sin^2(pi j / 2N), j = 1 .. m (the stable form)."""
    j = np.arange(0 if zero else 1, m + (0 if zero else 1), dtype=float)
    x = np.pi * j / N * (2.0 if cycle else 1.0)
    return 2.0 - 2.0 * np.cos(x) if cancelling else 4.0 * np.sin(x / 2) ** 2


def m_times_ones(W):
    """M 1 = (I - W)^T (I - W) 1 = (I - W)^T (1 - W 1)."""
    return (np.eye(len(W)) - W).T @ (1.0 - W.sum(axis=1))


def trivial_eigenvectors(W):
    """L_rw v = 0 iff L v = 0 iff v is constant on each connected component."""
    from scipy.sparse.csgraph import connected_components

    n, labels = connected_components(W > 0, directed=False)
    V = (labels[:, None] == np.arange(n)[None, :]).astype(float)
    return V / np.linalg.norm(V, axis=0)


# --- embeddings ---------------------------------------------------------------------------------


def feature_space_error(
    k_new, K_new, K, n_components, *, centre_self=True, scale=True
):
    """||phi~(y)||^2 - ||P_d phi~(y)||^2 with phi~ centred at the training mean."""
    N = len(K)
    C = np.eye(N) - 1.0 / N
    lam, V = np.linalg.eigh(C @ K @ C)
    idx = np.argsort(lam)[::-1][:n_components]
    alpha = V[:, idx] / (np.sqrt(lam[idx]) if scale else 1.0)
    K_new_c = (
        K_new
        - K.mean(axis=0)[None, :]
        - K_new.mean(axis=1)[:, None]
        + K.mean()
    )
    Z = K_new_c @ alpha  # projections on the directions
    self_c = (
        k_new - 2 * K_new.mean(axis=1) + K.mean() if centre_self else k_new
    )
    return self_c - (Z**2).sum(axis=1)


def weighted_principal_subspace(X, w, n_components, *, weighted_mean=True):
    mean = w @ X if weighted_mean else X.mean(axis=0)
    Xc = X - mean
    S = (Xc * w[:, None]).T @ Xc  # sum_i w_i (x_i - m)(x_i - m)^T
    lam, V = np.linalg.eigh(S)
    return V[:, np.argsort(lam)[::-1][:n_components]]


def tied_autoencoder_step(X, W, b1, b2, learning_rate, *, part="both"):
    N = len(X)
    A = np.tanh(X @ W + b1)
    R = A @ W.T + b2 - X  # x_hat - x
    loss = (R**2).sum() / (2 * N)
    delta2 = R / N  # dloss / dx_hat
    delta1 = (delta2 @ W) * (1 - A**2)  # dloss / d(X W + b1)
    decoder, encoder = delta2.T @ A, X.T @ delta1  # the two places W appears
    dW = {"both": decoder + encoder, "decoder": decoder, "encoder": encoder}[
        part
    ]
    return (
        loss,
        W - learning_rate * dW,
        b1 - learning_rate * delta1.sum(0),
        b2 - learning_rate * delta2.sum(0),
    )


def linear_autoencoder_optimum(X, n_components, *, kept=False):
    """Half the discarded variance: the best rank-d affine reconstruction is PCA's."""
    Xc = X - X.mean(axis=0)
    lam = np.sort(np.linalg.eigvalsh(Xc.T @ Xc / len(X)))[::-1]
    return 0.5 * float(
        lam[:n_components].sum() if kept else lam[n_components:].sum()
    )


def dirichlet_energy(W, F):
    L = np.diag(W.sum(axis=1)) - W
    return np.einsum("ik,ij,jk->k", F, L, F)


# --- SNE, t-SNE, UMAP ---------------------------------------------------------------------------


def laplace_affinities(D2, sigma, *, squared=False):
    """p_{j|i} with each row's exponents shifted by its smallest (largest-term) exponent."""
    d = D2 if squared else np.sqrt(D2)
    off = d + np.diag(np.full(len(d), np.inf))
    E = np.exp(-(off - off.min(axis=1, keepdims=True)) / sigma[:, None])
    return E / E.sum(axis=1, keepdims=True)


def laplace_bandwidths(D2, perplexity, *, steps=200):
    """Bisection on log sigma_i: the entropy grows with sigma_i."""
    N = len(D2)
    target = np.log2(perplexity)
    lo, hi = np.full(N, -40.0), np.full(N, 40.0)
    for _ in range(steps):
        mid = (lo + hi) / 2
        P = laplace_affinities(D2, np.exp(mid))
        H = -(P * np.log2(np.where(P > 0, P, 1.0))).sum(axis=1)
        lo, hi = np.where(H < target, mid, lo), np.where(H < target, hi, mid)
    return np.exp((lo + hi) / 2)


def perplexity_limits(D2):
    """sigma -> 0: uniform on the tied nearest neighbours; sigma -> inf: uniform on N - 1."""
    N = len(D2)
    off = np.where(np.eye(N, dtype=bool), np.inf, D2)
    ties = (off == off.min(axis=1, keepdims=True)).sum(axis=1)
    return np.c_[ties, np.full(N, N - 1)].astype(float)


def tsne_forces(Z, P, *, gaussian=False, normalise=True):
    D2 = _squared_distances(Z)
    W = np.exp(-D2) if gaussian else 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum() if normalise else W
    return _pull(P * W, Z), _pull(Q * W, Z)


def reverse_kl_gradient(Z, P, *, no_constant=False):
    """dC/dz_i = -4 sum_j q_ij w_ij (log(q_ij / p_ij) - C) (z_i - z_j), C = KL(Q || P)."""
    D2 = _squared_distances(Z)
    W = 1.0 / (1.0 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    off = ~np.eye(len(Z), dtype=bool)
    log_ratio = np.zeros_like(Q)
    log_ratio[off] = np.log(Q[off] / P[off])
    C = 0.0 if no_constant else float((Q[off] * log_ratio[off]).sum())
    return -4.0 * _pull(Q * W * np.where(off, log_ratio - C, 0.0), Z)


def umap_attraction_gradient(Z, V, a, b, *, one_direction=False):
    """dC/dz_i = 2 sum_j v_ij 2ab d_ij^(2b - 2) / (1 + a d_ij^(2b)) (z_i - z_j)."""
    D2 = _squared_distances(Z)
    off = ~np.eye(len(Z), dtype=bool)
    coef = np.zeros_like(D2)
    coef[off] = 2 * a * b * D2[off] ** (b - 1) / (1 + a * D2[off] ** b)
    return (1.0 if one_direction else 2.0) * _pull(V * coef, Z)


REFERENCES = {
    "kernels.weighted_double_center": weighted_double_center,
    "eigenmaps.cauchy_weights": cauchy_weights,
    "eigenmaps.path_spectrum": path_spectrum,
    "lle.null_vector": m_times_ones,
    "eigenmaps.trivial_eigenvectors": trivial_eigenvectors,
    "kernel_pca.feature_space_error": feature_space_error,
    "pca.weighted_subspace": weighted_principal_subspace,
    "autoencoder.tied_step": tied_autoencoder_step,
    "autoencoder.linear_optimum": linear_autoencoder_optimum,
    "eigenmaps.dirichlet_energy": dirichlet_energy,
    "sne.laplace_affinities": laplace_affinities,
    "sne.laplace_bandwidths": laplace_bandwidths,
    "sne.perplexity_limits": perplexity_limits,
    "sne.tsne_forces": tsne_forces,
    "sne.reverse_kl_gradient": reverse_kl_gradient,
    "umap.attraction_gradient": umap_attraction_gradient,
}

MISTAKES = {
    "kernels.weighted_double_center": [
        Mistake(
            "transpose side",
            lambda D2, w: weighted_double_center(D2, w, transpose_side=True),
            "the two factors are swapped: with A = I - 1 w^T, the centred points are A X, "
            "so their Gram matrix is A (X X^T) A^T; check where the weights multiply.",
        ),
        Mistake(
            "one side",
            lambda D2, w: weighted_double_center(D2, w, one_side=True),
            "only one side is centred: the Gram matrix of the centred points needs the "
            "centring on both sides.",
        ),
    ],
    "eigenmaps.cauchy_weights": [
        Mistake(
            "d",
            lambda G, t: cauchy_weights(G, t, square=False),
            "used d_ij where the kernel has d_ij^2: w_ij = 1 / (1 + d_ij^2 / t).",
        ),
    ],
    "eigenmaps.path_spectrum": [
        Mistake(
            "cancelling",
            lambda N, m: path_spectrum(N, m, cancelling=True),
            "the formula is right but loses every digit for large N: 2 - 2 cos(x) "
            "subtracts two numbers that agree to ~16 digits when x is tiny. Rewrite it "
            "with a trigonometric identity that needs no subtraction.",
        ),
        Mistake(
            "cycle",
            lambda N, m: path_spectrum(N, m, cycle=True),
            "these are eigenvalues of the CYCLE (vertex N joined to vertex 1): the path's "
            "end vertices have degree 1; check your eigenvector at k = 1 and k = N.",
        ),
        Mistake(
            "zero",
            lambda N, m: path_spectrum(N, m, zero=True),
            "the eigenvalue 0 (the constant vector) is included: the question asks for "
            "the non-zero ones.",
        ),
    ],
    "lle.null_vector": [
        Mistake(
            "no transpose",
            lambda W: (np.eye(len(W)) - W) @ (1.0 - W.sum(axis=1)),
            "the outer factor is transposed in M = (I - W)^T (I - W): check which factor "
            "you applied last.",
        ),
        Mistake(
            "one factor",
            lambda W: 1.0 - W.sum(axis=1),
            "that is one factor of M applied to 1; M has two.",
        ),
        Mistake(
            "ones",
            lambda W: (np.eye(len(W)) - W).T @ np.ones(len(W)),
            "(I - W) 1 is not 1 here: the rows of W need not sum to one.",
        ),
    ],
    "kernel_pca.feature_space_error": [
        Mistake(
            "self not centred",
            lambda **kw: feature_space_error(**kw, centre_self=False),
            "k(y, y) is the squared length of phi(y), not of phi(y) - phi_bar: centre it "
            "with the training mean as you centred K_new.",
        ),
        Mistake(
            "unscaled",
            lambda **kw: feature_space_error(**kw, scale=False),
            "the projections use unit eigenvectors v_l of the centred K: the principal "
            "directions in feature space have length sqrt(lambda_l) ||alpha_l||; check "
            "their normalisation.",
        ),
    ],
    "pca.weighted_subspace": [
        Mistake(
            "plain mean",
            lambda X, w, n_components: weighted_principal_subspace(
                X, w, n_components, weighted_mean=False
            ),
            "the covariance is weighted, but the mean is not: centre at the weighted mean.",
        ),
    ],
    "autoencoder.tied_step": [
        Mistake(
            "decoder only",
            lambda **kw: tied_autoencoder_step(**kw, part="decoder"),
            "W was updated as a decoder only: it is also the encoder, and its gradient "
            "adds the two parts.",
        ),
        Mistake(
            "encoder only",
            lambda **kw: tied_autoencoder_step(**kw, part="encoder"),
            "W was updated as an encoder only: it is also the decoder, and its gradient "
            "adds the two parts.",
        ),
    ],
    "autoencoder.linear_optimum": [
        Mistake(
            "kept",
            lambda X, n_components: linear_autoencoder_optimum(
                X, n_components, kept=True
            ),
            "that is the share the d hidden units keep; the loss is what they lose.",
        ),
    ],
    "sne.laplace_affinities": [
        Mistake(
            "squared",
            lambda D2, sigma: laplace_affinities(D2, sigma, squared=True),
            "used the squared distance: the Laplace kernel is exp(-d_ij / sigma_i) with "
            "d_ij = sqrt(D2_ij).",
        ),
    ],
    "sne.tsne_forces": [
        Mistake(
            "gaussian",
            lambda Z, P: tsne_forces(Z, P, gaussian=True),
            "w_ij is the Student-t kernel (1 + ||z_i - z_j||^2)^-1, not a Gaussian.",
        ),
        Mistake(
            "unnormalised q",
            lambda Z, P: tsne_forces(Z, P, normalise=False),
            "the repulsion uses q_ij, the normalised kernel, not w_ij.",
        ),
    ],
    "sne.reverse_kl_gradient": [
        Mistake(
            "no constant",
            lambda Z, P: reverse_kl_gradient(Z, P, no_constant=True),
            "a term from the normalisation of Q is missing: differentiating q_kl = w_kl / "
            "sum w brings in the sum over all pairs of q log(q / p) + q; carry it through.",
        ),
    ],
    "umap.attraction_gradient": [
        Mistake(
            "one direction",
            lambda **kw: umap_attraction_gradient(**kw, one_direction=True),
            "half the gradient: z_i appears in the pair (i, j) AND in the pair (j, i).",
        ),
    ],
}
