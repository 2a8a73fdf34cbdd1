"""Pieces shared by the question bank: properties, comparisons, input helpers."""

import numpy as np

from ..compare import eigvec_error, procrustes_error, relative_error, tol_direct
from ..core import Property


def dense(A, fill=0.0):
    """A scipy.sparse matrix (or an array) as a dense float64 array, ``fill`` where no entry."""
    if hasattr(A, "tocoo"):
        coo = A.tocoo()
        out = np.full(coo.shape, float(fill))
        if coo.shape[0] == coo.shape[1]:
            np.fill_diagonal(out, 0.0)
        out[coo.row, coo.col] = coo.data
        return out
    return np.asarray(A, dtype=np.float64)


def graph_csr(G):
    """A dense graph of edge lengths (``inf`` = no edge) as scipy CSR (a missing entry = no edge)."""
    from scipy.sparse import csr_matrix

    G = np.asarray(G, dtype=np.float64)
    edges = np.isfinite(G) & ~np.eye(len(G), dtype=bool)
    rows, cols = np.nonzero(edges)
    return csr_matrix((G[rows, cols], (rows, cols)), shape=G.shape)


def weights_csr(W):
    from scipy.sparse import csr_matrix

    return csr_matrix(np.asarray(W, dtype=np.float64))


def normalise_graph(arrays):
    """Both conventions for "no edge" (0 or inf off the diagonal) become ``inf``."""
    G = np.array(arrays[0], dtype=np.float64)
    if G.ndim == 2 and G.shape[0] == G.shape[1]:
        off = ~np.eye(len(G), dtype=bool)
        G[off & (G == 0)] = np.inf
    return (G,) + tuple(arrays[1:])


def squared_distances(X, Y=None):
    Y = X if Y is None else Y
    D2 = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2 * X @ Y.T
    D2 = np.maximum(D2, 0.0)
    if Y is X:
        D2 = (D2 + D2.T) / 2
        np.fill_diagonal(D2, 0.0)
    return D2


def anisotropic_points(rng, n, dims, *, spread=(3.0, 2.0, 1.0, 0.5, 0.25)):
    """Gaussian points whose axes have distinct variances (so eigenvalues are well separated)."""
    scales = np.array(spread[:dims]) * rng.uniform(0.9, 1.1, size=dims)
    return rng.normal(size=(n, dims)) * scales


def curve_points(rng, n, *, noise=0.05):
    """Points along a noisy 3-D helix arc: neighbourhood graphs with long shortest paths."""
    t = np.sort(rng.uniform(0, 3 * np.pi, size=n))
    X = np.c_[np.cos(t), np.sin(t), 0.3 * t] + noise * rng.normal(size=(n, 3))
    return X[rng.permutation(n)]


def connected(G):
    """Whether the graph (dense edge lengths, inf = no edge; or weights, 0 = no edge) is connected."""
    from scipy.sparse.csgraph import connected_components

    A = np.isfinite(G) & (G != 0)
    return connected_components(A, directed=False)[0] == 1


def rbf(X, Y=None, gamma=None):
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    return np.exp(-gamma * squared_distances(X, Y))


def knn_lengths(X, n_neighbors, *, include_self=False, mode="or", square=False):
    """Dense kNN graph of edge lengths (inf = no edge), with the slips a student might make."""
    D2 = squared_distances(X)
    N = len(X)
    order = np.argsort(D2 + np.where(include_self, 0.0, np.diag(np.full(N, np.inf))), axis=1)
    A = np.zeros((N, N), dtype=bool)
    A[np.repeat(np.arange(N), n_neighbors), order[:, :n_neighbors].ravel()] = True
    A = {"or": A | A.T, "and": A & A.T, "directed": A}[mode]
    np.fill_diagonal(A, False)
    L = D2 if square else np.sqrt(D2)
    G = np.where(A, L, np.inf)
    np.fill_diagonal(G, 0.0)
    return G


def bottom_eigvecs(A, k, skip, B=None, largest=False):
    """Eigenvectors skip .. skip + k of A v = lambda B v (smallest first, or largest)."""
    from scipy.linalg import eigh

    lam, V = eigh(A, B)
    idx = np.argsort(lam)[::-1] if largest else np.argsort(lam)
    return V[:, idx[skip:skip + k]]


# --- tolerances -------------------------------------------------------------------------------

def tol_by_size(key):
    """``tolerance(inputs, expected)`` for a closed-form formula on the ``N x N`` input ``key``."""
    return lambda inputs, expected: tol_direct(np.shape(inputs[key])[0])


