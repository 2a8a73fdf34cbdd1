"""mlnotes: reference implementations of nonlinear dimensionality reduction.

Every spectral method here is the same three steps (the recipe of the book's introduction):

1. a graph or a distance  (:mod:`mlnotes.graphs`),
2. a matrix               (:mod:`mlnotes.kernels`, :mod:`mlnotes.lle`, :mod:`mlnotes.eigenmaps`),
3. one eigenproblem       (:mod:`mlnotes.spectral`),

and every iterative method (SMACOF, SNE, t-SNE, autoencoders) is an optimisation loop around an
objective. Estimators follow scikit-learn's conventions: keyword arguments, ``fit``,
``fit_transform`` and fitted attributes ending in ``_``.

Working with scikit-learn
-------------------------
Every estimator can go where a scikit-learn transformer goes: ``sklearn.base.clone``,
``Pipeline``, ``GridSearchCV`` over its parameters (``{"iso__n_neighbors": [5, 10]}``),
``get_feature_names_out`` and ``set_output(transform="pandas")``; scikit-learn's own
``check_estimator`` runs on all of them in the test suite (``tests/test_sklearn_compat.py``),
with no exemption (scikit-learn's own counterparts have none among those checks either). The
graph methods share one policy for a disconnected neighbourhood graph, scikit-learn's: a
:class:`DisconnectedGraphWarning` (component sizes, the smallest ``n_neighbors`` that connects
the graph) and a finite result: LLE and Laplacian eigenmaps embed each component on its own,
Isomap joins the components by their shortest edges.
``transform`` exists where the method defines an out-of-sample extension (PCA, kernel PCA,
classical MDS and Isomap by triangulation, LLE by reconstruction weights, Laplacian eigenmaps by
the Nyström formula, the autoencoders' encoder); the SNE family and metric MDS have none, and
asking for it says so (as scikit-learn's ``TSNE`` does).

That face comes from a small base class of our own, :class:`mlnotes.base.Estimator`, not from
scikit-learn's ``BaseEstimator``, for three reasons. The package's premise is that every method
is numpy and scipy one can read: fitting never imports scikit-learn, which stays optional (the
tests and benchmarks use it as a reference). The base class is short enough to read in one
sitting, so a student sees what ``clone`` and ``set_params`` rely on (every ``__init__``
argument stored unchanged under its own name). And scikit-learn's base classes change between
releases (the tags API did in 1.6), which would tie the package's behaviour to its version.
scikit-learn is imported lazily, and only where its own objects are needed: to build the tags
that only scikit-learn asks for, and to read its global output setting once it is loaded.

>>> import mlnotes as ml
>>> X, t = ml.datasets.make_s_curve(200, random_state=0)
>>> X.shape
(200, 3)
"""

from importlib import import_module

__version__ = "0.1.0"

# Public name -> module that defines it.  Submodules are imported on first use, so that
# ``import mlnotes`` stays fast and each module can be read (and tested) on its own.
_ESTIMATORS = {
    "PCA": "pca",
    "ClassicalMDS": "mds",
    "MetricMDS": "smacof",
    "NonMetricMDS": "nonmetric",
    "KernelPCA": "kernel_pca",
    "Isomap": "isomap",
    "LLE": "lle",
    "LaplacianEigenmaps": "eigenmaps",
    "SNE": "sne",
    "SymmetricSNE": "sne",
    "TSNE": "sne",
    "LinearAutoencoder": "autoencoder",
    "Autoencoder": "autoencoder",
    "UMAP": "umap",
    "DiffusionMap": "diffusion",
}
# Other public names (a warning, a function) -> module that defines them.
_OTHER = {"DisconnectedGraphWarning": "graphs", "spectral_embedding": "eigenmaps"}
_SUBMODULES = (
    "base", "datasets", "graphs", "kernels", "spectral", "pca", "mds", "smacof", "nonmetric",
    "kernel_pca", "isomap", "lle", "eigenmaps", "diffusion", "sne", "umap", "umap_metrics",
    "umap_supervised", "autoencoder", "metrics", "plotting", "widgets", "homework",
)

__all__ = sorted(_ESTIMATORS) + sorted(_OTHER) + list(_SUBMODULES)


def __getattr__(name):
    if name in _ESTIMATORS or name in _OTHER:
        module = _ESTIMATORS.get(name) or _OTHER[name]
        return getattr(import_module(f"{__name__}.{module}"), name)
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'mlnotes' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
