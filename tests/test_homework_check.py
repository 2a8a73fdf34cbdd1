"""The student-side check and the comparisons under it: ambiguity of eigenvectors (signs,
rotations inside repeated eigenvalues), tolerances that scale, plain-data transport, seeds."""

import numpy as np
import pytest
from scipy.stats import ortho_group

from mlnotes.homework import check, get_question, questions, run_check
from mlnotes.homework.compare import (
    eigvec_error,
    procrustes_error,
    tol_direct,
    tol_eigvecs,
    tol_solve,
)
from mlnotes.homework.core import AnswerError, evaluate_case, from_plain, to_plain
from mlnotes.homework.variants import variant

EIGEN_QUESTIONS = ["mds.classical_mds", "kernel_pca.transform", "lle.embedding",
                   "eigenmaps.embedding"]


def _with_repeated_eigenvalue(rng, n=8):
    Q = ortho_group.rvs(n, random_state=rng.integers(1 << 31))
    lam = np.array([5.0, 3.0, 3.0, 1.0] + [0.1] * (n - 4))
    return Q, lam


def test_signs_and_rotations_inside_a_repeated_eigenvalue_are_free():
    rng = np.random.default_rng(0)
    Q, lam = _with_repeated_eigenvalue(rng)
    Z_ref = Q[:, :3]
    flipped = Z_ref * [-1, 1, -1]
    c, s = np.cos(0.7), np.sin(0.7)
    rotated = Z_ref.copy()
    rotated[:, 1:3] = Z_ref[:, 1:3] @ [[c, -s], [s, c]]  # another basis of the eigenspace of 3
    assert eigvec_error(flipped, Z_ref, lam[:3]) < 1e-14
    assert eigvec_error(rotated, Z_ref, lam[:3]) < 1e-14
    # mixing eigenvectors of DIFFERENT eigenvalues is wrong, however it is rotated
    mixed = Z_ref.copy()
    mixed[:, 0:2] = Z_ref[:, 0:2] @ [[c, -s], [s, c]]
    assert eigvec_error(mixed, Z_ref, lam[:3]) > 0.1
    # a whole embedding up to any orthogonal transform
    assert procrustes_error(Z_ref @ ortho_group.rvs(3, random_state=1), Z_ref) < 1e-14


def test_tolerances_scale_with_size_conditioning_and_gap():
    assert tol_direct(1000) > tol_direct(10)
    assert tol_solve(10, 1e6) > tol_solve(10, 1e2)
    A = np.diag([3.0, 2.0, 1.0, 0.0])
    wide, narrow = tol_eigvecs(A, [3, 2, 1, 0], 2), tol_eigvecs(A, [3, 2, 1.999, 0], 2)
    assert narrow > wide  # a smaller gap leaves eigenvectors less determined


@pytest.mark.parametrize("name", EIGEN_QUESTIONS)
def test_eigenvector_answers_pass_with_any_column_signs(name):
    question = get_question(name)
    for inputs in question.cases(3):
        Z = np.asarray(question.expected(inputs)[0])
        flipped = Z * np.where(np.arange(Z.shape[1]) % 2, -1.0, 1.0)
        assert evaluate_case(question, inputs, {"value": to_plain(-flipped)}).passed


def test_check_prints_per_property_diagnosis_and_seed(capsys):
    def no_half(D2):
        C = np.eye(len(D2)) - 1 / len(D2)
        return C @ D2 @ C

    check("kernels.double_center", no_half, seed=123)
    out = capsys.readouterr().out
    assert "FAILED" in out and "[pass] K is symmetric" in out
    assert "equals -2 x the expected: the -1/2 is missing" in out
    assert "seed=123" in out


def test_each_check_draws_fresh_inputs_and_a_seed_reproduces_them():
    seen = []

    def spy(D2):
        seen.append(D2.copy())
        raise ValueError("spying")

    r1, r2 = run_check("kernels.double_center", spy), run_check("kernels.double_center", spy)
    assert r1.seed != r2.seed
    run_check("kernels.double_center", spy, seed=r1.seed)
    assert np.array_equal(seen[0], seen[4]) and not np.array_equal(seen[0], seen[2])
    assert "raised ValueError: spying" in r1.text()


def test_passing_check_does_not_print_a_seed(capsys):
    check("eigenmaps.laplacian", lambda W: np.diag(W.sum(1)) - W)
    out = capsys.readouterr().out
    assert "PASSED" in out and "seed" not in out


