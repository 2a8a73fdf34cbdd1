"""The graded set: questions whose key is encrypted, with a variant per student.

Each question asks for a number that a derivation gives: a spectrum, a resistance, an entropy, a
dimension, at sizes no array holds (N up to 10^12), so generic numerics (an eigensolver, finite
differences, brute-force sums) cannot produce it; its constants (a weight, a skip, an exponent)
are the student's variant (:mod:`mlnotes.homework.variants`), so a classmate's numbers are
wrong for you. The key (:mod:`mlnotes.homework.keys`) holds the reference answers; without it,
the student's checker tests what needs no reference:

* on the small cases the question's text makes derivable, agreement with a dense computation of
  the very object the text describes (the graph's Laplacian, the kernel matrix, the row of
  affinities), built here from the variant's constants;
* on every case, invariants (signs, order, sums, symmetry, bounds such as Rayleigh's
  monotonicity) and the signature of floating-point cancellation.

No message states an expected value, a correcting factor or the derivation asked; a property
that cannot run at a size says nothing (it never fails an answer it cannot judge).
"""

import math

import numpy as np

from ..compare import relative_error
from ..core import Property, Question
from ..keys import GradedReference
from ._common import register, squared_distances, symmetric

# Relative accuracy asked of every closed form, and the agreement with a dense computation.
GRADED_RTOL = 1e-9
DENSE_RTOL = 1e-7
# Largest problem the checker builds densely (vertices of a graph, points of a row).
DENSE_MAX = 400
# A float64 value that is a whole multiple of this (and tiny) came from 1 - cos(x) rounding.
ULP_NEAR_ONE = 2.0**-53


def graded(name, *, points_note="", **fields):
    """Register graded question ``name``: its reference is in the encrypted key."""
    return register(Question(name=f"graded.{name}", reference=GradedReference(f"graded.{name}"),
                             compare=_compare, tolerance=lambda inputs, expected: GRADED_RTOL,
                             conceal=True, **fields))


def _compare(answer, expected, inputs, tol):
    err = max(relative_error(a, e) for a, e in zip(answer, expected, strict=False))
    return err <= tol, "the derivation's result"


def _v(inputs):
    return inputs["_variant"]


# --- shared properties -------------------------------------------------------------------------

def dense_agreement(build, what):
    """On a small case, the answer equals ``build(inputs)`` (a dense computation of the object
    the question describes, from its definition); ``build`` returns ``None`` on a large case."""
    def test(answer, inputs, tol):
        want = build(inputs)
        if want is None:
            return True, ""
        want = np.atleast_1d(np.asarray(want, dtype=float))
        got = np.atleast_1d(answer[0])
        if got.shape != want.shape:
            return False, "not the number of values asked for"
        err = relative_error(got, want)
        return err <= DENSE_RTOL, f"relative difference {err:.1e} on this small case"
    return Property(f"on a small case, agrees with {what}", test,
                    hint=f"on a case small enough to build, your answer differs from {what}: "
                         "test your formula there first, then check each constant of your "
                         "variant and each factor of the derivation.")


def positive_ordered(increasing=True, name="the values"):
    word = "increasing" if increasing else "decreasing"

    def test(answer, inputs, tol):
        v = np.atleast_1d(answer[0])
        steps = np.diff(v) if increasing else -np.diff(v)
        ok = bool(np.all(v > 0) and np.all(steps >= -1e-12 * np.abs(v[1:])))
        return ok, "a value is <= 0 or out of order"
    return Property(f"{name} are positive and {word}", test,
                    hint=f"{name} must be positive and {word}: a value that came out 0 or "
                         "negative was lost to rounding, or the formula counts the wrong ones.")


def not_cancelled(large_key, threshold):
    """At ``inputs[large_key] >= threshold``, no value is a whole multiple of the float spacing
    near 1 (what ``1 - cos(x)`` gives for a tiny x): the formula cancelled."""
    def test(answer, inputs, tol):
        if inputs[large_key] < threshold:
            return True, ""
        v = np.atleast_1d(answer[0])
        q = v / ULP_NEAR_ONE
        cancelled = (v == 0) | ((np.abs(v) < 1e-6) & (np.abs(q - np.round(q)) < 1e-6))
        return not bool(cancelled.any()), "values lost to cancellation"
    return Property("no value was lost to cancellation at the large size", test,
                    hint="at the large size your values are 0 or whole multiples of the float "
                         "spacing near 1: a difference of two nearly equal numbers (1 - cos x for "
                         "a tiny x) cancelled. Rewrite the formula so that nothing cancels.")


def shape_of(n_key):
    return lambda inputs: [(int(np.size(inputs[n_key])) if np.ndim(inputs[n_key])
                            else int(inputs[n_key]),)]


def _laplacian(W):
    return np.diag(W.sum(axis=1)) - W


