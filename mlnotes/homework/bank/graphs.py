"""Questions on neighbourhood graphs and the matrices built on them: kNN graph, Floyd-Warshall,
heat-kernel weights, graph Laplacians, LLE weights and alignment matrix, bottom-eigenvector
embeddings.

Graphs given to (and accepted from) students are dense ``(N, N)`` arrays of edge lengths with
``np.inf`` where there is no edge and 0 on the diagonal; a scipy.sparse answer is accepted too
(a missing entry is no edge). Weight matrices are dense with 0 where there is no edge.
"""

import numpy as np

from ...eigenmaps import heat_kernel_weights as _heat_kernel_weights
from ...eigenmaps import laplacian as _laplacian
from ...graphs import floyd_warshall as _floyd_warshall
from ...graphs import knn_graph as _knn_graph
from ...lle import alignment_matrix as _alignment_matrix
from ...lle import lle_weights as _lle_weights
from ...spectral import bottom_eigenpairs as _bottom_eigenpairs
from ..compare import relative_error, tol_eigvecs, tol_solve
from ..core import Mistake, Property, Question, register
from ._common import (
    compare_close,
    compare_eigvecs,
    connected,
    curve_points,
    dense,
    graph_csr,
    normalise_graph,
    psd,
    squared_distances,
    sums_to,
    symmetric,
    tol_by_size,
    weights_csr,
    zero_diagonal,
)

# Smallest relative gap between wanted and unwanted eigenvalues in generated inputs.
EIGENGAP = 1e-4
# Generated graphs make the classic Floyd-Warshall bug at least this wrong (relative error).
VISIBLE_ERROR = 1e-3


# --- kNN graph ---------------------------------------------------------------------------------

def _knn_inputs(rng):
    N = int(rng.integers(12, 30))
    return {"X": rng.normal(size=(N, int(rng.integers(2, 4)))),
            "n_neighbors": int(rng.integers(2, 6))}


def _knn_mutant(X, n_neighbors, *, include_self=False, mode="or", square=False):
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


def _adjacency(G):
    """1 on the edges of G, 0 elsewhere."""
    return (np.isfinite(G) & (G > 0)).astype(float)


def _at_least_k(answer, inputs, tol):
    G = answer[0]
    degrees = (np.isfinite(G) & (G > 0)).sum(axis=1)
    return bool(np.all(degrees >= inputs["n_neighbors"])), f"a point has {degrees.min()} edges"


register(Question(
    name="graphs.knn_graph",
    function="knn_graph",
    signature="def knn_graph(X, n_neighbors):",
    docstring=r"""Symmetric k-nearest-neighbour graph of edge lengths.

X : (N, D) data. n_neighbors : int k.
Returns an (N, N) array G: G[i, j] = ||x_i - x_j|| when j is among the k nearest neighbours
of i OR i among those of j (a point is not its own neighbour), np.inf where there is no
edge, 0 on the diagonal. (A scipy.sparse matrix of edge lengths is accepted too.)""",
    make_inputs=_knn_inputs,
    reference=lambda X, n_neighbors: dense(_knn_graph(X, n_neighbors, mode="or"), np.inf),
    compare=compare_close,
    tolerance=tol_by_size("X"),
    outputs=("G",),
    sparse_fill=np.inf,
    normalise=normalise_graph,
    properties=(symmetric(name="G"), zero_diagonal(name="G"),
                Property("every point has at least k edges", _at_least_k)),
    mistakes=(
        Mistake("self", lambda X, n_neighbors: _knn_mutant(X, n_neighbors, include_self=True),
                "off by one: each point is its own nearest neighbour (distance 0); skip it "
                "and take the next k."),
        Mistake("directed", lambda X, n_neighbors: _knn_mutant(X, n_neighbors, mode="directed"),
                "not symmetrised: keep the edge i-j when j is among i's neighbours OR i is "
                "among j's."),
        Mistake("mutual", lambda X, n_neighbors: _knn_mutant(X, n_neighbors, mode="and"),
                "kept only mutual neighbours (AND): the graph asked for joins i and j when "
                "either is among the other's k nearest (OR)."),
        Mistake("squared", lambda X, n_neighbors: _knn_mutant(X, n_neighbors, square=True),
                "edge lengths are squared distances: use the distances ||x_i - x_j||."),
        Mistake("adjacency", lambda X, n_neighbors: _adjacency(_knn_mutant(X, n_neighbors)),
                "that is the 0/1 adjacency matrix: G holds the edge LENGTHS ||x_i - x_j|| "
                "(np.inf where there is no edge)."),
    ),
))


