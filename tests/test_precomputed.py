"""Precomputed graphs and affinities (issue 35): a sparse neighbours graph of distances for
Isomap and Laplacian eigenmaps (scikit-learn's KNeighborsTransformer pipelines), a precomputed
affinity and ``spectral_embedding``, and sparse input to kernel PCA, each against the same
method on the data or against scikit-learn."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mlnotes as ml
from mlnotes.eigenmaps import spectral_embedding

sklearn = pytest.importorskip("sklearn")
from sklearn.neighbors import (  # noqa: E402
    KNeighborsTransformer,
    RadiusNeighborsTransformer,
    kneighbors_graph,
)
from sklearn.pipeline import make_pipeline  # noqa: E402


@pytest.fixture(scope="module")
def curve():
    X, _ = ml.datasets.make_s_curve(150, random_state=0)
    X_new, _ = ml.datasets.make_s_curve(20, random_state=1)
    return X, X_new


def _knn_transformer(k):
    return KNeighborsTransformer(n_neighbors=k, mode="distance")


# --- Isomap -------------------------------------------------------------------------------------
def test_isomap_pipeline_equals_isomap_on_the_data(curve):
    X, X_new = curve
    k = 8
    chain = make_pipeline(_knn_transformer(k), ml.Isomap(n_neighbors=k, metric="precomputed"))
    direct = ml.Isomap(n_neighbors=k)
    np.testing.assert_allclose(chain.fit_transform(X), direct.fit_transform(X), atol=1e-10)
    np.testing.assert_allclose(chain.transform(X_new), direct.transform(X_new), atol=1e-10)
    # the graph is the kNN "or" graph of the data: the point itself (stored by the
    # transformer, at distance 0) is left out, and no neighbour beyond the k-th is kept
    graph = chain[-1].graph_
    assert graph.nnz == direct.graph_.nnz and graph.diagonal().max() == 0
    assert (graph.astype(bool) != direct.graph_.astype(bool)).nnz == 0  # the same edges
    np.testing.assert_allclose(graph.toarray(), direct.graph_.toarray(), atol=1e-12)


def test_isomap_takes_a_graph_storing_more_neighbours_than_it_uses(curve):
    X, _ = curve
    G = kneighbors_graph(X, 20, mode="distance")  # 20 others per row, the point left out
    Z = ml.Isomap(n_neighbors=6, metric="precomputed").fit_transform(G)
    np.testing.assert_allclose(Z, ml.Isomap(n_neighbors=6).fit_transform(X), atol=1e-10)


def test_isomap_keeps_explicit_zero_edges_of_duplicate_points(curve):
    X, _ = curve
    X = np.vstack([X, X[:1]])  # point 150 duplicates point 0: an explicit zero edge
    G = _knn_transformer(6).fit_transform(X)
    iso = ml.Isomap(n_neighbors=6, metric="precomputed").fit(G)
    row = slice(iso.graph_.indptr[0], iso.graph_.indptr[1])
    assert 150 in iso.graph_.indices[row]  # stored although its length is 0
    assert iso.graph_[0, 150] == 0
    assert iso.geodesic_distances_[0, 150] == 0
    np.testing.assert_allclose(iso.embedding_, ml.Isomap(n_neighbors=6).fit_transform(X),
                               atol=1e-10)


def test_isomap_radius_graph_equals_the_epsilon_graph(curve):
    X, _ = curve
    r = 0.9
    G = RadiusNeighborsTransformer(radius=r, mode="distance").fit_transform(X)
    Z = ml.Isomap(n_neighbors=None, radius=r, metric="precomputed").fit_transform(G)
    np.testing.assert_allclose(Z, ml.Isomap(n_neighbors=None, radius=r).fit_transform(X),
                               atol=1e-10)


def test_isomap_precomputed_graph_errors(curve):
    X, _ = curve
    iso = ml.Isomap(n_neighbors=8, metric="precomputed")
    with pytest.raises(ValueError, match=r"store only 3 edge\(s\) besides the point itself, but "
                                         r"n_neighbors=8 needs at least 8 in every row"):
        iso.fit(kneighbors_graph(X, 3, mode="distance"))
    G = kneighbors_graph(X, 8, mode="distance")
    with pytest.raises(ValueError, match="has negative entries .* distances"):
        iso.fit(-G)
    A = G.tolil()
    j = G.indices[0]
    A[0, j], A[j, 0] = 1.0, 2.0
    with pytest.raises(ValueError, match=rf"not symmetric: entry \(0, {j}\) = 1 but \({j}, 0\)"
                                         " = 2"):
        iso.fit(A.tocsr())
    line = np.array([0, 1, 2, 5, 6, 7.0])[:, None]
    with pytest.raises(ValueError, match=r"disconnected: it has 2 connected components \(sizes "
                                         r"3, 3\).*build the graph with more neighbours per row"):
        ml.Isomap(n_neighbors=1, metric="precomputed").fit(
            kneighbors_graph(line, 2, mode="distance"))
    fitted = ml.Isomap(n_neighbors=8, metric="precomputed").fit(G)
    with pytest.raises(TypeError, match="fitted on a sparse neighbours graph"):
        fitted.transform(np.ones((2, len(X))))


# --- Laplacian eigenmaps and spectral_embedding --------------------------------------------------
@pytest.mark.parametrize("t", [None, 0.5])
def test_eigenmaps_pipeline_equals_eigenmaps_on_the_data(curve, t):
    X, _ = curve
    k = 8
    chain = make_pipeline(_knn_transformer(k), ml.LaplacianEigenmaps(
        n_neighbors=k, t=t, affinity="precomputed_nearest_neighbors"))
    np.testing.assert_allclose(chain.fit_transform(X),
                               ml.LaplacianEigenmaps(n_neighbors=k, t=t).fit_transform(X),
                               atol=1e-9)


def test_eigenmaps_radius_graph_and_bad_input(curve):
    X, _ = curve
    r = 0.9
    G = RadiusNeighborsTransformer(radius=r, mode="distance").fit_transform(X)
    Z = ml.LaplacianEigenmaps(n_neighbors=None, radius=r, t=0.5,
                              affinity="precomputed_nearest_neighbors").fit_transform(G)
    np.testing.assert_allclose(
        Z, ml.LaplacianEigenmaps(n_neighbors=None, radius=r, t=0.5).fit_transform(X), atol=1e-9)
    with pytest.raises(TypeError, match="must be a scipy.sparse matrix"):
        ml.LaplacianEigenmaps(affinity="precomputed_nearest_neighbors").fit(G.toarray())
    with pytest.raises(ValueError, match="affinity must be one of"):
        ml.LaplacianEigenmaps(affinity="rbf").fit(X)


def test_eigenmaps_precomputed_affinity_matches_scikit_learn(curve):
    from sklearn.manifold import SpectralEmbedding

    X, _ = curve
    theirs = SpectralEmbedding(n_components=2, n_neighbors=8, random_state=0).fit(X)
    W = theirs.affinity_matrix_  # 0.5 (A + A^T) with the points themselves on the diagonal
    for given in (W, W.toarray()):
        ours = ml.LaplacianEigenmaps(n_components=2, affinity="precomputed").fit(given)
        np.testing.assert_allclose(np.abs(ours.embedding_), np.abs(theirs.embedding_),
                                   atol=1e-8)
        assert ours.affinity_matrix_.diagonal().max() == 0  # self-loops dropped
    with pytest.raises(ValueError, match="does not define from data"):
        ours.transform(X[:3])


@pytest.mark.parametrize("norm_laplacian", [True, False])
@pytest.mark.parametrize("drop_first", [True, False])
def test_spectral_embedding_matches_scikit_learn_up_to_sign(curve, norm_laplacian, drop_first):
    from sklearn.manifold import spectral_embedding as sk_spectral_embedding
    from sklearn.metrics.pairwise import rbf_kernel

    X, _ = curve
    W = rbf_kernel(X, gamma=2.0)
    ours = spectral_embedding(W, 4, norm_laplacian=norm_laplacian, drop_first=drop_first)
    theirs = sk_spectral_embedding(W, n_components=4, norm_laplacian=norm_laplacian,
                                   drop_first=drop_first, random_state=0)
    for a, b in zip(ours.T, theirs.T, strict=True):
        assert min(np.abs(a - b).max(), np.abs(a + b).max()) < 1e-8
    if norm_laplacian:  # V^T D V = I with the degrees of W without its diagonal
        d = W.sum(axis=1) - 1.0
        np.testing.assert_allclose(ours.T @ (d[:, None] * ours), np.eye(4), atol=1e-9)


def test_spectral_embedding_errors_and_warning():
    rng = np.random.default_rng(0)
    W = np.exp(-rng.random((12, 12)))
    W = (W + W.T) / 2
    with pytest.raises(ValueError, match="adjacency has negative entries"):
        spectral_embedding(W - 2.0, 2)
    with pytest.raises(ValueError, match=r"adjacency is not symmetric: .*\(W \+ W.T\) / 2"):
        spectral_embedding(W + np.triu(W, 1), 2)
    lonely = W.copy()
    lonely[0, :] = lonely[:, 0] = 0
    lonely[0, 0] = 1.0  # a self-loop is no edge
    with pytest.raises(ValueError, match=r"Point\(s\) \[0\] have degree 0"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ml.DisconnectedGraphWarning)
            spectral_embedding(lonely, 2)
    blocks = sp.block_diag([W[:6, :6], W[6:, 6:]]).toarray()
    with pytest.warns(ml.DisconnectedGraphWarning, match="2 connected components"):
        spectral_embedding(blocks, 2)


# --- kernel PCA on sparse input ------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid"])
def test_kernel_pca_sparse_equals_dense(kernel):
    rng = np.random.default_rng(0)
    X, Y = rng.random((40, 6)), rng.random((7, 6))
    X[X < 0.6], Y[Y < 0.6] = 0, 0
    dense = ml.KernelPCA(3, kernel=kernel, fit_inverse_transform=True).fit(X)
    sparse = ml.KernelPCA(3, kernel=kernel, fit_inverse_transform=True).fit(sp.csr_matrix(X))
    assert sp.issparse(sparse.X_fit_)
    np.testing.assert_allclose(sparse.embedding_, dense.embedding_, atol=1e-12)
    for new in (Y, sp.csr_matrix(Y)):
        np.testing.assert_allclose(sparse.transform(new), dense.transform(Y), atol=1e-12)
    np.testing.assert_allclose(sparse.inverse_transform(sparse.embedding_),
                               dense.inverse_transform(dense.embedding_), atol=1e-12)


def test_kernel_pca_sparse_with_a_callable_kernel_is_refused():
    X = sp.random(10, 4, density=0.5, random_state=0, format="csr")
    with pytest.raises(TypeError, match="sparse matrix, but this method needs a dense array"):
        ml.KernelPCA(2, kernel=lambda a, b: float(a @ b)).fit(X)
