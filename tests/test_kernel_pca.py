"""Kernel PCA: parity with scikit-learn for every kernel, fit and out-of-sample transform."""

import re
import warnings

import numpy as np
import pytest
import sklearn.decomposition as skd
from sklearn.datasets import make_s_curve, make_swiss_roll
from sklearn.preprocessing import KernelCenterer

from mlnotes import PCA, KernelPCA
from mlnotes.kernels import rbf_kernel
from mlnotes.spectral import flip_signs

DATASETS = {
    "s_curve": lambda: make_s_curve(260, random_state=0)[0],
    "swiss_roll": lambda: make_swiss_roll(260, random_state=0)[0] / 10,
}
KERNELS = [
    ("linear", {}),
    ("poly", {"degree": 2, "gamma": 0.5, "coef0": 1.0}),
    ("rbf", {"gamma": 0.5}),
    ("rbf", {}),
    ("sigmoid", {"gamma": 0.05, "coef0": 0.1}),
]


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("kernel, params", KERNELS)
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_parity_with_sklearn_fit_and_transform(name, kernel, params, solver):
    X = DATASETS[name]()
    train, new = X[:220], X[220:]
    ours = KernelPCA(n_components=2, kernel=kernel, eigen_solver=solver, **params).fit(train)
    theirs = skd.KernelPCA(n_components=2, kernel=kernel, eigen_solver=solver, **params).fit(train)
    # same sign rule as scikit-learn's KernelPCA (svd_flip on the eigenvectors)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(ours.embedding_, theirs.transform(train), atol=1e-8)
    np.testing.assert_allclose(ours.transform(new), theirs.transform(new), atol=1e-8)


def test_precomputed_kernel_equals_named_kernel():
    X = DATASETS["s_curve"]()
    train, new = X[:200], X[200:]
    named = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(train)
    pre = KernelPCA(n_components=3, kernel="precomputed").fit(rbf_kernel(train, gamma=0.3))
    np.testing.assert_allclose(pre.embedding_, named.embedding_, atol=1e-10)
    np.testing.assert_allclose(pre.transform(rbf_kernel(new, train, gamma=0.3)), named.transform(new),
                               atol=1e-10)


def test_linear_kernel_pca_is_pca():
    X = DATASETS["swiss_roll"]()
    Z = KernelPCA(n_components=2, kernel="linear").fit_transform(X)
    np.testing.assert_allclose(flip_signs(Z), flip_signs(PCA(n_components=2).fit_transform(X)), atol=1e-8)


def test_training_points_transform_to_their_embedding():
    X = DATASETS["s_curve"]()
    kpca = KernelPCA(n_components=2, kernel="rbf", gamma=1.0).fit(X)
    np.testing.assert_allclose(kpca.transform(X), kpca.embedding_, atol=1e-9)


def test_indefinite_precomputed_kernel_warns_with_size():
    # K = Q diag(10, 5, -2) Q^T with centred orthonormal Q: centring leaves it unchanged
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 3))
    Q, _ = np.linalg.qr(A - A.mean(axis=0))
    K = Q @ np.diag([10.0, 5.0, -2.0]) @ Q.T
    with pytest.warns(UserWarning, match=r"The precomputed kernel matrix \(after centring\) is not "
                                         r"positive semi-definite: 1 eigenvalue\(s\) are significantly "
                                         r"negative, the most negative is -2, 0.2 times the largest \(10\)"):
        kpca = KernelPCA(n_components=2, kernel="precomputed").fit(K)
    np.testing.assert_allclose(kpca.eigenvalues_, [10.0, 5.0], rtol=1e-10)


def test_rank_deficient_kernel_asks_for_fewer_components():
    X = DATASETS["s_curve"]()
    with pytest.raises(ValueError, match=r"n_components=4 is too large: the centred Gram matrix has "
                                         r"only 3 positive eigenvalue\(s\) among its top 4 \([\d.]+, "
                                         r"[\d.]+, [\d.]+, -?[\d.e-]+\), so the other coordinates would be "
                                         r"zero or imaginary \(rank 3: .*\); choose n_components <= 3"):
        KernelPCA(n_components=4, kernel="linear").fit(X)


# --- callable kernels and the learned pre-image (issue 25) -----------------------------------------
def _digits_unit():
    from sklearn.datasets import load_digits

    return load_digits().data[:300] / 16.0


@pytest.mark.parametrize("kernel,params", [("rbf", {"gamma": 0.05}), ("rbf", {}),
                                           ("poly", {"degree": 2}), ("linear", {})])
def test_inverse_transform_matches_scikit_learn(kernel, params):
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    X = _digits_unit()
    alpha = 0.1
    ours = KernelPCA(n_components=5, kernel=kernel, fit_inverse_transform=True, alpha=alpha,
                     **params).fit(X)
    theirs = SkKernelPCA(n_components=5, kernel=kernel, fit_inverse_transform=True, alpha=alpha,
                         **params).fit(X)
    Z = ours.transform(X[:50])
    signs = np.sign(np.sum(Z * theirs.transform(X[:50]), axis=0))  # the same rule: all +1
    np.testing.assert_array_equal(signs, 1.0)
    # Tolerance: both solve (K_Z + alpha I) A = X with embeddings that agree to ~1e-14; the
    # solve amplifies relative errors by at most cond(K_Z + alpha I) (~3e3 here, bounded by
    # 1 + N max|k| / alpha), so the pre-images agree to ~1e-11 relative; 1e-9 leaves room
    # for other BLAS kernels
    K = ours._kernel(ours.X_transformed_fit_, gamma=ours.gamma_) + alpha * np.eye(len(X))
    assert np.linalg.cond(K) < 1e4
    X_ours, X_theirs = ours.inverse_transform(Z), theirs.inverse_transform(Z)
    np.testing.assert_allclose(X_ours, X_theirs, rtol=0, atol=1e-9 * np.abs(X_theirs).max())
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-9,
                               atol=1e-9 * np.abs(theirs.dual_coef_).max())


