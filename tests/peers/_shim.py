"""scikit-learn's names for mlnotes' estimators: the one place the peers' tests are adapted.

Each upstream test file imports its estimators from here instead of from scikit-learn (the
import lines are the only change to the files, besides the documented ones). A class here
takes scikit-learn's parameters, renames those whose concept mlnotes has under another name
(``path_method="D"`` is mlnotes' ``"dijkstra"``), builds the mlnotes estimator, fits it and
exposes its fitted attributes under scikit-learn's names. A parameter value or a method
mlnotes does not offer skips the test, saying which (``pytest.skip``): the case counts as
"skipped: feature not in mlnotes", never as passed.

Solvers: mlnotes computes every eigenproblem exactly (LAPACK, or ARPACK to machine
precision); scikit-learn's approximate solvers (``svd_solver="randomized"``,
``eigen_solver="randomized"``) and its choices among exact ones are all answered by mlnotes'
exact solver, which is what each of them approximates.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin

import mlnotes as ml


def _skip(what):
    pytest.skip(f"not in mlnotes: {what}")


class _Wrapper(TransformerMixin, BaseEstimator):
    """Fit the mlnotes estimator built by ``_build`` and copy its fitted attributes."""

    _renamed = {}  # mlnotes attribute -> scikit-learn attribute
    _missing = ()  # methods scikit-learn has and mlnotes does not

    def _input(self, X):
        return X

    def fit(self, X, y=None):
        self._fit(X, "fit")
        return self

    def _fit(self, X, how):
        est = self._build()
        out = getattr(est, how)(self._input(X))
        self.estimator_ = est
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, self._renamed.get(name, name), value)
        self._after_fit(est, X)
        return out

    def _after_fit(self, est, X):
        pass

    def fit_transform(self, X, y=None):
        return self._fit(X, "fit_transform")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a precomputed (kernel or distance) matrix is cut both ways by cross-validation
        tags.input_tags.pairwise = "precomputed" in (
            getattr(self, "kernel", None), getattr(self, "metric", None),
            getattr(self, "dissimilarity", None), getattr(self, "affinity", None))
        return tags

    def get_feature_names_out(self, input_features=None):
        return self.estimator_.get_feature_names_out(input_features)

    def transform(self, X):
        if not hasattr(self, "estimator_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet.")
        return self.estimator_.transform(self._input(X))

    def __getattr__(self, name):
        if name in type(self)._missing:
            _skip(f"{type(self).__name__}.{name}")
        raise AttributeError(name)


# --- decomposition ------------------------------------------------------------------------------
PCA_SOLVERS = ("auto", "full", "covariance_eigh", "arpack", "randomized")


class PCA(_Wrapper):
    _missing = ("score", "score_samples", "get_covariance", "get_precision", "_fit_svd_solver")

    def __init__(self, n_components=None, *, copy=True, whiten=False, svd_solver="auto", tol=0.0,
                 iterated_power="auto", n_oversamples=10, power_iteration_normalizer="auto",
                 random_state=None):
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state

    def _build(self):
        if self.svd_solver not in PCA_SOLVERS:
            raise ValueError(f"svd_solver must be one of {PCA_SOLVERS}, got {self.svd_solver!r}")
        return ml.PCA(n_components=self.n_components, whiten=self.whiten)

    def inverse_transform(self, X):
        return self.estimator_.inverse_transform(X)

    def _after_fit(self, est, X):
        self.n_samples_ = np.shape(X)[0]


# --- issue 35 (s35): Minka's choice of dimension, scikit-learn's private helpers ---------------
def _assess_dimension(spectrum, rank, n_samples):
    """scikit-learn's private ``_assess_dimension``: mlnotes.pca.mle_log_evidence."""
    return ml.pca.mle_log_evidence(spectrum, rank, n_samples)


def _infer_dimension(spectrum, n_samples):
    """scikit-learn's private ``_infer_dimension``: mlnotes.pca.mle_dimension."""
    return ml.pca.mle_dimension(spectrum, n_samples)


class KernelPCA(_Wrapper):
    _missing = ()

    def __init__(self, n_components=None, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None, alpha=1.0, fit_inverse_transform=False, eigen_solver="auto",
                 tol=0, max_iter=None, iterated_power="auto", remove_zero_eig=False,
                 random_state=None, copy_X=True, n_jobs=None):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.copy_X = copy_X
        self.n_jobs = n_jobs

    def _build(self):
        if self.n_components is None:
            _skip("KernelPCA(n_components=None) (every non-zero component)")
        if self.remove_zero_eig:
            _skip("KernelPCA(remove_zero_eig=True)")
        kernel = self.kernel
        if isinstance(kernel, str) and kernel not in ("linear", "poly", "rbf", "sigmoid",
                                                      "precomputed"):
            _skip(f"KernelPCA(kernel={kernel!r})")
        solver = {"randomized": "dense"}.get(self.eigen_solver, self.eigen_solver)
        return ml.KernelPCA(n_components=self.n_components, kernel=kernel, gamma=self.gamma,
                            degree=self.degree, coef0=self.coef0, kernel_params=self.kernel_params,
                            alpha=self.alpha, fit_inverse_transform=self.fit_inverse_transform,
                            eigen_solver=solver)

    def inverse_transform(self, X):
        if not self.fit_inverse_transform:
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("The fit_inverse_transform parameter was not set to True when "
                                 "instantiating and hence the inverse transform is not available.")
        return self.estimator_.inverse_transform(X)