# --- Floyd-Warshall ----------------------------------------------------------------------------

def _floyd_inputs(rng):
    while True:  # long enough paths that the classic loop-order bug shows
        G = _knn_mutant(curve_points(rng, int(rng.integers(14, 26))), 3)
        if relative_error(_floyd_wrong_order(G), _floyd(G)) > VISIBLE_ERROR:
            return {"G": G}


def _floyd(G, *, zero_gaps=False):
    D = np.where(np.isinf(G), 0.0, G) if zero_gaps else G.copy()
    for k in range(len(D)):  # d(i, j) <- min(d(i, j), d(i, k) + d(k, j)), pivot k outermost
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return D


def _floyd_wrong_order(G):
    """The classic bug: the intermediate vertex k in the innermost loop."""
    D = G.copy()
    N = len(D)
    for i in range(N):
        for j in range(N):
            for k in range(N):
                D[i, j] = min(D[i, j], D[i, k] + D[k, j])
    return D


def _floyd_one_pass(G):
    return np.minimum(G, (G[:, :, None] + G[None, :, :]).min(axis=1))


def _no_longer_than_edges(answer, inputs, tol):
    G = inputs["G"]
    D = answer[0]
    ok = np.all(D <= G * (1 + tol) + tol)
    return bool(ok), "some distance is longer than the direct edge"


def _triangle(answer, inputs, tol):
    D = answer[0]
    via = (D[:, :, None] + D[None, :, :]).min(axis=1)
    finite = np.isfinite(D)
    ok = np.all(~finite | (D <= via * (1 + tol) + tol))
    return bool(ok), "d(i, j) > d(i, k) + d(k, j) for some k"


register(Question(
    name="graphs.floyd_warshall",
    function="floyd_warshall",
    signature="def floyd_warshall(G):",
    docstring=r"""All shortest-path (geodesic) distances of a graph, by Floyd-Warshall.

G : (N, N) array of edge lengths, np.inf where there is no edge, 0 on the diagonal.
Returns the (N, N) array of shortest-path lengths (np.inf between disconnected points):
for each intermediate vertex k in turn, d(i, j) = min(d(i, j), d(i, k) + d(k, j)).""",
    make_inputs=_floyd_inputs,
    reference=lambda G: _floyd_warshall(graph_csr(G)),
    compare=compare_close,
    tolerance=tol_by_size("G"),
    outputs=("D_geo",),
    sparse_fill=np.inf,
    properties=(symmetric(name="the distances"), zero_diagonal(name="the distances"),
                Property("no distance is longer than the direct edge", _no_longer_than_edges),
                Property("the triangle inequality holds", _triangle)),
    mistakes=(
        Mistake("loop order", _floyd_wrong_order,
                "the loop over the intermediate vertex k must be the OUTERMOST loop; with it "
                "innermost, d(i, k) and d(k, j) are used before they are final."),
        Mistake("one pass", _floyd_one_pass,
                "only paths of at most two edges were considered: repeat the update for every "
                "intermediate vertex k, keeping the improved distances."),
        Mistake("zero gaps", lambda G: _floyd(G, zero_gaps=True),
                "a missing edge was treated as length 0: it must stay infinite."),
    ),
))


