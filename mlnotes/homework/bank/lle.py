"""Questions on locally linear embedding: the reconstruction weights, the alignment matrix and
the embedding from its bottom eigenvectors."""

import numpy as np

from ...lle import alignment_matrix as _alignment_matrix
from ...lle import lle_weights as _lle_weights
from ...spectral import bottom_eigenpairs as _bottom_eigenpairs
from ..compare import tol_eigvecs, tol_solve
from ..core import Mistake, Property, Question
from ._common import (
    bottom_eigvecs,
    compare_close,
    compare_eigvecs,
    curve_points,
    dense,
    psd,
    register,
    squared_distances,
    sums_to,
    symmetric,
    tol_by_size,
    weights_csr,
    zero_diagonal,
)

# Smallest relative gap between wanted and unwanted eigenvalues in generated inputs.
EIGENGAP = 1e-4


# --- LLE weights -------------------------------------------------------------------------------

def _lle_inputs(rng):
    N = int(rng.integers(15, 30))
    return {"X": rng.normal(size=(N, 3)), "n_neighbors": int(rng.integers(5, 8)),
            "reg": float(10.0 ** rng.uniform(-3, -2))}


def _lle_mutant(X, n_neighbors, reg, *, scaled=True, normalise=True, self_=False, transpose=False):
    N = len(X)
    D2 = squared_distances(X)
    if not self_:
        np.fill_diagonal(D2, np.inf)
    W = np.zeros((N, N))
    for i in range(N):
        nb = np.argsort(D2[i])[:n_neighbors]
        Zi = X[nb] - X[i]          # neighbours relative to x_i
        Gi = Zi @ Zi.T             # local Gram matrix
        Gi = Gi + reg * (np.trace(Gi) if scaled else 1.0) * np.eye(n_neighbors)
        w = np.linalg.solve(Gi, np.ones(n_neighbors))
        W[i, nb] = w / w.sum() if normalise else w
    return W.T if transpose else W


def _unconstrained(X, n_neighbors, reg):
    """Plain (ridge) least squares x_i ~ sum_j w_ij x_j, without the sum-to-one constraint."""
    N = len(X)
    D2 = squared_distances(X)
    np.fill_diagonal(D2, np.inf)
    W = np.zeros((N, N))
    for i in range(N):
        nb = np.argsort(D2[i])[:n_neighbors]
        G = X[nb] @ X[nb].T
        W[i, nb] = np.linalg.solve(G + reg * np.trace(G) * np.eye(n_neighbors), X[nb] @ X[i])
    return W


def _lle_tolerance(inputs, expected):
    X, k, reg = inputs["X"], inputs["n_neighbors"], inputs["reg"]
    D2 = squared_distances(X)
    np.fill_diagonal(D2, np.inf)
    worst = 1.0
    for i in range(len(X)):
        Zi = X[np.argsort(D2[i])[:k]] - X[i]
        Gi = Zi @ Zi.T
        worst = max(worst, np.linalg.cond(Gi + reg * np.trace(Gi) * np.eye(k)))
    return tol_solve(k, worst)


def _on_neighbours(answer, inputs, tol):
    W = answer[0]
    D2 = squared_distances(inputs["X"])
    np.fill_diagonal(D2, np.inf)
    k = inputs["n_neighbors"]
    allowed = np.zeros_like(W, dtype=bool)
    nb = np.argsort(D2, axis=1)[:, :k]
    allowed[np.repeat(np.arange(len(W)), k), nb.ravel()] = True
    return bool(np.all(W[~allowed] == 0)), "a weight sits outside the k nearest neighbours"


register(Question(
    name="lle.weights",
    function="lle_weights",
    signature="def lle_weights(X, n_neighbors, reg):",
    docstring=r"""LLE reconstruction weights.

X : (N, p) data. n_neighbors : int k (the point itself is not its own neighbour).
reg : float, regularisation. For each i, with Z_i the k neighbours minus x_i (k x D) and
G_i = Z_i Z_i^T, solve (G_i + reg * trace(G_i) * I) w = 1 and rescale w to sum to 1.
Returns the (N, N) array W with row i holding w on i's neighbours, 0 elsewhere.
(A scipy.sparse matrix is accepted too.)""",
    make_inputs=_lle_inputs,
    reference=lambda X, n_neighbors, reg: dense(_lle_weights(X, n_neighbors, reg=reg)),
    compare=compare_close,
    tolerance=_lle_tolerance,
    outputs=("W",),
    properties=(sums_to(1, 1, name="W", hint=(
        "the rows of W do not sum to one: LLE's weights minimise the reconstruction error "
        "UNDER the constraint sum_j w_ij = 1 (which makes them invariant to translations); "
        "plain least squares ignores it. Work with the neighbours relative to x_i.")),
        zero_diagonal(name="W"),
                Property("weights sit only on each point's k nearest neighbours",
                         _on_neighbours)),
    mistakes=(
        Mistake("unscaled reg", lambda **kw: _lle_mutant(**kw, scaled=False),
                "the regulariser must be scaled by the local Gram matrix: add "
                "reg * trace(G_i) * I (so that it does not depend on the data's units)."),
        Mistake("no reg", lambda X, n_neighbors, reg: _lle_mutant(X, n_neighbors, 1e-13),
                "missing regularisation: with more neighbours than dimensions G_i is "
                "singular; add reg * trace(G_i) * I before solving."),
        Mistake("least squares", _unconstrained,
                "plain least squares x_i ~ sum_j w_ij x_j, without the constraint "
                "sum_j w_ij = 1: LLE's weights are constrained (that makes them invariant to "
                "translations); with the neighbours relative to x_i the constraint gives "
                "G_i w = lambda 1."),
        Mistake("unnormalised", lambda **kw: _lle_mutant(**kw, normalise=False),
                "the weights must sum to one: divide each row's solution by its sum."),
        Mistake("self", lambda **kw: _lle_mutant(**kw, self_=True),
                "the point itself is among its neighbours: skip it (distance 0) and take the "
                "next k."),
        Mistake("transposed", lambda **kw: _lle_mutant(**kw, transpose=True),
                "W is transposed: row i must hold the weights that reconstruct x_i."),
    ),
))


