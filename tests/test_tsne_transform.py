"""TSNE.transform (new points into a fixed map) and sparse input to TSNE."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.neighbors import KNeighborsClassifier

from mlnotes import _tsne_transform as tt
from mlnotes._validation import NotFittedError
from mlnotes.sne import TSNE

from finite_differences import central_differences


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    return X[perm[:700]], y[perm[:700]], X[perm[700:900]], y[perm[700:900]]


@pytest.fixture(scope="module")
def fitted(digits):
    X, _, _, _ = digits
    return TSNE(perplexity=20, max_iter=400, random_state=0, method="exact").fit(X)


def _problem(rng, M=4, N=30, k=6, L=2):
    Z = rng.normal(scale=3.0, size=(N, L))
    Y = rng.normal(scale=3.0, size=(M, L))
    idx = np.array([rng.choice(N, k, replace=False) for _ in range(M)])
    P = rng.random((M, k))
    return Y, Z, idx, P / P.sum(axis=1, keepdims=True)


# --- the objective ---------------------------------------------------------------------------
@pytest.mark.parametrize("dof", [1.0, 2.5])
@pytest.mark.parametrize("alpha", [1.0, 1.5])
def test_gradient_equals_central_differences(dof, alpha):
    Y, Z, idx, P = _problem(np.random.default_rng(1))
    P = alpha * P

    def f(Yc):
        return tt.transform_objective_gradient(Yc, Z, idx, P, dof=dof)[0]

    _, grad = tt.transform_objective_gradient(Y, Z, idx, P, dof=dof)
    np.testing.assert_allclose(grad, central_differences(f, Y), rtol=1e-6, atol=1e-9)


def test_objective_is_the_sum_of_per_point_kls():
    Y, Z, idx, P = _problem(np.random.default_rng(2), k=30)  # every training point a neighbour
    K = 1.0 / (1.0 + ((Y[:, None, :] - Z[None]) ** 2).sum(-1))
    Q = K / K.sum(axis=1, keepdims=True)
    Qn = np.take_along_axis(Q, idx, axis=1)
    kl = float(np.sum(P * np.log(P / Qn)))
    assert tt.transform_objective_gradient(Y, Z, idx, P)[0] == pytest.approx(kl, rel=1e-12)


@pytest.mark.parametrize("L", [1, 2])
def test_interpolated_field_matches_exact_sums(L):
    rng = np.random.default_rng(3)
    Z = np.concatenate([rng.normal(c, 2.0, size=(400, L)) for c in (0.0, 25.0, -20.0)])
    Y = rng.uniform(-30, 35, size=(60, L))
    Y[0] = 500.0  # far outside the grid: exact sums
    S, R = tt.exact_reference_repulsion(Y, Z)
    Si, Ri = tt.ReferenceField(Z)(Y)
    np.testing.assert_allclose(Si, S, rtol=1e-3)
    scale = np.abs(R / S[:, None]).max()
    # the fit's grid (4 nodes per unit length) interpolates the force to about 1% (tsne_fft)
    assert np.abs(Ri / Si[:, None] - R / S[:, None]).max() < 1e-2 * scale


# --- the estimator ---------------------------------------------------------------------------
def test_training_points_given_again_keep_their_places(fitted, digits):
    X = digits[0]
    np.testing.assert_array_equal(fitted.transform(X[:50]), fitted.embedding_[:50])


def test_perturbed_training_points_land_near_their_places(fitted, digits):
    X = digits[0]
    X = X[:300]
    noise = np.random.default_rng(4).normal(scale=1e-3, size=X.shape)
    Z = fitted.embedding_[:300]
    Y = fitted.transform(X + noise)
    spread = np.median(np.linalg.norm(Z - Z.mean(0), axis=1))
    moved = np.linalg.norm(Y - Z, axis=1)
    assert np.median(moved) < 0.05 * spread
    assert np.mean(moved < 0.2 * spread) > 0.95


def test_new_points_do_not_interact(fitted, digits):
    Xn = digits[2][:6]
    together = fitted.transform(Xn)
    alone = np.vstack([fitted.transform(x[None]) for x in Xn])
    np.testing.assert_allclose(together, alone, atol=1e-10)


def test_held_out_digits_classified_in_the_map(fitted, digits):
    X, y, Xn, yn = digits
    Y = fitted.transform(Xn)
    acc = KNeighborsClassifier(10).fit(fitted.embedding_, y).score(Y, yn)
    data_acc = KNeighborsClassifier(10).fit(X, y).score(Xn, yn)
    assert acc > data_acc - 0.05


def test_transform_ignores_changes_to_the_training_array(digits):
    X = digits[0][:200].copy()
    est = TSNE(perplexity=10, max_iter=260, random_state=0).fit(X)
    before = est.transform(digits[2][:5])
    X[:] = 0.0
    np.testing.assert_array_equal(est.transform(digits[2][:5]), before)


def test_precomputed_takes_distances_to_the_training_points(fitted, digits):
    from mlnotes.graphs import pairwise_distances

    X, Xn = digits[0], digits[2][:20]
    pre = TSNE(metric="precomputed", init="random", perplexity=20, max_iter=250,
               random_state=0).fit(pairwise_distances(X))
    pre.embedding_ = fitted.embedding_.copy()
    np.testing.assert_allclose(pre.transform(pairwise_distances(Xn, X)), fitted.transform(Xn),
                               atol=1e-8)
    with pytest.raises(ValueError, match=r"\(n_new, n_train\) dissimilarities of the new points "
                                         r"to the 700 training points, got shape \(20, 64\)"):
        pre.transform(Xn)


def test_clear_errors(fitted, digits):
    with pytest.raises(NotFittedError, match=r"This TSNE is not fitted yet; call fit"):
        TSNE().transform(digits[2])
    with pytest.raises(ValueError, match="X has 3 features, but TSNE is expecting 64 features"):
        fitted.transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"perplexity=40 for transform needs 1 < perplexity < k"):
        TSNE(perplexity=5, max_iter=260, random_state=0).fit(digits[0][:30]).transform(
            digits[2][:2], perplexity=40)
    with pytest.raises(ValueError, match="init must be 'median', 'weighted' or an array"):
        fitted.transform(digits[2][:2], init="pca")


def test_matches_opentsne_transform():
    openTSNE = pytest.importorskip("openTSNE")
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    tr, te = perm[:900], perm[900:1200]
    ref = openTSNE.TSNE(perplexity=30, random_state=0, n_jobs=1, n_iter=250).fit(X[tr])
    ref -= (np.max(ref, axis=0) + np.min(ref, axis=0)) / 2  # openTSNE's transform centres it
    Z = np.asarray(ref).copy()
    Y_open = np.asarray(ref.transform(X[te]))
    # a fitted state on the same training data (one iteration), then openTSNE's map put in
    with pytest.warns(RuntimeWarning, match="made no progress"):
        ours = TSNE(perplexity=30, max_iter=1, early_exaggeration=1, random_state=0).fit(X[tr])
    ours.embedding_ = Z
    Y = ours.transform(X[te])
    knn = KNeighborsClassifier(10).fit(Z, y[tr])
    assert knn.score(Y, y[te]) > knn.score(Y_open, y[te]) - 0.02
    from scipy.spatial import cKDTree

    tree = cKDTree(Z)
    a, b = tree.query(Y, 10)[1], tree.query(Y_open, 10)[1]
    shared = np.mean([len(set(u) & set(v)) / 10 for u, v in zip(a, b, strict=True)])
    assert shared > 0.85


# --- sparse input ----------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["exact", "fft"])
def test_sparse_input_gives_the_dense_map(method, digits):
    from mlnotes.metrics import trustworthiness

    # the pixels are integers, so many distances tie exactly and "the k nearest" is ambiguous
    # (the dense and sparse searches may keep different members of a tie); a jitter of the
    # non-zero pixels removes the ties and keeps the sparsity
    X = digits[0][:300].copy()
    nonzero = X != 0
    X[nonzero] += np.random.default_rng(0).uniform(0, 1e-3, nonzero.sum())
    kw = dict(perplexity=10, max_iter=300, random_state=0, method=method)
    dense = TSNE(**kw).fit(X)
    csr = TSNE(**kw).fit(sp.csr_matrix(X))
    # the same affinities and start (to round-off); the maps then differ only as the chaotic
    # optimiser amplifies that round-off, so they are compared by quality
    P, P_csr = (sp.csr_array(e.P_).toarray() for e in (dense, csr))
    np.testing.assert_allclose(P_csr, P, rtol=1e-9, atol=1e-15)
    from mlnotes.sne import initial_embedding

    np.testing.assert_allclose(initial_embedding(sp.csr_matrix(X), 2), initial_embedding(X, 2),
                               rtol=1e-8, atol=1e-14)
    t_dense = trustworthiness(X, dense.embedding_, n_neighbors=10)
    assert abs(trustworthiness(X, csr.embedding_, n_neighbors=10) - t_dense) < 0.01
    csr.embedding_ = dense.embedding_.copy()  # the same map: transform must agree closely
    Xn = digits[2][:10]
    np.testing.assert_allclose(csr.transform(sp.csr_matrix(Xn)), dense.transform(Xn),
                               atol=1e-6 * np.abs(dense.embedding_).max())


def test_sparse_input_needs_the_euclidean_metric(digits):
    with pytest.raises(TypeError, match="Sparse data works with metric='euclidean' only"):
        TSNE(metric="cosine").fit(sp.csr_matrix(digits[0][:50]))


def test_exaggeration_gives_the_placement_a_minimiser():
    # neighbours split between two clusters far apart: far from the map q tends to 1/N, and the
    # KL (alpha = 1) is lower there than at any place between or in the clusters; with
    # alpha = 1.5 the cost grows far out
    # (and a large third cluster between them)
    rng = np.random.default_rng(5)
    Z = np.vstack([rng.normal([-50.0, 0.0], 2.0, size=(50, 2)),
                   rng.normal([50.0, 0.0], 2.0, size=(50, 2)),
                   rng.normal([0.0, 0.0], 5.0, size=(300, 2))])
    idx = np.array([[0, 1, 2, 3, 4, 50, 51, 52, 53, 54]])
    P = np.full((1, 10), 0.1)
    grid = np.linspace(-80, 80, 81)
    near = [np.array([[a, b]]) for a in grid for b in grid]
    far = np.array([[0.0, 1e4]])

    def cost(Y, alpha):
        return tt.transform_objective_gradient(Y, Z, idx, alpha * P)[0]

    assert cost(far, 1.0) < min(cost(Y, 1.0) for Y in near)
    assert cost(far, 1.5) > min(cost(Y, 1.5) for Y in near)