# --- heat-kernel weights -----------------------------------------------------------------------

def _heat_inputs(rng):
    X = rng.normal(size=(int(rng.integers(10, 25)), 3))
    G = _knn_mutant(X, int(rng.integers(3, 6)))
    finite = G[np.isfinite(G) & (G > 0)]
    return {"G": G, "t": float(np.median(finite) ** 2 * rng.uniform(0.5, 2.0))}


def _heat(G, t, *, power=2, scale=1.0, diagonal=0.0):
    D = np.where(np.isfinite(G), G, 0.0)
    W = np.where(np.isfinite(G), np.exp(-(D**power) / (scale * t)), 0.0)
    np.fill_diagonal(W, diagonal)
    return W


register(Question(
    name="eigenmaps.heat_kernel_weights",
    function="heat_kernel_weights",
    signature="def heat_kernel_weights(G, t):",
    docstring=r"""Heat-kernel weights on the edges of a neighbourhood graph.

G : (N, N) edge lengths d_ij, np.inf where there is no edge, 0 on the diagonal. t : float > 0.
Returns the (N, N) weight matrix W: w_ij = exp(-d_ij^2 / t) on edges, 0 where there is no
edge and 0 on the diagonal (no self-loops).""",
    make_inputs=_heat_inputs,
    reference=lambda G, t: dense(_heat_kernel_weights(graph_csr(G), t)),
    compare=compare_close,
    tolerance=tol_by_size("G"),
    outputs=("W",),
    properties=(symmetric(name="W"), zero_diagonal(name="W"),
                Property("W is 0 where the graph has no edge", lambda a, i, tol: (
                    bool(np.all(a[0][np.isinf(i["G"])] == 0)), "a non-edge has a weight"))),
    mistakes=(
        Mistake("d not squared", lambda G, t: _heat(G, t, power=1),
                "used d_ij where the heat kernel has d_ij^2: w_ij = exp(-d_ij^2 / t)."),
        Mistake("2t", lambda G, t: _heat(G, t, scale=2.0),
                "divided by 2t: this heat kernel is exp(-d^2 / t) (t plays the role of "
                "2 sigma^2)."),
        Mistake("self-loops", lambda G, t: _heat(G, t, diagonal=1.0),
                "the diagonal is exp(0) = 1: a point is not its own neighbour, set w_ii = 0."),
    ),
))


# --- Laplacians --------------------------------------------------------------------------------

def _weights_inputs(rng):
    d = _heat_inputs(rng)
    return {"W": _heat(d["G"], d["t"])}


def _degree(W):
    return W.sum(axis=1)


def _lap_sym(W):
    s = 1 / np.sqrt(_degree(W))
    return np.eye(len(W)) - s[:, None] * W * s[None, :]


def _lap_rw(W):
    return np.eye(len(W)) - W / _degree(W)[:, None]


