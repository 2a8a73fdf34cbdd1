"""Questions that ask for understanding: a derivation or an analysis whose result is a number
the grader can check (issue 16). Each docstring states what to derive; the function returns the
derived quantity, computed from the derivation rather than by brute force where that matters.

* ``lle.null_vector``: M 1 for weights whose rows need not sum to one;
* ``eigenmaps.trivial_eigenvectors``: the null space of L_rw, and its dimension;
* ``sne.perplexity_limits``: the perplexity as sigma -> 0 and as sigma -> infinity;
* ``sne.tsne_forces``: the t-SNE gradient split into attraction and repulsion;
* ``kernel_pca.linear_scores``: kernel PCA with the linear kernel gives PCA's scores;
* ``eigenmaps.dirichlet_energy``: f^T L f as a sum over the edges;
* ``isomap.residual_variance``: Tenenbaum et al.'s 1 - R^2, to predict what a short circuit does.

The questions graded in the homework (:data:`~mlnotes.homework.assignments.ASSIGNMENTS`) take
their references from the instructor's solutions (:mod:`.solutions`): what is here spells out no
answer, and their catalogued mistakes are derived from the reference answer, or kept with it.
Their diagnoses point to the step of the derivation that fails, never to the result.
``kernel_pca.linear_scores`` and ``isomap.residual_variance`` are no longer graded (the PCA
chapter's dual PCA and ``mlnotes.metrics.residual_variance`` answer them); their references are
computed here from first principles (numpy, scipy).
"""

import numpy as np

from ..compare import EPS, relative_error, tol_direct
from ..core import Mistake, Property, Question
from ._common import (
    anisotropic_points,
    compare_close,
    compare_eigvecs,
    curve_points,
    error_text,
    graph_csr,
    knn_lengths,
    register,
    squared_distances,
)
from .solutions import PrivateReference, private_mistakes

# Null-space (trivial) eigenvectors are compared as subspaces, to this relative accuracy: an
# eigen-solver on the non-symmetric L_rw loses a few digits, the components are well connected.
SUBSPACE_TOL = 1e-6


# --- LLE: M 1 = (I - W)^T (1 - W 1) ------------------------------------------------------------

def _raw_weights(rng):
    """Reconstruction weights before the sum-to-one constraint: k per row, rows summing to
    anything in [0.5, 1.5] (never exactly one)."""
    N = int(rng.integers(8, 20))
    k = int(rng.integers(2, 5))
    W = np.zeros((N, N))
    for i in range(N):
        others = rng.choice(np.delete(np.arange(N), i), size=k, replace=False)
        w = rng.uniform(0.2, 1.0, size=k)
        W[i, others] = w / w.sum() * rng.choice([0.6, 0.8, 1.25, 1.4])
    return {"W": W}


def _graded(name):
    """The reference and the private mistakes of graded question ``name``: the instructor's."""
    return {"reference": PrivateReference(name), "private_mistakes": private_mistakes(name)}


register(Question(
    **_graded("lle.null_vector"),
    name="lle.null_vector",
    conceal=True,
    function="m_times_ones",
    signature="def m_times_ones(W):",
    docstring=r"""Derive M 1 for M = (I - W)^T (I - W), then compute it from your formula.

W : (N, N) array of reconstruction weights (here the rows need NOT sum to one).
Returns the vector M 1, shape (N,). Write it with W 1 (the row sums): the formula shows at once
when M 1 = 0, i.e. why the constant vector is LLE's trivial eigenvector.""",
    make_inputs=_raw_weights,
    compare=compare_close,
    tolerance=lambda inputs, expected: tol_direct(len(inputs["W"])),
    outputs=("M1",),
    shapes=lambda inputs: [(len(inputs["W"]),)],
))


# --- Laplacian eigenmaps: the trivial eigenvectors of L_rw --------------------------------------

def _components_inputs(rng):
    """A weighted graph of 1 to 3 well-connected components, its vertices shuffled."""
    sizes = rng.integers(4, 9, size=int(rng.integers(1, 4)))
    N = int(sizes.sum())
    W = np.zeros((N, N))
    start = 0
    for s in sizes:
        block = rng.uniform(0.2, 1.5, size=(s, s))
        W[start:start + s, start:start + s] = (block + block.T) / 2
        start += s
    np.fill_diagonal(W, 0.0)
    order = rng.permutation(N)
    return {"W": W[np.ix_(order, order)]}