def _smallest_nonzero(L, m):
    lam = np.linalg.eigvalsh(L)
    return lam[1:m + 1]


# --- spectral: a circulant graph ---------------------------------------------------------------

def _circulant_W(N, s, c):
    W = np.zeros((N, N))
    i = np.arange(N)
    for step, weight in ((1, 1.0), (s, c)):
        W[i, (i + step) % N] += weight
        W[(i + step) % N, i] += weight
    return W


def _circulant_dense(inputs):
    N, m, v = inputs["N"], inputs["m"], _v(inputs)
    if N > DENSE_MAX:
        return None
    return _smallest_nonzero(_laplacian(_circulant_W(N, v["s"], v["c"])), m)


def _spectrum_small(rng):
    return {"N": int(rng.integers(14, 41)), "m": int(rng.integers(3, 7))}


def _spectrum_large(rng):
    return [{"N": int(10 ** rng.uniform(9, 12)), "m": int(rng.integers(3, 7))}]


graded(
    "circulant_spectrum",
    function="circulant_spectrum",
    signature="def circulant_spectrum(N, m):",
    docstring=r"""The m smallest non-zero Laplacian eigenvalues of a circulant graph.

Vertices 0, ..., N-1 (indices mod N); vertex i is joined to i + 1 and i - 1 with weight 1, and
to i + s and i - s with weight c, where s and c are YOUR variant's constants. N : int, from 14
to 10^12 (no matrix that large fits in memory: derive the eigenvalues). m : int, small.
Returns the (m,) smallest eigenvalues of L = D - W after the single zero, counted with their
multiplicity, increasing, each to a relative accuracy of 1e-9 at every N.""",
    variant=lambda rng: {"s": int(rng.integers(2, 6)),
                         "c": float(rng.choice([0.25, 0.5, 0.75, 1.5, 2.0, 3.0]))},
    make_inputs=_spectrum_small,
    extra_cases=_spectrum_large,
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(positive_ordered(), not_cancelled("N", 10**8),
                dense_agreement(_circulant_dense, "the eigenvalues of the Laplacian built from "
                                "the graph as described")),
)


# --- spectral: a grid with two weights ---------------------------------------------------------

def _path_W(n, weight=1.0):
    return weight * (np.eye(n, k=1) + np.eye(n, k=-1))


def _grid_dense(inputs):
    N, M, m, c = inputs["N"], inputs["M"], inputs["m"], _v(inputs)["c"]
    if N * M > DENSE_MAX:
        return None
    W = np.kron(_path_W(N), np.eye(M)) + np.kron(np.eye(N), _path_W(M, c))
    return _smallest_nonzero(_laplacian(W), m)


def _grid_small(rng):
    return {"N": int(rng.integers(3, 13)), "M": int(rng.integers(3, 13)), "m": int(rng.integers(3, 7))}


def _grid_large(rng):
    return [{"N": int(10 ** rng.uniform(8, 11)), "M": int(10 ** rng.uniform(8, 11)),
             "m": int(rng.integers(3, 7))}]


graded(
    "grid_spectrum",
    function="grid_spectrum",
    signature="def grid_spectrum(N, M, m):",
    docstring=r"""The m smallest non-zero Laplacian eigenvalues of an N x M grid graph.

Vertex (i, j), 0 <= i < N, 0 <= j < M, is joined to (i +- 1, j) with weight 1 and to (i, j +- 1)
with weight c, YOUR variant's constant (no wrap-around). N, M : ints up to 10^11. m : int, small.
Returns the (m,) smallest eigenvalues of L = D - W after the zero, counted with multiplicity,
increasing, each to a relative accuracy of 1e-9. Hint: the grid is the Cartesian product of
two paths.""",
    variant=lambda rng: {"c": float(rng.choice([0.2, 0.3, 0.5, 2.0, 3.0, 5.0]))},
    make_inputs=_grid_small,
    extra_cases=_grid_large,
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(positive_ordered(), not_cancelled("N", 10**8),
                dense_agreement(_grid_dense, "the eigenvalues of the grid's Laplacian built as "
                                "described")),
)


# --- spectral: a Gram matrix with one point as the origin --------------------------------------

def _anchored_inputs(rng):
    N = int(rng.integers(6, 20))
    X = rng.normal(size=(N, int(rng.integers(2, 5)))) * rng.uniform(0.5, 3.0)
    return {"D2": squared_distances(X)}


def _anchor_zero(answer, inputs, tol):
    K, a = answer[0], _v(inputs)["a"]
    worst = float(max(np.abs(K[a]).max(), np.abs(K[:, a]).max())) / max(float(np.abs(K).max()),
                                                                          1e-300)
    return worst <= 1e-10, "row or column of the anchor is not zero"


