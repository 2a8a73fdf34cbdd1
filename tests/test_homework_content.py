"""What the homework teaches (issue 22): the catalogued likely mistakes of the chapters'
exercises, feedback on understanding questions that points toward the result without stating
it, the instructor's reference answers checked by an independent route, and a student's check
where the reference answers are not available."""

import numpy as np
import pytest
from scipy.linalg import eigh

from mlnotes.homework import get_question, run_check
from mlnotes.homework.bank import solutions
from mlnotes.homework.core import UNVERIFIED, evaluate_case, to_plain

SEED = 3


def _squared_distances(X):
    return ((X[:, None] - X[None]) ** 2).sum(-1)


def _report(name, fn, seed=SEED):
    report = run_check(name, fn, seed=seed)
    assert not report.passed
    return report


# --- SNE exercises -----------------------------------------------------------------------------

def naive_affinities(D2, sigma):
    """The plain formula, without shifting each row by its smallest exponent."""
    E = np.exp(-D2 / (2 * sigma[:, None] ** 2))
    np.fill_diagonal(E, 0.0)
    return E / E.sum(axis=1, keepdims=True)


def stable_affinities(D2, sigma):
    off = D2 + np.diag(np.full(len(D2), np.inf))
    E = np.exp(-(off - off.min(axis=1, keepdims=True)) / (2 * sigma[:, None] ** 2))
    return E / E.sum(axis=1, keepdims=True)


def test_affinities_without_the_row_minimum_fail_on_a_tiny_bandwidth():
    question = get_question("sne.conditional_affinities")
    with np.errstate(all="ignore"):
        report = _report("sne.conditional_affinities", naive_affinities)
    # the random cases pass: only the hard case breaks the naive formula, and says why
    assert [c.passed for c in report.cases] == [True] * question.n_cases + [False]
    hard = report.cases[-1]
    assert "NaN" in hard.status and "underflows" in hard.diagnosis
    assert run_check("sne.conditional_affinities", stable_affinities, seed=SEED).passed


def test_nan_on_the_input_a_question_names_earns_nothing():
    """The question demands no NaN however small sigma is: a NaN there costs the question's
    points, whatever the other cases earn (issue 30)."""
    with np.errstate(all="ignore"):
        report = run_check("sne.laplace_affinities", lambda D2, sigma: _plain_laplace(D2, sigma),
                           seed=SEED)
    assert any(c.passed for c in report.cases) and report.fraction == 0.0


def _plain_laplace(D2, sigma):
    E = np.exp(-np.sqrt(D2) / sigma[:, None])
    np.fill_diagonal(E, 0.0)
    return E / E.sum(axis=1, keepdims=True)


def test_transposed_conditional_affinities_are_named():
    report = _report("sne.conditional_affinities", lambda D2, sigma: stable_affinities(
        D2, sigma).T)
    assert "P is transposed" in report.diagnosis


def _search_for(offset):
    from mlnotes.affinities import conditional_affinities

    return lambda D2, perplexity: conditional_affinities(D2, perplexity + offset, tol=1e-10)[1]


@pytest.mark.parametrize(("offset", "way", "sigma"), [
    (1.0, "too high", "too large"), (-1.0, "too low", "too small")])
def test_a_perplexity_search_one_off_says_which_way_and_how_far(offset, way, sigma):
    report = _report("sne.perplexity_search", _search_for(offset))
    question = get_question("sne.perplexity_search")
    text = report.text()
    assert way in text and f"each sigma_i is {sigma}" in text
    assert "by 1 on average" in text  # how far, in perplexity units
    # the target is the student's own argument: it is never restated
    for inputs in question.cases(SEED):
        assert f"{inputs['perplexity']:g}" not in text.replace(f"seed={SEED}", "")


def _tsne_parts(Z, P):
    D2 = _squared_distances(Z)
    W = 1 / (1 + D2)
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()

    def pull(M):
        return M.sum(axis=1)[:, None] * Z - M @ Z
    return 4 * pull(P * W), 4 * pull(Q * W)


def test_attraction_only_and_zero_gradients_are_named():
    attraction = _report("sne.tsne_gradient", lambda Z, P: _tsne_parts(Z, P)[0])
    assert "only the attraction" in attraction.diagnosis
    zero = _report("sne.tsne_gradient", lambda Z, P: np.zeros_like(Z))
    assert "zero everywhere" in zero.diagnosis
    assert run_check("sne.tsne_gradient", lambda Z, P: np.subtract(*_tsne_parts(Z, P)),
                     seed=SEED).passed


