"""Step 3: top and bottom eigenpairs, dense and ARPACK, generalised problem, sign convention."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp

from mlnotes.datasets import make_s_curve
from mlnotes.graphs import squared_distances
from mlnotes.kernels import center_kernel, rbf_kernel
from mlnotes.spectral import (
    bottom_eigenpairs,
    centred_top_eigenpairs,
    flip_signs,
    smallest_eigenvalue,
    spectrum_and_top_eigenvectors,
    top_eigenpairs,
)


def _sym(n, seed=0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A + A.T


def _path_laplacian(n):
    W = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr")
    return sp.csr_matrix(sp.diags(np.asarray(W.sum(1)).ravel()) - W), W


def _same_up_to_sign(U, V, atol):
    # align by the sign of each column's inner product (flip_signs is ambiguous under ties)
    signs = np.sign(np.einsum("ij,ij->j", U, V))
    np.testing.assert_allclose(U * signs, V, atol=atol)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_top_eigenpairs(solver):
    A = _sym(300)
    lam, V = top_eigenpairs(A, 4, solver=solver)
    w, U = la.eigh(A)
    np.testing.assert_allclose(lam, w[::-1][:4], rtol=1e-10)
    _same_up_to_sign(V, U[:, ::-1][:, :4], 1e-8)
    assert np.all(np.diff(lam) <= 0)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_bottom_eigenpairs_with_skip(solver):
    L, _ = _path_laplacian(400)
    lam, V = bottom_eigenpairs(L, 3, skip=1, solver=solver)
    # path graph: eigenvalues 2 - 2 cos(pi m / n), eigenvectors cos(pi m (i + 1/2) / n)
    m = np.arange(1, 4)
    np.testing.assert_allclose(lam, 2 - 2 * np.cos(np.pi * m / 400), rtol=1e-8)
    exact = np.cos(np.pi * np.outer(np.arange(400) + 0.5, m) / 400)
    _same_up_to_sign(V, exact / np.linalg.norm(exact, axis=0), 1e-7)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_generalised_problem_with_diagonal_B(solver):
    W = sp.random(250, 250, density=0.05, random_state=4)
    W = sp.csr_matrix(W + W.T + sp.diags(np.ones(249), 1) + sp.diags(np.ones(249), -1))
    d = np.asarray(W.sum(1)).ravel()
    L = sp.csr_matrix(sp.diags(d) - W)
    lam, V = bottom_eigenpairs(L, 3, B=sp.diags(d), skip=1, solver=solver)
    w, U = la.eigh(L.toarray(), np.diag(d))
    np.testing.assert_allclose(lam, w[1:4], rtol=1e-8)
    np.testing.assert_allclose(V.T @ (d[:, None] * V), np.eye(3), atol=1e-10)  # V^T D V = I
    _same_up_to_sign(V, U[:, 1:4], 1e-8)


def test_generalised_problem_with_full_B():
    A = _sym(20, 1)
    R = np.random.default_rng(5).normal(size=(20, 20))
    B = R @ R.T + 20 * np.eye(20)
    lam, V = bottom_eigenpairs(A, 2, B=B, solver="dense")
    w, U = la.eigh(A, B)
    np.testing.assert_allclose(lam, w[:2], rtol=1e-10)
    np.testing.assert_allclose(A @ V, B @ V * lam, atol=1e-9)


def test_spectrum_and_top_eigenvectors_match_full_eigh():
    A = _sym(120, 2)
    lam, V = spectrum_and_top_eigenvectors(A, 3)
    w, U = la.eigh(A)
    np.testing.assert_allclose(lam, w[::-1], atol=1e-10)
    _same_up_to_sign(V, U[:, ::-1][:, :3], 1e-9)
    lam2, V2 = spectrum_and_top_eigenvectors(A[:2, :2], 1)
    np.testing.assert_allclose(lam2, la.eigvalsh(A[:2, :2])[::-1])


def test_smallest_eigenvalue():
    for n in (50, 300):
        A = _sym(n, n)
        np.testing.assert_allclose(smallest_eigenvalue(A), la.eigvalsh(A)[0], rtol=1e-6)


def test_flip_signs_convention():
    V = np.array([[1.0, -3.0, 0.0], [-2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(flip_signs(V), [[-1.0, 3.0, 0.0], [2.0, -1.0, 0.0]])
    # idempotent, and invariant to the incoming sign
    np.testing.assert_array_equal(flip_signs(-V), flip_signs(V))


def test_bad_arguments():
    A = _sym(10)
    with pytest.raises(ValueError, match="solver must be one of 'auto', 'dense', 'arpack'"):
        top_eigenpairs(A, 2, solver="lobpcg")
    with pytest.raises(ValueError, match="k=11 is too large: at most 10"):
        top_eigenpairs(A, 11)
    with pytest.raises(ValueError, match="ARPACK computes at most N - 1 = 9 eigenpairs"):
        top_eigenpairs(A, 10, solver="arpack")
    with pytest.raises(ValueError, match="k=10 is too large: at most 9"):
        bottom_eigenpairs(A, 10, skip=1)
    with pytest.raises(ValueError, match="must be a square matrix"):
        top_eigenpairs(np.ones((3, 4)), 1)
    with pytest.raises(ValueError, match="B must be positive definite"):
        bottom_eigenpairs(A, 1, B=np.diag(np.r_[0.0, np.ones(9)]))


def test_arpack_failure_is_explained():
    # A + sI exactly singular for the shift s the solver picks: the LU factorisation fails
    d = np.linspace(1.0, 2.0, 300)
    d[0] = -1e-10 * 2.0
    with pytest.raises(ValueError, match=r"ARPACK failed on this 300 x 300 matrix .*not positive "
                                         r"semi-definite\. Use solver='dense'"):
        bottom_eigenpairs(sp.diags(d, format="csr"), 2, solver="arpack")


def _clustered_top(n=400, seed=0):
    """A symmetric matrix whose top eigenvalues 1, 1 - 1e-9, 1 - 2e-9 ... form a tight cluster
    above a spread of others: ARPACK needs very many products to separate them."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.r_[1.0 - 1e-9 * np.arange(12), rng.uniform(0, 0.9, n - 12)]
    return (Q * lam) @ Q.T, lam