def _reproduces_distances(answer, inputs, tol):
    K, D2 = answer[0], inputs["D2"]
    d = np.diag(K)
    err = relative_error(d[:, None] + d[None, :] - 2 * K, D2)
    return err <= 1e-10, f"K_ii + K_jj - 2 K_ij differs from D2 by {err:.1e} (relative)"


def _psd(answer, inputs, tol):
    K = answer[0]
    lam = np.linalg.eigvalsh((K + K.T) / 2)
    return bool(lam.min() >= -1e-9 * max(abs(lam).max(), 1e-300)), "an eigenvalue is negative"


graded(
    "anchored_gram",
    function="anchored_gram",
    signature="def anchored_gram(D2):",
    docstring=r"""The Gram matrix of points taking point a as the origin, from squared distances.

D2 : (N, N) squared Euclidean distances ||x_i - x_j||^2 of points x_0, ..., x_{N-1} (not given).
a is YOUR variant's anchor index. Returns K, (N, N), K_ij = (x_i - x_a)^T (x_j - x_a), derived
from D2 alone (no centring matrix: the origin is a point, not the mean).""",
    variant=lambda rng: {"a": int(rng.integers(1, 5))},
    make_inputs=_anchored_inputs,
    n_cases=3,
    outputs=("K",),
    shapes=lambda inputs: [inputs["D2"].shape],
    properties=(
        symmetric(name="K"),
        Property("K is positive semidefinite", _psd,
                 hint="K has a negative eigenvalue: a Gram matrix never does; check the sign "
                      "of each term."),
        Property("the anchor's row and column are zero (it is the origin)", _anchor_zero,
                 hint="the anchor's row of K is not zero: the origin must be the point of your "
                      "variant's index, and then every product with it vanishes."),
        Property("K gives back the distances: K_ii + K_jj - 2 K_ij = D2_ij",
                 _reproduces_distances,
                 hint="K does not give back the squared distances: expand ||u - v||^2 for "
                      "u = x_i - x_a, v = x_j - x_a and compare term by term."),
    ),
)


# --- spectral: an eigenvector of the path, entry by entry --------------------------------------

def _path_vector_dense(inputs):
    N, q = inputs["N"], _v(inputs)["q"]
    if N > DENSE_MAX:
        return None
    _, V = np.linalg.eigh(_laplacian(_path_W(N)))
    v = V[:, q] * np.sign(V[0, q])
    return v[np.asarray(inputs["j"], dtype=int) - 1]


def _path_vector_small(rng):
    N = int(rng.integers(12, 41))
    return {"N": N, "j": np.arange(1, N + 1)}


def _path_vector_large(rng):
    medium = int(rng.integers(1000, 4001))
    N = int(10 ** rng.uniform(9, 12))
    j = np.unique(np.r_[1, 2, rng.integers(3, N - 1, size=6), N])
    return [{"N": medium, "j": np.arange(1, medium + 1)}, {"N": N, "j": j.astype(float)}]


def _path_vector_medium(answer, inputs, tol):
    """Unit norm, first entry positive, and L v = lambda v with one lambda (a whole vector)."""
    N, v = inputs["N"], answer[0]
    if N > 10**4 or len(v) != N:
        return True, ""
    Lv = np.r_[v[0] - v[1], 2 * v[1:-1] - v[:-2] - v[2:], v[-1] - v[-2]]
    lam = float(v @ Lv)
    ok = (abs(v @ v - 1) < 1e-9 and v[0] > 0
          and np.linalg.norm(Lv - lam * v) <= 1e-7 * max(abs(lam), 1e-300))
    return bool(ok), "not a unit eigenvector with a positive first entry"


def _path_vector_bounds(answer, inputs, tol):
    v = answer[0]
    return bool(v[0] > 0 and np.all(np.abs(v) <= 1)), "first entry <= 0, or an entry above 1"


graded(
    "path_eigenvector",
    function="path_eigenvector",
    signature="def path_eigenvector(N, j):",
    docstring=r"""Entries of one Laplacian eigenvector of the path graph, at any size.

The path has vertices 1 - 2 - ... - N with unit weights. Take the eigenvector of the q-th
smallest NON-ZERO eigenvalue of L = D - W (q is YOUR variant's constant), of unit length, with
its first entry positive. N : int, up to 10^12. j : (k,) positions, 1 <= j <= N.
Returns the (k,) entries v_j, each to a relative accuracy of 1e-9.""",
    variant=lambda rng: {"q": int(rng.integers(1, 5))},
    make_inputs=_path_vector_small,
    n_cases=1,
    extra_cases=_path_vector_large,
    outputs=("v",),
    shapes=shape_of("j"),
    properties=(
        Property("entries within [-1, 1], the first one positive", _path_vector_bounds),
        Property("on a whole vector: a unit eigenvector of the path's Laplacian, first entry "
                 "positive", _path_vector_medium,
                 hint="the whole vector is not a unit eigenvector of the path's Laplacian: "
                      "check it against L v = lambda v at the two ends first, then its length."),
        dense_agreement(_path_vector_dense, "the eigenvector a dense eigensolver finds"),
    ),
)


