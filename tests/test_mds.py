"""Classical MDS: parity with scikit-learn, equality with PCA scores, strain, eigenvalues."""

import numpy as np
import pytest
import sklearn.manifold as skm
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes import PCA, ClassicalMDS
from mlnotes.graphs import pairwise_distances, squared_distances
from mlnotes.kernels import double_center
from mlnotes.mds import classical_mds, strain
from mlnotes.spectral import flip_signs

DATASETS = {
    "s_curve": lambda: make_s_curve(300, random_state=0)[0],
    "swiss_roll": lambda: make_swiss_roll(300, random_state=0)[0],
}


@pytest.mark.parametrize("name", DATASETS)
def test_parity_with_sklearn(name):
    X = DATASETS[name]()
    ours = ClassicalMDS(n_components=2).fit(X)
    theirs = skm.ClassicalMDS(n_components=2).fit(X)
    # scikit-learn's ClassicalMDS flips eigenvector signs by the same rule
    np.testing.assert_allclose(ours.embedding_, theirs.embedding_, atol=1e-8)
    np.testing.assert_allclose(ours.eigenvalues_[:2], theirs.eigenvalues_, rtol=1e-8)
    pre = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(pairwise_distances(X))
    np.testing.assert_allclose(pre.embedding_, ours.embedding_, atol=1e-10)


@pytest.mark.parametrize("name", DATASETS)
def test_equals_pca_scores_for_euclidean_input(name):
    X = DATASETS[name]()
    Z = ClassicalMDS(n_components=3).fit_transform(X)
    scores = PCA(n_components=3).fit_transform(X)
    np.testing.assert_allclose(flip_signs(Z), flip_signs(scores), atol=1e-8)


def test_all_eigenvalues_reported_and_strain_is_discarded_part():
    X = DATASETS["s_curve"]()
    mds = ClassicalMDS(n_components=2).fit(X)
    lam = mds.eigenvalues_
    assert lam.shape == (len(X),)
    K = double_center(squared_distances(X))
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(K)[::-1], atol=1e-9)
    # Euclidean input: rank 3, the rest is round-off
    assert np.abs(lam[3:]).max() < 1e-9 * lam[0]
    np.testing.assert_allclose(strain(K, mds.embedding_), (lam[2:] ** 2).sum(), rtol=1e-6)


def test_non_euclidean_dissimilarities_warn_and_still_return_eigenvalues():
    # the "taxicab" distances of points on a grid are not Euclidean
    g = np.arange(5.0)
    P = np.array([(a, b) for a in g for b in g])
    Delta = np.abs(P[:, None, :] - P[None, :, :]).sum(-1)
    with pytest.warns(UserWarning, match=r"The Gram matrix K = -1/2 C D2 C is not positive "
                                         r"semi-definite: \d+ eigenvalue\(s\) are significantly "
                                         r"negative, the most negative is "
                                         r"-[\d.]+, [\d.]+ times the largest"):
        mds = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(Delta)
    assert mds.eigenvalues_.min() < 0 and mds.eigenvalues_.shape == (25,)
    lam = np.linalg.eigvalsh(double_center(Delta**2))[::-1]
    np.testing.assert_allclose(mds.eigenvalues_, lam, atol=1e-9)


def test_classical_mds_function_returns_eigenvalues_decreasing():
    X = DATASETS["swiss_roll"]()[:50]
    Z, lam = classical_mds(pairwise_distances(X), 2)
    assert Z.shape == (50, 2) and np.all(np.diff(lam) <= 1e-12)
    np.testing.assert_allclose(Z.T @ Z, np.diag(lam[:2]), atol=1e-8)


def test_too_many_components_for_the_positive_spectrum():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=r"n_components=3 is too large: the double-centred matrix K has "
                                         r"only 2 positive eigenvalue\(s\) among its top 3 .*; choose "
                                         r"n_components <= 2"):
        ClassicalMDS(n_components=3).fit(X)
    with pytest.raises(ValueError, match="dissimilarity must be 'euclidean' or 'precomputed'"):
        ClassicalMDS(dissimilarity="cosine").fit(X)