# --- LLE alignment matrix ----------------------------------------------------------------------

def _alignment_inputs(rng):
    return {"W": _lle_mutant(**_lle_inputs(rng))}


def _I_minus(W):
    return np.eye(len(W)) - W


register(Question(
    name="lle.alignment_matrix",
    function="alignment_matrix",
    signature="def alignment_matrix(W):",
    docstring=r"""The LLE alignment matrix M = (I - W)^T (I - W).

W : (N, N) reconstruction weights, rows summing to 1. Returns M, (N, N).""",
    make_inputs=_alignment_inputs,
    reference=lambda W: dense(_alignment_matrix(weights_csr(W))),
    compare=compare_close,
    tolerance=tol_by_size("W"),
    outputs=("M",),
    properties=(symmetric(name="M"), sums_to(0, 1, name="M"), psd(name="M")),
    mistakes=(
        Mistake("wrong side", lambda W: _I_minus(W) @ _I_minus(W).T,
                "the transpose is on the wrong side: M = (I - W)^T (I - W), so that "
                "z^T M z = sum_i ||z_i - sum_j w_ij z_j||^2."),
        Mistake("no WtW", lambda W: np.eye(len(W)) - W - W.T,
                "the W^T W term is missing: (I - W)^T (I - W) = I - W - W^T + W^T W."),
        Mistake("square", lambda W: _I_minus(W) @ _I_minus(W),
                "(I - W)(I - W) is not (I - W)^T (I - W): transpose the first factor."),
    ),
))


# --- the embedding --------------------------------------------------------------------------------

def _lle_embedding_inputs(rng):
    while True:  # a clear gap around the wanted eigenvalues (else any basis is right)
        d = _lle_inputs(rng)
        d["X"] = curve_points(rng, len(d["X"]), noise=0.1)
        W = _lle_mutant(**d)
        M = _I_minus(W).T @ _I_minus(W)
        lam = np.linalg.eigvalsh(M)
        if min(lam[1] - lam[0], lam[3] - lam[2]) > EIGENGAP * lam[-1]:
            return {"M": M, "n_components": 2}


def _rayleigh(inputs, Z, A_key):
    A = inputs[A_key]
    return np.einsum("ij,ik,kj->j", Z, A, Z) / np.einsum("ij,ij->j", Z, Z)


register(Question(
    name="lle.embedding",
    function="lle_embedding",
    signature="def lle_embedding(M, n_components):",
    docstring=r"""The LLE embedding from the alignment matrix.

M : (N, N) alignment matrix (symmetric, positive semidefinite, M 1 = 0).
n_components : int d. Returns Z, (N, d): the unit-norm eigenvectors of the 2nd to (d+1)-th
smallest eigenvalues of M (the smallest, the constant vector, is skipped); column signs are
free.""",
    make_inputs=_lle_embedding_inputs,
    reference=lambda M, n_components: _bottom_eigenpairs(M, n_components, skip=1)[1],
    compare=compare_eigvecs(lambda inputs, Z: _rayleigh(inputs, Z, "M")),
    tolerance=lambda inputs, expected: tol_eigvecs(
        inputs["M"], np.linalg.eigvalsh(inputs["M"]), inputs["n_components"], skip=1,
        largest=False),
    outputs=("Z",),
    properties=(Property("columns are orthonormal", lambda a, i, tol: (
        bool(np.allclose(a[0].T @ a[0], np.eye(a[0].shape[1]), atol=max(tol, 1e-8))),
        "Z^T Z is not the identity")),),
    mistakes=(
        Mistake("constant kept", lambda M, n_components: bottom_eigvecs(M, n_components, 0),
                "off by one: the first column is the constant eigenvector (eigenvalue 0); "
                "skip it and take the next L."),
        Mistake("skip two", lambda M, n_components: bottom_eigvecs(M, n_components, 2),
                "off by one: one eigenvector too many was skipped; skip only the constant "
                "one."),
        Mistake("largest", lambda M, n_components: bottom_eigvecs(M, n_components, 0, largest=True),
                "these are eigenvectors of the largest eigenvalues: LLE minimises "
                "tr(Z^T M Z), so take the smallest (after the constant one)."),
        Mistake("rows", lambda M, n_components: np.linalg.eigh(M)[1][1:n_components + 1].T,
                "the eigenvectors were taken as rows: np.linalg.eigh returns them as the "
                "COLUMNS of its second output (V[:, j] belongs to eigenvalue j)."),
        Mistake("sqrt N", lambda M, n_components: np.sqrt(len(M)) * bottom_eigvecs(
            M, n_components, 1),
            "the columns are scaled by sqrt(N) (the notes' Z^T Z = N I): the question asks "
            "for unit-norm eigenvectors."),
    ),
))