# --- spectral: effective resistance on a cycle -------------------------------------------------

def _resistance_dense(inputs):
    N, c = inputs["N"], _v(inputs)["c"]
    if N > DENSE_MAX:
        return None
    Lp = np.linalg.pinv(_laplacian(c * _circulant_W(N, 1, 0.0)))
    d = np.asarray(inputs["d"], dtype=int)
    return Lp[0, 0] + Lp[d, d] - 2 * Lp[0, d]


def _resistance_small(rng):
    N = int(rng.integers(5, 31))
    return {"N": N, "d": rng.integers(1, N, size=4).astype(float)}


def _resistance_large(rng):
    N = int(10 ** rng.uniform(9, 12))
    return [{"N": N, "d": np.r_[1, rng.integers(2, N, size=3), N - 1].astype(float)}]


def _rayleigh(answer, inputs, tol):
    R, d, N, c = answer[0], inputs["d"], inputs["N"], _v(inputs)["c"]
    upper = np.minimum(d, N - d) / c
    return bool(np.all(R > 0) and np.all(R <= upper * (1 + 1e-12))), (
        "a resistance is <= 0, or larger than that of the shorter arc alone")


graded(
    "cycle_resistance",
    function="cycle_resistance",
    signature="def cycle_resistance(N, d):",
    docstring=r"""Effective resistance between two vertices of a cycle, at any size.

The cycle has N vertices, each edge a conductance c (resistance 1 / c; c is YOUR variant's
constant). N : int, up to 10^12. d : (k,) numbers of edges between the two vertices along one
way round, 1 <= d <= N - 1. Returns the (k,) effective resistances (= (e_u - e_v)^T L^+ (e_u -
e_v) for the Laplacian L), each to a relative accuracy of 1e-9.""",
    variant=lambda rng: {"c": float(rng.choice([0.25, 0.5, 2.0, 4.0, 5.0]))},
    make_inputs=_resistance_small,
    extra_cases=_resistance_large,
    outputs=("R",),
    shapes=shape_of("d"),
    properties=(
        Property("positive, and never above the resistance of the shorter arc alone (Rayleigh)",
                 _rayleigh, hint="a resistance is above that of the shorter arc alone: the two "
                                 "arcs are in parallel, and parallel paths only lower it."),
        dense_agreement(_resistance_dense, "L^+ of the cycle's Laplacian"),
    ),
)


# --- spectral: a star --------------------------------------------------------------------------

def _star_dense(inputs):
    N, m, c = inputs["N"], inputs["m"], _v(inputs)["c"]
    if N + 1 > DENSE_MAX:
        return None
    W = np.zeros((N + 1, N + 1))
    W[0, 1:] = W[1:, 0] = c
    return np.linalg.eigvalsh(_laplacian(W))[::-1][:m]


graded(
    "star_spectrum",
    function="star_spectrum",
    signature="def star_spectrum(N, m):",
    docstring=r"""The m largest Laplacian eigenvalues of a star.

A hub joined to N leaves, every edge of weight c (YOUR variant's constant); N : int, up to
10^12. m : int, 1 <= m <= 3. Returns the (m,) largest eigenvalues of L = D - W, counted with
multiplicity, decreasing. Derive them: which vectors are eigenvectors, and with what
eigenvalues?""",
    variant=lambda rng: {"c": float(rng.choice([0.5, 1.5, 2.0, 3.0, 0.1]))},
    make_inputs=lambda rng: {"N": int(rng.integers(4, 40)), "m": int(rng.integers(2, 4))},
    extra_cases=lambda rng: [{"N": int(10 ** rng.uniform(9, 12)), "m": 3}],
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(positive_ordered(False),
                dense_agreement(_star_dense, "the eigenvalues of the star's Laplacian")),
)


# --- embeddings: equicorrelated data -----------------------------------------------------------

def _equicorrelated_cov(p, sigma2, rho):
    return sigma2 * ((1 - rho) * np.eye(p) + rho * np.ones((p, p)))


def _equi_dense(inputs):
    p, m, v = inputs["p"], inputs["m"], _v(inputs)
    if p > DENSE_MAX:
        return None
    return np.linalg.eigvalsh(_equicorrelated_cov(p, v["sigma2"], v["rho"]))[::-1][:m]


def _equi_trace(answer, inputs, tol):
    v, p = _v(inputs), inputs["p"]
    lam = answer[0]
    return bool(lam.sum() <= p * v["sigma2"] * (1 + 1e-12)), "more variance than the trace holds"


