"""Bad input to the spectral estimators: a clear error (or warning) that says what to do."""

import warnings

import numpy as np
import pytest

import mlnotes as ml
from mlnotes.graphs import pairwise_distances

X = ml.datasets.make_s_curve(60, random_state=0)[0]
# two far-away clumps beside the S-curve: the 5-NN graph falls apart into three pieces
X_SPLIT = np.vstack([X, X[:12] + 100.0, X[20:35] + 200.0])

ESTIMATORS = {
    "PCA": lambda **kw: ml.PCA(**kw),
    "ClassicalMDS": lambda **kw: ml.ClassicalMDS(**kw),
    "KernelPCA": lambda **kw: ml.KernelPCA(kernel="rbf", **kw),
    "Isomap": lambda **kw: ml.Isomap(n_neighbors=8, **kw),
    "LLE": lambda **kw: ml.LLE(n_neighbors=8, **kw),
    "LaplacianEigenmaps": lambda **kw: ml.LaplacianEigenmaps(n_neighbors=8, **kw),
}
NEIGHBOUR_BASED = ("Isomap", "LLE", "LaplacianEigenmaps")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_nan_and_inf(name):
    bad = X.copy()
    bad[5, 1] = np.nan
    bad[7, 0] = np.inf
    with pytest.raises(ValueError, match=r"X contains 1 NaN and 1 infinite value\(s\) \(first at "
                                         r"\(5, 1\), \(7, 0\)\); remove or impute them"):
        ESTIMATORS[name]().fit(bad)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_wrong_shape(name):
    with pytest.raises(ValueError, match=r"X must be 2-D \(n_samples, n_features\) but is 1-D with "
                                         r"shape \(60,\). Reshape your data: X.reshape\(-1, 1\)"):
        ESTIMATORS[name]().fit(X[:, 0])
    with pytest.raises(ValueError, match=r"has shape \(1, 60, 3\); flatten each sample to one row"):
        ESTIMATORS[name]().fit(X[None])
    with pytest.raises(ValueError, match=r"X has 1 sample\(s\) \(shape=\(1, 3\)\) while a minimum "
                                         r"of 2 is required; pass at least 2 samples"):
        ESTIMATORS[name]().fit(X[:1])


@pytest.mark.parametrize("name, bound, what", [
    ("PCA", 3, r"min\(n_samples, n_features\)"),
    ("ClassicalMDS", 60, "n_samples"),
    ("KernelPCA", 60, "n_samples"),
    ("Isomap", 60, "n_samples"),
    ("LLE", 59, "n_samples - 1: the constant eigenvector is skipped"),
    ("LaplacianEigenmaps", 59, "n_samples - 1: the constant eigenvector is skipped"),
])
def test_too_many_components(name, bound, what):
    with pytest.raises(ValueError, match=rf"n_components=100 is too large: at most {bound} \({what}\) "
                                         rf"are possible here; choose n_components <= {bound}"):
        ESTIMATORS[name](n_components=100).fit(X)
    with pytest.raises(ValueError, match="n_components must be at least 1, got 0"):
        ESTIMATORS[name](n_components=0).fit(X)
    if name == "PCA":  # a float is a variance fraction (scikit-learn's convention)
        with pytest.raises(ValueError, match=r"n_components=2.0 is a float, so it must be a "
                                             r"fraction of the variance in \(0, 1\)"):
            ESTIMATORS[name](n_components=2.0).fit(X)
    else:
        with pytest.raises(TypeError, match="n_components must be a positive integer, got 2.0"):
            ESTIMATORS[name](n_components=2.0).fit(X)


@pytest.mark.parametrize("name", NEIGHBOUR_BASED)
def test_too_many_neighbours(name):
    est = {"Isomap": ml.Isomap, "LLE": ml.LLE, "LaplacianEigenmaps": ml.LaplacianEigenmaps}[name]
    with pytest.raises(ValueError, match=r"n_neighbors=60 is too large: with 60 samples each point has "
                                         r"at most 59 neighbours; choose n_neighbors <= 59"):
        est(n_neighbors=60).fit(X)
    with pytest.raises(TypeError, match="n_neighbors must be a positive integer, got 2.5"):
        est(n_neighbors=2.5).fit(X)


SPECTRAL_CONSEQUENCE = (r"the Laplacian \(or LLE alignment matrix\) has one zero eigenvalue per "
                        r"component: each component is embedded only up to its own translation "
                        r"and scale")


