"""Step 2: centring, double centring, kernels with train and test centring."""

import numpy as np
import pytest
import sklearn.metrics.pairwise as skp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.preprocessing import KernelCenterer

from mlnotes import kernels
from mlnotes.graphs import squared_distances
from mlnotes.kernels import (
    center_kernel,
    center_kernel_test,
    centering_matrix,
    double_center,
    kernel_lower_triangle,
    kernel_matrix,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
data = st.integers(2, 12).flatmap(
    lambda n: st.integers(1, 4).flatmap(lambda d: arrays(np.float64, (n, d), elements=finite))
)


def test_centering_matrix_is_symmetric_idempotent_and_kills_constants():
    C = centering_matrix(6)
    np.testing.assert_allclose(C, C.T)
    np.testing.assert_allclose(C @ C, C, atol=1e-15)
    np.testing.assert_allclose(C @ np.ones(6), 0, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(data)
def test_double_centering_gives_centred_gram_matrix(X):
    K = double_center(squared_distances(X))
    scale = max(1.0, float(np.abs(X).max()) ** 2)
    np.testing.assert_allclose(K.sum(axis=0), 0, atol=1e-9 * scale * len(X))
    np.testing.assert_allclose(K.sum(axis=1), 0, atol=1e-9 * scale * len(X))
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(K, Xc @ Xc.T, atol=1e-9 * scale)
    C = centering_matrix(len(X))
    np.testing.assert_allclose(K, -0.5 * C @ squared_distances(X) @ C, atol=1e-9 * scale)


@settings(max_examples=40, deadline=None)
@given(data)
def test_kernel_centring_is_idempotent_and_matches_C_K_C(X):
    K = rbf_kernel(X, gamma=0.1) + linear_kernel(X)
    Kc = center_kernel(K)
    scale = max(1.0, float(np.abs(K).max()))
    np.testing.assert_allclose(center_kernel(Kc), Kc, atol=1e-10 * scale)
    C = centering_matrix(len(X))
    np.testing.assert_allclose(Kc, C @ K @ C, atol=1e-10 * scale)


@pytest.mark.parametrize(
    "ours, theirs, kwargs",
    [
        (linear_kernel, skp.linear_kernel, {}),
        (polynomial_kernel, skp.polynomial_kernel, {"degree": 2, "gamma": 0.3, "coef0": 2.0}),
        (polynomial_kernel, skp.polynomial_kernel, {}),
        (rbf_kernel, skp.rbf_kernel, {"gamma": 0.7}),
        (rbf_kernel, skp.rbf_kernel, {}),
        (sigmoid_kernel, skp.sigmoid_kernel, {"gamma": 0.2, "coef0": 0.5}),
        (sigmoid_kernel, skp.sigmoid_kernel, {}),
    ],
)
def test_kernels_match_sklearn(ours, theirs, kwargs):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(20, 4)), rng.normal(size=(5, 4))
    np.testing.assert_allclose(ours(X, **kwargs), theirs(X, **kwargs), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ours(Y, X, **kwargs), theirs(Y, X, **kwargs), rtol=1e-12, atol=1e-13)


def test_kernel_matrix_dispatches_by_name():
    X = np.random.default_rng(1).normal(size=(8, 3))
    np.testing.assert_array_equal(kernel_matrix(X, kernel="rbf", gamma=0.5), rbf_kernel(X, gamma=0.5))
    np.testing.assert_array_equal(kernel_matrix(X, kernel="poly", degree=2), polynomial_kernel(X, degree=2))
    with pytest.raises(ValueError, match="kernel must be one of 'linear', 'poly', 'rbf', 'sigmoid'"):
        kernel_matrix(X, kernel="cosine")


def test_test_centring_matches_sklearn_and_feature_space():
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(15, 3)), rng.normal(size=(4, 3))
    K, K_test = linear_kernel(X), linear_kernel(Y, X)
    expected = KernelCenterer().fit(K).transform(K_test)
    np.testing.assert_allclose(center_kernel_test(K_test, K), expected, atol=1e-12)
    # linear kernel: centring in feature space is subtracting the training mean
    mean = X.mean(axis=0)
    np.testing.assert_allclose(center_kernel_test(K_test, K), (Y - mean) @ (X - mean).T, atol=1e-12)
    col = K.mean(axis=0)
    np.testing.assert_allclose(center_kernel_test(K_test, (col, col.mean())), expected, atol=1e-12)
    # the training points themselves, centred as test points, give the centred training kernel
    np.testing.assert_allclose(center_kernel_test(K, K), center_kernel(K), atol=1e-12)


def test_bad_kernel_input():
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        rbf_kernel(np.ones((3, 2)), gamma=-1.0)
    with pytest.raises(ValueError, match="X has 2 features but Y has 3"):
        linear_kernel(np.ones((3, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="K_test has 3 columns but there are 4 training points"):
        center_kernel_test(np.ones((2, 3)), np.ones((4, 4)))
    with pytest.raises(ValueError, match="D2 must be square"):
        double_center(np.ones((3, 4)))


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid"])
def test_kernel_lower_triangle_holds_the_kernel_and_the_whole_row_sums(kernel, monkeypatch):
    # blocks of 5 rows over 23 points (the last block short): rows, columns and diagonal blocks
    monkeypatch.setattr(kernels, "KERNEL_BLOCK_ENTRIES", 5 * 23)
    X = np.random.default_rng(0).normal(size=(23, 3))
    options = dict(kernel=kernel, gamma=0.3, degree=2, coef0=0.5)
    K, row_sums = kernel_lower_triangle(X, **options)
    full = kernel_matrix(X, **options)
    lower = np.tril_indices(23)
    np.testing.assert_allclose(K[lower], full[lower], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(row_sums, full.sum(axis=1), rtol=1e-12)
    if kernel == "rbf":
        assert np.all(np.diag(K) == 1.0)  # k(x, x) = exp(0) exactly


def test_kernel_lower_triangle_refuses_an_unknown_kernel():
    with pytest.raises(ValueError, match="kernel must be one of 'linear', 'poly'"):
        kernel_lower_triangle(np.ones((3, 2)), kernel="laplacian")