def _equi_variant(rng):
    return {"sigma2": float(rng.choice([0.5, 2.0, 3.0, 4.0])),
            "rho": float(rng.choice([0.1, 0.2, 0.3, 0.4, 0.6]))}


graded(
    "equicorrelated_spectrum",
    function="equicorrelated_spectrum",
    signature="def equicorrelated_spectrum(p, m):",
    docstring=r"""PCA of equicorrelated variables: the m largest covariance eigenvalues.

p variables, each of variance sigma2, every pair with correlation rho (sigma2 and rho are YOUR
variant's constants). p : int, up to 10^12. m : int, 1 <= m <= 5 < p. Returns the (m,) largest
eigenvalues of the p x p covariance, with multiplicity, decreasing, to a relative 1e-9.""",
    variant=_equi_variant,
    make_inputs=lambda rng: {"p": int(rng.integers(6, 40)), "m": int(rng.integers(2, 6))},
    extra_cases=lambda rng: [{"p": int(10 ** rng.uniform(8, 12)), "m": int(rng.integers(2, 6))}],
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(positive_ordered(False),
                Property("they add up to no more than the trace of the covariance", _equi_trace,
                         hint="these eigenvalues add up to more than the total variance."),
                dense_agreement(_equi_dense, "the eigenvalues of the covariance built as "
                                "described")),
)


graded(
    "linear_ae_loss",
    function="linear_autoencoder_loss",
    signature="def linear_autoencoder_loss(p, d):",
    docstring=r"""The smallest expected loss of a linear autoencoder on equicorrelated data.

x has mean 0, p variables of variance sigma2, every pair correlated rho (YOUR variant's
constants, as in the PCA question). Encoder a = W1 x + b1 (d units), decoder x_hat = W2 a + b2,
loss E[ ||x - x_hat||^2 ] / 2, minimised over W1, b1, W2, b2. p : int up to 10^12, d : int,
1 <= d < p. Returns the minimum, one number, to a relative 1e-9.""",
    variant=_equi_variant,
    make_inputs=lambda rng: {"p": int(rng.integers(6, 40)), "d": int(rng.integers(1, 5))},
    extra_cases=lambda rng: [{"p": int(10 ** rng.uniform(8, 12)), "d": int(rng.integers(1, 5))}],
    outputs=("loss",),
    shapes=lambda inputs: [()],
    properties=(
        Property("the loss is positive and below half the total variance",
                 lambda a, i, tol: (bool(0 < a[0] <= i["p"] * _v(i)["sigma2"] / 2 * (1 + 1e-12)),
                                    "not in that range"),
                 hint="the loss is outside (0, half the total variance]: with d >= 1 units the "
                      "best autoencoder keeps some variance, and never more than all of it."),
        dense_agreement(lambda i: None if i["p"] > DENSE_MAX else 0.5 * np.sort(np.linalg.eigvalsh(
            _equicorrelated_cov(i["p"], _v(i)["sigma2"], _v(i)["rho"])))[: i["p"] - i["d"]].sum(),
            "the discarded variance of PCA on the covariance built as described"),
    ),
)


# --- embeddings: the dimension of a polynomial kernel's features -------------------------------

def _poly_dense(inputs):
    p, v = int(inputs["p"]), _v(inputs)
    if p > 4:
        return None
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, p))
    K = (X @ X.T + v["c0"]) ** v["degree"]
    s = np.linalg.svd(K, compute_uv=False)
    return float((s > s[0] * 1e-10).sum())


def _whole(answer, inputs, tol):
    x = float(answer[0])
    return bool(x >= 1 and (x > 2**52 or x == round(x))), "not a whole number >= 1"


graded(
    "poly_feature_dim",
    function="poly_feature_dim",
    signature="def poly_feature_dim(p):",
    docstring=r"""The dimension of the feature space of a polynomial kernel.

k(x, y) = (x^T y + c0)^degree on R^p, with degree and c0 YOUR variant's constants (c0 is 0 or
1). p : int, up to 10^6. Returns the dimension of the span of the feature vectors phi(x) (the
rank of a kernel matrix on enough generic points), as a number, to a relative 1e-9.""",
    variant=lambda rng: {"degree": int(rng.integers(2, 6)), "c0": int(rng.integers(0, 2))},
    make_inputs=lambda rng: {"p": int(rng.integers(1, 5))},
    extra_cases=lambda rng: [{"p": int(10 ** rng.uniform(3, 6))}],
    outputs=("dimension",),
    shapes=lambda inputs: [()],
    properties=(Property("a whole number >= 1", _whole,
                         hint="a dimension is a whole number of at least 1."),
                dense_agreement(_poly_dense, "the rank of a kernel matrix on generic points")),
)


# --- embeddings: classical MDS of a regular simplex, and of a ring -----------------------------