# --- manifold -----------------------------------------------------------------------------------
def _check_neighbors_algorithm(value):
    if value not in ("auto", "brute", "kd_tree", "ball_tree"):
        raise ValueError(f"unknown neighbors_algorithm {value!r}")  # (all give the same graph)


def _metric(metric, p, metric_params):
    """scikit-learn's (metric, p) as mlnotes' (metric, metric_params)."""
    if metric == "minkowski" and p == 2 and not metric_params:
        return "euclidean", None
    if metric == "minkowski":
        return "minkowski", {**(metric_params or {}), "p": p}
    return metric, metric_params


class Isomap(_Wrapper):
    _renamed = {"geodesic_distances_": "dist_matrix_", "graph_": "nbrs_graph_"}
    _missing = ("reconstruction_error", "kernel_pca_", "nbrs_")

    def __init__(self, *, n_neighbors=5, radius=None, n_components=2, eigen_solver="auto", tol=0,
                 max_iter=None, path_method="auto", neighbors_algorithm="auto", n_jobs=None,
                 metric="minkowski", p=2, metric_params=None):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.n_components = n_components
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.path_method = path_method
        self.neighbors_algorithm = neighbors_algorithm
        self.n_jobs = n_jobs
        self.metric = metric
        self.p = p
        self.metric_params = metric_params

    def _build(self):
        if self.n_neighbors is not None and self.radius is not None:
            raise ValueError("Both n_neighbors and radius are provided. Use "
                             f"Isomap(radius={self.radius}, n_neighbors=None) if intended to use "
                             "radius-based neighbors")
        path = {"auto": "dijkstra", "D": "dijkstra", "FW": "floyd"}.get(self.path_method)
        if path is None:
            raise ValueError(f"path_method must be 'auto', 'FW' or 'D', got {self.path_method!r}")
        _check_neighbors_algorithm(self.neighbors_algorithm)
        metric, params = _metric(self.metric, self.p, self.metric_params)
        return ml.Isomap(n_components=self.n_components, n_neighbors=self.n_neighbors,
                         radius=self.radius, path_method=path, eigen_solver=self.eigen_solver,
                         metric=metric, metric_params=params)