# --- Laplacian eigenmaps and LLE exercises ----------------------------------------------------

def _sym_eigvecs(W, n_components):
    d = W.sum(axis=1)
    L_sym = np.eye(len(W)) - W / np.sqrt(np.outer(d, d))
    return np.linalg.eigh(L_sym)[1][:, 1:n_components + 1]


def test_eigenmaps_through_l_sym_must_map_back():
    report = _report("eigenmaps.embedding", _sym_eigvecs)
    assert "map each back" in report.diagnosis and "D^-1/2" in report.diagnosis

    def mapped_back(W, n_components):
        return _sym_eigvecs(W, n_components) / np.sqrt(W.sum(axis=1))[:, None]
    assert run_check("eigenmaps.embedding", mapped_back, seed=SEED).passed


def test_top_eigenvectors_and_eigenvectors_as_rows_are_named():
    def top(W, n_components):
        D = np.diag(W.sum(axis=1))
        lam, V = eigh(D - W, D)
        return V[:, np.argsort(lam)[::-1][:n_components]]

    def rows(W, n_components):
        D = np.diag(W.sum(axis=1))
        return eigh(D - W, D)[1][1:n_components + 1].T

    assert "LARGEST" in _report("eigenmaps.embedding", top).diagnosis
    assert "taken as rows" in _report("eigenmaps.embedding", rows).diagnosis
    assert "taken as rows" in _report(
        "lle.embedding", lambda M, n_components: np.linalg.eigh(M)[1][1:n_components + 1].T
    ).diagnosis


def test_lle_weights_by_plain_least_squares_are_named():
    def least_squares(X, n_neighbors, reg):
        N = len(X)
        D2 = _squared_distances(X)
        np.fill_diagonal(D2, np.inf)
        W = np.zeros((N, N))
        for i in range(N):
            nb = np.argsort(D2[i])[:n_neighbors]
            W[i, nb] = np.linalg.lstsq(X[nb].T, X[i], rcond=None)[0]  # no constraint, no ridge
        return W

    report = _report("lle.weights", least_squares)
    assert "sum to one" in report.diagnosis or "sum_j w_ij = 1" in report.diagnosis


# --- understanding: feedback that teaches without telling ---------------------------------------

def test_perplexity_limits_answered_one_and_n_minus_one_get_a_derivation_not_the_answer():
    def naive_limits(D2):
        return np.c_[np.ones(len(D2)), np.full(len(D2), len(D2) - 1.0)]

    report = _report("sne.perplexity_limits", naive_limits, seed=1)
    text = report.text()
    assert "exp(-(D2_ij - D2_ik) / 2 sigma_i^2)" in text and "SAME smallest distance" in text
    for telling in ("their number", "number of tied", "the perplexity is", "is the count"):
        assert telling not in text


def test_understanding_diagnoses_never_state_the_result():
    """No diagnosis of a graded derivation contains its result's formula."""
    results = {
        "sne.perplexity_limits": ("N - 1", "number of", "uniform on the"),
        "lle.null_vector": ("(I - W)^T (1 - W 1)", "1 - W 1"),
        "eigenmaps.trivial_eigenvectors": ("constant on each", "indicator"),
        "eigenmaps.dirichlet_energy": ("1/2 sum",),
        "eigenmaps.path_spectrum": ("sin^2", "4 sin", "sin("),
        "autoencoder.linear_optimum": ("discarded", "eigenvalues of"),
        "sne.tsne_forces": ("sum_j p_ij w_ij",),
    }
    for name, phrases in results.items():
        for mistake in get_question(name).all_mistakes():
            for phrase in phrases:
                assert phrase not in mistake.diagnosis, (name, mistake.name, phrase)


def test_a_cancelling_path_spectrum_is_told_to_avoid_the_subtraction():
    def cancelling(N, m):
        return 2 - 2 * np.cos(np.pi * np.arange(1, m + 1) / N)

    report = _report("eigenmaps.path_spectrum", cancelling)
    text = report.text()
    assert "loses every digit" in text or "infinity" in text or "positive" in text


# --- the instructor's references, by an independent route ----------------------------------------

def reference(name):
    return get_question(name).reference


def test_weighted_centring_is_the_gram_matrix_of_the_weighted_centred_points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 3))
    w = rng.uniform(0.1, 1, size=9)
    w /= w.sum()
    Xc = X - w @ X
    K = reference("kernels.weighted_double_center")(D2=_squared_distances(X), w=w)
    assert np.allclose(K, Xc @ Xc.T, atol=1e-12)


