"""Interactive explorers, one per method, that also move in the static book.

Each explorer is a thin ipywidgets layer over a plain drawing function of the parameters::

    ml.widgets.isomap_explorer()              # last line of a cell: the live explorer
    ml.widgets.draw_isomap(n_neighbors=12)    # the same figure, as a matplotlib Figure

``<method>_explorer(**defaults)`` takes any keyword of ``draw_<method>`` as its starting value. In
JupyterLab the explorer is live (sliders redraw the figure, a setting seen before is sent from the
kept PNG; an iterative method's snapshots are all sent once, and its snapshot slider and "play"
switch them in the page, so play shows every frame). In
the saved notebook it also carries its static form: the results for a grid of settings, computed
by the same cached functions (``scene_<method>`` turns them into panels of points, edges, curves and
images) and drawn with working controls by the book's ``explorer.js``; the page says which
settings it holds. See :mod:`mlnotes.widgets._core` and :mod:`mlnotes.widgets._static`.

Explorers, their controls, and the settings the static book holds (every other keyword of
``draw_<method>`` is a fixed setting, e.g. ``n_samples``, ``random_state``):

* ``pca_explorer(angle=0.0)``: the angle of the direction; every 5 degrees.
* ``mds_explorer(dissimilarity="euclidean")``: euclidean / cityblock / geodesic; all three.
* ``smacof_explorer(dissimilarity="euclidean", init="random", max_iter=100)``: dissimilarity,
  start, and a replay of the iterations; all six runs, every iteration.
* ``kernel_pca_explorer(gamma=3.0, dataset="circles", kernel="rbf", degree=2)``: all four;
  every gamma, data set and kernel, degrees 2 and 3 of the polynomial kernel.
* ``isomap_explorer(n_neighbors=6, radius=4.5, graph="knn")``: all three, the short circuits
  marked; k from 4 to 30 (12 values), every radius.
* ``lle_explorer(n_neighbors=10, reg=1e-3)``, ``eigenmaps_explorer(n_neighbors=10, t=10.0)``:
  both; k from 6 to 30 (7 values) with every reg or t.
* ``tsne_explorer(case="two_clusters", perplexity=30.0, learning_rate=200.0,
  exaggeration=12.0, max_iter=500)``: the four, and a replay of the run; the explorer's case,
  each of the other three moved alone, every snapshot.
* ``umap_explorer(n_neighbors=15, min_dist=0.1)``: both; every combination of k in (5, 15, 50)
  and min_dist in (0, 0.1, 0.5, 0.99).
* ``autoencoder_explorer(bottleneck=1)``: the bottleneck, and training replayed over epochs;
  every bottleneck and snapshot.
"""

# ruff: noqa: E402  (the imports below come after the check of the optional dependency)
from .._optional import import_optional

# The explorers draw with matplotlib (the live controls need ipywidgets too): without it, one
# clear error naming the extra instead of a traceback from the first submodule.
import_optional("matplotlib", purpose="mlnotes.widgets", extra="widgets")

from .autoencoder import autoencoder_explorer, draw_autoencoder
from .kernel_pca import draw_kernel_pca, kernel_pca_explorer
from .mds import draw_mds, draw_smacof, mds_explorer, smacof_explorer
from .neighbourhood import (
    draw_eigenmaps,
    draw_isomap,
    draw_lle,
    eigenmaps_explorer,
    isomap_explorer,
    lle_explorer,
)
from .pca import draw_pca, pca_explorer
from .tsne import draw_tsne, tsne_explorer
from .umap import draw_umap, umap_explorer

__all__ = [
    "draw_autoencoder", "autoencoder_explorer",
    "draw_kernel_pca", "kernel_pca_explorer",
    "draw_isomap", "isomap_explorer",
    "draw_mds", "mds_explorer",
    "draw_smacof", "smacof_explorer",
    "draw_lle", "lle_explorer",
    "draw_eigenmaps", "eigenmaps_explorer",
    "draw_pca", "pca_explorer",
    "draw_tsne", "tsne_explorer",
    "draw_umap", "umap_explorer",
]
