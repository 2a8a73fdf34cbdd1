"""Questions on step 2 and 3 of the recipe for inner-product methods: centring, classical MDS,
PCA and kernel PCA."""

import numpy as np

from ...kernels import center_kernel as _center_kernel
from ...kernels import center_kernel_test as _center_kernel_test
from ...kernels import double_center as _double_center
from ...mds import classical_mds as _classical_mds
from ...pca import principal_components as _principal_components
from ...spectral import top_eigenpairs as _top_eigenpairs
from ..compare import tol_direct, tol_eigvecs
from ..core import Mistake, Property, Question
from ._common import (
    anisotropic_points,
    compare_close,
    compare_eigvecs,
    compare_procrustes,
    psd,
    rbf,
    register,
    squared_distances,
    sums_to,
    symmetric,
    tol_by_size,
)


def _C(N):
    return np.eye(N) - np.ones((N, N)) / N


# --- double centring ---------------------------------------------------------------------------

def _double_center_inputs(rng):
    N = int(rng.integers(8, 25))
    return {"D2": squared_distances(anisotropic_points(rng, N, int(rng.integers(2, 5))))}


register(Question(
    name="kernels.double_center",
    function="double_center",
    signature="def double_center(D2):",
    docstring=r"""Gram matrix from squared distances: K = -1/2 C D2 C, with C = I - 11^T / N.

D2 : (N, N) array of squared Euclidean distances. Returns K, an (N, N) array.""",
    make_inputs=_double_center_inputs,
    reference=_double_center,
    compare=compare_close,
    tolerance=tol_by_size("D2"),
    outputs=("K",),
    properties=(symmetric(name="K"), sums_to(0, 1, name="K"), sums_to(0, 0, name="K")),
    mistakes=(
        Mistake("no -1/2", lambda D2: _C(len(D2)) @ D2 @ _C(len(D2)),
                "K equals -2 x the expected: the -1/2 is missing (K = -1/2 C D2 C)."),
        Mistake("+1/2", lambda D2: 0.5 * _C(len(D2)) @ D2 @ _C(len(D2)),
                "K has the wrong sign: the factor is -1/2 (a large distance means a small "
                "inner product)."),
        Mistake("right only", lambda D2: -0.5 * D2 @ _C(len(D2)),
                "rows are centred but columns are not: multiply by C on both sides, "
                "-1/2 C D2 C."),
        Mistake("left only", lambda D2: -0.5 * _C(len(D2)) @ D2,
                "columns are centred but rows are not: multiply by C on both sides, "
                "-1/2 C D2 C."),
        Mistake("distances", lambda D2: -0.5 * _C(len(D2)) @ np.sqrt(D2) @ _C(len(D2)),
                "you double-centred the distances; double centring needs the squared "
                "distances D2."),
        Mistake("no 1/N", lambda D2: -0.5 * (np.eye(len(D2)) - 1) @ D2 @ (np.eye(len(D2)) - 1),
                "the centring matrix is C = I - 11^T / N: the 1/N is missing."),
    ),
))


# --- kernel centring (training) ----------------------------------------------------------------

def _kernel_inputs(rng):
    N = int(rng.integers(8, 25))
    X = anisotropic_points(rng, N, 3)
    return {"K": rbf(X, gamma=float(rng.uniform(0.1, 0.5)))}


register(Question(
    name="kernels.center_kernel",
    function="center_kernel",
    signature="def center_kernel(K):",
    docstring=r"""Centre a training kernel matrix in feature space: C K C, C = I - 11^T / N.

K : (N, N) kernel matrix k(x_i, x_j). Returns the (N, N) centred kernel.""",
    make_inputs=_kernel_inputs,
    reference=_center_kernel,
    compare=compare_close,
    tolerance=tol_by_size("K"),
    outputs=("K_centred",),
    properties=(symmetric(), sums_to(0, 1), sums_to(0, 0), psd()),
    mistakes=(
        Mistake("left only", lambda K: _C(len(K)) @ K,
                "columns are centred but rows are not: centre on both sides, C K C."),
        Mistake("right only", lambda K: K @ _C(len(K)),
                "rows are centred but columns are not: centre on both sides, C K C."),
        Mistake("grand mean sign",
                lambda K: K - K.mean(0)[None] - K.mean(1)[:, None] - K.mean(),
                "the grand mean must be added back, not subtracted: "
                "K - row means - column means + overall mean."),
        Mistake("grand mean only", lambda K: K - K.mean(),
                "subtracting the overall mean does not centre the points: subtract row and "
                "column means and add back the overall mean (C K C)."),
    ),
))