def _degree_weighted(expected, inputs, power):
    """The same subspace with each vertex scaled by d_i ** power (an answer-free wrong basis)."""
    V = expected[0] * inputs["W"].sum(axis=1)[:, None] ** power
    return np.linalg.qr(V)[0]  # an orthonormal basis of the wrong subspace


def _in_null_space(answer, inputs, tol):
    """L_rw V = 0 for the answer's columns (what any basis of the null space satisfies)."""
    V, W = answer[0], inputs["W"]
    if V.ndim != 2 or V.shape[0] != len(W) or V.shape[1] == 0:
        return False, "not an (N, c) array"
    L_rw = np.eye(len(W)) - W / W.sum(axis=1, keepdims=True)
    worst = float(np.abs(L_rw @ V).max()) / max(float(np.abs(V).max()), EPS)
    return worst <= SUBSPACE_TOL, f"largest |L_rw v| entry is {worst:.1e} of the largest |v_i|"


def compare_subspaces(answer, expected, inputs, tol):
    """The columns span the same subspace (any basis): compare the orthogonal projectors."""
    A, E = answer[0], expected[0]
    if A.ndim != 2 or A.shape[1] != E.shape[1]:
        return False, "not the same number of columns"
    Q, R = np.linalg.qr(A)
    if np.abs(np.diag(R)).min(initial=np.inf) <= 1e-8 * max(np.abs(R).max(), EPS):
        return False, "the columns are not linearly independent"
    err = relative_error(Q @ Q.T, E @ E.T)
    return err <= tol, error_text(err, tol, "between the spanned subspaces")


register(Question(
    **_graded("eigenmaps.trivial_eigenvectors"),
    name="eigenmaps.trivial_eigenvectors",
    conceal=True,
    function="trivial_eigenvectors",
    signature="def trivial_eigenvectors(W):",
    docstring=r"""The trivial eigenvectors of L_rw = D^-1 L = I - D^-1 W, and why.

W : (N, N) symmetric non-negative weights, no self-loops; the graph may have several connected
components. Returns an (N, c) array whose c columns span the null space of L_rw (the
eigenvectors of eigenvalue 0): derive what they are (when is L v = 0?) and how many there are,
rather than calling an eigen-solver. Any basis of that space is accepted.""",
    make_inputs=_components_inputs,
    compare=compare_subspaces,
    tolerance=lambda inputs, expected: SUBSPACE_TOL,
    outputs=("V",),
    shapes=None,
    properties=(Property("every column v solves L_rw v = 0", _in_null_space,
                         hint="a column is not in the null space: L_rw v = 0 asks something of "
                              "v across every edge; which vectors satisfy it?"),),
    mistakes=(
        Mistake("L_sym", derive=lambda e, inputs: _degree_weighted(e, inputs, 0.5),
                diagnosis="these span the null space of L_sym = D^-1/2 L D^-1/2, not of L_rw: "
                          "write L_rw v = 0 as an equation for L and see what it asks of v."),
        Mistake("left", derive=lambda e, inputs: _degree_weighted(e, inputs, 1.0),
                diagnosis="that is the LEFT null space (u^T L_rw = 0); the question asks for "
                          "right eigenvectors, L_rw v = 0."),
    ),
))


# --- SNE: the limits of the perplexity ---------------------------------------------------------

def _lattice_inputs(rng):
    """Points on an integer grid (exact ties between distances): some points have several
    nearest neighbours at the same distance."""
    side = int(rng.integers(3, 6))
    grid = np.array([(a, b) for a in range(side) for b in range(side)], dtype=float)
    keep = rng.choice(len(grid), size=int(rng.integers(6, len(grid) + 1)), replace=False)
    return {"D2": squared_distances(grid[keep]) * float(rng.choice([1.0, 4.0]))}


def _with_column(expected, k, values):
    """The reference answer with column ``k`` replaced (an answer-free wrong answer)."""
    wrong = np.array(expected[0], dtype=float)
    wrong[:, k] = values(wrong[:, k])
    return wrong