class LocallyLinearEmbedding(_Wrapper):
    _missing = ("nbrs_",)

    def __init__(self, *, n_neighbors=5, n_components=2, reg=1e-3, eigen_solver="auto", tol=1e-6,
                 max_iter=100, method="standard", hessian_tol=1e-4, modified_tol=1e-12,
                 neighbors_algorithm="auto", random_state=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.reg = reg
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.method = method
        self.hessian_tol = hessian_tol
        self.modified_tol = modified_tol
        self.neighbors_algorithm = neighbors_algorithm
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _build(self):
        _check_neighbors_algorithm(self.neighbors_algorithm)
        return ml.LLE(n_components=self.n_components, n_neighbors=self.n_neighbors, reg=self.reg,
                      eigen_solver=self.eigen_solver, method=self.method,
                      hessian_tol=self.hessian_tol, modified_tol=self.modified_tol)


def locally_linear_embedding(X, *, n_neighbors, n_components, reg=1e-3, eigen_solver="auto",
                             tol=1e-6, max_iter=100, method="standard", hessian_tol=1e-4,
                             modified_tol=1e-12, random_state=None, n_jobs=None):
    est = LocallyLinearEmbedding(n_neighbors=n_neighbors, n_components=n_components, reg=reg,
                                 eigen_solver=eigen_solver, method=method,
                                 hessian_tol=hessian_tol, modified_tol=modified_tol).fit(X)
    return est.embedding_, est.reconstruction_error_


class ClassicalMDS(_Wrapper):
    def __init__(self, n_components=2, *, metric="euclidean", metric_params=None):
        self.n_components = n_components
        self.metric = metric
        self.metric_params = metric_params

    def _build(self):
        if self.metric not in ("euclidean", "precomputed"):
            _skip(f"ClassicalMDS(metric={self.metric!r})")
        return ml.ClassicalMDS(n_components=self.n_components, dissimilarity=self.metric)

    def _after_fit(self, est, X):
        self.eigenvalues_ = est.eigenvalues_[:self.n_components]

    def transform(self, X):
        raise AttributeError("ClassicalMDS has no transform in scikit-learn")


class TSNE(_Wrapper):
    _missing = ()

    def __init__(self, n_components=2, *, perplexity=30.0, early_exaggeration=12.0,
                 learning_rate="auto", max_iter=None, n_iter_without_progress=300,
                 min_grad_norm=1e-7, metric="euclidean", metric_params=None, init="pca",
                 verbose=0, random_state=None, method="barnes_hut", angle=0.5, n_jobs=None):
        self.n_components = n_components
        self.perplexity = perplexity
        self.early_exaggeration = early_exaggeration
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.metric = metric
        self.metric_params = metric_params
        self.init = init
        self.verbose = verbose
        self.random_state = random_state
        self.method = method
        self.angle = angle
        self.n_jobs = n_jobs

    def _build(self):
        if self.metric != "euclidean":
            _skip(f"TSNE(metric={self.metric!r})")
        if self.method not in ("exact", "barnes_hut"):
            raise ValueError(f"'method' must be 'barnes_hut' or 'exact', got {self.method!r}")
        if self.n_iter_without_progress != 300 or self.min_grad_norm != 1e-7:
            _skip("TSNE's stopping rules n_iter_without_progress and min_grad_norm")
        init = self.init
        if not isinstance(init, str):
            init = np.asarray(init)
        # Barnes-Hut is scikit-learn's approximate gradient; mlnotes' approximate one is FFT
        method = "exact" if self.method == "exact" else "fft"
        kwargs = dict(n_components=self.n_components, perplexity=self.perplexity,
                      early_exaggeration=self.early_exaggeration, init=init,
                      random_state=self.random_state, method=method)
        if self.learning_rate != "auto":
            kwargs["learning_rate"] = self.learning_rate
        if self.max_iter is not None:
            kwargs["max_iter"] = self.max_iter
        return ml.TSNE(**kwargs)

    def transform(self, X):
        raise AttributeError("TSNE has no transform")  # scikit-learn's TSNE has none


def missing(what):
    """A stand-in for a scikit-learn function mlnotes has no counterpart of: calling it skips."""

    def call(*args, **kwargs):
        _skip(what)

    return call


def barycenter_kneighbors_graph(X, n_neighbors, reg=1e-3, n_jobs=None):
    """scikit-learn's LLE weight matrix: mlnotes' ``lle_weights`` (the same barycentre weights)."""
    from mlnotes.lle import lle_weights

    return lle_weights(X, n_neighbors, reg=reg)


# --- MDS: metric (MetricMDS) and non-metric (NonMetricMDS) -------------------------------------------
# scikit-learn's MDS(metric_mds=False) is mlnotes.NonMetricMDS(ties="secondary"): scikit-learn pools
# tied dissimilarities (its isotonic regression averages tied x), mlnotes' default is Kruskal's
# primary approach. scikit-learn also treats a zero dissimilarity off the diagonal as missing;
# mlnotes treats it as the smallest dissimilarity (no upstream case has one). stress_ follows
# normalized_stress: "auto" = stress-1 for non-metric, raw stress for metric (scikit-learn's rule);
# True = mlnotes' normalized_stress_ (stress-1: Kruskal's for non-metric); False = stress_ (raw).
class MDS(_Wrapper):
    _renamed = {"dissimilarity_matrix_": "dissimilarity_matrix_"}

    def __init__(self, n_components=2, *, metric_mds=True, n_init=1, init="warn", max_iter=300,
                 verbose=0, eps=1e-6, n_jobs=None, random_state=None, dissimilarity="deprecated",
                 metric="euclidean", metric_params=None, normalized_stress="auto"):
        self.n_components = n_components
        self.metric_mds = metric_mds
        self.n_init = n_init
        self.init = init
        self.max_iter = max_iter
        self.verbose = verbose
        self.eps = eps
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.dissimilarity = dissimilarity
        self.metric = metric
        self.metric_params = metric_params
        self.normalized_stress = normalized_stress

    def _build(self):
        metric = self.metric if self.dissimilarity == "deprecated" else self.dissimilarity
        if metric not in ("euclidean", "precomputed"):
            _skip(f"MDS(metric={metric!r})")
        init = {"warn": "classical", "classical_mds": "classical"}.get(self.init, self.init)
        if getattr(self, "_init_array", None) is not None:
            init = self._init_array
        common = dict(n_components=self.n_components, dissimilarity=metric,
                      max_iter=self.max_iter, eps=self.eps, random_state=self.random_state,
                      init=init, n_init=self.n_init)
        if self.metric_mds is False:
            return ml.NonMetricMDS(**common, ties="secondary")
        return ml.MetricMDS(**common)

    def _after_fit(self, est, X):
        normalized = self.normalized_stress
        if normalized == "auto":
            normalized = self.metric_mds is False
        self.stress_ = est.normalized_stress_ if normalized else est.stress_

    def fit(self, X, y=None, init=None):
        self._init_array = init
        return super().fit(X)

    def fit_transform(self, X, y=None, init=None):
        self._init_array = init
        return super().fit_transform(X)


def smacof(dissimilarities, *, metric=True, n_components=2, init=None, n_init=1, n_jobs=None,
           max_iter=300, verbose=0, eps=1e-6, random_state=None, return_n_iter=False,
           normalized_stress="auto"):
    """scikit-learn's ``smacof`` function: mlnotes' ``smacof`` (metric) or ``nonmetric_smacof``
    (non-metric, ties="secondary"); normalized_stress as for MDS above."""
    from mlnotes.metrics import normalized_stress as stress_1
    from mlnotes.nonmetric import kruskal_stress, nonmetric_smacof
    from mlnotes.smacof import smacof as ml_smacof

    if n_init != 1:
        _skip("smacof(n_init > 1) (the function runs one start; MDS(n_init=...) has restarts)")
    if normalized_stress == "auto":
        normalized_stress = not metric
    Delta = np.asarray(dissimilarities, dtype=float)
    kwargs = dict(init=init, max_iter=max_iter, eps=eps, random_state=random_state)
    if metric:
        Z, stress, n_iter = ml_smacof(Delta, n_components, **kwargs)
        if normalized_stress:
            stress = stress_1(Delta, Z)
    else:
        Z, stress, n_iter = nonmetric_smacof(Delta, n_components, ties="secondary", **kwargs)
        if normalized_stress:
            stress = kruskal_stress(Delta, Z, ties="secondary")
    return (Z, stress, n_iter) if return_n_iter else (Z, stress)


_smacof_single = missing("scikit-learn's private _smacof_single")


class SpectralEmbedding(_Wrapper):
    def __init__(self, n_components=2, *, affinity="nearest_neighbors", gamma=None,
                 random_state=None, eigen_solver=None, eigen_tol="auto", n_neighbors=None,
                 n_jobs=None):
        self.n_components = n_components
        self.affinity = affinity
        self.gamma = gamma
        self.random_state = random_state
        self.eigen_solver = eigen_solver
        self.eigen_tol = eigen_tol
        self.n_neighbors = n_neighbors
        self.n_jobs = n_jobs

    # --- issue 35 (s35): precomputed affinities and neighbours graphs, the rbf affinity ---
    # affinity='precomputed' and 'precomputed_nearest_neighbors' are mlnotes' own;
    # affinity='rbf' (W = exp(-gamma |x_i - x_j|^2) between every two points) is mlnotes'
    # complete graph (radius=inf) with heat-kernel weights of width t = 1 / gamma
    # (gamma=None: 1 / n_features, scikit-learn's default); eigen_solver 'lobpcg' is an
    # approximate solver of the same eigenproblem, answered by mlnotes' exact one (as the
    # randomized solvers above); 'amg' needs pyamg, a callable affinity is not in mlnotes.
    # scikit-learn's n_neighbors counts the point itself (with 'nearest_neighbors' and
    # 'precomputed_nearest_neighbors' alike: its graph's rows hold the point and
    # n_neighbors - 1 others), mlnotes' does not: k - 1 (None: each library's default).
    # affinity_matrix_ is exposed dense where scikit-learn's is (a dense affinity: 'rbf', or
    # 'precomputed' given an array); mlnotes drops its diagonal (self-loops weigh nothing in
    # the Laplacian's quadratic form).

    def _fit(self, X, how):
        self._n_features = np.shape(X)[1]
        return super()._fit(X, how)

    def _after_fit(self, est, X):
        import scipy.sparse as sp

        if self.affinity == "rbf" or (self.affinity == "precomputed" and not sp.issparse(X)):
            self.affinity_matrix_ = est.affinity_matrix_.toarray()

    def _build(self):
        solver = _spectral_solver(self.eigen_solver)
        k = self.n_neighbors
        if k is not None:
            k -= 1
        if self.affinity in ("nearest_neighbors", "precomputed", "precomputed_nearest_neighbors"):
            return ml.LaplacianEigenmaps(n_components=self.n_components, n_neighbors=k,
                                         eigen_solver=solver, affinity=self.affinity)
        if isinstance(self.affinity, str) and self.affinity == "rbf":
            gamma = 1.0 / self._n_features if self.gamma is None else self.gamma
            return ml.LaplacianEigenmaps(n_components=self.n_components, n_neighbors=None,
                                         radius=np.inf, t=1.0 / gamma, eigen_solver=solver)
        _skip(f"SpectralEmbedding(affinity={self.affinity!r})")

    def transform(self, X):
        raise AttributeError("SpectralEmbedding has no transform in scikit-learn")


def _spectral_solver(eigen_solver):
    if eigen_solver == "amg":
        _skip("SpectralEmbedding(eigen_solver='amg') (pyamg's multigrid preconditioner)")
    if eigen_solver not in (None, "arpack", "lobpcg"):
        raise ValueError(f"Unknown value for eigen_solver: {eigen_solver!r}")
    return "arpack" if eigen_solver == "arpack" else "auto"


def spectral_embedding(adjacency, *, n_components=8, eigen_solver=None, random_state=None,
                       eigen_tol="auto", norm_laplacian=True, drop_first=True):
    """scikit-learn's ``spectral_embedding``: mlnotes.spectral_embedding."""
    return ml.spectral_embedding(adjacency, n_components, norm_laplacian=norm_laplacian,
                                 drop_first=drop_first,
                                 eigen_solver=_spectral_solver(eigen_solver))


def _graph_connected_component(graph, node_id):
    """scikit-learn's private helper: the component of ``node_id``, by
    mlnotes.graphs.connected_components."""
    import scipy.sparse as sp

    _, labels = ml.graphs.connected_components(sp.csr_matrix(graph))
    return labels == labels[node_id]


def _graph_is_connected(graph):
    """scikit-learn's private helper: whether the graph has one component."""
    import scipy.sparse as sp

    return ml.graphs.connected_components(sp.csr_matrix(graph))[0] == 1


def trustworthiness(X, X_embedded, *, n_neighbors=5, metric="euclidean"):
    """scikit-learn's ``trustworthiness``: mlnotes.metrics.trustworthiness (Euclidean)."""
    if metric != "euclidean":
        _skip(f"trustworthiness(metric={metric!r})")
    import scipy.sparse as sp

    if sp.issparse(X):  # issue 35 (t35): mlnotes' metric takes dense data; the t-SNE under
        X = X.toarray()  # test got the sparse matrix itself
    return ml.metrics.trustworthiness(X, X_embedded, n_neighbors=n_neighbors)


_barnes_hut_tsne = missing("scikit-learn's Barnes-Hut module (_barnes_hut_tsne)")
_gradient_descent = missing("scikit-learn's private _gradient_descent")
_joint_probabilities = missing("scikit-learn's private _joint_probabilities")
_joint_probabilities_nn = missing("scikit-learn's private _joint_probabilities_nn")
_kl_divergence = missing("scikit-learn's private _kl_divergence")
_kl_divergence_bh = missing("scikit-learn's private _kl_divergence_bh")
_binary_search_perplexity = missing("scikit-learn's private _binary_search_perplexity")


class OpenTSNE(_Wrapper):
    """openTSNE.sklearn.TSNE's names for mlnotes.TSNE (n_iter -> max_iter,
    early_exaggeration_iter -> exaggeration_iter; negative_gradient_method 'bh' -> mlnotes'
    approximate gradient, 'fft'; neighbors 'exact' -> mlnotes' exact kNN)."""

    def __init__(self, n_components=2, *, perplexity=30, learning_rate="auto",
                 early_exaggeration_iter=250, early_exaggeration=12, n_iter=500,
                 exaggeration=None, dof=1, theta=0.5, n_interpolation_points=3,
                 min_num_intervals=50, ints_in_interval=1, initialization="pca",
                 metric="euclidean", metric_params=None, initial_momentum=0.5,
                 final_momentum=0.8, max_grad_norm=None, max_step_norm=5, n_jobs=1,
                 neighbors="auto", negative_gradient_method="auto", callbacks=None,
                 callbacks_every_iters=50, random_state=None, verbose=False):
        for name, value in list(locals().items()):
            if name != "self":
                setattr(self, name, value)

    def _build(self):
        if self.metric != "euclidean" or self.exaggeration not in (None, 1) or self.callbacks:
            _skip("openTSNE's metric, late exaggeration or callbacks")
        method = {"bh": "fft", "fft": "fft", "auto": "auto"}[self.negative_gradient_method]
        return ml.TSNE(n_components=self.n_components, perplexity=self.perplexity,
                       learning_rate=self.learning_rate,
                       max_iter=self.n_iter + self.early_exaggeration_iter,
                       exaggeration_iter=self.early_exaggeration_iter,
                       early_exaggeration=self.early_exaggeration, init=self.initialization,
                       random_state=self.random_state, dof=self.dof, method=method)

    # transform: the wrapper's (mlnotes.TSNE.transform with its defaults, openTSNE's settings)


# --- umap-learn ---------------------------------------------------------------------------------
# umap-learn's metrics mlnotes does not offer (a name outside both lists goes to mlnotes, which
# refuses it with a ValueError, as umap-learn does)
UMAP_METRICS_NOT_IN_MLNOTES = (
    "haversine", "seuclidean", "standardised_euclidean", "mahalanobis", "wminkowski",
    "weighted_minkowski", "ll_dirichlet", "symmetric_kl", "poincare", "kulsinski", "russellrao",
    "sokalmichener", "levenshtein", "wasserstein", "wasserstein-1d", "circular_kantorovich",
    "bit_hamming", "bit_jaccard", "hyperboloid", "gaussian_energy", "spherical_gaussian_energy",
    "tsss", "true_angular",
)
UMAP_SPARSE_METRICS = ("euclidean", "l2", "sqeuclidean", "cosine", "correlation", "precomputed")


class UMAP(_Wrapper):
    """umap-learn's ``UMAP`` names for mlnotes.UMAP (n_neighbors, n_components, metric and
    metric_kwds, min_dist, spread, n_epochs, learning_rate, negative_sample_rate, init,
    target_weight, precomputed_knn, random_state; ``embedding_``, ``graph_``, ``a_``, ``b_``;
    fit(X, y) with categorical labels, transform, inverse_transform; sparse input with the
    metrics of sparse inner products and sparse precomputed distances). umap-learn's other
    options skip the case when set away from their defaults: a metric mlnotes does not offer,
    another output metric, densMAP, the graph-union knobs (set_op_mix_ratio,
    local_connectivity, repulsion_strength), a/b given, transform_mode='graph', a target
    metric other than 'categorical' (or target_n_neighbors), unique / disconnection_distance,
    update. Options that only choose how umap-learn computes the same thing (n_jobs, low_memory,
    force_approximation_algorithm, verbose, transform_seed, transform_queue_size,
    angular_rp_forest, tqdm_kwds; n_jobs -1 or 1) are accepted: mlnotes' neighbours are
    exact."""

    _missing = ("update",)

    def __init__(self, n_neighbors=15, n_components=2, metric="euclidean", metric_kwds=None,
                 output_metric="euclidean", output_metric_kwds=None, n_epochs=None,
                 learning_rate=1.0, init="spectral", min_dist=0.1, spread=1.0, low_memory=True,
                 n_jobs=-1, set_op_mix_ratio=1.0, local_connectivity=1.0, repulsion_strength=1.0,
                 negative_sample_rate=5, transform_queue_size=4.0, a=None, b=None,
                 random_state=None, angular_rp_forest=False, target_n_neighbors=-1,
                 target_metric="categorical", target_metric_kwds=None, target_weight=0.5,
                 transform_seed=42, transform_mode="embedding",
                 force_approximation_algorithm=False, verbose=False, tqdm_kwds=None,
                 unique=False, densmap=False, dens_lambda=2.0, dens_frac=0.3,
                 dens_var_shift=0.1, output_dens=False, disconnection_distance=None,
                 precomputed_knn=(None, None, None)):
        for name, value in list(locals().items()):
            if name != "self":
                setattr(self, name, value)

    def _build(self):
        if isinstance(self.metric, str) and self.metric in UMAP_METRICS_NOT_IN_MLNOTES:
            _skip(f"UMAP(metric={self.metric!r})")
        if self.output_metric != "euclidean":
            _skip(f"UMAP(output_metric={self.output_metric!r})")
        if self.densmap or self.output_dens:
            _skip("densMAP (UMAP(densmap=True / output_dens=True))")
        if (self.set_op_mix_ratio, self.local_connectivity, self.repulsion_strength) != (
                1.0, 1.0, 1.0):
            _skip("UMAP's set_op_mix_ratio, local_connectivity or repulsion_strength")
        if self.a is not None or self.b is not None:
            _skip("UMAP(a=..., b=...) given instead of fitted from min_dist and spread")
        if self.transform_mode != "embedding":
            _skip(f"UMAP(transform_mode={self.transform_mode!r})")
        if self.unique or self.disconnection_distance is not None:
            _skip("UMAP(unique=True) or disconnection_distance")
        if self.output_metric_kwds:
            _skip("UMAP(output_metric_kwds=...)")
        if (self.target_n_neighbors, self.target_metric, self.target_metric_kwds) != (
                -1, "categorical", None):
            _skip("supervised UMAP's target_n_neighbors, target_metric other than "
                  "'categorical', or target_metric_kwds")
        if self.n_jobs not in (-1, 1, None):
            _skip(f"UMAP(n_jobs={self.n_jobs!r}) (mlnotes.UMAP has no n_jobs; it runs in "
                  "one process)")
        init = self.init
        if isinstance(init, str) and init == "tswspectral":  # an unknown name: mlnotes refuses it
            _skip("UMAP(init='tswspectral') (tree-whitened spectral start)")
        knn = self.precomputed_knn
        if knn is not None and all(v is None for v in knn):
            knn = None  # umap-learn's default (None, None, None)
        return ml.UMAP(n_components=self.n_components, n_neighbors=self.n_neighbors,
                       metric=self.metric, metric_kwds=self.metric_kwds, min_dist=self.min_dist,
                       spread=self.spread, n_epochs=self.n_epochs,
                       learning_rate=self.learning_rate,
                       negative_sample_rate=self.negative_sample_rate, init=init,
                       target_weight=self.target_weight, precomputed_knn=knn,
                       random_state=self.random_state)

    def _input(self, X):
        import scipy.sparse as sp

        if sp.issparse(X) and self.metric not in UMAP_SPARSE_METRICS:
            _skip(f"UMAP on sparse input with metric={self.metric!r} (mlnotes: the metrics of "
                  "sparse inner products)")
        return X

    def _fit(self, X, how, y=None):
        est = self._build()
        out = getattr(est, how)(self._input(X), y)
        self.estimator_ = est
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, self._renamed.get(name, name), value)
        return out

    def fit(self, X, y=None, **kwargs):
        if kwargs:
            _skip(f"UMAP.fit({', '.join(kwargs)}=...)")
        self._fit(X, "fit", y)
        return self

    def fit_transform(self, X, y=None, **kwargs):
        if kwargs:
            _skip(f"UMAP.fit_transform({', '.join(kwargs)}=...)")
        return self._fit(X, "fit_transform", y)

    def transform(self, X):
        return super().transform(X)

    def inverse_transform(self, X):
        return self.estimator_.inverse_transform(X)


