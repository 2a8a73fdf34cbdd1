"""Bad input to the iterative methods: a clear message saying what is wrong and what to do,
never NaN coordinates."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_s_curve

import mlnotes as ml
from mlnotes import autoencoder as ae
from mlnotes import smacof as sm
from mlnotes import sne
from mlnotes.graphs import pairwise_distances, squared_distances


@pytest.fixture(scope="module")
def X():
    return make_s_curve(60, random_state=0)[0]


def _with_nan(X):
    X = X.copy()
    X[3, 1] = np.nan
    return X


# --- SNE family -------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [sne.SNE, sne.SymmetricSNE, sne.TSNE])
def test_perplexity_too_large_names_the_largest_allowed(cls, X):
    with pytest.raises(ValueError, match=r"perplexity=59 is too large for 60 points.*must be "
                                         r"below 59.*perplexity < 59"):
        cls(perplexity=59).fit(X)
    with pytest.raises(ValueError, match="perplexity=80 is too large"):
        cls(perplexity=80).fit(X)


def test_perplexity_too_small_or_not_a_number(X):
    with pytest.raises(ValueError, match=r"perplexity=1 is too small.*perplexity > 1"):
        sne.TSNE(perplexity=1).fit(X)
    with pytest.raises(ValueError, match="perplexity must be finite and > 0"):
        sne.TSNE(perplexity=-5.0).fit(X)
    with pytest.raises(TypeError, match="perplexity must be a number"):
        sne.TSNE(perplexity="30").fit(X)


def test_conditional_affinities_checks_its_input(X):
    with pytest.raises(ValueError, match="D2 must be a square matrix"):
        sne.conditional_affinities(squared_distances(X)[:10], 5.0)
    with pytest.raises(ValueError, match="perplexity=59 is too large"):
        sne.conditional_affinities(squared_distances(X), 59)


def test_duplicates_that_make_the_perplexity_unreachable_are_named(X):
    Xd = np.vstack([np.zeros((10, 3)), X[:40]])
    with pytest.warns(RuntimeWarning, match=r"point 0 has 9 exact duplicate\(s\).*remove "
                                            r"duplicate points or choose perplexity > 9"):
        P, sigma = sne.conditional_affinities(squared_distances(Xd), 3.0)
    assert np.isfinite(P).all()
    # the ten twins' rows are the search's limit, uniform over the other nine; the rest reach
    # the target
    twins = np.zeros((10, 50))
    twins[:, :10] = (1.0 - np.eye(10)) / 9.0
    np.testing.assert_allclose(P[:10], twins, rtol=1e-14)
    assert np.all(sigma[:10] == 0.0) and np.all(sigma[10:] > 0.0)
    np.testing.assert_allclose(2.0 ** sne.entropy_bits(P[10:]), 3.0, atol=1e-4)


def test_coincident_points_get_the_searchs_limit_not_nan():
    # issue 35, bug 4: all points coincide, so every row has N - 1 = 99 ties at its smallest
    # distance and no bandwidth reaches perplexity 30 (a point with m ties has perplexity >= m);
    # the row is the limit sigma -> 0: uniform over the 99 others
    with pytest.warns(RuntimeWarning, match=r"100 point\(s\) cannot reach perplexity=30.0: "
                                            r"point 0 has 99 exact duplicate\(s\).*remove "
                                            r"duplicate points \(np.unique\(X, axis=0\)"):
        P, sigma = sne.conditional_affinities(np.zeros((100, 100)), 30.0)
    np.testing.assert_allclose(P, (1.0 - np.eye(100)) / 99.0, rtol=1e-14)
    assert np.all(sigma == 0.0)


def test_tsne_on_coincident_points_fits_a_finite_map():
    # scikit-learn's test_init_ndarray: from an all-zero start the coincident points stay put
    # (every force is along z_i - z_j = 0); from a random start the map is finite
    X = np.ones((100, 5))
    with pytest.warns(RuntimeWarning, match="cannot reach perplexity"):
        Z = ml.TSNE(init=np.zeros((100, 2))).fit_transform(X)
    assert np.array_equal(Z, np.zeros((100, 2)))
    with pytest.warns(RuntimeWarning, match="cannot reach perplexity"):
        Z = ml.TSNE(init="random", max_iter=250, random_state=0).fit_transform(X)
    assert np.isfinite(Z).all()


@pytest.mark.parametrize("cls", [sne.SNE, sne.SymmetricSNE, sne.TSNE])
def test_non_finite_data(cls, X):
    with pytest.raises(ValueError, match=r"X contains 1 NaN and 0 infinite value\(s\) \(first "
                                         r"at \(3, 1\)\); remove or impute"):
        cls(perplexity=10).fit(_with_nan(X))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(learning_rate=0.0), ValueError, "learning_rate must be finite and > 0"),
        (dict(learning_rate=-10.0), ValueError, "learning_rate must be finite and > 0"),
        (dict(learning_rate="fast"), ValueError, "learning_rate must be a positive number or 'auto'"),
        (dict(max_iter=0), ValueError, "max_iter must be finite and > 0"),
        (dict(max_iter=500.0), TypeError, "max_iter must be an integer"),
        (dict(max_iter=200), ValueError,
         r"max_iter=200 ends inside the early-exaggeration phase.*max_iter >= exaggeration_iter"),
        (dict(early_exaggeration=0.5), ValueError, r"early_exaggeration=0.5 would weaken.*>= 1"),
        (dict(n_components=61), ValueError, r"n_components=61 is too large.*at most 60"),
        (dict(init="spectral"), ValueError, "init must be 'pca', 'random' or an array"),
        (dict(init=np.zeros((5, 2))), ValueError, r"init has shape \(5, 2\) but .* \(60, 2\)"),
        (dict(dof=0.0), ValueError, "dof must be finite and > 0"),
        (dict(record_every=0), ValueError, "record_every must be finite and > 0"),
    ],
)
def test_parameters_that_cannot_work(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        sne.TSNE(perplexity=10, **kwargs).fit(X)


def test_short_runs_are_fine_without_exaggeration(X):
    Z = sne.TSNE(perplexity=10, max_iter=20, early_exaggeration=1.0, random_state=0,
                 learning_rate=50.0).fit_transform(X)
    assert np.isfinite(Z).all()


@pytest.mark.parametrize("cls, lr", [(sne.SNE, 100.0), (sne.SymmetricSNE, 1e4), (sne.TSNE, 1e9)])
def test_divergence_is_an_error_not_nan(cls, lr, X):
    with pytest.raises(FloatingPointError, match=r"diverged at iteration \d+ .*learning_rate="
                                                 r".*Lower learning_rate"):
        cls(perplexity=10, learning_rate=lr, max_iter=300, random_state=0).fit(X)


def test_a_run_that_does_not_move_warns_to_raise_the_learning_rate(X):
    with pytest.warns(RuntimeWarning, match=r"TSNE made no progress.*Raise learning_rate"):
        est = sne.TSNE(perplexity=10, learning_rate=1e-6, max_iter=300, random_state=0).fit(X)
    assert np.isfinite(est.embedding_).all()


def test_a_run_whose_kl_rises_warns_to_lower_the_learning_rate(X):
    with pytest.warns(RuntimeWarning, match=r"The KL rose.*lower learning_rate"):
        sne.TSNE(perplexity=10, learning_rate=1e6, max_iter=300, random_state=0).fit(X)


def test_objective_functions_check_shapes():
    Z = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"P has shape \(4, 4\) but Z has 5 rows"):
        sne.tsne_objective_gradient(Z, np.zeros((4, 4)))
    with pytest.raises(ValueError, match="Z contains 1 NaN"):
        sne.sne_objective_gradient(np.array([[0.0, np.nan], [1, 1]]), np.eye(2))


@pytest.mark.parametrize("cls", [sne.SNE, sne.SymmetricSNE])  # TSNE has one (issue 35)
def test_no_transform_fitted_or_not(cls):
    # like scikit-learn's TSNE: no transform at all (hasattr is False), with a message that says
    # why and what to do when it is asked for
    assert not hasattr(cls(), "transform")
    with pytest.raises(AttributeError, match=f"{cls.__name__} has no transform for new points "
                                             r"\(the map is fitted to the training points only\); "
                                             "use fit_transform on the combined data"):
        cls().transform(np.zeros((3, 3)))


# --- metric MDS ----------------------------------------------------------------------------------
def test_metric_mds_non_finite_and_bad_dissimilarities(X):
    with pytest.raises(ValueError, match=r"X contains 1 NaN.*remove or impute"):
        ml.MetricMDS().fit(_with_nan(X))
    D = pairwise_distances(X)
    D[0, 1] += 1.0
    with pytest.raises(ValueError, match=r"not symmetric.*symmetrise it"):
        ml.MetricMDS(dissimilarity="precomputed").fit(D)
    with pytest.raises(ValueError, match=r"has negative entries.*must be >= 0"):
        ml.MetricMDS(dissimilarity="precomputed").fit(-pairwise_distances(X))
    with pytest.raises(ValueError, match=r"must be square .*dissimilarity='euclidean'"):
        ml.MetricMDS(dissimilarity="precomputed").fit(X)
    with pytest.raises(ValueError, match="All dissimilarities are zero"):
        ml.MetricMDS(dissimilarity="precomputed").fit(np.zeros((5, 5)))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(dissimilarity="cosine"), ValueError,
         "dissimilarity must be 'euclidean' or 'precomputed'"),
        (dict(p=3), ValueError, r"p=3 is not supported: use p=2 .* or p=1"),
        (dict(max_iter=0), ValueError, "max_iter must be finite and > 0"),
        (dict(eps=-1.0), ValueError, "eps must be finite and >= 0"),
        (dict(n_init=0), ValueError, "n_init must be finite and > 0"),
        (dict(n_components=61), ValueError, r"n_components=61 is too large"),
        (dict(init="pca"), ValueError, "init must be 'classical', 'random' or an array"),
        (dict(init=np.zeros((3, 2))), ValueError, r"init has shape \(3, 2\)"),
    ],
)
def test_metric_mds_parameters(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        ml.MetricMDS(**kwargs).fit(X)


def test_smacof_function_checks(X):
    D = pairwise_distances(X)
    with pytest.raises(ValueError, match=r"Delta is \(60, 60\) but Z has 4 rows"):
        sm.smacof(D, 2, init=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="Z contains"):
        sm.guttman_transform(D, np.full((60, 2), np.inf))


def test_coinciding_start_gives_no_nan(X):
    """A start with coinciding points (d_ij = 0) takes the zero subgradient: finite output."""
    D = pairwise_distances(X)
    Z, stress, _ = sm.smacof(D, 2, init=np.zeros((60, 2)), max_iter=5)
    assert np.isfinite(Z).all() and np.isfinite(stress)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sm.stress_gradient(D, np.zeros((60, 2)))


# --- autoencoders ------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ae.LinearAutoencoder, ae.Autoencoder])
def test_autoencoder_bad_data(cls, X):
    with pytest.raises(ValueError, match=r"X contains 1 NaN.*remove or impute"):
        cls(n_components=1).fit(_with_nan(X))
    with pytest.raises(ValueError, match=r"n_components=4 is too large.*at most 3 \(n_features\)"):
        cls(n_components=4).fit(X)
    with pytest.raises(ValueError, match="All samples are identical"):
        cls(n_components=1).fit(np.ones((10, 3)))
    with pytest.raises(RuntimeError, match="not fitted yet"):
        cls(n_components=1).encode(X)


def test_autoencoder_bad_parameters(X):
    with pytest.raises(ValueError, match="learning_rate must be a positive number, got 'auto'"):
        ae.Autoencoder(n_components=1, learning_rate="auto").fit(X)
    with pytest.raises(ValueError, match="learning_rate must be finite and > 0"):
        ae.LinearAutoencoder(n_components=1, learning_rate=-1.0).fit(X)
    with pytest.raises(ValueError, match="hidden_layer_sizes must be positive integers"):
        ae.Autoencoder(n_components=1, hidden_layer_sizes=(8, 0)).fit(X)
    with pytest.raises(ValueError, match="epochs must be finite and > 0"):
        ae.Autoencoder(n_components=1, epochs=0).fit(X)
    with pytest.raises(TypeError, match="batch_size must be an integer"):
        ae.Autoencoder(n_components=1, batch_size=2.5).fit(X)


@pytest.mark.parametrize(
    "est",
    [ae.LinearAutoencoder(n_components=1, learning_rate=10.0),
     ae.Autoencoder(n_components=1, learning_rate=1e3, epochs=5, random_state=0)],
)
def test_autoencoder_divergence_is_an_error(est, X):
    with pytest.raises(FloatingPointError, match=r"Training diverged at .* Lower learning_rate"):
        est.fit(X)


def test_autoencoder_shape_checks_after_fit(X):
    net = ae.Autoencoder(n_components=1, hidden_layer_sizes=(4,), epochs=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match=r"X has 2 features, but \w+ is expecting 3 features as "
                                         r"input \(the autoencoder was fitted on 3\)"):
        net.encode(X[:, :2])
    with pytest.raises(ValueError, match=r"Z must have 1 columns \(n_components\), got 2"):
        net.decode(np.zeros((4, 2)))


def test_metric_mds_has_no_transform():
    assert not hasattr(sm.MetricMDS(), "transform")
    with pytest.raises(AttributeError, match=r"MetricMDS has no transform for new points \(SMACOF "
                                             r"fits a configuration of the training points only\)"):
        sm.MetricMDS().transform(np.zeros((3, 3)))