# --- kernel centring (test points) -------------------------------------------------------------

def _kernel_test_inputs(rng):
    N, M = int(rng.integers(8, 20)), int(rng.integers(3, 8))
    X, Y = anisotropic_points(rng, N, 3), anisotropic_points(rng, M, 3)
    gamma = float(rng.uniform(0.1, 0.5))
    return {"K_test": rbf(Y, X, gamma=gamma), "K_train": rbf(X, gamma=gamma)}


def _own_means(K_test, K_train):
    M, N = K_test.shape
    return _C(M) @ K_test @ _C(N)


def _no_grand(K_test, K_train):
    return K_test - K_train.mean(0)[None, :] - K_test.mean(1)[:, None]


register(Question(
    name="kernels.center_kernel_test",
    function="center_kernel_test",
    signature="def center_kernel_test(K_test, K_train):",
    docstring=r"""Centre the kernel between new points and training points with the TRAINING means.

K_test : (M, N) array, k(new point a, training point j).
K_train : (N, N) training kernel matrix.
Returns the (M, N) centred test kernel
K_test - 1_M K_train / N - K_test 1_N / N + 1_M K_train 1_N / N^2
(1_M, 1_N: matrices of ones of the right shapes).""",
    make_inputs=_kernel_test_inputs,
    reference=_center_kernel_test,
    compare=compare_close,
    tolerance=tol_by_size("K_train"),
    outputs=("K_test_centred",),
    mistakes=(
        Mistake("own means", _own_means,
                "the test kernel was centred with its own means: new points must be centred "
                "with the training means (they are not part of the training set)."),
        Mistake("no grand mean", _no_grand,
                "the overall mean of K_train must be added back (+ 1_M K_train 1_N / N^2)."),
        Mistake("train centred", lambda K_test, K_train: K_test - K_train.mean(0)[None, :],
                "only the training column means were subtracted: also subtract each new "
                "point's mean over the training points and add back the overall mean."),
    ),
))


# --- classical MDS -----------------------------------------------------------------------------

def _mds_inputs(rng):
    N = int(rng.integers(10, 25))
    X = anisotropic_points(rng, N, 4)
    return {"D": np.sqrt(squared_distances(X)), "n_components": 2}


def _gram(D):
    return -0.5 * _C(len(D)) @ (D**2) @ _C(len(D))


def _mds_from(K, n_components, *, power=0.5, largest=True):
    lam, V = np.linalg.eigh(K)
    idx = np.argsort(lam)[::-1] if largest else np.argsort(lam)
    idx = idx[:n_components]
    return V[:, idx] * np.abs(lam[idx]) ** power


def _mds_eigenvalues(inputs, Z):
    return (Z**2).sum(0)


def _mds_tolerance(inputs, expected):
    K = _gram(inputs["D"])
    return tol_eigvecs(K, np.linalg.eigvalsh(K), inputs["n_components"])


register(Question(
    name="mds.classical_mds",
    function="classical_mds",
    signature="def classical_mds(Delta, n_components):",
    docstring=r"""Classical MDS: an embedding whose inner products best match K = -1/2 C D2 C.

Delta : (N, N) array of Euclidean distances (not squared), D2 their squares. n_components : int d.
Returns Z, an (N, d) array: Z = V_d Lambda_d^(1/2), the top-d eigenvectors of K scaled by
the square roots of their eigenvalues (largest first; each column's sign is free).""",
    make_inputs=_mds_inputs,
    reference=lambda D, n_components: _classical_mds(D, n_components)[0],
    compare=compare_eigvecs(_mds_eigenvalues),
    tolerance=_mds_tolerance,
    outputs=("Z",),
    properties=(sums_to(0, 0, name="Z", hint=(
        "the embedding is not centred, so K was probably not double-centred: classical MDS "
        "diagonalises K = -1/2 C D^2 C, with C = I - 11^T / N on both sides (without C the "
        "top eigenvector points from the origin to the data's mean)")),),
    depends_on=("kernels.double_center",),
    mistakes=(
        Mistake("unscaled", lambda D, n_components: _mds_from(_gram(D), n_components, power=0),
                "the columns are unit eigenvectors: scale column l by sqrt(lambda_l) "
                "(Z = V Lambda^(1/2))."),
        Mistake("lambda", lambda D, n_components: _mds_from(_gram(D), n_components, power=1),
                "the columns are scaled by lambda_l; the scale is sqrt(lambda_l)."),
        Mistake("unsquared", lambda D, n_components: _mds_from(
            -0.5 * _C(len(D)) @ D @ _C(len(D)), n_components),
            "you double-centred the distances: square them first (K = -1/2 C D^2 C)."),
        Mistake("smallest", lambda D, n_components: _mds_from(
            _gram(D), n_components, largest=False),
            "these are the eigenvectors of the smallest eigenvalues: take the largest."),
    ),
))