def test_preimage_is_the_kernel_ridge_solution():
    # A = (K_Z + alpha I)^{-1} X minimises |X - K_Z A|^2 + alpha tr(A^T K_Z A): the gradient
    # 2 K_Z ((K_Z + alpha I) A - X) vanishes, and a perturbation raises the objective
    X = _digits_unit()[:120]
    kpca = KernelPCA(n_components=4, kernel="rbf", fit_inverse_transform=True, alpha=0.5).fit(X)
    K_Z = kpca._kernel(kpca.X_transformed_fit_, gamma=kpca.gamma_)
    A = kpca.dual_coef_

    def objective(A):
        return np.sum((X - K_Z @ A) ** 2) + 0.5 * np.trace(A.T @ K_Z @ A)

    grad = 2 * K_Z @ ((K_Z + 0.5 * np.eye(len(X))) @ A - X)
    assert np.abs(grad).max() < 1e-10 * np.abs(X).max() * len(X)
    rng = np.random.default_rng(0)
    assert all(objective(A + 1e-3 * rng.normal(size=A.shape)) > objective(A) for _ in range(5))
    np.testing.assert_allclose(kpca.inverse_transform(kpca.embedding_), K_Z @ A, atol=1e-12)


def test_callable_kernel_is_called_on_pairs_of_rows():
    X = _digits_unit()[:80]

    def gaussian(x, y, gamma):
        return np.exp(-gamma * np.sum((x - y) ** 2))

    ours = KernelPCA(n_components=3, kernel=gaussian, kernel_params={"gamma": 0.05}).fit(X)
    named = KernelPCA(n_components=3, kernel="rbf", gamma=0.05).fit(X)
    np.testing.assert_allclose(ours.embedding_, named.embedding_, atol=1e-10)
    np.testing.assert_allclose(ours.transform(X[:7]), named.transform(X[:7]), atol=1e-10)
    back = KernelPCA(n_components=3, kernel=gaussian, kernel_params={"gamma": 0.05},
                     fit_inverse_transform=True).fit(X)
    assert back.inverse_transform(back.embedding_[:3]).shape == (3, X.shape[1])


def test_inverse_transform_refusals():
    X = _digits_unit()[:40]
    with pytest.raises(ValueError, match="inverse_transform needs fit_inverse_transform=True"):
        KernelPCA(kernel="rbf").fit(X).inverse_transform(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="fit_inverse_transform=True needs the kernel on the "
                                         "embedding, which a precomputed kernel does not give"):
        KernelPCA(kernel="precomputed", fit_inverse_transform=True).fit(X @ X.T)
    with pytest.raises(ValueError, match="alpha must be finite and > 0"):
        KernelPCA(kernel="rbf", fit_inverse_transform=True, alpha=0.0).fit(X)
    with pytest.raises(ValueError, match=r"kernel must be one of .* or a callable k\(x, y\), "
                                         "got 'cosine'"):
        KernelPCA(kernel="cosine").fit(X)
    kpca = KernelPCA(kernel="rbf", fit_inverse_transform=True).fit(X)
    with pytest.raises(ValueError, match="Z has 3 features, but KernelPCA is expecting 2"):
        kpca.inverse_transform(np.zeros((2, 3)))


@pytest.mark.parametrize("eigen_solver", ["auto", "dense", "arpack"])
def test_a_psd_precomputed_kernel_above_arpacks_size_fits_with_every_solver(eigen_solver):
    # issue 35, bug 3: an RBF Gram matrix of 267 points; the PSD check asked ARPACK for the
    # smallest eigenvalue of a matrix whose bottom is a cluster near zero, and failed
    X = np.random.default_rng(0).normal(size=(267, 4))
    K = rbf_kernel(X, gamma=0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = KernelPCA(n_components=2, kernel="precomputed", eigen_solver=eigen_solver).fit(K)
    theirs = skd.KernelPCA(n_components=2, kernel="precomputed").fit(K)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)


@pytest.mark.parametrize("eigen_solver", ["auto", "dense", "arpack"])
def test_an_indefinite_precomputed_kernel_is_diagnosed_with_every_solver(eigen_solver):
    X = np.random.default_rng(0).normal(size=(267, 4))
    K = rbf_kernel(X, gamma=0.25)
    K[0, 1] = K[1, 0] = -3.0
    lam_min = np.linalg.eigvalsh(KernelCenterer().fit_transform(K))[0]
    assert lam_min < -1.0
    with pytest.warns(UserWarning, match=r"not positive semi-definite: 1 eigenvalue\(s\) are "
                                         r"significantly negative, the most negative is ") as rec:
        KernelPCA(n_components=2, kernel="precomputed", eigen_solver=eigen_solver).fit(K)
    reported = re.search(r"the most negative is (\S+),", str(rec[0].message)).group(1)
    np.testing.assert_allclose(float(reported), lam_min, rtol=1e-5)
