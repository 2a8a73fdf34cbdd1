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


# --- landmark MDS and out-of-sample (issue 17) ---------------------------------------------------
def _cloud(n=200, seed=0):
    return np.random.default_rng(seed).normal(size=(n, 5)) * [5.0, 3.0, 1.0, 0.5, 0.1]


@pytest.mark.parametrize("landmarks", ["random", "maxmin"])
def test_all_points_as_landmarks_is_exact(landmarks):
    X = _cloud()
    exact = ClassicalMDS(n_components=3).fit(X)
    lm = ClassicalMDS(n_components=3, n_landmarks=len(X), landmarks=landmarks,
                      random_state=0).fit(X)
    assert sorted(lm.landmarks_) == list(range(len(X)))
    np.testing.assert_allclose(lm.embedding_, exact.embedding_, atol=1e-9)
    np.testing.assert_allclose(lm.eigenvalues_, exact.eigenvalues_, atol=1e-9)


@pytest.mark.parametrize("landmarks", ["random", "maxmin"])
def test_landmark_mds_reproduces_classical_mds_of_the_landmarks(landmarks):
    X = _cloud()
    lm = ClassicalMDS(n_components=3, n_landmarks=25, landmarks=landmarks, random_state=1).fit(X)
    alone = ClassicalMDS(n_components=3).fit(X[lm.landmarks_])
    np.testing.assert_allclose(lm.embedding_[lm.landmarks_], alone.embedding_, atol=1e-9)
    np.testing.assert_allclose(lm.eigenvalues_, alone.eigenvalues_, atol=1e-9)


def test_triangulation_is_exact_for_data_of_rank_d():
    # points in a 3-D affine subspace of R^6: 3 coordinates reproduce every distance, and
    # triangulation from any 10 landmarks in general position recovers them all
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3)) @ rng.normal(size=(3, 6)) + rng.normal(size=6)
    Z = ClassicalMDS(n_components=3, n_landmarks=10, random_state=0).fit_transform(X)
    np.testing.assert_allclose(pairwise_distances(Z), pairwise_distances(X), atol=1e-8)


def test_landmarks_are_seeded_and_maxmin_takes_the_farthest_point():
    X = _cloud()
    a = ClassicalMDS(n_landmarks=20, random_state=3).fit(X).landmarks_
    b = ClassicalMDS(n_landmarks=20, random_state=3).fit(X).landmarks_
    c = ClassicalMDS(n_landmarks=20, random_state=4).fit(X).landmarks_
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert len(set(a)) == 20
    mm = ClassicalMDS(n_landmarks=5, landmarks="maxmin", random_state=0).fit(X).landmarks_
    D = pairwise_distances(X)
    for l in range(1, 5):  # each new landmark maximises the distance to the nearest chosen one
        assert mm[l] == np.argmax(D[mm[:l]].min(axis=0))


def test_transform_is_pca_projection_and_reproduces_the_training_points():
    X = _cloud()
    new = _cloud(20, seed=9)
    mds = ClassicalMDS(n_components=3).fit(X)
    np.testing.assert_allclose(mds.transform(X), mds.embedding_, atol=1e-9)
    pca = PCA(n_components=3).fit(X)
    np.testing.assert_allclose(flip_signs(np.vstack([mds.embedding_, mds.transform(new)]))[-20:],
                               flip_signs(np.vstack([pca.embedding_, pca.transform(new)]))[-20:],
                               atol=1e-9)
    pre = ClassicalMDS(n_components=3, dissimilarity="precomputed").fit(pairwise_distances(X))
    np.testing.assert_allclose(pre.transform(pairwise_distances(new, X)), mds.transform(new),
                               atol=1e-9)
    lm = ClassicalMDS(n_components=3, n_landmarks=30, random_state=0).fit(X)
    np.testing.assert_allclose(lm.transform(X), lm.embedding_, atol=1e-9)
    # the same landmarks from a precomputed matrix give the same embedding and placements
    lm_pre = ClassicalMDS(n_components=3, n_landmarks=30, random_state=0,
                          dissimilarity="precomputed").fit(pairwise_distances(X))
    assert np.array_equal(lm_pre.landmarks_, lm.landmarks_)
    np.testing.assert_allclose(lm_pre.embedding_, lm.embedding_, atol=1e-9)
    np.testing.assert_allclose(lm_pre.transform(pairwise_distances(new, X)), lm.transform(new),
                               atol=1e-9)


def test_landmark_parameters_are_checked():
    X = _cloud(40)
    with pytest.raises(ValueError, match=r"n_landmarks=2 must exceed n_components=2: classical "
                                         r"MDS of l landmarks gives at most l - 1 coordinates"):
        ClassicalMDS(n_landmarks=2).fit(X)
    with pytest.raises(ValueError, match=r"n_landmarks=41 is too large: at most 40 \(n_samples\)"):
        ClassicalMDS(n_landmarks=41).fit(X)
    with pytest.raises(ValueError, match=r"landmarks must be one of 'random', 'maxmin', got "
                                         r"'kmeans'"):
        ClassicalMDS(n_landmarks=10, landmarks="kmeans").fit(X)
    X4 = np.repeat(X[:4], 10, axis=0)
    with pytest.raises(ValueError, match=r"Only 4 distinct points .* fewer than n_landmarks=6"):
        ClassicalMDS(n_landmarks=6, landmarks="maxmin", random_state=0).fit(X4)
    mds = ClassicalMDS(dissimilarity="precomputed").fit(pairwise_distances(X))
    with pytest.raises(ValueError, match=r"the dissimilarities to the training points has 3 "
                                         r"features, but ClassicalMDS is expecting 40"):
        mds.transform(np.ones((2, 3)))