def _simplex_dense(inputs):
    N, m, v = inputs["N"], inputs["m"], _v(inputs)
    if N + 1 > DENSE_MAX:
        return None
    delta, t = v["delta"], v["tau"] * v["delta"]
    D2 = np.full((N + 1, N + 1), delta**2)
    D2[N, :] = D2[:, N] = t**2
    np.fill_diagonal(D2, 0.0)
    C = np.eye(N + 1) - 1.0 / (N + 1)
    return np.linalg.eigvalsh(-0.5 * C @ D2 @ C)[::-1][:m]


graded(
    "simplex_mds_spectrum",
    function="simplex_mds_spectrum",
    signature="def simplex_mds_spectrum(N, m):",
    docstring=r"""Classical MDS of a regular simplex and an apex.

N points at distance delta from one another, and one more point at distance tau * delta from
each of them (delta and tau YOUR variant's constants): N + 1 points in all. N : int, from 7
to 10^12. m : int, 1 <= m <= 5. Returns the (m,) largest eigenvalues of K = -1/2 C D2 C (the
(N + 1) x (N + 1) double-centred squared distances), decreasing, to a relative 1e-9. Where is
the apex, and how far from the centroid of all N + 1 points?""",
    variant=lambda rng: {"delta": float(rng.choice([0.5, 1.5, 2.0, 3.0, 4.0])),
                         "tau": float(rng.choice([1.2, 1.5, 2.0, 2.5]))},
    make_inputs=lambda rng: {"N": int(rng.integers(7, 40)), "m": int(rng.integers(2, 6))},
    extra_cases=lambda rng: [{"N": int(10 ** rng.uniform(8, 12)), "m": int(rng.integers(2, 6))}],
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(inputs["m"],)],
    properties=(positive_ordered(False),
                dense_agreement(_simplex_dense, "the spectrum of K built from D2")),
)


def _ring_points(N, r, h):
    t = 2 * np.pi * np.arange(N) / N
    return np.c_[r * np.cos(t), r * np.sin(t), h * (-1.0) ** np.arange(N)]


def _ring_dense(inputs):
    N, v = inputs["N"], _v(inputs)
    if N > DENSE_MAX:
        return None
    X = _ring_points(N, v["r"], v["h"])
    X = X - X.mean(axis=0)
    return np.linalg.eigvalsh(X @ X.T)[::-1][:3]


graded(
    "ring_gram_spectrum",
    function="ring_gram_spectrum",
    signature="def ring_gram_spectrum(N):",
    docstring=r"""The non-zero spectrum of the centred Gram matrix of a zig-zag ring.

Point k = 0, ..., N-1 is (r cos(2 pi k / N), r sin(2 pi k / N), h (-1)^k), r and h YOUR variant's
constants; N : even int, from 6 to 10^12. Returns the (3,) largest eigenvalues of K = Xc Xc^T
(Xc the points centred at their mean), decreasing, to a relative 1e-9.""",
    variant=lambda rng: {"r": float(rng.choice([0.5, 1.0, 2.0, 3.0])),
                         "h": float(rng.choice([0.1, 0.3, 2.0, 3.0]))},
    make_inputs=lambda rng: {"N": 2 * int(rng.integers(3, 40))},
    extra_cases=lambda rng: [{"N": 2 * int(10 ** rng.uniform(8, 11))}],
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(3,)],
    properties=(positive_ordered(False),
                dense_agreement(_ring_dense, "the spectrum of the Gram matrix of the points "
                                "built as described")),
)


def _grid_pca_dense(inputs):
    N, M, v = inputs["N"], inputs["M"], _v(inputs)
    if N * M > 4000:
        return None
    i, j = np.meshgrid(np.arange(N), np.arange(M), indexing="ij")
    X = np.c_[v["hx"] * i.ravel(), v["hy"] * j.ravel()]
    X = X - X.mean(axis=0)
    return np.linalg.eigvalsh(X.T @ X / len(X))[::-1]


graded(
    "grid_pca_spectrum",
    function="grid_pca_spectrum",
    signature="def grid_pca_spectrum(N, M):",
    docstring=r"""PCA of the points of a regular grid: the two variances.

The N M points (i hx, j hy), 0 <= i < N, 0 <= j < M, with spacings hx, hy YOUR variant's
constants. N, M : ints up to 10^11. Returns the (2,) eigenvalues of the covariance (1/(N M)
sum of outer products of the centred points), decreasing, to a relative 1e-9.""",
    variant=lambda rng: {"hx": float(rng.choice([0.5, 1.0, 2.0, 3.0])),
                         "hy": float(rng.choice([0.25, 0.75, 1.5, 2.5]))},
    make_inputs=lambda rng: {"N": int(rng.integers(2, 30)), "M": int(rng.integers(2, 30))},
    extra_cases=lambda rng: [{"N": int(10 ** rng.uniform(8, 11)),
                              "M": int(10 ** rng.uniform(8, 11))}],
    outputs=("eigenvalues",),
    shapes=lambda inputs: [(2,)],
    properties=(positive_ordered(False),
                dense_agreement(_grid_pca_dense, "the covariance of the grid's points")),
)