register(Question(
    **_graded("sne.perplexity_limits"),
    name="sne.perplexity_limits",
    conceal=True,
    function="perplexity_limits",
    signature="def perplexity_limits(D2):",
    docstring=r"""The perplexity of p_{.|i} in the limits sigma_i -> 0 and sigma_i -> infinity.

D2 : (N, N) squared distances (distinct points, ties between distances possible).
Returns an (N, 2) array: row i holds lim Perp_i as sigma_i -> 0 and as sigma_i -> infinity.
Derive both from p_{j|i} = exp(-D2_ij / 2 sigma_i^2) / sum_{k != i} exp(-D2_ik / 2 sigma_i^2):
which distribution does p_{.|i} tend to, and what is 2^H of it? (These limits bound the
perplexity a user may ask for.)""",
    make_inputs=_lattice_inputs,
    compare=compare_close,
    tolerance=lambda inputs, expected: 1e-9,
    outputs=("limits",),
    shapes=lambda inputs: [(len(inputs["D2"]), 2)],
    properties=(Property("each limit is at least 1 (2^H with H >= 0)", lambda a, i, tol: (
        bool(np.all(a[0] >= 1 - tol)), "a limit is below 1")),),
    mistakes=(
        Mistake("N", derive=lambda e, inputs: _with_column(e, 1, lambda c: c + 1),
                diagnosis="the upper limit is one too high: as sigma_i -> infinity every "
                          "exp(-D2_ij / 2 sigma_i^2) tends to 1, but which j does the sum "
                          "defining p_{.|i} run over? Count the entries of the row that can "
                          "be non-zero."),
        Mistake("one", derive=lambda e, inputs: _with_column(e, 0, np.ones_like),
                diagnosis="the lower limit is not always the same number: as sigma_i -> 0, "
                          "compare p_{j|i} / p_{k|i} = exp(-(D2_ij - D2_ik) / 2 sigma_i^2) for "
                          "two points j, k at the SAME smallest distance, and for a farther "
                          "one. The lattice inputs have such ties: look at the rows where "
                          "your answer fails, and at 2^H of the distribution you find."),
        Mistake("zero", derive=lambda e, inputs: _with_column(e, 0, np.zeros_like),
                diagnosis="a perplexity 2^H is never below 1 (H >= 0): as sigma_i -> 0 the "
                          "distribution p_{.|i} does not vanish, it concentrates; on which "
                          "points?"),
    ),
))


# --- t-SNE: attraction and repulsion -----------------------------------------------------------

def _forces_inputs(rng):
    N = int(rng.integers(6, 15))
    Z = rng.normal(size=(N, 2)) * rng.uniform(0.5, 3.0)
    A = rng.uniform(size=(N, N))
    P = A + A.T
    np.fill_diagonal(P, 0.0)
    return {"Z": Z, "P": P / P.sum()}


def _zero_net(k, name):
    def test(answer, inputs, tol):
        F = answer[k]
        net = float(np.abs(F.sum(axis=0)).max(initial=0.0))
        return net <= 1e-8 * max(float(np.abs(F).max(initial=0.0)), 1e-300), \
            f"they add up to {net:.2e}"
    return Property(f"the {name} forces add up to zero (each pair pulls equally and "
                    "oppositely)", test, hint="use the symmetric joint p_ij and q_ij: a force "
                    "between i and j is then equal and opposite on the two points.")


register(Question(
    **_graded("sne.tsne_forces"),
    name="sne.tsne_forces",
    conceal=True,
    function="tsne_forces",
    signature="def tsne_forces(Z, P):",
    docstring=r"""Split the t-SNE gradient into attraction and repulsion.

Z : (N, d) embedding. P : (N, N) symmetric joint affinities (sum 1, zero diagonal).
With w_ij = (1 + ||z_i - z_j||^2)^-1 and q_ij = w_ij / sum_{k != l} w_kl, the gradient is
dC/dz_i = 4 (a_i - r_i). Return the tuple (A, R) of (N, d) arrays:
a_i = sum_j p_ij w_ij (z_i - z_j) (attraction) and r_i = sum_j q_ij w_ij (z_i - z_j)
(repulsion). Derive why each adds up to zero over i.""",
    make_inputs=_forces_inputs,
    compare=compare_close,
    tolerance=lambda inputs, expected: max(1e-10, tol_direct(len(inputs["Z"]))),
    outputs=("attraction", "repulsion"),
    shapes=lambda inputs: [inputs["Z"].shape, inputs["Z"].shape],
    properties=(_zero_net(0, "attraction"), _zero_net(1, "repulsion")),
    mistakes=(
        Mistake("swapped", derive=lambda e, inputs: (e[1], e[0]),
                diagnosis="attraction and repulsion are swapped: which of p_ij (the data) "
                          "and q_ij (the embedding) pulls points together?"),
    ),
))