@pytest.mark.parametrize("name, consequence", [
    ("Isomap", r"geodesic distances between them would be infinite: Isomap joins every pair of "
               r"components by the shortest straight edge between them"),
    ("LLE", SPECTRAL_CONSEQUENCE),
    ("LaplacianEigenmaps", SPECTRAL_CONSEQUENCE),
])
def test_disconnected_graph_names_sizes_and_the_connecting_k(name, consequence):
    k_min = ml.graphs.smallest_connecting_k(X_SPLIT)
    assert k_min > 5
    est = {"Isomap": ml.Isomap, "LLE": ml.LLE, "LaplacianEigenmaps": ml.LaplacianEigenmaps}[name]
    message = (rf"The 5-nearest-neighbour graph is disconnected: it has 3 connected components "
               rf"\(sizes 60, 15, 12\), so {consequence}.*increase n_neighbors to at least "
               rf"{k_min} \(the smallest value that connects it\)")
    # a warning, and a finite embedding (Isomap's of the joined graph)
    with pytest.warns(ml.DisconnectedGraphWarning, match=message):
        Z = est(n_neighbors=5).fit_transform(X_SPLIT)
    assert np.isfinite(Z).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ml.DisconnectedGraphWarning)
        est(n_neighbors=k_min).fit(X_SPLIT)  # and that value really works


def test_disconnected_graph_warning_is_a_user_warning():
    assert issubclass(ml.DisconnectedGraphWarning, UserWarning)
    assert ml.DisconnectedGraphWarning is ml.graphs.DisconnectedGraphWarning


@pytest.mark.parametrize("est", [ml.Isomap, ml.LaplacianEigenmaps])
def test_disconnected_radius_graph_names_the_connecting_radius(est):
    r = 1.01 * ml.graphs.smallest_connecting_radius(X)
    two = np.vstack([X, X + 100.0])  # two copies, each connected at radius r
    message = (rf"The radius-{r:g} neighbourhood graph is disconnected: it has 2 connected "
               rf"components \(sizes 60, 60\).*increase radius to at least "
               rf"{ml.graphs.smallest_connecting_radius(two):.6g}")
    with pytest.warns(ml.DisconnectedGraphWarning, match=message):
        est(n_neighbors=None, radius=r).fit(two)
    with pytest.raises(ValueError, match="Give exactly one of n_neighbors and radius"):
        est(n_neighbors=5, radius=0.3).fit(X)


def test_eigenmaps_refuses_isolated_points():
    # a point with no edge (degree 0) is not constrained by Z^T D Z = I: no embedding exists
    r_min = ml.graphs.smallest_connecting_radius(X)
    with pytest.warns(ml.DisconnectedGraphWarning), \
            pytest.raises(ValueError, match=rf"Point\(s\) \[\d+(, \d+)*\] have degree 0 \(no "
                                            rf"other point within radius=0\.3\), so the "
                                            rf"constraint Z\^T D Z = I does not involve them.*"
                                            rf"increase radius to at least {r_min:.6g}"):
        ml.LaplacianEigenmaps(n_neighbors=None, radius=0.3).fit(X)
    # or every weight of a point underflows (t far below its squared edge lengths): the kNN
    # graph is connected, its weights are not
    far = np.vstack([X, X[:1] + 30.0])
    with pytest.raises(ValueError, match=r"Point\(s\) \[60\] have degree 0 \(heat-kernel "
                                         r"weights exp\(-d\^2 / t\) that all underflow to 0 "
                                         r"with t=0\.1\).* increase t"):
        ml.LaplacianEigenmaps(n_neighbors=8, t=0.1).fit(far)


def test_lle_duplicate_points_are_named_where_they_break_the_weights():
    # a duplicate pair is fine (the regularised weights exist; tests/test_lle.py) ...
    pair = np.vstack([X, X[[4, 9]]])
    assert np.isfinite(ml.LLE(n_neighbors=8).fit_transform(pair)).all()
    # ... but a point whose k neighbours are all copies of it has no weights
    copies = np.vstack([X, X[[4, 4, 4]]])
    with pytest.raises(ValueError, match=r"Point\(s\) 4, 60, 61, 62 coincide with all 3 of their "
                                         r"nearest neighbours \(rows 4, 60, 61, 62 are identical\)"
                                         r".* Remove the duplicate rows \(e\.g\. np\.unique\(X, "
                                         r"axis=0\)\) or choose n_neighbors >= 4"):
        ml.LLE(n_components=2, n_neighbors=3).fit(copies)