def test_path_spectrum_matches_an_eigen_solver():
    N = 60
    W = np.diag(np.ones(N - 1), 1)
    W = W + W.T
    lam = np.linalg.eigvalsh(np.diag(W.sum(1)) - W)
    assert np.allclose(reference("eigenmaps.path_spectrum")(N=N, m=8), lam[1:9], rtol=1e-12)


def test_feature_space_error_with_a_linear_kernel_is_pca_in_input_space():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(20, 4)) * [3, 2, 1, 0.5], rng.normal(size=(5, 4))
    mean = X.mean(0)
    V = np.linalg.eigh((X - mean).T @ (X - mean))[1][:, ::-1][:, :2]
    R = (Y - mean) - (Y - mean) @ V @ V.T
    err = reference("kernel_pca.feature_space_error")(
        k_new=(Y**2).sum(1), K_new=Y @ X.T, K=X @ X.T, n_components=2)
    assert np.allclose(err, (R**2).sum(1), rtol=1e-9)


def test_weighted_pca_with_integer_weights_is_pca_of_repeated_samples():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 3)) * [2, 1, 0.3]
    counts = rng.integers(1, 5, size=12)
    V = reference("pca.weighted_subspace")(X=X, w=counts / counts.sum(), n_components=2)
    Xr = np.repeat(X, counts, axis=0)
    Xr = Xr - Xr.mean(0)
    V_rep = np.linalg.eigh(Xr.T @ Xr)[1][:, ::-1][:, :2]
    assert np.allclose(V @ V.T, V_rep @ V_rep.T, atol=1e-10)


def test_tied_step_is_a_gradient_step_on_the_stated_loss():
    question = get_question("autoencoder.tied_step")
    inputs = question.cases(0)[0]
    from mlnotes.homework.bank.homework import _tied_loss

    loss, W_new, *_ = reference("autoencoder.tied_step")(**inputs)
    X, W, b1, b2, lr = (inputs[k] for k in ("X", "W", "b1", "b2", "learning_rate"))
    G = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        h = 1e-6
        up, down = W.copy(), W.copy()
        up[idx] += h
        down[idx] -= h
        G[idx] = (_tied_loss(X, up, b1, b2) - _tied_loss(X, down, b1, b2)) / (2 * h)
    assert np.isclose(loss, _tied_loss(X, W, b1, b2))
    assert np.allclose((W - W_new) / lr, G, rtol=1e-6, atol=1e-9)


def test_linear_autoencoder_optimum_is_reached_by_the_pca_reconstruction():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4)) * [3, 1, 0.5, 0.2] + 2
    mean = X.mean(0)
    V = np.linalg.svd(X - mean, full_matrices=False)[2][:2].T
    X_hat = mean + (X - mean) @ V @ V.T  # an affine rank-2 map: a linear autoencoder
    loss = ((X - X_hat) ** 2).sum() / (2 * len(X))
    assert np.isclose(reference("autoencoder.linear_optimum")(X=X, n_components=2), loss)


def test_tsne_forces_make_up_the_tsne_gradient_and_limits_are_reached():
    from mlnotes.sne import tsne_objective_gradient

    inputs = get_question("sne.tsne_forces").cases(0)[0]
    A, R = reference("sne.tsne_forces")(**inputs)
    assert np.allclose(4 * (A - R), tsne_objective_gradient(inputs["Z"], inputs["P"])[1])
    D2 = get_question("sne.perplexity_limits").cases(0)[0]["D2"]
    limits = reference("sne.perplexity_limits")(D2=D2)
    for k, sigma in enumerate((1e-3, 1e6)):
        P = stable_affinities(D2, np.full(len(D2), sigma))
        H = -(P * np.log2(np.where(P > 0, P, 1))).sum(1)
        assert np.allclose(2**H, limits[:, k], rtol=1e-6)


def test_trivial_eigenvectors_span_the_null_space_an_eigen_solver_finds():
    W = get_question("eigenmaps.trivial_eigenvectors").cases(1)[0]["W"]
    d = W.sum(1)
    lam, V = eigh(np.diag(d) - W, np.diag(d))
    null = V[:, lam < 1e-9]
    B = reference("eigenmaps.trivial_eigenvectors")(W=W)
    Qn, Qb = np.linalg.qr(null)[0], np.linalg.qr(B)[0]
    assert np.allclose(Qn @ Qn.T, Qb @ Qb.T, atol=1e-8)
    ones = np.ones(len(W))
    W1 = get_question("lle.null_vector").cases(0)[0]["W"]
    M = (np.eye(len(W1)) - W1).T @ (np.eye(len(W1)) - W1)
    assert np.allclose(reference("lle.null_vector")(W=W1), M @ np.ones(len(W1)))
    F = np.c_[ones, np.arange(len(W))]
    half_sum = 0.5 * np.einsum("ij,ijk->k", W, (F[:, None] - F[None]) ** 2)
    assert np.allclose(reference("eigenmaps.dirichlet_energy")(W=W, F=F), half_sum)