# --- kernel PCA with the linear kernel = PCA ---------------------------------------------------

def _linear_inputs(rng):
    N, p = int(rng.integers(12, 30)), int(rng.integers(3, 6))
    X = anisotropic_points(rng, N, p) + rng.normal(size=p) * 3  # an offset: centring matters
    return {"X": X, "n_components": int(rng.integers(1, min(3, p)))}


def _kernel_scores(X, n_components, *, power=0.5, centre=True):
    N = len(X)
    C = np.eye(N) - np.ones((N, N)) / N
    K = C @ X @ X.T @ C if centre else X @ X.T
    lam, V = np.linalg.eigh(K)
    idx = np.argsort(lam)[::-1][:n_components]
    return V[:, idx] * np.abs(lam[idx]) ** power


def _pca_scores(X, n_components):
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    return Xc @ Vt[:n_components].T


def _score_variances(inputs, Z):
    return (Z**2).sum(axis=0)


def _linear_tolerance(inputs, expected):
    X = inputs["X"]
    s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    lam = s**2
    k = inputs["n_components"]
    gap = float(np.min(np.abs(np.diff(lam[:k + 1])))) if len(lam) > k else float(lam[k - 1])
    return min(1e-5, max(1e-11, 1e3 * len(X) * EPS * lam[0] / max(gap, EPS * lam[0])))


register(Question(
    name="kernel_pca.linear_scores",
    function="linear_kernel_scores",
    signature="def linear_kernel_scores(X, n_components):",
    docstring=r"""Kernel PCA with the linear kernel k(x, y) = x^T y reproduces PCA: show it.

X : (N, p) data. n_components : int d. Compute the embedding the KERNEL way: centre
K = X X^T (C K C), take its top-d eigenpairs (lambda_l, v_l) and return Z, (N, d), scaled so
that it equals PCA's scores X_c V_d (columns' signs are free). Derive the scale from the SVD
X_c = U S V^T.""",
    make_inputs=_linear_inputs,
    reference=_pca_scores,
    compare=compare_eigvecs(_score_variances),
    tolerance=_linear_tolerance,
    outputs=("Z",),
    mistakes=(
        Mistake("inverse", lambda X, n_components: _kernel_scores(X, n_components, power=-0.5),
                "scaled by 1/sqrt(lambda): that is the coefficient vector alpha = v / "
                "sqrt(lambda) used to project NEW points; the training scores are "
                "v sqrt(lambda) (X_c = U S V^T gives X_c V = U S)."),
        Mistake("unscaled", lambda X, n_components: _kernel_scores(X, n_components, power=0),
                "the columns are unit eigenvectors: multiply column l by sqrt(lambda_l) "
                "(X_c V = U S and S = sqrt(Lambda))."),
        Mistake("uncentred", lambda X, n_components: _kernel_scores(X, n_components,
                                                                    centre=False),
                "K was not centred: PCA centres the data, kernel PCA centres K (C K C)."),
    ),
))


# --- Laplacian eigenmaps: the Dirichlet energy -------------------------------------------------

def _energy_inputs(rng):
    N, d = int(rng.integers(8, 20)), int(rng.integers(2, 4))
    A = rng.uniform(size=(N, N)) * (rng.uniform(size=(N, N)) < 0.5)
    W = A + A.T
    np.fill_diagonal(W, 0.0)
    F = np.c_[np.ones(N) * rng.normal(), rng.normal(size=(N, d - 1))]  # a constant first column
    return {"W": W, "F": F}


