"""Laplacian eigenmaps: weights, Laplacians (properties), parity with SpectralEmbedding."""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.manifold as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes import DisconnectedGraphWarning, LaplacianEigenmaps
from mlnotes.eigenmaps import heat_kernel_weights, laplacian
from mlnotes.graphs import epsilon_graph, knn_graph

DATASETS = {
    "s_curve": lambda: make_s_curve(400, random_state=0)[0],
    "swiss_roll": lambda: make_swiss_roll(400, random_state=0)[0],
}


def _without_trivial(Z, d):
    """Z minus its D-weighted mean: the component along the trivial eigenvector 1 removed."""
    return Z - (d @ Z) / d.sum()


@st.composite
def weight_matrices(draw):
    n = draw(st.integers(2, 15))
    vals = draw(st.lists(st.floats(0, 10), min_size=n * n, max_size=n * n))
    W = np.triu(np.array(vals).reshape(n, n), 1)
    W = W + W.T
    W[np.arange(n - 1), np.arange(1, n)] += 0.5  # a path keeps every degree positive
    W[np.arange(1, n), np.arange(n - 1)] += 0.5
    return sp.csr_matrix(W)


@settings(max_examples=40, deadline=None)
@given(weight_matrices())
def test_laplacians_are_psd_with_the_right_null_vector(W):
    n = W.shape[0]
    d = np.asarray(W.sum(axis=1)).ravel()
    L, L_sym, L_rw = (laplacian(W, kind=k).toarray() for k in ("unnormalized", "sym", "rw"))
    tol = 1e-9 * max(1.0, d.max())
    np.testing.assert_allclose(L @ np.ones(n), 0, atol=tol)
    np.testing.assert_allclose(L_sym @ np.sqrt(d), 0, atol=tol)
    np.testing.assert_allclose(L_rw @ np.ones(n), 0, atol=tol)
    assert np.linalg.eigvalsh(L)[0] > -tol
    assert np.linalg.eigvalsh(L_sym)[0] > -1e-9
    np.testing.assert_allclose(L_sym, np.diag(d**-0.5) @ L @ np.diag(d**-0.5), atol=1e-10)
    np.testing.assert_allclose(L_rw, np.diag(1 / d) @ L, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(weight_matrices(), st.integers(0, 1000))
def test_quadratic_form_identity(W, seed):
    # sum_ij w_ij |z_i - z_j|^2 = 2 tr(Z^T L Z)
    Z = np.random.default_rng(seed).normal(size=(W.shape[0], 2))
    Wd = W.toarray()
    lhs = (Wd * ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)).sum()
    rhs = 2 * np.trace(Z.T @ (laplacian(W) @ Z))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


def test_heat_kernel_weights():
    X = DATASETS["s_curve"]()[:50]
    G = knn_graph(X, 5)
    W = heat_kernel_weights(G, t=2.0)
    np.testing.assert_array_equal(W.indices, G.indices)
    np.testing.assert_allclose(W.data, np.exp(-G.data**2 / 2.0))
    B = heat_kernel_weights(G)
    np.testing.assert_array_equal(B.data, 1.0)
    assert G.data.min() > 0  # the input graph is left unchanged
    with pytest.raises(ValueError, match="t must be finite and > 0"):
        heat_kernel_weights(G, t=0.0)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("t", [None, 1.0])
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_parity_with_spectral_embedding(name, t, solver):
    X = DATASETS[name]()
    ours = LaplacianEigenmaps(n_components=2, n_neighbors=10, t=t, eigen_solver=solver).fit(X)
    theirs = skm.SpectralEmbedding(n_components=2, affinity="precomputed", random_state=0)
    # same weights in; scikit-learn returns D^{-1/2} u (u eigenvectors of L_sym), as we do, and
    # flips signs by the same largest-magnitude rule
    # Where the first kept eigenvalue is tiny (the Swiss roll with t = 1 is nearly disconnected),
    # round-off mixes in a little of the trivial vector 1 (eps / gap), differently for each LAPACK
    # build and thread count; compare with that discarded direction projected out (D-orthogonally).
    d = np.asarray(ours.affinity_matrix_.sum(axis=1)).ravel()
    np.testing.assert_allclose(
        _without_trivial(ours.embedding_, d),
        _without_trivial(theirs.fit_transform(ours.affinity_matrix_), d), atol=1e-8,
    )


def test_radius_graph_and_generalised_eigenproblem():
    X = DATASETS["s_curve"]()
    le = LaplacianEigenmaps(n_components=3, n_neighbors=None, radius=0.5, t=0.5).fit(X)
    W = heat_kernel_weights(epsilon_graph(X, 0.5), t=0.5)
    np.testing.assert_allclose(le.affinity_matrix_.toarray(), W.toarray())
    L = laplacian(W).toarray()
    D = np.diag(W.sum(axis=1).A1)
    Z = le.embedding_
    np.testing.assert_allclose(L @ Z, D @ Z * le.eigenvalues_, atol=1e-8)  # L z = lambda D z
    np.testing.assert_allclose(Z.T @ D @ Z, np.eye(3), atol=1e-8)  # Z^T D Z = I
    np.testing.assert_allclose(Z.T @ D @ np.ones(len(X)), 0, atol=1e-8)  # D-orthogonal to 1
    assert np.all(np.diff(le.eigenvalues_) >= 0) and le.eigenvalues_[0] > 1e-8