# --- PCA reconstruction error ------------------------------------------------------------------

def _pca_inputs(rng):
    N, D = int(rng.integers(15, 40)), int(rng.integers(3, 6))
    X = anisotropic_points(rng, N, D) + rng.normal(size=D) * 5  # an offset: centring matters
    return {"X": X, "n_components": int(rng.integers(1, D))}


def _variances(X, *, centre=True, ddof=0):
    Xc = X - X.mean(0) if centre else X
    return np.sort(np.linalg.eigvalsh(Xc.T @ Xc / (len(X) - ddof)))[::-1]


def _pca_error(X, n_components):
    """Mean squared reconstruction error = the variance in the discarded directions."""
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc / len(X)  # covariance (1/N)
    _, V = _top_eigenpairs(S, n_components)
    residual = Xc - Xc @ V @ V.T  # x - V V^T x for each centred x
    return float((residual**2).sum() / len(X))


register(Question(
    name="pca.reconstruction_error",
    function="pca_reconstruction_error",
    signature="def pca_reconstruction_error(X, n_components):",
    docstring=r"""Mean squared reconstruction error of PCA with d components.

X : (N, p) data, one sample per row. n_components : int d.
Returns (1/N) sum_i ||x_i - x_hat_i||^2, where x_hat_i is the projection of x_i onto the
mean plus the top-d principal directions (it equals the sum of the discarded eigenvalues of
the covariance matrix (1/N) X_c^T X_c).""",
    make_inputs=_pca_inputs,
    reference=_pca_error,
    compare=compare_close,
    tolerance=lambda inputs, expected: tol_direct(inputs["X"].shape[0]) * 10,
    outputs=("error",),
    properties=(Property("the error is >= 0", lambda a, i, tol: (a[0] >= -tol, "")),),
    mistakes=(
        Mistake("kept", lambda X, n_components: _variances(X)[:n_components].sum(),
                "that is the variance kept by the top components; the error is the "
                "variance lost (the discarded eigenvalues)."),
        Mistake("uncentred", lambda X, n_components: _variances(X, centre=False)[
            n_components:].sum(),
            "the data were not centred: subtract the mean before finding the directions "
            "(and add it back when reconstructing)."),
        Mistake("N-1", lambda X, n_components: _variances(X, ddof=1)[n_components:].sum(),
                "divided by N - 1: the question asks for the mean over the N samples."),
        Mistake("sum", lambda X, n_components: len(X) * _variances(X)[n_components:].sum(),
                "that is the total over samples: divide by N for the mean."),
    ),
))


# --- PCA: the principal subspace --------------------------------------------------------------

def _subspace_inputs(rng):
    N, D = int(rng.integers(20, 40)), int(rng.integers(4, 7))
    L = 2
    # two (nearly) equal leading variances: the axes are ill-defined, their span is not
    X = anisotropic_points(rng, N, D, spread=(3.0, 3.0, 1.0, 0.6, 0.4, 0.3)) + rng.normal(size=D)
    return {"X": X, "n_components": L}


def _axes(X, n_components, *, centre=True, largest=True, power=0.0):
    Xc = X - X.mean(0) if centre else X
    lam, V = np.linalg.eigh(Xc.T @ Xc / len(X))
    idx = (np.argsort(lam)[::-1] if largest else np.argsort(lam))[:n_components]
    return V[:, idx] * lam[idx] ** power


def _subspace_tolerance(inputs, expected):
    Xc = inputs["X"] - inputs["X"].mean(0)
    S = Xc.T @ Xc / len(Xc)
    return tol_eigvecs(S, np.linalg.eigvalsh(S), inputs["n_components"])


def _orthonormal(answer, inputs, tol):
    V = answer[0]
    err = float(np.abs(V.T @ V - np.eye(V.shape[1])).max())
    return err <= max(tol, 1e-10), f"largest |V^T V - I| entry is {err:.1e}"


