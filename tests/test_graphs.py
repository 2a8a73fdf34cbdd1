"""Step 1: neighbourhood graphs, components, geodesic distances."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_s_curve
from sklearn.neighbors import NearestNeighbors, kneighbors_graph, radius_neighbors_graph

from mlnotes.graphs import (
    KDTREE_MAX_FEATURES,
    DisconnectedGraphWarning,
    check_connected,
    connected_components,
    cross_graph,
    dijkstra,
    epsilon_graph,
    floyd_warshall,
    geodesic_distances,
    join_components,
    knn_graph,
    nearest_neighbors,
    neighbourhood_graph,
    pairwise_distances,
    smallest_connecting_k,
    smallest_connecting_radius,
    squared_distances,
)


def _two_blobs(n=30, gap=50.0, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(size=(n, 2)), rng.normal(size=(n // 2, 2)) + gap])


def test_squared_distances_match_definition():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(4, 3))
    expected = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(squared_distances(X, Y), expected, atol=1e-12)
    np.testing.assert_allclose(pairwise_distances(X, Y), np.sqrt(expected), atol=1e-12)
    D2 = squared_distances(X)
    assert np.array_equal(D2, D2.T) and np.all(np.diag(D2) == 0)  # exactly


def test_dijkstra_reads_one_directional_edges_both_ways():
    G = sp.csr_matrix((np.array([2.0, 0.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    np.testing.assert_array_equal(dijkstra(G), [[0, 2, 2], [2, 0, 0], [2, 0, 0]])


@pytest.mark.parametrize("n_features", [3, KDTREE_MAX_FEATURES + 5])
def test_nearest_neighbors_match_sklearn(n_features):
    # both code paths (k-d tree and brute force)
    X = np.random.default_rng(1).normal(size=(120, n_features))
    ours = nearest_neighbors(X, 6)
    theirs = NearestNeighbors(n_neighbors=6).fit(X).kneighbors(return_distance=False)
    np.testing.assert_array_equal(ours, theirs)
    Y = np.random.default_rng(2).normal(size=(9, n_features))
    np.testing.assert_array_equal(
        nearest_neighbors(X, 4, Y), NearestNeighbors(n_neighbors=4).fit(X).kneighbors(Y)[1]
    )


def test_directed_knn_graph_is_sklearns_kneighbors_graph():
    X, _ = make_s_curve(200, random_state=0)
    ours = knn_graph(X, 7, mode="directed")
    theirs = kneighbors_graph(X, 7, mode="distance")
    np.testing.assert_allclose(ours.toarray(), theirs.toarray(), atol=1e-12)


def test_or_and_symmetrisation():
    X, _ = make_s_curve(150, random_state=1)
    A = knn_graph(X, 5, mode="directed").toarray() > 0
    G_or = knn_graph(X, 5, mode="or")
    G_and = knn_graph(X, 5, mode="and")
    np.testing.assert_array_equal(G_or.toarray() > 0, A | A.T)
    np.testing.assert_array_equal(G_and.toarray() > 0, A & A.T)
    for G in (G_or, G_and):
        assert abs(G - G.T).max() == 0
    D = pairwise_distances(X)
    np.testing.assert_allclose(G_or.toarray()[A | A.T], D[A | A.T], atol=1e-12)
    # every point keeps at least its k edges under "or"; "and" can only lose edges
    assert np.diff(G_or.indptr).min() >= 5
    assert G_and.nnz <= G_or.nnz


def test_epsilon_graph_matches_sklearn_radius_graph():
    X, _ = make_s_curve(200, random_state=0)
    ours = epsilon_graph(X, 0.5).toarray()
    theirs = radius_neighbors_graph(X, 0.5, mode="distance").toarray()
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    high = np.random.default_rng(0).normal(size=(60, KDTREE_MAX_FEATURES + 2))
    D = pairwise_distances(high)
    r = np.median(D)
    expected = np.where((D <= r) & ~np.eye(60, dtype=bool), D, 0)
    np.testing.assert_allclose(epsilon_graph(high, r).toarray(), expected, atol=1e-12)


def test_duplicate_points_give_explicit_zero_length_edges():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    G = knn_graph(X, 1)
    assert G[0, 1] == 0 and (G[0].indices == 1).any()  # stored edge of length 0
    assert connected_components(G)[0] == 1  # 2 joins a twin, 3 joins 2
    D = dijkstra(knn_graph(X, 2))
    assert D[0, 1] == 0 and D[0, 3] == 3.0


def test_cross_graph():
    X, _ = make_s_curve(100, random_state=0)
    Y = X[:5] + 0.01
    E = cross_graph(Y, X, n_neighbors=3)
    nn = NearestNeighbors(n_neighbors=3).fit(X)
    dist, ind = nn.kneighbors(Y)
    np.testing.assert_allclose(np.sort(E.toarray(), axis=1)[:, -3:], np.sort(dist, axis=1), atol=1e-12)
    D = pairwise_distances(Y, X)
    E = cross_graph(Y, X, radius=0.3)
    np.testing.assert_allclose(E.toarray(), np.where(D <= 0.3, D, 0), atol=1e-12)


def test_connected_components():
    X = _two_blobs()
    n, labels = connected_components(knn_graph(X, 3))
    assert n == 2
    assert sorted(np.bincount(labels)) == [15, 30]


def test_floyd_equals_dijkstra_on_s_curve():
    X, _ = make_s_curve(120, random_state=0)
    G = knn_graph(X, 6)
    np.testing.assert_allclose(floyd_warshall(G), dijkstra(G), rtol=1e-13, atol=0)
    np.testing.assert_array_equal(geodesic_distances(G, "floyd"), floyd_warshall(G))


def test_geodesics_are_infinite_between_components():
    G = knn_graph(_two_blobs(), 3)
    for method in ("floyd", "dijkstra"):
        D = geodesic_distances(G, method)
        assert np.isinf(D[0, -1]) and np.isfinite(D[0, 1])


@st.composite
def integer_graphs(draw):
    """Random undirected graphs with small integer edge lengths: every path length is an
    exactly representable integer, so Floyd and Dijkstra must agree bit for bit."""
    n = draw(st.integers(2, 12))
    mask = np.array(draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    lengths = np.array(draw(st.lists(st.integers(0, 9), min_size=n * n, max_size=n * n)))
    mask = np.triu(mask, 1)
    rows, cols = np.nonzero(mask)
    data = lengths.reshape(n, n)[rows, cols].astype(float)
    return sp.csr_matrix((data, (rows, cols)), shape=(n, n))  # one direction only


@settings(max_examples=40, deadline=None)
@given(integer_graphs())
def test_floyd_equals_dijkstra_exactly(G):
    np.testing.assert_array_equal(floyd_warshall(G), dijkstra(G))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_floyd_equals_dijkstra_on_random_point_graphs(seed):
    # real-valued lengths: the two add the same lengths in different orders, so they agree to
    # round-off (a few ulps), and exactly on the graph structure (which pairs are reachable)
    X = np.random.default_rng(seed).normal(size=(25, 2))
    G = knn_graph(X, 2, mode="and")
    F, D = floyd_warshall(G), dijkstra(G)
    np.testing.assert_array_equal(np.isinf(F), np.isinf(D))
    np.testing.assert_allclose(F, D, rtol=1e-13, atol=0)


def test_smallest_connecting_k_is_minimal():
    X = _two_blobs()
    k = smallest_connecting_k(X)
    assert connected_components(knn_graph(X, k))[0] == 1
    assert connected_components(knn_graph(X, k - 1))[0] > 1


def test_smallest_connecting_radius_is_minimal():
    X = _two_blobs(gap=8.0)
    r = smallest_connecting_radius(X)
    assert connected_components(epsilon_graph(X, r))[0] == 1
    assert connected_components(epsilon_graph(X, r * (1 - 1e-9)))[0] > 1


def test_disconnected_graph_message_names_sizes_and_fix():
    X = _two_blobs()
    k = smallest_connecting_k(X)
    with pytest.raises(ValueError, match=rf"2 connected components \(sizes 30, 15\).*"
                                         rf"increase n_neighbors to at least {k}"):
        neighbourhood_graph(X, n_neighbors=3)
    with pytest.raises(ValueError, match=r"increase radius to at least \d"):
        check_connected(epsilon_graph(X, 1.0), X, radius=1.0)


def test_disconnected_graph_warning_keeps_the_message():
    X = _two_blobs()
    k = smallest_connecting_k(X)
    with pytest.warns(DisconnectedGraphWarning, match=rf"2 connected components \(sizes 30, 15\).*"
                                                      rf"increase n_neighbors to at least {k}.*or "
                                                      rf"embed each component on its own\.$"):
        G = neighbourhood_graph(X, n_neighbors=3, warn=True)
    assert connected_components(G)[0] == 2


def test_join_components_adds_the_shortest_edge_between_each_pair():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(10, 2)) + [30, 0],
                   rng.normal(size=(8, 2)) + [0, 40]])
    X[1] = X[0]  # a duplicate pair: its zero-length edge must survive the joining
    G = knn_graph(X, 3)
    n, labels = connected_components(G)
    assert n == 3
    J = join_components(G, X)
    assert connected_components(J)[0] == 1
    added = (J != G).toarray()
    np.testing.assert_array_equal(added, added.T)
    assert added.sum() == 2 * 3  # one edge per pair of components, stored both ways
    D = pairwise_distances(X)
    for a in range(3):
        for b in range(a + 1, 3):
            block = np.ix_(labels == a, labels == b)
            assert added[block].sum() == 1
            np.testing.assert_allclose(J.toarray()[block][added[block]], D[block].min())
    assert J[0, 1] == 0 and J.has_canonical_format and (J.tocoo().data == 0).sum() == 2
    assert join_components(J, X) is not None and (join_components(J, X) != J).nnz == 0


def test_neighbourhood_graph_needs_exactly_one_parameter():
    X = _two_blobs()
    with pytest.raises(ValueError, match="exactly one of n_neighbors and radius"):
        neighbourhood_graph(X, n_neighbors=3, radius=1.0)
    with pytest.raises(ValueError, match="exactly one of n_neighbors and radius"):
        neighbourhood_graph(X)


def test_an_infinite_radius_is_the_complete_graph():
    # scikit-learn's Isomap(radius=np.inf): every pair an edge, so Isomap is classical MDS
    import mlnotes as ml

    X = ml.datasets.make_s_curve(60, random_state=0)[0]
    G = ml.graphs.epsilon_graph(X, np.inf)
    assert G.nnz == 60 * 59
    Z = ml.Isomap(n_neighbors=None, radius=np.inf).fit_transform(X)
    np.testing.assert_allclose(Z, ml.ClassicalMDS().fit_transform(X), atol=1e-10)
    with pytest.raises(ValueError, match="radius must be finite and > 0"):
        ml.graphs.epsilon_graph(X, -np.inf)
