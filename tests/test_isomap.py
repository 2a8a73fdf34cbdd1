"""Isomap: parity with scikit-learn (kNN and radius, fit and transform), residual variance."""

import warnings

import numpy as np
import pytest
import sklearn.manifold as skm
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes import ClassicalMDS, DisconnectedGraphWarning, Isomap
from mlnotes.graphs import dijkstra, knn_graph, nearest_neighbors
from mlnotes.metrics import align, residual_variance

DATASETS = {
    "s_curve": (lambda: make_s_curve(330, random_state=0)[0], 0.6),
    "swiss_roll": (lambda: make_swiss_roll(330, random_state=0)[0], 6.0),
}


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("graph", ["n_neighbors", "radius"])
def test_parity_with_sklearn(name, graph):
    make, radius = DATASETS[name]
    X = make()
    train, new = X[:300], X[300:]
    params = {"n_neighbors": 8} if graph == "n_neighbors" else {"n_neighbors": None, "radius": radius}
    ours = Isomap(n_components=2, **params).fit(train)
    theirs = skm.Isomap(n_components=2, **params).fit(train)
    # scikit-learn's Isomap runs KernelPCA, whose sign rule is ours
    np.testing.assert_allclose(ours.geodesic_distances_, theirs.dist_matrix_, atol=1e-10)
    np.testing.assert_allclose(ours.embedding_, theirs.embedding_, atol=1e-8)
    np.testing.assert_allclose(ours.transform(new), theirs.transform(new), atol=1e-8)