register(Question(
    name="eigenmaps.laplacian",
    function="laplacian",
    signature="def laplacian(W):",
    docstring=r"""The (unnormalised) graph Laplacian L = D - W, D = diag(row sums of W).

W : (N, N) symmetric non-negative weights, zero diagonal. Returns L, (N, N).""",
    make_inputs=_weights_inputs,
    reference=lambda W: dense(_laplacian(weights_csr(W), kind="unnormalized")),
    compare=compare_close,
    tolerance=tol_by_size("W"),
    outputs=("L",),
    properties=(symmetric(name="L"), sums_to(0, 1, name="L"), psd(name="L")),
    mistakes=(
        Mistake("W - D", lambda W: W - np.diag(_degree(W)),
                "the sign is flipped: L = D - W (positive degrees on the diagonal)."),
        Mistake("I - W", lambda W: np.eye(len(W)) - W,
                "used the identity for D: D is the diagonal matrix of degrees "
                "d_i = sum_j w_ij."),
        Mistake("sym", _lap_sym,
                "that is the normalised Laplacian I - D^-1/2 W D^-1/2; the question asks "
                "for L = D - W."),
    ),
))
register(Question(
    name="eigenmaps.normalized_laplacian",
    function="normalized_laplacian",
    signature="def normalized_laplacian(W):",
    docstring=r"""The symmetric normalised Laplacian L_sym = I - D^-1/2 W D^-1/2.

W : (N, N) symmetric non-negative weights, zero diagonal, every degree > 0.
Returns L_sym, (N, N).""",
    make_inputs=_weights_inputs,
    reference=lambda W: dense(_laplacian(weights_csr(W), kind="sym")),
    compare=compare_close,
    tolerance=tol_by_size("W"),
    outputs=("L_sym",),
    properties=(symmetric(name="L_sym"), psd(name="L_sym"),
                Property("the diagonal of L_sym is 1", lambda a, i, tol: (
                    bool(np.allclose(np.diag(a[0]), 1.0, atol=tol)), ""))),
    mistakes=(
        Mistake("rw", _lap_rw,
                "that is the random-walk Laplacian I - D^-1 W (not symmetric); L_sym scales "
                "by D^-1/2 on both sides."),
        Mistake("no I", lambda W: _lap_sym(W) - np.eye(len(W)),
                "the identity is missing: L_sym = I - D^-1/2 W D^-1/2."),
        Mistake("unnormalised", lambda W: np.diag(_degree(W)) - W,
                "that is the unnormalised L = D - W: scale it, I - D^-1/2 W D^-1/2."),
        Mistake("D^-1", lambda W: np.eye(len(W)) - W / np.outer(_degree(W), _degree(W)),
                "scaled by D^-1 on both sides: the scaling is D^-1/2 on each side."),
    ),
))


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

X : (N, D) data. n_neighbors : int k (the point itself is not its own neighbour).
reg : float, regularisation. For each i, with Z_i the k neighbours minus x_i (k x D) and
G_i = Z_i Z_i^T, solve (G_i + reg * trace(G_i) * I) w = 1 and rescale w to sum to 1.
Returns the (N, N) array W with row i holding w on i's neighbours, 0 elsewhere.
(A scipy.sparse matrix is accepted too.)""",
    make_inputs=_lle_inputs,
    reference=lambda X, n_neighbors, reg: dense(_lle_weights(X, n_neighbors, reg=reg)),
    compare=compare_close,
    tolerance=_lle_tolerance,
    outputs=("W",),
    properties=(sums_to(1, 1, name="W"), zero_diagonal(name="W"),
                Property("weights sit only on each point's k nearest neighbours",
                         _on_neighbours)),
    mistakes=(
        Mistake("unscaled reg", lambda **kw: _lle_mutant(**kw, scaled=False),
                "the regulariser must be scaled by the local Gram matrix: add "
                "reg * trace(G_i) * I (so that it does not depend on the data's units)."),
        Mistake("no reg", lambda X, n_neighbors, reg: _lle_mutant(X, n_neighbors, 1e-13),
                "missing regularisation: with more neighbours than dimensions G_i is "
                "singular; add reg * trace(G_i) * I before solving."),
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


# --- embeddings from bottom eigenvectors -------------------------------------------------------

def _bottom(A, k, skip, B=None, largest=False):
    from scipy.linalg import eigh

    lam, V = eigh(A, B)
    idx = np.argsort(lam)[::-1] if largest else np.argsort(lam)
    return V[:, idx[skip:skip + k]]


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
n_components : int L. Returns Z, (N, L): the unit-norm eigenvectors of the 2nd to (L+1)-th
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
        Mistake("constant kept", lambda M, n_components: _bottom(M, n_components, 0),
                "off by one: the first column is the constant eigenvector (eigenvalue 0); "
                "skip it and take the next L."),
        Mistake("skip two", lambda M, n_components: _bottom(M, n_components, 2),
                "off by one: one eigenvector too many was skipped; skip only the constant "
                "one."),
        Mistake("largest", lambda M, n_components: _bottom(M, n_components, 0, largest=True),
                "these are eigenvectors of the largest eigenvalues: LLE minimises "
                "tr(Z^T M Z), so take the smallest (after the constant one)."),
        Mistake("sqrt N", lambda M, n_components: np.sqrt(len(M)) * _bottom(
            M, n_components, 1),
            "the columns are scaled by sqrt(N) (the notes' Z^T Z = N I): the question asks "
            "for unit-norm eigenvectors."),
    ),
))


def _eigenmaps_inputs(rng):
    X = curve_points(rng, int(rng.integers(12, 25)), noise=0.1)
    k = 4
    while not connected(G := _knn_mutant(X, k)):
        k += 1
    finite = G[np.isfinite(G) & (G > 0)]
    return {"W": _heat(G, float(np.median(finite) ** 2)), "n_components": 2}


def _generalised(W, n_components, *, skip=1, standard=False, unit=False):
    L = np.diag(_degree(W)) - W
    V = _bottom(L, n_components, skip, None if standard else np.diag(_degree(W)))
    return V / np.linalg.norm(V, axis=0) if unit else V


def _eigenmaps_tolerance(inputs, expected):
    from scipy.linalg import eigh

    W = inputs["W"]
    d = _degree(W)
    L_sym = np.eye(len(W)) - W / np.sqrt(np.outer(d, d))  # same eigenvalues as L v = lam D v
    lam = eigh(L_sym, eigvals_only=True)
    # D-orthonormal vectors are scaled by D^-1/2: the conditioning of D enters
    return tol_eigvecs(L_sym, lam, inputs["n_components"], skip=1, largest=False) * np.sqrt(
        d.max() / d.min())


register(Question(
    name="eigenmaps.embedding",
    function="laplacian_eigenmaps",
    signature="def laplacian_eigenmaps(W, n_components):",
    docstring=r"""Laplacian eigenmaps: solve the generalised problem L v = lambda D v.