def test_auto_gives_arpack_a_budget_and_falls_back_to_the_dense_solver():
    import time

    from mlnotes import spectral

    A, lam = _clustered_top()
    # ARPACK within the budget (about N/2 products) does not converge on the cluster ...
    assert spectral._arpack_within_budget(A, 3, which="LA") is None
    # ... so "auto" (N > 200, k < 10: ARPACK by size) solves densely, in dense time
    start = time.process_time()
    auto, V = top_eigenpairs(A, 3, solver="auto")
    spent = time.process_time() - start
    dense, _ = top_eigenpairs(A, 3, solver="dense")
    np.testing.assert_allclose(auto, dense, atol=1e-12)
    np.testing.assert_allclose(auto, np.sort(lam)[::-1][:3], atol=1e-12)
    assert spent < 5.0
    # a well-separated top is ARPACK's, within the budget
    B = _sym(300, 300)
    assert spectral._arpack_within_budget(B, 3, which="LA") is not None


def test_auto_bottom_eigenpairs_agree_with_dense_on_a_clustered_bottom():
    A, lam = _clustered_top(300, seed=1)
    M = np.eye(300) - A  # bottom cluster 0, 1e-9, 2e-9 ...
    auto, _ = bottom_eigenpairs(M, 3, skip=1, solver="auto")
    dense, _ = bottom_eigenpairs(M, 3, skip=1, solver="dense")
    np.testing.assert_allclose(auto, dense, atol=1e-9)


@pytest.mark.parametrize("solver", ["dense", "arpack", "auto"])
@pytest.mark.parametrize("scale", [1.0, -0.5])
def test_centred_top_eigenpairs_are_those_of_C_S_C_from_the_lower_triangle(solver, scale):
    # kernel PCA (an RBF kernel, s = 1) and Isomap/classical MDS (squared distances, s = -1/2)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    S = rbf_kernel(X, gamma=0.2) if scale > 0 else squared_distances(X)
    lam_ref, V_ref = top_eigenpairs(scale * center_kernel(S), 3, solver="dense")
    # only the lower triangle may be read: garbage above the diagonal changes nothing
    garbled = np.tril(S) + np.triu(rng.normal(size=S.shape), 1)
    lam, V = centred_top_eigenpairs(garbled, 3, row_means=S.mean(axis=1), scale=scale,
                                    solver=solver)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-10)
    _same_up_to_sign(V, V_ref, 1e-8)


def test_centred_top_eigenpairs_leaves_S_alone_without_overwrite():
    S = squared_distances(np.random.default_rng(4).normal(size=(50, 3)))
    kept = S.copy()
    for solver in ("dense", "arpack"):
        centred_top_eigenpairs(S, 2, row_means=S.mean(axis=1), scale=-0.5, solver=solver,
                               overwrite=False)
        assert np.array_equal(S, kept)


@pytest.mark.parametrize("scale", [1.0, 1e-160])
def test_isomap_squares_its_geodesic_distances_in_place_and_gives_them_back_exactly(scale):
    # Isomap squares D in its own memory and takes the square root after the eigenproblem;
    # exact in binary floating point unless d^2 underflows (scale 1e-160: then a copy is used)
    from mlnotes import Isomap
    from mlnotes.graphs import dijkstra

    X, _ = make_s_curve(300, random_state=0)
    for solver in ("dense", "arpack"):
        iso = Isomap(n_components=2, n_neighbors=8, eigen_solver=solver).fit(scale * X)
        assert np.array_equal(iso.geodesic_distances_, dijkstra(iso.graph_))
        if scale == 1.0:  # (at 1e-160 the squares underflow: no embedding to compare)
            ref = Isomap(n_components=2, n_neighbors=8, eigen_solver=solver,
                         path_method="floyd").fit(X)
            _same_up_to_sign(iso.embedding_, ref.embedding_, 1e-8)