def nearest_neighbors(X, n_neighbors, metric, metric_kwds, angular, random_state,
                      low_memory=True, use_pynndescent=True, n_jobs=-1, verbose=False):
    """umap-learn's ``nearest_neighbors``: each point's ``n_neighbors`` nearest, itself first
    at distance 0 (mlnotes' exact search in the metric; no search index: None)."""
    from mlnotes.umap_metrics import check_umap_metric, metric_kneighbors

    name = check_umap_metric(metric, metric_kwds)
    X = np.asarray(X, dtype=float)
    ind, dist = metric_kneighbors(X, n_neighbors - 1, metric=name, metric_kwds=metric_kwds)
    n = X.shape[0]
    return (np.hstack([np.arange(n)[:, None], ind]), np.hstack([np.zeros((n, 1)), dist]), None)


class _SkipOnUse:
    """Stands for a umap-learn table mlnotes has no counterpart of: reading it skips."""

    def __init__(self, what):
        self.what = what

    def __getitem__(self, key):
        _skip(self.what)

    def __iter__(self):
        _skip(self.what)

    def __contains__(self, key):
        _skip(self.what)


class _UmapMetricTable(dict):
    """umap-learn's ``named_distances``: name -> f(x, y), each mlnotes' UMAP metric on one
    pair (``mlnotes.umap_metrics.umap_distances``); a name mlnotes does not offer skips."""

    def __init__(self, sparse=False):
        super().__init__()
        self.sparse = sparse

    def __contains__(self, name):
        """True for a metric mlnotes offers (on sparse rows, for the sparse table); any other
        name skips (upstream asserts membership before it compares)."""
        from mlnotes.umap_metrics import INNER_PRODUCT_METRICS, UMAP_METRICS

        if name not in (INNER_PRODUCT_METRICS if self.sparse else UMAP_METRICS):
            _skip(f"umap-learn's metric {name!r}{' on sparse rows' if self.sparse else ''}")
        return True

    def __getitem__(self, name):
        assert name in self
        return self._sparse_pair(name) if self.sparse else self._pair(name)

    @staticmethod
    def _pair(name):
        from mlnotes.umap_metrics import umap_distances

        def d(x, y):
            return umap_distances(np.atleast_2d(x), np.atleast_2d(y), metric=name)[0, 0]

        return d

    @staticmethod
    def _sparse_pair(name):
        """umap-learn's sparse signature f(ind1, data1, ind2, data2[, n_features])."""
        import scipy.sparse as sp

        from mlnotes.umap_metrics import umap_distances

        def d(ind1, data1, ind2, data2, n_features=None):
            n = n_features or int(max(np.max(ind1, initial=-1), np.max(ind2, initial=-1)) + 1)
            n = max(n, 1)
            x = sp.csr_matrix((data1, ind1, [0, len(ind1)]), shape=(1, n))
            y = sp.csr_matrix((data2, ind2, [0, len(ind2)]), shape=(1, n))
            return umap_distances(x, y, metric=name)[0, 0]

        return d


