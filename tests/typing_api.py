"""The public API's type hints, as a user's type checker sees them (``mypy``, run by make test).

Each line states what a call returns with ``assert_type``; mypy fails when an estimator's
``fit`` stops returning the estimator itself, ``transform`` stops returning a float array, or a
method loses its annotation (it would be ``Any``). The file is checked, never run.
"""

from typing import assert_type

import numpy as np

from mlnotes._typing import FloatArray
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