# --- SNE: a row with two distances -------------------------------------------------------------

def _two_level_dense(inputs):
    n1, n2, beta = int(inputs["n1"]), int(inputs["n2"]), _v(inputs)["beta"]
    if n1 + n2 > DENSE_MAX:
        return None
    d = np.r_[np.full(n1, inputs["d1"]), np.full(n2, inputs["d2"])]
    e = -((d / inputs["sigma"]) ** beta)
    p = np.exp(e - e.max())
    p /= p.sum()
    p = p[p > 0]
    return float(np.exp(-(p * np.log(p)).sum()))


def _two_level_small(rng):
    d1 = float(rng.uniform(0.5, 2.0))
    return {"n1": float(rng.integers(1, 40)), "n2": float(rng.integers(1, 40)), "d1": d1,
            "d2": d1 * float(rng.uniform(1.2, 3.0)), "sigma": d1 * float(rng.uniform(0.5, 2.0))}


def _two_level_large(rng):
    d1 = float(rng.uniform(0.5, 2.0))
    return [{"n1": float(int(10 ** rng.uniform(3, 6))), "n2": float(int(10 ** rng.uniform(9, 12))),
             "d1": d1, "d2": d1 * float(rng.uniform(1.5, 3.0)), "sigma": d1 * 1e-3}]


def _perplexity_range(answer, inputs, tol):
    x = float(answer[0])
    return bool(1 - 1e-12 <= x <= (inputs["n1"] + inputs["n2"]) * (1 + 1e-12)), (
        "below 1 or above the number of neighbours")


graded(
    "two_level_perplexity",
    function="two_level_perplexity",
    signature="def two_level_perplexity(n1, n2, d1, d2, sigma):",
    docstring=r"""The perplexity of a row of affinities whose neighbours sit at two distances.

Point i has n1 neighbours at distance d1 and n2 at distance d2 > d1 (n1, n2 up to 10^12, given
as floats). Its affinities are p_j proportional to exp(-(d_j / sigma)^beta), beta YOUR
variant's exponent, normalised over the n1 + n2 neighbours. Returns 2 ** H(p) (H in bits), to
a relative 1e-9, also when sigma is so small that every exp(-(d_j / sigma)^beta) underflows.""",
    variant=lambda rng: {"beta": float(rng.choice([1.0, 1.5, 2.0, 3.0]))},
    make_inputs=_two_level_small,
    n_cases=2,
    extra_cases=_two_level_large,
    outputs=("perplexity",),
    shapes=lambda inputs: [()],
    properties=(Property("between 1 and the number of neighbours", _perplexity_range,
                         hint="a perplexity lies between 1 (one neighbour takes everything) and "
                              "the number of neighbours (all equal)."),
                dense_agreement(_two_level_dense, "the perplexity of the row built as "
                                "described")),
    nan_hint="the row is 0/0: with a small sigma every term underflows. Which shift of the "
             "exponents leaves the ratios unchanged and keeps the largest term representable?",
)


# --- t-SNE: two clusters -----------------------------------------------------------------------

