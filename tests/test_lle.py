"""LLE: weights (closed form, properties), alignment matrix, parity with scikit-learn."""

import re

import numpy as np
import pytest
import sklearn.manifold as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import special_ortho_group
from sklearn.datasets import make_s_curve, make_swiss_roll

from mlnotes import LLE, DisconnectedGraphWarning
from mlnotes.graphs import nearest_neighbors
from mlnotes.lle import alignment_matrix, lle_weights
from mlnotes.spectral import flip_signs

DATASETS = {
    "s_curve": lambda: make_s_curve(400, random_state=0)[0],
    "swiss_roll": lambda: make_swiss_roll(400, random_state=0)[0],
}


def test_weights_solve_the_kkt_system_point_by_point():
    X = DATASETS["s_curve"]()[:80]
    k, reg = 6, 1e-3
    W = lle_weights(X, k, reg=reg).toarray()
    ind = nearest_neighbors(X, k)
    for i in range(len(X)):
        Zi = X[ind[i]] - X[i]
        G = Zi @ Zi.T + reg * np.trace(Zi @ Zi.T) * np.eye(k)
        # KKT: [2G 1; 1^T 0] [w; mu] = [0; 1]
        kkt = np.block([[2 * G, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        w = np.linalg.solve(kkt, np.r_[np.zeros(k), 1.0])[:k]
        np.testing.assert_allclose(W[i, ind[i]], w, atol=1e-10)
        assert np.count_nonzero(W[i]) == k


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    shift=st.floats(-100, 100),
    scale=st.floats(0.01, 100),
    k=st.integers(2, 8),
)
def test_weights_sum_to_one_and_are_invariant(seed, shift, scale, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    W = lle_weights(X, k)
    np.testing.assert_allclose(np.asarray(W.sum(axis=1)).ravel(), 1.0, atol=1e-10)
    R = special_ortho_group.rvs(3, random_state=seed)
    W2 = lle_weights(scale * X @ R + shift, k)
    # invariance holds when the neighbour sets are unchanged; rotation, translation and
    # scaling preserve every distance ratio, so they are (up to ties, absent in random data)
    np.testing.assert_allclose(W2.toarray(), W.toarray(), atol=1e-6)


def test_alignment_matrix_is_psd_with_constant_null_vector():
    W = lle_weights(DATASETS["swiss_roll"]()[:150], 8)
    M = alignment_matrix(W)
    np.testing.assert_allclose(M @ np.ones(150), 0, atol=1e-10)
    Md = M.toarray()
    np.testing.assert_allclose(Md, Md.T, atol=1e-14)
    assert np.linalg.eigvalsh(Md)[0] > -1e-10
    z = np.random.default_rng(0).normal(size=150)
    # z^T M z = sum_i (z_i - sum_j w_ij z_j)^2
    np.testing.assert_allclose(z @ Md @ z, ((z - W @ z) ** 2).sum(), rtol=1e-10)


def _without_trivial(Z):
    """Z with its component along the trivial (constant) eigenvector removed."""
    return Z - Z.mean(axis=0)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_parity_with_sklearn(name, solver):
    X = DATASETS[name]()
    ours = LLE(n_components=2, n_neighbors=10, eigen_solver=solver).fit(X)
    theirs = skm.LocallyLinearEmbedding(
        n_components=2, n_neighbors=10, method="standard", eigen_solver="dense"
    ).fit(X)
    # scikit-learn leaves LAPACK's signs: compare under the package's convention. The eigenvalue
    # of the first kept eigenvector is ~1e-9 above the trivial 0, so round-off mixes in up to
    # eps * ||M|| / gap ~ 1e-7 of the constant vector, differently for each LAPACK build and
    # thread count; that direction is the one LLE discards, so compare with it projected out.
    np.testing.assert_allclose(
        _without_trivial(ours.embedding_), _without_trivial(flip_signs(theirs.embedding_)), atol=1e-8
    )
    np.testing.assert_allclose(ours.reconstruction_error_, theirs.reconstruction_error_, rtol=1e-6)


def test_unit_norm_scaling_and_orthogonality():
    X = DATASETS["s_curve"]()
    Z = LLE(n_components=2, n_neighbors=10).fit_transform(X)
    np.testing.assert_allclose(Z.T @ Z, np.eye(2), atol=1e-10)
    # orthogonal to the constant vector, up to the mixing that round-off (1e-16) causes between
    # eigenvalues 0 and ~1e-10 of M: about 1e-6 relative to the unit norm
    np.testing.assert_allclose(Z.sum(axis=0) / np.sqrt(len(Z)), 0, atol=1e-5)


# --- duplicate points: refused only where they break the weights ---------------------------------
def _with_copies(rows_of_copies, source=3, n=50):
    X = DATASETS["s_curve"]()[:n].copy()
    X[rows_of_copies] = X[source]
    return X


def test_a_point_whose_neighbours_all_coincide_with_it_is_named():
    X = _with_copies([17, 40])  # rows 3, 17, 40 identical: with k = 2 they see only each other
    with pytest.raises(ValueError, match=r"Point\(s\) 3, 17, 40 coincide with all 2 of their nearest "
                                         r"neighbours \(rows 3, 17, 40 are identical\), so the local "
                                         r"Gram matrix G_i is zero .* "
                                         r"Remove the duplicate rows \(e\.g\. np\.unique\(X, "
                                         r"axis=0\)\) or choose n_neighbors >= 3"):
        LLE(n_components=1, n_neighbors=2).fit(X)
    # with one neighbour more each of them has a neighbour that differs: the weights exist
    assert np.isfinite(LLE(n_components=1, n_neighbors=3).fit(X).embedding_).all()


def test_a_duplicate_with_zero_regularisation_is_named():
    X = _with_copies([17])
    with pytest.raises(ValueError, match=r"With reg=0 the local Gram matrix of point\(s\) 3, 17 is "
                                         r"singular: each has a neighbour identical to it \(rows "
                                         r"3, 17 are identical\)\. Use reg > 0"):
        lle_weights(X[:, :2], 2, reg=0.0)


def test_a_training_point_given_again_does_not_count_as_its_own_duplicate():
    X = _with_copies([17, 40])
    lle = LLE(n_components=1, n_neighbors=3).fit(X)
    # the query equals three training rows; one is left out as "itself", and its 3 neighbours
    # are the other two copies and one distinct point, as in fit
    np.testing.assert_allclose(lle.transform(X[[3]]), lle.weights_[3] @ lle.embedding_,
                               atol=1e-12)


def test_a_duplicate_pair_fits_with_finite_sensible_weights():
    X = _with_copies([17])  # one duplicate pair, as in iris (rows 101 and 142)
    k, reg = 6, 1e-3
    W = lle_weights(X, k, reg=reg).toarray()
    assert np.isfinite(W).all()
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-10)
    # the twin reconstructs its point exactly: it gets the largest weight, and the weights
    # minimise w^T G w + r tr(G) |w|^2, which is r tr(G) for w = e_twin, so the residual
    # |x_i - sum_j w_ij x_j|^2 = w^T G w stays below r tr(G_i)
    ind = nearest_neighbors(X, k)
    for i, twin in ((3, 17), (17, 3)):
        assert W[i, twin] == W[i].max() > 0
        Zi = X[ind[i]] - X[i]
        residual = X[i] - W[i] @ X
        assert residual @ residual < reg * np.trace(Zi @ Zi.T)
    # the weights are still the regularised least-squares solution (KKT system, as above)
    Zi = X[ind[3]] - X[3]
    G = Zi @ Zi.T + reg * np.trace(Zi @ Zi.T) * np.eye(k)
    w = np.linalg.solve(np.block([[2 * G, np.ones((k, 1))], [np.ones((1, k)), 0]]),
                        np.r_[np.zeros(k), 1.0])[:k]
    np.testing.assert_allclose(W[3, ind[3]], w, atol=1e-10)
    # the embedding: a copy of one point added to the S-curve sits on its twin and leaves the
    # embedding of the other points as it was (each coordinate correlates > 0.99 with the
    # embedding without the copy)
    X = DATASETS["s_curve"]()
    Z = LLE(n_neighbors=10, eigen_solver="dense").fit_transform(X)
    Z_dup = LLE(n_neighbors=10, eigen_solver="dense").fit_transform(np.vstack([X, X[[3]]]))
    assert np.isfinite(Z_dup).all()
    assert np.linalg.norm(Z_dup[3] - Z_dup[-1]) < 1e-3 * np.ptp(Z_dup, axis=0).min()
    for j in range(2):
        assert abs(np.corrcoef(Z[:, j], Z_dup[:-1, j])[0, 1]) > 0.99


def test_zero_regularisation_with_too_many_neighbours():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match=r"local Gram matrix is singular: with n_neighbors=5 > "
                                         r"n_features=2 .* use reg > 0"):
        lle_weights(X, 5, reg=0.0)


# --- out-of-sample (issue 17) and d < k (issue 12) -------------------------------------------------
def _lands_among_neighbours(Z_new, Z_train, train, new, k):
    """Each new image is no farther from the centre of its k nearest training points' images
    than the farthest of those images."""
    images = Z_train[nearest_neighbors(train, k, new)]
    centre = images.mean(axis=1)
    spread = np.linalg.norm(images - centre[:, None], axis=2).max(axis=1)
    return np.linalg.norm(Z_new - centre, axis=1) <= spread


def test_transform_places_new_points_by_their_reconstruction_weights():
    X = make_swiss_roll(900, random_state=1)[0]
    train, new = X[:800], X[800:]
    lle = LLE(n_components=2, n_neighbors=12).fit(train)
    Z_new = lle.transform(new)
    assert _lands_among_neighbours(Z_new, lle.embedding_, train, new, 12).all()
    # the weights are scikit-learn's barycenter weights for a point outside the training set
    theirs = skm.LocallyLinearEmbedding(n_components=2, n_neighbors=12, eigen_solver="dense")
    theirs.fit(train)
    flip = np.sign(np.sum(flip_signs(theirs.embedding_) * theirs.embedding_, axis=0))
    np.testing.assert_allclose(Z_new, theirs.transform(new) * flip, atol=1e-6)


def test_transform_of_training_points_is_their_reconstruction():
    X = DATASETS["s_curve"]()
    lle = LLE(n_components=2, n_neighbors=10).fit(X)
    Z = lle.embedding_
    again = lle.transform(X)
    # each training point is rebuilt from its own neighbours: (W Z)_i, off z_i by the residual
    np.testing.assert_allclose(again, lle.weights_ @ Z, atol=1e-12)
    # whose squared size is the reconstruction error tr(Z^T M Z)
    np.testing.assert_allclose(((again - Z) ** 2).sum(), lle.reconstruction_error_, rtol=1e-6)


@pytest.mark.parametrize("d, k", [(2, 2), (3, 2), (5, 5)])
def test_n_components_must_be_below_n_neighbors(d, k):
    X = np.random.default_rng(0).normal(size=(60, 6))
    with pytest.raises(ValueError, match=fr"n_components={d} must be smaller than n_neighbors={k}: "
                                         r"LLE reconstructs each point from its k neighbours, and "
                                         r"those local reconstructions cannot determine an "
                                         r"embedding of dimension d >= k \(Saul and Roweis "
                                         r"require d < k\)\. Choose n_neighbors > n_components"):
        LLE(n_components=d, n_neighbors=k).fit(X)
    assert LLE(n_components=d, n_neighbors=d + 1).fit(X).embedding_.shape == (60, d)


def test_transform_checks_its_input():
    X = DATASETS["s_curve"]()
    with pytest.raises(RuntimeError, match="This LLE is not fitted yet; call fit"):
        LLE().transform(X)
    with pytest.raises(ValueError, match=r"X has 2 features, but LLE is expecting 3 features"):
        LLE(n_neighbors=10).fit(X).transform(X[:, :2])


# --- a disconnected neighbourhood graph: a warning and a finite embedding ------------------------
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_disconnected_graph_warns_and_embeds_each_piece(solver):
    X = DATASETS["s_curve"]()[:150]
    X3 = np.vstack([X, X[:40] + 100.0, X[60:90] + 200.0])  # three pieces far apart
    with pytest.warns(DisconnectedGraphWarning,
                      match=r"The 8-nearest-neighbour graph is disconnected: it has 3 connected "
                            r"components \(sizes 150, 40, 30\), so the Laplacian \(or LLE "
                            r"alignment matrix\) has one zero eigenvalue per component: each "
                            r"component is embedded only up to its own translation and scale.*"
                            r"increase n_neighbors to at least \d+ \(the smallest value that "
                            r"connects it\), or remove the outlying points, or embed each "
                            r"component on its own"):
        lle = LLE(n_components=3, n_neighbors=8, eigen_solver=solver).fit(X3)
    Z = lle.embedding_
    assert np.isfinite(Z).all()
    np.testing.assert_allclose(Z.T @ Z, np.eye(3), atol=1e-8)
    # M has three zero eigenvalues: the two after the skipped one are among those found, and
    # their eigenvectors are constant on each piece (they only tell the pieces apart)
    np.testing.assert_allclose(lle.eigenvalues_[:2], 0, atol=1e-10)
    assert lle.eigenvalues_[2] > 1e-9
    pieces = np.repeat([0, 1, 2], [150, 40, 30])
    for p in range(3):
        assert np.ptp(Z[pieces == p, :2], axis=0).max() < 1e-6
    # the third coordinate is the big piece's own embedding, as if it were fitted alone
    alone = LLE(n_components=1, n_neighbors=8, eigen_solver="dense").fit_transform(X)
    assert abs(np.corrcoef(Z[:150, 2], alone[:, 0])[0, 1]) > 0.99


# --- the LLE family (issue 26): modified, Hessian, LTSA -----------------------------------------
from scipy.linalg import orthogonal_procrustes  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import mlnotes.datasets as mld  # noqa: E402
from mlnotes.base import expected_failed_checks  # noqa: E402
from mlnotes.lle import (  # noqa: E402
    hessian_estimators,
    local_alignment_matrix,
    local_tangent_coordinates,
    ltsa_bases,
    modified_weights,
    reconstruction_weights,
)

FAMILY_DATA = {
    "swiss_roll": lambda: mld.make_swiss_roll(500, random_state=0)[0],
    "swiss_roll_hole": lambda: mld.make_swiss_roll_hole(800, random_state=0)[0],
}
# Hessian LLE at k = 1 + d + d(d+1)/2 = 6 for d = 2: the one k where scikit-learn's estimator
# (all QR columns after the first d + 1) and Donoho and Grimes' (the quadratic ones) coincide
FAMILY_K = {"standard": 12, "modified": 12, "hessian": 6, "ltsa": 12}


def _aligned_gap(A, B):
    """Largest entry of A R - B after the best orthogonal R (both centred): the embedding is
    defined up to an orthogonal map of the eigenspace (signs, or a rotation in a tie)."""
    A, B = A - A.mean(axis=0), B - B.mean(axis=0)
    R = orthogonal_procrustes(A, B)[0]
    return np.abs(A @ R - B).max()


@pytest.mark.parametrize("name", FAMILY_DATA)
@pytest.mark.parametrize("method", ["standard", "modified", "hessian", "ltsa"])
def test_family_parity_with_sklearn(name, method):
    X = FAMILY_DATA[name]()
    k = FAMILY_K[method]
    ours = LLE(n_neighbors=k, method=method, eigen_solver="dense").fit(X)
    theirs = skm.LocallyLinearEmbedding(n_neighbors=k, method=method,
                                        eigen_solver="dense").fit(X)
    assert _aligned_gap(ours.embedding_, theirs.embedding_) < 1e-6
    np.testing.assert_allclose(ours.reconstruction_error_, theirs.reconstruction_error_,
                               rtol=1e-6)
    # the alignment is a sign per column: the eigenvalues are simple
    assert np.diff(ours.eigenvalues_).min() > 1e-3 * ours.eigenvalues_.max()
    flips = np.sign(np.sum(ours.embedding_ * theirs.embedding_, axis=0))
    assert _aligned_gap(ours.embedding_, theirs.embedding_ * flips) < 1e-6


def test_sklearn_hessian_beyond_the_minimal_k_is_ltsa():
    # scikit-learn keeps every QR column after the first d + 1: B B^T is then the projector off
    # [1, U_i], LTSA's, so its Hessian LLE equals LTSA; Donoho and Grimes' estimator does not
    X = FAMILY_DATA["swiss_roll"]()
    sk_hessian = skm.LocallyLinearEmbedding(n_neighbors=12, method="hessian",
                                            eigen_solver="dense").fit(X)
    ltsa = LLE(n_neighbors=12, method="ltsa", eigen_solver="dense").fit(X)
    hessian = LLE(n_neighbors=12, method="hessian", eigen_solver="dense").fit(X)
    assert _aligned_gap(ltsa.embedding_, sk_hessian.embedding_) < 1e-6
    assert _aligned_gap(hessian.embedding_, sk_hessian.embedding_) > 1e-4


def test_standard_blocks_give_the_standard_alignment_matrix():
    X = DATASETS["s_curve"]()[:120]
    k = 7
    ind = nearest_neighbors(X, k)
    w = reconstruction_weights(X, X, ind)
    # B_i = (1, -w_i) over {i} + N(i)
    B = np.concatenate([np.ones((len(X), 1)), -w], axis=1)[:, :, None]
    M = local_alignment_matrix(np.hstack([np.arange(len(X))[:, None], ind]), B, len(X))
    assert abs(M - alignment_matrix(lle_weights(X, k))).max() < 1e-12


def test_modified_weight_vectors_sum_to_one_and_reconstruct():
    X = DATASETS["swiss_roll"]()
    k, d = 10, 2
    ind = nearest_neighbors(X, k)
    W, s = modified_weights(X, ind, d)
    assert s.min() >= 1 and s.max() <= k - d
    used = np.arange(W.shape[2])[None, :] < s[:, None]
    col_sums = W.sum(axis=1)
    np.testing.assert_allclose(col_sums[used], 1.0, atol=1e-10)
    assert np.all(W[~np.broadcast_to(used[:, None, :], W.shape)] == 0)
    # every weight vector reconstructs its point better than the point's distance to its
    # neighbours: residual^2 / mean squared neighbour distance small (they span the near-null
    # space of G_i)
    res = np.einsum("nks,nkp->nsp", W, X[ind]) - X[:, None, :]
    rel = (res**2).sum(axis=2) / ((X[ind] - X[:, None]) ** 2).sum(axis=2).mean(axis=1)[:, None]
    assert np.median(rel[used]) < 0.05
    # more than one vector per point on most of the roll: the constraint the ridge resolved
    # arbitrarily is now kept in all its directions
    assert np.mean(s > 1) > 0.5


def test_hessian_estimator_annihilates_affine_functions_and_sees_curvature():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(300, 2)) @ rng.standard_normal((2, 4))  # a plane in R^4
    ind = nearest_neighbors(X, 10)
    Ht = hessian_estimators(X, ind, 2)
    assert Ht.shape == (300, 10, 3)
    U = local_tangent_coordinates(X, ind, 2)
    affine = 2.0 + U @ np.array([0.7, -1.3])  # an affine function of the tangent coordinates
    assert np.abs(np.einsum("nkq,nk->nq", Ht, affine)).max() < 1e-12
    quadratic = U[:, :, 0] ** 2
    assert np.abs(np.einsum("nkq,nk->nq", Ht, quadratic)).min(axis=1).max() >= 0
    assert np.linalg.norm(np.einsum("nkq,nk->nq", Ht, quadratic), axis=1).min() > 1e-3
    B = ltsa_bases(X, ind, 2)
    np.testing.assert_allclose(B.transpose(0, 2, 1) @ B, np.broadcast_to(np.eye(7), (300, 7, 7)),
                               atol=1e-12)
    assert np.abs(np.einsum("nks,nk->ns", B, affine)).max() < 1e-12


