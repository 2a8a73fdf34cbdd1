"""mlnotes' estimators inside scikit-learn: its own estimator checks, clone, pipelines, search.

``check_estimator`` is a test suite nobody on this project wrote; every estimator runs all of
it **with its default parameters** (issue 25): ``type(e)()`` for every public estimator, no
setting chosen to make a check pass. The only exemptions are those declared in the estimator's
``_expected_failed_checks`` (with a reason), read by :func:`mlnotes.base.expected_failed_checks`.

No estimator declares any: scikit-learn's own PCA, KernelPCA, Isomap, LocallyLinearEmbedding,
SpectralEmbedding, MDS and TSNE have no expected failures among the checks that run here.
Two defaults exist so that this holds on the checks' small data sets (10 to 30 points):
``LaplacianEigenmaps(n_neighbors=None)`` takes k = max(N // 10, 1) as scikit-learn's
``SpectralEmbedding`` does, and the SNE family's ``perplexity=None`` is 30 capped at
(N - 1) / 3 as openTSNE caps it (scikit-learn's own ``TSNE()`` fails these checks: it refuses
perplexity 30 on fewer than 31 points, and scikit-learn's test suite sets perplexity=2).

Further instances run the same checks on other code paths: the kNN graph methods with k = 5 (on
the checks' two far-apart blobs of 15 points Isomap joins the components by their shortest
edge and eigenmaps embeds each blob, both with a warning), a radius graph whose radius is
larger than those data sets, and the landmark variants.
Precomputed-matrix instances are not run: the checks feed Gram-like matrices with a non-zero
diagonal, which are not dissimilarities (scikit-learn does not run its MDS on them either).
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.manifold import Isomap as SkIsomap
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import mlnotes as ml
from mlnotes.base import expected_failed_checks

RADIUS_COVERING_CHECK_DATA = 10.0  # larger than the diameter of every data set the checks use

DEFAULTS = [getattr(ml, name)() for name in sorted(ml._ESTIMATORS)]
VARIANTS = [
    # the kNN graph methods with k = 5: the checks' two blobs give a disconnected graph, which
    # Isomap joins and Laplacian eigenmaps embeds piece by piece, each with a warning
    ml.Isomap(n_neighbors=5),
    ml.LaplacianEigenmaps(n_neighbors=5),
    # epsilon graphs that join every pair of the checks' points
    ml.Isomap(n_neighbors=None, radius=RADIUS_COVERING_CHECK_DATA),
    ml.LaplacianEigenmaps(radius=RADIUS_COVERING_CHECK_DATA, t=1.0),
    # the landmark variants (issue 17): another fit and another transform
    ml.ClassicalMDS(n_landmarks=8, landmarks="maxmin", random_state=0),
    ml.Isomap(n_neighbors=None, radius=RADIUS_COVERING_CHECK_DATA, n_landmarks=8,
              random_state=0),
]
INSTANCES = DEFAULTS + VARIANTS


with warnings.catch_warnings():  # "does not inherit from BaseEstimator": by design (base.py)
    warnings.simplefilter("ignore", UserWarning)
    _CHECKS = parametrize_with_checks(INSTANCES, expected_failed_checks=expected_failed_checks)


@_CHECKS
def test_sklearn_check_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. DisconnectedGraphWarning on the checks' blobs
        check(estimator)


def test_every_public_estimator_is_checked_with_its_defaults():
    assert [type(e).__name__ for e in DEFAULTS] == sorted(ml._ESTIMATORS)
    assert all(repr(e) == f"{type(e).__name__}()" for e in DEFAULTS)


def test_no_exemptions_beyond_scikit_learns_own():
    # scikit-learn's counterparts (PCA, KernelPCA, Isomap, LocallyLinearEmbedding,
    # SpectralEmbedding, MDS, TSNE) expect no failure among these checks; neither do we
    assert {type(e).__name__: expected_failed_checks(e) for e in INSTANCES
            if expected_failed_checks(e)} == {}


def test_exemptions_have_reasons_and_name_real_checks():
    from sklearn.utils import estimator_checks

    for est in INSTANCES:
        for check, reason in expected_failed_checks(est).items():
            assert hasattr(estimator_checks, check), check
            assert len(reason.split()) >= 8, (type(est).__name__, check)


# --- parameters, clone, repr ---------------------------------------------------------------------
@pytest.mark.parametrize("est", INSTANCES, ids=lambda e: type(e).__name__)
def test_params_clone_and_repr(est):
    params = est.get_params()
    assert params == clone(est).get_params()
    assert set(params) == set(type(est)().get_params())
    twin = clone(est).set_params(n_components=1)
    assert twin.n_components == 1 and est.n_components != 1
    assert repr(twin).startswith(f"{type(est).__name__}(") and "n_components=1" in repr(twin)


def test_repr_shows_only_changed_parameters():
    assert repr(ml.Isomap()) == "Isomap()"
    assert repr(ml.Isomap(n_neighbors=10)) == "Isomap(n_neighbors=10)"
    assert repr(ml.TSNE(perplexity=5.0, random_state=0)) == "TSNE(perplexity=5.0, random_state=0)"
    init = np.zeros((5, 2))
    assert repr(ml.MetricMDS(init=init)) == "MetricMDS(init=<array of shape (5, 2)>)"


def test_set_params_rejects_unknown_names():
    with pytest.raises(ValueError, match=r"Invalid parameter 'n_neighbours' for estimator "
                                         r"Isomap\(\)\. Valid parameters are: \['eigen_solver'"):
        ml.Isomap().set_params(n_neighbours=5)


# --- outputs ---------------------------------------------------------------------------------------
def test_feature_names_out_and_n_features_in():
    X = np.random.default_rng(0).normal(size=(40, 4))
    iso = ml.Isomap(n_components=3, n_neighbors=8).fit(X)
    assert iso.n_features_in_ == 4
    assert list(iso.get_feature_names_out()) == ["isomap0", "isomap1", "isomap2"]
    with pytest.raises(ValueError, match="input_features has 2 names but the model was fitted on "
                                         "4 features"):
        iso.get_feature_names_out(["a", "b"])
    with pytest.raises(RuntimeError, match="This PCA is not fitted yet"):
        ml.PCA().get_feature_names_out()


def test_set_output_checks_its_argument():
    with pytest.raises(ValueError, match=r"transform must be one of 'default', 'pandas', "
                                         r"'polars' or None, got 'numpy'"):
        ml.PCA().set_output(transform="numpy")
    pca = ml.PCA().set_output(transform="default")
    assert isinstance(pca.fit_transform(np.eye(4)), np.ndarray)
    assert clone(pca.set_output(transform="pandas"))._sklearn_output_config == {
        "transform": "pandas"
    }


def test_set_output_pandas_when_pandas_is_missing():
    try:
        import pandas  # noqa: F401
    except ImportError:
        pca = ml.PCA().set_output(transform="pandas")
        with pytest.raises(ImportError, match=r'set_output\(transform="pandas"\) needs pandas'):
            pca.fit_transform(np.eye(4))
    else:
        frame = ml.PCA(n_components=2).set_output(transform="pandas").fit_transform(np.eye(4))
        assert list(frame.columns) == ["pca0", "pca1"]


def test_fitting_does_not_import_sklearn():
    code = (
        "import sys, numpy as np, mlnotes as ml\n"
        "X = np.random.default_rng(0).normal(size=(50, 3))\n"
        "for name in ml._ESTIMATORS:\n"
        "    est = getattr(ml, name)(n_components=2)\n"
        "    est.set_params(**{k: v for k, v in dict(max_iter=60, epochs=2).items()\n"
        "                      if k in est.get_params()})\n"
        "    est.set_params(**({'early_exaggeration': 1, 'perplexity': 5}\n"
        "                      if 'perplexity' in est.get_params() else {}))\n"
        "    est.fit_transform(X); repr(est); est.get_feature_names_out()\n"
        "assert 'sklearn' not in sys.modules, 'sklearn was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- pipelines and grid search ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


def test_grid_search_over_isomap_neighbours_in_a_pipeline(digits):
    X, y = digits
    pipe = Pipeline([("iso", ml.Isomap(n_components=2)), ("knn", KNeighborsClassifier())])
    with warnings.catch_warnings():
        # the 5-NN graph of some training folds is disconnected: both Isomaps join its
        # components and warn (ours a DisconnectedGraphWarning)
        warnings.simplefilter("ignore")
        search = GridSearchCV(pipe, {"iso__n_neighbors": [5, 10]}, cv=3).fit(X, y)
        # scikit-learn's Isomap in the same pipeline, same folds, scores the same for each k
        for k, ours in zip([5, 10], search.cv_results_["mean_test_score"], strict=True):
            sk = Pipeline([("iso", SkIsomap(n_components=2, n_neighbors=k)),
                           ("knn", KNeighborsClassifier())])
            assert ours == pytest.approx(cross_val_score(sk, X, y, cv=3).mean(), abs=0.02), k
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.best_score_ > 0.7
    Z = search.best_estimator_[:-1].transform(X[:5])
    assert Z.shape == (5, 2)


def test_pipeline_ends_with_a_fit_transform_only_estimator(digits):
    X = digits[0][:150]
    pipe = Pipeline([("pca", ml.PCA(n_components=10)),
                     ("sne", ml.SymmetricSNE(perplexity=10, max_iter=300, random_state=0))])
    Z = pipe.fit_transform(X)
    assert Z.shape == (150, 2)
    assert not hasattr(pipe, "transform")  # (TSNE has a transform for new points since issue 35)


def test_precomputed_kernel_is_split_as_a_pairwise_matrix(digits):
    # the pairwise tag tells cross-validation to cut K[train][:, train] for fit and
    # K[test][:, train] for transform, so a precomputed kernel gives the same scores as the
    # kernel computed inside the estimator
    X, y = digits[0][:300], digits[1][:300]
    gamma = 1e-3
    K = ml.kernels.kernel_matrix(X, kernel="rbf", gamma=gamma)
    on_kernel = Pipeline([("kpca", ml.KernelPCA(n_components=8, kernel="precomputed")),
                          ("knn", KNeighborsClassifier())])
    on_data = Pipeline([("kpca", ml.KernelPCA(n_components=8, kernel="rbf", gamma=gamma)),
                        ("knn", KNeighborsClassifier())])
    np.testing.assert_allclose(cross_val_score(on_kernel, K, y, cv=3),
                               cross_val_score(on_data, X, y, cv=3))


# --- scikit-learn's conventions (issue 25) ---------------------------------------------------------
def test_tsne_max_iter_250_is_the_exaggeration_phase_alone():
    # scikit-learn's minimum max_iter is 250, its exaggeration phase: a legal, short run
    X = np.random.default_rng(0).normal(size=(40, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "no progress" warning: nothing after the phase
        tsne = ml.TSNE(max_iter=250, perplexity=5, random_state=0).fit(X)
    assert tsne.n_iter_ == 250 and np.isfinite(tsne.embedding_).all()
    with pytest.raises(ValueError, match=r"max_iter=249 ends inside the early-exaggeration "
                                         r"phase.*max_iter >= exaggeration_iter.*minimum is 250"):
        ml.TSNE(max_iter=249).fit(X)
    assert ml.TSNE(max_iter=100, early_exaggeration=1, perplexity=5).fit(X).n_iter_ <= 100


def test_sne_default_perplexity_is_30_capped_at_a_third_of_the_points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    fast = dict(max_iter=250, random_state=0)
    default, explicit = ml.TSNE(**fast).fit(X), ml.TSNE(perplexity=30.0, **fast).fit(X)
    assert default.perplexity_ == 30.0
    np.testing.assert_array_equal(default.embedding_, explicit.embedding_)  # bit for bit
    for est in (ml.SNE(**fast), ml.SymmetricSNE(**fast), ml.TSNE(**fast)):
        assert est.fit(X[:20]).perplexity_ == pytest.approx(19 / 3)
    with pytest.raises(ValueError, match=r"4 points are too few for TSNE: the default "
                                         r"perplexity \(N - 1\) / 3 = 1 must exceed 1"):
        ml.TSNE().fit(X[:4])
    # an explicit perplexity is checked, never changed
    with pytest.raises(ValueError, match="perplexity=30 is too large for 20 points"):
        ml.TSNE(perplexity=30).fit(X[:20])


def test_laplacian_eigenmaps_default_k_follows_spectral_embedding():
    from sklearn.manifold import SpectralEmbedding

    X = np.random.default_rng(1).normal(size=(250, 3))
    le = ml.LaplacianEigenmaps().fit(X)
    assert le.n_neighbors_ == 25 == max(250 // 10, 1)
    sk = SpectralEmbedding(n_components=2, random_state=0).fit(X)
    assert sk.n_neighbors_ == le.n_neighbors_
    np.testing.assert_array_equal(le.embedding_,
                                  ml.LaplacianEigenmaps(n_neighbors=25).fit(X).embedding_)
    with pytest.warns(ml.DisconnectedGraphWarning):  # k = 1 on 10 points
        assert ml.LaplacianEigenmaps().fit(X[:10]).n_neighbors_ == 1
    assert ml.LaplacianEigenmaps(radius=2.0).fit(X).n_neighbors_ is None


class Frame:
    """A minimal data frame (pandas is not a dependency): named columns over an array."""

    def __init__(self, data, columns):
        self._data = np.asarray(data)
        self.columns = list(columns)
        self.shape = self._data.shape
        self.dtype = self._data.dtype

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self):
        return len(self._data)


FEATURE_NAME_ESTIMATORS = [ml.PCA(), ml.KernelPCA(kernel="rbf"), ml.Isomap(), ml.LLE(),
                           ml.LaplacianEigenmaps(), ml.ClassicalMDS()]


@pytest.mark.parametrize("est", FEATURE_NAME_ESTIMATORS, ids=lambda e: type(e).__name__)
def test_feature_names_must_match_those_seen_in_fit(est):
    rng = np.random.default_rng(0)
    train = Frame(rng.normal(size=(40, 3)), ["a", "b", "c"])
    est = clone(est).fit(train)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    same = "The feature names should match those that were passed during fit"
    cases = {
        "xyz": r"Feature names unseen at fit time:\n- x\n- y\n- z\nFeature names seen at fit "
               r"time, yet now missing:\n- a\n- b\n- c\n",
        "ab": r"Feature names seen at fit time, yet now missing:\n- c\n",
        "abcd": r"Feature names unseen at fit time:\n- d\n",
        "cba": r"Feature names must be in the same order as they were in fit",
    }
    for columns, detail in cases.items():
        new = Frame(rng.normal(size=(5, len(columns))), list(columns))
        with pytest.raises(ValueError, match=rf"(?s){same}\.\n{detail}.*fitted on the columns "
                                             r"\['a', 'b', 'c'\]; pass a data frame"):
            est.transform(new)
    with pytest.warns(UserWarning, match=rf"X does not have valid feature names, but "
                                         rf"{type(est).__name__} was fitted with feature names"):
        est.transform(np.asarray(train)[:5])
    est.fit(np.asarray(train))
    assert not hasattr(est, "feature_names_in_")
    with pytest.warns(UserWarning, match=rf"X has feature names, but {type(est).__name__} was "
                                         r"fitted without feature names"):
        est.transform(train)


def test_feature_names_pca_with_matching_frame_is_silent():
    train = Frame(np.random.default_rng(0).normal(size=(40, 3)), ["a", "b", "c"])
    pca = ml.PCA().fit(train)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(pca.transform(train), pca.embedding_)


@pytest.mark.parametrize("est", [ml.PCA(), ml.KernelPCA(kernel="rbf"), ml.Isomap()],
                         ids=lambda e: type(e).__name__)
def test_float32_in_float32_out_as_scikit_learn(est):
    # scikit-learn's PCA, KernelPCA and Isomap preserve float32; so do ours (computed in
    # float64: the float32 result is the float64 one rounded)
    X = np.random.default_rng(0).normal(size=(60, 4))
    X32 = X.astype(np.float32)
    est64, est32 = clone(est).fit(X32.astype(np.float64)), clone(est)
    Z32 = est32.fit_transform(X32)
    assert Z32.dtype == np.float32 and est32.transform(X32).dtype == np.float32
    np.testing.assert_array_equal(Z32, est64.embedding_.astype(np.float32))
    assert est32.transform(X32.astype(np.float64)).dtype == np.float64
    assert est.__sklearn_tags__().transformer_tags.preserves_dtype == ["float64", "float32"]
    assert ml.LLE().__sklearn_tags__().transformer_tags.preserves_dtype == ["float64"]
    fitted = [v for k, v in vars(est32).items() if k.endswith("_") and isinstance(v, np.ndarray)]
    assert all(v.dtype != np.float32 for v in fitted)  # fitted attributes stay float64


def test_tsne_map_is_float64_whatever_the_input():
    # a documented difference: scikit-learn's TSNE returns float32 maps; ours float64
    X = np.random.default_rng(0).normal(size=(40, 4)).astype(np.float32)
    tsne = ml.TSNE(max_iter=250, perplexity=5, random_state=0)
    assert tsne.fit_transform(X).dtype == np.float64
    assert tsne.__sklearn_tags__().transformer_tags.preserves_dtype == ["float64"]


def test_pca_variance_fraction_and_all_components_match_scikit_learn():
    from sklearn.decomposition import PCA as SkPCA

    X = np.random.default_rng(0).normal(size=(100, 8)) * np.arange(1, 9)
    for n in [0.5, 0.9, 0.95, 0.999, None]:
        ours, theirs = ml.PCA(n_components=n).fit(X), SkPCA(n_components=n).fit(X)
        assert ours.n_components_ == theirs.n_components_, n
        np.testing.assert_allclose(ours.explained_variance_ratio_,
                                   theirs.explained_variance_ratio_, rtol=1e-10)
        np.testing.assert_allclose(np.abs(ours.transform(X)), np.abs(theirs.transform(X)),
                                   atol=1e-9)
    assert ml.PCA(n_components=0.95).fit(X).n_components_ < 8
    wide = X[:5]  # D >= N: the centred data have rank N - 1
    assert ml.PCA(n_components=None).fit(wide).n_components_ == 4
    for bad in [1.0, 1.5, 0.0, -0.5]:
        with pytest.raises(ValueError, match=rf"n_components={bad!r} is a float, so it must be a "
                                             r"fraction of the variance in \(0, 1\)"):
            ml.PCA(n_components=bad).fit(X)
    with pytest.raises(ValueError, match="the one string accepted is 'mle'"):
        ml.PCA(n_components="minka").fit(X)


@pytest.mark.parametrize("n_features", [300, 2500])  # dense covariance, ARPACK operator
def test_pca_on_sparse_data_centres_implicitly(n_features):
    import scipy.sparse as sp
    from sklearn.decomposition import PCA as SkPCA

    S = sp.random(150, n_features, density=0.02, random_state=0, format="csr")
    ours = ml.PCA(n_components=3).fit(S)
    dense = ml.PCA(n_components=3).fit(S.toarray())
    np.testing.assert_allclose(ours.explained_variance_, dense.explained_variance_, rtol=1e-8)
    np.testing.assert_allclose(ours.transform(S), dense.transform(S.toarray()), atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_ratio_, dense.explained_variance_ratio_,
                               rtol=1e-8)
    sk = SkPCA(n_components=3, svd_solver="arpack", random_state=0).fit(S)
    np.testing.assert_allclose(ours.explained_variance_, sk.explained_variance_, rtol=1e-8)
    # not TruncatedSVD: without centring, the first axis would point at the mean
    assert abs(ours.components_[0] @ ours.mean_) < 0.9 * np.linalg.norm(ours.mean_)
    assert sp.issparse(S) and ours.transform(S[:4]).shape == (4, 3)


@pytest.mark.parametrize("metric,params", [("cityblock", None), ("chebyshev", None),
                                           ("minkowski", {"p": 3}), ("cosine", None)])
def test_isomap_metric_matches_scikit_learn(metric, params):
    from sklearn.datasets import make_s_curve

    X = make_s_curve(300, random_state=0)[0]
    ours = ml.Isomap(n_neighbors=10, metric=metric, metric_params=params).fit(X)
    theirs = SkIsomap(n_neighbors=10, metric=metric, p=(params or {}).get("p", 2)).fit(X)
    np.testing.assert_allclose(ours.embedding_, theirs.embedding_, atol=1e-9)  # same signs
    Y = X[:20] + 0.01
    np.testing.assert_allclose(ours.transform(Y), theirs.transform(Y), atol=1e-9)


def test_isomap_precomputed_distances_and_callable_metric():
    from scipy.spatial.distance import cdist
    from sklearn.datasets import make_s_curve

    X = make_s_curve(200, random_state=1)[0]
    Y = X[:5] + 0.01
    euclid = ml.Isomap(n_neighbors=10).fit(X)
    pre = ml.Isomap(n_neighbors=10, metric="precomputed").fit(cdist(X, X))
    np.testing.assert_allclose(pre.embedding_, euclid.embedding_, atol=1e-10)
    np.testing.assert_allclose(pre.transform(cdist(Y, X)), euclid.transform(Y), atol=1e-10)
    assert pre.__sklearn_tags__().input_tags.pairwise
    l1 = ml.Isomap(n_neighbors=10, metric=lambda u, v: np.abs(u - v).sum()).fit(X)
    np.testing.assert_allclose(l1.embedding_,
                               ml.Isomap(n_neighbors=10, metric="l1").fit(X).embedding_,
                               atol=1e-10)
    with pytest.raises(ValueError, match=r"metric must be one of 'euclidean', .*'precomputed' or "
                                         r"a callable f\(u, v\), got 'hamming'"):
        ml.Isomap(metric="hamming").fit(X)
    with pytest.raises(ValueError, match=r"the precomputed distance matrix must be square"):
        ml.Isomap(metric="precomputed").fit(X)


def test_knn_graph_methods_accept_sparse_data():
    import scipy.sparse as sp

    S = sp.random(200, 50, density=0.2, random_state=0, format="csr")
    dense = S.toarray()
    for make in (lambda: ml.Isomap(n_neighbors=10), lambda: ml.LaplacianEigenmaps(),
                 lambda: ml.LaplacianEigenmaps(radius=2.5, t=1.0),
                 lambda: ml.Isomap(n_neighbors=10, n_landmarks=20, random_state=0)):
        on_sparse, on_dense = make().fit(S), make().fit(dense)
        np.testing.assert_allclose(on_sparse.embedding_, on_dense.embedding_, atol=1e-10)
        # new points: distances by sparse products (cancellation ~1e-9 on these norms)
        np.testing.assert_allclose(on_sparse.transform(S[:5]), on_dense.transform(dense[:5]),
                                   atol=1e-7)
    # scikit-learn's Isomap on the same sparse data
    np.testing.assert_allclose(ml.Isomap(n_neighbors=10).fit(S).embedding_,
                               SkIsomap(n_neighbors=10).fit(S).embedding_, atol=1e-9)
    with pytest.raises(TypeError, match="Sparse data works with metric='euclidean' only"):
        ml.Isomap(metric="cityblock").fit(S)
    with pytest.raises(TypeError, match=r"X is a sparse matrix, but this method needs a dense "
                                        r"array; convert it with X\.toarray\(\)"):
        ml.ClassicalMDS().fit(S)


def test_tsne_metric_gives_the_affinities_of_the_squared_distances():
    from scipy.spatial.distance import cdist

    from mlnotes.affinities import conditional_affinities, joint_affinities

    X = np.random.default_rng(0).normal(size=(60, 5))
    fast = dict(max_iter=250, perplexity=10, random_state=0)
    for metric, params in [("cityblock", None), ("minkowski", {"p": 3}), ("cosine", None)]:
        tsne = ml.TSNE(metric=metric, metric_params=params, **fast).fit(X)
        D = cdist(X, X, metric=metric, **(params or {}))
        expected = joint_affinities(conditional_affinities(D**2, 10)[0])
        np.testing.assert_allclose(tsne.P_, expected, rtol=1e-12, atol=1e-15)
    # precomputed Euclidean distances (init must be random, as in scikit-learn) = euclidean
    pre = ml.TSNE(metric="precomputed", init="random", **fast).fit(cdist(X, X))
    euclid = ml.TSNE(init="random", **fast).fit(X)
    np.testing.assert_allclose(pre.P_, euclid.P_, rtol=1e-9, atol=1e-15)
    # (the maps themselves are chaotic in P's last digits: only the fit is compared)
    assert pre.kl_divergence_ == pytest.approx(euclid.kl_divergence_, rel=0.2)
    with pytest.raises(ValueError, match=r'init="pca" needs the data, not distances: with '
                                         r'metric="precomputed" use init="random"'):
        ml.TSNE(metric="precomputed").fit(cdist(X, X))
    with pytest.raises(ValueError, match="method='fft' finds neighbours in Euclidean distance "
                                         "only, got metric='cityblock'"):
        ml.TSNE(method="fft", metric="cityblock").fit(X)


def test_tsne_metric_affinities_match_scikit_learn():
    from scipy.spatial.distance import cdist
    from sklearn.manifold._t_sne import _joint_probabilities

    X = np.random.default_rng(1).normal(size=(80, 4))
    D = cdist(X, X, metric="cityblock")
    ours = ml.TSNE(metric="cityblock", perplexity=12, max_iter=250, random_state=0).fit(X).P_
    # scikit-learn squares non-Euclidean distances too; its binary search stops at 1e-5 in
    # entropy, ours converges further, so the affinities agree to ~1e-4 relative
    theirs = squareform_to_matrix(_joint_probabilities(D**2, 12, 0))
    np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-7)


def squareform_to_matrix(condensed):
    from scipy.spatial.distance import squareform

    return squareform(condensed)


# --- every estimator owns what it keeps (issue 35, bug 2) -----------------------------------------
# Overwriting the caller's X after fit must not change the fitted model; the estimators that keep
# their training data (X_fit_) used to keep the caller's float64 array itself.
# UMAP is d33's (issue 35's bug 2, its part) and the autoencoders keep no data.
OWN_WHAT_THEY_KEEP = ["PCA", "ClassicalMDS", "MetricMDS", "KernelPCA", "Isomap", "LLE",
                      "LaplacianEigenmaps", "DiffusionMap"]


@pytest.mark.parametrize("name", OWN_WHAT_THEY_KEEP)
def test_overwriting_x_after_fit_changes_nothing(name):
    X = load_digits().data[:120] / 16.0
    X_new = load_digits().data[120:140] / 16.0
    kwargs = {"max_iter": 30, "random_state": 0} if name == "MetricMDS" else {}
    est = getattr(ml, name)(**kwargs).fit(X)
    before = {k: np.array(v, copy=True) for k, v in vars(est).items()
              if k.endswith("_") and isinstance(v, np.ndarray)}
    out = est.transform(X_new) if hasattr(est, "transform") else None
    X[:] = 1e6  # the caller reuses its buffer
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(est, k), v, err_msg=f"{name}.{k} changed")
    if out is not None:
        np.testing.assert_array_equal(est.transform(X_new), out)


@pytest.mark.parametrize("name", ["Isomap", "ClassicalMDS", "MetricMDS"])
def test_a_precomputed_matrix_is_owned_too(name):
    from mlnotes.graphs import pairwise_distances

    D = pairwise_distances(load_digits().data[:80] / 16.0)
    key = "metric" if name == "Isomap" else "dissimilarity"
    kwargs = {"max_iter": 30, "random_state": 0} if name == "MetricMDS" else {}
    est = getattr(ml, name)(**{key: "precomputed"}, **kwargs).fit(D)
    before = {k: np.array(v, copy=True) for k, v in vars(est).items()
              if k.endswith("_") and isinstance(v, np.ndarray)}
    D[:] = 0.0
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(est, k), v, err_msg=f"{name}.{k} changed")


def test_a_sparse_input_is_left_as_the_caller_gave_it():
    import scipy.sparse as sp

    X = sp.random(60, 8, density=0.5, format="csr", random_state=0)
    X = sp.csr_matrix((np.r_[X.data, 1.0], np.r_[X.indices, X.indices[0]],
                       np.r_[X.indptr[:-1], X.indptr[-1] + 1]), shape=X.shape)  # a duplicate entry
    X.indptr[1:] = np.r_[X.indptr[1:-1], X.indptr[-1]]
    data, indices = X.data.copy(), X.indices.copy()
    ml.PCA().fit(X)
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)


# --- every estimator's defaults on the book's data sets and standardised digits (issue 37) -------
# "Work" = a finite (N, 2) embedding without an error, in bounded CPU time; a warning is allowed
# where the data call for it (separate pieces: circles, moons, clusters give a disconnected
# neighbourhood graph at the default k, and the estimators say so). The spectral and MDS
# estimators run on every data set (about a second in all); the iterative ones (hundreds of
# gradient steps each) on the first 200 rows of standardised digits, to keep make test cheap.
def _sweep_data():
    from sklearn.preprocessing import StandardScaler

    D = ml.datasets
    n = 300
    return {
        "swiss_roll": D.make_swiss_roll(n, random_state=0)[0],
        "swiss_roll_hole": D.make_swiss_roll_hole(n, random_state=0)[0],
        "broken_swiss_roll": D.make_broken_swiss_roll(n, random_state=0)[0],
        "s_curve": D.make_s_curve(n, random_state=0)[0],
        "helix": D.make_helix(n, random_state=0)[0],
        "twin_peaks": D.make_twin_peaks(n, random_state=0)[0],
        "sphere": D.make_sphere(n, random_state=0)[0],
        "circles": D.make_circles(n, random_state=0)[0],
        "moons": D.make_moons(n, random_state=0)[0],
        "clusters": D.make_clusters(n, random_state=0)[0],
        "glyphs": D.make_glyph_images(200, random_state=0)[0],
        "trefoil": D.make_distill_case("trefoil", random_state=0)[0],
        "nci60": D.load_nci60()[0],  # 64 x 6830: more features than samples
        "standardised_digits": StandardScaler().fit_transform(D.load_digits()[0][:600]),
    }


SWEEP_DATA = _sweep_data()
SPECTRAL_DEFAULTS = ["PCA", "ClassicalMDS", "MetricMDS", "KernelPCA", "Isomap", "LLE",
                     "LaplacianEigenmaps", "DiffusionMap"]
ITERATIVE_DEFAULTS = sorted(set(ml._ESTIMATORS) - set(SPECTRAL_DEFAULTS))
ITERATIVE_ROWS = 200  # the first rows of standardised digits (SNE's exact gradient is O(N^2))
SWEEP_CPU_SECONDS = 30.0  # per fit: a default that crawls (DiffusionMap took 268 s) fails


def _fit_defaults(name, X):
    import time

    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ml.DisconnectedGraphWarning)
        Z = getattr(ml, name)().fit_transform(X)
    spent = time.process_time() - start
    assert Z.shape == (len(X), 2) and np.isfinite(Z).all()
    assert spent < SWEEP_CPU_SECONDS, f"{name}() took {spent:.0f} s CPU"


@pytest.mark.parametrize("name", SPECTRAL_DEFAULTS)
def test_spectral_defaults_work_on_every_book_data_set(name):
    for data, X in SWEEP_DATA.items():
        try:
            _fit_defaults(name, X)
        except Exception as exc:
            raise AssertionError(f"{name}() on {data}: {exc}") from exc


@pytest.mark.parametrize("name", ITERATIVE_DEFAULTS)
def test_iterative_defaults_work_on_standardised_digits(name):
    from sklearn.preprocessing import StandardScaler

    X = StandardScaler().fit_transform(ml.datasets.load_digits()[0][:ITERATIVE_ROWS])
    _fit_defaults(name, X)