def _pairwise_special_metric(X, Y=None, metric="hellinger", kwds=None):
    """umap-learn's ``distances.pairwise_special_metric``: Hellinger distances (mlnotes'
    ``hellinger``); its other special metrics skip."""
    from mlnotes.umap_metrics import umap_distances

    if metric != "hellinger":
        _skip(f"umap-learn's special metric {metric!r}")
    return umap_distances(np.asarray(X, dtype=float),
                          None if Y is None else np.asarray(Y, dtype=float), metric="hellinger")


umap_distances = SimpleNamespace(
    named_distances=_UmapMetricTable(),
    named_distances_with_gradients=_SkipOnUse(
        "umap-learn's metrics with gradients (for its output metrics)"),
    pairwise_special_metric=_pairwise_special_metric,
    standardised_euclidean=missing("the metric 'seuclidean'"),
    weighted_minkowski=missing("the metric 'weighted_minkowski'"),
    mahalanobis=missing("the metric 'mahalanobis'"),
    haversine=missing("the metric 'haversine'"),
    levenshtein=missing("umap-learn's string metric levenshtein"),
    levenshtein_myers_ascii=missing("umap-learn's string metric levenshtein"),
)
umap_sparse = SimpleNamespace(
    sparse_named_distances=_UmapMetricTable(sparse=True),
    sparse_need_n_features=("hamming", "matching", "kulsinski", "rogerstanimoto", "russellrao",
                            "sokalmichener", "correlation"),  # (umap-learn's list)
    sparse_hellinger=missing("the metric 'hellinger' on sparse rows"),
    sparse_ll_dirichlet=missing("umap-learn's special metric 'll_dirichlet'"),
)


