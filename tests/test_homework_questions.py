"""Mutation tests of the question bank: for every question the reference passes, the stub is
"not implemented yet", and every catalogued wrong answer is rejected with its own diagnosis.

The graded set (encrypted key, a variant per student) has its own tests in
``test_homework_graded.py``; here it is only checked that its stubs are "not implemented yet"."""

import numpy as np
import pytest

from mlnotes.homework import QUESTIONS, get_question, questions, run_check
from mlnotes.homework.core import NOT_IMPLEMENTED, evaluate_case, from_plain, to_plain

SEEDS = (0, 1)
# Questions the book's homework relies on; the bank must never silently lose one.
REQUIRED = {
    "kernels.double_center", "kernels.center_kernel", "kernels.center_kernel_test",
    "mds.classical_mds", "pca.reconstruction_error", "kernel_pca.transform",
    "graphs.knn_graph", "graphs.floyd_warshall", "sne.conditional_affinities",
    "sne.entropy_bits", "sne.perplexity_search", "sne.joint_affinities",
    "sne.student_t_affinities", "sne.kl_divergence", "sne.tsne_gradient", "lle.embedding",
    "lle.weights", "lle.alignment_matrix", "eigenmaps.laplacian", "eigenmaps.normalized_laplacian",
    "eigenmaps.heat_kernel_weights", "eigenmaps.embedding", "autoencoder.step",
    "pca.principal_subspace", "lle.null_vector", "eigenmaps.trivial_eigenvectors",
    "sne.perplexity_limits", "sne.tsne_forces", "kernel_pca.linear_scores",
    "eigenmaps.dirichlet_energy", "isomap.residual_variance", "umap.fuzzy_graph",
}
EVERY = questions()
# the practice set and the chapters' exercises: public keys
ALL = [q for q in EVERY if get_question(q).variant is None]
MISTAKES = [(q, m.name) for q in ALL for m in QUESTIONS[q].all_mistakes()]


def test_bank_size_and_required_questions():
    assert len(ALL) >= 15
    assert REQUIRED <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_reference_passes(name):
    question = get_question(name)
    for seed in SEEDS:
        for inputs in question.cases(seed):
            case = evaluate_case(question, inputs, {"value": to_plain(question.reference(**inputs))})
            assert case.passed, (seed, case)


@pytest.mark.parametrize("name", EVERY)
def test_stub_is_not_implemented(name):
    question = get_question(name)
    report = run_check(name, question.stub, seed=0, student="ada")
    assert not report.passed
    assert report.status == NOT_IMPLEMENTED
    assert NOT_IMPLEMENTED in report.text()
    assert "raise NotImplementedError" in question.stub_source()


@pytest.mark.parametrize(("name", "mistake"), MISTAKES, ids=[f"{q}-{m}" for q, m in MISTAKES])
def test_mistake_is_rejected_with_its_diagnosis(name, mistake):
    question = get_question(name)
    wrong = next(m for m in question.all_mistakes() if m.name == mistake)
    diagnosed = judged = 0
    for seed in SEEDS:
        rejected = False
        for inputs in question.cases(seed):
            answer = wrong.answer(inputs, question.expected(inputs))
            outcome = {"value": to_plain(answer)}
            case = evaluate_case(question, inputs, outcome)
            if case.passed:
                continue  # a case in the regime where the slip is harmless (a long path)
            rejected = True
            parts = answer if isinstance(answer, tuple) else (answer,)
            if any(np.isnan(np.asarray(a, dtype=float)).any() for a in parts):
                assert case.status and question.nan_hint in (case.diagnosis, "")
                continue  # a hard case where the slip gives NaN: the NaN hint says so
            judged += 1
            diagnosed += case.diagnosis == wrong.diagnosis
        assert rejected, f"{mistake} passed every case of seed {seed}"
    # every case must be diagnosed (a wrong answer may rarely coincide with another mistake)
    assert diagnosed >= judged - 1 and diagnosed >= 1, f"{mistake}: diagnosed {diagnosed} cases"


def test_plain_round_trip_is_exact_float64():
    A = np.random.default_rng(0).normal(size=(4, 3))
    back = from_plain(to_plain(A))
    assert back.dtype == np.float64 and np.array_equal(back, A)
    assert from_plain(to_plain((A, 2.5)))[1] == 2.5


def test_every_assignment_asks_for_understanding():
    """Issue 16: at least two derivation or analysis questions per assignment, graded."""
    from mlnotes.homework.assignments import ASSIGNMENTS, UNDERSTANDING

    assert UNDERSTANDING <= set(QUESTIONS)
    for name, questions_ in ASSIGNMENTS.items():
        graded = {q for q, points in questions_.items() if points > 0}
        assert len(UNDERSTANDING & graded) >= 2, name