def test_disconnected_graph_is_joined_as_scikit_learn_joins_it():
    # three far-apart pieces: both Isomaps join every pair of components by its shortest edge
    X = DATASETS["s_curve"][0]()[:120]
    X3 = np.vstack([X, X[:30] + 20.0, X[50:80] - 20.0])
    with pytest.warns(DisconnectedGraphWarning, match=r"it has 3 connected components \(sizes "
                                                      r"120, 30, 30\).*Isomap joins every pair"):
        ours = Isomap(n_components=2, n_neighbors=6).fit(X3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its own "completing the graph" warning
        theirs = skm.Isomap(n_components=2, n_neighbors=6).fit(X3)
    assert np.isfinite(ours.geodesic_distances_).all()
    np.testing.assert_allclose(ours.geodesic_distances_, theirs.dist_matrix_, atol=1e-10)
    np.testing.assert_allclose(ours.embedding_, theirs.embedding_, atol=1e-8)
    new = X3[[5, 125, 160]] + 0.01
    np.testing.assert_allclose(ours.transform(new), theirs.transform(new), atol=1e-8)


def test_floyd_path_method_gives_the_same_embedding():
    X = DATASETS["s_curve"][0]()[:150]
    a = Isomap(n_components=2, n_neighbors=6).fit_transform(X)
    b = Isomap(n_components=2, n_neighbors=6, path_method="floyd").fit_transform(X)
    np.testing.assert_allclose(a, b, atol=1e-10)


def test_isomap_is_classical_mds_of_geodesic_distances():
    X = DATASETS["swiss_roll"][0]()[:200]
    iso = Isomap(n_components=2, n_neighbors=7, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(iso.geodesic_distances_, dijkstra(knn_graph(X, 7)))
    with pytest.warns(UserWarning, match="not positive semi-definite"):  # geodesics are not Euclidean
        mds = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(iso.geodesic_distances_)
    np.testing.assert_allclose(iso.embedding_, mds.embedding_, atol=1e-8)
    np.testing.assert_allclose(iso.eigenvalues_, mds.eigenvalues_[:2], rtol=1e-10)


def test_residual_variances_per_dimension():
    X = make_s_curve(400, random_state=0)[0]
    iso = Isomap(n_components=3, n_neighbors=10).fit(X)
    rv = iso.residual_variances_
    assert rv.shape == (3,)
    for l in range(3):
        assert rv[l] == pytest.approx(residual_variance(iso.geodesic_distances_, iso.embedding_[:, :l + 1]))
    # the S-curve is 2-D: the elbow is at 2, where almost nothing is left and a third
    # dimension adds little
    assert rv[0] > 0.01 and rv[1] < 0.002 and abs(rv[2] - rv[1]) < 0.001
    iso.fit(X[:200])
    assert iso.residual_variances_[0] == pytest.approx(
        residual_variance(iso.geodesic_distances_, iso.embedding_[:, :1]))  # recomputed after refit


def test_transform_of_training_points_and_radius_gap():
    X = DATASETS["s_curve"][0]()
    iso = Isomap(n_components=2, n_neighbors=None, radius=0.6).fit(X)
    with pytest.raises(ValueError, match=r"New point\(s\) \[0\] have no training point within "
                                         r"radius=0.6.*increase radius"):
        iso.transform(X[:1] + 100.0)


# --- landmark Isomap (issue 17) ------------------------------------------------------------------
def _roll(n=800):
    return make_swiss_roll(n, random_state=0)[0]


def test_all_points_as_landmarks_is_exact_isomap():
    X = _roll(400)
    exact = Isomap(n_neighbors=10).fit(X)
    lm = Isomap(n_neighbors=10, n_landmarks=len(X), random_state=0).fit(X)
    np.testing.assert_allclose(lm.embedding_, exact.embedding_, atol=1e-8)
    new = X[:20] + 0.05
    np.testing.assert_allclose(lm.transform(new), exact.transform(new), atol=1e-8)


@pytest.mark.parametrize("landmarks", ["random", "maxmin"])
def test_landmarks_get_classical_mds_of_their_geodesic_distances(landmarks):
    X = _roll()
    lm = Isomap(n_neighbors=10, n_landmarks=40, landmarks=landmarks, random_state=0).fit(X)
    full = dijkstra(knn_graph(X, 10))
    np.testing.assert_allclose(lm.geodesic_distances_, full[lm.landmarks_], atol=1e-10)
    D_L = full[np.ix_(lm.landmarks_, lm.landmarks_)]
    alone = ClassicalMDS(n_components=2, dissimilarity="precomputed")
    with pytest.warns(UserWarning, match="not Euclidean"):  # geodesics: a little negative
        Z_L = alone.fit_transform(D_L)
    np.testing.assert_allclose(lm.embedding_[lm.landmarks_], Z_L, atol=1e-9)


@pytest.mark.parametrize("landmarks", ["random", "maxmin"])
def test_landmark_isomap_agrees_with_exact_isomap(landmarks):
    X = _roll(1500)
    exact = Isomap(n_neighbors=10).fit_transform(X)
    lm = Isomap(n_neighbors=10, n_landmarks=100, landmarks=landmarks, random_state=0).fit(X)
    # the landmark embedding is centred on the landmarks: compare up to translation as well
    Z = align(lm.embedding_ - lm.embedding_.mean(axis=0), exact, allow="orthogonal")
    assert np.linalg.norm(Z - exact) / np.linalg.norm(exact) < 0.05
    assert lm.residual_variances_.shape == (2,) and lm.residual_variances_[1] < 0.01


def test_landmark_transform_reproduces_training_points_and_places_new_ones():
    X = _roll(900)
    train, new = X[:800], X[800:]
    lm = Isomap(n_neighbors=10, n_landmarks=60, random_state=0).fit(train)
    # a training point is its own nearest neighbour: its geodesic extension is its geodesic row
    np.testing.assert_allclose(lm.transform(train[:50]), lm.embedding_[:50], atol=1e-9)
    # a new point lands among the images of its 10 nearest training points: no farther from
    # their centre than the farthest of them
    Z_new = lm.transform(new)
    images = lm.embedding_[nearest_neighbors(train, 10, new)]  # (M, 10, d)
    centre = images.mean(axis=1)
    spread = np.linalg.norm(images - centre[:, None], axis=2).max(axis=1)
    assert np.all(np.linalg.norm(Z_new - centre, axis=1) <= spread)