def test_mutating_the_inputs_does_not_change_the_verdict():
    def sneaky(D2):  # centres in place, then answers from the damaged input
        N = len(D2)
        D2 -= D2.mean(0)
        return -0.5 * (np.eye(N) - 1 / N) @ D2 @ (np.eye(N) - 1 / N)

    assert run_check("kernels.double_center", sneaky).passed  # the reference had its own copy


def test_answers_in_other_forms_are_accepted():
    from scipy.sparse import csr_matrix

    def as_lists(D2):
        N = len(D2)
        C = np.eye(N) - 1 / N
        return (-0.5 * C @ D2 @ C).tolist()

    assert run_check("kernels.double_center", as_lists).passed

    def sparse_laplacian(W):
        return csr_matrix(np.diag(W.sum(1)) - W)

    assert run_check("eigenmaps.laplacian", sparse_laplacian).passed


@pytest.mark.parametrize("bad", ["text", None, {"a": 1}, [["a"]], {"sparse": [1, 2]}, 10**400,
                                 [[1.0, 10**400]], {"sparse": [[2, 2], [5], [0], [1.0]]}])
def test_plain_data_rejects_anything_but_numbers(bad):
    with pytest.raises(AnswerError):
        from_plain(bad)


def test_wrong_kind_of_answer_is_reported_not_raised():
    report = run_check("kernels.double_center", lambda D2: "a string")
    assert not report.passed and "wrong kind of answer" in report.status
    report = run_check("sne.tsne_gradient", lambda Z, P: (1.0, Z))
    assert "returned 2 values" in report.status


def test_check_names_the_questions_when_the_name_is_wrong():
    with pytest.raises(KeyError, match="kernels.double_center"):
        check("kernels.double_centre", lambda D2: D2)
    with pytest.raises(TypeError, match="needs your function"):
        check("kernels.double_center", "not a function")


def _one_sided(D2):
    N = len(D2)
    return -0.5 * D2 @ (np.eye(N) - np.ones((N, N)) / N)


def _entropy_nats(P_cond):
    logs = np.log(np.where(P_cond > 0, P_cond, 1.0))
    return -(P_cond * logs).sum(axis=1)


def _joint_unsymmetrised(P_cond):
    return P_cond / len(P_cond)


def _knn_adjacency(X, n_neighbors):
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    nearest = np.argsort(D + np.diag(np.full(len(X), np.inf)), axis=1)[:, :n_neighbors]
    A = np.zeros_like(D)
    A[np.repeat(np.arange(len(X)), n_neighbors), nearest.ravel()] = 1
    return np.maximum(A, A.T)


@pytest.mark.parametrize(("name", "func", "diagnosis"), [
    ("kernels.double_center", _one_sided, "rows are centred but columns are not"),
    ("sne.entropy_bits", _entropy_nats, "entropy in nats, perplexity expects bits"),
    ("sne.joint_affinities", _joint_unsymmetrised, "not symmetrised"),
    ("graphs.knn_graph", _knn_adjacency, "0/1 adjacency matrix"),
])
def test_mistakes_written_as_a_student_would_are_diagnosed(name, func, diagnosis):
    report = run_check(name, func, seed=11)
    assert not report.passed and diagnosis in report.diagnosis, report.text()


JUNK = ["text", [], [[]], [[1.0, 2.0], [3.0]], float("nan"), float("inf"), [1e308] * 3, 0,
        [[[[[[1.0]]]]]], {"sparse": [[3, 3], [0], [0], [1.0]]}, [None], [{"sparse": 1}, 2.0],
        [[float("nan")] * 3] * 3, [1.0, [2.0, 3.0]]]


@pytest.mark.parametrize("name", questions())
def test_junk_answers_and_forged_outcomes_fail_without_crashing_the_judge(name):
    question = get_question(name)
    inputs = question.cases(0, variant(question, "ada") if question.variant else None)[0]
    outcomes = [{"value": junk} for junk in JUNK] + [
        "not a dict", {"nothing": 1}, {"error": 5}, {"error": "x", "type": ["list"]}]
    for outcome in outcomes:
        case = evaluate_case(question, inputs, outcome)
        assert not case.passed, outcome


def test_any_orthonormal_basis_of_the_principal_subspace_passes():
    rotation = ortho_group.rvs(2, random_state=4)

    def rotated_basis(X, n_components):
        _, _, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
        return Vt[:n_components].T @ rotation  # another basis of the same span

    def tilted_basis(X, n_components):  # a basis that leans out of the subspace
        _, _, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
        V = Vt[:n_components].T
        V[:, 1] = np.cos(0.1) * V[:, 1] + np.sin(0.1) * Vt[n_components]
        return V

    assert run_check("pca.principal_subspace", rotated_basis).passed
    assert not run_check("pca.principal_subspace", tilted_basis).passed