def test_umap_attraction_for_a_equal_b_equal_one_is_tsne_attraction_with_v():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(7, 2))
    V = rng.uniform(size=(7, 7))
    V = (V + V.T) / 2
    np.fill_diagonal(V, 0.0)
    assert np.allclose(reference("umap.attraction_gradient")(Z=Z, V=V, a=1.0, b=1.0),
                       _tsne_parts(Z, V)[0])


# --- a student without the instructor's reference answers ----------------------------------------

@pytest.fixture
def no_solutions():
    solutions.use_solutions(False)
    yield
    solutions.use_solutions(None)


def test_without_references_the_properties_are_checked_and_the_comparison_deferred(no_solutions):
    assert not solutions.available()
    good = run_check("sne.reverse_kl_gradient",
                     _reverse, seed=1)
    assert not good.passed and not good.verified  # no pass without the reference
    assert UNVERIFIED in good.text() and "no check that can run here fails" in good.text()
    assert "checks that can run here pass" in good.text()
    wrong = run_check("sne.reverse_kl_gradient", lambda Z, P: -_reverse(Z, P), seed=1)
    assert not wrong.passed and "finite differences" in wrong.text()
    # a derivation with no property to test is not judged here, and never called right
    limits = run_check("sne.perplexity_limits",
                       lambda D2: np.c_[np.ones(len(D2)), np.full(len(D2), len(D2) - 1.0)])
    assert not limits.passed and UNVERIFIED in limits.text() and "PASSED" not in limits.text()


def _reverse(Z, P):
    """KL(Q || P)'s gradient by central finite differences (an honest, slow student)."""
    from mlnotes.homework.bank.homework import _reverse_kl

    G = np.zeros_like(Z)
    for idx in np.ndindex(*Z.shape):
        up, down = Z.copy(), Z.copy()
        up[idx] += 1e-6
        down[idx] -= 1e-6
        G[idx] = (_reverse_kl(up, P) - _reverse_kl(down, P)) / 2e-6
    return G


def test_the_grader_refuses_to_run_without_the_references(no_solutions):
    question = get_question("sne.tsne_forces")
    inputs = question.cases(0)[0]
    with pytest.raises(LookupError, match="instructor"):
        question.expected(inputs)
    # the chapters' exercises need no private reference
    q = get_question("kernels.double_center")
    i = q.cases(0)[0]
    assert evaluate_case(q, i, {"value": to_plain(q.reference(**i))}).passed


def test_solutions_from_a_folder_the_instructor_gives(tmp_path):
    with pytest.raises(FileNotFoundError, match="reference.py"):
        solutions.use_solutions(tmp_path)
    (tmp_path / "reference.py").write_text(
        "import numpy as np\nREFERENCES = {'lle.null_vector': lambda W: np.zeros(len(W))}\n")
    try:
        solutions.use_solutions(tmp_path)
        question = get_question("lle.null_vector")
        inputs = question.cases(0)[0]
        assert not np.any(question.expected(inputs)[0])
        with pytest.raises(LookupError, match="no reference for 'sne.tsne_forces'"):
            get_question("sne.tsne_forces").expected(get_question("sne.tsne_forces").cases(0)[0])
    finally:
        solutions.use_solutions(None)
    assert solutions.solutions_folder() == solutions.CHECKOUT


def test_feedback_on_understanding_never_says_how_far_the_answer_is():
    from mlnotes.homework.assignments import UNDERSTANDING

    assert all(get_question(name).conceal for name in UNDERSTANDING)

    def pca_error(X, n_components):  # the PCA chapter's error: twice the optimum
        Xc = X - X.mean(axis=0)
        return np.sort(np.linalg.eigvalsh(Xc.T @ Xc / len(X)))[::-1][n_components:].sum()

    text = _report("autoencoder.linear_optimum", pca_error).text()
    assert "x the expected" not in text and "relative error" not in text
    assert "it does not" in text
