"""Kernel PCA: parity with scikit-learn for every kernel, fit and out-of-sample transform."""

import numpy as np
import pytest
import sklearn.decomposition as skd
from sklearn.datasets import make_s_curve, make_swiss_roll

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
                                         r"zero or imaginary; choose n_components <= 3"):
        KernelPCA(n_components=4, kernel="linear").fit(X)