def test_laplacian_errors():
    W = sp.csr_matrix(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match=r"Node\(s\) \[2\] have degree 0"):
        laplacian(W, kind="sym")
    with pytest.raises(ValueError, match="kind must be one of 'unnormalized', 'sym', 'rw'"):
        laplacian(W, kind="normalized")
    with pytest.raises(ValueError, match="W has negative weights"):
        laplacian(-W)


# --- out-of-sample by the Nyström formula (issue 17) ------------------------------------------------
GRAPHS = {
    "knn binary": dict(n_neighbors=10),
    "knn heat": dict(n_neighbors=10, t=20.0),
    "radius heat": dict(n_neighbors=None, radius=5.0, t=5.0),
}


@pytest.mark.parametrize("graph", GRAPHS)
def test_transform_reproduces_the_training_embedding(graph):
    X = make_swiss_roll(600, random_state=0)[0]
    le = LaplacianEigenmaps(n_components=3, **GRAPHS[graph]).fit(X)
    # each training point gets back its own row of the graph, and v = D^-1 W v / (1 - lambda)
    np.testing.assert_allclose(le.transform(X), le.embedding_, atol=1e-10)
    np.testing.assert_allclose(le.transform(X[::-7]), le.embedding_[::-7], atol=1e-10)


@pytest.mark.parametrize("graph", GRAPHS)
def test_new_points_land_among_their_neighbours_images(graph):
    X = make_swiss_roll(900, random_state=1)[0]
    train, new = X[:800], X[800:]
    params = GRAPHS[graph]
    le = LaplacianEigenmaps(n_components=2, **params).fit(train)
    # (1 - lambda) z(y) is a weighted mean of the images of y's neighbours in the graph: y's
    # k nearest, and the points that would count y among their k nearest (or all within radius)
    Z_mean = le.transform(new) * (1.0 - le.eigenvalues_)
    dist = np.linalg.norm(new[:, None] - train[None], axis=2)
    if params["n_neighbors"] is None:
        edges = dist <= params["radius"]
    else:
        kth = np.sort(np.linalg.norm(train[:, None] - train[None], axis=2), axis=1)[:, 10]
        edges = (dist <= np.sort(dist, axis=1)[:, 9:10]) | (dist <= kth[None, :])
    for z, e in zip(Z_mean, edges, strict=True):
        images = le.embedding_[e]
        # inside the bounding box of the neighbours' images (a weighted mean is in their hull)
        assert np.all(z >= images.min(axis=0) - 1e-12) and np.all(z <= images.max(axis=0) + 1e-12)


def test_nystrom_is_the_weighted_mean_of_neighbours_scaled():
    X = DATASETS["s_curve"]()
    le = LaplacianEigenmaps(n_components=2, n_neighbors=None, radius=0.4).fit(X)
    y = X[:1] + 0.01
    inside = np.linalg.norm(X - y, axis=1) <= 0.4
    expected = le.embedding_[inside].mean(axis=0) / (1.0 - le.eigenvalues_)
    np.testing.assert_allclose(le.transform(y)[0], expected, rtol=1e-12)


def test_transform_errors():
    X = DATASETS["s_curve"]()
    with pytest.raises(RuntimeError, match="This LaplacianEigenmaps is not fitted yet"):
        LaplacianEigenmaps().transform(X)
    le = LaplacianEigenmaps(n_neighbors=None, radius=0.5).fit(X)
    with pytest.raises(ValueError, match=r"New point\(s\) \[1\] have no training point within "
                                         r"radius=0.5 .* the Nyström formula is undefined"):
        le.transform(np.vstack([X[:1], X[:1] + 100.0]))


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_disconnected_graph_warns_and_gives_a_finite_embedding(solver):
    X = make_s_curve(150, random_state=0)[0]
    X3 = np.vstack([X, X[:40] + 100.0, X[60:90] + 200.0])  # three pieces far apart
    with pytest.warns(DisconnectedGraphWarning, match=r"3 connected components \(sizes 150, 40, "
                                                      r"30\).*one zero eigenvalue per component"):
        le = LaplacianEigenmaps(n_components=3, n_neighbors=8, eigen_solver=solver).fit(X3)
    Z = le.embedding_
    assert np.isfinite(Z).all()
    D = np.asarray(le.affinity_matrix_.sum(axis=1)).ravel()
    np.testing.assert_allclose(Z.T @ (D[:, None] * Z), np.eye(3), atol=1e-8)
    # two more zero eigenvalues after the skipped one, with piecewise-constant eigenvectors
    np.testing.assert_allclose(le.eigenvalues_[:2], 0, atol=1e-10)
    assert le.eigenvalues_[2] > 1e-6
    pieces = np.repeat([0, 1, 2], [150, 40, 30])
    for p in range(3):
        assert np.ptp(Z[pieces == p, :2], axis=0).max() < 1e-6
