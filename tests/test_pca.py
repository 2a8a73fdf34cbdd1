"""PCA: parity with scikit-learn, reconstruction, the dual (Gram) route."""

import numpy as np
import pytest
import sklearn.decomposition as skd
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes import PCA
from mlnotes.pca import principal_components

DATASETS = {
    "s_curve": lambda: make_s_curve(400, noise=0.05, random_state=0)[0],
    "swiss_roll": lambda: make_swiss_roll(400, noise=0.05, random_state=0)[0],
}


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("n_components", [1, 2, 3])
def test_parity_with_sklearn(name, n_components):
    X = DATASETS[name]()
    ours = PCA(n_components=n_components).fit(X)
    theirs = skd.PCA(n_components=n_components).fit(X)
    # same sign rule (largest-magnitude entry of each axis positive), so no alignment needed
    np.testing.assert_allclose(ours.components_, theirs.components_, atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-8)
    np.testing.assert_allclose(ours.fit_transform(X), theirs.transform(X), atol=1e-8)
    Y = X[:10] + 1.0
    np.testing.assert_allclose(ours.transform(Y), theirs.transform(Y), atol=1e-8)
    Z = ours.transform(Y)
    np.testing.assert_allclose(ours.inverse_transform(Z), theirs.inverse_transform(Z), atol=1e-8)


def test_full_rank_reconstruction_is_exact_and_error_is_discarded_variance():
    X = DATASETS["s_curve"]()
    full = PCA(n_components=3).fit(X)
    np.testing.assert_allclose(full.inverse_transform(full.transform(X)), X, atol=1e-10)
    two = PCA(n_components=2).fit(X)
    error = ((X - two.inverse_transform(two.transform(X))) ** 2).sum()
    # Eckart-Young: the squared error is (N - 1) times the discarded eigenvalue
    np.testing.assert_allclose(error, (len(X) - 1) * full.explained_variance_[2], rtol=1e-10)


def test_dual_route_for_wide_data_matches_primal():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 50)) @ np.diag(np.linspace(3, 0.1, 50))
    components, variance, mean = principal_components(X, 4)
    theirs = skd.PCA(4, svd_solver="full").fit(X)
    np.testing.assert_allclose(components, theirs.components_, atol=1e-8)
    np.testing.assert_allclose(variance, theirs.explained_variance_, rtol=1e-8)


def test_not_fitted_and_shape_errors():
    with pytest.raises(RuntimeError, match="This PCA is not fitted yet; call fit"):
        PCA().transform(np.ones((2, 3)))
    pca = PCA(n_components=2).fit(DATASETS["s_curve"]())
    with pytest.raises(ValueError, match=r"X has 2 features, but PCA is expecting 3 features as "
                                         r"input \(the model was fitted on 3\)"):
        pca.transform(np.ones((2, 2)))
    with pytest.raises(ValueError, match="Z has 3 columns but the model has 2 components"):
        pca.inverse_transform(np.ones((2, 3)))


def test_components_past_the_rank_are_orthonormal_when_features_outnumber_samples():
    # issue 35, bug 1: 8 x 10 data of centred rank 3; the dual route divided by sigma ~ 0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3)) @ rng.normal(size=(3, 10)) + rng.normal(size=10)
    pca = PCA(n_components=None).fit(X)
    V = pca.components_
    assert V.shape == (7, 10)
    np.testing.assert_allclose(V @ V.T, np.eye(7), atol=1e-12)
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-12)
    np.testing.assert_allclose(pca.explained_variance_,
                               skd.PCA().fit(X).explained_variance_[:7], atol=1e-12)


@pytest.mark.parametrize("shape", [(60, 5), (12, 30)])
@pytest.mark.parametrize("n_components", [2, None])
def test_whiten_singular_values_and_noise_variance_match_sklearn(shape, n_components):
    rng = np.random.default_rng(1)
    X = rng.normal(size=shape) * np.linspace(1, 4, shape[1]) + 3.0
    ours = PCA(n_components=n_components, whiten=True).fit(X)
    theirs = skd.PCA(n_components=n_components, whiten=True, svd_solver="full").fit(X)
    k = ours.n_components_
    np.testing.assert_allclose(ours.singular_values_, theirs.singular_values_[:k], rtol=1e-10)
    if n_components is not None:  # (None: scikit-learn keeps the N-th, zero-variance axis)
        np.testing.assert_allclose(ours.noise_variance_, theirs.noise_variance_, rtol=1e-10)
    Z = ours.transform(X)
    np.testing.assert_allclose(np.abs(Z), np.abs(theirs.transform(X)[:, :k]), atol=1e-8)
    np.testing.assert_allclose(Z.std(axis=0, ddof=1), 1.0, rtol=1e-10)  # whitened
    np.testing.assert_allclose(ours.fit_transform(X), Z, atol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(Z),
                               PCA(n_components=n_components).fit(X).inverse_transform(
                                   PCA(n_components=n_components).fit(X).transform(X)),
                               atol=1e-10)


def test_whitening_rank_deficient_data_stays_finite():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6))  # rank 2 in 6 dimensions
    Z = PCA(n_components=None, whiten=True).fit_transform(X)
    assert np.isfinite(Z).all()
    np.testing.assert_allclose(Z[:, :2].std(axis=0, ddof=1), 1.0, rtol=1e-10)