def test_precomputed_dissimilarities():
    D = pairwise_distances(X)
    asym = D.copy()
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match=r"the dissimilarity matrix is not symmetric: entry \(0, 1\) = "
                                         r"[\d.]+ but \(1, 0\) = [\d.]+; symmetrise it"):
        ml.ClassicalMDS(dissimilarity="precomputed").fit(asym)
    with pytest.raises(ValueError, match=r"has negative entries \(smallest -[\d.]+ at \(\d+, \d+\)\); "
                                         r"dissimilarities must be >= 0"):
        ml.ClassicalMDS(dissimilarity="precomputed").fit(-D)
    with pytest.raises(ValueError, match=r"must be square \(n_samples x n_samples\) but has shape "
                                         r"\(60, 3\); pass dissimilarity='euclidean'"):
        ml.ClassicalMDS(dissimilarity="precomputed").fit(X)


def test_precomputed_kernel():
    with pytest.raises(ValueError, match=r"the precomputed kernel matrix is not symmetric: entry \(0, 1\)"):
        ml.KernelPCA(kernel="precomputed").fit(np.triu(np.ones((5, 5))))
    with pytest.raises(ValueError, match=r"must be square \(n_samples x n_samples\) but has shape \(5, 4\)"):
        ml.KernelPCA(kernel="precomputed").fit(np.ones((5, 4)))


def test_unknown_options():
    with pytest.raises(ValueError, match="path_method must be 'dijkstra' or 'floyd', got 'bellman'"):
        ml.Isomap(path_method="bellman").fit(X)
    for est in (ml.Isomap, ml.LLE, ml.LaplacianEigenmaps, ml.KernelPCA):
        with pytest.raises(ValueError, match="eigen_solver must be one of 'auto', 'dense', 'arpack', "
                                             "got 'lobpcg'"):
            est(eigen_solver="lobpcg").fit(X)
    with pytest.raises(ValueError, match="kernel must be one of 'linear', 'poly', 'rbf', 'sigmoid', "
                                         "'precomputed' or a callable k\\(x, y\\), got 'cosine'"):
        ml.KernelPCA(kernel="cosine").fit(X)
    with pytest.raises(ValueError, match=r"t must be finite and > 0, got -1.0"):
        ml.LaplacianEigenmaps(t=-1.0).fit(X)
    with pytest.raises(ValueError, match=r"reg must be finite and >= 0, got -1.0"):
        ml.LLE(reg=-1.0).fit(X)
    with pytest.raises(ValueError, match=r"radius must be finite and > 0, got -1.0"):
        ml.Isomap(n_neighbors=None, radius=-1.0).fit(X)


@pytest.mark.parametrize("est", [ml.PCA, ml.KernelPCA, ml.Isomap])
def test_transform_checks(est):
    with pytest.raises(RuntimeError, match=f"This {est.__name__} is not fitted yet; call fit"):
        est().transform(X)
    with pytest.raises(ValueError, match=f"X has 2 features, but {est.__name__} is expecting 3 "
                                         r"features as input \(the model was fitted on 3\); "
                                         "pass data with the same columns"):
        est().fit(X).transform(X[:, :2])


# --- degenerate but valid input (issue 35): a correct result, or the real cause and a remedy ---
COINCIDENT = np.ones((40, 5))
COLLINEAR = np.outer(np.random.default_rng(0).normal(size=60), np.random.default_rng(1).normal(size=5))


@pytest.mark.parametrize("name", ["ClassicalMDS", "KernelPCA", "Isomap"])
def test_coincident_points_name_the_cause_not_an_impossible_remedy(name):
    with pytest.raises(ValueError, match=r"has no positive eigenvalue \(largest -?0\), so there is "
                                         r"nothing to embed: all points coincide"):
        ESTIMATORS[name]().fit(COINCIDENT)


@pytest.mark.parametrize("name", ["ClassicalMDS", "Isomap"])  # (an RBF kernel has full rank)
def test_collinear_points_ask_for_the_components_they_have(name):
    with pytest.raises(ValueError, match=r"only 1 positive eigenvalue\(s\) among its top 2 .*"
                                         r"\(rank 1: e\.g\. collinear points.*\); choose "
                                         r"n_components <= 1"):
        ESTIMATORS[name](n_components=2).fit(COLLINEAR)
    # the remedy works
    assert np.isfinite(ESTIMATORS[name](n_components=1).fit_transform(COLLINEAR)).all()


def test_metric_mds_of_collinear_points_is_the_exact_line():
    # valid input for metric MDS: the classical start has one zero column, which SMACOF keeps,
    # and the stress of the exact 1-D configuration is zero
    mds = ml.MetricMDS(n_components=2, random_state=0).fit(COLLINEAR)
    np.testing.assert_allclose(pairwise_distances(mds.embedding_), pairwise_distances(COLLINEAR),
                               atol=1e-8)