@pytest.mark.parametrize("method, low, high", [("hessian", 0, 1e-8), ("ltsa", 0, 1e-8),
                                               ("modified", 0, 1e-3), ("standard", 1e-2, 1)])
def test_the_isometry_standard_lle_misses(method, low, high):
    # a flat rectangle 3 x 1 with a hole, rotated into R^3: Hessian LLE and LTSA recover the
    # coordinates up to an affine map, to round-off; modified LLE nearly; standard LLE bends
    # them (its cost never asks for an isometry, and the ridge picks weights the embedding
    # can meet while distorting), so an affine fit to the truth leaves a residual
    rng = np.random.default_rng(1)
    P = rng.uniform(0, 1, size=(3000, 2)) * [3, 1]
    P = P[~((np.abs(P[:, 0] - 1.5) < 0.4) & (np.abs(P[:, 1] - 0.5) < 0.25))][:700]
    X = P @ np.linalg.qr(rng.standard_normal((3, 3)))[0][:2]
    Z = LLE(n_neighbors=12, method=method, eigen_solver="dense").fit_transform(X)
    A = np.c_[np.ones(len(Z)), Z]
    fit = A @ np.linalg.lstsq(A, P, rcond=None)[0]
    relative = np.linalg.norm(fit - P) / np.linalg.norm(P - P.mean(axis=0))
    assert low < relative < high


