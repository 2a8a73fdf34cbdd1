"""UMAP's other metrics, precomputed distances and neighbours, sparse input, supervised UMAP and
inverse_transform (mlnotes/umap.py, umap_metrics.py, umap_supervised.py; issue 35).

References: scipy's and scikit-learn's distances, umap-learn's fuzzy graph on the same distances.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mlnotes as ml
from mlnotes.umap_metrics import umap_distances
from mlnotes.umap_supervised import categorical_intersection, check_labels, far_distance


@pytest.fixture(scope="module")
def blobs():
    """Data without tied distances (iris has duplicate rows and ties, which any two searches
    may break differently)."""
    rng = np.random.default_rng(7)
    return rng.normal(size=(100, 4)) + 4.0 * rng.integers(0, 3, size=(100, 1))


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return X, y


def _quiet(model, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ml.DisconnectedGraphWarning)
        return model.fit(*args)


# --- metrics ----------------------------------------------------------------------------------
@pytest.mark.parametrize("metric, sk_name, kwds", [
    ("euclidean", "euclidean", {}), ("l1", "manhattan", {}), ("manhattan", "manhattan", {}),
    ("chebyshev", "chebyshev", {}), ("minkowski", "minkowski", {"p": 3}),
    ("cosine", "cosine", {}), ("correlation", "correlation", {}), ("canberra", "canberra", {}),
    ("braycurtis", "braycurtis", {}), ("hamming", "hamming", {}),
])
def test_named_metrics_equal_scikit_learns(metric, sk_name, kwds):
    from sklearn.metrics import pairwise_distances

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(20, 5)), rng.normal(size=(7, 5))
    D = umap_distances(X, Y, metric=metric, metric_kwds=kwds or None)
    assert np.allclose(D, pairwise_distances(X, Y, metric=sk_name, **kwds), atol=1e-12)


def test_zero_vectors_follow_umap_learns_conventions():
    X = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    D = umap_distances(X, metric="cosine")
    assert D[0, 1] == 0.0 and D[0, 2] == 1.0 and D[2, 0] == 1.0
    C = umap_distances(X, metric="correlation")  # row 3 is constant: zero after centring
    assert C[0, 3] == 0.0 and C[3, 2] == 1.0 and np.isclose(C[2, 2], 0.0)
    assert umap_distances(X, metric="braycurtis")[0, 1] == 0.0


def test_sparse_rows_give_the_dense_distances():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 8)) * (rng.random((25, 8)) < 0.4)
    X[4] = 0.0
    for metric in ("euclidean", "sqeuclidean", "cosine", "correlation"):
        # (the Euclidean distances through |x|^2 + |y|^2 - 2 x.y: round-off near 0 is 3e-8)
        assert np.allclose(umap_distances(sp.csr_matrix(X), metric=metric),
                           umap_distances(X, metric=metric), atol=1e-7), metric
    with pytest.raises(TypeError, match=r"metric='manhattan' needs dense rows.*X.toarray\(\)"):
        umap_distances(sp.csr_matrix(X), metric="manhattan")


def test_graph_in_a_metric_is_built_on_scikit_learns_neighbours(blobs):
    """The neighbours scikit-learn finds in the metric, through the graph construction that
    tests/test_umap.py checks against umap-learn's (umap-learn, below 4 096 points, also builds
    its graph from scikit-learn's pairwise distances in the metric)."""
    from sklearn.neighbors import NearestNeighbors

    k = 15
    for metric in ("manhattan", "cosine", "correlation", "chebyshev"):
        model = _quiet(ml.UMAP(metric=metric, n_epochs=1, random_state=0), blobs)
        dist, ind = NearestNeighbors(n_neighbors=k - 1, metric=metric).fit(blobs).kneighbors()
        P, rho, sigma = ml.umap.fuzzy_graph_from_knn(ind, dist, k)
        assert abs(P - model.graph_).max() < 1e-10, metric  # (round-off of the distances)
        assert np.allclose(rho, model.rho_) and np.allclose(sigma, model.sigma_)


def test_callable_and_precomputed_metrics_give_the_named_metrics_graph(blobs):
    X = blobs
    named = _quiet(ml.UMAP(metric="manhattan", n_epochs=1, random_state=0), X).graph_
    f = _quiet(ml.UMAP(metric=lambda u, v: np.abs(u - v).sum(), n_epochs=1, random_state=0),
               X).graph_
    D = umap_distances(X, metric="manhattan")
    pre = _quiet(ml.UMAP(metric="precomputed", n_epochs=1, random_state=0), D).graph_
    assert abs(named - f).max() < 1e-12 and abs(named - pre).max() < 1e-12
    # a sparse matrix holding every distance is the same graph (zero distances stored)
    S = sp.csr_matrix(D)
    S = S + sp.csr_matrix((np.zeros(0), (np.zeros(0, int), np.zeros(0, int))), shape=D.shape)
    pre_sparse = _quiet(ml.UMAP(metric="precomputed", n_epochs=1, random_state=0), S).graph_
    assert abs(named - pre_sparse).max() < 1e-12