component_layout = missing("umap-learn's spectral.component_layout")
pairwise_special_metric = _pairwise_special_metric
disconnected_vertices = missing("umap-learn's utils.disconnected_vertices")


# --- openTSNE's own API (openTSNE.TSNE, whose fit returns the embedding) -----------------------
class _OpenTSNEEmbedding(np.ndarray):
    """openTSNE's ``TSNEEmbedding``: the map as an array; its further optimisation and its
    placing of new points are not in mlnotes (they skip)."""

    # --- issue 35 (engineer t35): openTSNE's transform and prepare_partial -> mlnotes'
    # TSNE.transform. Same names where the concept is the same: perplexity, initialization
    # ('median', 'weighted', an array) -> init, n_iter -> max_iter (0: the start, which is
    # prepare_partial), exaggeration -> exaggeration (openTSNE's default 1.5 passed on),
    # learning_rate (openTSNE's scale; mlnotes' gradient carries the factor (dof + 1) / dof).
    # mlnotes' transform has no early-exaggeration phase and fixes openTSNE's default momentum
    # 0.8 and gradient clip 0.25, and starts from its 3 x perplexity neighbours: other values skip.
    estimator = None  # the fitted mlnotes.TSNE, set by _OpenTSNENative.fit

    def transform(self, X, perplexity=5, initialization="median", k=25, learning_rate=0.1,
                  early_exaggeration=4, early_exaggeration_iter=0, exaggeration=1.5,
                  n_iter=250, initial_momentum=0.8, final_momentum=0.8, max_grad_norm=0.25,
                  max_step_norm=None):
        if early_exaggeration_iter:
            _skip("an early-exaggeration phase in t-SNE's transform")
        if (final_momentum, max_grad_norm, max_step_norm, k) != (0.8, 0.25, None, 25):
            _skip("transform's momentum, gradient and step clipping or k other than openTSNE's "
                  "defaults")
        est = self.estimator
        lr = learning_rate if learning_rate == "auto" else \
            learning_rate * est.dof / (est.dof + 1.0)
        init = initialization if isinstance(initialization, str) else np.asarray(initialization)
        return est.transform(X, perplexity=perplexity, init=init, max_iter=n_iter,
                             learning_rate=lr, exaggeration=exaggeration or 1.0)

    def prepare_partial(self, X, initialization="median", k=25, perplexity=5):
        return self.transform(X, perplexity=perplexity, initialization=initialization, k=k,
                              n_iter=0)
    # --- end of issue 35's block

    def optimize(self, *args, **kwargs):
        _skip("openTSNE's TSNEEmbedding.optimize (resuming the optimisation step by step)")

    @property
    def affinities(self):
        _skip("openTSNE's TSNEEmbedding.affinities (its affinity objects)")


class _OpenTSNENative(OpenTSNE):
    """``openTSNE.TSNE``: the parameters of openTSNE.sklearn.TSNE (above), but ``fit``
    returns the embedding (an array), as openTSNE's own API does."""

    def fit(self, X, y=None):
        embedding = np.asarray(self._fit(X, "fit_transform")).view(_OpenTSNEEmbedding)
        embedding.estimator = self.estimator_  # issue 35: its transform
        return embedding

    def prepare_initial(self, X, *args, **kwargs):
        _skip("openTSNE's TSNE.prepare_initial (the start, optimised step by step)")


openTSNE = SimpleNamespace(
    TSNE=_OpenTSNENative,
    TSNEEmbedding=missing("openTSNE's TSNEEmbedding built from affinity objects"),
    affinity=SimpleNamespace(
        PerplexityBasedNN=missing("openTSNE's affinity.PerplexityBasedNN object")),
    initialization=SimpleNamespace(
        pca=missing("openTSNE's initialization.pca function"),
        spectral=missing("openTSNE's initialization.spectral function")),
)
VerifyExaggerationError = missing("openTSNE's callbacks (VerifyExaggerationError)")