def _two_cluster_dense(inputs):
    n, D, nu = int(inputs["n"]), inputs["D"], _v(inputs)["nu"]
    if 2 * n > DENSE_MAX:
        return None
    Z = np.r_[np.zeros(n), np.full(n, D)][:, None]
    W = (1 + squared_distances(Z) / nu) ** (-(nu + 1) / 2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    return np.array([Q[0, 1], Q[0, n]])


def _q_sums_to_one(answer, inputs, tol):
    (q,), n = answer, inputs["n"]
    if q.shape != (2,):
        return False, "not two numbers"
    total = 2 * n * (n - 1) * q[0] + 2 * n * n * q[1]
    return bool(abs(total - 1) < 1e-9 and np.all(q > 0) and q[0] >= q[1]), (
        "the q_ij of all ordered pairs do not add up to 1, or one is <= 0, or a far pair "
        "has more than a near one")


graded(
    "two_cluster_q",
    function="two_cluster_q",
    signature="def two_cluster_q(n, D):",
    docstring=r"""t-SNE's similarities for two clusters of coincident points.

2n points on a line: n at 0 and n at D. With heavy-tailed weights w_ij = (1 + ||z_i -
z_j||^2 / nu)^(-(nu + 1) / 2) (nu YOUR variant's degrees of freedom) and q_ij = w_ij / sum_{k
!= l} w_kl, returns (q_same, q_other), (2,): q of two different points of the same cluster, and
of two points of different clusters. n : up to 10^12 (a float). D : float > 0.""",
    variant=lambda rng: {"nu": float(rng.choice([0.5, 2.0, 3.0, 5.0]))},
    make_inputs=lambda rng: {"n": float(rng.integers(2, 60)), "D": float(rng.uniform(0.5, 5))},
    extra_cases=lambda rng: [{"n": float(int(10 ** rng.uniform(8, 12))),
                              "D": float(rng.uniform(0.5, 5))}],
    outputs=("q",),
    shapes=lambda inputs: [(2,)],
    properties=(Property("the q of all ordered pairs add up to 1", _q_sums_to_one,
                         hint="count the ordered pairs of each kind (i != j) again: the q_ij of "
                              "all of them must add up to 1."),
                dense_agreement(_two_cluster_dense, "Q computed from the points")),
)


# --- SNE: a geometric row ----------------------------------------------------------------------

def _geometric_dense(inputs):
    N, r, tau = int(inputs["N"]), inputs["r"], _v(inputs)["tau"]
    if N > DENSE_MAX:
        return None
    j = np.arange(1, N + 1)
    logp = j / tau * np.log(r)
    p = np.exp(logp - logp.max())
    p /= p.sum()
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


graded(
    "geometric_entropy",
    function="geometric_entropy",
    signature="def geometric_entropy(N, r):",
    docstring=r"""The entropy of a row whose affinities decay geometrically with the rank.

The neighbours of rank j = 1, ..., N have p_j proportional to r^(j / tau), 0 < r < 1, tau YOUR
variant's temperature. N : int, up to 10^12 (a float). Returns H = -sum_j p_j log2 p_j (bits),
to a relative 1e-9.""",
    variant=lambda rng: {"tau": float(rng.choice([0.5, 2.0, 3.0, 4.0]))},
    make_inputs=lambda rng: {"N": float(rng.integers(3, 60)), "r": float(rng.uniform(0.5, 0.95))},
    extra_cases=lambda rng: [{"N": float(int(10 ** rng.uniform(8, 12))),
                              "r": float(rng.uniform(0.6, 0.95))}],
    outputs=("H",),
    shapes=lambda inputs: [()],
    properties=(Property("between 0 and log2 N bits", lambda a, i, tol: (
        bool(0 < a[0] <= math.log2(i["N"]) * (1 + 1e-12)), "out of range"),
        hint="an entropy over N outcomes lies between 0 and log2 N bits."),
        dense_agreement(_geometric_dense, "the entropy of the row built as described")),
)


# --- SNE: the crowding problem -----------------------------------------------------------------

def _ball_known(answer, inputs, tol):
    """Dimensions 1, 2, 3: a segment, a disc, a ball in a cube (school geometry)."""
    rho = _v(inputs)["rho"]
    d = np.asarray(inputs["d"])
    known = {1: math.log(rho), 2: math.log(math.pi * rho**2 / 4),
             3: math.log(4 / 3 * math.pi * rho**3 / 8)}
    for k, x in zip(d, answer[0], strict=False):
        if int(k) in known and abs(x - known[int(k)]) > 1e-9 * max(1.0, abs(known[int(k)])):
            return False, f"wrong in dimension {int(k)}"
    return True, ""


def _log_fraction_decreasing(answer, inputs, tol):
    x = answer[0]
    return bool(np.all(x < 0) and np.all(np.diff(x) < 0)), "not negative and decreasing in d"


graded(
    "ball_in_cube",
    function="ball_log_fraction",
    signature="def ball_log_fraction(d):",
    docstring=r"""Why high-dimensional neighbourhoods do not fit: the ball in the cube.

The cube [-1, 1]^d holds the ball of radius rho around its centre (rho YOUR variant's
constant). d : (k,) increasing dimensions, from 1 up to 10^9. Returns the (k,) NATURAL
LOGARITHMS of the fraction of the cube's volume inside the ball, each to a relative 1e-9
(the fraction itself underflows long before d = 10^9).""",
    variant=lambda rng: {"rho": float(rng.choice([0.5, 0.6, 0.7, 0.8, 0.9]))},
    make_inputs=lambda rng: {"d": np.r_[1.0, 2.0, 3.0, np.sort(rng.integers(4, 50, size=3))]},
    extra_cases=lambda rng: [{"d": np.sort(10 ** rng.uniform(3, 9, size=4)).round()}],
    outputs=("log_fraction",),
    shapes=shape_of("d"),
    properties=(Property("negative and decreasing in d", _log_fraction_decreasing,
                         hint="the fraction is below 1 and shrinks with d: its logarithm is "
                              "negative and decreasing."),
                Property("right in dimensions 1, 2 and 3 (a segment, a disc, a ball)",
                         _ball_known, hint="your formula is wrong in dimension 1, 2 or 3, "
                                           "where the volumes are school geometry.")),
)