def test_precomputed_transform_takes_distances_to_the_training_points(iris):
    X = iris[0]
    train, new = X[::2], X[1::2]
    model = _quiet(ml.UMAP(metric="precomputed", n_epochs=50, random_state=0),
                   umap_distances(train))
    Z = model.transform(umap_distances(new, train))
    assert Z.shape == (len(new), 2)
    with pytest.raises(ValueError, match=r"transform takes the \(n_new, n_train\) distances"):
        model.transform(new)
    with pytest.raises(ValueError, match="inverse_transform needs the training data"):
        model.inverse_transform(Z)


def test_a_new_point_is_placed_by_its_neighbours_in_the_metric(iris):
    X = iris[0]
    model = _quiet(ml.UMAP(metric="cosine", n_epochs=50, random_state=0), X)
    # a scaled copy is at cosine distance 0 from the original: it lands on its place
    assert np.allclose(model.transform(3.0 * X[:5]), model.embedding_[:5])


# --- precomputed_knn ----------------------------------------------------------------------------
def _knn_with_self(X, k):
    D = umap_distances(X)
    ind = np.argsort(D, axis=1, kind="stable")[:, :k]
    return ind, np.take_along_axis(D, ind, axis=1)


def test_precomputed_knn_gives_the_searched_graph_and_is_checked(blobs):
    X = blobs[:90]
    searched = _quiet(ml.UMAP(n_neighbors=10, n_epochs=1, random_state=0), X)
    ind, dist = _knn_with_self(X, 12)
    given = _quiet(ml.UMAP(n_neighbors=10, n_epochs=1, random_state=0,
                           precomputed_knn=(ind, dist, None)), X)
    assert abs(searched.graph_ - given.graph_).max() < 1e-12
    bad = [((ind[:, :5], dist[:, :5]), r"holds 5 neighbours per point .* needs 10"),
           ((ind[:, 1:], dist[:, 1:]), r"row 0 does not list point 0 itself"),
           ((ind, dist[:, ::-1]), "sorted nearest first"),
           ((ind.astype(float), dist), "integer array"),
           ((ind[:50], dist[:50]), "has 50 rows but X has 90"),
           ((ind,), r"tuple \(knn_indices, knn_dists\)")]
    for knn, match in bad:
        with pytest.raises(ValueError, match=match):
            ml.UMAP(n_neighbors=10, precomputed_knn=knn).fit(X)


# --- sparse input -------------------------------------------------------------------------------
def test_sparse_input_gives_the_dense_inputs_map(blobs):
    X = blobs
    for metric in ("euclidean", "cosine"):
        dense = _quiet(ml.UMAP(metric=metric, n_epochs=30, random_state=0), X)
        sparse = _quiet(ml.UMAP(metric=metric, n_epochs=30, random_state=0), sp.csr_matrix(X))
        assert abs(dense.graph_ - sparse.graph_).max() < 1e-9
        # (the maps themselves differ: round-off in the graph grows through the optimisation)
        assert np.array_equal(sparse.transform(sp.csr_matrix(X[:7])), sparse.embedding_[:7])
        assert sparse.transform(X[:7] + 0.01).shape == (7, 2)
    Zp = _quiet(ml.UMAP(init="pca", n_epochs=5, random_state=0), sp.csr_matrix(X)).embedding_
    assert Zp.shape == (100, 2) and np.isfinite(Zp).all()
    with pytest.raises(TypeError, match="needs dense rows"):
        ml.UMAP(metric="chebyshev").fit(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="not available for sparse training data"):
        _quiet(ml.UMAP(n_epochs=5, random_state=0), sp.csr_matrix(X)).inverse_transform(
            np.zeros((1, 2)))


# --- supervised UMAP ----------------------------------------------------------------------------
def test_the_label_graph_scales_cross_label_edges_then_resets_connectivity():
    rng = np.random.default_rng(0)
    n = 12
    A = sp.random(n, n, density=0.5, random_state=1, data_rvs=lambda k: rng.uniform(0.1, 1, k))
    P = (A + A.T - A.multiply(A.T)).tocsr()
    P.setdiag(0)
    P.eliminate_zeros()
    codes, _ = check_labels(np.array([0, 0, 1, 1, 2, 2, -1, 0, 1, 2, -1, 0]), n)
    out = categorical_intersection(P, codes, target_weight=0.5).toarray()
    Pd = P.toarray()
    t = np.where(codes[:, None] == codes[None, :], 1.0, np.exp(-far_distance(0.5)))
    t[(codes[:, None] == -1) | (codes[None, :] == -1)] = np.exp(-1.0)
    T = Pd * t
    T = T / T.max(axis=1, keepdims=True)
    assert np.allclose(out, T + T.T - T * T.T, atol=1e-15)
    assert np.isclose(far_distance(0.5), 5.0) and far_distance(1.0) > 1e11