W : (N, N) symmetric weights of a connected graph. n_components : int L.
With D = diag(row sums) and L = D - W, return Z, (N, L): the generalised eigenvectors of the
2nd to (L+1)-th smallest eigenvalues (skip the constant one), normalised so that
Z^T D Z = I; column signs are free.""",
    make_inputs=_eigenmaps_inputs,
    reference=lambda W, n_components: _bottom_eigenpairs(
        np.diag(_degree(W)) - W, n_components, B=np.diag(_degree(W)), skip=1)[1],
    compare=compare_eigvecs(lambda inputs, Z: np.einsum(
        "ij,ik,kj->j", Z, np.diag(_degree(inputs["W"])) - inputs["W"], Z)),
    tolerance=_eigenmaps_tolerance,
    outputs=("Z",),
    properties=(Property("Z^T D Z = I", lambda a, i, tol: (
        bool(np.allclose(a[0].T @ (_degree(i["W"])[:, None] * a[0]), np.eye(a[0].shape[1]),
                         atol=max(tol, 1e-8))), "")),),
    mistakes=(
        Mistake("standard", lambda W, n_components: _generalised(W, n_components,
                                                                  standard=True),
                "solved L v = lambda v: Laplacian eigenmaps solves L v = lambda D v "
                "(the degree matrix on the right)."),
        Mistake("constant kept", lambda W, n_components: _generalised(W, n_components, skip=0),
                "off by one: the first column is the constant eigenvector (eigenvalue 0); "
                "skip it."),
        Mistake("skip two", lambda W, n_components: _generalised(W, n_components, skip=2),
                "off by one: skip only the first (constant) eigenvector."),
        Mistake("unit norm", lambda W, n_components: _generalised(W, n_components, unit=True),
                "the columns have unit length: normalise them so that Z^T D Z = I."),
    ),
))

