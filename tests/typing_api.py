"""The public API's type hints, as a user's type checker sees them (``mypy``, run by make test).

Each line states what a call returns with ``assert_type``; mypy fails when an estimator's
``fit`` stops returning the estimator itself, ``transform`` stops returning a float array, a
step function (the API reference's, book/api.md) returns another type, or a method or function
loses its annotation (it would be ``Any``). The file is checked, never run.
"""

from typing import assert_type

import numpy as np

from mlnotes import (
    affinities,
    autoencoder,
    datasets,
    diffusion,
    eigenmaps,
    graphs,
    kernel_pca,
    kernels,
    lle,
    mds,
    metrics,
    pca,
    smacof,
    sne,
    spectral,
    tsne_fft,
    umap,
)
from mlnotes._typing import FloatArray, IntArray, Sparse
from mlnotes.autoencoder import Autoencoder, LinearAutoencoder
from mlnotes.diffusion import DiffusionMap
from mlnotes.eigenmaps import LaplacianEigenmaps
from mlnotes.isomap import Isomap
from mlnotes.kernel_pca import KernelPCA
from mlnotes.lle import LLE
from mlnotes.mds import ClassicalMDS
from mlnotes.pca import PCA
from mlnotes.smacof import MetricMDS
from mlnotes.sne import SNE, TSNE, SymmetricSNE
from mlnotes.umap import UMAP

X = np.zeros((10, 3))
rows = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]     # any array-like

# fit returns the estimator itself (calls chain), transform a float array
assert_type(PCA(n_components=1).fit(X), PCA)
assert_type(PCA().fit(rows).transform(rows), FloatArray)
assert_type(PCA().inverse_transform(X), FloatArray)
assert_type(ClassicalMDS().fit(X), ClassicalMDS)
assert_type(ClassicalMDS().transform(X), FloatArray)
assert_type(KernelPCA().fit(X), KernelPCA)
assert_type(KernelPCA().transform(X), FloatArray)
assert_type(Isomap().fit(X), Isomap)
assert_type(Isomap().transform(X), FloatArray)
assert_type(LLE().fit(X), LLE)
assert_type(LLE().transform(X), FloatArray)
assert_type(LaplacianEigenmaps().fit(X), LaplacianEigenmaps)
assert_type(LaplacianEigenmaps().transform(X), FloatArray)
assert_type(DiffusionMap().fit(X), DiffusionMap)
assert_type(DiffusionMap().transform(X), FloatArray)
assert_type(UMAP().fit(X), UMAP)
assert_type(UMAP().transform(X), FloatArray)
assert_type(LinearAutoencoder().fit(X), LinearAutoencoder)
assert_type(Autoencoder().fit(X).encode(X), FloatArray)
assert_type(Autoencoder().decode(X), FloatArray)
assert_type(Autoencoder().reconstruction_error(X), float)

# every estimator's fit_transform returns the embedding
for estimator in (PCA(), ClassicalMDS(), MetricMDS(), KernelPCA(), Isomap(), LLE(),
                  LaplacianEigenmaps(), DiffusionMap(), SNE(), SymmetricSNE(), TSNE(), UMAP(),
                  LinearAutoencoder(), Autoencoder()):
    assert_type(estimator.fit_transform(X), FloatArray)
assert_type(MetricMDS().fit(X), MetricMDS)
assert_type(TSNE().fit(X), TSNE)
assert_type(SNE().fit(X), SNE)
assert_type(SymmetricSNE().fit(X), SymmetricSNE)

# step functions (book/api.md): what each step returns, as the book uses it

Xs, us = datasets.make_s_curve(10, random_state=0)
assert_type(Xs, FloatArray)
assert_type(datasets.make_circles(10)[1], IntArray)
assert_type(graphs.squared_distances(Xs), FloatArray)
assert_type(graphs.nearest_neighbors(Xs, 3), IntArray)
G = graphs.knn_graph(Xs, 3)
assert_type(G, Sparse)
assert_type(graphs.connected_components(G), tuple[int, IntArray])
assert_type(graphs.geodesic_distances(G), FloatArray)
assert_type(graphs.smallest_connecting_k(Xs), int)
assert_type(affinities.conditional_affinities(graphs.squared_distances(Xs), 3.0),
            tuple[FloatArray, FloatArray])
assert_type(kernels.rbf_kernel(Xs, gamma=0.5), FloatArray)
assert_type(kernels.double_center(graphs.squared_distances(Xs)), FloatArray)
assert_type(lle.lle_weights(Xs, 4), Sparse)
assert_type(eigenmaps.laplacian(G, kind="symmetric"), Sparse)
assert_type(diffusion.default_epsilon(Xs), float)
assert_type(diffusion.diffusion_eigenpairs(kernels.rbf_kernel(Xs), 2), tuple[FloatArray, FloatArray])
assert_type(spectral.top_eigenpairs(X @ X.T, 2), tuple[FloatArray, FloatArray])
assert_type(spectral.bottom_eigenpairs(X @ X.T, 2, skip=1), tuple[FloatArray, FloatArray])
assert_type(spectral.is_nearly_psd(X @ X.T, 1e-9), bool)
assert_type(pca.principal_components(X, 2), tuple[FloatArray, FloatArray, FloatArray])
assert_type(mds.classical_mds(graphs.pairwise_distances(X), 2), tuple[FloatArray, FloatArray])
assert_type(mds.strain(X @ X.T, X[:, :2]), float)
assert_type(smacof.stress_gradient(graphs.pairwise_distances(X), X[:, :2]), tuple[float, FloatArray])
assert_type(kernel_pca.gram_embedding(X @ X.T, 2), tuple[FloatArray, FloatArray, FloatArray])
assert_type(sne.tsne_objective_gradient(X[:, :2], X @ X.T), tuple[float | None, FloatArray])
assert_type(sne.initial_embedding(X, 2, random_state=0), FloatArray)
assert_type(tsne_fft.repulsion(X[:, :2]), tuple[float, FloatArray])
assert_type(tsne_fft.sparse_affinities(X, 3.0), tuple[Sparse, FloatArray])
assert_type(umap.fit_ab(0.1, 1.0), tuple[float, float])
assert_type(umap.fuzzy_graph(X, 4), tuple[Sparse, FloatArray, FloatArray])
assert_type(autoencoder.init_params([3, 2, 3], random_state=0), list[tuple[FloatArray, FloatArray]])
assert_type(metrics.trustworthiness(X, X[:, :2], n_neighbors=3), float)
assert_type(metrics.align(X, X), FloatArray)
assert_type(metrics.kl_divergence(X, X), float)
