"""Questions on Laplacian eigenmaps: heat-kernel weights, the graph Laplacians, and the
embedding from the generalised eigenproblem L v = lambda D v.

Graphs are dense edge lengths (``np.inf`` = no edge); weight matrices are dense with 0 where there
is no edge.
"""

import numpy as np

from ...eigenmaps import heat_kernel_weights as _heat_kernel_weights
from ...eigenmaps import laplacian as _laplacian
from ...spectral import bottom_eigenpairs as _bottom_eigenpairs
from ..compare import tol_eigvecs
from ..core import Mistake, Property, Question
from ._common import (
    bottom_eigvecs,
    compare_close,
    compare_eigvecs,
    connected,
    curve_points,
    dense,
    graph_csr,
    knn_lengths,
    psd,
    register,
    sums_to,
    symmetric,
    tol_by_size,
    weights_csr,
    zero_diagonal,
)

# --- heat-kernel weights -----------------------------------------------------------------------

def _heat_inputs(rng):
    X = rng.normal(size=(int(rng.integers(10, 25)), 3))
    G = knn_lengths(X, int(rng.integers(3, 6)))
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


# --- the embedding --------------------------------------------------------------------------------

def _eigenmaps_inputs(rng):
    X = curve_points(rng, int(rng.integers(12, 25)), noise=0.1)
    k = 4
    while not connected(G := knn_lengths(X, k)):
        k += 1
    finite = G[np.isfinite(G) & (G > 0)]
    return {"W": _heat(G, float(np.median(finite) ** 2)), "n_components": 2}


def _generalised(W, n_components, *, skip=1, standard=False, unit=False, largest=False):
    L = np.diag(_degree(W)) - W
    V = bottom_eigvecs(L, n_components, skip, None if standard else np.diag(_degree(W)),
                       largest=largest)
    return V / np.linalg.norm(V, axis=0) if unit else V


def _sym_not_mapped_back(W, n_components):
    """The eigenvectors U of L_sym, returned as they are (the slip of the chapter's box)."""
    return bottom_eigvecs(_lap_sym(W), n_components, 1)


def _eigenvectors_as_rows(W, n_components):
    """Rows 1 .. L of the (N, N) matrix of generalised eigenvectors, as columns."""
    from scipy.linalg import eigh

    lam, V = eigh(np.diag(_degree(W)) - W, np.diag(_degree(W)))
    return V[np.argsort(lam)[1:n_components + 1], :].T


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

W : (N, N) symmetric weights of a connected graph. n_components : int d.
With D = diag(row sums) and L = D - W, return Z, (N, d): the generalised eigenvectors of the
2nd to (d+1)-th smallest eigenvalues (skip the constant one), normalised so that
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
        Mistake("L_sym", _sym_not_mapped_back,
                "these are eigenvectors u of L_sym = D^-1/2 L D^-1/2, returned as they are: "
                "they solve L_sym u = lambda u, and the generalised problem needs v with "
                "u = D^1/2 v, so map each back (v = D^-1/2 u) before returning."),
        Mistake("largest", lambda W, n_components: _generalised(W, n_components, skip=0,
                                                                 largest=True),
                "these are eigenvectors of the LARGEST eigenvalues: eigenmaps minimises "
                "sum_ij w_ij ||z_i - z_j||^2, so take the smallest (after the constant one)."),
        Mistake("rows", _eigenvectors_as_rows,
                "the eigenvectors were taken as rows: numpy and scipy return them as the "
                "COLUMNS of the eigenvector matrix (V[:, j] belongs to eigenvalue j)."),
    ),
))