def fixed_tolerance(tol):
    return lambda inputs, expected: tol


# --- comparisons ------------------------------------------------------------------------------

def error_text(err, tol, how=""):
    """``relative error 3.1e-02, tolerance 1e-10`` (``how``: after what alignment); an infinite
    error (infinities where the reference has numbers, or the reverse) in words."""
    if not np.isfinite(err):
        return ("some entries are infinite where the reference's are finite, or the reverse"
                if not how else f"no finite error {how}: some entries are not finite")
    return f"relative error {err:.1e}{' ' + how if how else ''}, tolerance {tol:.0e}"


def compare_close(answer, expected, inputs, tol):
    """Every output within ``tol`` relative (Frobenius) error of the reference."""
    err = max(relative_error(a, e) for a, e in zip(answer, expected, strict=False))
    return err <= tol, error_text(err, tol)


def compare_eigvecs(eigenvalues_of):
    """Columns equal up to sign (and rotation inside a repeated eigenvalue)."""
    def compare(answer, expected, inputs, tol):
        err = eigvec_error(answer[0], expected[0], eigenvalues_of(inputs, expected[0]))
        return err <= tol, error_text(err, tol, "after fixing each column's sign")
    return compare


def compare_procrustes(answer, expected, inputs, tol):
    err = procrustes_error(answer[0], expected[0])
    return err <= tol, error_text(err, tol, "after the best rotation")


# --- properties -------------------------------------------------------------------------------

def _scale(A):
    finite = A[np.isfinite(A)]
    return max(float(np.abs(finite).max(initial=0.0)), 1e-300)


def symmetric(k=0, name="the matrix"):
    def test(answer, inputs, tol):
        A = answer[k]
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            return False, "not square"
        finite = np.isfinite(A) & np.isfinite(A.T)
        same_pattern = np.array_equal(np.isfinite(A), np.isfinite(A.T))
        Af = np.where(finite, A, 0.0)
        asym = float(np.abs(Af - Af.T).max(initial=0.0)) / _scale(A)
        return same_pattern and asym <= tol, f"largest |A - A^T| is {asym:.1e} of the largest entry"
    return Property(f"{name} is symmetric", test)


def sums_to(value, axis, k=0, name="the matrix", hint=""):
    word = {1: "row", 0: "column"}[axis]

    def test(answer, inputs, tol):
        A = answer[k]
        sums = A.sum(axis=axis)
        worst = float(np.abs(sums - value).max(initial=0.0))
        bound = tol * max(_scale(A) * np.sqrt(A.shape[axis]), abs(value))
        return worst <= bound, f"a {word} sums to {sums[np.argmax(np.abs(sums - value))]:.3g}"
    return Property(f"each {word} of {name} sums to {value:g}", test, hint)


def zero_diagonal(k=0, name="the matrix"):
    def test(answer, inputs, tol):
        d = np.diag(answer[k])
        worst = float(np.abs(d).max(initial=0.0))
        return worst <= tol * _scale(answer[k]), f"largest diagonal entry {worst:.3g}"
    return Property(f"the diagonal of {name} is zero", test)


def total_sum(value, k=0, name="the matrix"):
    def test(answer, inputs, tol):
        s = float(answer[k].sum())
        return abs(s - value) <= tol * max(1.0, answer[k].size ** 0.5), f"it sums to {s:.6g}"
    return Property(f"{name} sums to {value:g}", test)


def in_range(lo, hi, k=0, name="every entry"):
    def test(answer, inputs, tol):
        A = answer[k]
        ok = bool(np.all((A >= lo - tol) & (A <= hi + tol)))
        return ok, f"entries range over [{A.min():.3g}, {A.max():.3g}]"
    return Property(f"{name} lies in [{lo:g}, {hi:g}]", test)


def psd(k=0, name="the matrix"):
    def test(answer, inputs, tol):
        A = answer[k]
        lam = np.linalg.eigvalsh((A + A.T) / 2)
        ok = lam.min() >= -max(tol, 1e-10) * max(abs(lam).max(), 1e-300)
        return ok, f"smallest eigenvalue {lam.min():.3g}"
    return Property(f"{name} is positive semidefinite", test)


# --- the registry -------------------------------------------------------------------------------

BANK = {}


def register(question):
    """Add ``question`` to the bank (each module of the bank registers its questions)."""
    if question.name in BANK:
        raise ValueError(f"question {question.name!r} is defined twice")
    BANK[question.name] = question
    return question