register(Question(
    **_graded("eigenmaps.dirichlet_energy"),
    name="eigenmaps.dirichlet_energy",
    conceal=True,
    function="dirichlet_energy",
    signature="def dirichlet_energy(W, F):",
    docstring=r"""The Dirichlet energy of each column f of F: f^T L f = 1/2 sum_ij w_ij (f_i - f_j)^2.

W : (N, N) symmetric weights, zero diagonal. F : (N, d) functions on the vertices (columns).
Returns the (d,) energies, L = D - W. Derive the identity (expand the square, use the
symmetry of W); then see which column of the inputs always has energy 0, and why.""",
    make_inputs=_energy_inputs,
    compare=compare_close,
    shapes=lambda inputs: [(inputs["F"].shape[1],)],
    tolerance=lambda inputs, expected: tol_direct(len(inputs["W"])) * 10,
    outputs=("energy",),
    properties=(Property("every energy is >= 0 (L is positive semidefinite)", lambda a, i, tol: (
        bool(np.all(a[0] >= -tol * max(float(np.abs(a[0]).max(initial=0.0)), 1.0))),
        "an energy is negative")),),
    mistakes=(
        Mistake("no half", derive=lambda e, inputs: 2 * e[0],
                diagnosis="look at how your sum runs over the edges: how many times does "
                          "sum_ij count the edge between i and j?"),
        Mistake("sign", derive=lambda e, inputs: -e[0],
                diagnosis="the sign is flipped: the energy is a weighted sum of squares, so it "
                          "cannot be negative; check the sign convention of L."),
    ),
))


# --- Isomap: the residual variance --------------------------------------------------------------

def _residual_inputs(rng):
    """Geodesic distances along a noisy helix arc, and an embedding of them: classical MDS of
    the geodesics, blurred so that the fit is imperfect."""
    from scipy.sparse.csgraph import shortest_path

    N = int(rng.integers(15, 30))
    while True:
        D_geo = shortest_path(graph_csr(knn_lengths(curve_points(rng, N), 4)), directed=False)
        if np.isfinite(D_geo).all():
            break
    C = np.eye(N) - np.ones((N, N)) / N
    lam, V = np.linalg.eigh(-0.5 * C @ D_geo**2 @ C)
    Z = V[:, -2:] * np.sqrt(np.maximum(lam[-2:], 0.0))
    return {"D_geo": D_geo, "Z": Z + rng.normal(size=Z.shape) * rng.uniform(0.05, 0.5)}


def _residual(D_geo, Z, *, power=2, squared=False, diagonal=False, complement=True):
    pairs = np.ones(D_geo.shape, dtype=bool) if diagonal else np.triu(
        np.ones(D_geo.shape, dtype=bool), 1)
    D_Z = squared_distances(Z) if squared else np.sqrt(squared_distances(Z))
    r = np.corrcoef(D_geo[pairs], D_Z[pairs])[0, 1]  # the linear correlation over the pairs
    return 1.0 - abs(r) ** power if complement else r**power


register(Question(
    name="isomap.residual_variance",
    function="residual_variance",
    signature="def residual_variance(D_geo, Z):",
    docstring=r"""Isomap's residual variance 1 - R^2 (Tenenbaum, de Silva and Langford, 2000).

D_geo : (N, N) geodesic distances. Z : (N, d) embedding. R is the linear correlation
coefficient between the geodesic distances and the Euclidean distances ||z_i - z_j|| of the
embedding, over the pairs i < j. Returns 1 - R^2 (a single number): the share of the
distances' variance the embedding does not explain.""",
    make_inputs=_residual_inputs,
    reference=_residual,
    compare=compare_close,
    tolerance=lambda inputs, expected: 1e-9,
    outputs=("residual",),
    properties=(Property("it lies in [0, 1]", lambda a, i, tol: (
        bool(-tol <= float(a[0]) <= 1 + tol), f"it is {float(a[0]):.3g}")),),
    mistakes=(
        Mistake("1 - R", lambda D_geo, Z: _residual(D_geo, Z, power=1),
                "that is 1 - R: the residual variance is 1 - R^2 (R^2 is the share of "
                "variance a linear fit explains)."),
        Mistake("R^2", lambda D_geo, Z: _residual(D_geo, Z, complement=False),
                "that is R^2, the variance explained: the residual is 1 - R^2."),
        Mistake("squared", lambda D_geo, Z: _residual(D_geo, Z, squared=True),
                "the embedding's distances are squared: correlate with ||z_i - z_j||, not "
                "its square."),
        Mistake("diagonal", lambda D_geo, Z: _residual(D_geo, Z, diagonal=True),
                "the diagonal (i = j, distance 0 on both sides) was counted, and every pair "
                "twice: use the pairs i < j only."),
    ),
))