def test_hessian_needs_enough_neighbours():
    X = FAMILY_DATA["swiss_roll"]()[:200]
    with pytest.raises(ValueError, match=r"method='hessian' needs n_neighbors > d\(d\+3\)/2 = 5 "
                                         r"for n_components=2: each neighbourhood fits a "
                                         r"constant, 2 linear and 3 quadratic terms, which takes "
                                         r"at least 6 points; choose n_neighbors >= 6"):
        LLE(n_neighbors=5, method="hessian").fit(X)
    with pytest.raises(ValueError, match=r"needs n_neighbors > d\(d\+3\)/2 = 9 for n_components=3"):
        LLE(n_components=3, n_neighbors=9, method="hessian").fit(X)
    assert LLE(n_neighbors=6, method="hessian").fit(X).embedding_.shape == (200, 2)


def test_family_bad_input():
    X = FAMILY_DATA["swiss_roll"]()[:100]
    with pytest.raises(ValueError, match=r"method must be one of 'standard', 'modified', "
                                         r"'hessian', 'ltsa', got 'hlle'"):
        LLE(method="hlle").fit(X)
    with pytest.raises(ValueError, match=r"method='ltsa' fits a 4-dimensional tangent space to "
                                         r"each neighbourhood, but the data have only 3 "
                                         r"features; choose n_components <= 3"):
        LLE(n_components=4, n_neighbors=10, method="ltsa").fit(X)
    with pytest.raises(ValueError, match="hessian_tol"):
        LLE(method="hessian", n_neighbors=8, hessian_tol=-1).fit(X)