register(Question(
    name="pca.principal_subspace",
    function="principal_subspace",
    signature="def principal_subspace(X, n_components):",
    docstring=r"""An orthonormal basis of PCA's top-d principal subspace.

    X : (N, p) data. n_components : int d. Returns V, (p, d), with orthonormal columns spanning
    the eigenvectors of the L largest eigenvalues of the covariance of the centred data. Any
    orthonormal basis of that subspace is right (the leading variances may be equal).""",
    make_inputs=_subspace_inputs,
    reference=lambda X, n_components: _principal_components(X, n_components)[0].T,
    compare=compare_procrustes,
    tolerance=_subspace_tolerance,
    outputs=("V",),
    properties=(Property("the columns are orthonormal", _orthonormal),),
    mistakes=(
        Mistake("uncentred", lambda **kw: _axes(**kw, centre=False),
                "the data were not centred: the mean pulls the leading direction towards it; "
                "subtract the mean first."),
        Mistake("smallest", lambda **kw: _axes(**kw, largest=False),
                "that is the subspace of the smallest variances: take the largest."),
        Mistake("scaled", lambda **kw: _axes(**kw, power=0.5),
                "the columns are scaled by sqrt(lambda) (loadings): return unit-norm, "
                "orthonormal columns."),
    ),
))


# --- kernel PCA: projecting new points ---------------------------------------------------------

def _kpca_inputs(rng):
    d = _kernel_test_inputs(rng)
    d["n_components"] = 2
    return d


def _kpca_project(K_test, K_train, n_components, *, test_centring="train", power=-0.5):
    N = len(K_train)
    lam, V = np.linalg.eigh(_C(N) @ K_train @ _C(N))
    idx = np.argsort(lam)[::-1][:n_components]
    if test_centring == "train":
        Kt = _center_kernel_test(K_test, K_train)
    elif test_centring == "own":
        Kt = _own_means(K_test, K_train)
    else:
        Kt = K_test
    return Kt @ V[:, idx] * lam[idx] ** power


def _kpca_reference(K_test, K_train, n_components):
    lam, V = _top_eigenpairs(_center_kernel(K_train), n_components)
    return _center_kernel_test(K_test, K_train) @ V / np.sqrt(lam)  # K_c,test v / sqrt(lambda)


def _kpca_tolerance(inputs, expected):
    Kc = _center_kernel(inputs["K_train"])
    lam = np.linalg.eigvalsh(Kc)
    k = inputs["n_components"]
    # dividing by sqrt(lambda_L) amplifies the error of the smallest kept eigenvalue
    return tol_eigvecs(Kc, lam, k) * np.sqrt(lam.max() / np.sort(lam)[::-1][k - 1])


register(Question(
    name="kernel_pca.transform",
    depends_on=("kernels.center_kernel_test", "kernels.center_kernel"),
    function="kernel_pca_transform",
    signature="def kernel_pca_transform(K_test, K_train, n_components):",
    docstring=r"""Kernel PCA coordinates of new points.

K_test : (M, N) kernel between new points and the training points.
K_train : (N, N) training kernel matrix. n_components : int d.
Centre K_train (C K C) and find its top-d eigenpairs (lambda_l, v_l), unit-norm v_l;
centre K_test with the TRAINING means; return the (M, L) array whose column l is
K_test_centred v_l / sqrt(lambda_l) (each column's sign is free).""",
    make_inputs=_kpca_inputs,
    reference=_kpca_reference,
    compare=compare_eigvecs(lambda inputs, Z: np.sort(np.linalg.eigvalsh(
        _center_kernel(inputs["K_train"])))[::-1][: inputs["n_components"]]),
    tolerance=_kpca_tolerance,
    outputs=("Z_test",),
    mistakes=(
        Mistake("uncentred", lambda **kw: _kpca_project(**kw, test_centring="none"),
                "the new points' kernel was not centred: centre it with the training means "
                "before projecting."),
        Mistake("own means", lambda **kw: _kpca_project(**kw, test_centring="own"),
                "the new points' kernel was centred with its own means: use the training "
                "means."),
        Mistake("sqrt", lambda **kw: _kpca_project(**kw, power=0.5),
                "multiplied by sqrt(lambda): the projection divides by sqrt(lambda) "
                "(unit-norm feature-space axes)."),
        Mistake("unscaled", lambda **kw: _kpca_project(**kw, power=0.0),
                "not divided by sqrt(lambda): with unit-norm v the feature-space axis is "
                "sum_j v_j phi(x_j) / sqrt(lambda)."),
    ),
))
