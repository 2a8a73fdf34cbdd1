"""mlnotes: reference implementations of nonlinear dimensionality reduction.

Every spectral method here is the same three steps (the recipe of the book's introduction):

1. a graph or a distance  (:mod:`mlnotes.graphs`),
2. a matrix               (:mod:`mlnotes.kernels`, :mod:`mlnotes.lle`, :mod:`mlnotes.eigenmaps`),
3. one eigenproblem       (:mod:`mlnotes.spectral`),

and every iterative method (SMACOF, SNE, t-SNE, autoencoders) is an optimisation loop around an
objective. Estimators follow scikit-learn's conventions: keyword arguments, ``fit``,
``fit_transform`` and fitted attributes ending in ``_``.

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
    "KernelPCA": "kernel_pca",
    "Isomap": "isomap",
    "LLE": "lle",
    "LaplacianEigenmaps": "eigenmaps",
    "SNE": "sne",
    "SymmetricSNE": "sne",
    "TSNE": "sne",
    "LinearAutoencoder": "autoencoder",
    "Autoencoder": "autoencoder",
}
_SUBMODULES = (
    "datasets", "graphs", "kernels", "spectral", "pca", "mds", "smacof", "kernel_pca",
    "isomap", "lle", "eigenmaps", "sne", "autoencoder", "metrics", "plotting", "widgets",
    "homework",
)

__all__ = sorted(_ESTIMATORS) + list(_SUBMODULES)


def __getattr__(name):
    if name in _ESTIMATORS:
        return getattr(import_module(f"{__name__}.{_ESTIMATORS[name]}"), name)
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'mlnotes' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