@pytest.mark.parametrize("method", ["modified", "hessian", "ltsa"])
def test_family_transform_uses_reconstruction_weights(method):
    X = make_swiss_roll(700, random_state=1)[0]
    train, new = X[:600], X[600:]
    lle = LLE(n_neighbors=12, method=method).fit(train)
    Z_new = lle.transform(new)
    assert _lands_among_neighbours(Z_new, lle.embedding_, train, new, 12).mean() > 0.95


_FAMILY = [LLE(method="standard"), LLE(method="modified"), LLE(method="hessian", n_neighbors=6),
           LLE(method="ltsa")]


@parametrize_with_checks(_FAMILY, expected_failed_checks=expected_failed_checks)
def test_family_check_estimator(estimator, check):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DisconnectedGraphWarning on the checks' two blobs
        check(estimator)


def test_many_duplicates_are_summarised_not_listed():
    # issue 35, bug 7: 10 points x 40 copies; the message named every row of every group
    base = np.random.default_rng(0).normal(size=(10, 3))
    X = np.repeat(base, 40, axis=0)
    with pytest.raises(ValueError) as info:
        LLE(n_neighbors=5).fit(X)
    message = str(info.value)
    assert len(message) < 800
    assert re.search(r"Point\(s\) 0, 1, 2, 3, 4 \(and 395 more\) coincide with all 5 of their "
                     r"nearest neighbours \(rows 0, 1, 2, 3, 4 \(and 35 more\); 40, 41, 42, 43, 44 "
                     r"\(and 35 more\); 80, 81, 82, 83, 84 \(and 35 more\); and 7 more group\(s\) "
                     r"are identical\).* choose n_neighbors >= 40", message)
    # the remedy works
    assert np.isfinite(LLE(n_neighbors=40).fit_transform(X)).all()


def test_all_rows_identical_is_refused_without_an_impossible_remedy():
    with pytest.raises(ValueError, match=r"All 30 rows of X are identical: a single point has no "
                                         r"neighbours that differ from it"):
        LLE(n_neighbors=5).fit(np.ones((30, 4)))