def test_labels_pull_each_class_together(iris):
    """The measurable effect: the spread within a label relative to the distance between label
    centres falls, and a 5-NN classifier in the map makes fewer mistakes."""
    X, y = iris

    def within_over_between(Z):
        c = np.array([Z[y == k].mean(axis=0) for k in range(3)])
        within = np.mean([np.linalg.norm(Z[y == k] - c[k], axis=1).mean() for k in range(3)])
        between = np.mean([np.linalg.norm(c[a] - c[b]) for a in range(3) for b in range(a)])
        return within / between

    Z0 = _quiet(ml.UMAP(n_epochs=200, random_state=0), X).embedding_
    model = _quiet(ml.UMAP(n_epochs=200, random_state=0), X, y)
    assert within_over_between(model.embedding_) < 0.7 * within_over_between(Z0)
    cross = lambda G: (lambda C: C.data[y[C.row] != y[C.col]].sum())(G.tocoo())  # noqa: E731
    assert cross(model.graph_) < 0.05 * cross(_quiet(ml.UMAP(n_epochs=1), X).graph_)
    # unlabelled points (-1) and string labels work; the labels are checked
    y_part = y.copy()
    y_part[::3] = -1
    _quiet(ml.UMAP(n_epochs=5, random_state=0), X, y_part)
    _quiet(ml.UMAP(n_epochs=5, random_state=0), X, np.array(["a", "b", "c"])[y])
    with pytest.raises(ValueError, match="y has 149 labels but X has 150 samples"):
        ml.UMAP().fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"target_weight must lie in \[0, 1\]"):
        ml.UMAP(target_weight=1.5).fit(X, y)


# --- inverse_transform --------------------------------------------------------------------------
def test_inverse_transform_of_a_plane_lands_on_the_plane_near_the_originals():
    rng = np.random.default_rng(0)
    uv = rng.uniform(0.0, 1.0, size=(600, 2))  # the unit square, placed in 3-D
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    origin = np.array([1.0, 2.0, 3.0])
    X = origin + uv @ Q[:2]
    model = ml.UMAP(n_epochs=200, random_state=0).fit(X[:500])
    X_back = model.inverse_transform(model.transform(X[500:]))
    assert np.abs((X_back - origin) @ Q[2]).max() < 1e-10  # an affine combination: on the plane
    error = np.linalg.norm(X_back - X[500:], axis=1)
    # within 5% of the square's side for half the points, 15% for 95% (the map's edges, where
    # the regression extrapolates, hold the largest errors)
    assert np.median(error) < 0.05 and np.quantile(error, 0.95) < 0.15
    with pytest.raises(ValueError, match="Z has 3 features"):
        model.inverse_transform(np.zeros((2, 3)))


def test_binary_metrics_refuse_inverse_transform():
    X = (np.random.default_rng(0).random((40, 6)) < 0.5).astype(float)
    model = _quiet(ml.UMAP(metric="jaccard", n_neighbors=5, n_epochs=5, random_state=0), X)
    with pytest.raises(ValueError, match="an average of binary vectors"):
        model.inverse_transform(model.embedding_[:3])


# --- bad metrics --------------------------------------------------------------------------------
@pytest.mark.parametrize("params, match", [
    (dict(metric="foobar"), r"Unknown metric 'foobar'. mlnotes.UMAP offers euclidean"),
    (dict(metric=45), "metric must be a name, 'precomputed' or a callable"),
    (dict(metric="cosine", metric_kwds={"p": 3}), r"metric='cosine' takes no keywords"),
    (dict(metric="minkowski", metric_kwds={"p": 0.5}), "minkowski needs p >= 1"),
    (dict(metric="precomputed"), r"square \(n_samples x n_samples\)"),
    (dict(metric="precomputed", init="pca"), "init='pca' needs the data's coordinates"),
])
def test_bad_metric_settings_say_what_to_do(params, match):
    X = np.random.default_rng(0).normal(size=(30, 4))
    if params.get("init") == "pca":
        X = umap_distances(X)
    with pytest.raises(ValueError, match=match):
        ml.UMAP(**params).fit(X)
